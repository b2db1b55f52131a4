package eval

import (
	"cmp"
	"context"
	"fmt"
	"image/color"
	"slices"
	"strings"
)

// Method names an explanation method under evaluation (the methods are listed in the
// package documentation; Methods describes each).
type Method string

// A runner is a method: what it is (about) and how it runs on a split's instances. Adding a
// method is one file: its Method name and a runner for it, which the file registers (see
// register) from its init function.
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
	label   string   // its name in the legends of plots
	aliases []string // other names ParseMethods accepts
	// color is the method's colour in every plot, one of the Okabe-Ito colours (okabeIto)
	// no other method has.
	color color.Color
	// order places the method in the tables, which is also the order the methods run in:
	// smallest first, no two methods alike.
	order int
	// inDefault: the method is among DefaultMethods, which quce eval compares unless told
	// otherwise.
	inDefault bool
	// path: the method makes a path, and so an attribution: the path and attribution
	// metrics apply.
	path bool
	// ownCounterfactual: the counterfactual is the method's own (ig's is QUCE's): the
	// counterfactual metrics apply.
	ownCounterfactual bool
	needs             []Method // methods whose outcomes run reads; their order is smaller
}

// The Okabe-Ito colours, which stay distinguishable for colour-blind readers, for the
// methods' colours.
var okabeIto = struct {
	orange, skyBlue, bluishGreen, blue, vermillion, reddishPurple color.RGBA
}{
	orange:        color.RGBA{0xe6, 0x9f, 0x00, 0xff},
	skyBlue:       color.RGBA{0x56, 0xb4, 0xe9, 0xff},
	bluishGreen:   color.RGBA{0x00, 0x9e, 0x73, 0xff},
	blue:          color.RGBA{0x00, 0x72, 0xb2, 0xff},
	vermillion:    color.RGBA{0xd5, 0x5e, 0x00, 0xff},
	reddishPurple: color.RGBA{0xcc, 0x79, 0xa7, 0xff},
}

// registry lists every method in table order (about.order); each method's file adds its
// own with register.
var registry []runner

// register adds r to registry in its place. No two methods share a name, alias, order or
// colour, and a method's needs come before it (TestRegistry checks).
func register(r runner) {
	registry = append(registry, r)
	slices.SortStableFunc(registry, func(x, y runner) int { return cmp.Compare(x.about().order, y.about().order) })
}

// MethodInfo is what the tools that show a method need to know of it.
type MethodInfo struct {
	Name  Method
	Title string      // its name in the paper's tables
	Label string      // its name in the legends of plots
	Color color.Color // its colour in every plot
	// Default: the method is among DefaultMethods.
	Default bool
}

// Methods describes every method, in table order.
func Methods() []MethodInfo {
	out := make([]MethodInfo, len(registry))
	for i, r := range registry {
		out[i] = r.about().info()
	}
	return out
}

func (a about) info() MethodInfo {
	return MethodInfo{Name: a.name, Title: a.title, Label: a.label, Color: a.color, Default: a.inDefault}
}

// Info describes the method, and reports whether there is one named m.
func (m Method) Info() (MethodInfo, bool) {
	a, ok := lookup(m)
	return a.info(), ok
}

// AllMethods lists every method in table order.
func AllMethods() []Method {
	names := make([]Method, len(registry))
	for i, r := range registry {
		names[i] = r.about().name
	}
	return names
}

// DefaultMethods lists the methods quce eval compares unless told otherwise, in table
// order.
func DefaultMethods() []Method {
	var names []Method
	for _, r := range registry {
		if a := r.about(); a.inDefault {
			names = append(names, a.name)
		}
	}
	return names
}

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
		return AllMethods(), nil
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
	for _, m := range AllMethods() {
		if want[m] {
			out = append(out, m)
		}
	}
	return out, nil
}

func (m Method) valid() bool { _, ok := lookup(m); return ok }

func methodList() string { return JoinMethods(AllMethods(), ", ") }

// JoinMethods is the names of ms joined by sep: JoinMethods(DefaultMethods(), ",") is a
// list that ParseMethods reads.
func JoinMethods(ms []Method, sep string) string {
	names := make([]string, len(ms))
	for i, m := range ms {
		names[i] = string(m)
	}
	return strings.Join(names, sep)
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
