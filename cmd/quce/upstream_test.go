package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quce-go/quce/backend"
)

// A user may choose GoMLX's own pure-Go backend (GOMLX_BACKEND=go), whose While loops fail
// on a gradient inside their body. quce trains and explains there all the same, one
// execution per step, says so on stderr and in the JSON, and finds valid counterfactuals
// whose attributions keep their completeness check; the patched backend runs the loops.
func TestExplainOnUpstreamGoBackend(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command and trains the models")
	}
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	for _, tc := range []struct {
		config string
		loops  bool
	}{{backend.UpstreamGo, false}, {backend.PatchedGo, true}} {
		js := filepath.Join(dir, tc.config+".json")
		cmd := exec.Command(bin, "explain", "-n", "3", "-steps", "200", "-cache", filepath.Join(dir, "cache"), "-json", js)
		cmd.Env = append(os.Environ(), backend.EnvVar+"="+tc.config)
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			t.Fatalf("%s=%s quce explain: %v\n%s", backend.EnvVar, tc.config, err, stderr.String())
		}
		warned := strings.Contains(stderr.String(), "WARNING: the go backend cannot run a While loop with a gradient inside")
		if warned == tc.loops {
			t.Errorf("%s: warning on stderr %v, want %v:\n%s", tc.config, warned, !tc.loops, stderr.String())
		}
		b, err := os.ReadFile(js)
		if err != nil {
			t.Fatal(err)
		}
		var doc struct {
			Backend    string `json:"backend"`
			WhileLoops string `json:"while_loops"`
			Results    []struct {
				Valid           bool    `json:"valid"`
				CompletenessGap float64 `json:"completeness_gap"`
			} `json:"results"`
		}
		if err := json.Unmarshal(b, &doc); err != nil {
			t.Fatal(err)
		}
		if (doc.WhileLoops == "ok") != tc.loops || doc.Backend != tc.config {
			t.Errorf("%s: the JSON says backend %q, while_loops %q", tc.config, doc.Backend, doc.WhileLoops)
		}
		if len(doc.Results) != 3 {
			t.Fatalf("%s: %d results, want 3", tc.config, len(doc.Results))
		}
		for i, r := range doc.Results {
			if !r.Valid || r.CompletenessGap > 1e-3 || r.CompletenessGap < -1e-3 {
				t.Errorf("%s: row %d valid %v, completeness gap %v", tc.config, i, r.Valid, r.CompletenessGap)
			}
		}
	}
}
