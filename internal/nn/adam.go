package nn

import (
	"fmt"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// Adam's constants, as in PyTorch and the paper.
const (
	AdamBeta1   = 0.9
	AdamBeta2   = 0.999
	AdamEpsilon = 1e-8
)

// LossFn builds a scalar loss from the model parameters and one batch of inputs.
type LossFn func(params, batch []*Node) *Node

// Trainer runs Adam steps on a set of parameters. The state (parameters and both moment
// estimates) stays in backend tensors between steps; only the batch is uploaded.
type Trainer struct {
	nParams int
	step    *Exec
	loss    *Exec
	params  []*tensors.Tensor
	m, v    []*tensors.Tensor
	t       int
	lr      float32
}

// NewTrainer compiles the Adam step of loss for the given initial parameters.
func NewTrainer(b compute.Backend, initial []*tensors.Tensor, lr float64, loss LossFn) (*Trainer, error) {
	n := len(initial)
	tr := &Trainer{nParams: n, params: initial, lr: float32(lr)}
	for _, p := range initial {
		tr.m = append(tr.m, tensors.FromShape(p.Shape()))
		tr.v = append(tr.v, tensors.FromShape(p.Shape()))
	}
	var err error
	// Inputs: params[n], m[n], v[n], t, lr, batch...
	tr.step, err = NewExec(b, func(in []*Node) []*Node {
		params, m, v := in[:n], in[n:2*n], in[2*n:3*n]
		t, lrNode, batch := in[3*n], in[3*n+1], in[3*n+2:]
		l := loss(params, batch)
		grads := Gradient(l, params...)
		one := OnesLike(t)
		bc1 := Sub(one, Pow(ConstAs(t, AdamBeta1), t))
		bc2 := Sub(one, Pow(ConstAs(t, AdamBeta2), t))
		out := make([]*Node, 0, 3*n+1)
		newM := make([]*Node, n)
		newV := make([]*Node, n)
		for i, g := range grads {
			newM[i] = Add(MulScalar(m[i], AdamBeta1), MulScalar(g, 1-AdamBeta1))
			newV[i] = Add(MulScalar(v[i], AdamBeta2), MulScalar(Square(g), 1-AdamBeta2))
			mHat := Div(newM[i], bc1)
			vHat := Div(newV[i], bc2)
			out = append(out, Sub(params[i], Mul(lrNode, Div(mHat, AddScalar(Sqrt(vHat), AdamEpsilon)))))
		}
		out = append(out, newM...)
		out = append(out, newV...)
		return append(out, l)
	})
	if err != nil {
		return nil, fmt.Errorf("nn: compiling the training step: %w", err)
	}
	tr.loss, err = NewExec(b, func(in []*Node) []*Node { return []*Node{loss(in[:n], in[n:])} })
	if err != nil {
		return nil, fmt.Errorf("nn: compiling the loss: %w", err)
	}
	return tr, nil
}

// Step runs one Adam update on batch and returns the loss before the update.
func (tr *Trainer) Step(batch ...*tensors.Tensor) (float32, error) {
	tr.t++
	args := make([]any, 0, 3*tr.nParams+2+len(batch))
	for _, group := range [][]*tensors.Tensor{tr.params, tr.m, tr.v} {
		for _, t := range group {
			args = append(args, t)
		}
	}
	args = append(args, float32(tr.t), tr.lr)
	for _, b := range batch {
		args = append(args, b)
	}
	out, err := tr.step.Exec(args...)
	if err != nil {
		return 0, fmt.Errorf("nn: training step %d: %w", tr.t, err)
	}
	n := tr.nParams
	tr.params, tr.m, tr.v = out[:n], out[n:2*n], out[2*n:3*n]
	return scalar(out[3*n])
}

// Loss evaluates the loss at the current parameters without changing them.
func (tr *Trainer) Loss(batch ...*tensors.Tensor) (float32, error) {
	args := make([]any, 0, tr.nParams+len(batch))
	for _, t := range tr.params {
		args = append(args, t)
	}
	for _, b := range batch {
		args = append(args, b)
	}
	out, err := tr.loss.Exec(args...)
	if err != nil {
		return 0, fmt.Errorf("nn: evaluating the loss: %w", err)
	}
	return scalar(out[0])
}

// Params returns the current parameter tensors.
func (tr *Trainer) Params() []*tensors.Tensor { return tr.params }

func scalar(t *tensors.Tensor) (float32, error) {
	v, err := tensors.CopyFlatData[float32](t)
	if err != nil {
		return 0, err
	}
	return v[0], nil
}

// Matrix packs rows into a [len(rows), cols] float32 tensor.
func Matrix(rows [][]float32, cols int) *tensors.Tensor {
	flat := make([]float32, 0, len(rows)*cols)
	for _, r := range rows {
		flat = append(flat, r...)
	}
	return tensors.FromFlatDataAndDimensions(flat, len(rows), cols)
}

// Rows unpacks a [rows, cols] float32 tensor.
func Rows(t *tensors.Tensor) ([][]float32, error) {
	flat, err := tensors.CopyFlatData[float32](t)
	if err != nil {
		return nil, err
	}
	dims := t.Shape().Dimensions
	if len(dims) != 2 {
		return nil, fmt.Errorf("nn: want a matrix, got shape %s", t.Shape())
	}
	out := make([][]float32, dims[0])
	for i := range out {
		out[i] = flat[i*dims[1] : (i+1)*dims[1] : (i+1)*dims[1]]
	}
	return out, nil
}

// CheckWidth reports the first row of X whose width is not want, naming the model.
func CheckWidth(model string, X [][]float32, want int) error {
	if len(X) == 0 {
		return fmt.Errorf("%s: no rows given", model)
	}
	for i, row := range X {
		if len(row) != want {
			return fmt.Errorf("%s: row %d has %d features, the model was trained on %d; fix: use data with the model's columns or retrain",
				model, i, len(row), want)
		}
	}
	return nil
}
