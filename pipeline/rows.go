package pipeline

// Row numbering. A row is named everywhere (the CLI's text, its JSON, CSV and file names,
// the notebooks) by the line of its CSV file on which it starts: the header is line 1, so
// in a file without blank lines the first data row is line 2. That is the number a person
// sees in an editor or with `sed -n 42p file.csv`.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
)

// EmbeddedFile is the file name under which the embedded W-BC data's lines are counted: the
// embedded file is data/wbc.csv in the repository.
const EmbeddedFile = "wbc.csv"

// embeddedFiles maps the names of the embedded data sets to the files they are read from
// (in data/ of the repository).
var embeddedFiles = sync.OnceValue(func() map[string]string {
	return map[string]string{data.WBC().Name: EmbeddedFile, data.GermanCredit().Name: "german_credit.csv"}
})

// DataFile names the file whose lines Lines counts: the path given to data.Load (Name), or
// the embedded file (EmbeddedFile for W-BC, german_credit.csv for German credit).
func DataFile(ds *data.Dataset) string {
	if f, ok := embeddedFiles()[ds.Name]; ok {
		return f
	}
	return ds.Name
}

// RowFile names the file of row i of ds, whose line Lines gives: its own file for a data set
// read from two files (data.LoadSplit), else DataFile.
func RowFile(ds *data.Dataset, i int) string {
	if ds.Files != nil {
		return ds.Files[i]
	}
	return DataFile(ds)
}

// Lines returns, for every row of ds, the line of its CSV file on which the row starts (the
// header is line 1; blank lines are counted, as data.Parse counts them in its errors): the
// lines data.Parse recorded in ds.Lines, which a Subset keeps. A data set built without them
// is read again from the file named ds.Name, which must still hold the bytes ds was parsed
// from (its Checksum); ds must then be the whole file, not a Subset.
func Lines(ds *data.Dataset) ([]int, error) {
	if ds.Lines != nil && len(ds.Lines) == ds.Rows() {
		return slices.Clone(ds.Lines), nil
	}
	f, err := os.Open(ds.Name)
	if err != nil {
		return nil, fmt.Errorf("numbering the rows of %s by their lines: %w; fix: load the data with data.Load from a file that stays in place", ds.Name, err)
	}
	defer f.Close()
	h := sha256.New()
	lines, err := csvLines(io.TeeReader(f, h))
	if err != nil {
		return nil, fmt.Errorf("numbering the rows of %s by their lines: %w", ds.Name, err)
	}
	if _, err := io.Copy(h, f); err != nil {
		return nil, fmt.Errorf("numbering the rows of %s by their lines: %w", ds.Name, err)
	}
	if hex.EncodeToString(h.Sum(nil)) != ds.Checksum {
		return nil, fmt.Errorf("%s changed after it was loaded, so its lines no longer name the loaded rows; fix: run again on the file as it is now", ds.Name)
	}
	if len(lines) != ds.Rows() {
		return nil, fmt.Errorf("%s has %d data rows but the data set %d (a subset?); fix: pass the whole data set as loaded", ds.Name, len(lines), ds.Rows())
	}
	return lines, nil
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// newCSVReader reads CSV as data.Parse does: an optional UTF-8 byte-order mark, cells
// trimmed of leading spaces, rows of any length (checked by the caller).
func newCSVReader(r io.Reader) *csv.Reader {
	br := bufio.NewReader(r)
	if b, _ := br.Peek(3); bytes.HasPrefix(b, utf8BOM) {
		_, _ = br.Discard(len(utf8BOM))
	}
	cr := csv.NewReader(br)
	cr.FieldsPerRecord = -1
	cr.TrimLeadingSpace = true
	return cr
}

// nextRecord returns the next record that is not blank and the line it starts on, as
// data.Parse skips blank lines (io.EOF at the end).
func nextRecord(cr *csv.Reader) ([]string, int, error) {
	for {
		rec, err := cr.Read()
		if err != nil {
			return nil, 0, err
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue
		}
		line, _ := cr.FieldPos(0)
		return rec, line, nil
	}
}

// csvLines returns the line on which each data row (every non-blank record after the
// header) of a CSV file starts.
func csvLines(r io.Reader) ([]int, error) {
	cr := newCSVReader(r)
	cr.ReuseRecord = true
	var lines []int
	for first := true; ; first = false {
		_, line, err := nextRecord(cr)
		if err == io.EOF {
			return lines, nil
		}
		if err != nil {
			return nil, err
		}
		if !first {
			lines = append(lines, line)
		}
	}
}

// Instances are new rows to explain, read from a CSV file with the data's feature columns.
type Instances struct {
	File  string      // the file read
	X     [][]float64 // one row per instance, encoded as the data's rows are (original units)
	Lines []int       // the line of File on which each row starts (the header is line 1)
}

// ReadInstances reads new instances from the CSV file path for the data set ds: a header
// naming every feature column of ds (in any order), optionally its target column and its
// ignored columns, whose values are skipped; then one row per instance, holding cells as the
// data file does (categories as their text). Each row is encoded with ds.EncodeRecord. Every
// problem is a *data.Error naming the file, line, column and value, with a fix: an unknown
// or duplicate column, a missing feature column, a row with the wrong number of cells, a
// missing value, a number that is not one, a category the data never had, and a file with
// no rows.
func ReadInstances(path string, ds *data.Dataset) (*Instances, error) {
	f, err := openInstances(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	cr := newCSVReader(f)
	h, err := readInstanceHeader(cr, path, ds)
	if err != nil {
		return nil, err
	}
	in := &Instances{File: path}
	values := make(map[string]string, len(h.names))
	for {
		rec, line, err := nextRecord(cr)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, instanceReadError(path, err)
		}
		if len(rec) != len(h.names) {
			return nil, &data.Error{File: path, Line: line,
				Problem: fmt.Sprintf("row has %d cells but the header has %d", len(rec), len(h.names)),
				Fix:     "give every row one cell per header column (look for missing or extra commas; quote cells that contain commas)"}
		}
		for j, cell := range rec {
			if h.used[j] {
				values[h.names[j]] = cell
			}
		}
		x, err := ds.EncodeRecord(values)
		if err != nil {
			var e *data.Error
			if errors.As(err, &e) {
				e.File = path
				e.Line, _ = cr.FieldPos(h.index[e.Column])
			}
			return nil, err
		}
		in.X = append(in.X, x)
		in.Lines = append(in.Lines, line)
	}
	if len(in.X) == 0 {
		return nil, &data.Error{File: path, Problem: "file has a header row but no instances", Fix: "add one row per instance below the header"}
	}
	return in, nil
}

// openInstances opens the instance file path.
func openInstances(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		e := &data.Error{File: path, Problem: "cannot open the file: " + err.Error(), Fix: "pass the path of a readable CSV file"}
		if errors.Is(err, fs.ErrNotExist) {
			e.Problem, e.Fix = "file not found", "check the path and spelling (relative paths are read from the working directory)"
		}
		return nil, e
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, &data.Error{File: path, Problem: "is a folder, not a CSV file", Fix: "pass the path of a CSV file"}
	}
	return f, nil
}

