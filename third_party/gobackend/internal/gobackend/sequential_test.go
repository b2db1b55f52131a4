package gobackend_test

import (
	"math"
	"slices"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

// TestSequentialMatchesParallel runs a graph whose values are used in the ways the executor
// tracks (an operand taken in place at its last use, one read twice by the same operation,
// one that is also an output, a donated parameter, a constant) with sequential and with
// parallel ops: the same outputs, and the donated input consumed alike.
func TestSequentialMatchesParallel(t *testing.T) {
	shape := shapes.Make(dtypes.Float32, 2, 3)
	run := func(config string) [][]float32 {
		backend, err := gobackend.New(config)
		if err != nil {
			t.Fatal(err)
		}
		defer backend.Finalize()
		builder := backend.Builder("sequential")
		main := builder.Main()
		x, _ := main.Parameter("x", shape, nil)
		y, _ := main.Parameter("y", shape, nil)
		sq, _ := main.Mul(x, x)     // x read twice by one operation
		sum, _ := main.Add(sq, y)   // y not donated, sq read again below: neither taken
		neg, _ := main.Neg(sum)     // sum is also an output: not taken
		prod, _ := main.Mul(neg, x) // the last use of neg and of x (donated): taken in place
		half, _ := main.Constant([]float32{0.5})
		scaled, _ := main.Mul(prod, half) // a constant, never taken in place
		out, _ := main.Sub(scaled, sq)    // the last use of scaled and of sq
		if err := main.Return([]compute.Value{out, sum}, nil); err != nil {
			t.Fatal(err)
		}
		exec, err := builder.Compile()
		if err != nil {
			t.Fatal(err)
		}
		xBuf, _ := backend.BufferFromFlatData(0, []float32{1, -2, 3, 0.5, -0.25, 4}, shape)
		yBuf, _ := backend.BufferFromFlatData(0, []float32{10, 20, 30, 40, 50, 60}, shape)
		outputs, err := exec.Execute([]compute.Buffer{xBuf, yBuf}, []bool{true, false}, 0)
		if err != nil {
			t.Fatalf("%s: %+v", config, err)
		}
		var got [][]float32
		for _, o := range outputs {
			got = append(got, slices.Clone(o.(*gobackend.Buffer).Flat.([]float32)))
		}
		return got
	}
	seq, par := run("ops_sequential"), run("ops_parallel")
	for i := range seq {
		if !slices.Equal(seq[i], par[i]) {
			t.Errorf("output %d: sequential %v, parallel %v", i, seq[i], par[i])
		}
	}
	want := []float32{-(1+10)*1*0.5 - 1, -(4+20)*-2*0.5 - 4, -(9+30)*3*0.5 - 9, -(0.25+40)*0.5*0.5 - 0.25, -(0.0625+50)*-0.25*0.5 - 0.0625, -(16+60)*4*0.5 - 16}
	if !slices.Equal(seq[0], want) {
		t.Errorf("output 0: got %v, want %v", seq[0], want)
	}
}

// TestSequentialPlanAroundWhile runs a graph whose values are read by plain operations
// before and after a While (which a sequential execution runs through executeNode, with the
// use counts the plan gives it): the While must not take or free what the operations after
// it read, and the plan must give the same results at every execution.
func TestSequentialPlanAroundWhile(t *testing.T) {
	scalar := shapes.Make(dtypes.Float32)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%+v", err)
		}
	}
	for _, config := range []string{"ops_sequential", "ops_parallel"} {
		backend, err := gobackend.New(config)
		must(err)
		builder := backend.Builder("plan")
		main := builder.Main()
		closure := func(body bool) compute.Function {
			fn, err := main.Closure()
			must(err)
			counter, err := fn.Parameter("counter", scalar, nil)
			must(err)
			step, err := fn.Parameter("step", scalar, nil)
			must(err)
			if !body {
				limit, err := fn.Constant([]float32{-5})
				must(err)
				more, err := fn.LessThan(limit, counter)
				must(err)
				must(fn.Return([]compute.Value{more}, nil))
				return fn
			}
			next, err := fn.Add(counter, step)
			must(err)
			must(fn.Return([]compute.Value{next, step}, nil))
			return fn
		}
		cond, body := closure(false), closure(true)
		x, err := main.Parameter("x", scalar, nil)
		must(err)
		a, err := main.Neg(x) // x's first use, by a plain operation
		must(err)
		results, err := main.While(cond, body, a, x) // a's first use, x's second
		must(err)
		diff, err := main.Sub(a, x) // the last uses of a and of x (donated)
		must(err)
		out, err := main.Mul(diff, results[0])
		must(err)
		must(main.Return([]compute.Value{out}, nil))
		exec, err := builder.Compile()
		must(err)
		for run := range 3 {
			input, err := backend.BufferFromFlatData(0, []float32{-2}, scalar)
			must(err)
			outputs, err := exec.Execute([]compute.Buffer{input}, []bool{true}, 0)
			if err != nil {
				t.Fatalf("%s, run %d: %+v", config, run, err)
			}
			// a = 2; the loop: 2, 0, -2, -4, -6; (a − x)·(−6) = 4·(−6).
			if got := outputs[0].(*gobackend.Buffer).Flat.([]float32)[0]; got != -24 {
				t.Errorf("%s, run %d: got %v, want -24", config, run, got)
			}
		}
		backend.Finalize()
	}
}

