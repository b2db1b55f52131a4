package quce

import (
	"fmt"
	"math"
	"strings"
)

// Optimizer is the update rule applied to the counterfactual.
type Optimizer string

// The optimisers (docs/METHOD.md#the-search-and-the-recorded-path).
const (
	Adam Optimizer = "adam" // β1 0.9, β2 0.999, ε 1e-8
	SGD  Optimizer = "sgd"  // SGD with momentum 0.9 (PyTorch form)
	GD   Optimizer = "gd"   // plain gradient descent, the paper's update rule
)

// Rule is the quadrature used for the path integral of the gradient.
type Rule string

// The path-attribution rules.
const (
	// Riemann is the paper's form (Prop. 1; docs/METHOD.md#path-attribution-and-completeness):
	// K right-endpoint points inside every path segment.
	Riemann Rule = "riemann"
	// Trapezoid is the composite trapezoid rule with K sub-intervals per segment. With
	// K = 1 it averages the gradients at the segment's two ends, which come with the
	// optimisation steps, so it costs nothing extra; it is second-order accurate, so the
	// gap falls as 1/K² where Riemann's falls as 1/K.
	Trapezoid Rule = "trapezoid"
	// Simpson weighs the two ends and the midpoint of every segment 1:4:1 (one extra
	// gradient per segment, fourth-order accurate where the classifier is smooth).
	Simpson Rule = "simpson"
)

// interiorNodes are the points t ∈ (0, 1) inside a segment where the rule needs ∇F.
func (r Rule) interiorNodes(k int) []float64 {
	switch r {
	case Simpson:
		return []float64{0.5}
	case Riemann, Trapezoid:
		nodes := make([]float64, 0, k-1)
		for i := 1; i < k; i++ {
			nodes = append(nodes, float64(i)/float64(k))
		}
		return nodes
	}
	return nil
}

// weights give a segment's integral as w0·∇F(start) + wIn·Σ interior ∇F + w1·∇F(end),
// to be multiplied by the segment's displacement.
func (r Rule) weights(k int) (w0, wIn, w1 float64) {
	switch r {
	case Simpson:
		return 1.0 / 6, 4.0 / 6, 1.0 / 6
	case Riemann:
		return 0, 1 / float64(k), 1 / float64(k)
	}
	return 0.5 / float64(k), 1 / float64(k), 0.5 / float64(k)
}

// Config holds every setting of the explainer. DefaultConfig documents the defaults.
type Config struct {
	Lambda1      float64   `json:"lambda1"`       // weight of −log F(τ|x_c)
	Lambda2      float64   `json:"lambda2"`       // weight of ½‖x_c − x‖²
	Lambda3      float64   `json:"lambda3"`       // weight of the VAE uncertainty L_ε(x_c)
	LearningRate float64   `json:"learning_rate"` // φ
	Steps        int       `json:"steps"`         // n
	Optimizer    Optimizer `json:"optimizer"`
	K            int       `json:"k"`         // Riemann points per segment, and points of the ± integrals
	Rule         Rule      `json:"rule"`      // path-attribution quadrature
	Threshold    float64   `json:"threshold"` // ϑ: valid when F(τ|x_c) ≥ ϑ
	// EarlyStop, when > 0, stops a row once F(τ|x_c) ≥ ϑ has held for that many steps.
	// Off (0) by default: the paper runs all n steps.
	EarlyStop int `json:"early_stop"`
	// Paths is m, the number of paths per instance (exQUCE when > 1).
	Paths int `json:"paths"`
	// StartNoise is the standard deviation (standardised units) of the Gaussian offset from
	// x at which paths 2..m start; path 1 always starts at x.
	StartNoise float64 `json:"start_noise"`
	// Samples is S: 0 uses the mean code z = μ(x) in L_ε; S ≥ 1 averages S reparameterised
	// samples drawn from a seeded generator (per row, per step).
	Samples int    `json:"samples"`
	Seed    uint64 `json:"seed"`
	// PathPoints bounds the points of each path kept in Path.Points (evenly spaced by
	// step; x and x_c always kept), so memory does not grow with rows × steps × features.
	// Attributions and path metrics always use every point. 0 keeps every point.
	PathPoints int `json:"path_points"`

	// Margin is how far above ϑ every walk back towards x keeps F(τ|·): automatic λ's
	// pull-back walks only while F(τ|·) ≥ ϑ + Margin, Sparse keeps a reset only if
	// F(τ|·) ≥ ϑ + Margin after it, and the repairs after the projection onto legal rows
	// move until F(τ|·) ≥ ϑ + Margin. A counterfactual on the boundary flips with float32
	// rounding or the next retraining; one a margin inside holds. The search itself walks
	// past the boundary as far as its weights take it, and the margin does not change it.
	// 0 (DefaultConfig, where nothing walks back unless Sparse is set) keeps validity alone;
	// DefaultMargin is the margin of automatic λ and sparsity.
	Margin float64 `json:"margin,omitempty"`
	// Auto, when set, chooses λ2 and λ3 for each instance from a grid of candidates (see
	// Auto); Lambda2 and Lambda3 are then not used. It needs the plausibility bound.
	Auto *Auto `json:"auto,omitempty"`
	// Sparse, after the search, resets the changed features of every valid counterfactual
	// to x's values, smallest change first, keeping each reset only while the point stays
	// valid and plausible (L_ε ≤ max(Plausibility, L_ε before the resets)). The resets are
	// segments of the path, so the attribution still integrates to F(τ|x_c) − F(τ|x). It
	// needs the plausibility bound.
	Sparse bool `json:"sparse"`
	// Counterfactuals, if above 1, asks for up to this many distinct valid counterfactuals
	// per instance (Explanation.Counterfactuals; see the package's "Several counterfactuals
	// per instance"); 0 or 1: one.
	Counterfactuals int `json:"counterfactuals,omitempty"`
	// Plausibility is the bound on L_ε (trained form) under which a counterfactual counts
	// as plausible, for Auto and Sparse. 0 when neither is used, or until Explainer.WithBound
	// takes it from the training rows at PlausibilityQuantile.
	Plausibility float64 `json:"plausibility,omitempty"`
	// PlausibilityQuantile is the quantile of the training rows' L_ε that Plausibility is
	// (0: a bound set by hand, or none).
	PlausibilityQuantile float64 `json:"plausibility_quantile,omitempty"`
}

