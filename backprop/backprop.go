// Package backprop builds input gradients of graphs whose expensive parts bring their own
// backward pass.
//
// QUCE takes the gradient of its objective with respect to the rows at every optimisation
// step, through the classifier and both networks of the VAE. GoMLX's autodiff
// (graph.Gradient) differentiates any graph, and it stays the way users' own models are
// differentiated. For the built-in networks (dense layers with ReLU between them and constant
// weights) the backward pass is written out here instead, as in the PyTorch peer's fastest
// variant. Autodiff gives each layer's input gradient as a product with the transposed weights
// that the pure-Go backend runs through a slow kernel, and each ReLU's gradient as about seven
// elementwise operations. Here, for a layer pre = h·W + b followed by h' = max(pre, 0), the
// gradient is
//
//	∂/∂h = (∂/∂h' ⊙ [pre ≥ 0]) · Wᵀ
//
// with Wᵀ transposed once, when the network is built, so every product has the plain
// [rows, a]·[a, b] layout, and the mask taken from the forward pass's pre-activations (a
// comparison and a select). This is the same function autodiff computes; a unit exactly at 0
// counts as on in both. It spares each step autodiff's transposes of the constant weights,
// its transposed-layout products and its ReLU indicator arithmetic.
//
// A Tape joins the two. A network built with MLP.Taped records a piece on the tape (its
// input, its output and its vector-Jacobian product) and is hidden from autodiff (its input
// enters through StopGradient). Tape.Gradient then differentiates everything around the
// pieces (the loss's own formula, the scaler, the VAE's sampling) with autodiff and each
// piece with its own product. A nil *Tape records nothing and its Gradient is plain
// autodiff, so one code path builds both forms (and a test compares them).
package backprop

import (
	"fmt"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/quce-go/quce/third_party/gobackend"

	. "github.com/gomlx/gomlx/core/graph"

	"github.com/quce-go/quce/internal/simd"
)

// piece is a subgraph out = f(in) built on StopGradient(in), with its vector-Jacobian
// product: vjp(∂L/∂out) = ∂L/∂in.
type piece struct {
	in, out *Node
	vjp     func(dOut *Node) *Node
}

// Tape records the hand-differentiated pieces of one graph, in the order they were built.
type Tape struct {
	pieces []piece
}

// Gradient returns ∂loss/∂x for a scalar loss whose graph may contain pieces recorded on t.
//
// The pieces are taken last-built first. For each, its output's gradient comes from autodiff
// of a surrogate, the loss plus Σ ⟨in_k, StopGradient(vjp_k)⟩ over the pieces k already
// taken, whose gradient with respect to anything built before those pieces equals the
// loss's; its own term is then added. The last call differentiates the surrogate with respect
// to x. Only the formulas between the pieces are differentiated by autodiff.
func (t *Tape) Gradient(loss, x *Node) *Node {
	if t == nil {
		return Gradient(loss, x)[0]
	}
	s := loss
	for i := len(t.pieces) - 1; i >= 0; i-- {
		p := t.pieces[i]
		dOut := Gradient(s, p.out)[0]
		s = Add(s, ReduceAllSum(Mul(p.in, StopGradient(p.vjp(dOut)))))
	}
	return Gradient(s, x)[0]
}

// layer is one dense layer, pre = h·w + b, followed by a ReLU unless it is the last, with
// its weights laid out for the backend's kernels (see layout).
type layer struct {
	in, out    int       // the layer's own widths
	rows, cols int       // w's shape, padded
	w          []float32 // [rows, cols], row-major, or [cols, rows] when narrow; padding is 0
	b          []float32 // [cols]; nil when the biases are a row of w (see layout)
	narrow     bool      // the product is taken with wT (see layout)
	tRows      int       // wT's shape: [tRows, tCols]
	tCols      int
	wT         []float32 // w transposed, [tRows, tCols]
}

// simdWidth is the number of float32 values in one AVX-512 register.
const simdWidth = 16

// padded is a width as laid out for the pure-Go backend's SIMD kernels (GOEXPERIMENT=simd).
// They take products with more than 16 output columns (filling the last partial group of 16
// one element at a time); narrower products go to a scalar kernel that sums the last rows of
// a batch (fewer than 3) in another order than the others, so a row's result would depend on
// its place in the batch. So every width is padded to a multiple of 16, and to at least 32:
// every product then runs on the SIMD kernels, which treat every row alike. Padded hidden
// units have zero weights and biases, so they stay at 0 and change nothing; a padded output
// or input gradient is sliced off (but see layout for a narrow output). Other backends get
// the network as it is.
func padded(w int) int {
	return max(2*simdWidth, (w+simdWidth-1)/simdWidth*simdWidth)
}

func unpadded(w int) int { return w }

// MLP is a network of dense layers with ReLU after every layer but the last, with constant
// weights: the built-in classifier and the VAE's encoder and decoder.
type MLP struct {
	plain, simd []layer // as stored, and padded for the pure-Go backend's SIMD kernels
}

