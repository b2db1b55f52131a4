package data

import (
	"bufio"
	"bytes"
	"cmp"
	"crypto/sha256"
	"encoding/csv"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"maps"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// LoadOptions configures Load and Parse.
type LoadOptions struct {
	// Target is the name of the target (label) column. "" selects the
	// last column other than SplitColumn. (The quce command sets it with
	// its -target flag, and names every field of LoadOptions that an error
	// names by its flag.)
	Target string
	// Types declares the types of feature columns by name (-types, parsed
	// by ParseTypes); the other columns' types are detected. A column of
	// type Ignored is left out, as with Ignore.
	Types map[string]TypeSpec
	// Ignore names columns to leave out (-ignore): identifiers, free
	// text, anything the model must not see. Their cells are not read.
	Ignore []string
	// DropMissing drops the rows that have a missing value in a feature or
	// the target column, counting them in Dataset.Dropped (-drop-missing);
	// without it a missing value is an error.
	DropMissing bool
	// SplitColumn names a column whose cells say which split each row is in:
	// train or test, in any case (Dataset.Split). The column is not a
	// feature: it is left out like an Ignore column; when it is the last
	// column, the target is by default the column before it.
	SplitColumn string
}

// MaxClasses is the largest number of distinct values accepted in the
// target column. A column with more is almost certainly a continuous
// measurement rather than a class label.
const MaxClasses = 50

// MaxNumericClasses is the largest number of classes of a target column
// whose values are all numbers: more distinct numbers (ages, prices) are a
// measurement, which a classifier would learn as that many tiny classes.
// Numbered codes of more classes can be written as text.
const MaxNumericClasses = 20

// numericTargetFix is the fix for a target of more than MaxNumericClasses numbers.
var numericTargetFix = fmt.Sprintf("choose the class column with LoadOptions.Target NAME, or group the values into at most %d classes (bands such as 18-29, 30-44); classes that are numbered codes can be written as text (c1, c2, ...)", MaxNumericClasses)

// Load reads a CSV file with a header row (see Parse). Dataset.Name is the
// path. A file that cannot be opened is reported as an *Error wrapping the
// operating-system error.
func Load(path string, opts LoadOptions) (*Dataset, error) {
	f, err := openCSV(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return Parse(f, path, opts)
}

// LoadSplit reads a data set whose split the files give: the rows of train, then the rows of
// test, which must have the same header. Types are detected over both files' rows, as if
// they were one file; Dataset.Split is the files' split and Dataset.Files names each row's
// file (whose line Dataset.Lines gives). Name is "train + test".
func LoadSplit(train, test string, opts LoadOptions) (*Dataset, error) {
	if opts.SplitColumn != "" {
		return nil, &Error{File: train, Column: opts.SplitColumn,
			Problem: "LoadOptions.SplitColumn and data.LoadSplit both give the split",
			Fix:     "give the split once: one file with LoadOptions.SplitColumn, or two files with data.LoadSplit"}
	}
	var srcs []source
	for _, path := range []string{train, test} {
		f, err := openCSV(path)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		srcs = append(srcs, source{f, path})
	}
	return parseSources(srcs, train+" + "+test, opts)
}

// openCSV opens the CSV file path for Load and LoadSplit.
func openCSV(path string) (*os.File, error) {
	if path == "" {
		return nil, &Error{
			Problem: "no file path given",
			Fix:     "pass the path of a CSV file",
		}
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, openError(path, err)
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, &Error{
			File:    path,
			Problem: "is a directory, not a CSV file",
			Fix:     "pass the path of a CSV file",
		}
	}
	return f, nil
}

func openError(path string, err error) *Error {
	e := &Error{File: path, err: err}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		e.Problem = "file not found"
		e.Fix = "check the path and spelling"
		if !strings.HasPrefix(path, "/") {
			if wd, werr := os.Getwd(); werr == nil {
				e.Fix += fmt.Sprintf(" (relative paths are resolved from the working directory %s)", wd)
			}
		}
	case errors.Is(err, fs.ErrPermission):
		e.Problem = "permission denied when opening the file"
		e.Fix = "make the file readable by this user"
	default:
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = pe.Err.Error()
		}
		e.Problem = "cannot open the file: " + msg
		e.Fix = "check that the path names a readable CSV file"
	}
	return e
}

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// slabFloats is the number of float64 values allocated at once for rows.
const slabFloats = 1 << 15

