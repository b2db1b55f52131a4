package quce

import (
	"cmp"
	"context"
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
// alone), Rounds more candidates per instance search the λ2 line between them (see
// nextLambda), and AutoRule picks one per instance.
type Auto struct {
	Grid []Lambdas `json:"grid"`
	// Rounds is how many times each instance's λ2 is refined after the grid: a round
	// searches one more candidate per instance that has something left to refine, all in
	// one batch (see nextLambda). 0 keeps the grid alone.
	Rounds int `json:"rounds"`
	// Steps is the share of Config.Steps that each candidate's search runs, the grid's and
	// every round's (0 < share ≤ 1; 0 means 1, all n). A search costs one execution per
	// step, so automatic λ's time is the steps of the grid plus those of the rounds, which
	// run one after another, while the searches settle long before n = 1000 (see
	// DefaultAuto). An instance with no valid candidate is searched again for all n (see
	// refine).
	Steps float64 `json:"steps,omitempty"`
	// PullBack, after each candidate's search, walks its end back along the straight
	// segment towards x as far as the end stays valid with Config.Margin to spare
	// (F(τ|x_c) ≥ ϑ + Margin) and no less plausible than the bound (see pullBack).
	PullBack bool `json:"pull_back"`
}

// AutoRule is how automatic λ chooses among an instance's candidates, given the bound on
// L_ε (Config.Plausibility, or L_ε(x) when the instance itself is less plausible, see
// instanceBound): among the valid candidates whose L_ε(x_c) is within the bound,
// the closest to x (L1 distance in standardised units); if no valid candidate is within
// the bound, the valid one with the lowest L_ε, marked implausible; if none is valid, the
// one with the highest F(τ|x_c) whose search did not fail, reported invalid (the first when
// every search failed). Ties go to the earlier candidate.
const AutoRule = "closest valid candidate with F(τ|x_c) ≥ ϑ + margin and L_ε ≤ bound; else the closest valid one with L_ε ≤ bound; else the valid one with the lowest L_ε; else the one with the highest F(τ|x_c) whose search did not fail"

// DefaultAuto is the grid λ2 ∈ {0.01, 0.1, 0.3, 1, 3, 10} with λ3 = 0.1: six rows per path.
//
// The points 0.3 and 10 were added to {0.01, 0.1, 1, 3}, and Rounds went from 3 to 2: the
// grid's points are 3 to 3.3 apart where they were 10, so two rounds reach the spacing three
// did, and the denser grid brought German numeric, the narrow data set, ahead of AGI on every
// seed at about the same time (the grid's rows are one batch, the rounds one after another).
// Choosing per instance from the grid is closer than the fixed λ2 of about its validity; a
// larger grid with λ3 ∈ {0.01, 0.1, 1} was closer still at several times the cost, and its
// λ3 = 1 candidates were rarely the closest, so they were dropped. Candidates with λ3 = 0.01
// brought L1 lower still but made Iris's counterfactuals as uncertain as AGI's.
//
// Steps 0.35 (350 of the default 1000 steps per search): the searches have settled long
// before 1000 steps, so the shorter search is about as close at a third of the time. PullBack, with
// Config.Margin set to DefaultMargin: see docs/METHOD.md (automatic λ: why this grid, why six points and two rounds,
// steps, pull-back) for the figures, and docs/AUTOLAMBDA.md for the data sets.
func DefaultAuto() *Auto {
	return &Auto{Grid: []Lambdas{{0.01, 0.1}, {0.1, 0.1}, {0.3, 0.1}, {1, 0.1}, {3, 0.1}, {10, 0.1}}, Rounds: 2, Steps: 0.35, PullBack: true}
}

// MaxAutoRounds bounds Auto.Rounds: each round costs Auto.Steps of a fixed-λ search.
const MaxAutoRounds = 10

// DefaultPlausibilityQuantile is the quantile of the training rows' L_ε that bounds a
// plausible counterfactual by default: "as plausible as nine real rows in ten".
const DefaultPlausibilityQuantile = 0.9

// Validate reports a bad grid as a *FieldError of the field "auto".
func (a *Auto) Validate() error {
	if len(a.Grid) == 0 {
		return &FieldError{Field: "Config.Auto", Problem: "automatic λ has an empty grid", Fix: "give at least one (λ2, λ3) pair, such as DefaultAuto's"}
	}
	if a.Rounds < 0 || a.Rounds > MaxAutoRounds {
		return &FieldError{Field: "Config.Auto", Problem: fmt.Sprintf("automatic λ with %d refinement rounds", a.Rounds),
			Fix: fmt.Sprintf("use 0 to %d rounds", MaxAutoRounds)}
	}
	if !(a.Steps >= 0 && a.Steps <= 1) {
		return &FieldError{Field: "Config.Auto", Problem: fmt.Sprintf("automatic λ searching %v of the steps", a.Steps),
			Fix: "use a share of the steps above 0 and at most 1, such as 0.35"}
	}
	for i, l := range a.Grid {
		for k, v := range []float64{l.Lambda2, l.Lambda3} {
			if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
				return &FieldError{Field: "Config.Auto", Problem: fmt.Sprintf("automatic λ, candidate %d: λ%d = %v", i+1, k+2, v),
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
	// Round is 0 for a candidate of the grid (or the search of all n steps that an instance
	// with no valid one gets, see refine), r for the one the r-th refinement added.
	Round int `json:"round"`
	// Steps is how many optimisation steps its search ran (Auto.Steps of Config.Steps).
	Steps int `json:"steps"`
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
	Bound      float64     `json:"bound"`      // Config.Plausibility, or L_ε(x) when larger
	Quantile   float64     `json:"quantile"`   // Config.PlausibilityQuantile
	Candidates []Candidate `json:"candidates"` // the grid's in its order, then each round's
	Chosen     int         `json:"chosen"`     // index into Candidates
	// Plausible is false when no valid candidate was within the bound, so the chosen one
	// is the valid one with the lowest L_ε (or, with none valid, an invalid one).
	Plausible bool `json:"plausible"`
}

// chooseCandidate applies AutoRule, need being ϑ + Config.Margin: a candidate that ends
// short of the margin cannot be pulled back or reset to it (both walk towards x, lowering F),
// so one that reaches it comes first.
func chooseCandidate(cands []Candidate, bound, need float64) (chosen int, plausible bool) {
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
	closer := func(a, b Candidate) bool { return a.Distance < b.Distance }
	if i := best(func(c Candidate) bool { return c.Valid && c.ProbEnd >= need && unc(c) <= bound }, closer); i >= 0 {
		return i, true
	}
	if i := best(func(c Candidate) bool { return c.Valid && unc(c) <= bound }, closer); i >= 0 {
		return i, true
	}
	if i := best(func(c Candidate) bool { return c.Valid }, func(a, b Candidate) bool { return unc(a) < unc(b) }); i >= 0 {
		return i, false
	}
	return max(0, best(func(c Candidate) bool { return c.Failure == "" }, func(a, b Candidate) bool { return a.ProbEnd > b.ProbEnd })), false
}

// candidate is how automatic λ sees x, the explanation of one candidate l of round round,
// searched for steps steps.
func candidate(x *Explanation, l Lambdas, round, steps int) Candidate {
	p := x.Path0()
	return Candidate{Lambdas: l, Distance: l1(p.Counterfactual, x.X), Uncertainty: p.CFUncertainty,
		ProbEnd: p.ProbEnd, Valid: p.Valid, Failure: p.Failure, Round: round, Steps: steps}
}

// autoSteps is the number of optimisation steps of each candidate's search under cfg
// (Auto.Steps of Config.Steps).
func autoSteps(cfg Config) int {
	if s := cfg.Auto.Steps; s > 0 && s < 1 {
		return max(1, int(math.Round(s*float64(cfg.Steps))))
	}
	return cfg.Steps
}

// refineRatio is where the search of the λ2 line stops: once the bracket's ends are
// within this factor of each other, the candidates between them differ by little.
const refineRatio = 1.1

// nextLambda is the next candidate to search for an instance that has cands, or false when
// there is nothing to refine. A larger λ2 weighs proximity more, so the search ends closer
// to x but is more often invalid or implausible; after the pull-back, whose ends all sit
// near F(τ|x_c) = ϑ + Margin, the distance is no longer monotone in λ2. So the refinement is
// a local search of the λ2 line around the candidate the rule chooses now, when that one is
// acceptable: keeping its λ3, it takes λ2 halfway (geometric mean) between its λ2 and the
// nearest larger λ2 searched on the same λ3 (3 times its λ2 with none larger), or, once
// those two are within refineRatio, between it and the nearest smaller one (until they are
// within refineRatio too). Each proposal lies strictly between two searched λ2 (or beyond
// them all), so no round repeats a search. Any other instance is left as it is: with no
// valid candidate, smaller λ2 did not help (two W-BC rows where no grid point was valid
// stayed invalid at λ2 = 10⁻³, 10⁻⁴ and 10⁻⁵), and λ2 does not order plausibility.
func nextLambda(cands []Candidate, bound, need float64) (Lambdas, bool) {
	k, plausible := chooseCandidate(cands, bound, need)
	c := cands[k]
	if !plausible {
		return Lambdas{}, false
	}
	lo, hi := math.Inf(-1), math.Inf(1) // the nearest searched λ2 below and above c's
	for _, o := range cands {
		switch {
		case o.Lambda3 != c.Lambda3:
		case o.Lambda2 > c.Lambda2:
			hi = min(hi, o.Lambda2)
		case o.Lambda2 < c.Lambda2:
			lo = max(lo, o.Lambda2)
		}
	}
	switch {
	case math.IsInf(hi, 1) && c.Lambda2 > 0:
		return Lambdas{3 * c.Lambda2, c.Lambda3}, true
	case math.IsInf(hi, 1):
		return Lambdas{}, false
	case c.Lambda2 == 0:
		return Lambdas{hi / 10, c.Lambda3}, true
	case hi/c.Lambda2 >= refineRatio:
		return Lambdas{math.Sqrt(c.Lambda2 * hi), c.Lambda3}, true
	case lo > 0 && c.Lambda2/lo >= refineRatio:
		return Lambdas{math.Sqrt(lo * c.Lambda2), c.Lambda3}, true
	}
	return Lambdas{}, false
}

// refine runs automatic λ's rounds after the grid and keeps, for each instance, the
// explanation of the candidate AutoRule picks: ex holds len(grid) explanations per
// instance, in grid order, searched for cfg.Steps steps (autoSteps of n, the configured
// steps). First, an instance with no valid candidate gets one more: the grid's smallest λ2
// (then smallest λ3) searched again for all n steps, as the fixed-λ search with it would,
// since a search cut short can stop just below ϑ (one Iris row of 210 did at 500 steps,
// valid at 1000; with 350 steps, two rows whose highest F was at λ2 = 0.1 stayed invalid at
// λ2 = 0.1 for all n, valid at 0.01). Then each round searches every instance that
// nextLambda still refines as one row of one batch.
func (jb job) refine(ctx context.Context, cfg Config, n int, queries []Query, pred [][]float64, grids [][]Lambdas, ex []*Explanation, tm *Timings) ([]*Explanation, error) {
	g := len(grids[0])
	cands := make([][]Candidate, len(queries))
	exs := make([][]*Explanation, len(queries))
	bound, err := jb.instanceBounds(cfg, queries)
	if err != nil {
		return nil, err
	}
	for i := range queries {
		exs[i] = ex[i*g : (i+1)*g : (i+1)*g]
		for k, x := range exs[i] {
			cands[i] = append(cands[i], candidate(x, grids[i][k], 0, cfg.Steps))
		}
	}
	// searchMore searches, for steps steps, one more candidate for each instance that next
	// gives one (λ2, λ3), all as rows of one batch, and records them as candidates of round.
	// It reports whether there were any.
	searchMore := func(round, steps int, next func(i int) (Lambdas, bool)) (bool, error) {
		var sub []int
		var subQ []Query
		var subPred [][]float64
		var lams []Lambdas
		for i := range queries {
			if l, ok := next(i); ok {
				sub, subQ, subPred, lams = append(sub, i), append(subQ, queries[i]), append(subPred, pred[i]), append(lams, l)
			}
		}
		if len(sub) == 0 {
			return false, nil
		}
		c := cfg
		c.Steps = steps
		more, err := jb.searchRows(ctx, c, subQ, subPred, lams, tm)
		if err != nil {
			return false, err
		}
		for k, i := range sub {
			cands[i] = append(cands[i], candidate(more[k], lams[k], round, steps))
			exs[i] = append(exs[i], more[k])
		}
		return true, nil
	}
	if n > cfg.Steps {
		// The grid's weakest pull towards x and the data: the most likely to be valid.
		if _, err := searchMore(0, n, func(i int) (Lambdas, bool) {
			weakest := slices.MinFunc(grids[i], func(a, b Lambdas) int {
				return cmp.Or(cmp.Compare(a.Lambda2, b.Lambda2), cmp.Compare(a.Lambda3, b.Lambda3))
			})
			return weakest, !slices.ContainsFunc(cands[i], func(c Candidate) bool { return c.Valid })
		}); err != nil {
			return nil, err
		}
	}
	for round := 1; round <= cfg.Auto.Rounds; round++ {
		more, err := searchMore(round, cfg.Steps, func(i int) (Lambdas, bool) { return nextLambda(cands[i], bound[i], cfg.Threshold+cfg.Margin) })
		if err != nil {
			return nil, err
		}
		if !more {
			break
		}
	}
	out := make([]*Explanation, len(queries))
	for i := range out {
		k, plausible := chooseCandidate(cands[i], bound[i], cfg.Threshold+cfg.Margin)
		out[i] = exs[i][k]
		out[i].Auto = &AutoChoice{Rule: AutoRule, Bound: bound[i], Quantile: cfg.PlausibilityQuantile,
			Candidates: cands[i], Chosen: k, Plausible: plausible}
	}
	return out, nil
}

// instanceBounds are the bounds on L_ε that automatic λ holds each query's candidates to:
// the training rows' quantile (Config.Plausibility), or L_ε(x) (trained form, mean code, as
// the quantile is taken) when x itself is less plausible. An atypical instance's
// counterfactual need not be more typical than the instance.
func (jb job) instanceBounds(cfg Config, queries []Query) ([]float64, error) {
	xs := make([][]float64, len(queries))
	for i, q := range queries {
		xs[i] = q.X
	}
	unc, _, _, err := jb.pr.uncertainty(xs)
	if err != nil {
		return nil, err
	}
	for i, u := range unc {
		unc[i] = max(cfg.Plausibility, u)
		if math.IsNaN(u) {
			unc[i] = cfg.Plausibility
		}
	}
	return unc, nil
}

// WithBound returns cfg with the plausibility bound that automatic λ and sparsity need
// (Config.Plausibility) taken from rows, the training rows (standardised): the
// cfg.PlausibilityQuantile quantile of their L_ε (trained form, mean code; linear
// interpolation), so that "plausible" means "as plausible as that share of real
// rows". A cfg that needs no bound, or has one, is returned as it is.
func (e *Explainer) WithBound(cfg Config, rows [][]float64) (Config, error) {
	return e.programs().withBound(cfg, rows)
}

// withBound is Explainer.WithBound.
func (pr programs) withBound(cfg Config, rows [][]float64) (Config, error) {
	if !cfg.needsBound() || cfg.Plausibility != 0 {
		return cfg, nil
	}
	bound, err := pr.plausibilityBound(rows, cfg.PlausibilityQuantile)
	if err != nil {
		return cfg, err
	}
	cfg.Plausibility = bound
	return cfg, nil
}

// plausibilityBound is the q-quantile (0 < q < 1, linear interpolation) of L_ε (trained
// form, mean code) over rows, standardised: the bound for Config.Plausibility that WithBound
// sets.
func (pr programs) plausibilityBound(rows [][]float64, q float64) (float64, error) {
	if !(q > 0 && q < 1) {
		return 0, fmt.Errorf("quce: plausibility quantile %v; fix: use a quantile strictly between 0 and 1, such as 0.9", q)
	}
	if len(rows) == 0 {
		return 0, fmt.Errorf("quce: no rows to take the plausibility bound from; fix: pass the training rows")
	}
	unc, _, _, err := pr.uncertainty(rows)
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