// DefaultConfig returns the documented defaults:
//
//	λ1 = 1, λ2 = 0.01, λ3 = 0.1, Adam, φ = 0.01, n = 1000, trapezoid rule with K = 10,
//	ϑ = 0.5, m = 1, start noise 0.05, S = 0, seed 1, 201 kept path points.
//
// They were chosen on W-BC so that at least 98% of test-split counterfactuals are valid
// while the proximity and uncertainty terms still shape the path (λ3 = 0.1 makes the
// counterfactuals clearly more plausible than λ3 = 0.01, all still valid).
//
// The attribution rule: the classifier's ReLU kinks make every rule first order in K, so
// the trapezoid rule wins by its constant: with K = 10 it closes the completeness gap as
// Riemann's does at K = 100, for a modest cost over the bare search (the interior
// points need only the classifier's gradient, computed in the same execution as the step).
// The gaps of each rule and K are in docs/REFERENCE.md (Choices) and docs/METHOD.md.
func DefaultConfig() Config {
	return Config{
		Lambda1: 1, Lambda2: 0.01, Lambda3: 0.1,
		LearningRate: 0.01, Steps: 1000, Optimizer: Adam,
		K: 10, Rule: Trapezoid, Threshold: 0.5,
		Paths: 1, StartNoise: 0.05, Seed: 1, PathPoints: 201,
	}
}

// DefaultMargin is the margin (Config.Margin) that automatic λ and sparsity hold by default:
// F(τ|x_c) ≥ ϑ + 0.05.
const DefaultMargin = 0.05

// FieldError is a Config setting that is not allowed, with its fix. Field is the setting's
// Go name ("Config.Lambda1", "Config.LearningRate", "Config.Auto", …), so that a program with
// its own names for the settings (the command line's flags) can name the setting its own way.
type FieldError struct {
	Field string
	Value any // the value refused; nil when Problem says it
	// Problem says what is wrong when it is more than that Value is not allowed: an unknown
	// name, which candidate of a grid.
	Problem string
	Fix     string
}

func (e *FieldError) Error() string {
	switch {
	case e.Problem == "":
		return fmt.Sprintf("quce: %s = %v is not allowed; fix: %s", e.Field, e.Value, e.Fix)
	case e.Value == nil:
		return fmt.Sprintf("quce: %s; fix: %s", e.Problem, e.Fix)
	}
	return fmt.Sprintf("quce: %s %q; fix: %s", e.Problem, e.Value, e.Fix)
}