// instanceReadError is the *data.Error for err, met reading the instance file path.
func instanceReadError(path string, err error) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &data.Error{File: path, Line: pe.Line, Problem: "is not valid CSV: " + pe.Err.Error(),
			Fix: "save the file as plain comma-separated values (quote cells that contain commas or quotes)"}
	}
	return &data.Error{File: path, Problem: "cannot read the file: " + err.Error(), Fix: "check that the file is readable and complete"}
}

// instanceHeader is an instance file's header row.
type instanceHeader struct {
	names []string       // the column names, trimmed
	used  []bool         // a feature column, whose cells are read
	index map[string]int // the position of each name
}

// readInstanceHeader reads and checks the header of the instance file path for the data set
// ds: every column is a feature, the target or an ignored column of ds, once, and every
// feature column is there.
func readInstanceHeader(cr *csv.Reader, path string, ds *data.Dataset) (*instanceHeader, error) {
	header, hline, err := nextRecord(cr)
	if err == io.EOF {
		return nil, &data.Error{File: path, Problem: "file is empty",
			Fix: fmt.Sprintf("write a header row naming the feature columns of %s, then one row per instance", DataFile(ds))}
	}
	if err != nil {
		return nil, instanceReadError(path, err)
	}
	features := featureColumns(ds)
	h := &instanceHeader{names: header, used: make([]bool, len(header)), index: map[string]int{}}
	have := make([]bool, len(features))
	for j, name := range header {
		name = strings.TrimSpace(name)
		header[j] = name
		if e := data.CheckText(name); e != nil {
			e.File, e.Line = path, hline
			e.Problem = fmt.Sprintf("in header column %d %s", j+1, e.Problem)
			return nil, e
		}
		if k, dup := h.index[name]; dup {
			return nil, &data.Error{File: path, Line: hline, Column: name,
				Problem: fmt.Sprintf("column name appears more than once (columns %d and %d)", k+1, j+1),
				Fix:     "keep one column of each name"}
		}
		h.index[name] = j
		switch f := slices.Index(features, name); {
		case f >= 0:
			h.used[j], have[f] = true, true
		case name == ds.Target, slices.Contains(ds.Ignored, name):
		case name == "":
			return nil, &data.Error{File: path, Line: hline,
				Problem: fmt.Sprintf("header column %d has no name", j+1),
				Fix:     "name every column after a feature column of " + DataFile(ds)}
		default:
			return nil, &data.Error{File: path, Line: hline, Column: name,
				Problem: fmt.Sprintf("is not a column of %s, whose features are %s", DataFile(ds), listNames(features)),
				Fix:     fmt.Sprintf("rename the column to the feature it holds, or remove it (an instance file has the data's feature columns, in any order, and optionally the target column %q)", ds.Target)}
		}
	}
	var missing []string
	for f, ok := range have {
		if !ok {
			missing = append(missing, features[f])
		}
	}
	if len(missing) > 0 {
		return nil, &data.Error{File: path, Line: hline,
			Problem: fmt.Sprintf("the header lacks %d of the feature columns of %s: %s", len(missing), DataFile(ds), listNames(missing)),
			Fix:     "add the missing columns: the model needs a value of every feature for each instance"}
	}
	return h, nil
}

