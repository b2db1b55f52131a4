package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// quce eval -rows evaluates the rows named by their lines, each in its split, and the notes
// (text and JSON) list every setting that applied, by its flag.
func TestEvalRowsAndAppliedSettings(t *testing.T) {
	out := filepath.Join(t.TempDir(), "eval.json")
	var stdout, stderr bytes.Buffer
	err := run(context.Background(), []string{"eval", "-rows", "71,17", "-methods", "quce,dice", "-steps", "100", "-sparse",
		"-json", out, "-cache", pipelinetest.CacheDir(), "-q"}, &stdout, &stderr)
	if err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr.String())
	}
	var doc struct {
		N         int
		Applied   []string
		Instances map[string]map[string][]struct{ Line int }
	}
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	var lines []int
	for _, in := range doc.Instances {
		for _, rs := range in {
			for _, r := range rs {
				if !slices.Contains(lines, r.Line) {
					lines = append(lines, r.Line)
				}
			}
		}
	}
	slices.Sort(lines)
	if doc.N != 2 || !slices.Equal(lines, []int{17, 71}) {
		t.Errorf("n %d, lines evaluated %v; want 2 and [17 71]", doc.N, lines)
	}
	for _, want := range []string{"-sparse", "-rows 71,17", "-steps 100"} {
		if !slices.Contains(doc.Applied, want) {
			t.Errorf("the JSON's applied settings %q lack %q", doc.Applied, want)
		}
		if !strings.Contains(stdout.String(), want) {
			t.Errorf("the notes do not list %q:\n%s", want, stdout.String())
		}
	}
}

// -rows is checked as quce explain checks it, and does not go with -n.
func TestEvalRowsErrors(t *testing.T) {
	for _, tc := range []struct {
		rows []string
		want string
	}{
		{[]string{"-rows", "3,x"}, `"x" is not a line number`},
		{[]string{"-rows", "3,3"}, "line 3 is listed twice"},
		{[]string{"-rows", "3", "-n", "5"}, "-n and -rows both choose rows"},
		{[]string{"-rows", "1"}, "-rows: line 1 holds no data row (the header is line 1"},
	} {
		var stdout, stderr bytes.Buffer
		args := append([]string{"eval", "-methods", "dice", "-cache", pipelinetest.CacheDir(), "-q"}, tc.rows...)
		err := run(context.Background(), args, &stdout, &stderr)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%v: error %v; want %q", tc.rows, err, tc.want)
		}
	}
}
