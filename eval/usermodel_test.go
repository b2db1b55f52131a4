package eval

import (
	"context"
	"testing"

	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// The evaluation runs on a user's multi-class model (a PyTorch MLP for Iris, as ONNX): every
// method reaches the named target class, and AGI and DiCE-random move towards it.
func TestEvalOnMultiClassUserModel(t *testing.T) {
	s := pipelinetest.KindNamed(t, "onnx-iris-logit")
	if s.Data.NumClasses() != 3 {
		t.Fatalf("%s: %d classes", s.Data.Name, s.Data.NumClasses())
	}
	o := DefaultOptions()
	o.N, o.Interp, o.Class = 10, 100, "virginica"
	o.Dice.Samples = 200
	rep, err := Run(context.Background(), FromSetup(s), o)
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range []Method{QUCE, AGI, Wachter, DiceRandom} {
		for _, split := range rep.Splits {
			for _, in := range rep.Instances[m][split] {
				if in.Line != in.Row+2 { // iris.csv: a header and no blank lines
					t.Fatalf("%s %s row %d: line %d, want %d", m, split, in.Row, in.Line, in.Row+2)
				}
				if in.Target != 2 {
					t.Fatalf("%s %s row %d: target %d, want 2 (virginica)", m, split, in.Row, in.Target)
				}
			}
			if c := rep.Counts[m][split]; c.Valid < c.Instances*9/10 {
				t.Errorf("%s %s: %d of %d valid", m, split, c.Valid, c.Instances)
			}
		}
	}
	if _, err := Run(context.Background(), FromSetup(s), Options{Class: "rose"}); err == nil {
		t.Error("-class naming no class: no error")
	}
}
