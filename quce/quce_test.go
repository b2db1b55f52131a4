package quce_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/quce-go/quce/quce"
)

func abs(x float64) float64 { return math.Abs(x) }

func meanAbsGap(ex []*quce.Explanation) float64 {
	s := 0.0
	for _, e := range ex {
		s += abs(e.Path0().CompletenessGap)
	}
	return s / float64(len(ex))
}

// The Riemann gap shrinks as K grows and is at most 1e-3 at K = 100.
func TestCompletenessGapShrinksWithK(t *testing.T) {
	s := wbc(t)
	rows := s.XTest[:20]
	prev := math.Inf(1)
	for _, k := range []int{1, 10, 100} {
		cfg := quce.DefaultConfig()
		cfg.Rule, cfg.K = quce.Riemann, k
		gap := meanAbsGap(explain(t, cfg, rows))
		t.Logf("Riemann K=%d: mean |gap| %.2e", k, gap)
		if gap >= prev {
			t.Errorf("K=%d: mean gap %.2e did not shrink from %.2e", k, gap, prev)
		}
		prev = gap
	}
	if prev > 1e-3 {
		t.Errorf("K=100: mean gap %.2e > 1e-3", prev)
	}
	for _, tc := range []struct {
		rule quce.Rule
		k    int
	}{{quce.Trapezoid, 1}, {quce.Trapezoid, 2}, {quce.Trapezoid, 3}, {quce.Trapezoid, 10}, {quce.Simpson, 1}} {
		cfg := quce.DefaultConfig()
		cfg.Rule, cfg.K = tc.rule, tc.k
		t.Logf("%s K=%d: mean |gap| %.2e", tc.rule, tc.k, meanAbsGap(explain(t, cfg, rows)))
	}
}

func TestFrozenFeaturesAndBounds(t *testing.T) {
	s := wbc(t)
	x := s.XTest[3]
	orig := s.Scaler.InverseRow(x)
	j := len(x)
	q := quce.NewQuery(x)
	q.Frozen = make([]bool, j)
	q.Frozen[0], q.Frozen[5], q.Frozen[20] = true, true, true
	q.Lower, q.Upper = make([]float64, j), make([]float64, j)
	for f := range q.Lower {
		q.Lower[f], q.Upper[f] = math.NaN(), math.NaN()
	}
	// Tight boxes around the instance on a few features.
	for _, f := range []int{1, 2, 22, 27} {
		w := 0.05 * math.Abs(orig[f])
		q.Lower[f], q.Upper[f] = orig[f]-w, orig[f]+w
	}
	cfg := quce.DefaultConfig()
	cfg.Steps = 300
	ex, err := s.Explainer.Explain(context.Background(), cfg, []quce.Query{q})
	if err != nil {
		t.Fatal(err)
	}
	p := ex[0].Path0()
	for _, pt := range p.Points {
		for _, f := range []int{0, 5, 20} {
			if pt[f] != float64(float32(x[f])) {
				t.Fatalf("frozen feature %d moved: %v -> %v", f, x[f], pt[f])
			}
		}
		o := s.Scaler.InverseRow(pt)
		for _, f := range []int{1, 2, 22, 27} {
			tol := 1e-5 * math.Abs(orig[f])
			if o[f] < q.Lower[f]-tol || o[f] > q.Upper[f]+tol {
				t.Fatalf("feature %d left its bounds [%v, %v]: %v", f, q.Lower[f], q.Upper[f], o[f])
			}
		}
	}
	if maxDiff(p.Counterfactual, x) < 1e-3 {
		t.Error("nothing moved")
	}
	// A frozen feature cannot move, so it has no uncertainty: ε = 0 and Φ± = 0 there, while
	// the free features keep theirs.
	e := ex[0]
	free := 0.0
	for f := range x {
		if q.Frozen[f] {
			if p.Epsilon[f] != 0 || e.AttributionPlus[f] != 0 || e.AttributionMinus[f] != 0 {
				t.Errorf("frozen feature %d: ε %v, Φ+ %v, Φ− %v; want 0", f, p.Epsilon[f], e.AttributionPlus[f], e.AttributionMinus[f])
			}
			continue
		}
		free += p.Epsilon[f] + math.Abs(e.AttributionPlus[f])
	}
	if free == 0 {
		t.Error("the free features have no ε or Φ+ either")
	}
}

