package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/report"
)

// The rows to explain are named by their line in their CSV file (the header is line 1):
// see pipeline.Lines. -n takes the first rows of a split, -rows chooses lines, and
// -instances reads new rows from another file (whose lines then name them).

// pick is one row chosen for explanation.
type pick struct {
	file  string    // the file whose line names the row (of two with -train and -test)
	line  int       // line of the file on which the row starts
	split string    // "train", "test", or "instances" for a row of -instances
	x     []float64 // original units
}

// selection is what explain will explain: rows of one file, or of two with -train and -test.
type selection struct {
	file              string // the file whose lines name the rows (or -rows's, of two)
	instances         bool   // the rows come from -instances
	picks             []pick
	trainIdx, testIdx []int // the data's split the rows were chosen from
	// With -class and -n N, pool holds the rows -n counts among, what names them, and N is
	// need: the picks are the first N of them that need recourse (needRecourse), which the
	// trained model says; until then, the first N.
	pool []pick
	what string
	need int
}

// rowFlags checks -split, -n, -rows and -instances before any data is read.
func (f *explainFlags) rowFlags() error {
	switch f.split {
	case "train", "test", "all":
	default:
		return fmt.Errorf("-split %q: fix: use train, test or all", f.split)
	}
	if f.instances != "" && f.set["split"] {
		return fmt.Errorf("-split %s with -instances %s: the instances are not rows of a split; fix: drop -split", f.split, f.instances)
	}
	if f.shard != "" {
		if _, err := parseShard(f.shard); err != nil {
			return err
		}
	}
	if f.rows != "" && f.set["n"] {
		return fmt.Errorf("-n and -rows both choose rows; fix: use one of them (-rows 3,17,42 names lines, -n 5 takes the first rows)")
	}
	switch n := strings.TrimSpace(f.n); n {
	case "", "all":
	default:
		v, err := strconv.Atoi(n)
		if err != nil || v <= 0 {
			return fmt.Errorf("-n %q: fix: use a positive number of rows, or all", f.n)
		}
	}
	_, err := f.lineList()
	return err
}

// lineList parses -rows.
func (f *explainFlags) lineList() ([]int, error) { return parseLines(f.rows) }

// parseLines parses a -rows list of line numbers ("" gives nil), for explain and eval.
func parseLines(rows string) ([]int, error) {
	if strings.TrimSpace(rows) == "" {
		return nil, nil
	}
	var lines []int
	for _, p := range strings.Split(rows, ",") {
		p = strings.TrimSpace(p)
		v, err := strconv.Atoi(p)
		if err != nil {
			return nil, fmt.Errorf("-rows %q: %q is not a line number; fix: list line numbers of the CSV file, comma-separated, such as 3,17,42 (the header is line 1)", rows, p)
		}
		if slices.Contains(lines, v) {
			return nil, fmt.Errorf("-rows %q: line %d is listed twice; fix: list each line once", rows, v)
		}
		lines = append(lines, v)
	}
	return lines, nil
}

