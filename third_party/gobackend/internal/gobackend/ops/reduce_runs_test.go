package ops

// execReduceSumGeneric takes a run of the last axis at a time; every output element must get
// the same additions in the same order, bit for bit.

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

func TestReduceSumByRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	for _, tc := range []struct{ dims, axes []int }{
		{[]int{}, []int{}},
		{[]int{9}, []int{0}},
		{[]int{64, 30}, []int{0}},
		{[]int{64, 30}, []int{1}},
		{[]int{64, 30}, []int{0, 1}},
		{[]int{2, 227, 30}, []int{1}},
		{[]int{3, 4, 5, 6}, []int{0, 2}},
		{[]int{3, 4, 5, 6}, []int{1, 3}},
		{[]int{3, 0, 5}, []int{1}},
		{[]int{1, 7, 1}, []int{2}},
	} {
		t.Run(fmt.Sprint(tc.dims, tc.axes), func(t *testing.T) {
			operandShape := shapes.Make(dtypes.Float32, tc.dims...)
			operandFlat := make([]float32, operandShape.Size())
			for i := range operandFlat {
				operandFlat[i] = float32(rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3)))
			}
			var outputDims []int
			for axis, dim := range tc.dims {
				if !slices.Contains(tc.axes, axis) {
					outputDims = append(outputDims, dim)
				}
			}
			outputShape := shapes.Make(dtypes.Float32, outputDims...)
			// One element at a time.
			want := make([]float32, outputShape.Size())
			it := NewReduceOutputIterator(tc.dims, tc.axes)
			for _, value := range operandFlat {
				want[it.Next()] += value
			}
			output := &gobackend.Buffer{Flat: make([]float32, outputShape.Size()), RawShape: outputShape}
			for i := range output.Flat.([]float32) {
				output.Flat.([]float32)[i] = 99 // the reduction must start from zero
			}
			err := execReduceSumGeneric[float32](&gobackend.Buffer{Flat: operandFlat, RawShape: operandShape}, output,
				NewReduceOutputIterator(tc.dims, tc.axes), dtypes.Float32)
			if err != nil {
				t.Fatal(err)
			}
			for i, got := range output.Flat.([]float32) {
				if math.Float32bits(got) != math.Float32bits(want[i]) {
					t.Fatalf("output %d: got %v, want %v", i, got, want[i])
				}
			}
		})
	}
}