// Parse reads a CSV data set with a header row from r. name is used as
// Dataset.Name and as Error.File in error messages. The target column is
// opts.Target, or the last column if that is empty; the type of every
// other column is detected or declared in opts.Types, and the columns are
// encoded as the package documentation describes. Checksum is the hex
// SHA-256 of all bytes read from r.
//
// Accepted variations: a UTF-8 byte-order mark, CRLF line endings, quoted
// cells ("1.5"), spaces around cells, blank lines. Rejected, each with an
// *Error naming file, line, column and value: an empty file or one with no
// data rows, ragged rows, missing values (unless opts.DropMissing),
// infinite or out-of-range numbers, numbers beyond float32's range (the
// models compute in float32), numbers with a decimal comma, a
// column that looks like an identifier or has more than [MaxCategories]
// categories, a cell that does not fit its declared type, a target with
// fewer than two or more than [MaxClasses] distinct values (more than
// [MaxNumericClasses] if every value is a number), text that is not
// UTF-8 (in the header or a cell that is read), duplicate or empty column
// names, an unknown target column, Types or Ignore names that are not
// columns, and a file with no feature columns. A constant numeric or
// ordinal column is kept; a categorical column with one value in every
// row is left out (see [Dataset].Constant). See the package documentation
// for how target values are numbered.
//
// Parse streams the input, so memory use is proportional to the data.
func Parse(r io.Reader, name string, opts LoadOptions) (*Dataset, error) {
	return parseSources([]source{{r, name}}, name, opts)
}

// source is a CSV file to parse and its name.
type source struct {
	r    io.Reader
	name string
}

// parseSources parses the rows of srcs, one after another, as one data set named name; every
// file after the first repeats the first's header.
func parseSources(srcs []source, name string, opts LoadOptions) (*Dataset, error) {
	p := &parser{dataName: name, hash: sha256.New(), rest: srcs}
	if err := p.open(); err != nil {
		return nil, err
	}
	d, err := p.parse(opts)
	if err != nil {
		return nil, err
	}
	if err := p.drain(); err != nil {
		return nil, err
	}
	d.Checksum = hex.EncodeToString(p.hash.Sum(nil))
	return d, nil
}

// open starts reading the next source.
func (p *parser) open() error {
	src := p.rest[0]
	p.rest, p.name, p.file = p.rest[1:], src.name, p.file+1
	if p.file == 1 {
		p.rest0 = src.name
	}
	p.br = bufio.NewReaderSize(io.TeeReader(src.r, p.hash), 64<<10)
	if b, _ := p.br.Peek(3); bytes.HasPrefix(b, utf8BOM) {
		_, _ = p.br.Discard(len(utf8BOM))
	} else if len(b) >= 2 && (b[0] == 0xFF && b[1] == 0xFE || b[0] == 0xFE && b[1] == 0xFF) {
		return &Error{
			File:    p.name,
			Line:    1,
			Problem: "file is encoded as UTF-16",
			Fix:     "save the file as UTF-8 (\"CSV UTF-8\")",
		}
	}
	p.cr = csv.NewReader(p.br)
	p.cr.FieldsPerRecord = -1
	p.cr.ReuseRecord = true
	p.cr.TrimLeadingSpace = true
	return nil
}

// drain hashes any bytes of the current source the CSV reader did not consume (normally
// none).
func (p *parser) drain() error {
	if _, err := io.Copy(io.Discard, p.br); err != nil {
		return p.readError(err)
	}
	return nil
}

