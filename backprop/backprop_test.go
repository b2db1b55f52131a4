package backprop_test

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/quce-go/quce/third_party/gobackend"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/backprop"
	"github.com/quce-go/quce/gomlxmodel"
)

// randomMLP stores a network of the given widths (inputs, hidden…, outputs) under scope, laid
// out as layers.DenseWithBias names it, with seeded random weights, and returns its model
// function.
func randomMLP(t *testing.T, store *model.Store, scope string, widths []int, seed uint64) gomlxmodel.Fn {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 7))
	n := len(widths) - 1
	for i := range n {
		name := fmt.Sprintf("%s/hidden_%d", scope, i)
		if i == n-1 {
			name = scope + "/output"
		}
		in, out := widths[i], widths[i+1]
		w, b := make([]float32, in*out), make([]float32, out)
		for k := range w {
			w[k] = float32(rng.NormFloat64() / math.Sqrt(float64(in)))
		}
		for k := range b {
			b[k] = float32(0.1 * rng.NormFloat64())
		}
		if _, err := store.CreateVariable(name+"/dense/weights", tensors.FromFlatDataAndDimensions(w, in, out)); err != nil {
			t.Fatal(err)
		}
		if _, err := store.CreateVariable(name+"/dense/biases", tensors.FromFlatDataAndDimensions(b, out)); err != nil {
			t.Fatal(err)
		}
	}
	hidden := widths[1:n]
	return func(s *model.Scope, x *Node) *Node {
		if scope != "" {
			s = s.In("%s", scope[1:]) // "/encoder" → "encoder"
		}
		for i, h := range hidden {
			x = activation.Relu(layers.DenseWithBias(s.In("hidden_%d", i), x, h))
		}
		return layers.DenseWithBias(s.In("output"), x, widths[n])
	}
}

func randomRows(rows, cols int, seed uint64) [][]float32 {
	rng := rand.New(rand.NewPCG(seed, 11))
	x := make([][]float32, rows)
	for i := range x {
		x[i] = make([]float32, cols)
		for j := range x[i] {
			x[i][j] = float32(rng.NormFloat64())
		}
	}
	return x
}

// The hand-written backward pass gives autodiff's gradient, for networks with and without
// padded widths, with biases in the product or added, hidden layers or a single narrow
// output, and the forward pass gives the model function's outputs.
func TestTapedMatchesAutodiff(t *testing.T) {
	goBackend, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer goBackend.Finalize()
	// The pure-Go backend under another name stands for XLA or ONNX Runtime: the layers as
	// stored, biases broadcast in the graph.
	for _, b := range []compute.Backend{goBackend, otherBackend{goBackend}} {
		t.Run(b.String(), func(t *testing.T) { checkTapedMatchesAutodiff(t, b) })
	}
}

// otherBackend is a backend that is not the pure-Go one by name, running on it.
type otherBackend struct{ compute.Backend }

func (otherBackend) String() string { return "other" }

// Outside the pure-Go backend a taped network's constants do not grow with the batch: a
// program's constants are part of what XLA's compiler parses, so a batch-sized one would
// make every larger batch compile longer.
func TestTapedConstantsIndependentOfRows(t *testing.T) {
	goBackend, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer goBackend.Finalize()
	widths := []int{30, 60, 64, 2} // biases on every layer, none folded into the weights
	store := model.NewStore()
	randomMLP(t, store, "", widths, 3)
	net, err := backprop.NewMLP(store, "")
	if err != nil {
		t.Fatal(err)
	}
	constants := func(rows int) int {
		g := NewGraph(otherBackend{goBackend}, "taped")
		x := Parameter(g, "x", shapes.Make(dtypes.Float32, rows, widths[0]))
		tape := new(backprop.Tape)
		tape.Gradient(ReduceAllSum(net.Taped(tape, x)), x)
		n := 0
		for _, node := range g.Nodes() {
			if node.Type() == NodeTypeConstant {
				n += node.Shape().Size()
			}
		}
		return n
	}
	if one, many := constants(1), constants(4096); one != many {
		t.Errorf("the taped network's constants hold %d values for 1 row and %d for 4096; want as many", one, many)
	}
}

