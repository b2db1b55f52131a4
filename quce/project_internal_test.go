package quce

import (
	"math"
	"slices"
	"testing"

	"github.com/quce-go/quce/data"
)

// A repair moves an integer column by at least a tenth of its standard deviation (and by
// about a quarter of it): a change below that (an income of 6725 → 6727) means nothing to
// the person and is not offered.
func TestRepairMovesSkipNoiseLevelChanges(t *testing.T) {
	for _, tc := range []struct {
		std  float64
		want []float64 // the changes offered, in the data's units
	}{
		{0.8, []float64{-1, 1}},
		{2, []float64{-1, 1}},
		{12, []float64{-1, 1, -3, 3}},
		{20, []float64{-2, 2, -5, 5}},
		{3000, []float64{-300, 300, -750, 750}},
	} {
		const v0 = 6725.0
		in := inputs{cols: []data.Column{{Name: "income", Type: data.Integer, Start: 0, Width: 1}},
			scaler: &data.Scaler{Mean: []float64{v0}, Std: []float64{tc.std}}}
		x := []float32{0}
		r := &row{queryBox: queryBox{x0: x, move: []float32{1}, x0orig: []float64{v0},
			olo: []float64{math.Inf(-1)}, ohi: []float64{math.Inf(1)}}}
		var got []float64
		for _, m := range in.moves(r, x) {
			got = append(got, math.Round(in.toData(0, m.point[0])-v0))
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("σ = %g: moves change the column by %v, want %v", tc.std, got, tc.want)
		}
	}
}
