package data

import (
	"bytes"
	_ "embed"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"sync"
)

// Dataset is a labelled tabular data set: rows of float64 model inputs and
// a class index per row.
type Dataset struct {
	Name     string      // "wbc (embedded)" or the file path (the name given to Parse)
	Features []string    // the model's input names, in order: column names, "column=level" for a one-hot input
	X        [][]float64 // rows x inputs, encoded (see the package documentation), in original units
	Y        []int       // class index 0..NumClasses()-1, one per row
	Labels   []string    // original label text of class 0, 1, ..., NumClasses()-1
	Target   string      // name of the target column
	Checksum string      // hex sha256 of the raw file bytes
	Columns  []Column    // the feature columns in file order, each with its type and its inputs
	Ignored  []string    // names of the columns left out (LoadOptions.Ignore, declared Ignored, or Constant)
	Constant []string    // names of the categorical columns left out for holding one value in every row
	Dropped  int         // rows dropped for a missing value (LoadOptions.DropMissing)
	Lines    []int       // the 1-based line of its file on which each row starts (the header is line 1)
	// Files, for a data set read from several files (LoadSplit), is the file of each row; nil
	// when every row is from the file Name.
	Files []string
	// Split is the split the data gives (LoadOptions.SplitColumn, LoadSplit); nil when it
	// gives none. A Subset has none.
	Split *Partition
}

// Rows returns the number of rows (samples).
func (d *Dataset) Rows() int { return len(d.X) }

// NumFeatures returns the number of model inputs, len(Features): the
// number of columns if none is categorical.
func (d *Dataset) NumFeatures() int { return len(d.Features) }

// NumClasses returns the number of classes, len(d.Labels): 2 for a binary
// target. Every d.Y[i] is in [0, NumClasses()).
func (d *Dataset) NumClasses() int { return len(d.Labels) }

// NoClass is ClassIndex's answer when no class is named: each instance then gets its default
// target class (quce.AutoTarget is this value).
const NoClass = -1

// ClassIndex is the index of the class labelled name among labels, or NoClass for "". An
// unknown name is an error that lists the classes, for the caller to prefix with the
// setting that named it.
func ClassIndex(labels []string, name string) (int, error) {
	if name == "" {
		return NoClass, nil
	}
	if i := slices.Index(labels, name); i >= 0 {
		return i, nil
	}
	return 0, fmt.Errorf("%q names no class of the target; fix: use one of %q", name, labels)
}

// Subset returns a new Dataset holding copies of the rows idx (in the given
// order; an index may repeat), with their Lines and Files (not the Split,
// whose indices name d's rows). Name, features, columns,
// labels, target, checksum and the counts of the load are kept. It panics
// if an index is out of range, like slice indexing.
func (d *Dataset) Subset(idx []int) *Dataset {
	s := &Dataset{
		Name:     d.Name,
		Features: append([]string(nil), d.Features...),
		X:        make([][]float64, len(idx)),
		Labels:   slices.Clone(d.Labels),
		Target:   d.Target,
		Checksum: d.Checksum,
		Ignored:  slices.Clone(d.Ignored),
		Constant: slices.Clone(d.Constant),
		Dropped:  d.Dropped,
	}
	if d.Columns != nil {
		s.Columns = make([]Column, len(d.Columns))
		for i, c := range d.Columns {
			c.Levels = slices.Clone(c.Levels)
			s.Columns[i] = c
		}
	}
	if d.Y != nil {
		s.Y = make([]int, len(idx))
	}
	if d.Lines != nil {
		s.Lines = make([]int, len(idx))
	}
	if d.Files != nil {
		s.Files = make([]string, len(idx))
	}
	total := 0
	for _, i := range idx {
		total += len(d.X[i])
	}
	buf := make([]float64, total)
	for k, i := range idx {
		n := copy(buf, d.X[i])
		s.X[k] = buf[:n:n]
		buf = buf[n:]
		if s.Y != nil {
			s.Y[k] = d.Y[i]
		}
		if s.Lines != nil {
			s.Lines[k] = d.Lines[i]
		}
		if s.Files != nil {
			s.Files[k] = d.Files[i]
		}
	}
	return s
}

