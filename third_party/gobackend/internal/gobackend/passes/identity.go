package passes

import (
	"github.com/gomlx/compute"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

func init() {
	gobackend.RegisterTransformation(90, &IdentityElision{})
}

// IdentityElision makes the operations that read an Identity node (StopGradient in GoMLX's
// graphs, for instance) read its operand instead.
//
// An Identity executes as a copy of its operand wherever the operand is still used
// elsewhere, and in any case costs an operation's dispatch: in a graph of many small
// operations (a step of an optimisation written with a tape of StopGradients) that is a few
// percent of the time. Values are never changed in place unless their last reader owns them,
// and the readers are counted after the passes, so reading the operand is the same.
//
// A function's outputs are left as they are; an Identity no operation reads any more is
// removed by the dead-code elimination at compilation.
type IdentityElision struct{}

// Name implements compute.GraphTransformation.
func (p *IdentityElision) Name() string {
	return "IdentityElision"
}

// Apply implements compute.GraphTransformation. The operands precede their Identity nodes,
// so the nodes stay in topological order.
func (p *IdentityElision) Apply(b *gobackend.Builder) (bool, error) {
	for _, f := range b.Functions {
		for _, node := range f.Nodes {
			for i, input := range node.Inputs {
				for input.OpType == compute.OpTypeIdentity {
					input = input.Inputs[0]
				}
				node.Inputs[i] = input
			}
		}
	}
	return false, nil
}
