package dot_test

import (
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/compute/support/testutil"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

// TestProductWithoutReshape: a product of static shapes is one DotGeneral node of the
// output's shape (not one of the normalized shape with a Reshape after it), with the right
// values, for a matrix product and for one with a batch axis and two cross axes.
func TestProductWithoutReshape(t *testing.T) {
	gb, ok := backend.(*gobackend.Backend)
	if !ok {
		t.Skip("Skipping test because backend is not the Go backend")
	}
	for _, tc := range []struct {
		name                  string
		lhs, rhs              any
		lhsContract, lhsBatch []int
		rhsContract, rhsBatch []int
		wantDims              []int
		want                  any
	}{
		{"matrix", [][]float32{{1, 2, 3}, {4, 5, 6}}, [][]float32{{1, 0}, {0, 1}, {1, 1}},
			[]int{1}, nil, []int{0}, nil, []int{2, 2}, [][]float32{{4, 5}, {10, 11}}},
		{"batch and two rhs cross axes", [][][]float32{{{1, 2}, {3, 4}}}, [][][][]float32{{{{1}, {0}}, {{0}, {1}}}},
			[]int{2}, []int{0}, []int{1}, []int{0}, []int{1, 2, 2, 1}, [][][][]float32{{{{1}, {2}}, {{3}, {4}}}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			builder := gb.Builder("ProductWithoutReshape")
			main := builder.Main()
			_, lhsT := testutil.ToFlatAndShape(tc.lhs)
			_, rhsT := testutil.ToFlatAndShape(tc.rhs)
			lhs, _ := main.Parameter("lhs", lhsT, nil)
			rhs, _ := main.Parameter("rhs", rhsT, nil)
			out, err := main.DotGeneral(lhs, tc.lhsContract, tc.lhsBatch, rhs, tc.rhsContract, tc.rhsBatch, compute.DotGeneralConfig{})
			if err != nil {
				t.Fatal(err)
			}
			node := out.(*gobackend.Node)
			if want := shapes.Make(dtypes.Float32, tc.wantDims...); node.OpType != compute.OpTypeDotGeneral || !node.Shape.Equal(want) {
				t.Errorf("the product is a %s of shape %s; want a DotGeneral of shape %s", node.OpType, node.Shape, want)
			}
			got, err := testutil.Exec1(backend, []any{tc.lhs, tc.rhs}, func(f compute.Function, params []compute.Value) (compute.Value, error) {
				return f.DotGeneral(params[0], tc.lhsContract, tc.lhsBatch, params[1], tc.rhsContract, tc.rhsBatch, compute.DotGeneralConfig{})
			})
			if err != nil {
				t.Fatal(err)
			}
			if ok, diff := testutil.IsEqual(tc.want, got); !ok {
				t.Errorf("Unexpected result (-want +got):\n%s", diff)
			}
		})
	}
}
