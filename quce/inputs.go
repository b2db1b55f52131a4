package quce

import (
	"fmt"
	"math"
	"slices"

	"github.com/quce-go/quce/data"
)

// inputs are the models' inputs as the data has them: their names, how they group into the
// data's columns (see Settings.Columns) and the scaler between standardised and original
// units. What depends only on them is theirs: a query's box (this file), the constraints
// (columns.go), the legal rows and the outputs in the data's units (project.go). A call
// takes them from the Explainer as a value (Explainer.inputs).
type inputs struct {
	features []string
	cols     []data.Column
	scaler   *data.Scaler
	seen     *data.Combinations // Settings.SeenCategories
}

// unseenPairs counts the pairs of category values of the point x (standardised) in r's box
// that no training row holds, among those with a value changed from the instance (see
// data.Combinations.Unseen); 0 without Settings.SeenCategories.
func (in inputs) unseenPairs(r *row, x []float32) int {
	if in.seen == nil {
		return 0
	}
	return in.seen.UnseenPairs(in.dataUnits(r.box(), x), r.x0orig)
}

// queryBox is what constrains a query's search: its instance, which inputs may move, and
// the box they move in. The search sees the box in standardised float32 (lo, hi), rounded
// inwards so that no point inside it crosses a bound in the data's units; olo and ohi are
// the box in the data's units, exact, which the projection and every output use.
type queryBox struct {
	x0, lo, hi, move []float32
	x0orig, olo, ohi []float64
	zlo, zhi         []float64 // olo and ohi standardised in float64 (see near)
}

// box checks query qi's instance, frozen flags and bounds and returns its box.
func (in inputs) box(qi int, q Query) (queryBox, error) {
	j := len(in.features)
	if len(q.X) != j {
		return queryBox{}, fmt.Errorf("quce: instance %d has %d features, the models have %d; fix: pass rows with the models' columns", qi, len(q.X), j)
	}
	if q.Frozen != nil && len(q.Frozen) != j {
		return queryBox{}, fmt.Errorf("quce: instance %d: %d frozen flags for %d features", qi, len(q.Frozen), j)
	}
	orig, err := in.original(qi, q)
	if err != nil {
		return queryBox{}, err
	}
	move := make([]float32, j)
	free := 0
	for f := range move {
		if q.Frozen == nil || !q.Frozen[f] {
			move[f] = 1
			free++
		}
	}
	if free == 0 {
		return queryBox{}, fmt.Errorf("quce: instance %d: every feature is frozen, so nothing can change; fix: leave at least one feature free", qi)
	}
	b := queryBox{x0: toF32(q.X), x0orig: orig, move: move}
	if err := in.bounds(qi, q, &b); err != nil {
		return queryBox{}, err
	}
	return b, nil
}

// original is query qi's instance in the data's units: q.Original, checked against q.X,
// or q.X through the scaler.
func (in inputs) original(qi int, q Query) ([]float64, error) {
	if q.Original == nil {
		return in.scaler.InverseRow(q.X), nil
	}
	if len(q.Original) != len(q.X) {
		return nil, fmt.Errorf("quce: instance %d has %d original values for %d features; fix: pass the row as read, one value per model input", qi, len(q.Original), len(q.X))
	}
	for f, v := range q.Original {
		z := (v - in.scaler.Mean[f]) / in.scaler.Std[f]
		if !(math.Abs(z-q.X[f]) <= 1e-6*max(1, math.Abs(z))) {
			return nil, fmt.Errorf("quce: instance %d, feature %q: the original value %v standardises to %v, but X holds %v; fix: set X to the scaler's TransformRow of Original", qi, in.features[f], v, z, q.X[f])
		}
	}
	return slices.Clone(q.Original), nil
}