// nextSource moves on to the next source, whose header must be the first's.
func (p *parser) nextSource() error {
	if err := p.drain(); err != nil {
		return err
	}
	if err := p.open(); err != nil {
		return err
	}
	rec, line, err := p.next()
	if err == io.EOF {
		return &Error{File: p.name, Problem: "file is empty", Fix: "start the file with the header row of " + p.rest0}
	}
	if err != nil {
		return err
	}
	for j := range rec {
		rec[j] = strings.TrimSpace(rec[j])
	}
	if !slices.Equal(rec, p.header) {
		return &Error{File: p.name, Line: line,
			Problem: fmt.Sprintf("the header %s is not the header of %s, %s", listColumns(rec), p.rest0, listColumns(p.header)),
			Fix:     "give both files the same columns in the same order"}
	}
	return nil
}

type parser struct {
	name     string // the file being read
	dataName string // the data set's name: the file's, or the files' (LoadSplit)
	rest0    string // the first file's name
	file     int    // the number of the file being read, from 1
	rest     []source
	br       *bufio.Reader
	cr       *csv.Reader
	hash     hash.Hash
	header   []string // the first file's header, trimmed
}

// next returns the next non-blank record and the physical line it starts
// on, or io.EOF.
func (p *parser) next() ([]string, int, error) {
	for {
		rec, err := p.cr.Read()
		if err == io.EOF && len(p.rest) > 0 && p.header != nil {
			if err := p.nextSource(); err != nil {
				return nil, 0, err
			}
			continue
		}
		if err != nil {
			if err == io.EOF {
				return nil, 0, io.EOF
			}
			return nil, 0, p.readError(err)
		}
		if len(rec) == 1 && strings.TrimSpace(rec[0]) == "" {
			continue // a line holding only spaces
		}
		line, _ := p.cr.FieldPos(0)
		return rec, line, nil
	}
}

func (p *parser) readError(err error) *Error {
	var pe *csv.ParseError
	if !errors.As(err, &pe) {
		return &Error{
			File:    p.name,
			Problem: "cannot read the data: " + err.Error(),
			Fix:     "check that the file is readable and complete",
			err:     err,
		}
	}
	e := &Error{File: p.name, Line: pe.Line, err: err}
	switch {
	case errors.Is(pe.Err, csv.ErrBareQuote):
		e.Problem = fmt.Sprintf("has a quote (\") inside an unquoted cell (character %d)", pe.Column)
		e.Fix = "remove the quote, or put the whole cell in quotes and write an inner quote as two quotes (\"\")"
	case errors.Is(pe.Err, csv.ErrQuote):
		e.Problem = fmt.Sprintf("has a badly quoted cell (character %d)", pe.Column)
		if pe.StartLine != pe.Line {
			e.Problem = fmt.Sprintf("has a quoted cell that starts on line %d and is not closed properly", pe.StartLine)
			e.Line = pe.StartLine
		}
		e.Fix = "close every quoted cell with a quote directly followed by a comma or the end of the line (no spaces after the closing quote), and write a quote inside a quoted cell as two quotes (\"\")"
	default:
		e.Problem = "is not valid CSV: " + pe.Err.Error()
		e.Fix = "save the file as plain comma-separated values"
	}
	return e
}

func (p *parser) parse(opts LoadOptions) (*Dataset, error) {
	header, hline, err := p.readHeader()
	if err != nil {
		return nil, err
	}
	p.header = header
	tcol, err := p.targetColumn(header, hline, opts)
	if err != nil {
		return nil, err
	}
	specs, err := p.columnSpecs(header, tcol, hline, opts)
	if err != nil {
		return nil, err
	}
	d := &Dataset{Name: p.dataName, Target: header[tcol]}
	t, err := p.layout(d, header, tcol, hline, specs, strings.TrimSpace(opts.SplitColumn))
	if err != nil {
		return nil, err
	}
	labs, err := p.readRows(d, t, opts)
	if err != nil {
		return nil, err
	}
	if err := d.encode(t.cols, p.dataName); err != nil {
		return nil, err
	}
	if err := p.checkClasses(d, labs); err != nil {
		return nil, err
	}
	numberClasses(d, labs)
	if t.scol >= 0 || p.file > 1 {
		d.Split = &Partition{Train: t.train, Test: t.test, By: fmt.Sprintf("the files %s (train) and %s (test)", p.rest0, p.name)}
		if t.scol >= 0 {
			d.Split.By = fmt.Sprintf("the column %q", header[t.scol])
		}
		if err := d.Split.Check(d); err != nil {
			return nil, err
		}
	}
	return d, nil
}