func TestEarlyStop(t *testing.T) {
	s := wbc(t)
	cfg := quce.DefaultConfig()
	cfg.EarlyStop = 5
	e := explain(t, cfg, s.XTest[:5])
	for i, ex := range e {
		p := ex.Path0()
		if !p.Valid || p.Steps >= cfg.Steps {
			t.Errorf("instance %d: early stop gave valid=%v after %d steps", i, p.Valid, p.Steps)
		}
	}
}

// A row whose objective overflows fails alone; the rest of its batch is unaffected.
func TestNonFiniteRowDoesNotContaminateBatch(t *testing.T) {
	s := wbc(t)
	cfg := quce.DefaultConfig()
	cfg.Steps = 100
	bad := make([]float64, len(s.XTest[0]))
	for f := range bad {
		bad[f] = 1e19 // finite in float32, but its squared reconstruction error overflows
	}
	rows := [][]float64{s.XTest[0], bad, s.XTest[1]}
	batch := explain(t, cfg, rows)
	if f := batch[1].Path0().Failure; f == "" || batch[1].Path0().Valid {
		t.Errorf("overflowing row: failure %q valid %v; want a reported failure", f, batch[1].Path0().Valid)
	} else if !strings.Contains(f, "non-finite") {
		t.Errorf("failure reason %q does not say what happened", f)
	}
	for _, i := range []int{0, 2} {
		alone := explain(t, cfg, rows[i:i+1])[0]
		if d := maxDiff(alone.Path0().Counterfactual, batch[i].Path0().Counterfactual); d > 1e-5 {
			t.Errorf("row %d changed by %.2e next to an overflowing row", i, d)
		}
		if batch[i].Path0().Failure != "" {
			t.Errorf("row %d failed: %s", i, batch[i].Path0().Failure)
		}
	}
}

func TestBadInputs(t *testing.T) {
	s := wbc(t)
	x := s.XTest[0]
	j := len(x)
	good := quce.DefaultConfig()
	with := func(f func(*quce.Config)) quce.Config { c := good; f(&c); return c }
	frozenAll := make([]bool, j)
	for i := range frozenAll {
		frozenAll[i] = true
	}
	orig := s.Scaler.InverseRow(x)
	excl := make([]float64, j)
	for i := range excl {
		excl[i] = math.NaN()
	}
	excl[0] = orig[0] + 1
	swappedLo, swappedHi := make([]float64, j), make([]float64, j)
	for i := range swappedLo {
		swappedLo[i], swappedHi[i] = math.NaN(), math.NaN()
	}
	swappedLo[2], swappedHi[2] = 10, 5
	nanRow := append([]float64(nil), x...)
	nanRow[3] = math.NaN()
	tests := []struct {
		name string
		cfg  quce.Config
		q    quce.Query
		want string
	}{
		{"negative lambda", with(func(c *quce.Config) { c.Lambda2 = -1 }), quce.NewQuery(x), "lambda2"},
		{"NaN lambda", with(func(c *quce.Config) { c.Lambda3 = math.NaN() }), quce.NewQuery(x), "lambda3"},
		{"zero lambda1", with(func(c *quce.Config) { c.Lambda1 = 0 }), quce.NewQuery(x), "lambda1"},
		{"zero learning rate", with(func(c *quce.Config) { c.LearningRate = 0 }), quce.NewQuery(x), "learning rate"},
		{"zero steps", with(func(c *quce.Config) { c.Steps = 0 }), quce.NewQuery(x), "steps"},
		{"zero K", with(func(c *quce.Config) { c.K = 0 }), quce.NewQuery(x), "k = 0"},
		{"threshold 1", with(func(c *quce.Config) { c.Threshold = 1 }), quce.NewQuery(x), "threshold"},
		{"threshold 0", with(func(c *quce.Config) { c.Threshold = 0 }), quce.NewQuery(x), "threshold"},
		{"unknown optimizer", with(func(c *quce.Config) { c.Optimizer = "rmsprop" }), quce.NewQuery(x), `unknown optimizer "rmsprop"`},
		{"unknown rule", with(func(c *quce.Config) { c.Rule = "boole" }), quce.NewQuery(x), "unknown attribution rule"},
		{"zero paths", with(func(c *quce.Config) { c.Paths = 0 }), quce.NewQuery(x), "paths"},
		{"target 2", good, quce.Query{X: x, Target: 2}, "target class 2"},
		{"wrong width", good, quce.NewQuery(x[:5]), "has 5 features"},
		{"NaN feature", good, quce.NewQuery(nanRow), "is NaN"},
		{"every feature frozen", good, quce.Query{X: x, Target: quce.AutoTarget, Frozen: frozenAll}, "every feature is frozen"},
		{"bounds exclude the instance", good, quce.Query{X: x, Target: quce.AutoTarget, Lower: excl}, "outside its bounds"},
		{"lower above upper", good, quce.Query{X: x, Target: quce.AutoTarget, Lower: swappedLo, Upper: swappedHi}, "lower bound 10 > upper bound 5"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := s.Explainer.Explain(context.Background(), tc.cfg, []quce.Query{tc.q})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error = %v; want it to contain %q", err, tc.want)
			}
			if !strings.Contains(err.Error(), "fix:") && !strings.Contains(tc.want, "features") {
				t.Errorf("error %q does not say how to fix it", err)
			}
		})
	}
}

