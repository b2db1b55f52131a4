package gonbext

import (
	"fmt"
	"slices"
	"testing"

	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// Rows are named by their CSV line, as in the command-line tool; new instances by position.
func TestRowNames(t *testing.T) {
	s := pipelinetest.WBC(t)
	other := append([]float64(nil), s.XTest[0]...)
	other[0] += 1
	got := rowNames(s, [][]float64{s.XTest[0], s.XTrain[3], other})
	want := []string{fmt.Sprintf("line %d (test)", s.TestIdx[0]+2), fmt.Sprintf("line %d (train)", s.TrainIdx[3]+2), "instance 2"}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("row %d named %q, want %q", i, got[i], want[i])
		}
	}
}

// A notebook explains a split's row with the row as read (pipeline.Setup.Query), so its
// values and the columns the counterfactual leaves unchanged are reported exactly as in the
// file, not through a float32 round trip of the scaler.
func TestExplainReportsTheRowAsRead(t *testing.T) {
	s := pipelinetest.WBC(t)
	cfg := quce.DefaultConfig()
	cfg.Steps = 50
	i := 0
	q := s.Query(s.XTest[i])
	q.Frozen = make([]bool, len(q.X))
	q.Frozen[1] = true // mean_texture: values such as 17.77 are not float32 numbers
	ex, err := ExplainQueries(s, cfg, []quce.Query{q})
	if err != nil {
		t.Fatal(err)
	}
	want := s.Data.X[s.TestIdx[i]]
	if got := ex[0].XOriginal; !slices.Equal(got, want) {
		t.Errorf("x in data units %v, want the row as read %v", got, want)
	}
	if got := ex[0].Path0().CounterfactualOriginal[1]; got != want[1] {
		t.Errorf("frozen mean_texture ends at %v, want exactly %v", got, want[1])
	}
	other := slices.Clone(s.XTest[i])
	other[0] += 1
	if q := s.Query(other); q.Original != nil {
		t.Errorf("a row of neither split got Original %v", q.Original)
	}
}
