package pipeline_test

import (
	"testing"

	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// NeedRecourse keeps, in order, the first n rows the model does not already predict as the
// target class, and counts those it skipped on the way; with too few it keeps all it found.
func TestNeedRecourse(t *testing.T) {
	s := pipelinetest.WBC(t)
	xs := s.Data.Subset(s.TestIdx).X
	probs, err := s.Explainer.Predict(s.XTest)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name      string
		target, n int
	}{{"towards benign", 1, 5}, {"towards malignant", 0, 5}, {"more than there are", 0, len(xs)}} {
		t.Run(tc.name, func(t *testing.T) {
			keep, skipped, err := s.NeedRecourse(xs, tc.target, 0.5, tc.n)
			if err != nil {
				t.Fatal(err)
			}
			var want []int
			wantSkipped := 0
			for i, p := range probs {
				switch {
				case len(want) == tc.n:
				case quce.PredictedClass(p, 0.5) == tc.target:
					wantSkipped++
				default:
					want = append(want, i)
				}
			}
			if len(keep) != len(want) || skipped != wantSkipped {
				t.Fatalf("kept %d rows, skipped %d; want %d and %d", len(keep), skipped, len(want), wantSkipped)
			}
			for k := range keep {
				if keep[k] != want[k] {
					t.Errorf("row %d kept is %d, want %d", k, keep[k], want[k])
				}
			}
		})
	}
}