// bounds fills b's box from the query's bounds and the observed range, checking them.
func (in inputs) bounds(qi int, q Query, b *queryBox) error {
	j := len(in.features)
	for _, bd := range [][]float64{q.Lower, q.Upper} {
		if bd != nil && len(bd) != j {
			return fmt.Errorf("quce: instance %d: %d bounds for %d features", qi, len(bd), j)
		}
	}
	b.lo, b.hi = make([]float32, j), make([]float32, j)
	b.olo, b.ohi = make([]float64, j), make([]float64, j)
	b.zlo, b.zhi = make([]float64, j), make([]float64, j)
	for f := 0; f < j; f++ {
		x := b.x0orig[f]
		l, u := math.NaN(), math.NaN()
		if q.Lower != nil {
			l = q.Lower[f]
		}
		if q.Upper != nil {
			u = q.Upper[f]
		}
		if l > u {
			return fmt.Errorf("quce: instance %d, feature %q: lower bound %v > upper bound %v; fix: swap or correct them", qi, in.features[f], l, u)
		}
		// A small tolerance: without Query.Original the instance went through the scaler
		// and back. Within it, the bound is taken to be the instance's own value.
		tol := 1e-6 * max(1, math.Abs(x))
		if x < l-tol || x > u+tol {
			return fmt.Errorf("quce: instance %d, feature %q: value %v lies outside its bounds [%v, %v]; fix: widen the bounds (Constraints.Bounds) to include the instance", qi, in.features[f], x, l, u)
		}
		dl, du := in.observedRange(f, x)
		if math.IsNaN(l) {
			l = dl
		}
		if math.IsNaN(u) {
			u = du
		}
		b.olo[f], b.ohi[f] = min(l, x), max(u, x)
		b.zlo[f], b.zhi[f] = in.standardisedExact(f, b.olo[f]), in.standardisedExact(f, b.ohi[f])
		b.lo[f], b.hi[f] = in.inward(f, b.olo[f], b.ohi[f])
		// The instance is inside the box as the search sees it, whatever the rounding:
		// its float32 value stands for its exact one (see dataUnits).
		b.lo[f], b.hi[f] = min(b.lo[f], b.x0[f]), max(b.hi[f], b.x0[f])
	}
	return nil
}

// observedRange is input f's default box in the data's units: the observed range of the
// rows the scaler was fitted on (the training split), widened to the instance's value x (a
// new instance may lie outside it); open without the scaler's range.
func (in inputs) observedRange(f int, x float64) (lo, hi float64) {
	if in.scaler.Min == nil || in.scaler.Max == nil {
		return math.Inf(-1), math.Inf(1)
	}
	return min(in.scaler.Min[f], x), max(in.scaler.Max[f], x)
}

// inward is the box [l, u] of input f (data units) in standardised float32, each end
// rounded inwards: the float32 bound's value in the data's units (see toData) never lies
// outside [l, u], so no point the search clamps into the box crosses a bound.
func (in inputs) inward(f int, l, u float64) (lo, hi float32) {
	lo, hi = float32((l-in.scaler.Mean[f])/in.scaler.Std[f]), float32((u-in.scaler.Mean[f])/in.scaler.Std[f])
	for !math.IsInf(float64(lo), 0) && in.toData(f, lo) < l {
		lo = math.Nextafter32(lo, float32(math.Inf(1)))
	}
	for !math.IsInf(float64(hi), 0) && in.toData(f, hi) > u {
		hi = math.Nextafter32(hi, float32(math.Inf(-1)))
	}
	if math.IsInf(float64(lo), -1) && !math.IsInf(l, -1) {
		lo = -math.MaxFloat32 // a finite bound beyond float32's range
	}
	if math.IsInf(float64(hi), 1) && !math.IsInf(u, 1) {
		hi = math.MaxFloat32
	}
	return lo, hi
}

// queryBounds is Explainer.Box.
func (in inputs) queryBounds(q Query) (Bounds, error) {
	b, err := in.box(0, q)
	if err != nil {
		return Bounds{}, err
	}
	move := make([]bool, len(b.move))
	for f, m := range b.move {
		move[f] = m == 1
	}
	return Bounds{Move: move, Lower: slices.Clone(b.olo), Upper: slices.Clone(b.ohi),
		LowerStd: toF64(b.lo), UpperStd: toF64(b.hi), Original: slices.Clone(b.x0orig)}, nil
}

// legalRow is Explainer.Legalize.
func (in inputs) legalRow(q Query, pt []float64) ([]float64, error) {
	if !in.hasDiscrete() {
		return pt, nil
	}
	b, err := in.box(0, q)
	if err != nil {
		return nil, err
	}
	if len(pt) != len(in.features) {
		return nil, fmt.Errorf("quce: the point has %d values, the models %d inputs", len(pt), len(in.features))
	}
	return toF64(in.legalize(&b, toF32(pt))), nil
}

// pointInDataUnits is Explainer.DataUnits.
func (in inputs) pointInDataUnits(q Query, pt []float64) ([]float64, error) {
	b, err := in.box(0, q)
	if err != nil {
		return nil, err
	}
	if len(pt) != len(in.features) {
		return nil, fmt.Errorf("quce: the point has %d values, the models %d inputs", len(pt), len(in.features))
	}
	return in.dataUnits(&b, toF32(pt)), nil
}
