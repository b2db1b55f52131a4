package data

import "math"

// ExactChange is the tolerance of Column.Changed for the explainer's own counterfactuals:
// an input is changed when its value is not the instance's as the explainer sees it
// (float32) exactly. The explainer's search gives an input it did not move exactly that
// value, and a discrete column that ends at the instance's value the instance's own input,
// so any difference is a move the search made. The outputs of explain and summary (the
// changed columns, the detour marks) and the population statistics use it.
const ExactChange = 0

// Changed reports whether the counterfactual xc changes column c of the instance x (both
// standardised, one entry per model input): the one rule of what a counterfactual changes.
// A categorical column's one-hot block is changed when any of its inputs is.
//
// With tol ExactChange an input is changed when xc's value differs from float32(x).
//
// A tol > 0 is for counterfactuals that are not the explainer's own, such as the baselines'
// that the evaluation measures (its sparsity, eval.Options.SparsityTol, 1e-3 by default):
// AGI's walk moves every input by tiny steps that are no change, and a baseline holds x in
// float64 rather than rounded as the explainer holds it, so the exact rule would count
// columns nobody changed. Then a continuous input is changed when it moved from x by more
// than tol, and a discrete one (binary, integer, ordinal, a category's input) when it moved
// beyond float32 rounding (1e-6 of |x|, at least 1e-6): one unit of a wide integer column,
// such as an amount, is below any useful tol. The two tolerances are kept apart because
// each would change what the other's outputs count as changed.
func (c Column) Changed(x, xc []float64, tol float64) bool {
	for j := c.Start; j < c.Start+c.Width; j++ {
		var changed bool
		switch {
		case tol == ExactChange:
			changed = xc[j] != float64(float32(x[j]))
		case c.Type == Continuous:
			changed = math.Abs(xc[j]-x[j]) > tol
		default:
			changed = math.Abs(xc[j]-x[j]) > 1e-6*max(1, math.Abs(x[j]))
		}
		if changed {
			return true
		}
	}
	return false
}

// ChangedColumns lists, in order, the columns of cols that the counterfactual xc changes
// from x (Column.Changed with tolerance tol).
func ChangedColumns(cols []Column, x, xc []float64, tol float64) []int {
	out := []int{}
	for ci, c := range cols {
		if c.Changed(x, xc, tol) {
			out = append(out, ci)
		}
	}
	return out
}
