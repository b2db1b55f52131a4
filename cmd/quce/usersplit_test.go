package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// userSplitFiles writes a small two-class data set as a training file, a test file (with a
// blank line after its header, so its lines differ from its rows) and one file with both and
// a split column; it returns their paths and each file's rows by line.
func userSplitFiles(t *testing.T) (train, test, joined string, rowsAt map[string]map[int]string) {
	dir := t.TempDir()
	train, test, joined = filepath.Join(dir, "train.csv"), filepath.Join(dir, "test.csv"), filepath.Join(dir, "joined.csv")
	r := rand.New(rand.NewPCG(1, 2))
	tr, te, jo := []string{"a,b,c,y"}, []string{"a,b,c,y", ""}, []string{"a,b,c,y,fold"}
	rowsAt = map[string]map[int]string{train: {}, test: {}}
	for i := range 120 {
		y := i % 2
		round := func(v float64) float64 { return math.Round(v*1000) / 1000 }
		row := fmt.Sprintf("%v,%v,%v,%d", round(r.NormFloat64()+2*float64(y)), round(r.NormFloat64()-float64(y)), round(r.NormFloat64()), y)
		split := "train"
		if i%5 == 0 {
			split = "Test"
			te = append(te, row)
			rowsAt[test][len(te)] = row
		} else {
			tr = append(tr, row)
			rowsAt[train][len(tr)] = row
		}
		jo = append(jo, row+","+split)
	}
	for path, lines := range map[string][]string{train: tr, test: te, joined: jo} {
		if err := os.WriteFile(path, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return train, test, joined, rowsAt
}

// small are the settings of small, quickly trained models.
var small = []string{"-epochs", "20", "-vae-epochs", "5"}

func TestUserSplitErrors(t *testing.T) {
	train, test, joined, _ := userSplitFiles(t)
	bad := filepath.Join(t.TempDir(), "bad.csv")
	if err := os.WriteFile(bad, []byte("a,y,fold\n1,p,train\n2,q,test\n3,p,holdout\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		args, want []string
	}{
		{[]string{"explain", "-train", train}, []string{"-train and -test give the training and the test rows' files together"}},
		{[]string{"summary", "-test", test}, []string{"-train and -test"}},
		{[]string{"explain", "-data", joined, "-train", train, "-test", test}, []string{"fix: drop -data"}},
		{[]string{"explain", "-data", joined, "-split-column", "fold", "-split-seed", "2"}, []string{"-split-seed", "-split-column", "fix: drop -split-seed"}},
		{[]string{"eval", "-train", train, "-test", test, "-split-seed", "2"}, []string{"-split-seed", "-train and -test"}},
		{[]string{"explain", "-data", bad, "-split-column", "fold"}, []string{`bad.csv line 4, column "fold": value "holdout" is not a split`, "(-split-column)"}},
		{[]string{"explain", "-data", joined, "-split-column", "folds"}, []string{`column "folds": -split-column names a column that is not in the header`}},
		{[]string{"explain", "-data", joined, "-split-column", "fold", "-train", train, "-test", test}, []string{"fix: drop -data"}},
		{[]string{"explain", "-train", train, "-test", test, "-rows", "3"}, []string{"-rows with -train and -test", "-split train (lines of " + train}},
		{[]string{"explain", "-train", train, "-test", test, "-rows", "2", "-split", "test"}, []string{"line 2 of " + test + " holds no data row", "lines from 3 to"}},
	} {
		t.Run(strings.Join(c.args, " "), func(t *testing.T) { failsEarly(t, c.args, c.want) })
	}
}

// With -train and -test, every row is named by its own file's line, and the JSON says which
// split was used; -split-column gives the same split from one file.
func TestUserSplitRows(t *testing.T) {
	train, test, joined, rowsAt := userSplitFiles(t)
	checkRows := func(t *testing.T, doc explainOut, wantFile, wantSplit string, n int) {
		t.Helper()
		if len(doc.Results) != n {
			t.Fatalf("%d results, want %d", len(doc.Results), n)
		}
		for _, r := range doc.Results {
			row, ok := rowsAt[wantFile][r.Line]
			if r.File != wantFile || r.Split != wantSplit || !ok {
				t.Fatalf("result named line %d of %s (%s split), want a row of %s (%s split)", r.Line, r.File, r.Split, wantFile, wantSplit)
			}
			if got := strings.Trim(strings.ReplaceAll(fmt.Sprint(r.XOriginal), " ", ","), "[]") + ","; !strings.HasPrefix(row, got) {
				t.Errorf("line %d of %s is %q, but the result explains %v", r.Line, r.File, row, r.XOriginal)
			}
		}
	}
	files, raw := explainJSON(t, append([]string{"-train", train, "-test", test, "-n", "all"}, small...)...)
	checkRows(t, files, test, "test", 24)
	config := raw["config"].(map[string]any)
	if by := fmt.Sprint(config["split_by"]); by != fmt.Sprintf("the files %s (train) and %s (test)", train, test) || config["split_seed"] != nil || config["test_fraction"] != nil {
		t.Errorf("config says split_by %q, split_seed %v, test_fraction %v", by, config["split_seed"], config["test_fraction"])
	}
	picked, _ := explainJSON(t, append([]string{"-train", train, "-test", test, "-rows", "5,9", "-split", "train"}, small...)...)
	checkRows(t, picked, train, "train", 2)

	column, rawColumn := explainJSON(t, append([]string{"-data", joined, "-split-column", "fold", "-n", "all"}, small...)...)
	if len(column.Results) != 24 || column.Results[0].File != joined {
		t.Errorf("-split-column: %d results of %s, want 24 of %s", len(column.Results), column.Results[0].File, joined)
	}
	if by := rawColumn["config"].(map[string]any)["split_by"]; by != `the column "fold"` {
		t.Errorf("-split-column: split_by %v", by)
	}

	out := filepath.Join(t.TempDir(), "s.json")
	if _, stderr, err := quceRun(append([]string{"summary", "-q", "-train", train, "-test", test, "-n", "5", "-json", out}, small...)...); err != nil {
		t.Fatalf("summary: %v\n%s", err, stderr)
	}
	var sum struct {
		Rows []struct {
			File string `json:"file"`
			Line int    `json:"line"`
		} `json:"rows"`
	}
	if b, err := os.ReadFile(out); err != nil || json.Unmarshal(b, &sum) != nil || len(sum.Rows) != 5 {
		t.Fatalf("summary JSON: %v, %d rows", err, len(sum.Rows))
	}
	for _, r := range sum.Rows {
		if _, ok := rowsAt[test][r.Line]; r.File != test || !ok {
			t.Errorf("summary row named line %d of %s, want a row of %s", r.Line, r.File, test)
		}
	}

	evalOut := filepath.Join(t.TempDir(), "e.json")
	if _, stderr, err := quceRun(append([]string{"eval", "-q", "-data", joined, "-split-column", "fold", "-n", "5", "-lr", "0.3", "-methods", "quce", "-json", evalOut}, small...)...); err != nil {
		t.Fatalf("eval: %v\n%s", err, stderr)
	}
	var ev struct {
		SplitBy string           `json:"split_by"`
		Rows    map[string][]int `json:"rows"`
	}
	if b, err := os.ReadFile(evalOut); err != nil || json.Unmarshal(b, &ev) != nil || ev.SplitBy != `the column "fold"` {
		t.Errorf("eval JSON: split_by %q (%v)", ev.SplitBy, err)
	}
	for _, r := range ev.Rows["test"] {
		if r%5 != 0 { // the test rows are every fifth
			t.Errorf("eval's test split has row %d, which the column puts in train", r)
		}
	}
}

// Without -q the searches report to the progress line, through which the messages go; with
// -q there is neither.
func TestProgressWired(t *testing.T) {
	for _, quiet := range []bool{false, true} {
		var stderr bytes.Buffer
		c := &common{stderr: &stderr}
		fs := flag.NewFlagSet("explain", flag.ContinueOnError)
		c.register(fs)
		var args []string
		if quiet {
			args = []string{"-q"}
		}
		if err := c.parse(fs, args); err != nil {
			t.Fatal(err)
		}
		p, err := c.plan()
		if err != nil {
			t.Fatal(err)
		}
		if got := p.Options.Explainer.Progress != nil; got == quiet || (c.meter != nil) == quiet {
			t.Errorf("-q %v: progress reported %v, meter %v", quiet, got, c.meter != nil)
		}
		c.logf("a message")
		if got := strings.Contains(stderr.String(), "a message\n"); got == quiet {
			t.Errorf("-q %v: the message written %v:\n%s", quiet, got, stderr.String())
		}
		// The compiling that OnCompile reports is left out of the searches' pace: 3 s to the
		// first report, 2 of them compiling, leave 1 s for 100 of 1000 steps.
		clk := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
		if c.meter != nil {
			c.meter.Now = func() time.Time { return clk }
		}
		c.meter.Phase("explaining", 1)
		clk = clk.Add(3 * time.Second)
		p.Options.Explainer.OnCompile("loop", 10, 2)
		c.meter.Progress(100, 1000)
		if c.meter == nil {
			continue
		}
		if left, _ := c.meter.Left(); left != 9*time.Second {
			t.Errorf("%v left, want 9s: the compiling not left out", left)
		}
	}
}

// A large job says how large it is before its search starts (this one is stopped there).
func TestExplainSaysALargeJob(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stderr := &cancelOn{when: "a large job", cancel: cancel}
	err := run(ctx, []string{"explain", "-n", "1", "-paths", "10000", "-steps", "1000", "-cache", pipelinetest.CacheDir()}, io.Discard, stderr)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want the job stopped", err)
	}
	want := "explaining 1 rows of wbc.csv: 1000 steps of adam, λ = 1, 0.01, 0.1\na large job: 10 000 searches (1 instance × 10 000 paths) of 1000 steps, about "
	if !strings.Contains(stderr.String(), want) {
		t.Errorf("stderr lacks %q:\n%s", want, stderr.String())
	}
}
