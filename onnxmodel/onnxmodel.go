// Package onnxmodel loads a classifier saved as an ONNX file so the explainer can explain it
// (it implements quce.Model).
//
// The route is: train in PyTorch, Keras or scikit-learn → export to ONNX (torch.onnx.export,
// tf2onnx, skl2onnx) → onnx-gomlx (github.com/gomlx/onnx-gomlx) converts the ONNX graph into
// GoMLX operations → the model is built into the explainer's GoMLX graphs like any other
// model, with its weights embedded as constants, and GoMLX's autodiff gives the gradients
// with respect to the inputs. No ONNX runtime is involved: the file's weights and graph are
// re-expressed in GoMLX and run on whichever GoMLX backend the explainer uses.
//
// What a file must look like:
//
//   - One input of shape [rows, J] (float32, or another float type, converted) with a dynamic
//     row axis, e.g. torch.onnx.export(..., dynamic_axes={"x": {0: "rows"}, "logit": {0:
//     "rows"}}). A file with several inputs is accepted when Options.Input (the CLI flag
//     -model-input-name) names the one taking the feature rows and the chosen output does
//     not depend on the others (they are fed zeros).
//   - One output of shape [rows, C]: one logit or probability for a binary model ([rows, 1]
//     or [rows]), or one per class. With several outputs, Options.Output (-model-output-name)
//     chooses; for scikit-learn export with skl2onnx's option zipmap=False and choose the
//     probabilities output.
//   - Only ops that onnx-gomlx implements: the usual MLP and CNN ops (Gemm, MatMul, Add, Sub,
//     Mul, Div, Relu, Sigmoid, Tanh, Softmax, Gelu, Clip, BatchNormalization, Conv, …) are
//     there (LeakyRelu, Selu and HardSigmoid too); among others Softplus, LogSoftmax, Elu, PRelu and the ONNX-ML ops of
//     tree models (TreeEnsembleClassifier, …) are not. Load builds the graph once, so such an
//     op is reported when the file is loaded, by name.
//
// Feature names: when the model's metadata_props has the key "feature_names", its value, the
// input columns' names separated by commas, is returned by FeatureNames. In Python:
//
//	m = onnx.load(path)
//	m.metadata_props.append(onnx.StringStringEntryProto(key="feature_names", value=",".join(cols)))
//	onnx.save(m, path)
//
// Whether the model takes raw or standardised values, and whether it outputs logits or
// probabilities, is not in the file: the caller says so (quce.NewClassifier).
package onnxmodel

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/gomlx/compute-onnx/support/protos"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/onnx-gomlx/onnx"
	"github.com/gomlx/onnx-gomlx/onnx/parser"
	"github.com/quce-go/quce/third_party/gobackend"
	"google.golang.org/protobuf/proto"

	"github.com/quce-go/quce/gomlxmodel"
)

// Options choose among a file's inputs and outputs.
type Options struct {
	// Input is the name of the graph input that takes the feature rows [rows, J]; empty: the
	// file's only input. The CLI flag is -model-input-name.
	Input string
	// Output is the name of the graph output with the scores [rows, C]; empty: the file's
	// only output. The CLI flag is -model-output-name.
	Output string
}

// FeatureNamesKey is the metadata_props key whose value lists the input's feature names,
// comma-separated.
const FeatureNamesKey = "feature_names"

// Model is a classifier loaded from an ONNX file. It implements quce.Model.
type Model struct {
	inner        *gomlxmodel.Model
	logits       *gomlxmodel.Model // the input of a final Sigmoid or Softmax; nil without one
	activation   string            // "Sigmoid", "Softmax" or ""
	path         string
	input        string
	output       string
	featureNames []string
}

// NumFeatures is J, the input's last dimension.
func (m *Model) NumFeatures() int { return m.inner.NumFeatures() }

// NumOutputs is C: 1 for an output [rows, 1] or [rows], else the output's last dimension.
func (m *Model) NumOutputs() int { return m.inner.NumOutputs() }

// Forward builds the model's outputs [rows, C] for x [rows, J] in x's graph.
func (m *Model) Forward(x *Node) *Node { return m.inner.Forward(x) }

