package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/testsetup"
)

func cacheDir() string { return testsetup.CacheDir() }

func TestExplainJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "e.json")
	svg := filepath.Join(t.TempDir(), "svg")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"explain", "-n", "2", "-steps", "300", "-json", out, "-svg", svg, "-cache", cacheDir()}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("explain: %v\n%s", err, stderr.String())
	}
	if !strings.Contains(stdout.String(), "-> ") || !strings.Contains(stderr.String(), "backend:") {
		t.Errorf("output lacks the per-feature lines or the backend:\n%s\n%s", stdout.String(), stderr.String())
	}
	var doc map[string]any
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"dataset", "backend", "config", "features", "results", "versions"} {
		if _, ok := doc[k]; !ok {
			t.Errorf("JSON lacks %q", k)
		}
	}
	results := doc["results"].([]any)
	if len(results) != 2 {
		t.Fatalf("%d results, want 2", len(results))
	}
	for _, k := range []string{"file", "line", "split", "target_class", "prob_target_start", "prob_target_end", "valid", "x",
		"counterfactual", "x_original", "counterfactual_original", "attribution", "attribution_plus",
		"attribution_minus", "epsilon", "completeness_gap", "cf_uncertainty", "path_uncertainty", "path_steps",
		"paths", "valid_paths_count", "path"} {
		if _, ok := results[0].(map[string]any)[k]; !ok {
			t.Errorf("result lacks %q", k)
		}
	}
	files, _ := filepath.Glob(filepath.Join(svg, "*.svg"))
	if len(files) != 4 {
		t.Errorf("%d SVG files, want 4 (2 rows × attribution, path): %v", len(files), files)
	}
	// A second run must not overwrite the JSON without -force.
	err = run(context.Background(), []string{"explain", "-n", "1", "-steps", "10", "-json", out, "-cache", cacheDir()}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "-force") {
		t.Errorf("overwriting without -force: error %v", err)
	}
}

func TestCommandErrors(t *testing.T) {
	allFeatures := strings.Join(data.WBC().Features, ",")
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("a,b,y\n1,2,0\n3,x,1\n"), 0o644)
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"explain", "-lambdas", "1,2"}, "three comma-separated numbers"},
		{[]string{"explain", "-lambdas", "1,-2,0"}, "-lambdas \"1,-2,0\": λ2 = -2"},
		{[]string{"explain", "-lambdas", "0,1,1"}, "positive λ1"},
		{[]string{"explain", "-optimizer", "rmsprop"}, "-optimizer \"rmsprop\": unknown optimizer"},
		{[]string{"explain", "-rule", "x"}, "-rule \"x\""},
		{[]string{"explain", "-k", "0"}, "-k 0"},
		{[]string{"explain", "-lr", "-1"}, "-lr -1"},
		{[]string{"explain", "-steps", "0"}, "-steps 0"},
		{[]string{"explain", "-threshold", "1"}, "-threshold 1"},
		{[]string{"explain", "-paths", "0"}, "-paths 0"},
		{[]string{"explain", "-samples", "-1"}, "-samples -1"},
		{[]string{"explain", "-early-stop", "-1"}, "-early-stop -1"},
		{[]string{"explain", "-top", "-1"}, "-top -1"},
		{[]string{"explain", "-split", "val"}, "use train, test or all"},
		{[]string{"explain", "-hidden", "60,0"}, "-hidden \"60,0\""},
		{[]string{"explain", "-hidden", "wide"}, "-hidden \"wide\""},
		{[]string{"explain", "-epochs", "0"}, "-epochs 0"},
		{[]string{"explain", "-latent", "0"}, "-latent 0"},
		{[]string{"explain", "-vae-epochs", "-3"}, "-vae-epochs -3"},
		{[]string{"explain", "-model", "m.onnx", "-epochs", "5"}, "-epochs shapes the built-in classifier"},
		{[]string{"eval", "-splits", "val"}, "-splits \"val\""},
		{[]string{"explain", "-data", bad}, `column "b"`},
		{[]string{"explain", "-data", "/nonexistent.csv"}, "nonexistent.csv"},
		{[]string{"explain", "-n", "1000", "-cache", cacheDir()}, "has only 114 rows"},
		{[]string{"explain", "-frozen", "nope", "-cache", cacheDir()}, `unknown feature "nope"`},
		{[]string{"explain", "-frozen", allFeatures, "-cache", cacheDir()}, "every feature is frozen"},
		{[]string{"eval", "-methods", "lime"}, "lime"},
		{[]string{"bogus"}, "usage"},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		err := run(context.Background(), tc.args, &stdout, &stderr)
		msg := ""
		if err != nil {
			msg = err.Error() + stderr.String()
		}
		if err == nil || !strings.Contains(msg, tc.want) {
			t.Errorf("%v: error %v (stderr %q); want %q", tc.args, err, stderr.String(), tc.want)
		}
	}
}

func TestEvalJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "eval.json")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"eval", "-n", "5", "-steps", "200", "-json", out, "-cache", cacheDir(), "-q"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr.String())
	}
	var doc struct {
		Dataset string
		N       int
		Metrics map[string]map[string]map[string]float64
	}
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if doc.N != 5 || len(doc.Metrics) != 5 {
		t.Fatalf("n = %d, %d methods; want 5 and 5", doc.N, len(doc.Metrics))
	}
	if _, ok := doc.Metrics["quce"]["test"]["path_uncertainty_mean"]; !ok {
		t.Error("quce lacks path_uncertainty_mean on test")
	}
	if _, ok := doc.Metrics["dice-random"]["test"]["path_uncertainty_mean"]; ok {
		t.Error("dice-random has a path metric; it has no path")
	}
	if !strings.Contains(stdout.String(), "Path uncertainty") {
		t.Error("no tables printed")
	}
}
