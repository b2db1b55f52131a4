package quce_test

import (
	"context"
	"slices"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// With automatic λ, sparsity and the default margin, every valid counterfactual ends at
// least the margin inside the target class (Path.Margin = F(τ|x_c) − ϑ ≥ DefaultMargin):
// the pull-back and the resets both hold it, so the resets no longer walk the ends back to
// the boundary. On German credit, with its thirteen categorical columns, no counterfactual
// pairs category values that no training row pairs.
func TestAutoSparseHoldsTheMargin(t *testing.T) {
	for _, tc := range recourseSetups {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.setup(t)
			cfg := autoSparse(t, s, quce.DefaultConfig())
			seen := data.SeenCombinations(s.Data.Columns, s.Data.Subset(s.TrainIdx).X)
			ex, err := s.Explainer.Explain(context.Background(), cfg, queries(s.XTest[:tc.rows]))
			if err != nil {
				t.Fatal(err)
			}
			valid := 0
			for i, e := range ex {
				p := e.Path0()
				if p.Margin != p.ProbEnd-cfg.Threshold {
					t.Errorf("row %d: Margin %v, want F(τ|x_c) − ϑ = %v", i, p.Margin, p.ProbEnd-cfg.Threshold)
				}
				if !p.Valid || e.AlreadyTarget {
					continue
				}
				valid++
				if p.Margin < quce.DefaultMargin-1e-6 {
					t.Errorf("row %d: valid with margin %.4f (F = %.4f, resets %v), want at least %g", i, p.Margin, p.ProbEnd, p.Resets, quce.DefaultMargin)
				}
				if u := seen.Unseen(p.CounterfactualOriginal, e.XOriginal); u != nil || p.UnseenCombination != nil {
					t.Errorf("row %d: unseen combination %q (Path.UnseenCombination %q)", i, u, p.UnseenCombination)
				}
			}
			if valid < tc.rows/2 {
				t.Errorf("%d of %d counterfactuals valid: too few to test the margin", valid, tc.rows)
			}
		})
	}
}

// On a table whose categories are tied (Husband only with Male and Married, and so on), the
// nearest legal row of a search often pairs categories that no row pairs, and on German
// credit a few do; with the training split's pairs (Settings.SeenCategories, as package
// pipeline gives them) no valid counterfactual does, and without them some do (so the rule
// is what keeps them out).
func TestNoUnseenCombinations(t *testing.T) {
	household := func(t *testing.T) (*pipeline.Setup, [][]float64) {
		s := pipelinetest.Household(t)
		var rows [][]float64
		for i, x := range s.XTest {
			if s.Data.Labels[s.Data.Y[s.TestIdx[i]]] == "low" && len(rows) < 40 {
				rows = append(rows, x)
			}
		}
		return s, rows
	}
	german := func(t *testing.T) (*pipeline.Setup, [][]float64) {
		s := pipelinetest.German(t)
		return s, s.XTest[:100]
	}
	short := quce.DefaultConfig()
	short.Steps = 300
	sparse := short
	sparse.Sparse, sparse.Margin = true, quce.DefaultMargin
	for _, tc := range []struct {
		name  string
		setup func(*testing.T) (*pipeline.Setup, [][]float64)
		cfg   quce.Config
	}{
		{"household, fixed λ", household, short},
		{"household, fixed λ, sparse", household, sparse},
		{"german, fixed λ", german, quce.DefaultConfig()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, rows := tc.setup(t)
			seen := data.SeenCombinations(s.Data.Columns, s.Data.Subset(s.TrainIdx).X)
			blind := with(t, s.Explainer, func(st *quce.Settings) { st.SeenCategories = nil })
			cfg := tc.cfg
			if cfg.Sparse {
				var err error
				if cfg, err = s.WithPlausibility(cfg, quce.DefaultPlausibilityQuantile); err != nil {
					t.Fatal(err)
				}
			}
			count := func(e *quce.Explainer) (valid, unseen int) {
				t.Helper()
				ex, err := e.Explain(context.Background(), cfg, queries(rows))
				if err != nil {
					t.Fatal(err)
				}
				for i, x := range ex {
					p := x.Path0()
					if !p.Valid || x.AlreadyTarget {
						continue
					}
					valid++
					u := seen.Unseen(p.CounterfactualOriginal, x.XOriginal)
					if u != nil {
						unseen++
					}
					if e == s.Explainer && !slices.Equal(u, p.UnseenCombination) {
						t.Errorf("row %d: Path.UnseenCombination %q, want %q", i, p.UnseenCombination, u)
					}
				}
				return valid, unseen
			}
			valid, unseen := count(s.Explainer)
			if unseen > 0 || valid < len(rows)/2 {
				t.Errorf("with the training split's pairs: %d of %d valid counterfactuals pair unseen categories (of %d rows), want none and most valid", unseen, valid, len(rows))
			}
			bValid, bUnseen := count(blind)
			if bUnseen == 0 {
				t.Errorf("without them: no valid counterfactual (of %d) pairs unseen categories, so the test does not test the rule", bValid)
			}
			t.Logf("valid %d, unseen %d; without the pairs: valid %d, unseen %d", valid, unseen, bValid, bUnseen)
		})
	}
}