// OutputActivation is "Sigmoid" or "Softmax" when the chosen output is made by that node
// (the file outputs probabilities), else "".
func (m *Model) OutputActivation() string { return m.activation }

// ForwardLogits builds the input of the final Sigmoid or Softmax, the logits [rows, C], for x
// [rows, J]; it is only defined when OutputActivation is not "". The explainer uses it for
// −log F(τ|x): computed from the logits, it stays finite and keeps its gradient where the
// probabilities have rounded to 0 or 1 in float32.
func (m *Model) ForwardLogits(x *Node) *Node {
	if m.logits == nil {
		panic(fmt.Errorf("onnxmodel: %s: ForwardLogits called, but output %q does not come from a final Sigmoid or Softmax (OutputActivation is \"\")", m.path, m.output))
	}
	return m.logits.Forward(x)
}

// InputName is the name of the graph input fed with the feature rows.
func (m *Model) InputName() string { return m.input }

// OutputName is the name of the graph output used as the model's scores.
func (m *Model) OutputName() string { return m.output }

// FeatureNames are the input columns' names from the file's metadata_props key
// "feature_names" (comma-separated), or nil when the file does not name them.
func (m *Model) FeatureNames() []string { return slices.Clone(m.featureNames) }

// Path is the file the model was loaded from.
func (m *Model) Path() string { return m.path }

// probeRows is the batch size of the graph Load builds to check the model.
const probeRows = 3

// Load reads an ONNX file, checks that it is a classifier the explainer can use (see the
// package documentation) and builds its graph once, so a problem — an op onnx-gomlx lacks,
// an input or output of the wrong shape — is reported here, as an error naming the file and
// the fix, rather than later.
func Load(path string, opts Options) (m *Model, err error) {
	defer func() {
		if r := recover(); r != nil {
			m, err = nil, fmt.Errorf("onnxmodel: %s: loading the model failed: %v; fix: check that the file is a classifier exported to ONNX (see the onnxmodel package documentation)", path, r)
		}
	}()
	info, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return nil, fmt.Errorf("onnxmodel: model file %s does not exist; fix: give the path of an .onnx file (relative paths are read from the working directory)", path)
	case err != nil:
		return nil, fmt.Errorf("onnxmodel: model file %s: %w; fix: give the path of a readable .onnx file", path, err)
	case info.IsDir():
		return nil, fmt.Errorf("onnxmodel: model file %s is a directory; fix: give the path of the .onnx file itself", path)
	}
	contents, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("onnxmodel: reading model file %s: %w; fix: give the path of a readable .onnx file", path, err)
	}
	notONNX := func(why string) error {
		return fmt.Errorf("onnxmodel: %s is not an ONNX model (%s); fix: export the model to ONNX (torch.onnx.export, tf2onnx, skl2onnx) and give the .onnx file", path, why)
	}
	var mp protos.ModelProto
	if err := proto.Unmarshal(contents, &mp); err != nil {
		return nil, notONNX("it does not parse as an ONNX protobuf: " + err.Error())
	}
	if mp.GetGraph() == nil || len(mp.GetOpsetImport()) == 0 || len(mp.GetGraph().GetOutput()) == 0 {
		return nil, notONNX("it has no graph, opset or outputs")
	}

	var om onnx.Model
	if err := catch(func() {
		var perr error
		om, perr = parser.Parse(contents)
		if perr != nil {
			panic(perr)
		}
	}); err != nil {
		return nil, fmt.Errorf("onnxmodel: %s: onnx-gomlx%s cannot read the model: %v; fix: export the model with float inputs and tensor outputs (for skl2onnx, the option zipmap=False)", path, onnxGoMLXVersion(), err)
	}
	defer func() { _ = om.Close() }()
	om.WithBaseDir(filepath.Dir(path))

	in, err := pickInput(path, om, opts.Input)
	if err != nil {
		return nil, err
	}
	out, err := pickOutput(path, om, opts.Output)
	if err != nil {
		return nil, err
	}
	if others := otherInputsUsed(mp.GetGraph(), out.name, in.name); len(others) > 0 {
		return nil, optionErrorf("onnxmodel: %s: output %q also depends on input(s) %s, but the explainer feeds only the feature rows (input %q); fix: export a model whose scores depend on one input [rows, features], or choose another output with {Output}",
			path, out.name, quoteList(others), in.name)
	}
	names, err := featureNames(path, &mp, in.features)
	if err != nil {
		return nil, err
	}

	store := model.NewStore()
	if err := catch(func() {
		if verr := om.VariablesToScope(store.RootScope()); verr != nil {
			panic(verr)
		}
	}); err != nil {
		return nil, fmt.Errorf("onnxmodel: %s: reading the model's weights: %v; fix: keep the weights inside the .onnx file, or next to it for external data", path, err)
	}
	if err := finiteWeights(path, store); err != nil {
		return nil, err
	}
	fn := forwardFn(om, in, out)
	if err := probe(fn, store, in.features); err != nil {
		return nil, explainBuildError(path, out.name, in, err)
	}
	inner, err := gomlxmodel.New(store, fn, in.features)
	if err != nil {
		return nil, fmt.Errorf("onnxmodel: %s: %w", path, err)
	}
	m = &Model{inner: inner, path: path, input: in.name, output: out.name, featureNames: names}
	if act, logitsName := finalActivation(mp.GetGraph(), out.name); act != "" {
		lfn := forwardFn(om, in, outputSpec{name: logitsName})
		// Logits of another shape than the output (a Softmax over a middle axis, say), or a
		// Softmax over fewer than two classes or over the rows, are not used: the model then
		// stays a probability model.
		if ls, err := probeShape(lfn, store, in.features); err == nil && (act == "Sigmoid" || ls.Rank() == 2) {
			if logits, err := gomlxmodel.New(store, lfn, in.features); err == nil && logits.NumOutputs() == inner.NumOutputs() &&
				(act == "Sigmoid" || logits.NumOutputs() >= 2) {
				m.logits, m.activation = logits, act
			}
		}
	}
	return m, nil
}

