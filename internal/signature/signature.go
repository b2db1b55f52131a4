// Package signature gives a compiled program's inputs and outputs names.
//
// GoMLX builds a program from a function of nodes and runs it on a list of arguments,
// returning a list of tensors: its signature is positional. A program here names its values
// instead, in a struct with a field each, generic in what a value is:
//
//	type probeOut[T any] struct{ p, grad T }
//	func (o *probeOut[T]) fields() []*T { return []*T{&o.p, &o.grad} }
//
// Inside the program the struct holds *graph.Node, outside it the tensors (or the
// arguments) of an execution, and fields, the one place that lists the values, gives their
// order both ways: Values turns the struct into the program's list of outputs (or an
// execution's arguments, Args), Set fills it from the program's parameters (or an
// execution's outputs). So a value is never addressed by its position, and a value added,
// removed or reordered changes one line.
package signature

import "fmt"

// Values returns what fields point to, in order: a program's outputs from the struct that
// names them.
func Values[T any](fields []*T) []T {
	out := make([]T, len(fields))
	for i, f := range fields {
		out[i] = *f
	}
	return out
}

// Args returns what fields point to, in order, as an execution's arguments (graph.Exec.Call
// takes ...any).
func Args[T any](fields []*T) []any {
	out := make([]any, len(fields))
	for i, f := range fields {
		out[i] = *f
	}
	return out
}

// Set sets what fields point to from vals, in order: the struct that names a program's
// inputs from its parameters, or its outputs from an execution's results. Values of another
// count mean a program built against another signature, a bug: Set panics, as GoMLX's graph
// building does on an error.
func Set[T any](fields []*T, vals []T) {
	if len(vals) != len(fields) {
		panic(fmt.Errorf("signature: %d values for a signature of %d", len(vals), len(fields)))
	}
	for i, f := range fields {
		*f = vals[i]
	}
}
