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
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/quce-go/quce/data"
)

// EmbeddedFile is the file name under which the embedded W-BC data's lines are counted: the
// embedded file is data/wbc.csv in the repository.
const EmbeddedFile = "wbc.csv"

// isEmbedded reports whether ds holds the bytes of the embedded W-BC file.
func isEmbedded(ds *data.Dataset) bool {
	w := data.WBC()
	return ds.Checksum == w.Checksum && ds.Rows() == w.Rows()
}

// DataFile names the file whose lines Lines counts: the path given to data.Load (Name), or
// EmbeddedFile for the embedded W-BC data.
func DataFile(ds *data.Dataset) string {
	if ds.Name == data.WBC().Name {
		return EmbeddedFile
	}
	return ds.Name
}

// Lines returns, for every row of ds, the line of its CSV file on which the row starts (the
// header is line 1; blank lines are counted, as data.Parse counts them in its errors). The
// embedded W-BC file has no blank lines, so its row i is line i+2. Any other data set is read
// again from the file named ds.Name, which must still hold the bytes ds was parsed from
// (its Checksum); ds must be the whole file, not a Subset.
func Lines(ds *data.Dataset) ([]int, error) {
	if isEmbedded(ds) {
		lines := make([]int, ds.Rows())
		for i := range lines {
			lines[i] = i + 2
		}
		return lines, nil
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
	X     [][]float64 // one row per instance, original units, in the data's feature order
	Lines []int       // the line of File on which each row starts (the header is line 1)
}

// missingSpellings are cell texts that mean "no value" in common exports.
var missingSpellings = map[string]bool{"na": true, "n/a": true, "nan": true, "null": true, "none": true, "?": true, "-": true}

// ReadInstances reads new instances from the CSV file path for the data set ds: a header
// naming every feature column of ds (in any order) and optionally its target column, whose
// values are ignored; then one row per instance. Every problem is a *data.Error naming the
// file, line, column and value, with a fix: an unknown or duplicate column, a missing
// feature column, a row with the wrong number of cells, a missing value or one that is not
// a finite number, and a file with no rows.
func ReadInstances(path string, ds *data.Dataset) (*Instances, error) {
	f, err := os.Open(path)
	if err != nil {
		e := &data.Error{File: path, Problem: "cannot open the file: " + err.Error(), Fix: "pass the path of a readable CSV file"}
		if errors.Is(err, fs.ErrNotExist) {
			e.Problem, e.Fix = "file not found", "check the path and spelling (relative paths are read from the working directory)"
		}
		return nil, e
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, &data.Error{File: path, Problem: "is a folder, not a CSV file", Fix: "pass the path of a CSV file"}
	}
	cr := newCSVReader(f)
	readErr := func(err error) error {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			return &data.Error{File: path, Line: pe.Line, Problem: "is not valid CSV: " + pe.Err.Error(),
				Fix: "save the file as plain comma-separated values (quote cells that contain commas or quotes)"}
		}
		return &data.Error{File: path, Problem: "cannot read the file: " + err.Error(), Fix: "check that the file is readable and complete"}
	}
	header, hline, err := nextRecord(cr)
	if err == io.EOF {
		return nil, &data.Error{File: path, Problem: "file is empty",
			Fix: fmt.Sprintf("write a header row naming the feature columns of %s, then one row per instance", DataFile(ds))}
	}
	if err != nil {
		return nil, readErr(err)
	}
	col := make([]int, len(header)) // feature index of each column; -1 for the target
	seen := map[string]int{}
	have := make([]bool, ds.NumFeatures())
	for j, h := range header {
		h = strings.TrimSpace(h)
		if k, dup := seen[h]; dup {
			return nil, &data.Error{File: path, Line: hline, Column: h,
				Problem: fmt.Sprintf("column name appears more than once (columns %d and %d)", k+1, j+1),
				Fix:     "keep one column of each name"}
		}
		seen[h] = j
		switch f := indexOf(ds.Features, h); {
		case f >= 0:
			col[j], have[f] = f, true
		case h == ds.Target:
			col[j] = -1
		case h == "":
			return nil, &data.Error{File: path, Line: hline,
				Problem: fmt.Sprintf("header column %d has no name", j+1),
				Fix:     "name every column after a feature column of " + DataFile(ds)}
		default:
			return nil, &data.Error{File: path, Line: hline, Column: h,
				Problem: fmt.Sprintf("is not a column of %s, whose features are %s", DataFile(ds), listNames(ds.Features)),
				Fix:     fmt.Sprintf("rename the column to the feature it holds, or remove it (an instance file has the data's feature columns, in any order, and optionally the target column %q)", ds.Target)}
		}
	}
	var missing []string
	for f, ok := range have {
		if !ok {
			missing = append(missing, ds.Features[f])
		}
	}
	if len(missing) > 0 {
		return nil, &data.Error{File: path, Line: hline,
			Problem: fmt.Sprintf("the header lacks %d of the feature columns of %s: %s", len(missing), DataFile(ds), listNames(missing)),
			Fix:     "add the missing columns: the model needs a value of every feature for each instance"}
	}
	in := &Instances{File: path}
	for {
		rec, line, err := nextRecord(cr)
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, readErr(err)
		}
		if len(rec) != len(header) {
			return nil, &data.Error{File: path, Line: line,
				Problem: fmt.Sprintf("row has %d cells but the header has %d", len(rec), len(header)),
				Fix:     "give every row one cell per header column (look for missing or extra commas; quote cells that contain commas)"}
		}
		x := make([]float64, ds.NumFeatures())
		for j, cell := range rec {
			if col[j] < 0 {
				continue // the target's value is not needed
			}
			s := strings.TrimSpace(cell)
			cl, _ := cr.FieldPos(j)
			e := &data.Error{File: path, Line: cl, Column: header[j], Value: s}
			if s == "" || missingSpellings[strings.ToLower(s)] {
				e.Problem = "stands for a missing value"
				if s == "" {
					e.Problem = "cell is empty (a missing value)"
				}
				e.Fix = "fill in the value: QUCE explains complete instances only (remove the row if the value is unknown)"
				return nil, e
			}
			v, perr := strconv.ParseFloat(s, 64)
			switch {
			case perr == nil && !math.IsInf(v, 0):
				x[col[j]] = v
				continue
			case perr == nil || errors.Is(perr, strconv.ErrRange):
				e.Problem, e.Fix = "is not a finite number", "write the value as an ordinary number"
			case strings.Count(s, ",") == 1:
				e.Problem, e.Fix = "is not a number (it uses a decimal comma)", "write decimals with a point, e.g. 1.5 instead of 1,5"
			default:
				e.Problem, e.Fix = "is not a number", fmt.Sprintf("write the value of %q as a number, in the units of %s", header[j], DataFile(ds))
			}
			return nil, e
		}
		in.X = append(in.X, x)
		in.Lines = append(in.Lines, line)
	}
	if len(in.X) == 0 {
		return nil, &data.Error{File: path, Problem: "file has a header row but no instances", Fix: "add one row per instance below the header"}
	}
	return in, nil
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
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