// featureColumns returns the names of the feature columns of ds: its Columns, or its
// Features for a data set built without them (where every feature is a numeric column).
func featureColumns(ds *data.Dataset) []string {
	if ds.Columns == nil {
		return ds.Features
	}
	names := make([]string, len(ds.Columns))
	for i, c := range ds.Columns {
		names[i] = c.Name
	}
	return names
}

// listNames quotes names for a message, at most 8.
func listNames(names []string) string {
	q := make([]string, 0, 9)
	for i, n := range names {
		if i == 8 {
			q = append(q, fmt.Sprintf("… (%d more)", len(names)-8))
			break
		}
		q = append(q, strconv.Quote(n))
	}
	return strings.Join(q, ", ")
}

// RowOf finds the standardised row x among the splits' rows (XTest, then XTrain): the index
// of its row in Data and the split's name ("test" or "train"), or −1 and "" when x is
// neither's row.
func (p *Plan) RowOf(x []float64) (row int, split string) {
	for _, sp := range []struct {
		name string
		xs   [][]float64
		idx  []int
	}{{"test", p.XTest, p.TestIdx}, {"train", p.XTrain, p.TrainIdx}} {
		if k := slices.IndexFunc(sp.xs, func(r []float64) bool { return slices.Equal(r, x) }); k >= 0 {
			return sp.idx[k], sp.name
		}
	}
	return -1, ""
}

// Query is the query for the standardised row x: for a row of the splits it carries the row
// as read from its file (quce.Query.Original), so that values the counterfactual leaves
// unchanged, and bounds it reaches, are reported exactly in the data's units; any other x
// is converted back through the scaler.
func (p *Plan) Query(x []float64) quce.Query {
	q := quce.NewQuery(x)
	if row, _ := p.RowOf(x); row >= 0 {
		q.Original = slices.Clone(p.Data.X[row])
	}
	return q
}

// NeedRecourse returns the indices of the first n of the rows xs (in the data's units) that
// need recourse towards the class target: rows the model does not already predict as the
// target at the threshold (fewer when there are not n), and how many it skipped before the
// last one kept (all of them skipped when fewer than n were found). A row already in the
// class has nothing to change, so a count of rows to explain "towards the class" counts these.
func (s *Setup) NeedRecourse(xs [][]float64, target int, threshold float64, n int) (keep []int, skipped int, err error) {
	const chunk = 4096 // predictions at a time: a large file stops as soon as n are found
	for lo := 0; lo < len(xs) && len(keep) < n; lo += chunk {
		part := xs[lo:min(lo+chunk, len(xs))]
		std := make([][]float64, len(part))
		for i, x := range part {
			std[i] = s.Scaler.TransformRow(x)
		}
		probs, err := s.Explainer.Predict(std)
		if err != nil {
			return nil, 0, err
		}
		for i := range part {
			switch {
			case len(keep) == n:
			case quce.PredictedClass(probs[i], threshold) == target:
				skipped++
			default:
				keep = append(keep, lo+i)
			}
		}
	}
	return keep, skipped, nil
}