// finiteWeights checks that every float32 or float64 weight (the file's initializers) is a
// finite number: a NaN or an infinity left by a training run that diverged would make every
// score NaN, and every explanation with it.
func finiteWeights(path string, store *model.Store) error {
	for v := range store.RootScope().IterVariables() {
		t, err := v.Value()
		if err != nil {
			return fmt.Errorf("onnxmodel: %s: reading weight %q: %w", path, v.Name(), err)
		}
		bad, first, firstAt := 0, 0.0, -1
		check := func(i int, x float64) {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				if bad == 0 {
					first, firstAt = x, i
				}
				bad++
			}
		}
		switch t.DType() {
		case dtypes.Float32:
			tensors.MustConstFlatData(t, func(flat []float32) {
				for i, x := range flat {
					check(i, float64(x))
				}
			})
		case dtypes.Float64:
			tensors.MustConstFlatData(t, func(flat []float64) {
				for i, x := range flat {
					check(i, x)
				}
			})
		}
		if bad > 0 {
			return fmt.Errorf("onnxmodel: %s: weight %q holds %v at position %d (%d of its %d values are not finite), so the model's scores would be NaN; fix: export the model from a network whose weights are finite (a training run that diverged leaves NaN)",
				path, v.Name(), first, firstAt, bad, t.Shape().Size())
		}
	}
	return nil
}

// passThrough are the ops allowed between the final Sigmoid or Softmax and the graph
// output. They change no value, only the shape, and Load keeps the logits only when they
// and the output are both [rows, C] (or [rows]), so the output is the activation of the
// logits as they are.
var passThrough = map[string]bool{"Identity": true, "Flatten": true, "Reshape": true, "Squeeze": true, "Unsqueeze": true}

// finalActivation reports whether output is made by a Sigmoid, or by a Softmax over the last
// axis, possibly followed by pass-through ops (Identity, Reshape, …), and names that node's
// input (the logits).
func finalActivation(g *protos.GraphProto, output string) (op, logits string) {
	producer := map[string]*protos.NodeProto{}
	for _, n := range g.GetNode() {
		for _, o := range n.GetOutput() {
			producer[o] = n
		}
	}
	name := output
	for range len(g.GetNode()) + 1 {
		n := producer[name]
		if n == nil || len(n.GetInput()) == 0 {
			return "", ""
		}
		switch n.GetOpType() {
		case "Sigmoid":
			return "Sigmoid", n.GetInput()[0]
		case "Softmax":
			axis := int64(-1) // the default since opset 13; before, 1, the same for [rows, C]
			for _, a := range n.GetAttribute() {
				if a.GetName() == "axis" {
					axis = a.GetI()
				}
			}
			if axis == -1 || axis == 1 {
				return "Softmax", n.GetInput()[0]
			}
			return "", ""
		}
		if !passThrough[n.GetOpType()] {
			return "", ""
		}
		name = n.GetInput()[0]
	}
	return "", ""
}

