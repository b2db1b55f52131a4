package pipeline

import (
	"math"
	"runtime/debug"
	"testing"
)

// PaceGC paces the collector at GCPercent unless GOGC is set, in which case the runtime's
// own reading of it stands; and unless GOMEMLIMIT is set, it makes the memory available the
// collector's soft limit, so that the pace does not overshoot what the explainer's memory
// estimate allowed for.
func TestPaceGC(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	for _, tc := range []struct {
		gogc, gomemlimit string
		wantPercent      int
		wantLimit        bool
	}{
		{"", "", GCPercent, true},
		{"50", "", 77, true},
		{"", "1GiB", GCPercent, false},
	} {
		debug.SetGCPercent(77)              // what the runtime would have taken from GOGC
		debug.SetMemoryLimit(math.MaxInt64) // and from GOMEMLIMIT
		t.Setenv("GOGC", tc.gogc)
		t.Setenv("GOMEMLIMIT", tc.gomemlimit)
		PaceGC()
		if got := debug.SetGCPercent(100); got != tc.wantPercent {
			t.Errorf("GOGC=%q: collector at %d%%; want %d%%", tc.gogc, got, tc.wantPercent)
		}
		if got := debug.SetMemoryLimit(-1); (got < math.MaxInt64) != tc.wantLimit {
			t.Errorf("GOMEMLIMIT=%q: limit %d; want one set: %v", tc.gomemlimit, got, tc.wantLimit)
		}
	}
}
