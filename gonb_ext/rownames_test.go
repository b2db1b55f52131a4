package gonbext

import (
	"fmt"
	"testing"

	"github.com/quce-go/quce/internal/testsetup"
)

// Rows are named by their CSV line, as in the command-line tool; new instances by position.
func TestRowNames(t *testing.T) {
	s := testsetup.WBC(t)
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
