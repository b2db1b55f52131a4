package quce_test

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// legal reports why the row x (original units) is not a row the data could hold inside the
// query's box (the training split's observed range widened to the instance, or where the
// query gives bounds, those: an open side has none), or "".
func legal(c data.Column, x []float64, box quce.Bounds) string {
	v := x[c.Start]
	switch c.Type {
	case data.Categorical:
		ones := 0
		for _, u := range x[c.Start : c.Start+c.Width] {
			switch {
			case u == 1:
				ones++
			case u != 0:
				return "a one-hot input is neither 0 nor 1"
			}
		}
		if ones != 1 {
			return "the one-hot block does not hold exactly one category"
		}
		return ""
	case data.Binary:
		if math.Abs(v-c.Min) > 1e-4 && math.Abs(v-c.Max) > 1e-4 {
			return "not one of the two values"
		}
	case data.Integer, data.Ordinal:
		if math.Abs(v-math.Round(v)) > 1e-3 {
			return "not an integer"
		}
	}
	if lo, hi := box.Lower[c.Start], box.Upper[c.Start]; v < lo-1e-3 || v > hi+1e-3 {
		return fmt.Sprintf("outside the query's box [%v, %v]", lo, hi)
	}
	return ""
}

// TestMixedData explains German credit's test rows with foreign_worker and personal_status
// frozen and age increase-only: the reported counterfactuals are legal rows, at least 95% are
// valid, the attribution still integrates to F(τ|x_c) − F(τ|x), and no point of any path
// breaks a constraint.
func TestMixedData(t *testing.T) {
	for _, tc := range []struct {
		name      string
		earlyStop int
		sparse    bool
	}{
		{"defaults", 0, false},
		// Stopping as soon as F(τ) reaches ϑ leaves the search's end just valid, so rounding
		// to legal values often loses validity: the repair moves must win it back.
		{"stop at the threshold", 1, false},
		// Sparsity resets whole columns (a one-hot block at once) after the rounding.
		{"sparse", 0, true},
	} {
		t.Run(tc.name, func(t *testing.T) { checkMixed(t, tc.earlyStop, tc.sparse) })
	}
}

func checkMixed(t *testing.T, earlyStop int, sparse bool) {
	s := pipelinetest.German(t)
	e := s.Explainer
	cols := e.Columns()
	cons := quce.Constraints{Frozen: []string{"foreign_worker", "personal_status"}, Increase: []string{"age"}, Bounds: map[string][2]float64{"duration": {math.NaN(), 48}}}
	rows := s.XTest
	if testing.Short() {
		rows = rows[:40]
	}
	qs := make([]quce.Query, len(rows))
	for i := range rows {
		q, err := e.Constrain(rowQuery(s, s.TestIdx[i]), cons)
		if c, _ := s.Data.Column("duration"); s.Data.X[s.TestIdx[i]][c.Start] > 48 {
			// The bound excludes this instance: Constrain must say so, with the flag.
			if err == nil || !strings.Contains(err.Error(), "Constraints.Bounds duration") || !strings.Contains(err.Error(), "excludes the instance") {
				t.Fatalf("row %d: duration above 48 under -bounds duration=:48 gave %v", i, err)
			}
			q, err = e.Constrain(rowQuery(s, s.TestIdx[i]), quce.Constraints{Frozen: cons.Frozen, Increase: cons.Increase})
		}
		if err != nil {
			t.Fatal(err)
		}
		qs[i] = q
	}
	cfg := quce.DefaultConfig()
	cfg.EarlyStop = earlyStop
	ex := explainEveryPoint(t, s, cfg, qs, sparse)
	valid, projected, repaired, resets := 0, 0, 0, 0
	worstGap := 0.0
	for i, x := range ex {
		p := x.Path0()
		if p.Valid {
			valid++
		}
		if p.Projected {
			projected++
		}
		if len(p.Repairs) > 0 {
			repaired++
		}
		resets += len(p.Resets)
		worstGap = max(worstGap, math.Abs(x.CompletenessGap))
		box, err := e.Box(qs[i])
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range cols {
			if why := legal(c, p.CounterfactualOriginal, box); why != "" {
				t.Errorf("row %d, column %s: the counterfactual's value %s is %s", i, c.Name, c.Format(p.CounterfactualOriginal), why)
			}
		}
		// In the data's units every constraint holds exactly, at every point.
		orig := x.XOriginal
		for k, pt := range p.Points {
			po := p.PointsOriginal[k]
			for _, c := range cols {
				for f := c.Start; f < c.Start+c.Width; f++ {
					if qs[i].Frozen[f] && (pt[f] != float64(float32(x.X[f])) || po[f] != orig[f]) {
						t.Fatalf("row %d, point %d: frozen %s moved: %v → %v", i, k, c.Name, orig[f], po[f])
					}
					if lo := qs[i].Lower[f]; !math.IsNaN(lo) && po[f] < lo {
						t.Fatalf("row %d, point %d: %s = %v below its lower bound %v (instance %v)", i, k, c.Name, po[f], lo, orig[f])
					}
					if hi := qs[i].Upper[f]; !math.IsNaN(hi) && po[f] > hi {
						t.Fatalf("row %d, point %d: %s = %v above its upper bound %v", i, k, c.Name, po[f], hi)
					}
				}
			}
		}
		checkExact(t, e, "German credit", qs[i], x)
	}
	rate := float64(valid) / float64(len(ex))
	t.Logf("German credit, %d test rows: valid %.1f%%, projected %d, repaired %d, columns reset %d, worst |gap| %.2e", len(ex), 100*rate, projected, repaired, resets, worstGap)
	if sparse && resets == 0 {
		t.Errorf("no column was reset: the case does not test sparsity")
	}
	if earlyStop > 0 && repaired == 0 {
		t.Errorf("no row needed a repair move: the case does not test them")
	}
	if rate < 0.95 {
		t.Errorf("%.1f%% of the projected counterfactuals are valid, want ≥ 95%%", 100*rate)
	}
	if worstGap > 5e-3 {
		t.Errorf("worst completeness gap %.2e, want ≤ 5e-3", worstGap)
	}
}

