package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
	"github.com/quce-go/quce/report"
)

// No error the command reports says "quce: quce:": the library's errors carry the prefix
// already (a model declared with the wrong outputs is caught by quce.NewClassifier or by
// the explainer, and reaches the command unwrapped).
func TestErrorsSayQuceOnce(t *testing.T) {
	wbcCSV := filepath.Join(pipelinetest.Root(), "data", "wbc.csv")
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
		// The explainer's refusal, wrapped by package eval.
		{"job too large for memory, in eval", "eval", []string{"-methods", "quce", "-samples", "100000000"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := append([]string{tc.command, "-n", "1", "-steps", "5", "-q", "-cache", pipelinetest.CacheDir()}, tc.args...)
			err := run(context.Background(), args, &stdout, &stderr)
			if err == nil {
				t.Fatalf("no error; stderr:\n%s", stderr.String())
			}
			for _, text := range []string{errorLine(err), stderr.String()} {
				if strings.Contains(text, "quce: quce:") {
					t.Errorf("the prefix is doubled: %q", text)
				}
			}
			if line := errorLine(err); strings.Count(line, "quce: ") != 1 {
				t.Errorf("%q names the command more than once", line)
			}
			if line := errorLine(err); !strings.HasPrefix(line, "quce: ") {
				t.Errorf("%q does not start with the command's name", line)
			}
		})
	}
}

// A search the device had no memory for, however the library wrapped it, is reported with
// the flag that sizes the search's units and the value to try, once prefixed.
func TestDeviceMemoryErrorNamesUnitRows(t *testing.T) {
	oom := &quce.DeviceMemoryError{Program: "loop", Rows: 4096, UnitRows: 4096,
		Err: errors.New("PJRT error (code=8): Out of memory while trying to allocate 2147483648 bytes.")}
	line := errorLine(fmt.Errorf("eval: QUCE on the test split: %w", oom))
	for _, want := range []string{"quce: the device ran out of memory", "loop program on 4096 rows", "fix: smaller units, -unit-rows 2048", "allocate 2147483648 bytes"} {
		if !strings.Contains(line, want) {
			t.Errorf("%q does not say %q", line, want)
		}
	}
	if strings.Count(line, "quce: ") != 1 || strings.Contains(line, "WithUnitRows") {
		t.Errorf("%q: the command's name more than once, or the library's field", line)
	}
}

