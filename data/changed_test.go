package data

import (
	"slices"
	"testing"
)

// The one rule of what a counterfactual changes, exact (the explainer's counterfactuals) and
// with a tolerance (the evaluation's baselines): float32 rounding of x is no change in
// either; a tiny move is a change only exactly; a discrete column counts at any change of
// value, a categorical block once.
func TestChangedColumns(t *testing.T) {
	cols := []Column{
		{Name: "colour", Type: Categorical, Levels: []string{"red", "green", "blue"}, Start: 0, Width: 3},
		{Name: "amount", Type: Integer, Start: 3, Width: 1},
		{Name: "ratio", Type: Continuous, Start: 4, Width: 1},
	}
	x := []float64{1, 0, 0, 0.1, 0.2}
	r32 := func(v float64) float64 { return float64(float32(v)) }
	for _, tc := range []struct {
		name        string
		xc          []float64
		exact, tol3 []int // with ExactChange; with tolerance 1e-3
	}{
		{"x as the explainer sees it", []float64{1, 0, 0, r32(0.1), r32(0.2)}, []int{}, []int{}},
		{"x in float64 is float32 rounding away from it", []float64{1, 0, 0, 0.1, 0.2}, []int{1, 2}, []int{}},
		{"a new category counts once", []float64{0, 1, 0, r32(0.1), r32(0.2)}, []int{0}, []int{0}},
		{"one unit of a wide integer column, below the tolerance", []float64{1, 0, 0, r32(0.1 + 3.5e-4), r32(0.2)}, []int{1}, []int{1}},
		{"a continuous move below the tolerance", []float64{1, 0, 0, r32(0.1), r32(0.2 + 5e-4)}, []int{2}, []int{}},
		{"every column", []float64{0, 0, 1, 1.1, 0.2 + 2e-3}, []int{0, 1, 2}, []int{0, 1, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := ChangedColumns(cols, x, tc.xc, ExactChange); !slices.Equal(got, tc.exact) {
				t.Errorf("exactly: %v, want %v", got, tc.exact)
			}
			if got := ChangedColumns(cols, x, tc.xc, 1e-3); !slices.Equal(got, tc.tol3) {
				t.Errorf("with tolerance 1e-3: %v, want %v", got, tc.tol3)
			}
		})
	}
}
