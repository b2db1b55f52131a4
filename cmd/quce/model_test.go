package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/pipeline/pipelinetest"
)

func fixture(name string) string { return pipelinetest.Fixture(name) }

// A PyTorch model exported to ONNX, explained from the command line: binary with raw
// inputs, and 3-class with a named target; the JSON names the classes.
func TestExplainONNXModel(t *testing.T) {
	wbcCSV := filepath.Join(pipelinetest.Root(), "data", "wbc.csv")
	for _, tc := range []struct {
		name, data, model string
		extra             []string
		wantTarget        string // "" accepts any
		classes           int
	}{
		{"binary raw logit", wbcCSV, "models/wbc_raw.onnx", nil, "", 2},
		{"binary probability", wbcCSV, "models/wbc_prob.onnx", []string{"-model-output", "probability"}, "", 2},
		{"iris named class", fixture("iris.csv"), "models/iris.onnx", []string{"-class", "virginica"}, "virginica", 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := filepath.Join(t.TempDir(), "e.json")
			args := append([]string{"explain", "-data", tc.data, "-model", fixture(tc.model), "-n", "3", "-steps", "300", "-json", out, "-cache", pipelinetest.CacheDir()}, tc.extra...)
			var stdout, stderr bytes.Buffer
			if err := run(context.Background(), args, &stdout, &stderr); err != nil {
				t.Fatalf("explain: %v\n%s", err, stderr.String())
			}
			if strings.Contains(stderr.String(), "training the classifier") {
				t.Error("a classifier was trained although -model was given")
			}
			var doc struct {
				Config struct {
					Model map[string]any `json:"model"`
				} `json:"config"`
				Results []struct {
					TargetClass        int       `json:"target_class"`
					TargetClassName    string    `json:"target_class_name"`
					PredictedClass     int       `json:"predicted_class"`
					PredictedClassName string    `json:"predicted_class_name"`
					ClassProbabilities []float64 `json:"class_probabilities"`
				} `json:"results"`
			}
			b, _ := os.ReadFile(out)
			if err := json.Unmarshal(b, &doc); err != nil {
				t.Fatal(err)
			}
			if doc.Config.Model["kind"] != "user" || !strings.Contains(doc.Config.Model["id"].(string), "sha256:") {
				t.Errorf("config.model %v: want the user model with its checksum", doc.Config.Model)
			}
			for i, r := range doc.Results {
				if r.TargetClassName == "" || r.PredictedClassName == "" || len(r.ClassProbabilities) != tc.classes {
					t.Errorf("result %d: class names %q/%q, %d probabilities", i, r.PredictedClassName, r.TargetClassName, len(r.ClassProbabilities))
				}
				if tc.wantTarget != "" && r.TargetClassName != tc.wantTarget {
					t.Errorf("result %d: target %q, want %q", i, r.TargetClassName, tc.wantTarget)
				}
			}
		})
	}
}

// Every way of pointing -model at the wrong thing is a clear error naming the file or flag
// and the fix, never a panic.
func TestModelErrors(t *testing.T) {
	dir := t.TempDir()
	notONNX := filepath.Join(dir, "table.onnx")
	os.WriteFile(notONNX, []byte("a,b\n1,2\n"), 0o644)
	wbcCSV := filepath.Join(pipelinetest.Root(), "data", "wbc.csv")
	// Iris with two of its classes: a binary target for a 3-output model.
	irisText, _ := os.ReadFile(fixture("iris.csv"))
	var two []string
	for _, line := range strings.Split(strings.TrimSpace(string(irisText)), "\n") {
		if line = strings.TrimSpace(line); !strings.HasSuffix(line, "virginica") {
			two = append(two, line)
		}
	}
	irisTwo := filepath.Join(dir, "iris2.csv")
	os.WriteFile(irisTwo, []byte(strings.Join(two, "\n")+"\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"missing file", []string{"-model", filepath.Join(dir, "nope.onnx")}, []string{"nope.onnx", "fix:"}},
		{"not ONNX", []string{"-model", notONNX}, []string{"table.onnx", "fix:"}},
		// A folder of the user's that no classifier was saved to: the fix must not be to
		// delete it (what suits a damaged cache entry).
		{"folder that is no saved classifier", []string{"-model", dir}, []string{"-model " + dir + " is not a classifier folder as quce saves it", "manifest.json", "fix: pass an .onnx file"}},
		{"unsupported op", []string{"-model", fixture("models/unsupported_op.onnx")}, []string{"Elu", "fix:"}},
		{"two inputs", []string{"-model", fixture("models/two_inputs.onnx")}, []string{"-model-input-name", "fix:"}},
		{"two outputs", []string{"-model", fixture("models/two_outputs.onnx")}, []string{"-model-output-name", "fix:"}},
		{"no output of that name", []string{"-model", fixture("models/two_outputs.onnx"), "-model-output-name", "score"}, []string{`no output named "score"`, "fix: set -model-output-name"}},
		{"no input of that name", []string{"-model", fixture("models/wbc_raw.onnx"), "-model-input-name", "rows"}, []string{`no input named "rows"`, "fix: set -model-input-name"}},
		{"bad output shape", []string{"-model", fixture("models/bad_shape.onnx")}, []string{"bad_shape.onnx", "fix:"}},
		{"width differs from the data", []string{"-model", fixture("models/iris.onnx")}, []string{"takes 4 inputs", "has 30", "fix:"}},
		{"3 outputs, binary target", []string{"-data", irisTwo, "-model", fixture("models/iris.onnx")}, []string{"3 outputs", "2 classes", "fix:"}},
		{"class naming no class", []string{"-data", fixture("iris.csv"), "-model", fixture("models/iris.onnx"), "-class", "rose"}, []string{"-class \"rose\"", "setosa", "fix:"}},
		{"probabilities that are not", []string{"-data", wbcCSV, "-model", fixture("models/wbc_raw.onnx"), "-model-output", "probability"}, []string{"-model-output logit", "fix:"}},
		{"unknown output kind", []string{"-model", fixture("models/wbc_raw.onnx"), "-model-output", "score"}, []string{"-model-output", "logit or probability"}},
		{"unknown input units", []string{"-model", fixture("models/wbc_raw.onnx"), "-model-input", "scaled"}, []string{"-model-input", "raw or standardized"}},
		{"class naming no class, built-in model", []string{"-class", "maybe"}, []string{"-class \"maybe\"", "malignant", "fix:"}},
		{"input name without a model", []string{"-model-input-name", "x"}, []string{"-model", "fix:"}},
		{"output kind without a model", []string{"-model-output", "probability"}, []string{"-model-output describes the model given with -model", "fix: add -model"}},
		{"input units without a model", []string{"-model-input", "standardized"}, []string{"-model-input describes", "fix: add -model"}},
		{"classes without a model", []string{"-model-classes", "benign,malignant"}, []string{"-model-classes describes", "fix: add -model"}},
		{"scaler without a model", []string{"-scaler", "s.json"}, []string{"-scaler describes", "fix: add -model"}},
		{"weak model allowed without a model", []string{"-allow-weak-model"}, []string{"-allow-weak-model describes", "fix: add -model"}},
		{"classes that are not the data's", []string{"-data", wbcCSV, "-model", fixture("models/wbc_raw.onnx"), "-model-classes", "0,2"}, []string{"-model-classes 0,2", `"2" is not a class`, "0,1", "fix:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{"explain", "-n", "1", "-steps", "5", "-cache", pipelinetest.CacheDir()}, tc.args...)
			err := run(context.Background(), args, &stdout, &stderr)
			if err == nil {
				t.Fatalf("no error; stderr:\n%s", stderr.String())
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			// The command line names its flags, not the Go fields behind them.
			if strings.Contains(err.Error(), "Options.") {
				t.Errorf("error %q names a Go field", err)
			}
		})
	}
}

// stallResults explains every W-BC test row at the defaults with the extra flags and
// returns the text report and each row's validity, F(τ|x_c) and stall step.
func stallResults(t *testing.T, extra ...string) (string, []stallResult) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "e.json")
	args := append([]string{"explain", "-n", "all", "-q", "-json", out, "-cache", pipelinetest.CacheDir()}, extra...)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("explain: %v\n%s", err, stderr.String())
	}
	var doc struct {
		Results []stallResult `json:"results"`
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return stderr.String() + stdout.String(), doc.Results
}

