package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// stallResults explains every W-BC test row at the defaults with the extra flags and
// returns the text report and each row's validity, F(τ|x_c) and stall step.
func stallResults(t *testing.T, extra ...string) (string, []stallResult) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "e.json")
	args := append([]string{"explain", "-n", "all", "-q", "-json", out, "-cache", pipelinetest.CacheDir()}, extra...)
	var stdout, stderr bytes.Buffer
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("explain: %v\n%s", err, stderr.String())
	}
	var doc struct {
		Results []stallResult `json:"results"`
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	return stderr.String() + stdout.String(), doc.Results
}

type stallResult struct {
	Line          int     `json:"line"`
	Valid         bool    `json:"valid"`
	ProbEnd       float64 `json:"prob_target_end"`
	StalledAtStep int     `json:"stalled_at_step"`
}

// A saturating model (tanh hidden units at ±1 on most rows, exported from PyTorch with a
// Sigmoid): at the defaults some searches stall on its plateau, where F(τ|·) does not rise
// and its gradient has vanished. They are detected, walk on without the proximity term and
// end valid, with the stall in the JSON and the text; at least 98% of the test rows end
// valid (without the detection, 112 of 114).
func TestSaturatingModelStallRecovers(t *testing.T) {
	text, res := stallResults(t, "-model", fixture("models/wbc_tanh.onnx"), "-model-output", "probability")
	valid, stalled := 0, 0
	for _, r := range res {
		if r.Valid {
			valid++
		}
		if r.StalledAtStep > 0 {
			stalled++
			if !r.Valid || r.ProbEnd < 0.55 {
				t.Errorf("line %d stalled at step %d and ended at F(τ|x_c) %.4f (valid %v); want valid with F ≥ ϑ + 0.05", r.Line, r.StalledAtStep, r.ProbEnd, r.Valid)
			}
		}
	}
	if len(res) == 0 || float64(valid) < 0.98*float64(len(res)) {
		t.Errorf("%d of %d test rows valid; want at least 98%%", valid, len(res))
	}
	if stalled == 0 {
		t.Error("no search stalled on the saturating model; want the stall detected (lines 267 and 505 stay at F ≈ 0 without it)")
	}
	if got := strings.Count(text, "stalled at step"); got != stalled {
		t.Errorf("the text reports %d stalls, the JSON %d", got, stalled)
	}
}

// On the built-in model at the defaults no search stalls: the detection leaves its results
// as they were.
func TestBuiltInModelDoesNotStall(t *testing.T) {
	_, res := stallResults(t)
	for _, r := range res {
		if r.StalledAtStep > 0 {
			t.Errorf("line %d: stalled at step %d on the built-in model", r.Line, r.StalledAtStep)
		}
	}
	if len(res) == 0 {
		t.Fatal("no results")
	}
}
