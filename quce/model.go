package quce

import (
	"fmt"
	"math"
	"slices"
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
// log-probabilities out, in the data's class order. It composes the scaler in front of a
// model that takes raw units (or the model's own scaler, see ModelScaler), puts the model's
// outputs in the data's class order (see ClassOrder) and turns logits or probabilities into
// log F(c|x) stably.
type Classifier struct {
	model  Model
	logits func(*Node) *Node // the model's logits when its probabilities end in a known activation
	input  Units
	output Outputs
	// The model's input is x·scale + shift for the explainer's standardised x; nil: x itself.
	scale, shift []float64
	mean, std    []float64 // the explainer's scaler
	classes      int
	// order[k] is the data class of the model's output k (for one output: of a negative
	// score, then of a positive one); nil when they agree.
	order []int
}

// ClassifierOption changes how NewClassifier reads a model.
type ClassifierOption func(*Classifier) error

// ClassOrder says which data class each of the model's outputs scores: order[k] is the index
// (in the data's labels) of output k. For a model with one output, order has two entries:
// the class of a negative logit (or of a probability near 0), then of a positive one, so
// {1, 0} reads the logit z as −z (a probability p as 1 − p). Without it, output k scores
// data class k.
func ClassOrder(order []int) ClassifierOption {
	return func(c *Classifier) error {
		seen := make([]bool, c.classes)
		for _, d := range order {
			if d < 0 || d >= c.classes || seen[d] {
				return fmt.Errorf("quce: class order %v is not an order of the %d classes; fix: list each class index from 0 to %d once", order, c.classes, c.classes-1)
			}
			seen[d] = true
		}
		if len(order) != c.classes {
			return fmt.Errorf("quce: class order %v has %d entries for %d classes; fix: list each class index from 0 to %d once", order, len(order), c.classes, c.classes-1)
		}
		c.order = nil
		for k, d := range order {
			if d != k {
				c.order = slices.Clone(order)
				break
			}
		}
		return nil
	}
}

// ModelScaler is the standardisation a model with Standardized inputs was trained with,
// when it is not the explainer's scaler (the training split's): the model is fed
// (x_raw − s.Mean) / s.Std while the explainer keeps searching in its own units.
func ModelScaler(s *data.Scaler) ClassifierOption {
	return func(c *Classifier) error {
		j := c.model.NumFeatures()
		switch {
		case c.input != Standardized:
			return fmt.Errorf("quce: a model scaler is for a model that takes standardized inputs, but this one takes %s inputs; fix: declare its inputs standardized, or give no scaler", c.input)
		case s == nil || len(s.Mean) != j || len(s.Std) != j:
			return fmt.Errorf("quce: the model scaler must have the model's %d features; fix: give one mean and one scale per feature", j)
		}
		for f := range j {
			if math.IsNaN(s.Mean[f]) || math.IsInf(s.Mean[f], 0) || !(s.Std[f] > 0) || math.IsInf(s.Std[f], 0) {
				return fmt.Errorf("quce: the model scaler's feature %d has mean %v and scale %v; fix: use a finite mean and a finite scale > 0", f+1, s.Mean[f], s.Std[f])
			}
		}
		c.scale, c.shift = make([]float64, j), make([]float64, j)
		for f := range j {
			// x_raw = x·std + mean, and the model takes (x_raw − m)/s.
			c.scale[f] = c.std[f] / s.Std[f]
			c.shift[f] = (c.mean[f] - s.Mean[f]) / s.Std[f]
		}
		return nil
	}
}

// NewClassifier wraps m. scaler converts between original and standardised units; it is
// composed in front of m when m takes raw units.
func NewClassifier(m Model, input Units, output Outputs, scaler *data.Scaler, opts ...ClassifierOption) (*Classifier, error) {
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
	if input == Raw {
		clf.scale, clf.shift = scaler.Std, scaler.Mean
	}
	if lf, ok := m.(LogitForwarder); ok {
		switch act := lf.OutputActivation(); {
		case act != "" && output == Logits:
			return nil, fmt.Errorf("quce: the model's output comes from a %s, so it is a probability, not a logit; fix: declare its outputs as probabilities (pipeline.Options.ModelOutput probability)", act)
		case act != "":
			clf.logits = lf.ForwardLogits
		}
	}
	for _, o := range opts {
		if err := o(clf); err != nil {
			return nil, err
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

// ClassOrder is the data class of each of the model's outputs (see the option ClassOrder).
func (c *Classifier) ClassOrder() []int {
	if c.order == nil {
		order := make([]int, c.classes)
		for k := range order {
			order[k] = k
		}
		return order
	}
	return slices.Clone(c.order)
}

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
			return c.inDataOrder(Log(Concatenate([]*Node{q, p}, 1))), nil
		}
		return c.inDataOrder(Log(p)), nil
	}
	if out.Shape().Dimensions[1] == 1 {
		if c.order != nil { // the two classes swapped: the logit of the other one
			out = Neg(out)
		}
		return Neg(stableSoftplus(Concatenate([]*Node{out, Neg(out)}, 1))), out
	}
	out = c.inDataOrder(out)
	return LogSoftmax(out), out
}

// inDataOrder puts the columns [rows, classes] of the model's outputs in the data's class
// order: column d of the result is the model's output that scores class d.
func (c *Classifier) inDataOrder(out *Node) *Node {
	if c.order == nil {
		return out
	}
	cols := make([]*Node, len(c.order))
	for k, d := range c.order {
		cols[d] = Slice(out, AxisRange(), AxisElem(k))
	}
	return Concatenate(cols, 1)
}

// rawOutputs are the model's own outputs [rows, C], in its own order, for standardised x.
func (c *Classifier) rawOutputs(x *Node) *Node { return c.forward(x, c.model.Forward) }

// forward applies fn (the model's forward pass, or its logits) to standardised x, in the
// units the model takes, as [rows, C] in the model's own output order.
func (c *Classifier) forward(x *Node, fn func(*Node) *Node) *Node {
	in := x
	if c.scale != nil {
		g := x.Graph()
		scale, shift := ExpandAxes(Const(g, toF32(c.scale)), 0), ExpandAxes(Const(g, toF32(c.shift)), 0)
		in = Add(Mul(x, scale), shift)
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