// dense is one layer's weights [in, out] and biases [out], as stored.
type dense struct {
	in, out int
	w, b    []float32
}

// NewMLP reads a network from store as layers.DenseWithBias lays it out under scope:
// <scope>/hidden_<i>/dense/{weights,biases} for i = 0, 1, … (each followed by a ReLU), then
// <scope>/output/dense/{weights,biases}. The values are copied, so later changes to the store
// are not seen.
func NewMLP(store *model.Store, scope string) (*MLP, error) {
	var names []string
	for i := 0; store.GetVariable(fmt.Sprintf("%s/hidden_%d/dense/weights", scope, i)) != nil; i++ {
		names = append(names, fmt.Sprintf("%s/hidden_%d", scope, i))
	}
	names = append(names, scope+"/output")
	var ds []dense
	for _, name := range names {
		w, wDims, err := value(store, name+"/dense/weights")
		if err != nil {
			return nil, err
		}
		b, bDims, err := value(store, name+"/dense/biases")
		if err != nil {
			return nil, err
		}
		if len(wDims) != 2 || len(bDims) != 1 || bDims[0] != wDims[1] {
			return nil, fmt.Errorf("backprop: %s has weights %v and biases %v; want [in, out] and [out]", name, wDims, bDims)
		}
		if n := len(ds); n > 0 && ds[n-1].out != wDims[0] {
			return nil, fmt.Errorf("backprop: %s takes %d inputs but the layer before gives %d", name, wDims[0], ds[n-1].out)
		}
		ds = append(ds, dense{in: wDims[0], out: wDims[1], w: w, b: b})
	}
	return &MLP{plain: layout(ds, false), simd: layout(ds, true)}, nil
}

// layout lays the layers out as they are, or for the pure-Go backend's SIMD kernels. For
// those, widths are padded (the outputs of every layer, and the input gradient of the
// first), and biases become a row of the weights wherever a layer's input has a column of
// ones: the network's input gets one appended, and a hidden layer whose padding leaves a
// spare unit turns it into one (its pre-activation is 1, so its ReLU is 1). The kernel adds
// the rows of w in order, so the biases added last within the product round exactly as
// when added after it, without a pass over [rows, cols] that reads a constant as large as
// the layer's output. An output narrower than a SIMD group (the classifier's logits) is not
// padded to 32 columns: its product is taken with wT, contracting both last axes, a kernel
// that takes each output as one dot product, row by row.
func layout(ds []dense, simdKernels bool) []layer {
	pad := unpadded
	if simdKernels {
		pad = padded
	}
	ls := make([]layer, len(ds))
	ones := -1 // the column of ones in the layer's input, if any
	for i, d := range ds {
		l := layer{in: d.in, out: d.out, rows: d.in, cols: pad(d.out)}
		switch {
		case i > 0:
			l.rows = ls[i-1].cols
		case simdKernels:
			ones, l.rows = d.in, d.in+1
		}
		if simdKernels && i == len(ds)-1 && d.out <= simdWidth {
			l.cols, l.narrow = d.out, true
		}
		// The gradient leaves through wT: only the true outputs come in (the last layer's
		// gradient is not padded), and the first layer's input gradient is padded too.
		l.tRows, l.tCols = l.cols, l.rows
		if i == len(ds)-1 {
			l.tRows = l.out
		}
		if i == 0 {
			l.tCols = pad(l.rows)
		}
		l.w = make([]float32, l.rows*l.cols)
		for r := range l.in {
			copy(l.w[r*l.cols:r*l.cols+l.out], d.w[r*l.out:(r+1)*l.out])
		}
		var bias []float32 // a row of w against the column of ones, or b
		if ones >= 0 {
			bias = l.w[ones*l.cols : (ones+1)*l.cols]
		} else {
			l.b = make([]float32, l.cols)
			bias = l.b
		}
		copy(bias, d.b)
		ones = -1
		if simdKernels && i < len(ds)-1 && l.cols > l.out {
			ones, bias[l.out] = l.out, 1
		}
		l.wT = transposed(l.w, l.rows, l.cols, l.tRows, l.tCols)
		if l.narrow {
			l.w = transposed(l.w, l.rows, l.cols, l.cols, l.rows)
		}
		ls[i] = l
	}
	return ls
}

// transposed returns the [rows, cols] matrix w transposed into [tRows, tCols], cut or padded
// with zeros.
func transposed(w []float32, rows, cols, tRows, tCols int) []float32 {
	t := make([]float32, tRows*tCols)
	for r := range min(rows, tCols) {
		for c := range min(cols, tRows) {
			t[c*tCols+r] = w[r*cols+c]
		}
	}
	return t
}

