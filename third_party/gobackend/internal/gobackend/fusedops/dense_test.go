package fusedops

// fusedDenseAddBias adds the bias row by row; the result must be bit for bit the element-wise i
// % outFeatures form it replaced.

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

func TestDenseAddBiasByRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, dims := range [][]int{{64, 30}, {7, 1}, {3, 4, 5}, {0, 6}, {1, 128}} {
		shape := shapes.Make(dtypes.Float32, dims...)
		outputFlat := make([]float32, shape.Size())
		for i := range outputFlat {
			outputFlat[i] = float32(rng.NormFloat64())
		}
		biasFlat := make([]float32, dims[len(dims)-1])
		for i := range biasFlat {
			biasFlat[i] = float32(rng.NormFloat64())
		}
		want := make([]float32, len(outputFlat))
		for i, v := range outputFlat {
			want[i] = v + biasFlat[i%len(biasFlat)]
		}
		fusedDenseAddBias[float32](&gobackend.Buffer{Flat: outputFlat, RawShape: shape},
			&gobackend.Buffer{Flat: biasFlat, RawShape: shapes.Make(dtypes.Float32, len(biasFlat))})
		for i := range want {
			if math.Float32bits(outputFlat[i]) != math.Float32bits(want[i]) {
				t.Fatalf("%v: element %d: got %v, want %v", dims, i, outputFlat[i], want[i])
			}
		}
	}
}