// readRecords reads a -csv file: its header, then its rows.
func readRecords(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// readCSV reads a -csv file as records keyed by its header.
func readCSV(t *testing.T, path string) []map[string]string {
	t.Helper()
	recs := readRecords(t, path)
	var out []map[string]string
	for _, r := range recs[1:] {
		m := map[string]string{}
		for i, h := range recs[0] {
			m[h] = r[i]
		}
		out = append(out, m)
	}
	return out
}

// -class naming the class a row is already predicted as: the text says so and shows no
// table, nothing is searched or changed, the JSON and CSV mark the row already_target, and
// no picture is drawn for it. The other rows are explained as usual.
func TestExplainAlreadyTarget(t *testing.T) {
	dir := t.TempDir()
	js, cs, svg := filepath.Join(dir, "e.json"), filepath.Join(dir, "e.csv"), filepath.Join(dir, "svg")
	var stdout, stderr bytes.Buffer
	// Lines 3 and 39 of wbc.csv are test rows predicted malignant and benign.
	err := run(context.Background(), []string{"explain", "-rows", "3,39", "-class", "benign", "-steps", "50", "-q",
		"-json", js, "-csv", cs, "-svg", svg, "-cache", pipelinetest.CacheDir()}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("explain: %v\n%s", err, stderr.String())
	}
	text := stdout.String()
	if !strings.Contains(text, `line 39 of wbc.csv (test split): already predicted "benign"`) || !strings.Contains(text, "nothing to change") {
		t.Errorf("the text does not say that line 39 is already benign:\n%s", text)
	}
	if strings.Count(text, "-> counterfactual") != 1 || !strings.Contains(text, `line 3 of wbc.csv (test split): predicted "malignant", target "benign"`) {
		t.Errorf("want one table, for line 3 only:\n%s", text)
	}
	var doc struct {
		Results []struct {
			Line            int      `json:"line"`
			Valid           bool     `json:"valid"`
			AlreadyTarget   bool     `json:"already_target"`
			PathSteps       int      `json:"path_steps"`
			ChangedFeatures []string `json:"changed_features"`
		} `json:"results"`
	}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	for _, r := range doc.Results {
		already := r.Line == 39
		if r.AlreadyTarget != already || already && !r.Valid || already != (r.PathSteps == 0) || already != (len(r.ChangedFeatures) == 0) {
			t.Errorf("line %d: already %v, valid %v, %d steps, changed %v", r.Line, r.AlreadyTarget, r.Valid, r.PathSteps, r.ChangedFeatures)
		}
	}
	for _, r := range readCSV(t, cs) {
		already := r["line"] == "39"
		if r["already_target"] != strconv.FormatBool(already) || already && (r["changed"] != "false" || r["attribution"] != "0") {
			t.Errorf("CSV line %s, column %s: already_target %s, changed %s, attribution %s", r["line"], r["column"], r["already_target"], r["changed"], r["attribution"])
		}
	}
	files, _ := filepath.Glob(filepath.Join(svg, "*"))
	for _, f := range files {
		if strings.Contains(f, "line39") {
			t.Errorf("a picture of line 39, which has no path: %s", f)
		}
	}
	if len(files) != 3 {
		t.Errorf("%d pictures, want 3 (line 3): %v", len(files), files)
	}

	// Line 39 alone: no row has a path, so no picture, and the log says why.
	stdout.Reset()
	stderr.Reset()
	svg39 := filepath.Join(dir, "svg39")
	err = run(context.Background(), []string{"explain", "-rows", "39", "-class", "benign", "-svg", svg39, "-cache", pipelinetest.CacheDir()}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("explain -rows 39: %v\n%s", err, stderr.String())
	}
	if files, _ := filepath.Glob(filepath.Join(svg39, "*")); len(files) != 0 || !strings.Contains(stderr.String(), "no pictures: no row has a path to draw") {
		t.Errorf("line 39 alone: pictures %v; stderr:\n%s", files, stderr.String())
	}
}

// On mixed data, a column that ends unchanged but carries an attribution is marked: a "*"
// after its attribution with a note under the table, detour_columns in the JSON, detour in
// the CSV; changed is false for it.
func TestExplainMarksDetours(t *testing.T) {
	dir := t.TempDir()
	js, cs := filepath.Join(dir, "e.json"), filepath.Join(dir, "e.csv")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"explain", "-data", "german_credit", "-n", "2", "-q",
		"-json", js, "-csv", cs, "-cache", pipelinetest.CacheDir()}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("explain: %v\n%s", err, stderr.String())
	}
	var doc struct {
		Results []struct {
			Line          int      `json:"line"`
			DetourColumns []string `json:"detour_columns"`
		} `json:"results"`
	}
	b, _ := os.ReadFile(js)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	detours := map[string]bool{} // line/column
	for _, r := range doc.Results {
		for _, c := range r.DetourColumns {
			detours[fmt.Sprintf("%d/%s", r.Line, c)] = true
		}
	}
	if len(detours) == 0 {
		t.Fatal("no detour in two rows of German credit: the test shows nothing")
	}
	n := 0
	for _, r := range readCSV(t, cs) {
		key := r["line"] + "/" + r["column"]
		if (r["detour"] == "true") != detours[key] || detours[key] && (r["changed"] != "false" || r["original"] != r["counterfactual"]) {
			t.Errorf("CSV %s: detour %s, changed %s, %s -> %s; JSON detour %v", key, r["detour"], r["changed"], r["original"], r["counterfactual"], detours[key])
		}
		if detours[key] {
			n++
		}
	}
	// Every marked row of the text tables is a detour of the JSON, and the note explains it.
	marks := 0
	line := 0
	for _, l := range strings.Split(stdout.String(), "\n") {
		if strings.HasPrefix(l, "line ") {
			fmt.Sscanf(l, "line %d", &line)
		}
		fields := strings.Fields(l)
		if len(fields) > 0 && strings.Contains(l, "->") && strings.Contains(l, report.DetourMark+" ") {
			marks++
			if !detours[fmt.Sprintf("%d/%s", line, fields[0])] {
				t.Errorf("marked in the text but not a detour: %q", l)
			}
		}
	}
	if marks == 0 || !strings.Contains(stdout.String(), report.DetourMark+" unchanged at the end: the path moved this column and back") {
		t.Errorf("%d marked rows, %d detours in the CSV; text:\n%s", marks, n, stdout.String())
	}
}

// referenceParagraph is docs/REFERENCE.md's text from the first "from" to the "to" after it.
func referenceParagraph(t *testing.T, from, to string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pipelinetest.Root(), "docs", "REFERENCE.md"))
	if err != nil {
		t.Fatal(err)
	}
	text := string(b)
	start := strings.Index(text, from)
	end := strings.Index(text[max(start, 0):], to)
	if start < 0 || end < 0 {
		t.Fatalf("docs/REFERENCE.md has no paragraph from %q to %q", from, to)
	}
	return text[start : start+end]
}

// docs/REFERENCE.md names the -csv table's columns as the file has them, in order.
func TestReferenceListsTheCSVColumns(t *testing.T) {
	var named []string
	for _, m := range regexp.MustCompile("`([a-z_]+)(\\(_paper\\))?`").FindAllStringSubmatch(referenceParagraph(t, "`-csv FILE` writes", "Numbers are written"), -1) {
		named = append(named, m[1])
		if m[2] != "" {
			named = append(named, m[1]+"_paper")
		}
	}
	if !slices.Equal(named, report.CSVColumns) {
		t.Errorf("docs/REFERENCE.md lists the -csv columns\n%v\nthe file has\n%v", named, report.CSVColumns)
	}
}