// value copies a float32 variable's values out of store.
func value(store *model.Store, path string) ([]float32, []int, error) {
	v := store.GetVariable(path)
	if v == nil {
		return nil, nil, fmt.Errorf("backprop: no variable %s; fix: use a store laid out as the model function builds it", path)
	}
	t, err := v.Value()
	if err != nil {
		return nil, nil, fmt.Errorf("backprop: variable %s has no value: %w", path, err)
	}
	flat, err := tensors.CopyFlatData[float32](t)
	if err != nil {
		return nil, nil, fmt.Errorf("backprop: variable %s: %w", path, err)
	}
	return flat, t.Shape().Dimensions, nil
}

// biases are b added to each row of a layer's output [rows, cols]. On the pure-Go backend
// (perRow) they are a constant of that shape: adding one of the same shape is a plain
// elementwise loop, where the fused dense op's bias costs an integer division per element.
// On the others they are [cols], broadcast in the graph: a constant as large as a batch
// grows the program with the batch, and XLA's builder writes a program's constants into its
// text element by element for the compiler to parse back (the classifier's first biases
// over a 4 096-row search's ten points a row: 2.5 million values).
func (l layer) biases(g *Graph, rows int, perRow bool) *Node {
	if !perRow {
		return BroadcastToDims(Const(g, [][]float32{l.b}), rows, l.cols)
	}
	flat := make([]float32, 0, rows*l.cols)
	for range rows {
		flat = append(flat, l.b...)
	}
	return Const(g, tensors.FromFlatDataAndDimensions(flat, rows, l.cols))
}

// NumInputs is the input width.
func (m *MLP) NumInputs() int { return m.plain[0].in }

// NumOutputs is the output width.
func (m *MLP) NumOutputs() int { return m.plain[len(m.plain)-1].out }

// Taped builds the network's outputs [rows, NumOutputs] for x [rows, NumInputs] and records
// it on t with its hand-written backward pass. The forward pass is the model function's graph
// (h·W + b, and a ReLU as max(pre, 0)); on the pure-Go backend with SIMD kernels it is laid
// out for them (see layout) and the ReLU is a select with the mask, [pre ≥ 0]·pre, so the
// outputs are the same up to the order of float32 sums.
//
// The select is there for speed: the Go backend's max(pre, 0) takes seven scalar
// floating-point instructions per element, the select one branch, and in an explanation's
// CPU profile the select costs less. It differs from max(pre, 0) only for a NaN
// pre-activation, which it turns into 0; the rows are checked to be finite before any
// graph runs, and the built-in networks' weights come from training that stops on a
// non-finite loss.
func (m *MLP) Taped(t *Tape, x *Node) *Node {
	g := x.Graph()
	onGo := g.Backend().String() == gobackend.BackendName
	layers, selectReLU := m.plain, false
	if simd.Enabled && onGo {
		layers, selectReLU = m.simd, true
	}
	zero := ScalarZero(g, x.DType())
	n, rows := len(layers), x.Shape().Dimensions[0]
	// The ReLU masks are built with the forward pass, where the select uses them, so the
	// backward pass (run once per Tape.Gradient) compares nothing again; unused, they are
	// pruned.
	masks, wTs := make([]*Node, n), make([]*Node, n)
	h := StopGradient(x)
	if first := layers[0]; first.rows > first.in { // a column of ones for the first biases
		ones := make([]float32, rows)
		for r := range ones {
			ones[r] = 1
		}
		h = Concatenate([]*Node{h, Const(g, tensors.FromFlatDataAndDimensions(ones, rows, 1))}, 1)
	}
	for i, l := range layers {
		wTs[i] = Const(g, tensors.FromFlatDataAndDimensions(l.wT, l.tRows, l.tCols))
		if l.narrow {
			h = DotGeneral(h, []int{1}, nil, Const(g, tensors.FromFlatDataAndDimensions(l.w, l.cols, l.rows)), []int{1}, nil)
		} else {
			h = DotProduct(h, Const(g, tensors.FromFlatDataAndDimensions(l.w, l.rows, l.cols)))
		}
		if l.b != nil {
			h = Add(h, l.biases(g, rows, onGo))
		}
		if i < n-1 {
			masks[i] = GreaterOrEqual(h, zero)
			if selectReLU {
				h = Where(masks[i], h, zero)
			} else {
				h = Max(h, zero) // the ReLU, as activation.Relu's max(pre, 0)
			}
		}
	}
	if last := layers[n-1]; last.cols != last.out {
		h = Slice(h, AxisRange(), AxisRange(0, last.out))
	}
	t.pieces = append(t.pieces, piece{in: x, out: h, vjp: func(d *Node) *Node {
		for i := n - 1; i >= 0; i-- {
			if i < n-1 {
				d = Where(masks[i], d, zero)
			}
			d = DotProduct(d, wTs[i])
		}
		if first := layers[0]; first.tCols != first.in {
			d = Slice(d, AxisRange(), AxisRange(0, first.in))
		}
		return d
	}})
	return h
}