// ReduceMax, ReduceMin, ReduceLogicalAnd and ReduceLogicalOr take a run of the last axis at a
// time too; every output element must be combined with the same values in the same order.
func TestReductionsByRuns(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	special := []float32{float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1)), 0, float32(math.Copysign(0, -1))}
	for _, tc := range []struct{ dims, axes []int }{
		{[]int{9}, []int{0}},
		{[]int{64, 30}, []int{0}},
		{[]int{64, 30}, []int{1}},
		{[]int{64, 30}, []int{0, 1}},
		{[]int{3, 4, 5, 6}, []int{0, 2}},
		{[]int{3, 4, 5, 6}, []int{1, 3}},
		{[]int{3, 0, 5}, []int{1}},
	} {
		t.Run(fmt.Sprint(tc.dims, tc.axes), func(t *testing.T) {
			operandShape := shapes.Make(dtypes.Float32, tc.dims...)
			floats, bools := make([]float32, operandShape.Size()), make([]bool, operandShape.Size())
			for i := range floats {
				floats[i] = float32(rng.NormFloat64())
				if rng.IntN(10) == 0 {
					floats[i] = special[rng.IntN(len(special))]
				}
				bools[i] = rng.IntN(4) == 0
			}
			var outputDims []int
			for axis, dim := range tc.dims {
				if !slices.Contains(tc.axes, axis) {
					outputDims = append(outputDims, dim)
				}
			}
			outputSize := shapes.Make(dtypes.Float32, outputDims...).Size()
			oneByOne := func(init float32, combine func(a, b float32) float32) []float32 {
				out := make([]float32, outputSize)
				for i := range out {
					out[i] = init
				}
				it := NewReduceOutputIterator(tc.dims, tc.axes)
				for _, value := range floats {
					idx := it.Next()
					out[idx] = combine(out[idx], value)
				}
				return out
			}
			for _, f := range []struct {
				name string
				exec func(operand, output *gobackend.Buffer, it *ReduceOutputIterator, dtype dtypes.DType) error
				want []float32
			}{
				{"max", execReduceMaxGeneric[float32], oneByOne(float32(math.Inf(-1)), func(a, b float32) float32 { return max(a, b) })},
				{"min", execReduceMinGeneric[float32], oneByOne(float32(math.Inf(1)), func(a, b float32) float32 { return min(a, b) })},
			} {
				output := &gobackend.Buffer{Flat: make([]float32, outputSize)}
				if err := f.exec(&gobackend.Buffer{Flat: floats}, output, NewReduceOutputIterator(tc.dims, tc.axes), dtypes.Float32); err != nil {
					t.Fatal(err)
				}
				for i, got := range output.Flat.([]float32) {
					if math.Float32bits(got) != math.Float32bits(f.want[i]) {
						t.Fatalf("%s: output %d: got %v, want %v", f.name, i, got, f.want[i])
					}
				}
			}
			for _, f := range []struct {
				name    string
				exec    func(operand, output *gobackend.Buffer, it *ReduceOutputIterator, dtype dtypes.DType) error
				init    bool
				combine func(a, b bool) bool
			}{
				{"and", execReduceLogicalAnd, true, func(a, b bool) bool { return a && b }},
				{"or", execReduceLogicalOr, false, func(a, b bool) bool { return a || b }},
			} {
				want := make([]bool, outputSize)
				for i := range want {
					want[i] = f.init
				}
				it := NewReduceOutputIterator(tc.dims, tc.axes)
				for _, value := range bools {
					idx := it.Next()
					want[idx] = f.combine(want[idx], value)
				}
				output := &gobackend.Buffer{Flat: make([]bool, outputSize)}
				if err := f.exec(&gobackend.Buffer{Flat: bools}, output, NewReduceOutputIterator(tc.dims, tc.axes), dtypes.Bool); err != nil {
					t.Fatal(err)
				}
				if got := output.Flat.([]bool); !slices.Equal(got, want) {
					t.Fatalf("%s: got %v, want %v", f.name, got, want)
				}
			}
		})
	}
}

// ArgMax and ArgMin over the last axis keep the best in local variables; they must pick the
// indices the general loop picks (here on the transposed operand, where the reduced axis is
// the first): the first best, or the last NaN.
func TestArgMinMaxLastAxis(t *testing.T) {
	anyBackend, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	backend := anyBackend.(*gobackend.Backend)
	rng := rand.New(rand.NewPCG(11, 12))
	const rows, cols = 40, 7
	values := []float32{-1, 0, 1, 2, float32(math.NaN()), float32(math.Inf(1)), float32(math.Inf(-1))}
	flat, transposed := make([]float32, rows*cols), make([]float32, rows*cols)
	for r := range rows {
		for c := range cols {
			v := values[rng.IntN(4)] // ties, so that the first best shows
			if r%5 == 0 {
				v = values[rng.IntN(len(values))]
			}
			flat[r*cols+c], transposed[c*rows+r] = v, v
		}
	}
	for _, isMin := range []bool{false, true} {
		run := func(operand []float32, prefix, reduce, suffix int) []int32 {
			out := make([]int32, prefix*suffix)
			copyInts := func(flatIdx int, values []int32) { copy(out[flatIdx:], values) }
			execArgMinMaxGeneric[float32](backend, &gobackend.Buffer{Flat: operand, RawShape: shapes.Make(dtypes.Float32, len(operand))}, copyInts, prefix, reduce, suffix, isMin)
			return out
		}
		got, want := run(flat, rows, cols, 1), run(transposed, 1, cols, rows)
		if !slices.Equal(got, want) {
			t.Errorf("isMin=%v: got %v\nwant %v", isMin, got, want)
		}
	}
}