// clone returns a deep copy of d.
func (d *Dataset) clone() *Dataset {
	idx := make([]int, len(d.X))
	for i := range idx {
		idx[i] = i
	}
	return d.Subset(idx)
}

// columns returns d.Columns or, for a Dataset built by hand without them,
// one continuous column per feature, so that the methods below work on
// every numeric data set.
func (d *Dataset) columns() []Column {
	if d.Columns != nil {
		return d.Columns
	}
	cols := make([]Column, len(d.Features))
	for j, f := range d.Features {
		c := Column{Name: f, Type: Continuous, Start: j, Width: 1, Min: math.Inf(1), Max: math.Inf(-1)}
		for _, r := range d.X {
			c.Min, c.Max = min(c.Min, r[j]), max(c.Max, r[j])
		}
		cols[j] = c
	}
	return cols
}

// Column returns the feature column called name.
func (d *Dataset) Column(name string) (Column, bool) {
	for _, c := range d.columns() {
		if c.Name == name {
			return c, true
		}
	}
	return Column{}, false
}

// Summary describes every feature column in one line, in file order, then
// the ignored columns (the target is not listed), e.g.
//
//	age: integer, 19 … 75
//	housing: categorical, 3 categories (for free, own, rent)
//	employment: ordinal, unemployed < <1 < 1<=X<4 < 4<=X<7 < >=7
//	own_telephone: binary, none (0) or yes (1)
//	id: ignored
func (d *Dataset) Summary() []string {
	cols := d.columns()
	lines := make([]string, 0, len(cols)+len(d.Ignored))
	for _, c := range cols {
		lines = append(lines, c.summary())
	}
	for _, name := range d.Ignored {
		if slices.Contains(d.Constant, name) {
			lines = append(lines, name+": ignored (one value in every row)")
			continue
		}
		lines = append(lines, name+": ignored")
	}
	return lines
}

// FitScaler fits a Scaler on the rows X of d's inputs (normally the
// training rows) as the function FitScaler does, except that one-hot
// inputs keep Mean 0 and Std 1: standardised, a category is still 0 or 1,
// so a block reads as which category a row leans to, and a rare category
// is not blown up into a large number.
func (d *Dataset) FitScaler(X [][]float64) *Scaler {
	s := FitScaler(X)
	if len(X) == 0 {
		return s
	}
	for _, c := range d.columns() {
		if c.Type == Categorical {
			for j := c.Start; j < c.Start+c.Width; j++ {
				s.Mean[j], s.Std[j] = 0, 1
			}
		}
	}
	return s
}

// EncodeRecord encodes one instance, given as cell text by column name,
// into a row of d's inputs (original units, like a row of X). values must
// hold every feature column; it may hold the target and ignored columns,
// which are skipped. Cells are trimmed of spaces. Each problem is an
// *Error with Column and Value set (the caller knows the File and Line):
// a name that is no column, a missing column or value, a number that is
// not one (or not an integer for an Integer column), a value that is
// neither of a Binary column's two, a category never seen in the data or
// a value outside an Ordinal column's order.
func (d *Dataset) EncodeRecord(values map[string]string) ([]float64, error) {
	cols := d.columns()
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	for _, name := range slices.Sorted(maps.Keys(values)) {
		if !slices.Contains(names, name) && name != d.Target && !slices.Contains(d.Ignored, name) {
			return nil, &Error{Column: name,
				Problem: "is not a column of the data, whose feature columns are " + listColumns(names),
				Fix:     fmt.Sprintf("rename the column to the feature it holds, or remove it (an instance has the data's feature columns, in any order, and optionally the target column %q)", d.Target)}
		}
	}
	width := 0
	if n := len(cols); n > 0 {
		width = cols[n-1].Start + cols[n-1].Width
	}
	x := make([]float64, width)
	for _, c := range cols {
		s, ok := values[c.Name]
		if !ok {
			return nil, &Error{Column: c.Name, Problem: "is missing: the instance has no value for this feature column",
				Fix: "give a value of every feature column: the model needs them all"}
		}
		if e := c.encode(strings.TrimSpace(s), x); e != nil {
			return nil, e
		}
	}
	return x, nil
}

