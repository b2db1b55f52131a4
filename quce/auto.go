package quce

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
)

// Lambdas is one candidate setting of automatic λ: the weights of proximity and of the VAE
// uncertainty (λ1 stays the configuration's).
type Lambdas struct {
	Lambda2 float64 `json:"lambda2"`
	Lambda3 float64 `json:"lambda3"`
}

// Auto chooses λ2 and λ3 for each instance. Every (λ2, λ3) of Grid is searched as a row of
// the same batch (rows are independent, so a candidate's result is the one it would have
// alone), and AutoRule picks one per instance.
type Auto struct {
	Grid []Lambdas `json:"grid"`
}

// AutoRule is how automatic λ chooses among an instance's candidates, given the bound on
// L_ε (Config.Plausibility): among the valid candidates whose L_ε(x_c) is within the bound,
// the closest to x (L1 distance in standardised units); if no valid candidate is within
// the bound, the valid one with the lowest L_ε, marked implausible; if none is valid, the
// one with the highest F(τ|x_c) whose search did not fail, reported invalid (the first when
// every search failed). Ties go to the earlier candidate.
const AutoRule = "closest valid candidate with L_ε ≤ bound; else the valid one with the lowest L_ε; else the one with the highest F(τ|x_c) whose search did not fail"

// DefaultAuto is the grid λ2 ∈ {0.01, 0.1, 1, 3} with λ3 = 0.1: four rows per path.
//
// Measured on W-BC (100 test rows, n = 1000, bound = the 90% quantile of L_ε over the
// training rows): each λ2 alone gives mean L1 20.7 / 16.1 / 9.9 / 6.2 with validity
// 100 / 100 / 76 / 23%. Choosing per instance gives L1 12.0 at 100% validity with a mean
// paper-form L_ε(x_c) of 4.6; the fixed setting nearest to it, λ2 = 0.3, gives L1 12.8
// and 99%. The larger grid λ2 ∈ {0.01, 0.03, 0.1, 0.3, 1, 3} × λ3 ∈ {0.01, 0.1, 1}
// (18 rows) reaches L1 10.6 at 4.5 times the cost; λ3 = 1 candidates are rarely the
// closest and were dropped.
func DefaultAuto() *Auto {
	return &Auto{Grid: []Lambdas{{0.01, 0.1}, {0.1, 0.1}, {1, 0.1}, {3, 0.1}}}
}

// DefaultPlausibilityQuantile is the quantile of the training rows' L_ε that bounds a
// plausible counterfactual by default: "as plausible as nine real rows in ten".
const DefaultPlausibilityQuantile = 0.9

// Validate reports a bad grid as a *FieldError of the field "auto".
func (a *Auto) Validate() error {
	if len(a.Grid) == 0 {
		return &FieldError{Field: "auto", Problem: "automatic λ has an empty grid", Fix: "give at least one (λ2, λ3) pair, such as DefaultAuto's"}
	}
	for i, l := range a.Grid {
		for k, v := range []float64{l.Lambda2, l.Lambda3} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return &FieldError{Field: "auto", Problem: fmt.Sprintf("automatic λ, candidate %d: λ%d = %v", i+1, k+2, v),
					Fix: "use weights that are finite and ≥ 0"}
			}
		}
	}
	return nil
}

// Candidate is one (λ2, λ3) an instance was searched with, as automatic λ saw it: the
// instance's proximity–uncertainty front, point by point.
type Candidate struct {
	Lambdas
	Distance    float64 `json:"distance"`    // ‖x_c − x‖₁, standardised
	Uncertainty float64 `json:"uncertainty"` // L_ε(x_c), trained form
	ProbEnd     float64 `json:"prob_end"`    // F(τ|x_c)
	Valid       bool    `json:"valid"`
	// Failure says why the candidate's search failed (see Path.Failure); its numbers are
	// then NaN, written as null in JSON.
	Failure string `json:"failure,omitempty"`
}

// MarshalJSON writes a number that is not finite (a failed candidate's) as null: JSON has
// no NaN.
func (c Candidate) MarshalJSON() ([]byte, error) {
	type plain Candidate
	num := func(v float64) *float64 {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return nil
		}
		return &v
	}
	return json.Marshal(struct {
		plain
		Distance    *float64 `json:"distance"`
		Uncertainty *float64 `json:"uncertainty"`
		ProbEnd     *float64 `json:"prob_end"`
	}{plain(c), num(c.Distance), num(c.Uncertainty), num(c.ProbEnd)})
}

