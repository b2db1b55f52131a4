package quce_test

import (
	"sync"
	"testing"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/graph"

	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/quce"
)

// otherBackend is the pure-Go backend under another name: what the explainer builds for XLA
// or ONNX Runtime (the layers as stored), run here.
type otherBackend struct{ compute.Backend }

func (otherBackend) String() string { return "other" }

// On a backend other than the pure-Go one, no program holds a constant that grows with its
// batch: XLA's builder writes a program's constants into its text element by element, so a
// batch-sized one (biases repeated on every row of ten points a row, say) makes every larger
// batch compile longer. Each program compiled for 3 rows and for 40 holds the same
// constants.
func TestProgramConstantsIndependentOfRows(t *testing.T) {
	s := wbc(t)
	clf, err := quce.NewClassifier(s.Model, s.Options.ModelInput, s.Options.ModelOutput, s.Scaler)
	if err != nil {
		t.Fatal(err)
	}
	e, err := quce.New(otherBackend{modeltest.GoBackend(t)}, clf, s.VAE, s.Scaler, s.Data.Features, quce.Settings{Columns: s.Data.Columns, Shards: 1})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	constants := map[string]map[int]bool{} // program → the constants' sizes it was compiled with
	defer quce.SetCompiledHook(func(program string, g *graph.Graph) {
		n := 0
		for _, node := range g.Nodes() {
			if node.Type() == graph.NodeTypeConstant {
				n += node.Shape().Size()
			}
		}
		mu.Lock()
		defer mu.Unlock()
		if constants[program] == nil {
			constants[program] = map[int]bool{}
		}
		constants[program][n] = true
	})()
	cfg := quce.DefaultConfig()
	cfg.Steps = 4
	var engine string
	for _, rows := range []int{3, 40} {
		_, st := explainWith(t, e, cfg, s.XTest[:rows])
		engine = st.Engine
	}
	if len(constants) == 0 {
		t.Fatal("no program was compiled")
	}
	for program, sizes := range constants {
		if len(sizes) != 1 {
			t.Errorf("the %s program's constants hold %v values across batch sizes; want one size", program, sizes)
		}
	}
	if engine != "loop" {
		t.Errorf("the explainer ran the %s engine; want the loop, which such backends run", engine)
	}
}