// TestSequentialPlannedOutputs runs a graph of small operations whose outputs a sequential
// execution plans in slots (see gobackend.PlannedNodeExecutor): values of one shape with
// lives that overlap and that do not, one read twice by an operation, one read by a While,
// one reshaped into a function output and one that is an output itself (not planned). Three
// executions of one compilation with different inputs give what the parallel mode (which
// plans nothing) and the arithmetic give: a slot rewritten at every execution, never shared
// by two live values, never handed out as an output.
func TestSequentialPlannedOutputs(t *testing.T) {
	needFusibleAdd(t)
	shape, scalar := shapes.Make(dtypes.Float32, 2, 3), shapes.Make(dtypes.Int32)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%+v", err)
		}
	}
	run := func(config string, xs [][]float32) (got [][][]float32, planned, slots int) {
		backend, err := gobackend.New(config)
		must(err)
		defer backend.Finalize()
		builder := backend.Builder("planned")
		main := builder.Main()
		closure := func(body bool) compute.Function {
			fn, err := main.Closure()
			must(err)
			counter, err := fn.Parameter("counter", scalar, nil)
			must(err)
			v, err := fn.Parameter("v", shape, nil)
			must(err)
			if !body {
				limit, err := fn.Constant([]int32{3})
				must(err)
				more, err := fn.LessThan(counter, limit)
				must(err)
				must(fn.Return([]compute.Value{more}, nil))
				return fn
			}
			one, err := fn.Constant([]int32{1})
			must(err)
			next, err := fn.Add(counter, one)
			must(err)
			twice, err := fn.Add(v, v)
			must(err)
			must(fn.Return([]compute.Value{next, twice}, nil))
			return fn
		}
		cond, body := closure(false), closure(true)
		x, err := main.Parameter("x", shape, nil)
		must(err)
		y, err := main.Parameter("y", shape, nil)
		must(err)
		a, _ := main.Add(x, y)
		b, _ := main.Mul(a, a) // a read twice by one operation
		c, _ := main.Sub(b, y) // an output: not planned
		d, _ := main.Neg(c)
		e, _ := main.Mul(d, a) // a's last read, while d lives on
		f, _ := main.Reshape(e, 3, 2)
		g, _ := main.Add(d, x)
		zero, _ := main.Constant([]int32{0})
		w, err := main.While(cond, body, zero, g) // g read by a While
		must(err)
		h, _ := main.Sub(w[1], y)
		must(main.Return([]compute.Value{f, h, c}, nil))
		exec, err := builder.Compile()
		must(err)
		planned, slots = gobackend.PlannedOutputs(exec)
		yBuf, err := backend.BufferFromFlatData(0, []float32{10, 20, 30, 40, 50, 60}, shape)
		must(err)
		for _, xv := range xs {
			xBuf, err := backend.BufferFromFlatData(0, xv, shape)
			must(err)
			outputs, err := exec.Execute([]compute.Buffer{xBuf, yBuf}, []bool{true, false}, 0)
			if err != nil {
				t.Fatalf("%s: %+v", config, err)
			}
			var run [][]float32
			for _, o := range outputs {
				run = append(run, slices.Clone(o.(*gobackend.Buffer).Flat.([]float32)))
			}
			got = append(got, run)
		}
		return got, planned, slots
	}
	xs := [][]float32{{1, 2, 3, 4, 5, 6}, {-1, 0.5, 2, -3, 7, 0}, {0, 0, 0, 1, 1, 1}}
	seq, planned, slots := run("ops_sequential", xs)
	par, _, _ := run("ops_parallel", xs)
	if planned < 4 || slots < 2 || slots >= planned {
		t.Errorf("%d outputs planned in %d slots; want a, b, d, e and g planned, sharing slots", planned, slots)
	}
	y := []float32{10, 20, 30, 40, 50, 60}
	for r, xv := range xs {
		var f, h, c []float32
		for i := range xv {
			a := xv[i] + y[i]
			ci := a*a - y[i]
			d := -ci
			f = append(f, d*a)
			w := d + xv[i]
			for range 3 {
				w += w
			}
			h = append(h, w-y[i])
			c = append(c, ci)
		}
		for i, want := range [][]float32{f, h, c} {
			if !slices.Equal(seq[r][i], want) || !slices.Equal(par[r][i], want) {
				t.Errorf("execution %d, output %d: sequential %v, parallel %v, want %v", r, i, seq[r][i], par[r][i], want)
			}
		}
	}
}