// readHeader reads the header row and returns the column names, trimmed,
// and the line it is on.
func (p *parser) readHeader() ([]string, int, error) {
	rec, hline, err := p.next()
	if err == io.EOF {
		return nil, 0, &Error{
			File:    p.name,
			Problem: "file is empty",
			Fix:     "provide a CSV file with a header row naming the columns, then one row per sample",
		}
	}
	if err != nil {
		return nil, 0, err
	}
	header := make([]string, len(rec))
	seen := make(map[string]int, len(rec))
	for j, c := range rec {
		h := strings.Clone(strings.TrimSpace(c))
		if e := CheckText(h); e != nil {
			e.File, e.Line = p.name, hline
			e.Problem = fmt.Sprintf("in header column %d %s", j+1, e.Problem)
			return nil, 0, e
		}
		if h == "" {
			return nil, 0, &Error{
				File:    p.name,
				Line:    hline,
				Problem: fmt.Sprintf("header column %d has no name", j+1),
				Fix:     "give every column a name in the header row",
			}
		}
		if k, dup := seen[h]; dup {
			return nil, 0, &Error{
				File:    p.name,
				Line:    hline,
				Column:  h,
				Problem: fmt.Sprintf("column name appears more than once (columns %d and %d)", k+1, j+1),
				Fix:     "give every column a unique name in the header row",
			}
		}
		seen[h] = j
		header[j] = h
	}
	return header, hline, nil
}

// targetColumn returns the header index of the target column, opts.Target
// or the last column, and checks that another column is left for features.
func (p *parser) targetColumn(header []string, hline int, opts LoadOptions) (int, error) {
	tcol := len(header) - 1
	if tcol > 0 && header[tcol] == strings.TrimSpace(opts.SplitColumn) {
		tcol-- // the split column is no target: the last other column is
	}
	if want := strings.TrimSpace(opts.Target); want != "" {
		tcol = slices.Index(header, want) // the names are unique
		if tcol < 0 {
			return 0, &Error{
				File:    p.name,
				Line:    hline,
				Column:  want,
				Problem: "target column not found in the header; available columns: " + listColumns(header),
				Fix:     "pass one of the available columns with LoadOptions.Target NAME (or leave LoadOptions.Target out to use the last column)",
			}
		}
	}
	if len(header) < 2 {
		return 0, &Error{
			File:    p.name,
			Line:    hline,
			Column:  header[tcol],
			Problem: "the header has only the target column and no feature columns",
			Fix:     "add at least one feature column (is the file separated by commas?)",
		}
	}
	return tcol, nil
}

// columnLayout says what each header column holds.
type columnLayout struct {
	header []string
	tcol   int // header index of the target column
	scol   int // header index of LoadOptions.SplitColumn, -1 without
	// train and test are the rows (by index) that the split column or the
	// files put in each split.
	train, test []int
	// pos[j] is the column state of header column j, nil for the target
	// and ignored columns.
	pos  []*colState
	cols []*colState // the feature columns, in header order
}

