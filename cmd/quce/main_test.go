package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline/pipelinetest"
)

func TestExplainJSON(t *testing.T) {
	out := filepath.Join(t.TempDir(), "e.json")
	svg := filepath.Join(t.TempDir(), "svg")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"explain", "-n", "2", "-steps", "300", "-json", out, "-svg", svg, "-cache", pipelinetest.CacheDir()}, &stdout, &stderr)
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
	for _, k := range []string{"dataset", "backend", "deterministic", "config", "features", "results", "versions"} {
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
	if len(files) != 6 {
		t.Errorf("%d SVG files, want 6 (2 rows × attribution, path, map): %v", len(files), files)
	}
	// The pictures name the classes by the data's labels, and the maps draw every method.
	maps, _ := filepath.Glob(filepath.Join(svg, "line*-map.svg"))
	if len(maps) != 2 {
		t.Errorf("maps %v, want line<N>-map.svg for each of the 2 rows", maps)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		want := []string{"F(malignant | x)", "F(benign | x)"} // one of them: the target
		if strings.HasSuffix(f, "-map.svg") {
			want = []string{"malignant (training)", "benign (training)", ">QUCE<", ">IG<", ">AGI<"}
		}
		found := 0
		for _, s := range want {
			if bytes.Contains(b, []byte(s)) {
				found++
			}
		}
		if found == 0 || strings.HasSuffix(f, "-map.svg") && found != len(want) {
			t.Errorf("%s has %d of %q", f, found, want)
		}
		for _, s := range []string{"τ=", "class 0", "class 1"} {
			if bytes.Contains(b, []byte(s)) {
				t.Errorf("%s names a class by its index (%q), not its label", f, s)
			}
		}
	}
	// A second run must not overwrite the JSON without -force.
	err = run(context.Background(), []string{"explain", "-n", "1", "-steps", "10", "-json", out, "-cache", pipelinetest.CacheDir()}, &stdout, &stderr)
	if err == nil || !strings.Contains(err.Error(), "-force") {
		t.Errorf("overwriting without -force: error %v", err)
	}
}

func TestExplainPictureFormatAndSize(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "pics")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"explain", "-n", "1", "-steps", "20", "-svg", dir, "-format", "pdf", "-size", "16x20cm", "-cache", pipelinetest.CacheDir()}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("explain: %v\n%s", err, stderr.String())
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*"))
	if len(files) != 3 {
		t.Fatalf("%d files, want 3 (attribution, path, map): %v", len(files), files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if !strings.HasSuffix(f, ".pdf") || !bytes.HasPrefix(b, []byte("%PDF")) {
			t.Errorf("%s is not a PDF file", f)
		}
		// 16 × 20 cm is 453.54 × 566.93 pt.
		if !bytes.Contains(b, []byte("453.54")) || !bytes.Contains(b, []byte("566.93")) {
			t.Errorf("%s is not 16 × 20 cm", f)
		}
	}
	// A bad -format or -size is an error naming the flag, before any work.
	for _, args := range [][]string{{"-format", "gif"}, {"-size", "7by5"}, {"-size", "0x5"}} {
		stderr.Reset()
		err := run(context.Background(), append([]string{"explain", "-n", "1", "-svg", t.TempDir(), "-cache", pipelinetest.CacheDir()}, args...), &stdout, &stderr)
		if err == nil || !strings.HasPrefix(err.Error(), args[0]+": ") || !strings.Contains(err.Error(), "fix:") {
			t.Errorf("explain %v: error %v, want one naming %s with a fix", args, err, args[0])
		}
		if strings.Contains(stderr.String(), "backend:") {
			t.Errorf("explain %v set a backend up before failing:\n%s", args, stderr.String())
		}
	}
}

