package quce

import (
	"fmt"
	"strings"

	. "github.com/gomlx/gomlx/core/graph"

	"github.com/quce-go/quce/backprop"
	"github.com/quce-go/quce/data"
)

// Model is a differentiable classifier: rows of J features in, C ≥ 1 outputs out (one logit
// or probability for a binary model, or one per class). Forward is GoMLX graph code, so the
// explainer gets gradients with respect to the inputs from GoMLX's autodiff (the built-in
// classifier writes out its backward pass instead, for speed: see TapedModel).
//
// Three kinds of model implement it: the built-in classifier (package classifier), any GoMLX
// model given as its store and model function (package gomlxmodel), and ONNX files exported
// from PyTorch, Keras or scikit-learn (package onnxmodel).
type Model interface {
	NumFeatures() int
	NumOutputs() int
	// Forward builds the outputs [rows, C] for x [rows, J] in x's graph. It may be called
	// several times while one graph is built.
	Forward(x *Node) *Node
}

// TapedModel is a Model that writes out its own backward pass (package backprop): the
// built-in classifier. The explainer takes its gradients through ForwardTaped; every other
// model is differentiated by GoMLX's autodiff.
type TapedModel interface {
	Model
	// ForwardTaped builds Forward's outputs for x and records them on t with their backward
	// pass; with t nil it is Forward.
	ForwardTaped(t *backprop.Tape, x *Node) *Node
}

// Units are the units a model takes its inputs in.
type Units string

const (
	// Raw inputs are the data's own values: an exported model normally standardises inside.
	Raw Units = "raw"
	// Standardized inputs are (value − mean) / std with the training split's scaler, the
	// units QUCE searches in; the built-in classifier takes these.
	Standardized Units = "standardized"
)

// Outputs say what a model's outputs are.
type Outputs string

const (
	// Logits are pre-activation scores: sigmoid(z) for one output, softmax(z) for C.
	Logits Outputs = "logit"
	// Probabilities are class probabilities (a trailing sigmoid or softmax in the model).
	Probabilities Outputs = "probability"
)

// ParseUnits accepts "raw" or "standardized" (any case; "standardised" too).
func ParseUnits(s string) (Units, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "raw":
		return Raw, nil
	case "standardized", "standardised":
		return Standardized, nil
	}
	return "", fmt.Errorf("unknown model input units %q; fix: use raw or standardized", s)
}

// ParseOutputs accepts "logit" or "probability" (any case; plurals too).
func ParseOutputs(s string) (Outputs, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "logit", "logits":
		return Logits, nil
	case "probability", "probabilities", "prob":
		return Probabilities, nil
	}
	return "", fmt.Errorf("unknown model output kind %q; fix: use logit or probability", s)
}

// LogitForwarder is implemented by models whose probability outputs come from a final
// sigmoid or softmax they can leave out (ONNX files, see package onnxmodel). The explainer
// then computes −log F(τ|x) from the logits, where it stays finite and keeps its gradient
// even when the probabilities have rounded to 0 or 1 in float32 (a clipped probability has
// no gradient, so the search could not move).
type LogitForwarder interface {
	// OutputActivation is "Sigmoid" or "Softmax" when the outputs are made by that final
	// node, else "".
	OutputActivation() string
	// ForwardLogits builds the final node's input [rows, C] for x [rows, J].
	ForwardLogits(x *Node) *Node
}

// Classifier is a Model as the explainer sees it: standardised rows in, class
// log-probabilities out. It composes the scaler in front of a model that takes raw units
// and turns logits or probabilities into log F(c|x) stably.
type Classifier struct {
	model   Model
	logits  func(*Node) *Node // the model's logits when its probabilities end in a known activation
	input   Units
	output  Outputs
	mean    []float64
	std     []float64
	classes int
}

