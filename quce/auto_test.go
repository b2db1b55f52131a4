package quce

import (
	"errors"
	"math"
	"reflect"
	"strings"
	"testing"
)

// The rule on hand-made candidate sets.
func TestChooseCandidate(t *testing.T) {
	c := func(d, u, p float64, valid bool) Candidate {
		return Candidate{Distance: d, Uncertainty: u, ProbEnd: p, Valid: valid}
	}
	for _, tc := range []struct {
		name      string
		cands     []Candidate
		bound     float64
		want      int
		plausible bool
	}{
		{"closest plausible valid", []Candidate{c(5, 1, .9, true), c(3, 2, .8, true), c(1, 9, .7, true)}, 4, 1, true},
		{"an implausible closer one is passed over", []Candidate{c(9, 1, .9, true), c(1, 5, .9, true)}, 4, 0, true},
		{"an invalid closer one is passed over", []Candidate{c(9, 1, .9, true), c(1, 1, .4, false)}, 4, 0, true},
		{"bound inclusive", []Candidate{c(9, 1, .9, true), c(2, 4, .9, true)}, 4, 1, true},
		{"ties go to the earlier", []Candidate{c(2, 1, .9, true), c(2, 1, .9, true)}, 4, 0, true},
		{"none plausible: lowest L_ε", []Candidate{c(1, 9, .9, true), c(5, 6, .9, true), c(0, 5, .1, false)}, 4, 1, false},
		{"NaN L_ε counts as implausible", []Candidate{c(1, math.NaN(), .9, true), c(5, 6, .9, true)}, 4, 1, false},
		{"none valid: highest F", []Candidate{c(1, 1, .2, false), c(5, 6, .45, false), c(0, 5, .1, false)}, 4, 1, false},
		{"one candidate", []Candidate{c(1, 1, .2, false)}, 4, 0, false},
		// need is 0.55 (ϑ 0.5 + margin 0.05): the pull-back cannot raise F to it.
		{"a closer one short of the margin is passed over", []Candidate{c(5, 1, .9, true), c(1, 1, .52, true)}, 4, 0, true},
		{"none reaches the margin: the closest valid", []Candidate{c(5, 1, .53, true), c(1, 1, .52, true)}, 4, 1, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, plausible := chooseCandidate(tc.cands, tc.bound, 0.55)
			if got != tc.want || plausible != tc.plausible {
				t.Errorf("chose %d (plausible %v), want %d (%v)", got, plausible, tc.want, tc.plausible)
			}
		})
	}
}

