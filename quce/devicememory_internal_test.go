package quce

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"
)

// A search's execution refused for want of device memory becomes a *DeviceMemoryError that
// names the program, its rows and the smaller units to try, and that the engines pass on
// without their "-engine steps" fix; any other error, or the refusal in a program whose
// sizes units do not set, is left as it is.
func TestDeviceMemoryError(t *testing.T) {
	pr := programs{batching: AcceleratorBatching}
	rows := func(n int) []any { return []any{tensors.FromFlatDataAndDimensions(make([]float32, n*2), n, 2)} }
	// go-xla's form of a PJRT error (pjrt/error.go: "PJRT error (code=%d): %s"), code 8 being
	// RESOURCE_EXHAUSTED, and XLA's own wording of the status.
	pjrtOOM := errors.New("PJRT error (code=8): Out of memory while trying to allocate 2147483648 bytes.")
	for _, tc := range []struct {
		name, program string
		args          []any
		err           error
		oom           bool // a DeviceMemoryError, of
		wantRows      int  // rows (0: not known), to try next in units of
		wantSmaller   int
	}{
		{"PJRT code 8, loop", "loop", rows(4096), pjrtOOM, true, 4096, 2048},
		{"RESOURCE_EXHAUSTED, replay", "replay", rows(64), errors.New("RESOURCE_EXHAUSTED: failed to allocate buffer"), true, 64, 32},
		{"wrapped, step", "step", rows(3000), fmt.Errorf("executing: %w", pjrtOOM), true, 3000, 1500},
		{"padded batch above the units", "loop", rows(8192), pjrtOOM, true, 8192, 2048},
		{"rows not known", "step", []any{[]float32{1}}, pjrtOOM, true, 0, 2048},
		{"one row", "loop", rows(1), pjrtOOM, true, 1, 1},
		{"another error", "loop", rows(4096), errors.New("PJRT error (code=3): invalid argument"), false, 0, 0},
		{"the ± integrals' program", "points", rows(4096), pjrtOOM, false, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := pr.deviceMemory(tc.program, tc.args, tc.err)
			var dm *DeviceMemoryError
			if !errors.As(err, &dm) {
				if tc.oom {
					t.Fatalf("got %v, want a DeviceMemoryError", err)
				}
				if err != tc.err {
					t.Fatalf("got %v, want the error unchanged", err)
				}
				return
			}
			if !tc.oom {
				t.Fatalf("got a DeviceMemoryError for %v", tc.err)
			}
			if dm.Rows != tc.wantRows || dm.Program != tc.program || dm.UnitRows != 4096 || !errors.Is(err, tc.err) {
				t.Fatalf("got %+v, want %d rows of %s in units of 4096 wrapping %v", dm, tc.wantRows, tc.program, tc.err)
			}
			if got := dm.SmallerUnits(); got != tc.wantSmaller {
				t.Errorf("SmallerUnits() = %d, want %d", got, tc.wantSmaller)
			}
			if msg := engineError("loop", 1, 1000, err).Error(); strings.Contains(msg, "Engine steps") || !strings.Contains(msg, fmt.Sprintf("WithUnitRows(%d)", tc.wantSmaller)) {
				t.Errorf("the loop engine says %q", msg)
			}
		})
	}
	if msg := engineError("replay", 1, 8, errors.New("unsupported op")).Error(); !strings.Contains(msg, "Settings.Engine steps") {
		t.Errorf("another error from the replay engine says %q, without the steps engine", msg)
	}
}