// layout sets up a column state for each feature column and records the
// ignored columns in d.Ignored.
func (p *parser) layout(d *Dataset, header []string, tcol, hline int, specs map[string]TypeSpec, splitColumn string) (*columnLayout, error) {
	t := &columnLayout{header: header, tcol: tcol, scol: -1, pos: make([]*colState, len(header))}
	if splitColumn != "" {
		t.scol = slices.Index(header, splitColumn)
	}
	for j, h := range header {
		switch spec, ok := specs[h]; {
		case j == tcol:
		case ok && spec.Type == Ignored:
			d.Ignored = append(d.Ignored, h)
		default:
			t.pos[j] = newColState(h, len(t.cols), spec)
			t.cols = append(t.cols, t.pos[j])
		}
	}
	if len(t.cols) == 0 {
		return nil, &Error{
			File:    p.name,
			Line:    hline,
			Problem: "every feature column is ignored",
			Fix:     "ignore fewer columns with LoadOptions.Ignore and LoadOptions.Types NAME=ignore",
		}
	}
	return t, nil
}

// readRows reads the data rows into d.X, d.Y and d.Lines (counting rows
// dropped for missing values in d.Dropped) and returns the classes seen.
// Classes are numbered in order of first appearance while reading and
// renumbered at the end (see classOrder).
func (p *parser) readRows(d *Dataset, t *columnLayout, opts LoadOptions) (*labelSet, error) {
	var (
		labs labelSet
		slab []float64
	)
	nf := len(t.cols)
	for {
		rec, line, err := p.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		keep, err := p.checkRow(rec, line, t, opts)
		if err != nil {
			return nil, err
		}
		if !keep {
			d.Dropped++
			continue
		}
		if len(slab) < nf {
			slab = make([]float64, max(nf, slabFloats/nf*nf))
		}
		row := slab[:nf:nf]
		slab = slab[nf:]
		y, err := p.readCells(rec, row, d.X, t, &labs)
		if err != nil {
			return nil, err
		}
		if err := p.rowSplit(rec, t, len(d.X)); err != nil {
			return nil, err
		}
		if p.file > 1 || len(p.rest) > 0 {
			d.Files = append(d.Files, p.name)
		}
		d.X = append(d.X, row)
		d.Y = append(d.Y, y)
		d.Lines = append(d.Lines, line)
	}
	if len(d.X) == 0 {
		e := &Error{
			File:    p.name,
			Problem: "file has a header row but no data rows",
			Fix:     "add one row per sample below the header",
		}
		if d.Dropped > 0 {
			e.Problem = fmt.Sprintf("every data row (%d) has a missing value, and LoadOptions.DropMissing dropped them all", d.Dropped)
			e.Fix = "fill in the missing values, or leave the emptiest columns out with LoadOptions.Ignore NAME"
		}
		return nil, e
	}
	return &labs, nil
}

// checkRow trims the cells of the data row rec in place and checks its
// length, missing values and text. keep is false for a row with a missing
// value that opts.DropMissing drops.
func (p *parser) checkRow(rec []string, line int, t *columnLayout, opts LoadOptions) (keep bool, err error) {
	if len(rec) != len(t.header) {
		return false, &Error{
			File:    p.name,
			Line:    line,
			Problem: fmt.Sprintf("row has %d cells but the header has %d", len(rec), len(t.header)),
			Fix:     "give every row one cell per header column (look for missing or extra commas; quote cells that contain commas)",
		}
	}
	for j, cell := range rec {
		rec[j] = strings.TrimSpace(cell)
	}
	// Missing values first, so that a dropped row leaves no trace.
	if j := firstMissing(rec, t.pos, t.tcol); j >= 0 {
		if opts.DropMissing {
			return false, nil
		}
		cl, _ := p.cr.FieldPos(j)
		return false, missingError(p.name, cl, t.header[j], rec[j], j == t.tcol)
	}
	for j, cell := range rec {
		if t.pos[j] == nil && j != t.tcol {
			continue // an ignored column is not read
		}
		if e := CheckText(cell); e != nil {
			e.File, e.Column = p.name, t.header[j]
			e.Line, _ = p.cr.FieldPos(j)
			return false, e
		}
	}
	return true, nil
}