func checkTapedMatchesAutodiff(t *testing.T, b compute.Backend) {
	for _, tc := range []struct {
		name   string
		scope  string
		widths []int
	}{
		{"linear", "", []int{4, 2}},
		{"classifier 30-60-1 (hidden padded to 64 with a unit of ones, narrow output)", "", []int{30, 60, 1}},
		{"encoder 30-128-64-30 (output and input gradient padded to 32, biases added)", "/encoder", []int{30, 128, 64, 30}},
		{"decoder 15-64-128-30 (input of 16 with the ones)", "/decoder", []int{15, 64, 128, 30}},
		{"narrow 3-5-7-2", "", []int{3, 5, 7, 2}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := model.NewStore()
			fn := randomMLP(t, store, tc.scope, tc.widths, 3)
			ref, err := gomlxmodel.New(store, fn, tc.widths[0])
			if err != nil {
				t.Fatal(err)
			}
			net, err := backprop.NewMLP(store, tc.scope)
			if err != nil {
				t.Fatal(err)
			}
			if net.NumInputs() != tc.widths[0] || net.NumOutputs() != tc.widths[len(tc.widths)-1] {
				t.Fatalf("widths %d→%d, want %d→%d", net.NumInputs(), net.NumOutputs(), tc.widths[0], tc.widths[len(tc.widths)-1])
			}
			// A nonlinear head (squares weighted per output) so the gradient arriving at the
			// outputs differs by row and column.
			head := func(out *Node) *Node {
				w := IotaFull(out.Graph(), out.Shape())
				return ReduceAllSum(Mul(Square(out), AddScalar(MulScalar(w, 0.01), 0.5)))
			}
			outs, err := ExecOnceN(b, func(x *Node) []*Node {
				tape := new(backprop.Tape)
				hand := net.Taped(tape, x)
				auto := ref.Forward(x)
				return []*Node{hand, auto, tape.Gradient(head(hand), x), (*backprop.Tape)(nil).Gradient(head(auto), x)}
			}, randomRows(9, tc.widths[0], 5))
			if err != nil {
				t.Fatal(err)
			}
			flat := func(i int) []float32 { return tensors.MustCopyFlatData[float32](outs[i]) }
			compare(t, "outputs", flat(0), flat(1), 1e-6)
			compare(t, "input gradient", flat(2), flat(3), 1e-5)
		})
	}
}

// compare fails when got and want differ by more than tol relative to want's largest value.
func compare(t *testing.T, what string, got, want []float32, tol float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d values, want %d", what, len(got), len(want))
	}
	scale := 0.0
	for _, w := range want {
		scale = max(scale, math.Abs(float64(w)))
	}
	worst := 0.0
	for i := range got {
		worst = max(worst, math.Abs(float64(got[i]-want[i])))
	}
	if worst > tol*max(scale, 1) || math.IsNaN(worst) {
		t.Errorf("%s: largest difference %.3g (largest value %.3g), want ≤ %.0e relative", what, worst, scale, tol)
	}
}

// A tape chains pieces: the gradient through two networks in a row, with a formula between
// them and the input also used directly, is autodiff's.
func TestTapeChainsPieces(t *testing.T) {
	b, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	store := model.NewStore()
	encFn := randomMLP(t, store, "/encoder", []int{6, 20, 8}, 1)
	decFn := randomMLP(t, store, "/decoder", []int{4, 20, 6}, 2)
	enc, _ := gomlxmodel.New(store, encFn, 6)
	dec, _ := gomlxmodel.New(store, decFn, 4)
	encNet, err := backprop.NewMLP(store, "/encoder")
	if err != nil {
		t.Fatal(err)
	}
	decNet, err := backprop.NewMLP(store, "/decoder")
	if err != nil {
		t.Fatal(err)
	}
	// loss = Σ (x − dec(μ + exp(½·logvar)))² + Σ μ², with [μ, logvar] = enc(x).
	loss := func(x *Node, encode, decode func(*Node) *Node) *Node {
		e := encode(x)
		mu, logvar := Slice(e, AxisRange(), AxisRange(0, 4)), Slice(e, AxisRange(), AxisRange(4, 8))
		z := Add(mu, Exp(MulScalar(logvar, 0.5)))
		return Add(ReduceAllSum(Square(Sub(x, decode(z)))), ReduceAllSum(Square(mu)))
	}
	outs, err := ExecOnceN(b, func(x *Node) []*Node {
		tape := new(backprop.Tape)
		hand := loss(x, func(x *Node) *Node { return encNet.Taped(tape, x) }, func(z *Node) *Node { return decNet.Taped(tape, z) })
		auto := loss(x, enc.Forward, dec.Forward)
		return []*Node{hand, auto, tape.Gradient(hand, x), Gradient(auto, x)[0]}
	}, randomRows(5, 6, 9))
	if err != nil {
		t.Fatal(err)
	}
	flat := func(i int) []float32 { return tensors.MustCopyFlatData[float32](outs[i]) }
	compare(t, "loss", flat(0), flat(1), 1e-6)
	compare(t, "input gradient", flat(2), flat(3), 1e-5)
}

