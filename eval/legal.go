package eval

import (
	"math"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
)

// The baselines that eval runs itself (AGI, DiCE-random) must honour the constraints and
// the legal values in the same terms as the explainer's search does, or the comparison would
// favour whichever method may break them (see the package documentation).

// box is one instance's room to move, per model input, as the explainer's search has it
// (quce.Explainer.Box): the user's bounds where set, else the observed range of the training
// split, widened to the instance's value (a new instance may lie outside the data).
type box struct {
	x, orig  []float64 // the instance, standardised and in original units
	move     []bool    // false where the input is frozen
	lo, hi   []float64 // original units, exact, ±Inf where open
	slo, shi []float64 // standardised, as the search clamps (float32 values)
}

// newBox is the box of the query q (see Explainer.Constrain), as the explainer's search has
// it (Explainer.Box).
func newBox(e *quce.Explainer, q quce.Query) (box, error) {
	b, err := e.Box(q)
	if err != nil {
		return box{}, err
	}
	return box{x: q.X, orig: b.Original, move: b.Move, lo: b.Lower, hi: b.Upper, slo: b.LowerStd, shi: b.UpperStd}, nil
}

// inputColumns is one continuous column per input, as the explainer has for numeric data.
func inputColumns(j int) []data.Column {
	cols := make([]data.Column, j)
	for f := range cols {
		cols[f] = data.Column{Type: data.Continuous, Start: f, Width: 1}
	}
	return cols
}

// openBox is the box of an unconstrained instance x of numeric data: every input free and
// open. It has no original units, which only discrete columns need.
func openBox(x []float64) box {
	b := box{x: x, move: make([]bool, len(x)), slo: make([]float64, len(x)), shi: make([]float64, len(x))}
	for f := range x {
		b.move[f], b.slo[f], b.shi[f] = true, math.Inf(-1), math.Inf(1)
	}
	return b
}

// standardised is input f's value v (original units) as the models see it. The instance's
// own value maps to exactly its input, so a column set back to it counts as unchanged.
func (b box) standardised(sc *data.Scaler, f int, v float64) float64 {
	if sameValue(v, b.orig[f]) {
		return b.x[f]
	}
	return (v - sc.Mean[f]) / sc.Std[f]
}

// setCategory sets the categorical column c of the standardised row x to its level k. One-hot
// inputs are not standardised (Dataset.FitScaler keeps them 0/1), so the level is written as
// it is.
func setCategory(x []float64, c data.Column, k int) {
	clear(x[c.Start : c.Start+c.Width])
	x[c.Start+k] = 1
}

// categories are the levels of the categorical column c that the box's upper bounds hi
// (one-hot inputs, 0 or 1) allow: those seen in the training split, and the instance's.
func categories(c data.Column, hi []float64) []int {
	var out []int
	for k := 0; k < c.Width; k++ {
		if hi[c.Start+k] >= 1 {
			out = append(out, k)
		}
	}
	return out
}

// binaryValues are a binary column's two values (encoded units) that lie inside [lo, hi]:
// at least the instance's own, which the box holds.
func binaryValues(c data.Column, lo, hi float64) []float64 {
	var out []float64
	for _, v := range []float64{c.Min, c.Max} {
		if v >= lo-tolerance(lo) && v <= hi+tolerance(hi) {
			out = append(out, v)
		}
	}
	return out
}

// intRange is the first and last integer inside [lo, hi]; the tolerance absorbs an
// instance's value that went through the scaler and back (an increase-only age of 35 may
// come back as 34.9999999).
func intRange(lo, hi float64) (first, last float64) {
	return math.Ceil(lo - tolerance(lo)), math.Floor(hi + tolerance(hi))
}

func tolerance(v float64) float64 { return 1e-6 * max(1, math.Abs(v)) }

// sameValue reports whether a and b are one value up to a trip through the scaler.
func sameValue(a, b float64) bool { return math.Abs(a-b) <= tolerance(a) }