// TestSequentialFusedOperations runs a graph of float32 elementwise operations that a
// sequential execution fuses (see gobackend.FusedKernel): a chain with an operation reading a
// value twice, an input read by two operations, scalar operands on either side of commutative
// and non-commutative operations, NaNs, a value read by a reduction (left unfused) and one
// that is a function output (also left unfused). Three executions of one compilation give
// the bits the parallel mode (which fuses nothing) gives.
func TestSequentialFusedOperations(t *testing.T) {
	needFusibleAdd(t)
	shape := shapes.Make(dtypes.Float32, 2, 3)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%+v", err)
		}
	}
	run := func(config string, xs [][]float32) (got [][][]float32, groups, operations int) {
		backend, err := gobackend.New(config)
		must(err)
		defer backend.Finalize()
		builder := backend.Builder("fused")
		main := builder.Main()
		x, err := main.Parameter("x", shape, nil)
		must(err)
		y, err := main.Parameter("y", shape, nil)
		must(err)
		two, _ := main.Constant([]float32{2})
		a, _ := main.Mul(two, x) // a scalar left operand of a commutative operation
		b, _ := main.Sub(two, a) // and of a non-commutative one
		c, _ := main.Mul(b, b)   // a value read twice by one operation
		d, _ := main.Add(c, x)   // x read by a second operation
		e, _ := main.Neg(d)      // read by a reduction: not fused away
		sum, _ := main.ReduceSum(e, 1)
		f, _ := main.Exp(e)
		g, _ := main.Div(f, y) // y holds zeros: infinities and NaNs
		h, _ := main.Max(g, e) // NaN rules of Max
		k, _ := main.Log1p(h)  // an output too: not fused away
		m, _ := main.Sqrt(k)
		out, _ := main.Sign(m)
		must(main.Return([]compute.Value{out, k, sum}, nil))
		exec, err := builder.Compile()
		must(err)
		groups, operations, _ = gobackend.FusedOperations(exec)
		yBuf, err := backend.BufferFromFlatData(0, []float32{1, 0, -2, 0.5, 3, -1}, shape)
		must(err)
		for _, xv := range xs {
			xBuf, err := backend.BufferFromFlatData(0, xv, shape)
			must(err)
			outputs, err := exec.Execute([]compute.Buffer{xBuf, yBuf}, nil, 0)
			if err != nil {
				t.Fatalf("%s: %+v", config, err)
			}
			var run [][]float32
			for _, o := range outputs {
				run = append(run, slices.Clone(o.(*gobackend.Buffer).Flat.([]float32)))
			}
			got = append(got, run)
		}
		return got, groups, operations
	}
	nan := float32(math.NaN())
	xs := [][]float32{{1, 2, 3, 4, 5, 6}, {-1, 0.5, nan, -3, 7, 0}, {0, 0, 0, 1e-3, -1e-3, 40}}
	seq, groups, operations := run("ops_sequential", xs)
	par, _, _ := run("ops_parallel", xs)
	if groups != 3 || operations != 11 {
		t.Errorf("%d operations fused in %d groups; want a to e, f to k and m to the output: 11 in 3", operations, groups)
	}
	for r := range xs {
		for i := range seq[r] {
			for j := range seq[r][i] {
				if math.Float32bits(seq[r][i][j]) != math.Float32bits(par[r][i][j]) {
					t.Errorf("execution %d, output %d, element %d: sequential %v (%#x), parallel %v (%#x)", r, i, j,
						seq[r][i][j], math.Float32bits(seq[r][i][j]), par[r][i][j], math.Float32bits(par[r][i][j]))
				}
			}
		}
	}
}