type stallResult struct {
	Line          int     `json:"line"`
	Valid         bool    `json:"valid"`
	ProbEnd       float64 `json:"prob_target_end"`
	StalledAtStep int     `json:"stalled_at_step"`
}

// A saturating model (tanh hidden units at ±1 on most rows, exported from PyTorch with a
// Sigmoid): at the defaults some searches stall on its plateau, where F(τ|·) does not rise
// and its gradient has vanished. They are detected, walk on without the proximity term and
// end valid, with the stall in the JSON and the text; at least 98% of the test rows end
// valid (without the detection, 112 of 114).
func TestSaturatingModelStallRecovers(t *testing.T) {
	text, res := stallResults(t, "-model", fixture("models/wbc_tanh.onnx"), "-model-output", "probability")
	valid, stalled := 0, 0
	for _, r := range res {
		if r.Valid {
			valid++
		}
		if r.StalledAtStep > 0 {
			stalled++
			if !r.Valid || r.ProbEnd < 0.55 {
				t.Errorf("line %d stalled at step %d and ended at F(τ|x_c) %.4f (valid %v); want valid with F ≥ ϑ + 0.05", r.Line, r.StalledAtStep, r.ProbEnd, r.Valid)
			}
		}
	}
	if len(res) == 0 || float64(valid) < 0.98*float64(len(res)) {
		t.Errorf("%d of %d test rows valid; want at least 98%%", valid, len(res))
	}
	if stalled == 0 {
		t.Error("no search stalled on the saturating model; want the stall detected (lines 267 and 505 stay at F ≈ 0 without it)")
	}
	if got := strings.Count(text, "stalled at step"); got != stalled {
		t.Errorf("the text reports %d stalls, the JSON %d", got, stalled)
	}
	// The stall watch runs on the host on the replay engine (the default on the pure-Go
	// backend, which takes a stalled row back to its stall and walks it on in a stretch of its
	// own) and on the step engine, and inside the program on the loop engine: all three stall
	// the same rows at the same steps and end them at the same points.
	// (Bit for bit where a row's figures do not depend on the rows beside it, which the
	// engines' batches differ in.)
	modeltest.NeedRowsIndependent(t)
	for _, engine := range []string{"steps", "loop"} {
		if engine == "loop" && !modeltest.RunsLoops(t) {
			continue // ONNX Runtime: no loop engine
		}
		_, other := stallResults(t, "-model", fixture("models/wbc_tanh.onnx"), "-model-output", "probability", "-engine", engine)
		if !reflect.DeepEqual(other, res) {
			t.Errorf("the %s engine's results differ from the replay engine's:\n%v\n%v", engine, other, res)
		}
	}
}

// On the built-in model at the defaults no search stalls: the detection leaves its results
// as they were.
func TestBuiltInModelDoesNotStall(t *testing.T) {
	_, res := stallResults(t)
	for _, r := range res {
		if r.StalledAtStep > 0 {
			t.Errorf("line %d: stalled at step %d on the built-in model", r.Line, r.StalledAtStep)
		}
	}
	if len(res) == 0 {
		t.Fatal("no results")
	}
}