// TestConstraintErrors: every constraint that cannot hold is refused with its flag and fix.
func TestConstraintErrors(t *testing.T) {
	cols := data.GermanCredit().Columns
	nan := math.NaN()
	for _, tc := range []struct {
		name string
		c    quce.Constraints
		want string // "" for accepted
	}{
		{"fine", quce.Constraints{Frozen: []string{"foreign_worker", "personal_status"}, Increase: []string{"age"}, Bounds: map[string][2]float64{"duration": {nan, 48}}}, ""},
		{"unknown column", quce.Constraints{Frozen: []string{"salary"}}, `Constraints.Frozen salary: there is no column "salary"`},
		{"increase on a categorical column", quce.Constraints{Increase: []string{"housing"}}, "Constraints.Increase housing: column \"housing\" is categorical"},
		{"decrease on a text binary column", quce.Constraints{Decrease: []string{"own_telephone"}}, "Constraints.Decrease own_telephone"},
		{"frozen and increase-only", quce.Constraints{Frozen: []string{"age"}, Increase: []string{"age"}}, "both Constraints.Frozen and Constraints.Increase"},
		{"increase and decrease", quce.Constraints{Increase: []string{"age"}, Decrease: []string{"age"}}, "use Constraints.Frozen"},
		{"bounds on a categorical column", quce.Constraints{Bounds: map[string][2]float64{"purpose": {0, 1}}}, "Constraints.Bounds purpose"},
		{"bounds the wrong way round", quce.Constraints{Bounds: map[string][2]float64{"age": {70, 18}}}, "lower bound is above the upper one"},
		{"bounds of a frozen column", quce.Constraints{Frozen: []string{"age"}, Bounds: map[string][2]float64{"age": {18, 70}}}, "both Constraints.Frozen and Constraints.Bounds"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := quce.CheckConstraints(cols, tc.c)
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("refused: %v", err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fix:")):
				t.Fatalf("got %v, want an error with %q and a fix", err, tc.want)
			}
		})
	}
}

// explainEveryPoint explains qs with cfg keeping every path point (to check the constraints
// on each), with -sparse's resets when sparse.
func explainEveryPoint(t *testing.T, s *pipeline.Setup, cfg quce.Config, qs []quce.Query, sparse bool) []*quce.Explanation {
	t.Helper()
	cfg.PathPoints = 0
	if sparse {
		cfg.Sparse = true
		var err error
		if cfg, err = s.WithPlausibility(cfg, quce.DefaultPlausibilityQuantile); err != nil {
			t.Fatal(err)
		}
	}
	ex, err := s.Explainer.Explain(context.Background(), cfg, qs)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}
