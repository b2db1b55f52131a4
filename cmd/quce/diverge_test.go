package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// absurd matches what no text output may print: NaN, Inf, or a number of ten digits or more
// before its decimal point or beyond 1e8 (a search that ran off to ±1e9 in original units).
var absurd = regexp.MustCompile(`\bNaN\b|\bInf\b|(^|[^.\d])\d{10,}|\de\+(0[89]|[1-9]\d)`)

// tables is the text before eval's notes (which repeat the settings, -lr 1e9 included).
func tables(stdout string) string {
	if i := strings.Index(stdout, "\nNotes\n"); i >= 0 {
		return stdout[:i]
	}
	return stdout
}

// noFiles checks that none of paths exists (a folder counts if it holds anything).
func noFiles(t *testing.T, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if entries, err := os.ReadDir(p); err == nil && len(entries) > 0 {
			t.Errorf("%s holds %d files; want none", p, len(entries))
		} else if st, err := os.Stat(p); err == nil && !st.IsDir() {
			t.Errorf("%s was written; want no output file", p)
		}
	}
}

// A failure is never a success: when every row's search diverges, the text says why with
// the fix (and no number of a diverged search), no output file is written, and the command
// fails; eval fails when no method gave a valid result, and succeeds when one did.
func TestEveryRowFailedIsAnError(t *testing.T) {
	// Every column's range open on both sides (-bounds name=:), so that the search is free to
	// run away (inside the default box, the observed range, it bounces between the box's
	// corners instead, and some of those paths pass every check honestly).
	var open []string
	for _, f := range data.WBC().Features {
		open = append(open, f+"=:")
	}
	bounds := strings.Join(open, ",")
	dir := t.TempDir()
	js, csv, svg := filepath.Join(dir, "e.json"), filepath.Join(dir, "e.csv"), filepath.Join(dir, "svg")
	for _, tc := range []struct {
		name   string
		args   []string
		want   []string // in the error; nil: no error
		stdout []string
	}{
		{"explain, every search diverges", []string{"explain", "-n", "2", "-lr", "1e9", "-bounds", bounds, "-json", js, "-csv", csv, "-svg", svg},
			[]string{"every one of the 2 explanations failed", "-lr", "no output files were written"},
			[]string{"FAILED: ", "fix: a smaller learning rate (-lr), such as 0.01"}},
		{"summary, every search diverges", []string{"summary", "-n", "2", "-lr", "1e9", "-bounds", bounds, "-json", js, "-csv", csv, "-svg", svg},
			[]string{"every one of the 2 explanations failed", "-lr", "no output files were written"},
			[]string{"The search of 2 rows failed", "quce explain -rows on them says why"}},
		{"eval, every method diverges", []string{"eval", "-n", "2", "-splits", "test", "-methods", "quce,wachter", "-lr", "1e9", "-bounds", bounds, "-json", js, "-svg", svg},
			[]string{"no method gave a valid result for any instance", "-lr", "no output files were written"},
			[]string{"Validity rate", "0.00 (0/2)", "fix: a smaller learning rate (-lr), such as 0.01"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stdout, _, err := quceRun(tc.args...)
			if err == nil {
				t.Fatalf("no error; stdout:\n%s", stdout)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			for _, w := range tc.stdout {
				if !strings.Contains(stdout, w) {
					t.Errorf("stdout lacks %q:\n%s", w, stdout)
				}
			}
			if m := absurd.FindString(tables(stdout)); m != "" {
				t.Errorf("the output prints %q:\n%s", m, stdout)
			}
			noFiles(t, js, csv, svg)
		})
	}

	// With one method that succeeds, eval writes its report, in which the diverged
	// searches count as failures, not as valid.
	stdout, stderr, err := quceRun("eval", "-n", "2", "-splits", "test", "-methods", "quce,dice-random", "-lr", "1e9", "-bounds", bounds, "-json", js)
	if err != nil {
		t.Fatalf("eval with DiCE-random succeeding: %v\n%s", err, stderr)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	if m := absurd.FindString(tables(stdout)); m != "" {
		t.Errorf("the tables print %q:\n%s", m, stdout)
	}
	var rep struct {
		Counts    map[string]map[string]struct{ Valid, Failed int }
		Metrics   map[string]any
		Instances map[string]any
	}
	if err := json.Unmarshal(b, &rep); err != nil {
		t.Fatal(err)
	}
	if v := largest(rep.Metrics, rep.Instances); v > 1e8 {
		t.Errorf("the report's metrics or instances hold %g", v)
	}
	if c := rep.Counts["quce"]["test"]; c.Valid != 0 || c.Failed != 2 {
		t.Errorf("quce counts %+v; want 0 valid, 2 failed", c)
	}
}

// A row that fails beside one that does not: the text says why it failed and prints none of
// its numbers, the JSON has null for them, the CSV NA, and it gets no pictures; the command
// succeeds with the other row.
func TestFailedRowBesideAGoodOne(t *testing.T) {
	ds := data.WBC()
	feats := ds.Features
	good := make([]string, len(feats))
	for i, v := range ds.X[1] {
		good[i] = strconv.FormatFloat(v, 'g', -1, 64)
	}
	huge := make([]string, len(feats))
	for i := range huge {
		huge[i] = "1e19" // finite, but its squared reconstruction error overflows
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "new.csv")
	text := strings.Join(feats, ",") + "\n" + strings.Join(good, ",") + "\n" + strings.Join(huge, ",") + "\n"
	if err := os.WriteFile(in, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	js, csv, svg := filepath.Join(dir, "e.json"), filepath.Join(dir, "e.csv"), filepath.Join(dir, "svg")
	// The default 1000 steps, so that the good row reaches its target class.
	var o, e bytes.Buffer
	err := run(context.Background(), []string{"explain", "-instances", in, "-json", js, "-csv", csv, "-svg", svg, "-cache", pipelinetest.CacheDir()}, &o, &e)
	stdout, stderr := o.String(), e.String()
	if err != nil {
		t.Fatalf("explain: %v\n%s", err, stderr)
	}
	failedLine := "line 3 of " + in
	if !strings.Contains(stdout, failedLine) || !strings.Contains(stdout, "FAILED: F, its gradient or L_ε is non-finite at the instance itself; fix:") {
		t.Fatalf("stdout does not report line 3's failure with its fix:\n%s", stdout)
	}
	failedText := stdout[strings.Index(stdout, failedLine):]
	if len(strings.Fields(strings.ReplaceAll(failedText, " ", "_"))) != 1 || strings.Contains(stdout, "NaN") {
		t.Errorf("the failed row prints more than why it failed:\n%s", failedText)
	}
	if !strings.Contains(stderr, "no pictures for "+failedLine) {
		t.Errorf("stderr does not say the failed row gets no pictures:\n%s", stderr)
	}
	pics, _ := filepath.Glob(filepath.Join(svg, "*"))
	for _, p := range pics {
		if strings.Contains(filepath.Base(p), "line3-") {
			t.Errorf("a picture of the failed row: %s", p)
		}
	}
	if len(pics) != 3 {
		t.Errorf("%d pictures %v; want the good row's 3", len(pics), pics)
	}
	b, err := os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var doc struct{ Results []map[string]any }
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	bad := doc.Results[1]
	if bad["valid"] != false || bad["failure"] == nil {
		t.Errorf("failed row: valid %v, failure %v", bad["valid"], bad["failure"])
	}
	for _, k := range []string{"prob_target_end", "counterfactual", "counterfactual_original", "attribution", "completeness_gap", "cf_uncertainty", "path"} {
		if bad[k] != nil {
			t.Errorf("failed row's %s = %v; want null", k, bad[k])
		}
	}
	if doc.Results[0]["failure"] != nil || doc.Results[0]["attribution"] == nil {
		t.Errorf("the good row: failure %v, attribution %v", doc.Results[0]["failure"], doc.Results[0]["attribution"])
	}
	recs := readRecords(t, csv)
	col := func(name string) int { return slices.Index(recs[0], name) }
	seen := 0
	for _, rec := range recs[1:] {
		if rec[col("line")] != "3" {
			continue
		}
		seen++
		for _, name := range []string{"counterfactual", "attribution", "prob_target_end", "completeness_gap", "rank", "changed", "detour"} {
			if rec[col(name)] != "NA" {
				t.Errorf("failed row's CSV %s is %q; want NA", name, rec[col(name)])
			}
		}
		if f := rec[col("failure")]; !strings.Contains(f, "non-finite at the instance itself; fix:") {
			t.Errorf("failed row's CSV failure is %q; want the reason with its fix", f)
		}
	}
	if seen != len(data.WBC().Features) {
		t.Errorf("%d CSV rows of the failed instance (line 3); want one per column, %d", seen, len(data.WBC().Features))
	}
}

// Ctrl-C while the models train returns at once (training itself stops before its next
// graph execution; the command does not wait for it).
func TestInterruptWhilePreparing(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	release := make(chan struct{})
	defer close(release)
	started := make(chan struct{})
	go func() { <-started; cancel() }()
	s, err := prepareUntil(ctx, func() (*pipeline.Setup, error) {
		close(started)
		<-release // training that never ends while the test runs
		return nil, nil
	})
	if !errors.Is(err, context.Canceled) || s != nil {
		t.Errorf("setup %v, error %v; want none and context.Canceled", s, err)
	}
}

// Ctrl-C during explain or eval (cancelled when the command says it starts the work, an
// event, not a race) stops it with context.Canceled and writes no file.
func TestInterruptWritesNothing(t *testing.T) {
	for _, tc := range []struct {
		name, when string
		args       []string
	}{
		{"explain with many paths", "explaining", []string{"explain", "-n", "2", "-paths", "3000"}},
		{"explain with automatic λ and sparsity", "explaining", []string{"explain", "-n", "2", "-lambdas", "auto", "-sparse"}},
		{"eval", "AGI on", []string{"eval", "-n", "2", "-splits", "test"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			js, svg := filepath.Join(dir, "e.json"), filepath.Join(dir, "svg")
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			stderr := &cancelOn{when: tc.when, cancel: cancel}
			args := append(tc.args, "-json", js, "-svg", svg, "-steps", "50", "-cache", pipelinetest.CacheDir())
			err := run(ctx, args, new(strings.Builder), stderr)
			if !errors.Is(err, context.Canceled) {
				t.Errorf("error %v; want context.Canceled", err)
			}
			noFiles(t, js, svg)
		})
	}
}

// largest is the largest magnitude of any number in decoded JSON values.
func largest(vs ...any) float64 {
	m := 0.0
	for _, v := range vs {
		switch x := v.(type) {
		case float64:
			m = max(m, x, -x)
		case []any:
			m = max(m, largest(x...))
		case map[string]any:
			for _, y := range x {
				m = max(m, largest(y))
			}
		}
	}
	return m
}

// cancelOn is a log that cancels once a line holding when is written.
type cancelOn struct {
	strings.Builder
	when   string
	cancel func()
}

func (c *cancelOn) Write(p []byte) (int, error) {
	if strings.Contains(string(p), c.when) {
		c.cancel()
	}
	return c.Builder.Write(p)
}