// inputSpec is the chosen input and the others, which are fed zeros.
type inputSpec struct {
	name     string
	features int
	dtype    dtypes.DType
	rowAxis  string // the name of the dynamic row axis, if any
	others   []otherInput
}

type otherInput struct {
	name  string
	shape shapes.Shape
}

type outputSpec struct{ name string }

func pickInput(path string, om onnx.Model, want string) (inputSpec, error) {
	names, dshapes := om.Inputs()
	idx, err := pick(path, "input", "Input", names, dshapes, want)
	if err != nil {
		return inputSpec{}, err
	}
	name, s := names[idx], dshapes[idx]
	spec := inputSpec{name: name, dtype: s.DType}
	for i, n := range names {
		if i != idx {
			spec.others = append(spec.others, otherInput{name: n, shape: dshapes[i]})
		}
	}
	if !s.DType.IsFloat() {
		return spec, fmt.Errorf("onnxmodel: %s: input %q has dtype %s; the explainer feeds float feature values; fix: export the model with a float32 input", path, name, s.DType)
	}
	if s.Rank() != 2 {
		return spec, fmt.Errorf("onnxmodel: %s: input %q has shape %s (rank %d); the explainer feeds rows of features [rows, J]; fix: export the model with a 2-D input [rows, features] (reshape inside the model if it needs another layout)", path, name, describeShape(s), s.Rank())
	}
	if s.Dimensions[1] <= 0 {
		return spec, fmt.Errorf("onnxmodel: %s: input %q has shape %s, whose feature axis is not static; fix: export with a fixed number of features and only the row axis dynamic, e.g. dynamic_axes={%q: {0: \"rows\"}}", path, name, describeShape(s), name)
	}
	if s.Dimensions[0] > 0 {
		return spec, fmt.Errorf("onnxmodel: %s: input %q has shape %s: its row axis is fixed to %d; fix: export with a dynamic row axis, e.g. torch.onnx.export(..., dynamic_axes={%q: {0: \"rows\"}, <output>: {0: \"rows\"}})", path, name, describeShape(s), s.Dimensions[0], name)
	}
	spec.features = s.Dimensions[1]
	spec.rowAxis = s.AxisName(0)
	return spec, nil
}

func pickOutput(path string, om onnx.Model, want string) (outputSpec, error) {
	names, dshapes := om.Outputs()
	idx, err := pick(path, "output", "Output", names, dshapes, want)
	if err != nil {
		return outputSpec{}, err
	}
	if !dshapes[idx].DType.IsFloat() {
		return outputSpec{}, optionErrorf("onnxmodel: %s: output %q has dtype %s, not scores; fix: choose the output with the logits or probabilities with {Output}", path, names[idx], dshapes[idx].DType)
	}
	return outputSpec{name: names[idx]}, nil
}

// pick returns the index of the input or output named want, or of the only one; option is
// the Options field that names it.
func pick(path, what, option string, names []string, dshapes []shapes.Shape, want string) (int, error) {
	list := make([]string, len(names))
	for i, n := range names {
		list[i] = fmt.Sprintf("%q %s", n, describeShape(dshapes[i]))
	}
	if want != "" {
		if i := slices.Index(names, want); i >= 0 {
			return i, nil
		}
		return 0, optionErrorf("onnxmodel: %s has no %s named %q; its %ss are %s; fix: set {%s} to one of them",
			path, what, want, what, strings.Join(list, ", "), option)
	}
	switch len(names) {
	case 0:
		return 0, fmt.Errorf("onnxmodel: %s has no %ss; fix: export the model with one input [rows, features] and one output [rows, C]", path, what)
	case 1:
		return 0, nil
	}
	role := "the one that takes the feature rows [rows, features]"
	if what == "output" {
		role = "the one with the scores (logits or probabilities) [rows, C]"
	}
	return 0, optionErrorf("onnxmodel: %s has %d %ss: %s; fix: choose %s with {%s}",
		path, len(names), what, strings.Join(list, ", "), role, option)
}