// rowSplit puts the row i, whose checked cells are rec, in the split its split column or
// its file says.
func (p *parser) rowSplit(rec []string, t *columnLayout, i int) error {
	test := p.file > 1
	if t.scol >= 0 {
		switch strings.ToLower(rec[t.scol]) {
		case "train":
			test = false
		case "test":
			test = true
		default:
			line, _ := p.cr.FieldPos(t.scol)
			return &Error{File: p.name, Line: line, Column: t.header[t.scol], Value: clip(rec[t.scol]),
				Problem: "is not a split: the split column (LoadOptions.SplitColumn) says train or test in every row",
				Fix:     fmt.Sprintf("write train or test (in any case) in the column %q of every row, or name the split column with LoadOptions.SplitColumn", t.header[t.scol])}
		}
	} else if p.file == 1 && len(p.rest) == 0 {
		return nil // one file, no split column: no split is given
	}
	if test {
		t.test = append(t.test, i)
	} else {
		t.train = append(t.train, i)
	}
	return nil
}

// readCells reads the feature cells of the checked row rec into row
// (rows are the rows read before it) and returns the row's class.
func (p *parser) readCells(rec []string, row []float64, rows [][]float64, t *columnLayout, labs *labelSet) (int, error) {
	y := 0
	for j, s := range rec {
		if j == t.tcol {
			var err error
			if y, err = p.readClass(s, j, t, labs); err != nil {
				return 0, err
			}
			continue
		}
		if c := t.pos[j]; c != nil {
			if e := c.add(s, row, rows, p.cr, j); e != nil {
				e.File = p.name
				e.Line, _ = p.cr.FieldPos(j)
				return 0, e
			}
		}
	}
	return y, nil
}

// readClass returns the class number of the target cell s in header
// column j, adding it to labs if it is new.
func (p *parser) readClass(s string, j int, t *columnLayout, labs *labelSet) (int, error) {
	if y, ok := labs.find(s); ok {
		return y, nil
	}
	if len(labs.text) == MaxClasses {
		cl, _ := p.cr.FieldPos(j)
		e := &Error{
			File:   p.name,
			Line:   cl,
			Column: t.header[j],
			Value:  clip(s),
			Problem: fmt.Sprintf("is distinct value number %d in the target column (first seen: %s, ...); at most %d classes are supported, so the column is probably a continuous measurement, not a class label",
				MaxClasses+1, quoteList(labs.text[:3]), MaxClasses),
			Fix: fmt.Sprintf("choose the class column with LoadOptions.Target NAME (or group the values into at most %d classes)", MaxClasses),
		}
		if _, _, num := labelKeyOf(s); num && !slices.Contains(labs.isNum, false) {
			// Numbers: the limit that applies is MaxNumericClasses (see checkClasses).
			e.Problem = fmt.Sprintf("is distinct value number %d in the target column (first seen: %s, ...), all numbers; at most %d classes written as numbers are accepted, so the column is probably a measurement, not class labels",
				MaxClasses+1, quoteList(labs.text[:3]), MaxNumericClasses)
			e.Fix = numericTargetFix
		}
		return 0, e
	}
	return labs.add(s), nil
}

// checkClasses checks that the target column of d, with the classes labs,
// holds class labels: at least two, and not too many numbers.
func (p *parser) checkClasses(d *Dataset, labs *labelSet) error {
	if len(labs.text) < 2 {
		return &Error{
			File:    d.Name,
			Column:  d.Target,
			Problem: fmt.Sprintf("target column has only one class (%q); a classifier needs at least two", clip(labs.text[0])),
			Fix:     "include samples of at least two classes, or choose the class column with LoadOptions.Target NAME",
		}
	}
	if n := len(labs.text); n > MaxNumericClasses && !slices.Contains(labs.isNum, false) {
		return &Error{
			File:   d.Name,
			Column: d.Target,
			Problem: fmt.Sprintf("the target column holds %d distinct numbers (from %s to %s) in %d rows, so it looks like a measurement, not class labels; at most %d classes written as numbers are accepted",
				n, strconv.FormatFloat(slices.Min(labs.num), 'g', -1, 64), strconv.FormatFloat(slices.Max(labs.num), 'g', -1, 64), len(d.Y), MaxNumericClasses),
			Fix: numericTargetFix,
		}
	}
	return nil
}

