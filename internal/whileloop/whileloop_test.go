package whileloop_test

import (
	"strings"
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/internal/whileloop"
)

// run builds fn on the test backend and returns its outputs on x, or the error.
func run(t *testing.T, fn func(x *graph.Node) []*graph.Node, x []float32) ([]*tensors.Tensor, error) {
	t.Helper()
	modeltest.NeedLoops(t)
	ex, err := graph.NewExec(modeltest.Backend(t), fn)
	if err != nil {
		return nil, err
	}
	defer ex.Finalize()
	return ex.Exec(x)
}

// TestLoops checks loops whose closures read what XLA refuses to capture (constants the
// main function or the condition made first, the loop's inputs), and that the loops still
// compute what they should.
func TestLoops(t *testing.T) {
	x := []float32{-2, 1, 3}
	tests := []struct {
		name string
		fn   func(x *graph.Node) []*graph.Node
		want []float32
	}{{
		// The main function makes the scalar 0 before the loop, the body's ReLU wants it too.
		name: "scalar made in main",
		fn: func(x *graph.Node) []*graph.Node {
			g := x.Graph()
			x = graph.Max(x, graph.ScalarZero(g, dtypes.Float32))
			out := whileloop.Build([]*graph.Node{graph.Const(g, int32(0)), x}, nil,
				func(s, _ []*graph.Node) []*graph.Node {
					return []*graph.Node{graph.LessThan(s[0], graph.Const(s[0].Graph(), int32(3)))}
				},
				func(s, _ []*graph.Node) []*graph.Node {
					g := s[0].Graph()
					return []*graph.Node{graph.AddScalar(s[0], 1), graph.Max(graph.SubScalar(s[1], 1), graph.ScalarZero(g, dtypes.Float32))}
				})
			// After the loop the main function's cache is back: its 0 is its own again.
			return []*graph.Node{graph.Add(out[1], graph.ScalarZero(g, dtypes.Float32))}
		},
		want: []float32{0, 0, 0},
	}, {
		// The condition makes int32 3 first, the body uses 3 too.
		name: "scalar made in the condition",
		fn: func(x *graph.Node) []*graph.Node {
			g := x.Graph()
			out := whileloop.Build([]*graph.Node{graph.Const(g, int32(0)), x}, nil,
				func(s, _ []*graph.Node) []*graph.Node {
					return []*graph.Node{graph.LessThan(s[0], graph.Scalar(s[0].Graph(), dtypes.Int32, 3))}
				},
				func(s, _ []*graph.Node) []*graph.Node {
					g := s[0].Graph()
					three := graph.Scalar(g, dtypes.Int32, 3)
					return []*graph.Node{graph.Add(s[0], graph.Sub(three, graph.Scalar(g, dtypes.Int32, 2))), graph.AddScalar(s[1], 1)}
				})
			return out[1:]
		},
		want: []float32{1, 4, 6},
	}, {
		name: "consts",
		fn: func(x *graph.Node) []*graph.Node {
			g := x.Graph()
			step := graph.OnesLike(x)
			last := graph.Const(g, int32(4))
			out := whileloop.Build([]*graph.Node{graph.Const(g, int32(0)), x}, []*graph.Node{step, last},
				func(s, c []*graph.Node) []*graph.Node { return []*graph.Node{graph.LessThan(s[0], c[1])} },
				func(s, c []*graph.Node) []*graph.Node {
					return []*graph.Node{graph.AddScalar(s[0], 1), graph.Add(s[1], graph.MulScalar(c[0], 2))}
				})
			if len(out) != 2 {
				t.Errorf("Build returned %d values, want the state's 2 (not the consts)", len(out))
			}
			return out[1:]
		},
		want: []float32{6, 9, 11},
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			out, err := run(t, tc.fn, x)
			if err != nil {
				t.Fatal(err)
			}
			got := tensors.MustCopyFlatData[float32](out[0])
			for i := range tc.want {
				if got[i] != tc.want[i] {
					t.Fatalf("got %v, want %v", got, tc.want)
				}
			}
		})
	}
}

// TestCapturesAreErrors checks that a closure reading or returning a node of the main
// function fails to build with an error that says so, on a backend (pure Go) that would run
// it.
func TestCapturesAreErrors(t *testing.T) {
	tests := []struct {
		name string
		body func(outside *graph.Node) whileloop.Fn
		want string
	}{{
		name: "reads",
		body: func(outside *graph.Node) whileloop.Fn {
			return func(s, _ []*graph.Node) []*graph.Node {
				return []*graph.Node{graph.AddScalar(s[0], 1), graph.Add(s[1], outside)}
			}
		},
		want: "the loop's body reads a value built outside it",
	}, {
		name: "returns",
		body: func(outside *graph.Node) whileloop.Fn {
			return func(s, _ []*graph.Node) []*graph.Node { return []*graph.Node{graph.AddScalar(s[0], 1), outside} }
		},
		want: "the loop's body returns as its value 1 one built outside it",
	}}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, func(x *graph.Node) []*graph.Node {
				g := x.Graph()
				outside := graph.Exp(x)
				return whileloop.Build([]*graph.Node{graph.Const(g, int32(0)), x}, nil,
					func(s, _ []*graph.Node) []*graph.Node {
						return []*graph.Node{graph.LessThan(s[0], graph.Const(s[0].Graph(), int32(2)))}
					}, tc.body(outside))[1:]
			}, []float32{1})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "fix: pass it to the loop as a const") {
				t.Fatalf("error %v, want one that says %q and the fix", err, tc.want)
			}
		})
	}
}

// TestStateShapes checks that a body returning the wrong number of values is refused.
func TestStateShapes(t *testing.T) {
	_, err := run(t, func(x *graph.Node) []*graph.Node {
		g := x.Graph()
		return whileloop.Build([]*graph.Node{graph.Const(g, int32(0)), x}, nil,
			func(s, _ []*graph.Node) []*graph.Node {
				return []*graph.Node{graph.LessThan(s[0], graph.Const(s[0].Graph(), int32(2)))}
			},
			func(s, _ []*graph.Node) []*graph.Node { return s[:1] })
	}, []float32{1})
	if err == nil || !strings.Contains(err.Error(), "the body returned 1 values, want 2") {
		t.Fatalf("error %v", err)
	}
}
