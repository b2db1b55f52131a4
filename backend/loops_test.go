package backend

import (
	"errors"
	"strings"
	"testing"
)

// TestLoops probes the two pure-Go backends: the patched one runs the loops training and the
// search build; GoMLX's own (compute v0.1.14) fails on a gradient inside a While body, which
// Loops reports as a *LoopsError (and Info in its description) instead of a failed training.
func TestLoops(t *testing.T) {
	for _, tc := range []struct {
		config string
		runs   bool
	}{
		{PatchedGo, true},
		{PatchedGo + ":ops_parallel", true},
		{UpstreamGo, false},
	} {
		b, err := New(tc.config)
		if err != nil {
			t.Fatal(err)
		}
		err = Loops(b)
		var le *LoopsError
		if tc.runs != (err == nil) || !tc.runs && !errors.As(err, &le) {
			t.Errorf("%s: Loops = %v, want it to run loops: %v", tc.config, err, tc.runs)
			continue
		}
		if RunsLoops(b) != tc.runs {
			t.Errorf("%s: RunsLoops = %v, want %v", tc.config, !tc.runs, tc.runs)
		}
		if again := Loops(b); again != err {
			t.Errorf("%s: a second Loops gave %v after %v: the probe runs once a backend", tc.config, again, err)
		}
		info := newInfo(b, tc.config, "test")
		if warned := strings.Contains(info.String(), "cannot run a While loop"); warned == tc.runs {
			t.Errorf("%s: Info %q: warning %v, want %v", tc.config, info, warned, !tc.runs)
		}
		if !tc.runs && (le.Backend != UpstreamGo || !strings.Contains(err.Error(), "one execution per step")) {
			t.Errorf("%s: %v names backend %q and not what runs instead", tc.config, err, le.Backend)
		}
	}
}
