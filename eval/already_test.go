package eval

import (
	"context"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
)

// With -class, the instances that the model already predicts as that class are left out of
// every method (they would count as valid without any change), the report says how many,
// and a split with nothing left is an error.
func TestClassLeavesOutAlreadyTarget(t *testing.T) {
	s := wbc(t)
	o := DefaultOptions()
	o.N, o.Splits, o.Methods, o.Class = 12, []string{Test}, []Method{QUCE, DiceRandom}, "benign"
	o.Config.Steps = 50
	benign, err := data.ClassIndex(s.Data.Labels, o.Class)
	if err != nil {
		t.Fatal(err)
	}
	var xs [][]float64
	for _, p := range sample(len(s.XTest), o.N, o.Seed, Test) {
		xs = append(xs, s.XTest[p])
	}
	probs, err := s.Explainer.Predict(xs)
	if err != nil {
		t.Fatal(err)
	}
	already := 0
	for _, p := range probs {
		if quce.PredictedClass(p, o.Config.Threshold) == benign {
			already++
		}
	}
	if already == 0 || already == len(xs) {
		t.Fatalf("%d of the %d instances are predicted benign: the test needs some of each", already, len(xs))
	}
	rep, err := Run(context.Background(), FromSetup(s), o)
	if err != nil {
		t.Fatal(err)
	}
	if rep.AlreadyTarget[Test] != already || len(rep.Rows[Test]) != len(xs)-already {
		t.Errorf("left out %d, evaluated %d rows; want %d and %d", rep.AlreadyTarget[Test], len(rep.Rows[Test]), already, len(xs)-already)
	}
	for _, m := range o.Methods {
		if c := rep.Counts[m][Test]; c.Instances != len(xs)-already {
			t.Errorf("%s: %d instances, want %d", m, c.Instances, len(xs)-already)
		}
		for _, in := range rep.Instances[m][Test] {
			if in.Original == in.Target {
				t.Errorf("%s: row %d, already predicted %d, was evaluated", m, in.Row, in.Target)
			}
		}
	}
	var b strings.Builder
	if err := rep.WriteTables(&b); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), "already predicts the target class") {
		t.Errorf("the tables do not say that instances were left out:\n%s", b.String())
	}

	// Only instances predicted benign: nothing to explain.
	var onlyBenign [][]float64
	for i, p := range probs {
		if quce.PredictedClass(p, o.Config.Threshold) == benign {
			onlyBenign = append(onlyBenign, xs[i])
		}
	}
	ev, err := newEvaluation(FromSetup(s), o)
	if err != nil {
		t.Fatal(err)
	}
	_, _, err = ev.leaveOutAlreadyTarget(Test, onlyBenign, make([]int, len(onlyBenign)))
	if err == nil || !strings.Contains(err.Error(), "eval.Options.Class") {
		t.Errorf("only instances already in the class: error %v, want one naming eval.Options.Class", err)
	}
}
