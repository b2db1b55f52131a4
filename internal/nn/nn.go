// Package nn holds the small multilayer perceptrons both models are made of, the Adam
// training step as a GoMLX graph, and the checksummed file format the models are saved in.
//
// Weights live in plain Go slices (float32, row-major), so a model is a value that can be
// copied, hashed, saved and compared bit for bit. Graph code takes the weights as *Node
// values: graph parameters while training (so one compiled step is reused with new
// weights), constants inside the explainer's graphs (so the backend can fold them).
package nn

import (
	"fmt"
	"math"
	"math/rand/v2"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// Layer is one dense layer y = x·W + B, with W stored row-major as [In][Out].
type Layer struct {
	In  int       `json:"in"`
	Out int       `json:"out"`
	W   []float32 `json:"w"`
	B   []float32 `json:"b"`
}

// MLP is a stack of dense layers with ReLU between them and a linear output.
type MLP struct {
	Layers []Layer `json:"layers"`
}

// NewMLP makes an MLP with the given layer sizes (input first, output last), weights drawn
// He-uniform from rng and zero biases.
func NewMLP(sizes []int, rng *rand.Rand) *MLP {
	m := &MLP{}
	for i := 0; i+1 < len(sizes); i++ {
		in, out := sizes[i], sizes[i+1]
		l := Layer{In: in, Out: out, W: make([]float32, in*out), B: make([]float32, out)}
		limit := math.Sqrt(6 / float64(in))
		for j := range l.W {
			l.W[j] = float32((2*rng.Float64() - 1) * limit)
		}
		m.Layers = append(m.Layers, l)
	}
	return m
}

// Sizes returns the layer widths, input first.
func (m *MLP) Sizes() []int {
	if len(m.Layers) == 0 {
		return nil
	}
	s := []int{m.Layers[0].In}
	for _, l := range m.Layers {
		s = append(s, l.Out)
	}
	return s
}

// NumParams is the count of tensors (two per layer) that Forward expects.
func (m *MLP) NumParams() int { return 2 * len(m.Layers) }

// Tensors returns the weights as tensors, in the order Forward expects: W0, B0, W1, B1, ...
func (m *MLP) Tensors() []*tensors.Tensor {
	ts := make([]*tensors.Tensor, 0, m.NumParams())
	for _, l := range m.Layers {
		ts = append(ts,
			tensors.FromFlatDataAndDimensions(append([]float32(nil), l.W...), l.In, l.Out),
			tensors.FromFlatDataAndDimensions(append([]float32(nil), l.B...), l.Out))
	}
	return ts
}

// SetTensors copies weights back from tensors in the order of Tensors.
func (m *MLP) SetTensors(ts []*tensors.Tensor) error {
	if len(ts) != m.NumParams() {
		return fmt.Errorf("nn: %d tensors for an MLP with %d parameters", len(ts), m.NumParams())
	}
	for i := range m.Layers {
		w, err := tensors.CopyFlatData[float32](ts[2*i])
		if err != nil {
			return err
		}
		b, err := tensors.CopyFlatData[float32](ts[2*i+1])
		if err != nil {
			return err
		}
		m.Layers[i].W, m.Layers[i].B = w, b
	}
	return nil
}

// Consts returns the weights as graph constants, for graphs that only read them.
func (m *MLP) Consts(g *Graph) []*Node {
	nodes := make([]*Node, 0, m.NumParams())
	for _, t := range m.Tensors() {
		nodes = append(nodes, ConstTensor(g, t))
	}
	return nodes
}

// Forward applies the MLP given as params (W0, B0, W1, B1, ...) to x of shape [rows, In].
func Forward(params []*Node, x *Node) *Node {
	n := len(params) / 2
	for i := 0; i < n; i++ {
		x = Add(Dot(x, params[2*i]).Product(), ExpandAxes(params[2*i+1], 0))
		if i < n-1 {
			x = ReLU(x)
		}
	}
	return x
}

// ReLU is max(x, 0) written with Where: its gradient is cheaper than Max's on the Go backend.
func ReLU(x *Node) *Node {
	zero := ZerosLike(x)
	return Where(GreaterThan(x, zero), x, zero)
}

// StableSoftplus is log(1 + e^x) computed stably as max(x,0) + log1p(e^-|x|). GoMLX's own
// Softplus uses ops the ONNX backend lacks.
func StableSoftplus(x *Node) *Node {
	zero := ZerosLike(x)
	return Add(Where(GreaterThan(x, zero), x, zero), Log1p(Exp(Neg(Abs(x)))))
}