// numberClasses renumbers d.Y from order of first appearance to the final
// class order (see classOrder) and sets d.Labels.
func numberClasses(d *Dataset, labs *labelSet) {
	order := labs.classOrder()
	remap := make([]int, len(order))
	identity := true
	for c, old := range order {
		remap[old] = c
		identity = identity && c == old
	}
	if !identity {
		for i, y := range d.Y {
			d.Y[i] = remap[y]
		}
	}
	d.Labels = make([]string, len(order))
	for c, old := range order {
		d.Labels[c] = labs.text[old]
	}
}

// columnSpecs checks opts.Types and opts.Ignore against the header and
// returns the declared type of each column, Ignored for ignored ones.
func (p *parser) columnSpecs(header []string, tcol, hline int, opts LoadOptions) (map[string]TypeSpec, error) {
	specs := make(map[string]TypeSpec, len(opts.Types)+len(opts.Ignore))
	check := func(name, flag string) *Error {
		e := &Error{File: p.name, Line: hline, Column: name}
		switch {
		case !slices.Contains(header, name):
			e.Problem = fmt.Sprintf("%s names a column that is not in the header; the columns are %s", flag, listColumns(header))
			e.Fix = fmt.Sprintf("name a column of the header in %s (names are case-sensitive)", flag)
		case name == header[tcol]:
			e.Problem = fmt.Sprintf("%s names the target column, whose values are the classes, not a feature", flag)
			e.Fix = fmt.Sprintf("leave %s out of %s (or choose another target column with LoadOptions.Target NAME)", name, flag)
		default:
			return nil
		}
		return e
	}
	names := slices.Sorted(maps.Keys(opts.Types)) // the same error on every run
	for _, name := range names {
		if e := check(name, "LoadOptions.Types"); e != nil {
			return nil, e
		}
		spec := opts.Types[name]
		if pr := spec.problem(); pr != "" {
			return nil, &Error{File: p.name, Column: name, Problem: "LoadOptions.Types: " + pr, Fix: typesFix}
		}
		specs[name] = spec
	}
	for _, name := range opts.Ignore {
		name = strings.TrimSpace(name)
		if e := check(name, "LoadOptions.Ignore"); e != nil {
			return nil, e
		}
		if spec, ok := specs[name]; ok && spec.Type != Ignored {
			return nil, &Error{File: p.name, Line: hline, Column: name,
				Problem: fmt.Sprintf("is ignored with LoadOptions.Ignore but given the type %s with LoadOptions.Types", spec.Type),
				Fix:     fmt.Sprintf("keep %s in only one of LoadOptions.Ignore and LoadOptions.Types", name)}
		}
		specs[name] = TypeSpec{Type: Ignored}
	}
	if name := strings.TrimSpace(opts.SplitColumn); name != "" {
		if e := check(name, "LoadOptions.SplitColumn"); e != nil {
			return nil, e
		}
		if spec, ok := specs[name]; ok && spec.Type != Ignored {
			return nil, &Error{File: p.name, Line: hline, Column: name,
				Problem: fmt.Sprintf("is the split column (LoadOptions.SplitColumn) but given the type %s with LoadOptions.Types", spec.Type),
				Fix:     fmt.Sprintf("leave %s out of LoadOptions.Types: the split column is not a feature", name)}
		}
		specs[name] = TypeSpec{Type: Ignored}
	}
	return specs, nil
}

// firstMissing returns the header index of the first missing cell of rec
// (trimmed) in a column that is used (a feature or the target), or -1.
func firstMissing(rec []string, pos []*colState, tcol int) int {
	for j, cell := range rec {
		if (pos[j] != nil || j == tcol) && isMissing(cell) {
			return j
		}
	}
	return -1
}