func TestCommandErrors(t *testing.T) {
	allFeatures := strings.Join(data.WBC().Features, ",")
	bad := filepath.Join(t.TempDir(), "bad.csv")
	os.WriteFile(bad, []byte("a,b,y\n1,2,0\n3,NA,1\n"), 0o644)
	typed := filepath.Join(t.TempDir(), "typed.csv")
	os.WriteFile(typed, []byte("a,b,y\n1.5,low,0\n2,high,1\n3,mid,0\n4,low,1\n5,high,0\n"), 0o644)
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
		{[]string{"explain", "-engine", "fast"}, `-engine "fast": unknown engine "fast"; fix: use auto, loop, steps or replay`},
		{[]string{"explain", "-engine", "loop", "-samples", "2"}, "-samples 2 is not allowed; fix: 0 (the mean code) on the loop engine, or the steps engine"},
		{[]string{"explain", "-top", "-1"}, "-top -1"},
		{[]string{"explain", "-split", "val"}, "use train, test or all"},
		{[]string{"explain", "-hidden", "60,0"}, "-hidden \"60,0\""},
		{[]string{"explain", "-hidden", "wide"}, "-hidden \"wide\""},
		{[]string{"explain", "-epochs", "0"}, "-epochs 0"},
		{[]string{"explain", "-latent", "0"}, "-latent 0"},
		{[]string{"explain", "-vae-epochs", "-3"}, "-vae-epochs -3"},
		{[]string{"explain", "-model", "m.onnx", "-epochs", "5"}, "-epochs shapes the built-in classifier"},
		{[]string{"eval", "-splits", "val"}, "-splits \"val\""},
		{[]string{"explain", "-data", bad}, `column "b": value "NA"`},
		{[]string{"explain", "-data", bad}, "-drop-missing"},
		{[]string{"explain", "-data", typed, "-types", "a=colour"}, "-types"},
		{[]string{"explain", "-data", typed, "-types", "a=integer"}, `value "1.5"`},
		{[]string{"explain", "-data", typed, "-types", "b=ordinal:low<high"}, `value "mid"`},
		{[]string{"explain", "-data", typed, "-types", "c=integer"}, `"c"`},
		{[]string{"explain", "-data", typed, "-ignore", "c"}, `"c"`},
		{[]string{"explain", "-data", "german_credit", "-increase", "housing"}, `-increase housing: column "housing" is categorical`},
		{[]string{"explain", "-data", "german_credit", "-frozen", "age", "-increase", "age"}, "both -frozen and -increase"},
		{[]string{"explain", "-data", "german_credit", "-bounds", "age=old:70"}, "-bounds age=old:70"},
		{[]string{"explain", "-data", "german_credit", "-bounds", "employment=<1:4<=X<7"}, `-bounds employment: column "employment" is categorical`},
		{[]string{"explain", "-data", "german_credit", "-types", "employment=ordinal:unemployed < <1 < 1<=X<4 < 4<=X<7 < >=7",
			"-bounds", "employment=<1:never"}, "levels of the ordinal column"},
		{[]string{"explain", "-data", "german_credit", "-target", "age"}, "drop -target"},
		{[]string{"explain", "-data", "/nonexistent.csv"}, "nonexistent.csv"},
		{[]string{"explain", "-n", "1000", "-cache", pipelinetest.CacheDir()}, "has only 114 rows"},
		{[]string{"explain", "-frozen", "nope", "-cache", pipelinetest.CacheDir()}, `there is no column "nope"`},
		{[]string{"explain", "-frozen", allFeatures, "-cache", pipelinetest.CacheDir()}, "every column is frozen"},
		{[]string{"explain", "-data", "german_credit", "-frozen", "target"}, `-frozen target: "target" is the target column`},
		{[]string{"eval", "-data", "german_credit", "-bounds", "target=a:b"}, `"target" is the target column`},
		{[]string{"eval", "-methods", "lime"}, "lime"},
		{[]string{"eval", "-data", "german_credit", "-increase", "housing"}, `-increase housing: column "housing" is categorical`},
		{[]string{"bench", "-rows", "0"}, "fix: list batch sizes"},
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
	err := run(context.Background(), []string{"eval", "-n", "5", "-steps", "200", "-json", out, "-cache", pipelinetest.CacheDir(), "-q"}, &stdout, &stderr)
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
	if doc.N != 5 || len(doc.Metrics) != 6 {
		t.Fatalf("n = %d, %d methods; want 5 and 6", doc.N, len(doc.Metrics))
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
	// The model and its accuracy are on stdout, also with -q.
	if !regexp.MustCompile(`(?m)^model: the built-in classifier .*, accuracy \d\.\d+ on the 455 training rows`).MatchString(stdout.String()) {
		t.Errorf("stdout lacks the model's accuracy:\n%s", stdout.String())
	}
}
