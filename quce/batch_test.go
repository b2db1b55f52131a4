package quce_test

import (
	"context"
	"slices"
	"testing"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/quce"
)

// Rows that stop early leave the batch (the walk packs the rest into a smaller one); every
// row's result stays what it is alone, with its optimiser state and its own latent noise
// carried over.
func TestStoppedRowsLeaveTheBatch(t *testing.T) {
	tol := 0.0 // with the SIMD kernels a row does not depend on its batch
	if !backend.SIMD {
		tol = 5e-3 // see TestBatchIndependence
	}
	s := wbc(t)
	for _, tc := range []struct {
		name    string
		samples int
	}{{"mean code", 0}, {"sampled codes", 1}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := quce.DefaultConfig()
			cfg.EarlyStop, cfg.Samples, cfg.Steps = 5, tc.samples, 400
			rows := s.XTrain[:40]
			batch := explain(t, cfg, rows)
			steps := make([]int, len(batch))
			for i, e := range batch {
				steps[i] = e.Path0().Steps
			}
			// The rows that stopped last walked in the smallest batches.
			order := make([]int, len(batch))
			for i := range order {
				order[i] = i
			}
			slices.SortFunc(order, func(a, b int) int { return steps[b] - steps[a] })
			if steps[order[0]] <= 2*steps[order[len(order)/2]] {
				t.Fatalf("steps %v: want rows stopping far apart, so that the batch shrinks", steps)
			}
			for _, i := range append(order[:3:3], order[len(order)-1]) {
				alone := explain(t, cfg, rows[i:i+1])[0]
				a, b := alone.Path0(), batch[i].Path0()
				if a.Steps != b.Steps {
					t.Errorf("row %d: %d steps alone, %d in the batch", i, a.Steps, b.Steps)
				}
				if d := maxDiff(a.Counterfactual, b.Counterfactual); d > tol {
					t.Errorf("row %d (%d steps): counterfactual alone vs in the batch differs by %.2e", i, b.Steps, d)
				}
				if d := maxDiff(alone.Attribution, batch[i].Attribution); d > tol {
					t.Errorf("row %d (%d steps): attribution alone vs in the batch differs by %.2e", i, b.Steps, d)
				}
			}
		})
	}
}

// An explainer serves any number of batch sizes: a notebook session asks for as many as its
// user does (graph.Exec alone refuses a 33rd input shape).
func TestManyBatchSizes(t *testing.T) {
	s := wbc(t)
	cfg := quce.DefaultConfig()
	cfg.Steps = 2
	for n := 1; n <= 45; n++ {
		if _, err := s.Explainer.Explain(context.Background(), cfg, queries(s.XTrain[:n])); err != nil {
			t.Fatalf("explaining %d rows: %v", n, err)
		}
		if _, _, _, err := s.Explainer.Uncertainty(s.XTrain[:n]); err != nil {
			t.Fatalf("uncertainty of %d points: %v", n, err)
		}
	}
}