func TestCancelledContextStops(t *testing.T) {
	s := wbc(t)
	ctx, cancel := context.WithCancel(context.Background())
	e := with(t, s.Explainer, func(st *quce.Settings) {
		st.Progress = func(step, _ int) {
			if step >= 3 { // on the loop engine the first report can be the last step
				cancel()
			}
		}
	})
	_, err := e.Explain(ctx, quce.DefaultConfig(), queries(s.XTest[:2]))
	if err != context.Canceled {
		t.Errorf("error = %v; want context.Canceled", err)
	}
}

func maxDiff(a, b []float64) float64 {
	m := 0.0
	for i := range a {
		m = max(m, math.Abs(a[i]-b[i]))
	}
	return m
}

// Kept path points are bounded by PathPoints; the metrics still use every point.
func TestPathPointsBoundMemory(t *testing.T) {
	s := wbc(t)
	cfg := quce.DefaultConfig()
	cfg.Steps = 400
	full := cfg
	full.PathPoints = 0
	a := explain(t, cfg, s.XTest[:2])[0].Path0()
	b := explain(t, full, s.XTest[:2])[0].Path0()
	if len(b.Points) != cfg.Steps+1 || b.Step[len(b.Step)-1] != cfg.Steps {
		t.Fatalf("full path: %d points, last step %d; want %d and %d", len(b.Points), b.Step[len(b.Step)-1], cfg.Steps+1, cfg.Steps)
	}
	if len(a.Points) > cfg.PathPoints+1 || a.Step[len(a.Step)-1] != cfg.Steps || a.Step[0] != 0 {
		t.Fatalf("bounded path: %d points (bound %d), steps %d..%d", len(a.Points), cfg.PathPoints, a.Step[0], a.Step[len(a.Step)-1])
	}
	if maxDiff(a.Attribution, b.Attribution) != 0 || a.PathUncertainty != b.PathUncertainty || maxDiff(a.Counterfactual, b.Counterfactual) != 0 {
		t.Error("keeping fewer points changed the attribution or the metrics")
	}
	for i, st := range a.Step {
		if maxDiff(a.Points[i], b.Points[st]) != 0 {
			t.Fatalf("kept point %d is not the path's point %d", i, st)
		}
	}
}

// Measuring QUCE's own path through ExplainPaths gives QUCE's attribution back.
func TestExplainPathsMatchesExplain(t *testing.T) {
	s := wbc(t)
	cfg := quce.DefaultConfig()
	cfg.Steps, cfg.PathPoints = 200, 0
	ex := explain(t, cfg, s.XTest[:2])
	paths := [][][]float64{ex[0].Path0().Points, ex[1].Path0().Points}
	got, err := s.Explainer.ExplainPaths(context.Background(), cfg, queries(s.XTest[:2]), paths)
	if err != nil {
		t.Fatal(err)
	}
	for i := range ex {
		if d := maxDiff(got[i].Attribution, ex[i].Attribution); d > 1e-6 {
			t.Errorf("instance %d: attribution of the measured path differs by %.2e", i, d)
		}
	}
	if _, err := s.Explainer.ExplainPaths(context.Background(), cfg, queries(s.XTest[:1]), [][][]float64{{s.XTest[1]}}); err == nil {
		t.Error("a path that does not start at its instance: want an error")
	}
}