// NewClassifier wraps m. scaler converts between original and standardised units; it is
// composed in front of m when m takes raw units.
func NewClassifier(m Model, input Units, output Outputs, scaler *data.Scaler) (*Classifier, error) {
	if m == nil {
		return nil, fmt.Errorf("quce: no model")
	}
	if _, err := ParseUnits(string(input)); err != nil {
		return nil, err
	}
	if _, err := ParseOutputs(string(output)); err != nil {
		return nil, err
	}
	j, c := m.NumFeatures(), m.NumOutputs()
	if c < 1 {
		return nil, fmt.Errorf("quce: the model has %d outputs; fix: use a model with one output (binary) or one per class", c)
	}
	if scaler == nil || len(scaler.Mean) != j {
		n := 0
		if scaler != nil {
			n = len(scaler.Mean)
		}
		return nil, fmt.Errorf("quce: the model takes %d features but the data have %d; fix: use the columns the model was trained on", j, n)
	}
	clf := &Classifier{model: m, input: input, output: output, mean: scaler.Mean, std: scaler.Std, classes: max(2, c)}
	if lf, ok := m.(LogitForwarder); ok {
		switch act := lf.OutputActivation(); {
		case act != "" && output == Logits:
			return nil, fmt.Errorf("quce: the model's output comes from a %s, so it is a probability, not a logit; fix: declare its outputs as probabilities (-model-output probability)", act)
		case act != "":
			clf.logits = lf.ForwardLogits
		}
	}
	return clf, nil
}

// Model returns the wrapped model.
func (c *Classifier) Model() Model { return c.model }

// Input returns the units the wrapped model takes.
func (c *Classifier) Input() Units { return c.input }

// Output returns what the wrapped model's outputs are.
func (c *Classifier) Output() Outputs { return c.output }

// NumFeatures is J.
func (c *Classifier) NumFeatures() int { return c.model.NumFeatures() }

// NumClasses is the number of classes: 2 for a model with one output, else C.
func (c *Classifier) NumClasses() int { return c.classes }

// probFloor keeps log p finite for a probability output that reaches 0 or 1 in float32.
const probFloor = 1e-7

// LogProbs builds log F(c|x) [rows, classes] for standardised x [rows, J].
//
// One logit z: log σ(−z), log σ(z), as −softplus(±z) (finite however large |z| is). C logits:
// log-softmax. One probability p: log p and log(1 − p); C probabilities: log p_c; each
// probability clipped to [1e-7, 1] first, so −log F(τ|x) stays below 16.2 (its gradient is
// zero where the model is that certain).
//
// A probability model that can give its logits (see LogitForwarder) is treated as the logit
// model it wraps.
func (c *Classifier) LogProbs(x *Node) *Node {
	logp, _ := c.logProbs(nil, x)
	return logp
}

// logProbs is LogProbs with a model that writes out its backward pass recorded on t. It
// also returns the model's logits [rows, C] (one column for a binary model), or nil for a
// model that gives probabilities.
func (c *Classifier) logProbs(t *backprop.Tape, x *Node) (logp, logits *Node) {
	var out *Node
	switch tm, ok := c.model.(TapedModel); {
	case c.logits != nil:
		out = c.forward(x, c.logits)
	case ok && t != nil:
		out = c.forward(x, func(in *Node) *Node { return tm.ForwardTaped(t, in) })
	default:
		out = c.rawOutputs(x)
	}
	if c.output == Probabilities && c.logits == nil {
		p := ClipScalar(out, probFloor, 1)
		if out.Shape().Dimensions[1] == 1 {
			q := ClipScalar(OneMinus(out), probFloor, 1)
			return Log(Concatenate([]*Node{q, p}, 1)), nil
		}
		return Log(p), nil
	}
	if out.Shape().Dimensions[1] == 1 {
		return Neg(stableSoftplus(Concatenate([]*Node{out, Neg(out)}, 1))), out
	}
	return LogSoftmax(out), out
}

