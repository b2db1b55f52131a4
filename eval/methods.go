package eval

import (
	"fmt"
	"strings"
)

// Method names an explanation method under evaluation.
type Method string

// The methods (docs/METHOD.md#baselines).
const (
	// QUCE is the QUCE search with the options' Config.
	QUCE Method = "quce"
	// QUCEAuto is the QUCE search with λ2 and λ3 chosen per instance (quce.Auto, grid
	// Options.Auto) under the plausibility bound of Options.PlausibilityQuantile.
	QUCEAuto Method = "quce-auto"
	// IG is the straight line from x to the QUCE counterfactual x_c (the paper's IG-QUCE),
	// measured with the same path attribution.
	IG Method = "ig"
	// AGI is the individual AGI path: x ← x − η·sign(∇ log F(f(x)|x)) until the class flips
	// or the step limit is reached.
	AGI Method = "agi"
	// Wachter is the QUCE search with λ3 = 0 (no uncertainty term).
	Wachter Method = "wachter"
	// DiceRandom is DiCE's "random" strategy: random changes to a few features within the
	// training range until the class flips; the closest valid candidate is kept. No path.
	DiceRandom Method = "dice-random"
)

// AllMethods lists every method in table order.
var AllMethods = []Method{QUCE, QUCEAuto, IG, AGI, Wachter, DiceRandom}

// HasPath reports whether the method makes a path (and so an attribution).
func (m Method) HasPath() bool { return m != DiceRandom }

// Title is the method's name in the paper's tables.
func (m Method) Title() string {
	switch m {
	case QUCE:
		return "QUCE"
	case QUCEAuto:
		return "QUCE (automatic λ)"
	case IG:
		return "IG-QUCE"
	case AGI:
		return "AGI"
	case Wachter:
		return "Wachter (λ3=0)"
	case DiceRandom:
		return "DiCE-random"
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
		if name == "dice" || name == "dice_random" || name == "dicerandom" {
			name = DiceRandom
		}
		if name == "auto" || name == "quce_auto" {
			name = QUCEAuto
		}
		if name == "ig-quce" {
			name = IG
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

func (m Method) valid() bool {
	for _, k := range AllMethods {
		if m == k {
			return true
		}
	}
	return false
}

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