//go:embed wbc.csv
var wbcCSV []byte

//go:embed german_credit.csv
var germanCSV []byte

// embeddedSet is one of the data sets compiled into the program.
type embeddedSet struct {
	csv        []byte
	file, name string
	target     string
	labels     []string
	parsedOnce func() *Dataset
}

var embeddedSets = map[string]*embeddedSet{
	"wbc":           {csv: wbcCSV, file: "wbc.csv", name: "wbc (embedded)", target: "target", labels: []string{"malignant", "benign"}},
	"german_credit": {csv: germanCSV, file: "german_credit.csv", name: "german_credit (embedded)", target: "target", labels: []string{"good", "bad"}},
}

func init() {
	for _, e := range embeddedSets {
		e.parsedOnce = sync.OnceValue(func() *Dataset {
			d, err := e.parse(LoadOptions{})
			if err != nil {
				panic("data: embedded " + e.file + " is broken: " + err.Error())
			}
			return d
		})
	}
}

// parse reads the embedded file with opts, and names it and its classes.
func (e *embeddedSet) parse(opts LoadOptions) (*Dataset, error) {
	d, err := Parse(bytes.NewReader(e.csv), e.file, opts)
	if err != nil {
		return nil, err
	}
	d.Name, d.Labels = e.name, slices.Clone(e.labels)
	return d, nil
}

// DefaultEmbedded is the embedded data set used when none is named.
const DefaultEmbedded = "wbc"

// EmbeddedNames lists the names that Embedded takes, sorted.
func EmbeddedNames() []string {
	names := make([]string, 0, len(embeddedSets))
	for n := range embeddedSets {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// Embedded returns an embedded data set by name (see EmbeddedNames) read with opts: its
// column types can be declared and columns ignored as for a file. Its target column is
// fixed, so opts.Target must be empty or name it.
func Embedded(name string, opts LoadOptions) (*Dataset, error) {
	e, ok := embeddedSets[name]
	if !ok {
		return nil, &Error{Value: name, Problem: "is not an embedded data set",
			Fix: "pass a CSV file with data.Load, or one of " + strings.Join(EmbeddedNames(), ", ")}
	}
	if opts.Target != "" && opts.Target != e.target {
		return nil, &Error{File: e.file, Column: opts.Target,
			Problem: fmt.Sprintf("the embedded %s data's target is %q", name, e.target),
			Fix:     "drop LoadOptions.Target, or pass your own file with data.Load"}
	}
	if opts.Types == nil && len(opts.Ignore) == 0 && opts.SplitColumn == "" {
		return e.parsedOnce().clone(), nil
	}
	return e.parse(opts)
}

// WBC returns the embedded Wisconsin Diagnostic Breast Cancer data set:
// 569 rows, 30 continuous features, target column "target" with 1 =
// benign (357 rows) and 0 = malignant (212 rows), scikit-learn's coding.
// The file is parsed once; every call returns a fresh deep copy that the
// caller may modify. See README.md for the provenance and licence (CC BY
// 4.0).
func WBC() *Dataset { return embeddedSets["wbc"].parsedOnce().clone() }

// GermanCredit returns the embedded Statlog German Credit data set: 1000
// rows, 20 feature columns of mixed types (13 of text, 7 of numbers; see
// Summary), target column "target" with 0 = good (700 rows) and 1 = bad
// credit risk (300 rows). Every call returns a fresh deep copy. See
// README.md for the provenance and licence (CC BY 4.0).
func GermanCredit() *Dataset { return embeddedSets["german_credit"].parsedOnce().clone() }