// selectRows chooses the rows to explain from the data (split into trainIdx and testIdx) or
// from -instances. It runs before the models are trained, so a wrong row fails at once.
func (f *explainFlags) selectRows(ds *data.Dataset, trainIdx, testIdx []int) (*selection, error) {
	sel := &selection{instances: f.instances != "", trainIdx: trainIdx, testIdx: testIdx}
	var all []pick // every row that can be chosen, in file order
	if f.instances != "" {
		in, err := pipeline.ReadInstances(f.instances, ds)
		if err != nil {
			return nil, err
		}
		sel.file = in.File
		for i, x := range in.X {
			all = append(all, pick{file: in.File, line: in.Lines[i], split: "instances", x: x})
		}
	} else {
		lines, err := pipeline.Lines(ds)
		if err != nil {
			return nil, err
		}
		sel.file = pipeline.DataFile(ds)
		splitOf := make([]string, ds.Rows())
		for _, i := range trainIdx {
			splitOf[i] = "train"
		}
		for _, i := range testIdx {
			splitOf[i] = "test"
		}
		for i, x := range ds.X {
			all = append(all, pick{file: pipeline.RowFile(ds, i), line: lines[i], split: splitOf[i], x: x})
		}
	}
	// -split narrows the rows of the data; with -rows and no -split, any split will do.
	inSplit := func(p pick) bool {
		return f.instances != "" || f.split == "all" || p.split == f.split || (f.rows != "" && !f.set["split"])
	}
	want, _ := f.lineList()
	if want != nil {
		if ds.Files != nil && f.instances == "" { // -rows names lines of the -split's file
			if f.split == "all" || !f.set["split"] {
				return nil, fmt.Errorf("-rows with -train and -test: a line number could name a row of either file; fix: add -split train (lines of %s) or -split test (lines of %s)", f.trainCSV, f.testCSV)
			}
			sel.file = f.trainCSV
			if f.split == "test" {
				sel.file = f.testCSV
			}
		}
		byLine := make(map[int]pick, len(all))
		var lines []int
		for _, p := range all {
			if p.file == sel.file {
				byLine[p.line], lines = p, append(lines, p.line)
			}
		}
		for _, l := range want {
			p, ok := byLine[l]
			if !ok {
				return nil, lineError(l, sel.file, lines)
			}
			if !inSplit(p) {
				return nil, fmt.Errorf("-rows: line %d of %s is in the %s split, not the %s split; fix: pass -split %s, or -split all (or leave -split out: with -rows it takes any split)",
					l, sel.file, p.split, f.split, p.split)
			}
			sel.picks = append(sel.picks, p)
		}
		return sel, nil
	}
	var pool []pick
	for _, p := range all {
		if inSplit(p) {
			pool = append(pool, p)
		}
	}
	what := fmt.Sprintf("the %s split", f.split)
	switch {
	case f.instances != "":
		what = f.instances
	case f.split == "all":
		what = sel.file
	}
	n := 5
	switch s := strings.TrimSpace(f.n); {
	case s == "all" || (s == "" && f.instances != ""):
		n = len(pool)
	case s != "":
		n, _ = strconv.Atoi(s)
	}
	if n > len(pool) {
		return nil, fmt.Errorf("-n %d: %s has only %d rows; fix: use -n %d or less, or -n all", n, what, len(pool), len(pool))
	}
	sel.picks = pool[:n]
	if f.class != "" && n < len(pool) {
		sel.pool, sel.what, sel.need = pool, what, n
	}
	return sel, nil
}

// needRecourse makes the picks, with -class and -n N, the first N rows of the pool that need
// recourse (pipeline.Setup.NeedRecourse).
func (f *explainFlags) needRecourse(s *pipeline.Setup, sel *selection, target int, threshold float64) error {
	xs := make([][]float64, len(sel.pool))
	for i, p := range sel.pool {
		xs[i] = p.x
	}
	keep, skipped, err := s.NeedRecourse(xs, target, threshold, sel.need)
	if err != nil {
		return err
	}
	if len(keep) < sel.need {
		return fmt.Errorf("-n %d with -class %s: only %d rows of %s need recourse (the model already predicts %s for the other %d); fix: use -n %d or less, or -n all (which explains every row, those already in the class too)",
			sel.need, f.class, len(keep), sel.what, f.class, skipped, len(keep))
	}
	if skipped > 0 {
		f.logf("-class %s: skipped %d rows of %s that the model already predicts as %s, so the %d rows explained all need recourse", f.class, skipped, sel.what, f.class, sel.need)
	}
	sel.picks = sel.picks[:0]
	for _, i := range keep {
		sel.picks = append(sel.picks, sel.pool[i])
	}
	return nil
}

// lineError explains why line l names no data row of file.
func lineError(l int, file string, lines []int) error {
	first, last := lines[0], lines[len(lines)-1]
	span := fmt.Sprintf("its data rows are on lines %d to %d", first, last)
	if last-first+1 != len(lines) {
		span += fmt.Sprintf(" (%d rows; the others are blank or continue a quoted cell)", len(lines))
	}
	var why string
	switch {
	case l == 1:
		why = "is the header"
	case l < 1:
		why = "is not a line number (the first line is 1)"
	case l > last:
		why = "is past the last data row"
	default:
		why = "holds no data row (a blank line, or a quoted cell that continues from the line before)"
	}
	return fmt.Errorf("-rows: line %d of %s %s; %s; fix: choose lines from %d to %d", l, file, why, span, first, last)
}

// svgPrefix is the start of a picture's file name: "line42" for a row of the data, and the
// file's name before it for -instances ("new-line3"), so pictures of new instances cannot
// be mistaken for the data's rows.
func (s *selection) svgPrefix(p pick) string {
	if p.split == "instances" {
		stem := strings.TrimSuffix(filepath.Base(s.file), filepath.Ext(s.file))
		return fmt.Sprintf("%s-line%d", stem, p.line)
	}
	return fmt.Sprintf("line%d", p.line)
}

// name is how the text output names a row: "line 42 of wbc.csv (test split)".
func (s *selection) name(p pick) string { return s.source(p).Name() }

// source is where the row p comes from, as the outputs name it.
func (s *selection) source(p pick) report.Source {
	return report.Source{File: p.file, Line: p.line, Split: p.split}
}
