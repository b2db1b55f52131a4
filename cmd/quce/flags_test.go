package main

import (
	"flag"
	"strings"
	"testing"
)

// Every quce.Config field in the table of flags is set by a registered flag, so a setting
// that quce.Config.Validate refuses is named by the flag the user gave.
func TestConfigFlagsAreFlags(t *testing.T) {
	var c common
	fs := flag.NewFlagSet("quce", flag.ContinueOnError)
	c.register(fs)
	for field, f := range configFlags {
		if fs.Lookup(f.flag) == nil {
			t.Errorf("field %q maps to -%s, which is not a flag", field, f.flag)
		}
	}
}

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
