// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

//go:build goexperiment.simd && amd64

package gobackend_test

import (
	"simd/archsimd"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

// TestWhileIterationsAllocations counts the allocations of a While loop's iterations whose
// body broadcasts, reduces, slices and reshapes small float32 tensors, as an optimiser's step
// does: an iteration made 34 (an iterator and its slices for each broadcast and reduction,
// strides for each slice, a new handle for every output, a boxed slice for most results), and
// now makes the three that remain (the outputs' slices of the condition and the body, the
// reduction's iterator). The broadcasts without allocations are the AVX2 executors' (the
// generic ones still build an iterator each time).
func TestWhileIterationsAllocations(t *testing.T) {
	if !archsimd.X86.AVX2() {
		t.Skip("the float32 broadcasts without allocations are the AVX2 executors'; this CPU has no AVX2")
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("unexpected error: %+v", err)
		}
	}
	// Small graphs run with sequential ops (parallel ones hand every node to a worker).
	backend, err := gobackend.New("ops_sequential")
	must(err)
	defer backend.Finalize()
	scalar, matrix := shapes.Make(dtypes.Float32), shapes.Make(dtypes.Float32, 3, 30)
	build := func(iterations float32) compute.Executable {
		builder := backend.Builder("test_while_allocations")
		mainFn := builder.Main()
		closure := func(body bool) compute.Function {
			fn, err := mainFn.Closure()
			must(err)
			counter, err := fn.Parameter("counter", scalar, nil)
			must(err)
			x, err := fn.Parameter("x", matrix, nil)
			must(err)
			if !body {
				limit, err := fn.Constant([]float32{iterations})
				must(err)
				less, err := fn.LessThan(counter, limit)
				must(err)
				must(fn.Return([]compute.Value{less}, nil))
				return fn
			}
			one, err := fn.Constant([]float32{1})
			must(err)
			next, err := fn.Add(counter, one)
			must(err)
			rowScale, err := fn.Constant([]float32{0.5, 0.25, 0.125}, 3, 1)
			must(err)
			y, err := fn.Mul(x, rowScale) // broadcast along the last axis
			must(err)
			head, err := fn.Slice(y, []int{0, 0}, []int{3, 15}, nil)
			must(err)
			sums, err := fn.ReduceSum(head, 1)
			must(err)
			column, err := fn.Reshape(sums, 3, 1)
			must(err)
			z, err := fn.Sub(y, column) // broadcast again
			must(err)
			must(fn.Return([]compute.Value{next, z}, nil))
			return fn
		}
		cond, body := closure(false), closure(true)
		x, err := mainFn.Parameter("x", matrix, nil)
		must(err)
		zero, err := mainFn.Constant([]float32{0})
		must(err)
		results, err := mainFn.While(cond, body, zero, x)
		must(err)
		must(mainFn.Return(results[1:], nil))
		exec, err := builder.Compile()
		must(err)
		return exec
	}
	allocations := func(iterations float32) float64 {
		exec := build(iterations)
		input, err := backend.BufferFromFlatData(0, make([]float32, 90), matrix)
		must(err)
		run := func() {
			outputs, err := exec.Execute([]compute.Buffer{input}, nil, 0)
			must(err)
			must(outputs[0].(*gobackend.Buffer).Finalize())
		}
		run() // the first execution fills the pools
		return testing.AllocsPerRun(5, run)
	}
	const more = 500
	perIteration := (allocations(10+more) - allocations(10)) / more
	t.Logf("%.2f allocations an iteration", perIteration)
	if perIteration > 4 {
		t.Errorf("a While iteration made %.2f allocations, want at most 4", perIteration)
	}
}
