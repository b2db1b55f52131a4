package eval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

// With Options.Class, N means N rows that need recourse: the rows of the seeded order that
// the model already predicts as that class are skipped (they would count as valid without
// any change) and the order is walked on; the report says how many were skipped, and a
// split with nothing left is an error.
func TestClassTakesRowsThatNeedRecourse(t *testing.T) {
	s := wbc(t)
	o := DefaultOptions()
	o.N, o.Splits, o.Methods, o.Class = 12, []string{Test}, []Method{QUCE, DiceRandom}, "benign"
	o.Config.Steps = 50
	benign, err := data.ClassIndex(s.Data.Labels, o.Class)
	if err != nil {
		t.Fatal(err)
	}
	probs, err := s.Explainer.Predict(s.XTest)
	if err != nil {
		t.Fatal(err)
	}
	// By hand: walk the seeded order until 12 rows are not predicted benign.
	var want []int
	skipped := 0
	for _, p := range seededOrder(len(s.XTest), o.N, o.Seed, Test) {
		if len(want) == o.N {
			break
		}
		if quce.PredictedClass(probs[p], o.Config.Threshold) == benign {
			skipped++
			continue
		}
		want = append(want, s.TestIdx[p])
	}
	slices.Sort(want)
	if skipped == 0 {
		t.Fatal("no row of the first ones is predicted benign: the test needs some")
	}
	rep, err := Run(context.Background(), FromSetup(s), o)
	if err != nil {
		t.Fatal(err)
	}
	got := slices.Sorted(slices.Values(rep.Rows[Test]))
	if rep.AlreadyTarget[Test] != skipped || !slices.Equal(got, want) {
		t.Errorf("skipped %d, evaluated rows %v; want %d and %v", rep.AlreadyTarget[Test], got, skipped, want)
	}
	for _, m := range o.Methods {
		if c := rep.Counts[m][Test]; c.Instances != o.N {
			t.Errorf("%s: %d instances, want %d", m, c.Instances, o.N)
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
	for _, note := range []string{"already predicts the target class", `eval.Options.Class "benign"`} {
		if !strings.Contains(b.String(), note) {
			t.Errorf("the notes do not say %q:\n%s", note, b.String())
		}
	}

	// Only rows predicted benign: nothing to explain.
	var onlyBenign []int
	for p, pr := range probs {
		if quce.PredictedClass(pr, o.Config.Threshold) == benign && len(onlyBenign) < 3 {
			onlyBenign = append(onlyBenign, s.TestIdx[p])
		}
	}
	lines, err := pipeline.Lines(s.Data)
	if err != nil {
		t.Fatal(err)
	}
	o.Rows = nil
	for _, r := range onlyBenign {
		o.Rows = append(o.Rows, lines[r])
	}
	_, err = Run(context.Background(), FromSetup(s), o)
	if err == nil || !strings.Contains(err.Error(), "eval.Options.Class") {
		t.Errorf("only rows already in the class: error %v, want one naming eval.Options.Class", err)
	}
}