// OptionError is a problem that an Options field fixes: which of the graph's inputs (Input)
// or outputs (Output) to use. Error names the field as a Go field, as "Options.Output"; Text
// names it as a caller's own interface does, such as the command line's flags.
type OptionError struct{ msg string } // with {Input} or {Output} where the option is named

var optionName = regexp.MustCompile(`\{(Input|Output)\}`)

// Text is the message with each option named by name(field), field being Input or Output.
func (e *OptionError) Text(name func(field string) string) string {
	return optionName.ReplaceAllStringFunc(e.msg, func(m string) string { return name(m[1 : len(m)-1]) })
}

func (e *OptionError) Error() string {
	return e.Text(func(f string) string { return "Options." + f })
}

func optionErrorf(format string, args ...any) *OptionError {
	return &OptionError{msg: fmt.Sprintf(format, args...)}
}

// forwardFn calls the ONNX graph on x, converting x to the input's dtype and the output back
// to x's, and feeding zeros to the other inputs (which the output does not depend on).
func forwardFn(om onnx.Model, in inputSpec, out outputSpec) gomlxmodel.Fn {
	return func(scope *model.Scope, x *Node) *Node {
		g := x.Graph()
		feed := map[string]*Node{in.name: x}
		if x.DType() != in.dtype {
			feed[in.name] = ConvertDType(x, in.dtype)
		}
		rows := x.Shape().Dimensions[0]
		for _, o := range in.others {
			dims := slices.Clone(o.shape.Dimensions)
			for a, d := range dims {
				if d <= 0 {
					dims[a] = 1
					if a == 0 || (in.rowAxis != "" && o.shape.AxisName(a) == in.rowAxis) {
						dims[a] = rows
					}
				}
			}
			feed[o.name] = Zeros(g, shapes.Make(o.shape.DType, dims...))
		}
		y := om.CallGraph(scope, g, feed, out.name)[0]
		if y.DType() != x.DType() {
			y = ConvertDType(y, x.DType())
		}
		return y
	}
}

// probe builds fn on probeRows rows and checks the output's shape.
func probe(fn gomlxmodel.Fn, store *model.Store, features int) error {
	_, err := probeShape(fn, store, features)
	return err
}

// probeShape is probe, also returning the output's shape.
func probeShape(fn gomlxmodel.Fn, store *model.Store, features int) (s shapes.Shape, err error) {
	err = catch(func() {
		b, err := gobackend.New("")
		if err != nil {
			panic(err)
		}
		defer b.Finalize()
		g := NewGraph(b, "onnxmodel_probe")
		x := Parameter(g, "x", shapes.Make(dtypes.Float32, probeRows, features))
		y := fn(store.RootScope(), x)
		s = y.Shape()
		dims := s.Dimensions
		if !(len(dims) == 1 && dims[0] == probeRows) && !(len(dims) == 2 && dims[0] == probeRows && dims[1] >= 1) {
			panic(&shapeError{got: s})
		}
	})
	return s, err
}

type shapeError struct{ got shapes.Shape }

func (e *shapeError) Error() string { return fmt.Sprintf("output shape %s", e.got) }

var unimplementedOp = regexp.MustCompile(`unimplemented ONNX op "([^"]+)"`)

