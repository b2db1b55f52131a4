package eval

import (
	"context"
	"fmt"
	"slices"
	"strings"
)

// Method names an explanation method under evaluation (the methods are listed in the
// package documentation and in registry).
type Method string

// A runner is a method: what it is (about) and how it runs on a split's instances. Adding a
// method is one file: its Method name, a runner for it, and its line in registry.
type runner interface {
	about() about
	// run returns one outcome per instance of s, in order. It may read the outcomes of the
	// methods it needs (about.needs), which run before it.
	run(ctx context.Context, s *split) ([]*outcome, error)
}

// about describes a method.
type about struct {
	name    Method
	title   string   // its name in the paper's tables
	aliases []string // other names ParseMethods accepts
	// path: the method makes a path, and so an attribution: the path and attribution
	// metrics apply.
	path bool
	// ownCounterfactual: the counterfactual is the method's own (ig's is QUCE's): the
	// counterfactual metrics apply.
	ownCounterfactual bool
	needs             []Method // methods whose outcomes run reads
}

// registry lists every method in table order, which is also the order they run in.
var registry = []runner{quceRunner, quceAutoRunner, igRunner{}, agiRunner{}, wachterRunner, diceRunner{}}

// AllMethods lists every method in table order.
var AllMethods = func() []Method {
	names := make([]Method, len(registry))
	for i, r := range registry {
		names[i] = r.about().name
	}
	return names
}()

// lookup is the method named m, and whether there is one.
func lookup(m Method) (about, bool) {
	for _, r := range registry {
		if a := r.about(); a.name == m {
			return a, true
		}
	}
	return about{}, false
}

// HasPath reports whether the method makes a path (and so an attribution).
func (m Method) HasPath() bool { a, _ := lookup(m); return a.path }

// Title is the method's name in the paper's tables.
func (m Method) Title() string {
	if a, ok := lookup(m); ok {
		return a.title
	}
	return string(m)
}

// ParseMethods parses a comma-separated list such as "quce,ig" ("all" or "" means every
// method). Names are case-insensitive; "dice" is accepted for dice-random. Duplicates are
// dropped; the result is in table order.
func ParseMethods(s string) ([]Method, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "all") {
		return append([]Method(nil), AllMethods...), nil
	}
	want := map[Method]bool{}
	for _, part := range strings.Split(s, ",") {
		name := Method(strings.ToLower(strings.TrimSpace(part)))
		for _, r := range registry {
			if slices.Contains(r.about().aliases, string(name)) {
				name = r.about().name
			}
		}
		if !name.valid() {
			return nil, fmt.Errorf("eval: unknown method %q; fix: use a comma-separated list of %s (or all)", strings.TrimSpace(part), methodList())
		}
		want[name] = true
	}
	var out []Method
	for _, m := range AllMethods {
		if want[m] {
			out = append(out, m)
		}
	}
	return out, nil
}

func (m Method) valid() bool { _, ok := lookup(m); return ok }

func methodList() string {
	names := make([]string, len(AllMethods))
	for i, m := range AllMethods {
		names[i] = string(m)
	}
	return strings.Join(names, ", ")
}

// The splits.
const (
	Train = "train"
	Test  = "test"
)

// ParseSplits parses "train,test" (any order, any case; "" or "all" means both).
func ParseSplits(s string) ([]string, error) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "all") {
		return []string{Train, Test}, nil
	}
	seen := map[string]bool{}
	var out []string
	for _, part := range strings.Split(s, ",") {
		p := strings.ToLower(strings.TrimSpace(part))
		if p != Train && p != Test {
			return nil, fmt.Errorf("eval: unknown split %q; fix: use train, test or train,test", strings.TrimSpace(part))
		}
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	}
	return out, nil
}