// A store that lacks a layer's variables, or whose layers do not chain, is an error.
func TestNewMLPErrors(t *testing.T) {
	for _, tc := range []struct {
		name string
		make func(t *testing.T, s *model.Store)
		want string
	}{
		{"no output layer", func(t *testing.T, s *model.Store) {}, "no variable /output/dense/weights"},
		{"widths do not chain", func(t *testing.T, s *model.Store) {
			randomMLP(t, s, "", []int{3, 4, 2}, 1)
			if err := s.DeleteVariable("/output/dense/weights"); err != nil {
				t.Fatal(err)
			}
			if _, err := s.CreateVariable("/output/dense/weights", tensors.FromFlatDataAndDimensions(make([]float32, 10), 5, 2)); err != nil {
				t.Fatal(err)
			}
		}, "takes 5 inputs but the layer before gives 4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := model.NewStore()
			tc.make(t, s)
			_, err := backprop.NewMLP(s, "")
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
		})
	}
}

// A row's outputs and input gradient do not depend on the rows batched with it: with the SIMD
// kernels (GOEXPERIMENT=simd, which the padding of every width to at least 32 reaches) they are
// bit-identical alone and in a batch; the scalar kernels of a build without them sum a
// batch's last rows in another order, so there they agree to float32 rounding. Both the
// default backend and the sequential one that runs small batches are checked.
func TestRowsIndependentOfBatch(t *testing.T) {
	tol := 0.0
	if !backend.SIMD {
		tol = 1e-6
	}
	for _, cfg := range []string{"", "ops_sequential"} {
		b, err := gobackend.New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		for _, widths := range [][]int{{30, 60, 1}, {30, 128, 64, 30}, {15, 64, 128, 30}, {4, 60, 3}} {
			store := model.NewStore()
			randomMLP(t, store, "", widths, 3)
			net, err := backprop.NewMLP(store, "")
			if err != nil {
				t.Fatal(err)
			}
			f := func(x *Node) []*Node {
				tape := new(backprop.Tape)
				out := net.Taped(tape, x)
				return []*Node{out, tape.Gradient(ReduceAllSum(Square(out)), x)}
			}
			rows := randomRows(10, widths[0], 5)
			batch, err := ExecOnceN(b, f, rows)
			if err != nil {
				t.Fatal(err)
			}
			for i := range rows {
				alone, err := ExecOnceN(b, f, rows[i:i+1])
				if err != nil {
					t.Fatal(err)
				}
				for k, what := range []string{"outputs", "input gradient"} {
					a := tensors.MustCopyFlatData[float32](alone[k])
					all := tensors.MustCopyFlatData[float32](batch[k])
					in := all[i*len(a) : (i+1)*len(a)]
					for j := range a {
						if d := math.Abs(float64(a[j] - in[j])); d > tol*math.Max(1, math.Abs(float64(in[j]))) {
							t.Fatalf("backend %q, widths %v, row %d: %s[%d] is %v alone, %v in a batch of %d",
								cfg, widths, i, what, j, a[j], in[j], len(rows))
						}
					}
				}
			}
		}
	}
}