// explainBuildError turns a failure to build the graph into an error naming the file and
// the fix.
func explainBuildError(path, output string, in inputSpec, err error) error {
	var se *shapeError
	if errors.As(err, &se) {
		return fmt.Errorf("onnxmodel: %s: output %q has shape %s for a batch of %d rows; the explainer needs [rows, C] (one score per class, C ≥ 1) or [rows] (one binary score); fix: export the scores as a 2-D output [rows, C] (e.g. reshape or flatten them before returning)",
			path, output, describeShape(se.got), probeRows)
	}
	if m := unimplementedOp.FindStringSubmatch(err.Error()); m != nil {
		return fmt.Errorf("onnxmodel: %s uses the ONNX op %s, which onnx-gomlx%s does not support; fix: export with supported ops instead (e.g. activation Relu, Tanh or Sigmoid in place of Elu, PRelu or Softplus; Softmax then Log in place of LogSoftmax), or output logits and drop the op",
			path, m[1], onnxGoMLXVersion())
	}
	msg := err.Error()
	if i := strings.Index(msg, "\n"); i >= 0 {
		msg = msg[:i] // drop the stack trace onnx-gomlx's errors carry
	}
	return fmt.Errorf("onnxmodel: %s: onnx-gomlx%s cannot build the graph of output %q from input %q [rows, %d]: %s; fix: export with opset ≥ 13, float32 weights, one input [rows, features] and ops onnx-gomlx supports",
		path, onnxGoMLXVersion(), output, in.name, in.features, msg)
}

// otherInputsUsed lists the graph inputs other than chosen that output depends on.
func otherInputsUsed(g *protos.GraphProto, output, chosen string) []string {
	producer := map[string]*protos.NodeProto{}
	for _, n := range g.GetNode() {
		for _, o := range n.GetOutput() {
			producer[o] = n
		}
	}
	inputs := map[string]bool{}
	for _, in := range g.GetInput() {
		inputs[in.GetName()] = true
	}
	seen := map[string]bool{}
	var used []string
	var visit func(name string)
	visit = func(name string) {
		if name == "" || seen[name] {
			return
		}
		seen[name] = true
		if inputs[name] && name != chosen {
			used = append(used, name)
		}
		if n := producer[name]; n != nil {
			for _, i := range nodeInputs(n) {
				visit(i)
			}
		}
	}
	visit(output)
	slices.Sort(used)
	return used
}

// nodeInputs are a node's inputs and the names its sub-graphs (If, Loop) take from outside.
func nodeInputs(n *protos.NodeProto) []string {
	names := slices.Clone(n.GetInput())
	for _, a := range n.GetAttribute() {
		subs := a.GetGraphs()
		if a.GetG() != nil {
			subs = append(subs, a.GetG())
		}
		for _, sg := range subs {
			for _, sn := range sg.GetNode() {
				names = append(names, nodeInputs(sn)...)
			}
		}
	}
	return names
}

// featureNames reads metadata_props "feature_names".
func featureNames(path string, mp *protos.ModelProto, features int) ([]string, error) {
	for _, p := range mp.GetMetadataProps() {
		if p.GetKey() != FeatureNamesKey {
			continue
		}
		names := strings.Split(p.GetValue(), ",")
		for i := range names {
			names[i] = strings.TrimSpace(names[i])
		}
		if len(names) != features {
			return nil, fmt.Errorf("onnxmodel: %s: its metadata %q lists %d names but the input has %d features; fix: store the input columns' names, comma-separated, in metadata_props %q",
				path, FeatureNamesKey, len(names), features, FeatureNamesKey)
		}
		return names, nil
	}
	return nil, nil
}

// catch runs fn and returns what it panics with as an error.
func catch(fn func()) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if e, ok := r.(error); ok {
				err = e
			} else {
				err = fmt.Errorf("%v", r)
			}
		}
	}()
	fn()
	return nil
}

func describeShape(s shapes.Shape) string {
	parts := make([]string, s.Rank())
	for i, d := range s.Dimensions {
		if d > 0 {
			parts[i] = fmt.Sprint(d)
		} else if n := s.AxisName(i); n != "" && n != "?" {
			parts[i] = n
		} else {
			parts[i] = "?"
		}
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

func quoteList(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = fmt.Sprintf("%q", n)
	}
	return strings.Join(q, ", ")
}

// testedONNXGoMLX is the onnx-gomlx version this package was written and tested against; it
// names the version in messages when the binary carries no module information (tests).
const testedONNXGoMLX = "v0.5.13"

// onnxGoMLXVersion is " vX.Y.Z", the onnx-gomlx module's version in this binary.
func onnxGoMLXVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			if d.Path == "github.com/gomlx/onnx-gomlx" {
				if d.Replace != nil {
					d = d.Replace
				}
				if d.Version != "" && d.Version != "(devel)" {
					return " " + d.Version
				}
			}
		}
	}
	return " " + testedONNXGoMLX
}