// rawOutputs are the model's own outputs [rows, C] for standardised x.
func (c *Classifier) rawOutputs(x *Node) *Node { return c.forward(x, c.model.Forward) }

// forward applies fn (the model's forward pass, or its logits) to standardised x, in the
// units the model takes, as [rows, C].
func (c *Classifier) forward(x *Node, fn func(*Node) *Node) *Node {
	in := x
	if c.input == Raw {
		g := x.Graph()
		std, mean := ExpandAxes(Const(g, toF32(c.std)), 0), ExpandAxes(Const(g, toF32(c.mean)), 0)
		in = Add(Mul(x, std), mean)
	}
	out := fn(in)
	if out.Rank() == 1 {
		out = ExpandAxes(out, -1)
	}
	return out
}

// TargetLogProb is log F(τ|x) [rows] for standardised x [rows, J] and one-hot targets
// [rows, classes].
func (c *Classifier) TargetLogProb(x, onehot *Node) *Node {
	return ReduceSum(Mul(c.LogProbs(x), onehot), 1)
}

// targetLogProbGrad is log F(τ|x) [rows] and its gradient with respect to x [rows, J], with
// the model recorded on t (nil: autodiff). For a model that gives logits z, the head's
// gradient is written out, so that only the network is differentiated (by autodiff of the
// surrogate Σ z·StopGradient(∂/∂z), through the backward pass recorded on t): it spares the
// twenty-odd small operations of the head's autodiff, which weigh on a step of one row
// (docs/SPEED.md). With p = softmax(z),
//
//	∂ log p_τ / ∂z_c = [c = τ] − p_c = [c = τ]·Σ_{k≠τ} p_k − [c ≠ τ]·p_c
//
// taken in the last form, from the log-probabilities, so it stays accurate where p_τ is
// near 1 (1 − p_τ would lose its digits there). One logit z is the two logits (−z, z)/2 of
// the same head, whose gradient is column 1 of the same.
func (c *Classifier) targetLogProbGrad(t *backprop.Tape, x, onehot *Node) (lp, grad *Node) {
	logp, logits := c.logProbs(t, x)
	lp = ReduceSum(Mul(logp, onehot), 1)
	if logits == nil {
		return lp, t.Gradient(ReduceAllSum(lp), x)
	}
	others := Mul(Exp(logp), OneMinus(onehot)) // p_c of the classes c ≠ τ
	dz := Sub(Mul(onehot, ReduceAndKeep(others, ReduceSum, 1)), others)
	if logits.Shape().Dimensions[1] == 1 {
		dz = Slice(dz, AxisRange(), AxisElem(1))
	}
	return lp, t.Gradient(ReduceAllSum(Mul(logits, StopGradient(dz))), x)
}

// stableSoftplus is log(1 + e^x) computed as max(x,0) + log1p(e^-|x|); GoMLX's Softplus
// uses ops the ONNX Runtime backend lacks.
func stableSoftplus(x *Node) *Node {
	zero := ZerosLike(x)
	return Add(Where(GreaterThan(x, zero), x, zero), Log1p(Exp(Neg(Abs(x)))))
}

// PredictedClass is f(x) from its class probabilities: for a binary model, class 1 when
// F(1|x) ≥ threshold (ϑ); with C classes, the most probable one (lowest index on ties).
func PredictedClass(probs []float64, threshold float64) int {
	if len(probs) == 2 {
		if probs[1] >= threshold {
			return 1
		}
		return 0
	}
	best := 0
	for c, p := range probs {
		if p > probs[best] {
			best = c
		}
	}
	return best
}

// DefaultTarget is the target class τ when none is named: the most probable class other
// than the prediction (for a binary model, the other class).
func DefaultTarget(probs []float64, threshold float64) int {
	pred := PredictedClass(probs, threshold)
	best := -1
	for c, p := range probs {
		if c != pred && (best < 0 || p > probs[best]) {
			best = c
		}
	}
	return best
}