// TestSequentialFusedViews runs fused operations that read a Slice of one run of their
// operand (from an offset) and a Reshape of it in place, next to a Slice that is not one run
// (materialized), three executions against the parallel mode bit for bit.
func TestSequentialFusedViews(t *testing.T) {
	needFusibleAdd(t)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%+v", err)
		}
	}
	run := func(config string, xs [][]float32) (got [][]float32, groups, operations, views int) {
		backend, err := gobackend.New(config)
		must(err)
		defer backend.Finalize()
		builder := backend.Builder("views")
		main := builder.Main()
		x, err := main.Parameter("x", shapes.Make(dtypes.Float32, 2, 6), nil)
		must(err)
		row, _ := main.Slice(x, []int{1, 0}, []int{2, 6}, []int{1, 1}) // one run, from element 6
		r, _ := main.Reshape(row, 2, 3)
		block, _ := main.Slice(x, []int{0, 3}, []int{2, 6}, []int{1, 1}) // two runs: not a view
		a, _ := main.Add(r, block)
		b, _ := main.Mul(a, r)
		out, _ := main.Neg(b)
		must(main.Return([]compute.Value{out}, nil))
		exec, err := builder.Compile()
		must(err)
		groups, operations, views = gobackend.FusedOperations(exec)
		for _, xv := range xs {
			xBuf, err := backend.BufferFromFlatData(0, xv, shapes.Make(dtypes.Float32, 2, 6))
			must(err)
			outputs, err := exec.Execute([]compute.Buffer{xBuf}, nil, 0)
			if err != nil {
				t.Fatalf("%s: %+v", config, err)
			}
			got = append(got, slices.Clone(outputs[0].(*gobackend.Buffer).Flat.([]float32)))
		}
		return got, groups, operations, views
	}
	xs := [][]float32{{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, {-1, 0.5, 2, -3, 7, 0, 1e-3, -2, 4, 8, -16, 3}}
	seq, groups, operations, views := run("ops_sequential", xs)
	par, _, _, _ := run("ops_parallel", xs)
	if groups != 1 || operations != 3 || views != 1 {
		t.Errorf("%d groups of %d operations with %d inputs read from an offset; want the Add, Mul and Neg in one, reading x from element 6", groups, operations, views)
	}
	for r, xv := range xs {
		var want []float32
		for i := range 6 {
			row, block := xv[6+i], xv[(i/3)*6+3+i%3]
			want = append(want, -((row + block) * row))
		}
		if !slices.Equal(seq[r], par[r]) || !slices.Equal(seq[r], want) {
			t.Errorf("execution %d: sequential %v, parallel %v, want %v", r, seq[r], par[r], want)
		}
	}
}

// TestSequentialFoldsConstants runs a graph where a scalar constant is broadcast, reshaped and
// negated (what autodiff makes of scalars) before an operation reads it with a parameter, and
// one such value is a function output: a sequential plan computes the three once, and every
// execution gives what the parallel mode gives, the folded output a copy of its own.
func TestSequentialFoldsConstants(t *testing.T) {
	shape := shapes.Make(dtypes.Float32, 2, 3)
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%+v", err)
		}
	}
	run := func(config string) (got [][]float32, folded int) {
		backend, err := gobackend.New(config)
		must(err)
		defer backend.Finalize()
		builder := backend.Builder("fold")
		main := builder.Main()
		x, err := main.Parameter("x", shape, nil)
		must(err)
		half, _ := main.Constant([]float32{0.5})
		wide, _ := main.BroadcastInDim(half, shapes.Make(dtypes.Float32, 6), nil)
		grid, _ := main.Reshape(wide, 2, 3)
		neg, _ := main.Neg(grid)
		out, _ := main.Mul(neg, x)
		must(main.Return([]compute.Value{out, neg}, nil))
		exec, err := builder.Compile()
		must(err)
		folded = gobackend.FoldedConstants(exec)
		for range 3 {
			xBuf, err := backend.BufferFromFlatData(0, []float32{1, -2, 3, 0.25, 5, -6}, shape)
			must(err)
			outputs, err := exec.Execute([]compute.Buffer{xBuf}, []bool{true}, 0)
			must(err)
			for _, o := range outputs {
				got = append(got, slices.Clone(o.(*gobackend.Buffer).Flat.([]float32)))
				must(o.(*gobackend.Buffer).Finalize()) // the folded output is the caller's to drop
			}
		}
		return got, folded
	}
	seq, folded := run("ops_sequential")
	par, _ := run("ops_parallel")
	if folded != 3 {
		t.Errorf("%d operations folded, want the BroadcastInDim, Reshape and Neg", folded)
	}
	want := [][]float32{{-0.5, 1, -1.5, -0.125, -2.5, 3}, {-0.5, -0.5, -0.5, -0.5, -0.5, -0.5}}
	for i := range seq {
		if !slices.Equal(seq[i], par[i]) || !slices.Equal(seq[i], want[i%2]) {
			t.Errorf("output %d: sequential %v, parallel %v, want %v", i, seq[i], par[i], want[i%2])
		}
	}
}

// needFusibleAdd skips t in a build whose float32 Add sequential executions neither plan nor
// fuse (without GOEXPERIMENT=simd on amd64 the float32 elementwise executors are the generic
// ones, registered without a plan): what t counts is not made there.
func needFusibleAdd(t *testing.T) {
	t.Helper()
	if planned, fused := gobackend.Plans(compute.OpTypeAdd); !planned || !fused {
		t.Skip("this build's float32 Add is neither planned nor fused (the AVX2 executors need GOEXPERIMENT=simd on amd64)")
	}
}
