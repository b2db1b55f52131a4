package quce_test

import (
	"math"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/quce-go/quce/third_party/gobackend"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/onnxmodel"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

func identityScaler(j int) *data.Scaler {
	s := &data.Scaler{Mean: make([]float64, j), Std: make([]float64, j)}
	for i := range s.Std {
		s.Std[i] = 1
	}
	return s
}

// A model whose outputs end in a Sigmoid or Softmax is explained through its logits: log F
// equals the logit model's exactly, stays finite, and keeps a gradient where the
// probabilities have rounded to 0 or 1.
func TestProbabilityModelsUseTheirLogits(t *testing.T) {
	b, err := gobackend.New("")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ prob, logit string }{
		{"models/wbc_prob.onnx", "models/wbc_raw.onnx"},
		{"models/iris_prob.onnx", "models/iris.onnx"},
	} {
		t.Run(tc.prob, func(t *testing.T) {
			pm, err := onnxmodel.Load(pipelinetest.Fixture(tc.prob), onnxmodel.Options{})
			if err != nil {
				t.Fatal(err)
			}
			lm, err := onnxmodel.Load(pipelinetest.Fixture(tc.logit), onnxmodel.Options{})
			if err != nil {
				t.Fatal(err)
			}
			j := pm.NumFeatures()
			pc, err := quce.NewClassifier(pm, quce.Raw, quce.Probabilities, identityScaler(j))
			if err != nil {
				t.Fatal(err)
			}
			lc, err := quce.NewClassifier(lm, quce.Raw, quce.Logits, identityScaler(j))
			if err != nil {
				t.Fatal(err)
			}
			// Rows far out (every raw value ×50 and ×−50): the probabilities saturate.
			rows := make([][]float32, 2)
			for r := range rows {
				rows[r] = make([]float32, j)
				for f := range rows[r] {
					rows[r][f] = float32(50 * (1 - 2*r) * (f%3 + 1))
				}
			}
			out, err := ExecOnceN(b, func(x *Node) []*Node {
				lp, ll := pc.LogProbs(x), lc.LogProbs(x)
				// The gradient of the least likely class's log F, the one a search towards it needs.
				return []*Node{lp, ll, Gradient(ReduceAllSum(ReduceMin(lp, 1)), x)[0]}
			}, rows)
			if err != nil {
				t.Fatal(err)
			}
			lp, ll, grad := out[0].Value().([][]float32), out[1].Value().([][]float32), out[2].Value().([][]float32)
			for r := range lp {
				norm := 0.0
				for c := range lp[r] {
					if math.IsInf(float64(lp[r][c]), 0) || math.IsNaN(float64(lp[r][c])) || lp[r][c] != ll[r][c] {
						t.Errorf("row %d class %d: log F %v from the probability model, %v from the logit model", r, c, lp[r][c], ll[r][c])
					}
				}
				for _, g := range grad[r] {
					norm += float64(g * g)
				}
				if norm == 0 {
					t.Errorf("row %d: zero gradient of the least likely class's log F at a saturated point", r)
				}
			}
		})
	}
}

func TestProbabilityModelDeclaredAsLogits(t *testing.T) {
	pm, err := onnxmodel.Load(pipelinetest.Fixture("models/wbc_prob.onnx"), onnxmodel.Options{})
	if err != nil {
		t.Fatal(err)
	}
	_, err = quce.NewClassifier(pm, quce.Raw, quce.Logits, identityScaler(pm.NumFeatures()))
	if err == nil || !strings.Contains(err.Error(), "Sigmoid") || !strings.Contains(err.Error(), "pipeline.Options.ModelOutput probability") {
		t.Errorf("a Sigmoid output declared as logits: error %v", err)
	}
}
