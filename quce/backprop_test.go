package quce_test

import (
	"context"
	"math"
	"testing"

	"github.com/gomlx/compute"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// twin is a new explainer of the same models, columns and seen category pairs with settings
// st, compiling programs of its own.
func twin(t *testing.T, s *pipeline.Setup, st quce.Settings) *quce.Explainer {
	return twinOn(t, s, s.Backend, st)
}

// twinOn is a twin on another backend.
func twinOn(t *testing.T, s *pipeline.Setup, b compute.Backend, st quce.Settings) *quce.Explainer {
	t.Helper()
	st.Columns, st.SeenCategories = s.Explainer.Columns(), s.Explainer.Settings().SeenCategories
	ex, err := quce.New(b, s.Explainer.Classifier(), s.VAE, s.Scaler, s.Explainer.Features(), st)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// autodiffTwin is a twin that takes every gradient with GoMLX's autodiff
// (Settings.Autodiff), the reference for the hand-written backward passes.
func autodiffTwin(t *testing.T, s *pipeline.Setup) *quce.Explainer {
	return twin(t, s, quce.Settings{Autodiff: true})
}

// The built-in networks' hand-written backward passes (package backprop) give autodiff's
// objective gradient to 1e-5, and explanations within 1e-4 of autodiff's but for one row in six
// (a ReLU kink, below): binary (W-BC), multi-class (Iris) and mixed data with one-hot blocks
// (German credit).
func TestHandWrittenGradients(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(testing.TB) *pipeline.Setup
	}{
		{"builtin-wbc", pipelinetest.WBC},
		{"builtin-iris", func(t testing.TB) *pipeline.Setup { return pipelinetest.KindNamed(t, "builtin-iris") }},
		{"builtin-german", pipelinetest.German},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := tc.setup(t)
			ref := autodiffTwin(t, s)
			cfg := quce.DefaultConfig()
			rows := s.XTest[:6]

			// The objective's gradient at points around each row.
			for i, x := range rows {
				q := quce.NewQuery(x)
				xc := make([]float64, len(x))
				for f := range x {
					xc[f] = x[f] + 0.3*math.Sin(float64(3*i+f))
				}
				g1, grad1, err := s.Explainer.Objective(cfg, q, xc)
				if err != nil {
					t.Fatal(err)
				}
				g2, grad2, err := ref.Objective(cfg, q, xc)
				if err != nil {
					t.Fatal(err)
				}
				if math.Abs(g1-g2) > 1e-5*math.Max(1, math.Abs(g2)) {
					t.Errorf("row %d: G %v hand-written, %v autodiff", i, g1, g2)
				}
				if d, scale := maxDiff(grad1, grad2), largest(grad2); d > 1e-5*math.Max(scale, 1e-3) {
					t.Errorf("row %d: ∇G differs by %.3g (largest %.3g)", i, d, scale)
				}
			}

			// Whole explanations. Both forms are exact gradients up to float32 rounding, which
			// 1000 Adam steps amplify where a gradient is near zero; most rows stay well within
			// 1e-4. But a path whose hidden unit passes within rounding of a ReLU's
			// kink can take the other side of it in one form and not the other: W-BC test row 4
			// does at step 529 of 1000 and ends 1e-3 away. So at most one row in six may differ
			// by more than 1e-4, and none by more than 5e-3 (a real error in a gradient moves
			// every row, by orders of magnitude more).
			hand, err := s.Explainer.Explain(context.Background(), cfg, queries(rows))
			if err != nil {
				t.Fatal(err)
			}
			auto, err := ref.Explain(context.Background(), cfg, queries(rows))
			if err != nil {
				t.Fatal(err)
			}
			apart := 0
			for i := range hand {
				d := max(maxDiff(hand[i].Path0().Counterfactual, auto[i].Path0().Counterfactual),
					maxDiff(hand[i].Attribution, auto[i].Attribution))
				t.Logf("row %d: counterfactual and attribution within %.2g", i, d)
				if d > 1e-4 {
					apart++
				}
				if d > 5e-3 {
					t.Errorf("row %d: explanations differ by %.3g; want ≤ 5e-3", i, d)
				}
				if hand[i].Path0().Valid != auto[i].Path0().Valid {
					t.Errorf("row %d: valid %v hand-written, %v autodiff", i, hand[i].Path0().Valid, auto[i].Path0().Valid)
				}
			}
			if apart > 1 {
				t.Errorf("%d of %d rows differ by more than 1e-4; want at most 1", apart, len(hand))
			}
		})
	}
}

// largest is the largest |v_i|.
func largest(v []float64) float64 {
	m := 0.0
	for _, x := range v {
		m = max(m, math.Abs(x))
	}
	return m
}

// Splitting the rows into concurrent shards (Settings.Shards) changes nothing: rows are
// independent, and with the SIMD kernels a row's result does not even depend on its place in
// the batch, so one shard and two give bit-identical explanations. (Without them the scalar
// kernel's last rows sum in another order, so the bound is that of TestBatchIndependence.)
// A call has as many shards as it may, down to a row each (Stats.Shards; 5 rows
// in 4 shards: sizes 1, 1, 1, 2), and its ± integrals are computed in fixed parts (300
// rows: two) as many at the same time.
func TestShardsAgree(t *testing.T) {
	s := pipelinetest.WBC(t)
	cfg := quce.DefaultConfig()
	cfg.Steps = 300
	tol := 0.0
	if !backend.SIMD {
		tol = 5e-3
	}
	for _, n := range []int{300, 96, 5} {
		rows := s.XTrain[:n]
		var results [][]*quce.Explanation
		for _, shards := range []int{1, 2, 4} {
			ex := twin(t, s, quce.Settings{Shards: shards})
			res, st, err := ex.ExplainWithStats(context.Background(), cfg, queries(rows))
			if err != nil {
				t.Fatal(err)
			}
			if got := st.Shards; got != min(shards, n) {
				t.Errorf("%d rows, at most %d shards: searched in %d, want %d", n, shards, got, min(shards, n))
			}
			results = append(results, res)
		}
		for k := 1; k < len(results); k++ {
			for i := range rows {
				a, b := results[0][i], results[k][i]
				d := max(maxDiff(a.Path0().Counterfactual, b.Path0().Counterfactual), maxDiff(a.Attribution, b.Attribution),
					maxDiff(a.AttributionPlus, b.AttributionPlus), maxDiff(a.AttributionMinus, b.AttributionMinus))
				if d > tol {
					t.Fatalf("%d rows, row %d: %d shards at most against 1 differ by %.3g; want ≤ %g", n, i, []int{1, 2, 4}[k], d, tol)
				}
			}
		}
	}
}
