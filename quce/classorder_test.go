package quce_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/quce-go/quce/third_party/gobackend"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/onnxmodel"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// plainModel hides a model's LogitForwarder, so that its probabilities are read as they are.
type plainModel struct{ quce.Model }

// ClassOrder puts the model's outputs in the data's order: with order o, the probability of
// data class o[k] is what output k gave before, for one logit (read as −z), one probability
// (1 − p), C logits and C probabilities, with and without the logits behind a final
// Sigmoid or Softmax.
func TestClassOrderPermutesOutputs(t *testing.T) {
	b, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	wbc, iris := data.WBC(), mustIris(t)
	for _, tc := range []struct {
		file  string
		out   quce.Outputs
		plain bool
		ds    *data.Dataset
		order []int
	}{
		{"wbc_raw.onnx", quce.Logits, false, wbc, []int{1, 0}},
		{"wbc_prob.onnx", quce.Probabilities, false, wbc, []int{1, 0}},
		{"wbc_prob.onnx", quce.Probabilities, true, wbc, []int{1, 0}},
		{"iris.onnx", quce.Logits, false, iris, []int{2, 0, 1}},
		{"iris_prob.onnx", quce.Probabilities, false, iris, []int{1, 2, 0}},
		{"iris_prob.onnx", quce.Probabilities, true, iris, []int{1, 2, 0}},
	} {
		name := tc.file
		if tc.plain {
			name += " without its logits"
		}
		t.Run(name, func(t *testing.T) {
			m, err := onnxmodel.Load(pipelinetest.Fixture("models/"+tc.file), onnxmodel.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var model quce.Model = m
			if tc.plain {
				model = plainModel{m}
			}
			sc := tc.ds.FitScaler(tc.ds.X)
			xs := sc.Transform(tc.ds.X[:20])
			same, err := quce.NewClassifier(model, quce.Raw, tc.out, sc)
			if err != nil {
				t.Fatal(err)
			}
			moved, err := quce.NewClassifier(model, quce.Raw, tc.out, sc, quce.ClassOrder(tc.order))
			if err != nil {
				t.Fatal(err)
			}
			if got := moved.ClassOrder(); len(got) != len(tc.order) || got[0] != tc.order[0] {
				t.Errorf("ClassOrder() = %v, want %v", got, tc.order)
			}
			p0, err := same.Predict(b, xs)
			if err != nil {
				t.Fatal(err)
			}
			p1, err := moved.Predict(b, xs)
			if err != nil {
				t.Fatal(err)
			}
			for r := range p0 {
				for k, d := range tc.order {
					if math.Abs(p1[r][d]-p0[r][k]) > 1e-6 {
						t.Fatalf("row %d: F(class %d) = %v with the order %v; output %d gave %v", r, d, p1[r][d], tc.order, k, p0[r][k])
					}
				}
			}
		})
	}
}

// An explanation with the classes in another order is the same explanation with the
// target renamed: the written-out gradient of the logits' head follows the order.
func TestClassOrderExplainsTheSame(t *testing.T) {
	for _, tc := range []struct {
		kind  string
		order []int
	}{{"onnx-wbc-raw-logit", []int{1, 0}}, {"onnx-iris-logit", []int{2, 0, 1}}} {
		t.Run(tc.kind, func(t *testing.T) {
			s := kindSetup(t, tc.kind)
			clf := s.Explainer.Classifier()
			moved, err := quce.NewClassifier(clf.Model(), clf.Input(), clf.Output(), s.Scaler, quce.ClassOrder(tc.order))
			if err != nil {
				t.Fatal(err)
			}
			e2, err := quce.New(s.Backend, moved, s.VAE, s.Scaler, s.Data.Features, quce.Settings{})
			if err != nil {
				t.Fatal(err)
			}
			cfg := quce.DefaultConfig()
			cfg.Steps = 100
			var q0, q1 []quce.Query
			for i, x := range s.XTest[:3] {
				target := i % len(tc.order) // a class index of the model's own order
				q0 = append(q0, quce.Query{X: x, Target: target})
				q1 = append(q1, quce.Query{X: x, Target: tc.order[target]})
			}
			ex0, err := s.Explainer.Explain(context.Background(), cfg, q0)
			if err != nil {
				t.Fatal(err)
			}
			ex1, err := e2.Explain(context.Background(), cfg, q1)
			if err != nil {
				t.Fatal(err)
			}
			for i := range ex0 {
				a, b := ex0[i], ex1[i]
				if math.Abs(a.ProbStart-b.ProbStart) > 1e-6 || math.Abs(a.Path0().ProbEnd-b.Path0().ProbEnd) > 1e-4 {
					t.Errorf("instance %d: F(τ) %v → %v, with the classes moved %v → %v", i, a.ProbStart, a.Path0().ProbEnd, b.ProbStart, b.Path0().ProbEnd)
				}
				for f := range a.Attribution {
					if math.Abs(a.Attribution[f]-b.Attribution[f]) > 1e-4 {
						t.Fatalf("instance %d feature %d: attribution %v, with the classes moved %v", i, f, a.Attribution[f], b.Attribution[f])
					}
				}
			}
		})
	}
}

// ModelScaler feeds a standardized-input model with its own standardisation: equal to the
// explainer's scaler it changes nothing, and another one gives what the model says of the
// rows standardised by hand with it.
func TestModelScaler(t *testing.T) {
	b, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	m, err := onnxmodel.Load(pipelinetest.Fixture("models/wbc_std.onnx"), onnxmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ds := data.WBC()
	sc := ds.FitScaler(ds.X[:400])
	own := &data.Scaler{Mean: make([]float64, len(sc.Mean)), Std: make([]float64, len(sc.Std))}
	for f := range own.Mean {
		own.Mean[f], own.Std[f] = sc.Mean[f]*1.1+0.01, sc.Std[f]*0.8
	}
	xs := sc.Transform(ds.X[:50])
	plain, err := quce.NewClassifier(m, quce.Standardized, quce.Logits, sc)
	if err != nil {
		t.Fatal(err)
	}
	predict := func(clf *quce.Classifier, xs [][]float64) [][]float64 {
		t.Helper()
		p, err := clf.Predict(b, xs)
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	base := predict(plain, xs)
	same, err := quce.NewClassifier(m, quce.Standardized, quce.Logits, sc, quce.ModelScaler(sc))
	if err != nil {
		t.Fatal(err)
	}
	other, err := quce.NewClassifier(m, quce.Standardized, quce.Logits, sc, quce.ModelScaler(own))
	if err != nil {
		t.Fatal(err)
	}
	byHand := own.Transform(ds.X[:50]) // what the model should be fed
	want, got, equal := predict(plain, byHand), predict(other, xs), predict(same, xs)
	moved := 0.0
	for r := range base {
		for c := range base[r] {
			if math.Abs(equal[r][c]-base[r][c]) > 1e-6 {
				t.Fatalf("row %d: the explainer's own scaler as the model scaler gives %v, without it %v", r, equal[r][c], base[r][c])
			}
			if math.Abs(got[r][c]-want[r][c]) > 1e-5 {
				t.Fatalf("row %d: with the model scaler %v, standardised by hand %v", r, got[r][c], want[r][c])
			}
			moved = max(moved, math.Abs(got[r][c]-base[r][c]))
		}
	}
	if moved < 1e-3 {
		t.Errorf("another model scaler moved no probability by more than %v: it is not applied", moved)
	}

	// A scaler for a raw model, or with a scale that is not one, is refused.
	for _, tc := range []struct {
		name  string
		units quce.Units
		s     *data.Scaler
		want  string
	}{
		{"raw model", quce.Raw, sc, "standardized inputs"},
		{"zero scale", quce.Standardized, &data.Scaler{Mean: sc.Mean, Std: append([]float64{0}, sc.Std[1:]...)}, "feature 1"},
		{"too short", quce.Standardized, &data.Scaler{Mean: sc.Mean[:3], Std: sc.Std[:3]}, "30 features"},
	} {
		if _, err := quce.NewClassifier(m, tc.units, quce.Logits, sc, quce.ModelScaler(tc.s)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}

// An order that is not an order of the classes is refused.
func TestClassOrderErrors(t *testing.T) {
	m, err := onnxmodel.Load(pipelinetest.Fixture("models/iris.onnx"), onnxmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range [][]int{{0, 1}, {0, 1, 1}, {0, 1, 3}, {-1, 0, 1}} {
		if _, err := quce.NewClassifier(m, quce.Raw, quce.Logits, identityScaler(4), quce.ClassOrder(order)); err == nil || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("order %v: error %v", order, err)
		}
	}
}

func mustIris(t *testing.T) *data.Dataset {
	t.Helper()
	ds, err := pipelinetest.Iris()
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// kindSetup is the prepared setup of the model kind called name (pipelinetest.Kinds).
func kindSetup(t *testing.T, name string) *pipeline.Setup {
	t.Helper()
	for _, k := range pipelinetest.Kinds() {
		if k.Name == name {
			return k.Setup(t)
		}
	}
	t.Fatalf("no model kind %q", name)
	return nil
}
