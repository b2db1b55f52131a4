package main

import (
	"strings"
	"testing"
)

// quce eval's quce-auto searches with the settings and -auto-grid, so they are checked, and
// named by their flags, before anything trains.
func TestEvalAutoSettingsChecked(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"eval", "-methods", "quce-auto", "-plausibility-quantile", "0"}, "-plausibility-quantile 0 is not allowed; fix:"},
		{[]string{"eval", "-methods", "quce,quce-auto", "-plausibility-quantile", "1.5"}, "-plausibility-quantile 1.5 is not allowed; fix:"},
		{[]string{"eval", "-methods", "quce-auto", "-auto-grid", "0.1:-1"}, `-auto-grid "0.1:-1": automatic λ, candidate 1: λ3 = -1; fix:`},
	} {
		_, stderr, err := quceRun(tc.args...)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v (stderr %q); want %q", tc.args, err, stderr, tc.want)
		}
	}
}