// AutoChoice records how automatic λ chose an instance's λ2 and λ3.
type AutoChoice struct {
	Rule       string      `json:"rule"`       // AutoRule
	Bound      float64     `json:"bound"`      // Config.Plausibility
	Quantile   float64     `json:"quantile"`   // Config.PlausibilityQuantile
	Candidates []Candidate `json:"candidates"` // in grid order
	Chosen     int         `json:"chosen"`     // index into Candidates
	// Plausible is false when no valid candidate was within the bound, so the chosen one
	// is the valid one with the lowest L_ε (or, with none valid, an invalid one).
	Plausible bool `json:"plausible"`
}

// chooseCandidate applies AutoRule.
func chooseCandidate(cands []Candidate, bound float64) (chosen int, plausible bool) {
	best := func(ok func(Candidate) bool, better func(a, b Candidate) bool) int {
		idx := -1
		for i, c := range cands {
			if ok(c) && (idx < 0 || better(c, cands[idx])) {
				idx = i
			}
		}
		return idx
	}
	unc := func(c Candidate) float64 {
		if math.IsNaN(c.Uncertainty) {
			return math.Inf(1)
		}
		return c.Uncertainty
	}
	if i := best(func(c Candidate) bool { return c.Valid && unc(c) <= bound },
		func(a, b Candidate) bool { return a.Distance < b.Distance }); i >= 0 {
		return i, true
	}
	if i := best(func(c Candidate) bool { return c.Valid }, func(a, b Candidate) bool { return unc(a) < unc(b) }); i >= 0 {
		return i, false
	}
	return max(0, best(func(c Candidate) bool { return c.Failure == "" }, func(a, b Candidate) bool { return a.ProbEnd > b.ProbEnd })), false
}

// choose keeps, for each instance, the explanation of the candidate AutoRule picks: ex holds
// len(grid) explanations per instance, in grid order.
func choose(cfg Config, ex []*Explanation, grid []Lambdas) []*Explanation {
	g := len(grid)
	out := make([]*Explanation, len(ex)/g)
	for i := range out {
		cands := make([]Candidate, g)
		for k, x := range ex[i*g : (i+1)*g] {
			p := x.Path0()
			cands[k] = Candidate{Lambdas: grid[k], Distance: l1(p.Counterfactual, x.X),
				Uncertainty: p.CFUncertainty, ProbEnd: p.ProbEnd, Valid: p.Valid, Failure: p.Failure}
		}
		k, plausible := chooseCandidate(cands, cfg.Plausibility)
		out[i] = ex[i*g+k]
		out[i].Auto = &AutoChoice{Rule: AutoRule, Bound: cfg.Plausibility, Quantile: cfg.PlausibilityQuantile,
			Candidates: cands, Chosen: k, Plausible: plausible}
	}
	return out
}

// WithBound returns cfg with the plausibility bound that automatic λ and sparsity need
// (Config.Plausibility) taken from rows, the training rows (standardised), at
// cfg.PlausibilityQuantile, so that "plausible" means "as plausible as that share of real
// rows". A cfg that needs no bound, or has one, is returned as it is.
func (e *Explainer) WithBound(cfg Config, rows [][]float64) (Config, error) {
	if !cfg.needsBound() || cfg.Plausibility != 0 {
		return cfg, nil
	}
	bound, err := e.PlausibilityBound(rows, cfg.PlausibilityQuantile)
	if err != nil {
		return cfg, err
	}
	cfg.Plausibility = bound
	return cfg, nil
}

// PlausibilityBound is the q-quantile (0 < q < 1, linear interpolation) of L_ε (trained
// form, mean code) over rows, standardised: the bound for Config.Plausibility. Pass the
// training rows, so that "plausible" means "as plausible as that share of real rows".
func (e *Explainer) PlausibilityBound(rows [][]float64, q float64) (float64, error) {
	if !(q > 0 && q < 1) {
		return 0, fmt.Errorf("quce: plausibility quantile %v; fix: use a quantile strictly between 0 and 1, such as 0.9", q)
	}
	if len(rows) == 0 {
		return 0, fmt.Errorf("quce: no rows to take the plausibility bound from; fix: pass the training rows")
	}
	unc, _, _, err := e.Uncertainty(rows)
	if err != nil {
		return 0, err
	}
	for i, u := range unc {
		if math.IsNaN(u) || math.IsInf(u, 0) {
			return 0, fmt.Errorf("quce: L_ε of row %d is %v; fix: check that row's values", i, u)
		}
	}
	slices.Sort(unc)
	pos := q * float64(len(unc)-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, len(unc)-1)
	return unc[lo] + (pos-float64(lo))*(unc[hi]-unc[lo]), nil
}

// l1 is Σ_j |a_j − b_j|.
func l1(a, b []float64) float64 {
	s := 0.0
	for i := range a {
		s += math.Abs(a[i] - b[i])
	}
	return s
}
