package onnxmodel_test

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/compute-onnx/support/protos"
	"github.com/gomlx/gomlx/core/graph"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/quce-go/quce/third_party/gobackend"
	"google.golang.org/protobuf/proto"

	"github.com/quce-go/quce/gomlxmodel"
	"github.com/quce-go/quce/onnxmodel"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

const models = "../testdata/models"

// tol is the comparison tolerance: got matches want when
//
//	|got − want| ≤ tol · (|want| + max|want|)
//
// with max|want| over the whole array compared (all rows and columns). That is 1e-5
// relative for entries near the array's largest, and 1e-5 of the array's scale for entries
// near zero, where both float32 computations are left with rounding noise only (e.g. the
// gradient of a probability the model is certain of, p(1−p) with 1−p ≈ 1e-7).
const tol = 1e-5

var _ quce.Model = (*onnxmodel.Model)(nil)

type expected struct {
	Model        string        `json:"model"`
	InputUnits   string        `json:"input_units"`
	OutputKind   string        `json:"output_kind"`
	Features     int           `json:"features"`
	Outputs      int           `json:"outputs"`
	Rows         [][]float32   `json:"rows"`
	OutputValues [][]float32   `json:"output_values"`
	Grads        [][][]float32 `json:"grads"`
}

func readExpected(t *testing.T, name string) expected {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(models, name+".expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e expected
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// evaluate runs m on rows and returns its outputs and, per output c, the gradient with
// respect to the rows of the sum over the rows of output c.
func evaluate(t *testing.T, m quce.Model, rows [][]float32) ([][]float32, [][][]float32) {
	t.Helper()
	b, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	c := m.NumOutputs()
	ex, err := graph.NewExec(b, func(x *Node) []*Node {
		y := m.Forward(x)
		outs := []*Node{y}
		for k := range c {
			outs = append(outs, Gradient(ReduceAllSum(Slice(y, AxisRange(), AxisElem(k))), x)[0])
		}
		return outs
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ex.Exec(tensors.FromValue(rows))
	if err != nil {
		t.Fatal(err)
	}
	out := res[0].Value().([][]float32)
	grads := make([][][]float32, c)
	for k := range c {
		grads[k] = res[1+k].Value().([][]float32)
	}
	return out, grads
}

// compare checks got against want with the tolerance tol (see its doc) and returns the
// largest |got − want| / (|want| + max|want|).
func compare(t *testing.T, what string, got, want [][]float32) float64 {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d rows, want %d", what, len(got), len(want))
	}
	scale := 0.0
	for _, r := range want {
		for _, v := range r {
			scale = max(scale, math.Abs(float64(v)))
		}
	}
	worst := 0.0
	for i := range want {
		if len(got[i]) != len(want[i]) {
			t.Fatalf("%s row %d: %d columns, want %d", what, i, len(got[i]), len(want[i]))
		}
		for j := range want[i] {
			g, w := float64(got[i][j]), float64(want[i][j])
			bound := math.Abs(w) + scale
			if bound == 0 {
				bound = 1
			}
			d := math.Abs(g-w) / bound
			worst = max(worst, d)
			if d > tol {
				t.Errorf("%s[%d][%d] = %.8g, want %.8g (|diff| = %.3g > %g·(|want| + %.3g))", what, i, j, g, w, math.Abs(g-w), tol, scale)
			}
		}
	}
	return worst
}

func TestMatchesPyTorch(t *testing.T) {
	for _, tc := range []struct {
		name         string
		features     int
		outputs      int
		featureNames bool
	}{
		{"wbc_raw", 30, 1, true},
		{"wbc_prob", 30, 1, true},
		{"iris", 4, 3, true},
		{"iris_prob", 4, 3, true},
		{"wbc_std", 30, 1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			exp := readExpected(t, tc.name)
			path := filepath.Join(models, exp.Model)
			m, err := onnxmodel.Load(path, onnxmodel.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if m.NumFeatures() != tc.features || m.NumOutputs() != tc.outputs {
				t.Fatalf("NumFeatures, NumOutputs = %d, %d; want %d, %d", m.NumFeatures(), m.NumOutputs(), tc.features, tc.outputs)
			}
			if m.NumFeatures() != exp.Features || m.NumOutputs() != exp.Outputs {
				t.Fatalf("expected.json says %d features, %d outputs", exp.Features, exp.Outputs)
			}
			if m.InputName() != "x" || m.Path() != path {
				t.Errorf("InputName, Path = %q, %q", m.InputName(), m.Path())
			}
			if names := m.FeatureNames(); (names != nil) != tc.featureNames || (names != nil && len(names) != tc.features) {
				t.Errorf("FeatureNames = %q", names)
			}
			out, grads := evaluate(t, m, exp.Rows)
			worst := compare(t, "outputs", out, exp.OutputValues)
			for k := range grads {
				worst = max(worst, compare(t, "grads["+string(rune('0'+k))+"]", grads[k], exp.Grads[k]))
			}
			t.Logf("largest |got − want| / (|want| + max|want|): %.2g", worst)
		})
	}
}

func TestFeatureNames(t *testing.T) {
	m, err := onnxmodel.Load(filepath.Join(models, "iris.onnx"), onnxmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"sepal_length", "sepal_width", "petal_length", "petal_width"}
	if got := m.FeatureNames(); !slices.Equal(got, want) {
		t.Errorf("FeatureNames = %q, want %q", got, want)
	}
	m.FeatureNames()[0] = "changed"
	if m.FeatureNames()[0] != want[0] {
		t.Error("FeatureNames returns the model's own slice")
	}
}

// mlpWeights is wbc_mlp_weights.json: layers.Dense's layout, weights [in, out].
type mlpWeights struct {
	Hidden struct {
		Weights [][]float32 `json:"weights"`
		Biases  []float32   `json:"biases"`
	} `json:"hidden"`
	Output struct {
		Weights [][]float32 `json:"weights"`
		Biases  []float32   `json:"biases"`
	} `json:"output"`
}

// TestNativeGoMLXTwin builds the network of wbc_std.onnx as a GoMLX model (layers.Dense with
// the same weights, via gomlxmodel) and checks both give the same outputs and gradients.
func TestNativeGoMLXTwin(t *testing.T) {
	b, err := os.ReadFile(filepath.Join(models, "wbc_mlp_weights.json"))
	if err != nil {
		t.Fatal(err)
	}
	var w mlpWeights
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	store := model.NewStore()
	for path, v := range map[string]any{
		"/hidden/dense/weights": w.Hidden.Weights,
		"/hidden/dense/biases":  w.Hidden.Biases,
		"/output/dense/weights": w.Output.Weights,
		"/output/dense/biases":  w.Output.Biases,
	} {
		val, err := tensors.FromAnyValue(v)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := store.CreateVariable(path, val); err != nil {
			t.Fatal(err)
		}
	}
	native, err := gomlxmodel.New(store, func(scope *model.Scope, x *Node) *Node {
		h := activation.Relu(layers.DenseWithBias(scope.In("hidden"), x, 16))
		return layers.DenseWithBias(scope.In("output"), h, 1)
	}, 30)
	if err != nil {
		t.Fatal(err)
	}
	fromONNX, err := onnxmodel.Load(filepath.Join(models, "wbc_std.onnx"), onnxmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if native.NumFeatures() != fromONNX.NumFeatures() || native.NumOutputs() != fromONNX.NumOutputs() {
		t.Fatalf("native %d→%d, ONNX %d→%d", native.NumFeatures(), native.NumOutputs(), fromONNX.NumFeatures(), fromONNX.NumOutputs())
	}
	// The fixture's rows and 50 more, standard normal like standardised data.
	rows := readExpected(t, "wbc_std").Rows
	rng := rand.New(rand.NewPCG(1, 2))
	for range 50 {
		r := make([]float32, 30)
		for j := range r {
			r[j] = float32(rng.NormFloat64())
		}
		rows = append(rows, r)
	}
	outN, gradN := evaluate(t, native, rows)
	outO, gradO := evaluate(t, fromONNX, rows)
	worst := max(compare(t, "outputs", outO, outN), compare(t, "grads", gradO[0], gradN[0]))
	t.Logf("largest |onnx − native| / (|native| + max|native|): %.2g", worst)
	// And both match PyTorch on the fixture's rows.
	exp := readExpected(t, "wbc_std")
	compare(t, "native outputs vs PyTorch", outN[:10], exp.OutputValues)
	compare(t, "native grads vs PyTorch", gradN[0][:10], exp.Grads[0])
}

func TestChooseInputAndOutput(t *testing.T) {
	two := filepath.Join(models, "two_outputs.onnx")
	logit, err := onnxmodel.Load(two, onnxmodel.Options{Output: "logit"})
	if err != nil {
		t.Fatal(err)
	}
	prob, err := onnxmodel.Load(two, onnxmodel.Options{Output: "prob"})
	if err != nil {
		t.Fatal(err)
	}
	if prob.OutputName() != "prob" || prob.NumOutputs() != 1 || prob.NumFeatures() != 30 {
		t.Fatalf("prob: output %q, %d→%d", prob.OutputName(), prob.NumFeatures(), prob.NumOutputs())
	}
	rows := readExpected(t, "wbc_std").Rows
	z, _ := evaluate(t, logit, rows)
	p, _ := evaluate(t, prob, rows)
	sig := make([][]float32, len(z))
	for i := range z {
		sig[i] = []float32{float32(1 / (1 + math.Exp(-float64(z[i][0]))))}
	}
	compare(t, "prob vs sigmoid(logit)", p, sig)

	// two_inputs.onnx: y = x·(1,2,3,4)ᵀ depends on x only; aux is fed zeros.
	y, err := onnxmodel.Load(filepath.Join(models, "two_inputs.onnx"), onnxmodel.Options{Input: "x", Output: "y"})
	if err != nil {
		t.Fatal(err)
	}
	if y.InputName() != "x" || y.NumFeatures() != 4 || y.NumOutputs() != 1 {
		t.Fatalf("two_inputs y: input %q, %d→%d", y.InputName(), y.NumFeatures(), y.NumOutputs())
	}
	x := [][]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 1, 1}}
	out, grads := evaluate(t, y, x)
	compare(t, "two_inputs y", out, [][]float32{{1}, {2}, {10}})
	compare(t, "two_inputs dy/dx", grads[0], [][]float32{{1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}})
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	random := filepath.Join(dir, "random.onnx")
	rng := rand.New(rand.NewPCG(3, 4))
	buf := make([]byte, 4096)
	for i := range buf {
		buf[i] = byte(rng.Uint32())
	}
	if err := os.WriteFile(random, buf, 0o644); err != nil {
		t.Fatal(err)
	}
	empty := filepath.Join(dir, "empty.onnx")
	if err := os.WriteFile(empty, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	m := func(name string) string { return filepath.Join(models, name) }
	for _, tc := range []struct {
		name string
		path string
		opts onnxmodel.Options
		want []string // substrings of the error, besides the file name and "fix:"
	}{
		{"missing file", m("no_such_model.onnx"), onnxmodel.Options{}, []string{"does not exist"}},
		{"directory", models, onnxmodel.Options{}, []string{"directory"}},
		{"CSV", "../testdata/iris.csv", onnxmodel.Options{}, []string{"not an ONNX model"}},
		{"random bytes", random, onnxmodel.Options{}, []string{"not an ONNX model"}},
		{"empty file", empty, onnxmodel.Options{}, []string{"not an ONNX model"}},
		{"unsupported op", m("unsupported_op.onnx"), onnxmodel.Options{}, []string{"uses the ONNX op Elu, which onnx-gomlx v", "does not support", "Relu"}},
		{"two outputs", m("two_outputs.onnx"), onnxmodel.Options{}, []string{`"logit"`, `"prob"`, "Options.Output"}},
		{"unknown output", m("two_outputs.onnx"), onnxmodel.Options{Output: "score"}, []string{`"score"`, `"logit"`, `"prob"`, "Options.Output"}},
		{"two inputs", m("two_inputs.onnx"), onnxmodel.Options{}, []string{`"x"`, `"aux"`, "Options.Input"}},
		{"unknown input", m("two_inputs.onnx"), onnxmodel.Options{Input: "features", Output: "y"}, []string{`"features"`, `"x"`, `"aux"`, "Options.Input"}},
		{"two inputs, output unchosen", m("two_inputs.onnx"), onnxmodel.Options{Input: "x"}, []string{`"y"`, `"z"`, "Options.Output"}},
		{"output needs the other input", m("two_inputs.onnx"), onnxmodel.Options{Input: "x", Output: "z"}, []string{`"z"`, `"aux"`, "depends"}},
		{"rank-3 output", m("bad_shape.onnx"), onnxmodel.Options{}, []string{"[3, 2, 2]", "[rows, C]"}},
		{"dynamic width", m("dynamic_width.onnx"), onnxmodel.Options{}, []string{"[rows, features]", "not static"}},
		{"rank-3 input", m("rank3_input.onnx"), onnxmodel.Options{}, []string{"[rows, 2, 15]", "rank 3"}},
		{"fixed batch", m("fixed_batch.onnx"), onnxmodel.Options{}, []string{"[1, 4]", "fixed to 1", "dynamic row axis"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got *onnxmodel.Model
			var err error
			func() {
				defer func() {
					if r := recover(); r != nil {
						t.Fatalf("Load panicked: %v", r)
					}
				}()
				got, err = onnxmodel.Load(tc.path, tc.opts)
			}()
			if err == nil {
				t.Fatalf("Load(%s) = %v, want an error", tc.path, got)
			}
			msg := err.Error()
			for _, s := range append([]string{tc.path, "fix:"}, tc.want...) {
				if !strings.Contains(msg, s) {
					t.Errorf("error does not contain %q:\n%s", s, msg)
				}
			}
			if strings.Contains(msg, "\n") {
				t.Errorf("error has several lines:\n%s", msg)
			}
			t.Log(msg)
		})
	}
}

// TestSmallShapes covers an output of shape [rows] (one output, given as [rows, 1]) and a
// float64 model fed float32 rows.
func TestSmallShapes(t *testing.T) {
	x := [][]float32{{1, 0, 0, 0}, {0, 1, 0, 0}, {1, 1, 1, 1}}
	for _, name := range []string{"vector_output.onnx", "float64_input.onnx"} {
		t.Run(name, func(t *testing.T) {
			m, err := onnxmodel.Load(filepath.Join(models, name), onnxmodel.Options{})
			if err != nil {
				t.Fatal(err)
			}
			if m.NumFeatures() != 4 || m.NumOutputs() != 1 {
				t.Fatalf("%d→%d, want 4→1", m.NumFeatures(), m.NumOutputs())
			}
			out, grads := evaluate(t, m, x)
			compare(t, "y", out, [][]float32{{1}, {2}, {10}})
			compare(t, "dy/dx", grads[0], [][]float32{{1, 2, 3, 4}, {1, 2, 3, 4}, {1, 2, 3, 4}})
		})
	}
}

// TestForwardTwice builds the model twice into one graph, as the explainer does.
func TestForwardTwice(t *testing.T) {
	m, err := onnxmodel.Load(filepath.Join(models, "iris.onnx"), onnxmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	exp := readExpected(t, "iris")
	b, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	ex, err := graph.NewExec(b, func(x *Node) []*Node {
		return []*Node{m.Forward(x), m.Forward(MulScalar(x, 1))}
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := ex.Exec(tensors.FromValue(exp.Rows))
	if err != nil {
		t.Fatal(err)
	}
	compare(t, "first", res[0].Value().([][]float32), exp.OutputValues)
	compare(t, "second", res[1].Value().([][]float32), exp.OutputValues)
}

func TestOutputActivation(t *testing.T) {
	for _, tc := range []struct{ file, want string }{
		{"wbc_prob.onnx", "Sigmoid"}, {"iris_prob.onnx", "Softmax"}, {"wbc_raw.onnx", ""}, {"iris.onnx", ""},
	} {
		m, err := onnxmodel.Load(filepath.Join(models, tc.file), onnxmodel.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := m.OutputActivation(); got != tc.want {
			t.Errorf("%s: OutputActivation %q, want %q", tc.file, got, tc.want)
		}
	}
}

// logitsAgree checks that the final activation of m's logits is m's output, within 1e-6, on
// the rows of name's expected.json.
func logitsAgree(t *testing.T, m *onnxmodel.Model, name string) {
	t.Helper()
	exp := readExpected(t, name)
	b, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	defer b.Finalize()
	res, err := ExecOnceN(b, func(x *Node) []*Node {
		z := m.ForwardLogits(x)
		if m.OutputActivation() == "Sigmoid" {
			return []*Node{Sigmoid(z), m.Forward(x)}
		}
		return []*Node{Softmax(z, -1), m.Forward(x)}
	}, exp.Rows)
	if err != nil {
		t.Fatal(err)
	}
	act, out := res[0].Value().([][]float32), res[1].Value().([][]float32)
	for r := range out {
		for c := range out[r] {
			if d := math.Abs(float64(act[r][c] - out[r][c])); d > 1e-6 || math.IsNaN(d) {
				t.Errorf("%s row %d output %d: %s(logits) = %.8g, output %.8g", name, r, c, m.OutputActivation(), act[r][c], out[r][c])
			}
		}
	}
	compare(t, name+" output", out, exp.OutputValues)
}

// The logits of a file whose output is a Sigmoid or Softmax: their activation is the
// output.
func TestForwardLogits(t *testing.T) {
	for _, name := range []string{"wbc_prob", "iris_prob"} {
		m, err := onnxmodel.Load(filepath.Join(models, name+".onnx"), onnxmodel.Options{})
		if err != nil {
			t.Fatal(err)
		}
		logitsAgree(t, m, name)
	}
	m, err := onnxmodel.Load(filepath.Join(models, "wbc_raw.onnx"), onnxmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if r := recover(); r == nil || !strings.Contains(fmt.Sprint(r), "does not come from a final Sigmoid or Softmax") {
			t.Errorf("ForwardLogits of a logit model: panic %v", r)
		}
	}()
	// The check comes before the input is used: building a graph that panics would leave
	// the backend's executor waiting.
	m.ForwardLogits(nil)
}

// editModel writes a copy of testdata/models/name.onnx, changed by edit, to a temporary
// directory and loads it.
func editModel(t *testing.T, name string, edit func(g *protos.GraphProto)) *onnxmodel.Model {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(models, name+".onnx"))
	if err != nil {
		t.Fatal(err)
	}
	var mp protos.ModelProto
	if err := proto.Unmarshal(b, &mp); err != nil {
		t.Fatal(err)
	}
	edit(mp.GetGraph())
	if b, err = proto.Marshal(&mp); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), name+".onnx")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := onnxmodel.Load(path, onnxmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// The activation is found through ops that change only the shape (Identity, Flatten, …),
// and not through others, nor for a Softmax over the rows.
func TestOutputActivationChains(t *testing.T) {
	// Graph output "prob" ← Flatten ← Identity ← the activation.
	chain := func(g *protos.GraphProto) {
		nodes := g.GetNode()
		last := nodes[len(nodes)-1]
		last.Output = []string{"act"}
		g.Node = append(nodes,
			&protos.NodeProto{OpType: "Identity", Input: []string{"act"}, Output: []string{"act_id"}},
			&protos.NodeProto{OpType: "Flatten", Input: []string{"act_id"}, Output: []string{"prob"}})
	}
	for _, name := range []string{"wbc_prob", "iris_prob"} {
		m := editModel(t, name, chain)
		if m.OutputActivation() == "" {
			t.Fatalf("%s with Identity and Flatten after the activation: no OutputActivation", name)
		}
		logitsAgree(t, m, name)
	}

	// Graph output "prob" ← Abs ← the Sigmoid: not a pass-through op.
	m := editModel(t, "wbc_prob", func(g *protos.GraphProto) {
		nodes := g.GetNode()
		nodes[len(nodes)-1].Output = []string{"act"}
		g.Node = append(nodes, &protos.NodeProto{OpType: "Abs", Input: []string{"act"}, Output: []string{"prob"}})
	})
	if got := m.OutputActivation(); got != "" {
		t.Errorf("wbc_prob with Abs after the Sigmoid: OutputActivation %q, want \"\"", got)
	}

	// A Softmax over the rows (axis 0) gives no logits.
	m = editModel(t, "iris_prob", func(g *protos.GraphProto) {
		nodes := g.GetNode()
		nodes[len(nodes)-1].Attribute[0].I = 0
	})
	if got := m.OutputActivation(); got != "" {
		t.Errorf("iris_prob with Softmax(axis=0): OutputActivation %q, want \"\"", got)
	}
}

// A file whose weights hold a NaN or an infinity is refused at load time, naming the file
// and the weight.
func TestNonFiniteWeights(t *testing.T) {
	for _, v := range []float32{float32(math.NaN()), float32(math.Inf(-1))} {
		path := pipelinetest.EditedONNX(t, "models/wbc_raw.onnx", "1.0.weight", func(w []float32) { w[7] = v })
		_, err := onnxmodel.Load(path, onnxmodel.Options{})
		for _, want := range []string{path, `"1.0.weight"`, fmt.Sprint(v), "position 7", "fix:"} {
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("weight %v: error %v lacks %q", v, err, want)
			}
		}
	}
}
