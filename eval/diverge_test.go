package eval

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/graph"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// nanModel is a binary model whose output (and so every probability and gradient) is NaN.
type nanModel struct{ features int }

func (m nanModel) NumFeatures() int { return m.features }
func (m nanModel) NumOutputs() int  { return 1 }
func (m nanModel) Forward(x *graph.Node) *graph.Node {
	return graph.MulScalar(graph.ReduceAndKeep(x, graph.ReduceSum, -1), math.NaN())
}

// nanSetup is W-BC with its classifier replaced by nanModel (the VAE and scaler kept).
func nanSetup(t *testing.T) *pipeline.Setup {
	s := *pipelinetest.WBC(t)
	s.Model = nanModel{len(s.Data.Features)}
	clf, err := quce.NewClassifier(s.Model, quce.Standardized, quce.Logits, s.Scaler)
	if err != nil {
		t.Fatal(err)
	}
	if s.Explainer, err = quce.New(s.Backend, clf, s.VAE, s.Scaler, s.Data.Features, quce.Settings{}); err != nil {
		t.Fatal(err)
	}
	return &s
}

// A model whose probabilities are NaN is refused before any method runs (its outputs on the
// instances are not finite), and DiCE-random on its own counts no NaN candidate as a
// counterfactual (it once counted every one as valid).
func TestNaNModelIsNeverValid(t *testing.T) {
	s := nanSetup(t)
	o := DefaultOptions()
	o.N, o.Splits, o.Interp = 3, []string{Test}, 10
	o.Config.Steps = 20
	o.Dice.Samples = 50
	rep, err := Run(context.Background(), FromSetup(s), o)
	var nonFinite *quce.NonFiniteOutputError
	if !errors.As(err, &nonFinite) || rep != nil {
		t.Fatalf("Run on a NaN model: report %v, error %v; want no report and a *quce.NonFiniteOutputError", rep != nil, err)
	}

	// A search that diverges (QUCE and Wachter at an absurd learning rate) gives no valid
	// result, and the tables and the JSON hold no NaN or Inf.
	o.Methods = []Method{QUCE, Wachter}
	o.Config.LearningRate = 1e9
	wbc := pipelinetest.WBC(t)
	// Every column's range open (inside the default box, the observed range, the search
	// bounces between the box's corners instead of running away).
	o.Constraints.Bounds = map[string][2]float64{}
	for _, f := range wbc.Data.Features {
		o.Constraints.Bounds[f] = [2]float64{math.NaN(), math.NaN()}
	}
	rep, err = Run(context.Background(), FromSetup(wbc), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range rep.Methods {
		c := rep.Counts[m][Test]
		if c.Valid != 0 || c.Failed != c.Instances {
			t.Errorf("%s: %d of %d valid, %d failed; want none valid and all failed", m, c.Valid, c.Instances, c.Failed)
		}
		for _, in := range rep.Instances[m][Test] {
			if in.Valid || in.Failure == "" || in.Counterfactual != nil {
				t.Errorf("%s row %d: valid %v, failure %q, counterfactual %v; want a failure without a counterfactual", m, in.Row, in.Valid, in.Failure, in.Counterfactual)
			}
		}
	}
	var tables, js bytes.Buffer
	if err := rep.WriteTables(&tables); err != nil {
		t.Fatal(err)
	}
	if err := rep.WriteJSON(&js); err != nil {
		t.Fatalf("JSON of a report of failed searches: %v", err)
	}
	for name, out := range map[string]string{"tables": tables.String(), "JSON": js.String()} {
		for _, bad := range []string{"NaN", "Inf"} {
			if strings.Contains(out, bad) {
				t.Errorf("the %s hold %q", name, bad)
			}
		}
	}
	if err := rep.NoneSucceeded(); err == nil {
		t.Error("NoneSucceeded: nil for a report without a valid result")
	}

	// DiCE-random alone, as RunDice runs it: no NaN candidate is a counterfactual.
	xs := pipelinetest.WBC(t).XTest[:2]
	lo, hi := trainRange(s.XTrain)
	dr, err := RunDice(context.Background(), s.Backend, s.Explainer.Classifier(), xs, nil, lo, hi, DiceConfig{Samples: 20}, 0.5, 1)
	if err != nil {
		t.Fatal(err)
	}
	for i, d := range dr {
		if d.Counterfactual != nil || d.NonFinite != d.Candidates {
			t.Errorf("row %d: counterfactual %v, %d of %d candidates non-finite; want none, all", i, d.Counterfactual, d.NonFinite, d.Candidates)
		}
	}
}

// A report with one valid result somewhere succeeded.
func TestNoneSucceeded(t *testing.T) {
	r := &Report{Methods: []Method{QUCE, DiceRandom}, Splits: []string{Test},
		Counts:    map[Method]map[string]Counts{QUCE: {Test: {Instances: 2, Failed: 2}}, DiceRandom: {Test: {Instances: 2, Valid: 1, Failed: 1}}},
		Instances: map[Method]map[string][]InstanceResult{QUCE: {Test: {{Row: 7, Failure: "diverged at step 1; fix: -lr"}}}},
	}
	if err := r.NoneSucceeded(); err != nil {
		t.Errorf("one valid DiCE result: %v", err)
	}
	r.Counts[DiceRandom][Test] = Counts{Instances: 2, Failed: 2}
	if err := r.NoneSucceeded(); err == nil || !strings.Contains(err.Error(), "row 7: diverged at step 1; fix: -lr") {
		t.Errorf("no valid result: %v; want the first failure with its fix", err)
	}
}

// Cancelling stops an evaluation in every phase: cancelled from the progress line that
// starts the phase (an event, not a race), Run returns context.Canceled and no report.
func TestEvalCancelStopsEveryPhase(t *testing.T) {
	s := pipelinetest.WBC(t)
	for _, phase := range []string{"QUCE on", "straight-line IG", "automatic λ", "Wachter", "AGI on", "DiCE-random on", "metrics"} {
		t.Run(phase, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			o := DefaultOptions()
			o.N, o.Splits, o.Interp = 2, []string{Test}, 10
			o.Config.Steps = 10
			o.Dice.Samples = 20
			seen := false
			o.Progress = func(format string, args ...any) {
				if strings.Contains(fmt.Sprintf(format, args...), phase) {
					seen = true
					cancel()
				}
			}
			rep, err := Run(ctx, FromSetup(s), o)
			if !seen {
				t.Fatalf("no progress line holds %q", phase)
			}
			if !errors.Is(err, context.Canceled) || rep != nil {
				t.Errorf("report %v, error %v; want none and context.Canceled", rep != nil, err)
			}
		})
	}
}
