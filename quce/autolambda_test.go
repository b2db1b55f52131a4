package quce_test

import (
	"context"
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// autoConfig is the default configuration with automatic λ, bounded by the 90% quantile of
// the training rows' L_ε.
func autoConfig(t testing.TB, s *pipeline.Setup) quce.Config {
	t.Helper()
	cfg := quce.DefaultConfig()
	bound, err := quce.PlausibilityBound(s.Explainer, s.XTrain, quce.DefaultPlausibilityQuantile)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Auto, cfg.Plausibility, cfg.PlausibilityQuantile = quce.DefaultAuto(), bound, quce.DefaultPlausibilityQuantile
	cfg.Margin = quce.DefaultMargin
	return cfg
}

func TestPlausibilityBound(t *testing.T) {
	s := wbc(t)
	unc, _, _, err := s.Explainer.Uncertainty(s.XTrain)
	if err != nil {
		t.Fatal(err)
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	below := 0
	b90, err := quce.PlausibilityBound(s.Explainer, s.XTrain, 0.9)
	if err != nil {
		t.Fatal(err)
	}
	for _, u := range unc {
		lo, hi = min(lo, u), max(hi, u)
		if u <= b90 {
			below++
		}
	}
	if share := float64(below) / float64(len(unc)); math.Abs(share-0.9) > 0.01 {
		t.Errorf("%.3f of the training rows lie within the 90%% bound %.3f", share, b90)
	}
	b50, _ := quce.PlausibilityBound(s.Explainer, s.XTrain, 0.5)
	if !(lo < b50 && b50 < b90 && b90 < hi) {
		t.Errorf("bounds not ordered: min %.3f, q50 %.3f, q90 %.3f, max %.3f", lo, b50, b90, hi)
	}
	for _, q := range []float64{0, 1, -0.5, 1.5, math.NaN()} {
		if _, err := quce.PlausibilityBound(s.Explainer, s.XTrain, q); err == nil {
			t.Errorf("quantile %v accepted", q)
		}
	}
}

// A configuration with a quantile and no bound yet is valid, but Explain refuses it with the
// fix; WithBound takes the bound from the training rows at that quantile, keeps a bound set
// by hand, and leaves a configuration that needs none as it is.
func TestWithBound(t *testing.T) {
	s := wbc(t)
	ctx := context.Background()
	cfg := quce.DefaultConfig()
	cfg.Sparse, cfg.PlausibilityQuantile, cfg.Steps = true, 0.8, 20
	if err := cfg.Validate(); err != nil {
		t.Fatal(err)
	}
	qs := []quce.Query{s.Query(s.XTest[0])}
	var fe *quce.FieldError
	if _, err := s.Explainer.Explain(ctx, cfg, qs); !errors.As(err, &fe) || fe.Field != "Config.Plausibility" || !strings.Contains(fe.Fix, "WithBound") {
		t.Fatalf("explaining without the bound: %v; want a plausibility error whose fix is WithBound", err)
	}
	bounded, err := s.Explainer.WithBound(cfg, s.XTrain)
	if err != nil {
		t.Fatal(err)
	}
	want, err := quce.PlausibilityBound(s.Explainer, s.XTrain, 0.8)
	if err != nil {
		t.Fatal(err)
	}
	if bounded.Plausibility != want || bounded.PlausibilityQuantile != 0.8 {
		t.Errorf("bound %v at quantile %v, want %v at 0.8", bounded.Plausibility, bounded.PlausibilityQuantile, want)
	}
	if _, err := s.Explainer.Explain(ctx, bounded, qs); err != nil {
		t.Errorf("explaining with the bound: %v", err)
	}
	byHand := cfg
	byHand.Plausibility = 2.5
	if got, err := s.Explainer.WithBound(byHand, s.XTrain); err != nil || got.Plausibility != 2.5 {
		t.Errorf("a bound set by hand became %v (%v)", got.Plausibility, err)
	}
	if got, err := s.Explainer.WithBound(quce.DefaultConfig(), nil); err != nil || !reflect.DeepEqual(got, quce.DefaultConfig()) {
		t.Errorf("fixed λ without sparsity changed: %+v (%v)", got, err)
	}
}

// Automatic λ follows its rule on every instance, never returns an invalid counterfactual
// when a valid candidate exists, and each chosen explanation is the one the chosen λ gives
// alone (rows are independent), with its completeness check.
func TestAutoLambda(t *testing.T) {
	s := wbc(t)
	cfg := autoConfig(t, s)
	// Without the pull-back every candidate, refined ones included, is a plain search with
	// its λ (the pull-back is tested in TestAutoRefineAndPullBack).
	cfg.Auto.PullBack = false
	rows := s.XTest[:20]
	ex, err := s.Explainer.Explain(context.Background(), cfg, queries(rows))
	if err != nil {
		t.Fatal(err)
	}
	valid, plausible := 0, 0
	for i, e := range ex {
		a := e.Auto
		if a == nil || len(a.Candidates) < len(cfg.Auto.Grid) || len(a.Candidates) > len(cfg.Auto.Grid)+1+cfg.Auto.Rounds || a.Bound < cfg.Plausibility || a.Rule != quce.AutoRule {
			t.Fatalf("row %d: auto record %+v", i, a)
		}
		p, c := e.Path0(), a.Candidates[a.Chosen]
		if p.Valid != c.Valid || p.CFUncertainty != c.Uncertainty {
			t.Errorf("row %d: the explanation is not its chosen candidate's", i)
		}
		anyValid := false
		for k, o := range a.Candidates {
			anyValid = anyValid || o.Valid
			if k < len(cfg.Auto.Grid) && o.Lambdas != cfg.Auto.Grid[k] {
				t.Errorf("row %d candidate %d has λ %+v, grid %+v", i, k, o.Lambdas, cfg.Auto.Grid[k])
			}
			if want := int(math.Round(cfg.Auto.Steps * float64(cfg.Steps))); o.Steps != want && !(k >= len(cfg.Auto.Grid) && o.Round == 0 && o.Steps == cfg.Steps) {
				t.Errorf("row %d candidate %d searched %d steps, want %d (Auto.Steps %g of %d)", i, k, o.Steps, want, cfg.Auto.Steps, cfg.Steps)
			}
			// No valid, plausible candidate is closer than the chosen one, but one short of
			// the margin (F < ϑ + Margin) where the chosen one reaches it.
			need := cfg.Threshold + cfg.Margin
			if a.Plausible && o.Valid && o.Uncertainty <= a.Bound && o.Distance < c.Distance && (o.ProbEnd >= need || c.ProbEnd < need) {
				t.Errorf("row %d: candidate %d (distance %.3f) is closer than the chosen %d (%.3f)", i, k, o.Distance, a.Chosen, c.Distance)
			}
		}
		if anyValid && !p.Valid {
			t.Errorf("row %d: an invalid counterfactual chosen while a valid candidate exists", i)
		}
		if a.Plausible != (c.Valid && c.Uncertainty <= a.Bound) {
			t.Errorf("row %d: plausible = %v for a candidate with L_ε %.3f, bound %.3f", i, a.Plausible, c.Uncertainty, a.Bound)
		}
		if p.Valid {
			valid++
		}
		if a.Plausible {
			plausible++
		}
		if math.Abs(e.CompletenessGap) > 5e-3 {
			t.Errorf("row %d: completeness gap %.2e", i, e.CompletenessGap)
		}
	}
	t.Logf("auto λ on %d rows: %d valid, %d within the bound %.3f", len(ex), valid, plausible, cfg.Plausibility)

	// The chosen candidate equals a fixed-λ run with its λ (a batch of one row: where a
	// row's figures depend on the rows beside it, the search amplifies their last bits).
	for _, i := range []int{0, 7} {
		if !modeltest.RowsIndependent(t) {
			break
		}
		e := ex[i]
		fixed := quce.DefaultConfig()
		l := e.Auto.Candidates[e.Auto.Chosen].Lambdas
		fixed.Lambda2, fixed.Lambda3, fixed.Steps = l.Lambda2, l.Lambda3, e.Auto.Candidates[e.Auto.Chosen].Steps
		alone := explain(t, fixed, rows[i:i+1])[0]
		if d := maxDiff(alone.Path0().Counterfactual, e.Path0().Counterfactual); d > 1e-4 {
			t.Errorf("row %d: counterfactual differs by %.2e from a fixed-λ run with %+v", i, d, l)
		}
		if d := maxDiff(alone.Attribution, e.Attribution); d > 1e-4 {
			t.Errorf("row %d: attribution differs by %.2e from a fixed-λ run with %+v", i, d, l)
		}
	}

	// Determinism, and the same result for a row alone as inside the batch.
	again, err := s.Explainer.Explain(context.Background(), cfg, queries(rows))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(ex, again) {
		t.Error("two runs with the same seed differ")
	}
	alone, err := s.Explainer.Explain(context.Background(), cfg, queries(rows[5:6]))
	if err != nil {
		t.Fatal(err)
	}
	if alone[0].Auto.Chosen != ex[5].Auto.Chosen {
		t.Errorf("row 5 chose candidate %d alone and %d in the batch", alone[0].Auto.Chosen, ex[5].Auto.Chosen)
	}
	if d := maxDiff(alone[0].Attribution, ex[5].Attribution); d > 1e-4 {
		t.Errorf("row 5: attribution alone and in the batch differ by %.2e", d)
	}
}

// Sparsity resets features only while the counterfactual stays valid and plausible; frozen
// features and bounds still hold, the resets are part of the path (the gap stays closed)
// and they lower the number of changed features.
func TestSparse(t *testing.T) {
	s := wbc(t)
	base := quce.DefaultConfig()
	base.Steps = 400
	sparse := autoConfig(t, s)
	sparse.Auto, sparse.Steps, sparse.Sparse = nil, base.Steps, true
	qs := constrainedQueries(s, s.XTest[:12], 0, 7)
	plain, err := s.Explainer.Explain(context.Background(), base, qs)
	if err != nil {
		t.Fatal(err)
	}
	ex, err := s.Explainer.Explain(context.Background(), sparse, qs)
	if err != nil {
		t.Fatal(err)
	}
	before, after, worstGap := 0, 0, 0.0
	for i, e := range ex {
		p, p0 := e.Path0(), plain[i].Path0()
		if p0.Valid && !p.Valid {
			t.Errorf("row %d: sparsity made the counterfactual invalid", i)
		}
		if p.Valid && p.CFUncertainty > max(sparse.Plausibility, p0.CFUncertainty)+1e-4 {
			t.Errorf("row %d: L_ε %.3f after resets, above both the bound %.3f and %.3f before", i, p.CFUncertainty, sparse.Plausibility, p0.CFUncertainty)
		}
		worstGap = max(worstGap, math.Abs(p.CompletenessGap))
		if math.Abs(p.CompletenessGap) > 2e-3 {
			t.Errorf("row %d: completeness gap %.2e with resets", i, p.CompletenessGap)
		}
		if p.Steps != p0.Steps {
			t.Errorf("row %d: %d optimisation steps with sparsity, %d without", i, p.Steps, p0.Steps)
		}
		x := toF32Row(e.X)
		for _, f := range p.Resets {
			if p.Counterfactual[f] != x[f] {
				t.Errorf("row %d: reset feature %d is %v, not x's %v", i, f, p.Counterfactual[f], x[f])
			}
		}
		q := qs[i]
		for k, pt := range p.Points {
			o := s.Scaler.InverseRow(pt)
			for f := range pt {
				if q.Frozen[f] && pt[f] != x[f] {
					t.Fatalf("row %d point %d: frozen feature %d moved", i, k, f)
				}
				tol := 1e-4 * max(1, math.Abs(o[f]))
				if !math.IsNaN(q.Lower[f]) && (o[f] < q.Lower[f]-tol || o[f] > q.Upper[f]+tol) {
					t.Fatalf("row %d point %d: feature %d = %v outside [%v, %v]", i, k, f, o[f], q.Lower[f], q.Upper[f])
				}
			}
		}
		// The reset segments are kept as path points: the path ends at x_c.
		if d := maxDiff(p.Points[len(p.Points)-1], p.Counterfactual); d != 0 {
			t.Errorf("row %d: the path does not end at the counterfactual", i)
		}
		before += changed(x, p0.Counterfactual)
		after += changed(x, p.Counterfactual)
		if changed(x, p.Counterfactual)+len(p.Resets) != changed(x, p0.Counterfactual) {
			t.Errorf("row %d: %d changed + %d resets, %d changed without sparsity", i, changed(x, p.Counterfactual), len(p.Resets), changed(x, p0.Counterfactual))
		}
	}
	t.Logf("changed features over %d rows: %d without sparsity, %d with; worst |gap| %.2e", len(ex), before, after, worstGap)
	if after >= before {
		t.Errorf("sparsity reset nothing: %d changed features before, %d after", before, after)
	}
}

// constrainedQueries are queries for rows with constraints: row i has feature (i+k) mod J
// frozen for each k of frozen, and feature (i+3) mod J bounded to ±10% of its value.
func constrainedQueries(s *pipeline.Setup, rows [][]float64, frozen ...int) []quce.Query {
	var qs []quce.Query
	for i, x := range rows {
		j := len(x)
		q := quce.NewQuery(x)
		q.Frozen = make([]bool, j)
		for _, k := range frozen {
			q.Frozen[(i+k)%j] = true
		}
		orig := s.Scaler.InverseRow(x)
		q.Lower, q.Upper = make([]float64, j), make([]float64, j)
		for f := range q.Lower {
			q.Lower[f], q.Upper[f] = math.NaN(), math.NaN()
		}
		f := (i + 3) % j
		q.Lower[f], q.Upper[f] = orig[f]-0.1*math.Abs(orig[f]), orig[f]+0.1*math.Abs(orig[f])
		qs = append(qs, q)
	}
	return qs
}

func toF32Row(x []float64) []float64 {
	out := make([]float64, len(x))
	for i, v := range x {
		out[i] = float64(float32(v))
	}
	return out
}

func changed(x, xc []float64) int {
	n := 0
	for i := range x {
		if xc[i] != x[i] {
			n++
		}
	}
	return n
}

// Refining λ2 and pulling back never end farther from x than the grid alone, and keep the
// rule: a valid, plausible grid choice stays valid and plausible. The pulled-back ends keep
// their margin, the completeness gap stays closed (the pull-back is walked as part of the
// path), and frozen features, -increase and the bounds hold exactly in the data's units.
func TestAutoRefineAndPullBack(t *testing.T) {
	s := wbc(t)
	full := autoConfig(t, s)
	gridOnly, pullOnly := full, full
	gridOnly.Auto = &quce.Auto{Grid: full.Auto.Grid, Steps: full.Auto.Steps}
	pullOnly.Auto = &quce.Auto{Grid: full.Auto.Grid, Steps: full.Auto.Steps, PullBack: true}
	qs := constrainedQueries(s, s.XTest[:16], 0)
	for i, q := range qs {
		f := (i + 5) % len(q.X)
		q.Lower[f] = s.Scaler.InverseRow(q.X)[f] // may only increase
	}
	run := func(cfg quce.Config) []*quce.Explanation {
		ex, err := s.Explainer.Explain(context.Background(), cfg, qs)
		if err != nil {
			t.Fatal(err)
		}
		return ex
	}
	grid, pulled, ex := run(gridOnly), run(pullOnly), run(full)
	chosen := func(e *quce.Explanation) quce.Candidate { return e.Auto.Candidates[e.Auto.Chosen] }
	var sumGrid, sumPulled, sumFull, sumGap float64
	refined, pulledRows := 0, 0
	for i, e := range ex {
		g, pb, c, p := chosen(grid[i]), chosen(pulled[i]), chosen(e), e.Path0()
		sumGrid, sumPulled, sumFull = sumGrid+g.Distance, sumPulled+pb.Distance, sumFull+c.Distance
		// The pull-back alone: each grid candidate ends no farther, and stays valid.
		for k, o := range grid[i].Auto.Candidates {
			n := pulled[i].Auto.Candidates[k]
			if n.Distance > o.Distance+1e-9 || o.Valid && !n.Valid {
				t.Errorf("row %d candidate %d: pull-back went from distance %.4f (valid %v) to %.4f (valid %v)", i, k, o.Distance, o.Valid, n.Distance, n.Valid)
			}
		}
		if g.Valid && !c.Valid || grid[i].Auto.Plausible && !e.Auto.Plausible {
			t.Errorf("row %d: the grid chose a valid (%v), plausible (%v) candidate, the refinement not (%v, %v)", i, g.Valid, grid[i].Auto.Plausible, c.Valid, e.Auto.Plausible)
		}
		if grid[i].Auto.Plausible && c.Distance > g.Distance+1e-9 {
			t.Errorf("row %d: refined choice at distance %.4f, the grid's at %.4f", i, c.Distance, g.Distance)
		}
		if e.Auto.Plausible != (c.Valid && c.Uncertainty <= e.Auto.Bound) || p.Valid != c.Valid || p.CFUncertainty != c.Uncertainty {
			t.Errorf("row %d: the record does not match the chosen path", i)
		}
		for k, o := range e.Auto.Candidates {
			rescue := k >= len(full.Auto.Grid) && o.Round == 0 && o.Steps == full.Steps
			if k < len(full.Auto.Grid) && (o.Round != 0 || o.Lambdas != full.Auto.Grid[k]) || k >= len(full.Auto.Grid) && !rescue && !(o.Round >= 1 && o.Round <= full.Auto.Rounds) {
				t.Errorf("row %d candidate %d: λ %+v in round %d", i, k, o.Lambdas, o.Round)
			}
			if k >= len(full.Auto.Grid) {
				refined++
			}
		}
		if p.PulledBack > 0 {
			pulledRows++
			if p.ProbEnd < full.Threshold+full.Margin {
				t.Errorf("row %d: pulled back to F(τ|x_c) = %.3f, below ϑ + margin", i, p.ProbEnd)
			}
		}
		sumGap += math.Abs(p.CompletenessGap)
		if math.Abs(p.CompletenessGap) > 5e-3 {
			t.Errorf("row %d: completeness gap %.2e", i, p.CompletenessGap)
		}
		if d := maxDiff(p.Points[len(p.Points)-1], p.Counterfactual); d != 0 {
			t.Errorf("row %d: the path does not end at the counterfactual", i)
		}
		q := qs[i]
		orig := s.Scaler.InverseRow(e.X)
		for k, pt := range p.PointsOriginal {
			for f, v := range pt {
				if q.Frozen[f] && v != orig[f] {
					t.Fatalf("row %d point %d: frozen feature %d is %v, not %v", i, k, f, v, orig[f])
				}
				if !math.IsNaN(q.Lower[f]) && v < q.Lower[f] || !math.IsNaN(q.Upper[f]) && v > q.Upper[f] {
					t.Fatalf("row %d point %d: feature %d = %v outside [%v, %v]", i, k, f, v, q.Lower[f], q.Upper[f])
				}
			}
		}
	}
	n := float64(len(ex))
	t.Logf("mean L1 over %d rows: grid %.3f, grid + pull-back %.3f, refined + pull-back %.3f; %d refinement candidates, %d rows pulled back, mean |gap| %.2e",
		len(ex), sumGrid/n, sumPulled/n, sumFull/n, refined, pulledRows, sumGap/n)
	if refined == 0 || pulledRows == 0 {
		t.Errorf("nothing refined (%d candidates) or pulled back (%d rows)", refined, pulledRows)
	}
	if sumGap/n > 5e-4 {
		t.Errorf("mean |completeness gap| %.2e", sumGap/n)
	}
}

// The pull-back moves integer columns too: on German credit, whose columns are all integer
// or categorical, it walks candidates back towards x (before, it moved continuous inputs
// only, so there it moved nothing while reporting a share walked back). Each pulled-back
// candidate ends no farther than the same search without it, stays valid, and its
// counterfactual is a legal row (integers integral, inside the query's box) with the
// completeness gap closed.
func TestAutoPullBackIntegers(t *testing.T) {
	s := pipelinetest.German(t)
	cfg := quce.DefaultConfig()
	cfg.Auto, cfg.Steps, cfg.Margin = quce.DefaultAuto(), 400, quce.DefaultMargin
	cfg, err := s.WithPlausibility(cfg, quce.DefaultPlausibilityQuantile)
	if err != nil {
		t.Fatal(err)
	}
	noPull, pull := cfg, cfg
	noPull.Auto = &quce.Auto{Grid: quce.DefaultAuto().Grid}
	pull.Auto = &quce.Auto{Grid: quce.DefaultAuto().Grid, PullBack: true}
	rows := s.XTest[:16]
	run := func(cfg quce.Config) []*quce.Explanation {
		ex, err := s.Explainer.Explain(context.Background(), cfg, queries(rows))
		if err != nil {
			t.Fatal(err)
		}
		return ex
	}
	before, after := run(noPull), run(pull)
	closer := 0
	for i, e := range after {
		for k, o := range before[i].Auto.Candidates {
			n := e.Auto.Candidates[k]
			if n.Distance > o.Distance+1e-9 || o.Valid && !n.Valid {
				t.Errorf("row %d candidate %d: pull-back went from distance %.4f (valid %v) to %.4f (valid %v)", i, k, o.Distance, o.Valid, n.Distance, n.Valid)
			}
			if n.Distance < o.Distance-1e-6 {
				closer++
			}
		}
		p := e.Path0()
		if o := before[i].Auto.Candidates[e.Auto.Chosen]; p.PulledBack > 0 && !(e.Auto.Candidates[e.Auto.Chosen].Distance < o.Distance) {
			t.Errorf("row %d: pulled back %.3f of the way, yet at distance %.4f against %.4f without", i, p.PulledBack, e.Auto.Candidates[e.Auto.Chosen].Distance, o.Distance)
		}
		box, err := s.Explainer.Box(queries(rows[i : i+1])[0])
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range s.Explainer.Columns() {
			if why := legal(c, p.CounterfactualOriginal, box); why != "" {
				t.Errorf("row %d column %s: %s", i, c.Name, why)
			}
		}
		if math.Abs(p.CompletenessGap) > 5e-3 {
			t.Errorf("row %d: completeness gap %.2e", i, p.CompletenessGap)
		}
	}
	t.Logf("%d of %d candidates ended closer to x with the pull-back", closer, len(rows)*len(pull.Auto.Grid))
	if closer == 0 {
		t.Error("the pull-back moved no candidate closer to x on integer columns")
	}
}

// Automatic λ searches its candidates for a share of n steps (Auto.Steps), and an instance
// with no valid candidate then gets the grid's smallest λ2 searched for all n: so it is
// valid wherever the fixed-λ search with that λ is. Here with n = 100 and candidates cut to
// 10 steps, where most grid candidates stop short of the class; the grid is in reverse
// order, so the smallest λ2 is not simply the first.
func TestAutoRescuesCutSearches(t *testing.T) {
	s := wbc(t)
	cfg := autoConfig(t, s)
	cfg.Steps, cfg.Auto.Steps, cfg.Auto.Rounds = 100, 0.1, 0
	slices.Reverse(cfg.Auto.Grid)
	weakest := cfg.Auto.Grid[len(cfg.Auto.Grid)-1]
	rows := s.XTest[:12]
	ex, err := s.Explainer.Explain(context.Background(), cfg, queries(rows))
	if err != nil {
		t.Fatal(err)
	}
	fixed := quce.DefaultConfig()
	fixed.Steps = cfg.Steps
	fixed.Lambda2, fixed.Lambda3 = weakest.Lambda2, weakest.Lambda3
	alone := explain(t, fixed, rows)
	rescued := 0
	for i, e := range ex {
		cands := e.Auto.Candidates
		for _, c := range cands[:len(cfg.Auto.Grid)] {
			if c.Steps != 10 {
				t.Errorf("row %d: a grid candidate searched %d steps, want 10", i, c.Steps)
			}
		}
		if len(cands) > len(cfg.Auto.Grid) {
			rescued++
			c := cands[len(cfg.Auto.Grid)]
			if c.Steps != cfg.Steps || c.Round != 0 || c.Lambdas != weakest || slices.ContainsFunc(cands[:len(cfg.Auto.Grid)], func(c quce.Candidate) bool { return c.Valid }) {
				t.Errorf("row %d: candidate %+v added after the grid %+v", i, c, cands[:len(cfg.Auto.Grid)])
			}
		}
		if alone[i].Path0().Valid && !e.Path0().Valid {
			t.Errorf("row %d: valid with the fixed λ %v, not with automatic λ (candidates %+v)", i, weakest, cands)
		}
		if math.Abs(e.CompletenessGap) > 5e-3 {
			t.Errorf("row %d: completeness gap %.2e", i, e.CompletenessGap)
		}
	}
	t.Logf("%d of %d rows had no valid candidate in 10 steps and were searched for all %d", rescued, len(rows), cfg.Steps)
	if rescued == 0 {
		t.Error("no row needed the search of all n steps: the test does not test it")
	}
}

// An instance less plausible than the bound (its own L_ε above the training rows' quantile)
// holds its candidates to its own L_ε instead: its counterfactual need not be more typical
// than itself. Every other instance keeps the quantile.
func TestAutoBoundOfAtypicalInstances(t *testing.T) {
	s := wbc(t)
	cfg := autoConfig(t, s)
	cfg.Steps, cfg.Auto.Rounds = 200, 1
	unc, _, _, err := s.Explainer.Uncertainty(s.XTest)
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]float64
	var own []float64
	atypical := 0
	for i, u := range unc {
		if u > cfg.Plausibility && atypical < 3 || u <= cfg.Plausibility && len(rows)-atypical < 3 {
			rows, own = append(rows, s.XTest[i]), append(own, u)
			if u > cfg.Plausibility {
				atypical++
			}
		}
	}
	if atypical == 0 {
		t.Fatalf("no W-BC test row has L_ε above the bound %.3f", cfg.Plausibility)
	}
	ex, err := s.Explainer.Explain(context.Background(), cfg, queries(rows))
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range ex {
		want := max(cfg.Plausibility, own[i])
		if a := e.Auto; math.Abs(a.Bound-want) > 1e-4*want {
			t.Errorf("row %d (L_ε %.3f, quantile bound %.3f): bound %.3f, want %.3f", i, own[i], cfg.Plausibility, a.Bound, want)
		}
		c := e.Auto.Candidates[e.Auto.Chosen]
		if e.Auto.Plausible != (c.Valid && c.Uncertainty <= e.Auto.Bound) {
			t.Errorf("row %d: plausible = %v for a candidate with L_ε %.3f, bound %.3f", i, e.Auto.Plausible, c.Uncertainty, e.Auto.Bound)
		}
	}
	t.Logf("%d rows above the bound %.3f, %d within", atypical, cfg.Plausibility, len(rows)-atypical)
}
