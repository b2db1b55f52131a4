package main

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quce-go/quce/internal/testsetup"
)

// No error the command reports says "quce: quce:": the library's errors carry the prefix
// already (a model declared with the wrong outputs is caught by quce.NewClassifier or by
// the explainer, and reaches the command unwrapped).
func TestErrorsSayQuceOnce(t *testing.T) {
	wbcCSV := filepath.Join(testsetup.Root(), "data", "wbc.csv")
	for _, tc := range []struct {
		name, command string
		args          []string
	}{
		{"sigmoid output declared a logit", "explain", []string{"-data", wbcCSV, "-model", fixture("models/wbc_prob.onnx"), "-model-output", "logit"}},
		{"logits declared probabilities", "explain", []string{"-data", wbcCSV, "-model", fixture("models/wbc_raw.onnx"), "-model-output", "probability"}},
		{"no steps", "explain", []string{"-steps", "0"}},
		{"unknown class", "explain", []string{"-class", "maybe"}},
		{"unknown rule", "explain", []string{"-rule", "simpsons"}},
		{"unknown method", "eval", []string{"-methods", "quce,oracle"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{tc.command, "-n", "1", "-steps", "5", "-q", "-cache", cacheDir()}, tc.args...)
			err := run(context.Background(), args, &stdout, &stderr)
			if err == nil {
				t.Fatalf("no error; stderr:\n%s", stderr.String())
			}
			for _, text := range []string{errorLine(err), stderr.String()} {
				if strings.Contains(text, "quce: quce:") {
					t.Errorf("the prefix is doubled: %q", text)
				}
			}
			if line := errorLine(err); !strings.HasPrefix(line, "quce: ") {
				t.Errorf("%q does not start with the command's name", line)
			}
		})
	}
}
