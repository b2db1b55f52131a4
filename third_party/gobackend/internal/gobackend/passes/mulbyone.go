package passes

import (
	"github.com/gomlx/compute"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

func init() {
	gobackend.RegisterTransformation(95, &MulByOneElision{})
}

// MulByOneElision makes the operations that read a product x·1 (a Mul of x by a constant of
// ones, itself or reshaped or broadcast, whose shape is the product's) read x instead.
//
// Reverse-mode differentiation makes such products: the gradient of Σ(x ⊙ c) with respect to
// x is the broadcast seed 1 times c, and a graph that adds terms like it to a loss (to chain
// hand-written backward passes) has one per term, at every execution of an optimisation
// step. x·1 is x in every floating-point format and integer type (a signalling NaN aside,
// which the multiplication would make quiet), so reading x is the same.
//
// A function's outputs are left as they are; a product no operation reads any more is
// removed by the dead-code elimination at compilation.
type MulByOneElision struct{}

// Name implements compute.GraphTransformation.
func (p *MulByOneElision) Name() string {
	return "MulByOneElision"
}

// Apply implements compute.GraphTransformation. x precedes its product, so the nodes stay in
// topological order.
func (p *MulByOneElision) Apply(b *gobackend.Builder) (bool, error) {
	for _, f := range b.Functions {
		for _, node := range f.Nodes {
			for i, input := range node.Inputs {
				if x := mulByOneOperand(input); x != nil {
					node.Inputs[i] = x
				}
			}
		}
	}
	return false, nil
}

// mulByOneOperand is x when node is x·1 (either way round) with x of node's shape, else nil.
func mulByOneOperand(node *gobackend.Node) *gobackend.Node {
	if node.OpType != compute.OpTypeMul {
		return nil
	}
	for i, ones := range node.Inputs {
		x := node.Inputs[1-i]
		if x.Shape.Equal(node.Shape) && allOnes(ones) {
			return x
		}
	}
	return nil
}

// allOnes reports whether node is a constant whose elements are all 1, or a Reshape or
// BroadcastInDim of one.
func allOnes(node *gobackend.Node) bool {
	for node.OpType == compute.OpTypeReshape || node.OpType == compute.OpTypeBroadcastInDim {
		node = node.Inputs[0]
	}
	if node.OpType != compute.OpTypeConstant {
		return false
	}
	buf, ok := node.Data.(*gobackend.Buffer)
	if !ok {
		return false
	}
	switch flat := buf.Flat.(type) {
	case []float32:
		return every(flat, 1)
	case []float64:
		return every(flat, 1)
	case []int32:
		return every(flat, 1)
	case []int64:
		return every(flat, 1)
	}
	return false
}

// every reports whether every element of flat is v (and flat is not empty).
func every[T comparable](flat []T, v T) bool {
	for _, e := range flat {
		if e != v {
			return false
		}
	}
	return len(flat) > 0
}
