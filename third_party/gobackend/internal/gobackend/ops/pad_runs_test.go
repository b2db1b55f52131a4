package ops

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapeinference"
	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

// TestPadLastAxis: padding that lastAxisPadding accepts gives padLastAxis's output the same
// bytes as the general padWithConcreteConfig, for zero and non-zero fill values, float32 and
// int8 elements, ranks 1 to 3 and runs with no start, no end or no operand at all; and
// lastAxisPadding refuses what it must.
func TestPadLastAxis(t *testing.T) {
	b, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	backend := b.(*gobackend.Backend)
	for _, tc := range []struct {
		dtype      dtypes.DType
		dims       []int
		start, end int
		fill       float64
	}{
		{dtypes.Float32, []int{1, 15}, 0, 15, 0},
		{dtypes.Float32, []int{1, 15}, 15, 0, 0},
		{dtypes.Float32, []int{3, 4}, 2, 1, 0},
		{dtypes.Float32, []int{3, 4}, 2, 1, -1.5},
		{dtypes.Float32, []int{5}, 1, 3, 7},
		{dtypes.Float32, []int{2, 3, 4}, 0, 0, 0},
		{dtypes.Float32, []int{2, 0}, 2, 1, 3},
		{dtypes.Float32, []int{0, 3}, 2, 1, 3},
		{dtypes.Int8, []int{3, 5}, 1, 2, -4},
	} {
		t.Run(fmt.Sprintf("%s%v_%d_%d_%g", tc.dtype, tc.dims, tc.start, tc.end, tc.fill), func(t *testing.T) {
			operandShape := shapes.Make(tc.dtype, tc.dims...)
			operand, err := backend.GetBuffer(operandShape)
			if err != nil {
				t.Fatal(err)
			}
			operandBytes, _ := operand.MutableBytes()
			for i := range operandBytes {
				operandBytes[i] = byte(3*i + 1)
			}
			fill, err := backend.GetBuffer(shapes.Make(tc.dtype))
			if err != nil {
				t.Fatal(err)
			}
			fill.Fill(shapes.CastAsDType(tc.fill, tc.dtype))
			config := make([]compute.PadAxis, len(tc.dims))
			config[len(config)-1] = compute.PadAxis{Start: tc.start, End: tc.end}
			if !lastAxisPadding(len(tc.dims), config) {
				t.Fatalf("lastAxisPadding refused %v", config)
			}
			outShape, err := shapeinference.Pad(operandShape, config...)
			if err != nil {
				t.Fatal(err)
			}
			got, err := padLastAxis(backend, &gobackend.Node{Shape: outShape}, operand, fill, config[len(config)-1], nil)
			if err != nil {
				t.Fatal(err)
			}
			want, err := padWithConcreteConfig(backend, operand, fill, config)
			if err != nil {
				t.Fatal(err)
			}
			gotBytes, _ := got.MutableBytes()
			wantBytes, _ := want.MutableBytes()
			if !got.RawShape.Equal(want.RawShape) || !bytes.Equal(gotBytes, wantBytes) {
				t.Errorf("got %s %v, want %s %v", got.RawShape, gotBytes, want.RawShape, wantBytes)
			}
		})
	}
	for _, config := range [][]compute.PadAxis{
		{{Start: 1}, {}},              // another axis padded
		{{}, {Start: 1, Interior: 1}}, // padding between elements
		{{}, {Start: -1}},             // cropping
		{{Start: 1}},                  // fewer axes than the rank
	} {
		if lastAxisPadding(2, config) {
			t.Errorf("lastAxisPadding accepted %v for rank 2", config)
		}
	}
}