// The search of the λ2 line on hand-made candidate sets (bound 4; acceptable: valid and
// L_ε ≤ 4). c's distance falls with λ2; d's is given (after the pull-back it need not fall).
func TestNextLambda(t *testing.T) {
	c := func(l2, l3 float64, valid bool, u float64) Candidate {
		return Candidate{Lambdas: Lambdas{l2, l3}, Distance: 10 / (1 + l2), Uncertainty: u, ProbEnd: .9, Valid: valid}
	}
	d := func(l2, dist float64) Candidate {
		return Candidate{Lambdas: Lambdas{l2, .1}, Distance: dist, Uncertainty: 1, ProbEnd: .55, Valid: true}
	}
	for _, tc := range []struct {
		name  string
		cands []Candidate
		want  Lambdas
		ok    bool
	}{
		{"between the chosen and the next unacceptable", []Candidate{c(0.01, .1, true, 1), c(0.1, .1, true, 1), c(1, .1, false, 1), c(3, .1, false, 1)}, Lambdas{math.Sqrt(0.1), .1}, true},
		{"an implausible larger λ2 bounds it too", []Candidate{c(0.1, .1, true, 1), c(1, .1, true, 9)}, Lambdas{math.Sqrt(0.1), .1}, true},
		{"only the chosen λ3's line counts", []Candidate{c(0.1, .1, true, 1), c(0.2, 1, false, 1), c(1, .1, false, 1)}, Lambdas{math.Sqrt(0.1), .1}, true},
		{"all acceptable: beyond the largest", []Candidate{c(0.1, .1, true, 1), c(1, .1, true, 1)}, Lambdas{3, .1}, true},
		{"a closed bracket stops", []Candidate{c(1, .1, true, 1), c(1.05, .1, false, 1)}, Lambdas{}, false},
		{"from λ2 = 0", []Candidate{c(0, .1, true, 1), c(1, .1, false, 1)}, Lambdas{0.1, .1}, true},
		{"none valid: left alone", []Candidate{c(0.01, .1, false, 1), c(1, .1, false, 1)}, Lambdas{}, false},
		{"valid but none plausible: left alone", []Candidate{c(0.01, .1, true, 9), c(1, .1, false, 1)}, Lambdas{}, false},
		// Before, these repeated a search: the bracket ran to the next unacceptable λ2 past
		// acceptable but farther ones, or, with none, to 3 times the chosen λ2 though it was searched.
		{"an acceptable but farther larger λ2 bounds it", []Candidate{d(0.01, 2.9), d(0.1, 2.91), c(1, .1, false, 1)}, Lambdas{math.Sqrt(0.001), .1}, true},
		{"3 times the chosen one already searched", []Candidate{d(0.1, 3.9), d(0.3, 4.3), d(1, 4.9)}, Lambdas{math.Sqrt(0.03), .1}, true},
		{"the upper side closed: the lower side", []Candidate{d(0.01, 5), d(0.1, 3), d(0.105, 4)}, Lambdas{math.Sqrt(0.001), .1}, true},
		{"both sides closed stops", []Candidate{d(0.1, 5), d(0.105, 3), d(0.11, 4)}, Lambdas{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := nextLambda(tc.cands, 4, 0.55)
			if ok != tc.ok || math.Abs(got.Lambda2-tc.want.Lambda2) > 1e-12 || got.Lambda3 != tc.want.Lambda3 {
				t.Errorf("got %+v (%v), want %+v (%v)", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// Bad settings of automatic λ and sparsity are errors with a fix.
func TestAutoConfigErrors(t *testing.T) {
	withAuto := func(f func(*Config)) Config {
		c := DefaultConfig()
		c.Auto, c.Plausibility, c.PlausibilityQuantile = DefaultAuto(), 10, 0.9
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"empty grid", withAuto(func(c *Config) { c.Auto.Grid = nil }), "empty grid"},
		{"negative λ", withAuto(func(c *Config) { c.Auto.Grid[1].Lambda3 = -1 }), "candidate 2: λ3 = -1"},
		{"NaN λ", withAuto(func(c *Config) { c.Auto.Grid[0].Lambda2 = math.NaN() }), "candidate 1: λ2 = NaN"},
		{"no bound", withAuto(func(c *Config) { c.Plausibility, c.PlausibilityQuantile = 0, 0 }), "Config.Plausibility = 0"},
		{"negative bound", withAuto(func(c *Config) { c.Plausibility = -1 }), "Config.Plausibility = -1"},
		{"sparse without bound", func() Config { c := DefaultConfig(); c.Sparse = true; return c }(), "Config.Plausibility = 0"},
		{"quantile 1", withAuto(func(c *Config) { c.PlausibilityQuantile = 1 }), "Config.PlausibilityQuantile = 1"},
		{"quantile below 0", withAuto(func(c *Config) { c.PlausibilityQuantile = -0.1 }), "Config.PlausibilityQuantile = -0.1"},
		{"negative rounds", withAuto(func(c *Config) { c.Auto.Rounds = -1 }), "-1 refinement rounds"},
		{"too many rounds", withAuto(func(c *Config) { c.Auto.Rounds = 11 }), "11 refinement rounds"},
		{"steps share above 1", withAuto(func(c *Config) { c.Auto.Steps = 1.5 }), "searching 1.5 of the steps"},
		{"negative steps share", withAuto(func(c *Config) { c.Auto.Steps = -0.5 }), "searching -0.5 of the steps"},
		{"NaN steps share", withAuto(func(c *Config) { c.Auto.Steps = math.NaN() }), "searching NaN of the steps"},
		{"margin 1", withAuto(func(c *Config) { c.Margin = 1 }), "Config.Margin = 1"},
		{"NaN margin", withAuto(func(c *Config) { c.Margin = math.NaN() }), "Config.Margin = NaN"},
		{"negative margin", func() Config { c := DefaultConfig(); c.Margin = -0.01; return c }(), "Config.Margin = -0.01"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.cfg.Validate()
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fix:") {
				t.Errorf("got %v, want an error with %q and a fix", err, tc.want)
			}
		})
	}
	if err := withAuto(func(*Config) {}).Validate(); err != nil {
		t.Errorf("the default auto settings: %v", err)
	}
	// A quantile alone is a complete setting: the bound is taken from the training rows later.
	if err := withAuto(func(c *Config) { c.Plausibility = 0 }).Validate(); err != nil {
		t.Errorf("automatic λ with a quantile and no bound yet: %v", err)
	}
}

// Validate names the bad setting by the field's Go name, so that a program can name it its
// own way (the command line maps it to a flag).
func TestValidateNamesTheField(t *testing.T) {
	with := func(f func(*Config)) Config { c := DefaultConfig(); f(&c); return c }
	for _, tc := range []struct {
		cfg   Config
		field string
	}{
		{with(func(c *Config) { c.Lambda1 = 0 }), "Config.Lambda1"},
		{with(func(c *Config) { c.Lambda3 = math.Inf(1) }), "Config.Lambda3"},
		{with(func(c *Config) { c.LearningRate = math.NaN() }), "Config.LearningRate"},
		{with(func(c *Config) { c.Steps = 0 }), "Config.Steps"},
		{with(func(c *Config) { c.K = -1 }), "Config.K"},
		{with(func(c *Config) { c.Threshold = 1 }), "Config.Threshold"},
		{with(func(c *Config) { c.EarlyStop = -1 }), "Config.EarlyStop"},
		{with(func(c *Config) { c.Paths = 0 }), "Config.Paths"},
		{with(func(c *Config) { c.StartNoise = -1 }), "Config.StartNoise"},
		{with(func(c *Config) { c.Samples = -1 }), "Config.Samples"},
		{with(func(c *Config) { c.PathPoints = 1 }), "Config.PathPoints"},
		{with(func(c *Config) { c.Sparse, c.PlausibilityQuantile = true, 1.5 }), "Config.PlausibilityQuantile"},
		{with(func(c *Config) { c.Sparse = true }), "Config.Plausibility"},
		{with(func(c *Config) { c.Auto, c.Plausibility = &Auto{}, 1 }), "Config.Auto"},
		{with(func(c *Config) { c.Optimizer = "rmsprop" }), "Config.Optimizer"},
		{with(func(c *Config) { c.Rule = "boole" }), "Config.Rule"},
	} {
		var fe *FieldError
		if err := tc.cfg.Validate(); !errors.As(err, &fe) || fe.Field != tc.field || fe.Fix == "" {
			t.Errorf("%s: got %v (%#v), want a *FieldError of %q with a fix", tc.field, err, fe, tc.field)
			continue
		}
		if _, ok := reflect.TypeFor[Config]().FieldByName(strings.TrimPrefix(tc.field, "Config.")); !ok {
			t.Errorf("%q is not the Go name of a Config field", tc.field)
		}
	}
}
