// Package whileloop builds a graph.While loop that every GoMLX backend compiles, XLA
// included.
//
// GoMLX runs a While loop's condition and body as closures of the graph's main function. A
// closure may read nodes built outside it (it captures them) on the pure-Go backend, but
// XLA's (go-xla's StableHLO builder) refuses an operation that mixes a node of the main
// function with one of the closure: "cannot add operation … because the operands are not
// part of the function". So every value a loop reads must reach its closures as a
// parameter. Two kinds of capture hide in ordinary graph code:
//
//   - the loop's inputs: the data, the batch's fixed vectors, the last step. Build passes
//     them to both closures as consts, values the loop carries unchanged in its state.
//   - the caches of what a graph made once. A GoMLX Graph keeps one cache of the scalar
//     constants it made (what graph.Scalar, ScalarZero, MulScalar and layers such as ReLU
//     use) and one of the tensors made constant (graph.ConstCachedTensor), for the whole
//     graph, not per function: a scalar 0 made in the main function is handed to a ReLU
//     inside the body, and one made in the condition to the body. The XLA backend's builder
//     (go-xla v0.4.5) likewise keeps the small functions that sum, take the maximum and so on
//     for ReduceSum, ScatterSum and their kin, per builder, each made inside the function
//     that first asked: a ReduceSum in the body then gets the main function's, and XLA
//     refuses it ("reductionFn is not a StableHLO closure of closure2"). Build gives each
//     closure empty caches while it is built (the graph's, and the backend builder's map
//     fields named cache…) and puts the main function's back after. Neither library offers
//     a way to do this, hence the reflection on their unexported fields; a test fails if a
//     later GoMLX renames the graph's.
//
// After building each closure, Build checks that none of its nodes reads a node of another
// function, and panics with an error (graph building's way to fail; graph.Exec returns it
// as the compile error) naming the operation, so that a capture is found on the pure-Go
// backend by the tests, not on a GPU by a user.
package whileloop

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"unsafe"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"

	"github.com/quce-go/quce/backend"
)

// Runs reports whether b runs the loops Build makes (backend.RunsLoops: closures, and no
// fault found by backend.Loops' probe); where it does not, callers take one execution per
// step.
func Runs(b compute.Backend) bool { return backend.RunsLoops(b) }

// Fn is a closure's code: it gets the loop's current state and the consts, as parameters of
// the closure, in the order Build was given them.
type Fn func(state, consts []*graph.Node) []*graph.Node

// Build builds a While loop over state that runs body while cond (which returns one boolean
// scalar) holds, and returns the final state. consts are values both closures read but the
// loop never changes; they travel in the loop's state (see the package doc). body returns
// the next state, of state's shapes.
func Build(state, consts []*graph.Node, cond, body Fn) []*graph.Node {
	if len(state) == 0 {
		panic(errors.New("whileloop: a loop needs a state"))
	}
	g := state[0].Graph()
	all := append(append(make([]*graph.Node, 0, len(state)+len(consts)), state...), consts...)
	// closure builds one of the loop's closures from fn, which must return want values. The
	// checks come after graph.NewClosure: GoMLX cannot finalise an executable whose graph
	// panicked inside it.
	closure := func(what string, want int, fn func(params []*graph.Node) []*graph.Node) *graph.Function {
		restore := freshCaches(g)
		defer restore()
		var out []*graph.Node
		f := graph.NewClosure(g, func(g *graph.Graph) []*graph.Node {
			params := make([]*graph.Node, len(all))
			for i, n := range all {
				params[i] = graph.Parameter(g, fmt.Sprintf("%s_%d", what, i), n.Shape())
			}
			out = fn(params)
			return out
		})
		if len(out) != want {
			panic(fmt.Errorf("whileloop: the %s returned %d values, want %d", what, len(out), want))
		}
		if err := captures(g, f, what, out); err != nil {
			panic(err)
		}
		return f
	}
	condFn := closure("condition", 1, func(p []*graph.Node) []*graph.Node {
		return cond(p[:len(state)], p[len(state):])
	})
	bodyFn := closure("body", len(all), func(p []*graph.Node) []*graph.Node {
		return append(body(p[:len(state)], p[len(state):]), p[len(state):]...) // the consts, unchanged
	})
	return graph.While(condFn, bodyFn, all...)[:len(state)]
}

// captures reports the first node of closure f (the loop's what) that reads a node built in
// another function, or an output of f built elsewhere.
func captures(g *graph.Graph, f *graph.Function, what string, outputs []*graph.Node) error {
	for _, n := range g.Nodes() {
		if n.Function() != f {
			continue
		}
		for _, in := range n.Inputs() {
			if in.Function() != f {
				return fmt.Errorf("whileloop: the loop's %s reads a value built outside it (%s of shape %s, in %s), which XLA cannot compile; fix: pass it to the loop as a const",
					what, in.Type(), in.Shape(), in.Function().Name())
			}
		}
	}
	for i, n := range outputs {
		if n.Function() != f {
			return fmt.Errorf("whileloop: the loop's %s returns as its value %d one built outside it (%s of shape %s), which XLA cannot compile; fix: pass it to the loop as a const",
				what, i, n.Type(), n.Shape())
		}
	}
	return nil
}

// graphCaches are the graph.Graph fields that cache constants for the whole graph.
var graphCaches = []string{"scalars", "tensorConstants"}

// freshCaches empties g's constant caches, and those of its backend's builder (see the
// package doc), and returns the function that puts the old ones back.
func freshCaches(g *graph.Graph) (restore func()) {
	v := reflect.ValueOf(g).Elem()
	restoreGraph, swapped := swapMaps(v, func(name string) bool { return slices.Contains(graphCaches, name) })
	if len(swapped) != len(graphCaches) {
		panic(fmt.Errorf("whileloop: GoMLX's graph.Graph has the constant caches %q, not %q: this GoMLX version caches constants differently; update whileloop.freshCaches", swapped, graphCaches))
	}
	restoreBuilder := func() {}
	if b := v.FieldByName("builder"); b.IsValid() && b.Kind() == reflect.Interface && !b.IsNil() {
		if p := b.Elem(); p.Kind() == reflect.Pointer && !p.IsNil() && p.Elem().Kind() == reflect.Struct {
			restoreBuilder, _ = swapMaps(p.Elem(), func(name string) bool { return strings.HasPrefix(name, "cache") })
		}
	}
	return func() {
		restoreBuilder()
		restoreGraph()
	}
}

// swapMaps replaces the map fields of the addressable struct v whose names pick selects
// (exported or not) with empty maps. It returns the function that puts the old maps back,
// and the fields' names.
func swapMaps(v reflect.Value, pick func(name string) bool) (restore func(), swapped []string) {
	var saved []func()
	for i := range v.NumField() {
		name := v.Type().Field(i).Name
		f := v.Field(i)
		if f.Kind() != reflect.Map || !pick(name) {
			continue
		}
		f = reflect.NewAt(f.Type(), unsafe.Pointer(f.UnsafeAddr())).Elem()
		old := reflect.ValueOf(f.Interface())
		f.Set(reflect.MakeMap(f.Type()))
		saved = append(saved, func() { f.Set(old) })
		swapped = append(swapped, name)
	}
	return func() {
		for _, s := range saved {
			s()
		}
	}, swapped
}