// isMissing reports whether the cell text s stands for a missing value:
// empty, NA, N/A, ?, NaN or null, in any case. ("none" is a real value,
// German credit's own_telephone=none.)
func isMissing(s string) bool {
	if len(s) > 4 {
		return false // the common case, a value
	}
	switch {
	case s == "", s == "?", strings.EqualFold(s, "na"), strings.EqualFold(s, "n/a"),
		strings.EqualFold(s, "nan"), strings.EqualFold(s, "null"):
		return true
	}
	return false
}

// missingProblem says that the cell s is a missing value.
func missingProblem(s string) string {
	switch {
	case s == "":
		return "cell is empty (a missing value)"
	case strings.EqualFold(s, "nan"):
		return "is not a finite number (NaN: a missing value)"
	}
	return "stands for a missing value"
}

// missingError reports the missing value s in column at line of file.
func missingError(file string, line int, column, s string, target bool) *Error {
	e := &Error{File: file, Line: line, Column: column, Value: clip(s), Problem: missingProblem(s)}
	e.Fix = fmt.Sprintf("fill in the missing value, or LoadOptions.DropMissing drops such rows (or LoadOptions.Ignore %s leaves out a column that is mostly empty)", column)
	if target {
		e.Fix = "fill in the missing class, or LoadOptions.DropMissing drops such rows"
	}
	return e
}

// labelSet holds the distinct target values seen so far, numbered in order
// of first appearance.
type labelSet struct {
	text  []string  // first spelling seen of each class
	key   []string  // identity of each class (see labelKeyOf)
	num   []float64 // numeric value of each class, if isNum
	isNum []bool
}

// find returns the number of the class of target cell s, if already seen.
func (l *labelSet) find(s string) (int, bool) {
	// Fast path: the exact text of a class already seen.
	for c, t := range l.text {
		if s == t {
			return c, true
		}
	}
	if len(l.text) == 0 {
		return 0, false
	}
	// Another spelling of a number already seen ("1.0" after "1").
	key, _, _ := labelKeyOf(s)
	for c, k := range l.key {
		if key == k {
			return c, true
		}
	}
	return 0, false
}

// add records s, not yet seen, as a new class and returns its number.
func (l *labelSet) add(s string) int {
	key, v, isNum := labelKeyOf(s)
	l.text = append(l.text, strings.Clone(s))
	l.key = append(l.key, key)
	l.num = append(l.num, v)
	l.isNum = append(l.isNum, isNum)
	return len(l.text) - 1
}

// classOrder returns the first-appearance numbers of the classes in final
// order: by value if every class is a number (so {0,1} keeps its mapping
// and "10" comes after "9"), otherwise by text. For two classes this is the
// mapping this package has always used.
func (l *labelSet) classOrder() []int {
	order := make([]int, len(l.text))
	for i := range order {
		order[i] = i
	}
	if !slices.Contains(l.isNum, false) {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(l.num[a], l.num[b]) })
	} else {
		slices.SortStableFunc(order, func(a, b int) int { return strings.Compare(l.text[a], l.text[b]) })
	}
	return order
}

// quoteList formats values as a comma-separated list of clipped, quoted
// strings.
func quoteList(vals []string) string {
	q := make([]string, len(vals))
	for i, v := range vals {
		q[i] = strconv.Quote(clip(v))
	}
	return strings.Join(q, ", ")
}

// labelKeyOf returns the identity of a target value: numbers are compared
// by value (so "1" and "1.0" are the same class), other text exactly.
func labelKeyOf(s string) (key string, v float64, isNum bool) {
	v, err := strconv.ParseFloat(s, 64)
	if err == nil && !math.IsNaN(v) && !math.IsInf(v, 0) {
		if v == 0 {
			v = 0 // fold -0 into 0
		}
		return "n:" + strconv.FormatFloat(v, 'g', -1, 64), v, true
	}
	return "s:" + s, 0, false
}

// listColumns formats column names for an error message, at most 20.
func listColumns(cols []string) string {
	const maxList = 20
	var b strings.Builder
	for i, c := range cols {
		if i == maxList {
			fmt.Fprintf(&b, ", ... (%d more)", len(cols)-maxList)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Quote(clip(c)))
	}
	return b.String()
}
