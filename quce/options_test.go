package quce_test

import (
	"math"
	"slices"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
)

// With Config.Counterfactuals 3, most W-BC and German credit rows get at least two valid
// counterfactuals that change different sets of columns, each with its own path from x, its
// completeness gap within the bound, its held columns at x's values and the query's
// constraints kept; the first is the one counterfactual found without the setting.
func TestSeveralCounterfactuals(t *testing.T) {
	for _, tc := range recourseSetups {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.setup(t)
			cols := s.Explainer.Columns()
			cfg := quce.DefaultConfig()
			cfg.Steps = 300
			qs := make([]quce.Query, tc.rows)
			for i := range qs {
				qs[i] = s.Query(s.XTest[i])
			}
			one, err := s.Explainer.Explain(t.Context(), cfg, qs)
			if err != nil {
				t.Fatal(err)
			}
			cfg.Counterfactuals = 3
			ex, err := s.Explainer.Explain(t.Context(), cfg, qs)
			if err != nil {
				t.Fatal(err)
			}
			several := 0
			for i, e := range ex {
				if !slices.Equal(e.Path0().Counterfactual, one[i].Path0().Counterfactual) {
					t.Errorf("row %d: the first counterfactual differs from the one found alone", i)
				}
				if e.AlreadyTarget || !e.Path0().Valid {
					if e.Counterfactuals != nil {
						t.Errorf("row %d: %d counterfactuals, but its first is not valid", i, len(e.Counterfactuals))
					}
					continue
				}
				if len(e.Counterfactuals) == 0 || e.Counterfactuals[0] != e.Path0() || len(e.Counterfactuals) > 3 {
					t.Fatalf("row %d: %d counterfactuals, want 1 to 3, the first Paths[0]'s", i, len(e.Counterfactuals))
				}
				if len(e.Counterfactuals) >= 2 {
					several++
				}
				var sets [][]int
				for k, p := range e.Counterfactuals {
					changed := data.ChangedColumns(cols, e.X, p.Counterfactual, data.ExactChange)
					for _, seen := range sets {
						if slices.Equal(seen, changed) {
							t.Errorf("row %d, counterfactual %d: changes the same columns %v as an earlier one", i, k+1, changed)
						}
					}
					sets = append(sets, changed)
					if !p.Valid || math.Abs(p.CompletenessGap) > quce.MaxCompletenessGap || p.Step[0] != 0 || !slices.Equal(p.Points[0], e.Path0().Points[0]) {
						t.Errorf("row %d, counterfactual %d: valid %v, gap %g, starting at step %d; want a valid path from x within the gap bound", i, k+1, p.Valid, p.CompletenessGap, p.Step[0])
					}
					if (k == 0) != (p.Held == nil) || len(p.Held) > k {
						t.Errorf("row %d, counterfactual %d holds %v", i, k+1, p.Held)
					}
					for _, ci := range p.Held {
						if c := cols[ci]; c.Changed(e.X, p.Counterfactual, data.ExactChange) {
							t.Errorf("row %d, counterfactual %d changes %s, which it holds", i, k+1, c.Name)
						}
					}
				}
			}
			t.Logf("%s: %d of %d rows with at least two counterfactuals", tc.name, several, len(ex))
			if 2*several <= len(ex) {
				t.Errorf("%d of %d rows got two or more counterfactuals; want most", several, len(ex))
			}
		})
	}
}
