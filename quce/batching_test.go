package quce_test

import (
	"testing"

	"github.com/quce-go/quce/quce"
)

// WithUnitRows changes the rows of a unit and scales a loop execution's budgets with them,
// so that a unit's search takes as many executions as before; the rest is kept.
func TestWithUnitRows(t *testing.T) {
	for _, tc := range []struct {
		name string
		b    quce.Batching
		rows int
		want quce.Batching
	}{
		{"zero value", quce.Batching{}, 1024, quce.Batching{UnitRows: 1024, LoopRowSteps: 1 << 17, LoopKeptBytes: 32 << 20,
			UncertaintyRows: 256, ProbeRows: 1024, PointRows: 512}},
		{"CPU", quce.CPUBatching, 4096, quce.Batching{UnitRows: 4096, LoopRowSteps: 1 << 19, LoopKeptBytes: 128 << 20,
			UncertaintyRows: 256, ProbeRows: 1024, PointRows: 512}},
		{"accelerator", quce.AcceleratorBatching, 32768, quce.Batching{UnitRows: 32768, LoopRowSteps: 32768 * 1024, LoopKeptBytes: 1 << 30,
			UncertaintyRows: 4096, ProbeRows: 16384, PointRows: 4096, PadRows: true}},
	} {
		if got := tc.b.WithUnitRows(tc.rows); got != tc.want {
			t.Errorf("%s.WithUnitRows(%d) = %+v, want %+v", tc.name, tc.rows, got, tc.want)
		}
	}
}