// TestReduceSumLastAxis: a sum over the last axis alone taken by reduceSumLastAxis has the
// bits of execReduceSumGeneric's (with the reduce iterator), float32 and float64.
func TestReduceSumLastAxis(t *testing.T) {
	rng := rand.New(rand.NewPCG(9, 10))
	for _, dims := range [][]int{{9}, {1, 30}, {64, 30}, {2, 227, 30}, {3, 1}, {5, 0}, {0, 4}} {
		t.Run(fmt.Sprint(dims), func(t *testing.T) {
			operandShape := shapes.Make(dtypes.Float64, dims...)
			values := make([]float64, operandShape.Size())
			for i := range values {
				values[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
			}
			outputShape := shapes.Make(dtypes.Float64, dims[:len(dims)-1]...)
			reduced := []int{len(dims) - 1}
			checkReduceSumLastAxis(t, values, dims, outputShape.Size(), reduced)
			f32 := make([]float32, len(values))
			for i, v := range values {
				f32[i] = float32(v)
			}
			checkReduceSumLastAxis(t, f32, dims, outputShape.Size(), reduced)
		})
	}
}

func checkReduceSumLastAxis[T float32 | float64](t *testing.T, values []T, dims []int, outputSize int, reduced []int) {
	t.Helper()
	dtype := dtypes.FromGenericsType[T]()
	operand := &gobackend.Buffer{RawShape: shapes.Make(dtype, dims...), Flat: values}
	want := &gobackend.Buffer{RawShape: shapes.Make(dtype, dims[:len(dims)-1]...), Flat: make([]T, outputSize)}
	if err := execReduceSumGeneric[T](operand, want, NewReduceOutputIterator(dims, reduced), dtype); err != nil {
		t.Fatal(err)
	}
	got := make([]T, outputSize)
	for i := range got {
		got[i] = 17 // overwritten
	}
	reduceSumLastAxis(values, got, dims[len(dims)-1])
	for i := range got {
		if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want.Flat.([]T)[i])) {
			t.Fatalf("%s: output %d is %v, want %v", dtype, i, got[i], want.Flat.([]T)[i])
		}
	}
}

func TestReduceSumFirstAxis(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	for _, dims := range [][]int{{2, 1, 30}, {9, 30}, {1, 5}, {5, 2, 3}, {4, 0}, {0, 4}, {3}} {
		for _, zeros := range []bool{false, true} {
			t.Run(fmt.Sprint(dims, zeros), func(t *testing.T) {
				operandShape := shapes.Make(dtypes.Float64, dims...)
				values := make([]float64, operandShape.Size())
				for i := range values {
					values[i] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(7)-3))
					if zeros { // −0 sums to +0 from the initial 0, as in the general path
						values[i] = math.Copysign(0, -1)
					}
				}
				checkReduceSumFirstAxis(t, values, dims)
				f32 := make([]float32, len(values))
				for i, v := range values {
					f32[i] = float32(v)
				}
				checkReduceSumFirstAxis(t, f32, dims)
			})
		}
	}
}

func checkReduceSumFirstAxis[T float32 | float64](t *testing.T, values []T, dims []int) {
	t.Helper()
	dtype := dtypes.FromGenericsType[T]()
	outputShape := shapes.Make(dtype, dims[1:]...)
	operand := &gobackend.Buffer{RawShape: shapes.Make(dtype, dims...), Flat: values}
	want := &gobackend.Buffer{RawShape: outputShape, Flat: make([]T, outputShape.Size())}
	if err := execReduceSumGeneric[T](operand, want, NewReduceOutputIterator(dims, []int{0}), dtype); err != nil {
		t.Fatal(err)
	}
	got := make([]T, outputShape.Size())
	for i := range got {
		got[i] = 17 // overwritten
	}
	reduceSumFirstAxis(values, got)
	for i := range got {
		if math.Float64bits(float64(got[i])) != math.Float64bits(float64(want.Flat.([]T)[i])) {
			t.Fatalf("%s: output %d is %v, want %v", dtype, i, got[i], want.Flat.([]T)[i])
		}
	}
}
