package quce_test

import (
	"context"
	"math"
	"testing"

	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// An instance that the model already predicts as its target class is not searched: its
// explanation says so, its counterfactual is x and every attribution is zero, and the other
// instances of the batch are explained as they would be alone. The prediction is the
// model's at the threshold ϑ.
func TestAlreadyTarget(t *testing.T) {
	s := wbc(t)
	e := s.Explainer
	cfg := quce.DefaultConfig()
	cfg.Steps = 100
	rows := s.XTest[:4]
	probs, err := e.Predict(rows)
	if err != nil {
		t.Fatal(err)
	}
	qs := queries(rows)
	for i := range qs[:2] {
		qs[i].Target = quce.PredictedClass(probs[i], cfg.Threshold)
	}
	ex, err := e.Explain(context.Background(), cfg, qs)
	if err != nil {
		t.Fatal(err)
	}
	alone, err := e.Explain(context.Background(), cfg, qs[2:])
	if err != nil {
		t.Fatal(err)
	}
	for i, x := range ex {
		p := x.Path0()
		if i >= 2 {
			if x.AlreadyTarget || p.Steps != cfg.Steps || p.ProbEnd != alone[i-2].Path0().ProbEnd || maxDiff(p.Counterfactual, alone[i-2].Path0().Counterfactual) != 0 {
				t.Errorf("row %d (default target): already %v, %d steps, F %v; alone F %v", i, x.AlreadyTarget, p.Steps, p.ProbEnd, alone[i-2].Path0().ProbEnd)
			}
			continue
		}
		if !x.AlreadyTarget || x.Target != x.PredictedClass || p.Steps != 0 || len(p.Points) != 1 || len(x.Paths) != 1 {
			t.Errorf("row %d: already %v, target %d, predicted %d, %d steps, %d points, %d paths", i, x.AlreadyTarget, x.Target, x.PredictedClass, p.Steps, len(p.Points), len(x.Paths))
		}
		if !p.Valid || p.ProbEnd != x.ProbStart || x.ProbStart != probs[i][x.Target] {
			t.Errorf("row %d: valid %v, F %v -> %v, want %v throughout", i, p.Valid, x.ProbStart, p.ProbEnd, probs[i][x.Target])
		}
		for f := range x.X {
			if p.Counterfactual[f] != float64(float32(x.X[f])) || !x.Unchanged[f] {
				t.Fatalf("row %d, feature %d: counterfactual %v, x %v", i, f, p.Counterfactual[f], x.X[f])
			}
			for _, v := range []float64{x.Attribution[f], x.AttributionPlus[f], x.AttributionMinus[f], p.Epsilon[f]} {
				if v != 0 {
					t.Fatalf("row %d, feature %d: an attribution or ε of %v", i, f, v)
				}
			}
		}
		if x.CompletenessGap != 0 || !(p.CFUncertainty > 0) {
			t.Errorf("row %d: completeness gap %v, L_ε(x) %v", i, x.CompletenessGap, p.CFUncertainty)
		}
	}

	// The prediction takes ϑ: with ϑ just under F(1|x), x is predicted class 1, so a target
	// of 1 is already reached; just above it, x is predicted 0 and class 1 is searched for.
	p1 := probs[0][1]
	for _, tc := range []struct {
		threshold float64
		already   bool
	}{{p1 / 2, true}, {math.Min(1-(1-p1)/2, (1+p1)/2), false}} {
		c := cfg
		c.Threshold = tc.threshold
		q := quce.NewQuery(rows[0])
		q.Target = 1
		got, err := e.Explain(context.Background(), c, []quce.Query{q})
		if err != nil {
			t.Fatal(err)
		}
		if got[0].AlreadyTarget != tc.already {
			t.Errorf("F(1|x) = %v, ϑ = %v: already %v, want %v", p1, tc.threshold, got[0].AlreadyTarget, tc.already)
		}
	}
}

// On mixed data the rounding to the data's values brings some columns back to x's value
// after the search moved them; Detours marks exactly the unchanged columns whose attribution
// is not negligible, and at least one such column turns up on German credit's test rows.
func TestDetours(t *testing.T) {
	s := pipelinetest.German(t)
	e := s.Explainer
	cols := e.Columns()
	cfg := quce.DefaultConfig()
	ex, err := e.Explain(context.Background(), cfg, queries(s.XTest[:20]))
	if err != nil {
		t.Fatal(err)
	}
	found := 0
	for i, x := range ex {
		byCol := x.ByColumn(cols)
		detours := byCol.Detours()
		xo, xc := x.XOriginal, x.Path0().CounterfactualOriginal
		for ci, c := range cols {
			same := c.Format(xo) == c.Format(xc)
			if byCol.Unchanged[ci] != same {
				t.Errorf("row %d, column %s: unchanged %v, but %q -> %q", i, c.Name, byCol.Unchanged[ci], c.Format(xo), c.Format(xc))
			}
			want := same && math.Abs(byCol.Attribution[ci]) >= quce.DetourMin
			if detours[ci] != want {
				t.Errorf("row %d, column %s: detour %v, want %v (Φ %v)", i, c.Name, detours[ci], want, byCol.Attribution[ci])
			}
			if detours[ci] {
				found++
			}
		}
	}
	if found == 0 {
		t.Error("no column of 20 rows ends unchanged with an attribution: the test shows nothing")
	}
	t.Logf("%d detours in %d rows", found, len(ex))
}