// Validate reports the first bad setting as a *FieldError. Automatic λ and sparsity need a
// bound on L_ε: Plausibility, or PlausibilityQuantile to take it from the training rows
// (Explainer.WithBound).
func (c Config) Validate() error {
	finite := func(v float64) bool { return !math.IsNaN(v) && !math.IsInf(v, 0) }
	for i, l := range []float64{c.Lambda1, c.Lambda2, c.Lambda3} {
		if !finite(l) || l < 0 {
			return &FieldError{Field: fmt.Sprintf("Config.Lambda%d", i+1), Value: l, Fix: "use a finite weight ≥ 0 (the defaults are 1, 0.01, 0.1)"}
		}
	}
	checks := []struct {
		bad   bool
		field string
		value any
		fix   string
	}{
		{c.Lambda1 == 0, "Config.Lambda1", c.Lambda1, "use a positive λ1 such as 1: without it nothing moves x towards the target class"},
		{!finite(c.LearningRate) || c.LearningRate <= 0, "Config.LearningRate", c.LearningRate, "use a positive learning rate such as 0.01"},
		{c.Steps <= 0, "Config.Steps", c.Steps, "use at least 1 step (1000 is the default)"},
		{c.K <= 0, "Config.K", c.K, "use at least 1 point (10 is typical)"},
		{!(c.Threshold > 0 && c.Threshold < 1), "Config.Threshold", c.Threshold, "use a probability strictly between 0 and 1 such as 0.5"},
		{c.EarlyStop < 0, "Config.EarlyStop", c.EarlyStop, "use 0 (off) or a positive number of steps"},
		{c.Paths <= 0, "Config.Paths", c.Paths, "use at least 1 path"},
		{!finite(c.StartNoise) || c.StartNoise < 0, "Config.StartNoise", c.StartNoise, "use a finite value ≥ 0"},
		{c.Samples < 0, "Config.Samples", c.Samples, "use 0 (the mean code) or a positive number of samples"},
		{!(c.Margin >= 0 && c.Margin < 1), "Config.Margin", c.Margin, "use a margin of F(τ|x_c) over ϑ from 0 up to (not including) 1, such as 0.05"},
		{c.PathPoints < 0 || c.PathPoints == 1, "Config.PathPoints", c.PathPoints, "use 0 (every point) or at least 2"},
		{c.Counterfactuals < 0 || c.Counterfactuals > MaxCounterfactuals, "Config.Counterfactuals", c.Counterfactuals, fmt.Sprintf("use 0 or 1 (one counterfactual) up to %d", MaxCounterfactuals)},
		{c.PlausibilityQuantile != 0 && !(c.PlausibilityQuantile > 0 && c.PlausibilityQuantile < 1),
			"Config.PlausibilityQuantile", c.PlausibilityQuantile, "use a quantile strictly between 0 and 1, such as 0.9"},
		{c.needsBound() && !(finite(c.Plausibility) && c.Plausibility > 0) && !(c.Plausibility == 0 && c.PlausibilityQuantile != 0),
			"Config.Plausibility", c.Plausibility, "automatic λ and sparsity need a bound on L_ε: take it as a quantile of the training rows' L_ε, strictly between 0 and 1, such as 0.9"},
	}
	for _, ch := range checks {
		if ch.bad {
			return &FieldError{Field: ch.field, Value: ch.value, Fix: ch.fix}
		}
	}
	if c.Auto != nil {
		if err := c.Auto.Validate(); err != nil {
			return err
		}
	}
	if _, err := ParseOptimizer(string(c.Optimizer)); err != nil {
		return err
	}
	if _, err := ParseRule(string(c.Rule)); err != nil {
		return err
	}
	return nil
}

// needsBound reports whether the settings use the plausibility bound: automatic λ and
// sparsity do.
func (c Config) needsBound() bool { return c.Auto != nil || c.Sparse }

// ParseOptimizer accepts "adam", "sgd" or "gd" (any case).
func ParseOptimizer(s string) (Optimizer, error) {
	switch o := Optimizer(strings.ToLower(strings.TrimSpace(s))); o {
	case Adam, SGD, GD:
		return o, nil
	}
	return "", &FieldError{Field: "Config.Optimizer", Value: s, Problem: "unknown optimizer", Fix: "use adam, sgd or gd"}
}

// ParseRule accepts "trapezoid", "simpson" or "riemann" (any case).
func ParseRule(s string) (Rule, error) {
	switch r := Rule(strings.ToLower(strings.TrimSpace(s))); r {
	case Riemann, Trapezoid, Simpson:
		return r, nil
	}
	return "", &FieldError{Field: "Config.Rule", Value: s, Problem: "unknown attribution rule", Fix: "use trapezoid, simpson or riemann"}
}
