package data

import (
	"cmp"
	"encoding/csv"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// A column's type is known only when the whole file has been read, so
// Parse keeps, per feature column, what the type detection needs: the
// numbers go straight into the row (as for an all-numeric file, which
// therefore costs no more than before), and once a column holds text, a
// level number per row. Distinct values are recorded only while they can
// still matter: for a column of numbers, while it could be binary, a
// category or an identifier.

// level is one distinct value of a column, in its first spelling.
type level struct {
	text  string
	num   float64
	isNum bool
}

// colState is what Parse knows about one feature column so far.
type colState struct {
	name     string
	k        int      // its place in the rows Parse keeps
	spec     TypeSpec // the declared type; Type is "" when detected
	allInt   bool     // every number so far is an integer
	lo, hi   float64  // range of the numbers (numeric columns)
	nNum     int      // cells that are numbers
	levels   []level  // distinct values in order of first appearance (see capped)
	byNum    map[float64]int32
	byText   map[string]int32
	dup      bool    // some value repeats
	capped   bool    // too many distinct numbers to be categories or an identifier: no longer recorded
	text     bool    // some cell is text (or the declared type takes text): codes are recorded
	lost     bool    // text came after capped, so the codes are lost (the column will be refused)
	codes    []int32 // the level of each row (when text)
	nText    int
	textLine int    // line of the first text cell
	textCell string // the first text cell
	comma    bool   // every text cell is a number written with a decimal comma
}

func newColState(name string, k int, spec TypeSpec) *colState {
	c := &colState{name: name, k: k, spec: spec, allInt: true, comma: true,
		lo: math.Inf(1), hi: math.Inf(-1),
		byNum: map[float64]int32{}, byText: map[string]int32{}}
	switch spec.Type {
	case Categorical, Binary:
		c.text = true
	case Ordinal:
		c.text = true
		for _, l := range spec.Order {
			c.find(l, true)
		}
	}
	return c
}

// declaredNumeric reports whether the column was declared continuous or
// integer, so that text in it is an error.
func (c *colState) declaredNumeric() bool {
	return c.spec.Type == Continuous || c.spec.Type == Integer
}

// find returns the level of the cell s, adding it if add is set and it
// is new; ok is false if it is new and not added. Numbers are found by
// value, so "1.0" is the level "1".
func (c *colState) find(s string, add bool) (code int32, ok bool) {
	v, isNum := numberOf(s)
	if isNum {
		if v == 0 {
			v = 0 // -0 is 0
		}
		code, ok = c.byNum[v]
	} else {
		code, ok = c.byText[s]
	}
	if ok {
		c.dup = true
		return code, true
	}
	if !add {
		return 0, false
	}
	code = int32(len(c.levels))
	c.levels = append(c.levels, level{text: strings.Clone(s), num: v, isNum: isNum})
	if isNum {
		c.byNum[v] = code
	} else {
		c.byText[s] = code
	}
	return code, true
}

// add records the cell s, field j of the record cr has just read, into
// row, which holds the numbers of the record; rows are the rows kept so
// far. The returned *Error lacks File and Line, which the caller fills
// in.
func (c *colState) add(s string, row []float64, rows [][]float64, cr *csv.Reader, j int) *Error {
	v, err := strconv.ParseFloat(s, 64)
	isNum := err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
	if !isNum && (c.spec.Type == "" || c.declaredNumeric()) {
		switch {
		case err == nil:
			return c.cellError(s, "is not a finite number (infinity is not allowed)", fmt.Sprintf("write a finite number; if the column holds categories, declare it with LoadOptions.Types %s=categorical", c.name))
		case errors.Is(err, strconv.ErrRange):
			return c.cellError(s, "is out of range for a 64-bit float", "rescale the column so that every value fits in a float64 (magnitude below 1.8e308)")
		case c.declaredNumeric():
			if decimalComma(s) {
				return c.cellError(s, "is not a number (it uses a decimal comma)", "write decimals with a point, e.g. 1.5 instead of 1,5")
			}
			return c.cellError(s, fmt.Sprintf("is not a number, but LoadOptions.Types declares %s %s", c.name, c.spec.Type),
				fmt.Sprintf("correct the cell, or declare the column as text with LoadOptions.Types %s=categorical", c.name))
		}
	}
	if isNum && math.Abs(v) > math.MaxFloat32 && c.spec.Type != Categorical && c.spec.Type != Ordinal {
		return c.cellError(s, float32Problem, float32Fix(c.name))
	}
	if isNum {
		c.nNum++
	}
	if isNum && !c.text {
		row[c.k] = v
		c.lo, c.hi = min(c.lo, v), max(c.hi, v)
		if c.allInt && v != math.Trunc(v) {
			if c.spec.Type == Integer {
				return c.cellError(s, "is not an integer, but LoadOptions.Types declares it integer", fmt.Sprintf("correct the cell, or declare the column with LoadOptions.Types %s=continuous", c.name))
			}
			c.allInt = false
		}
		if c.capped || c.spec.Type != "" {
			return nil
		}
		c.find(s, true)
		// Past MaxCategories distinct numbers, the column can only matter
		// as an identifier: integers, all distinct so far.
		if len(c.levels) > MaxCategories && (c.dup || !c.allInt) {
			c.capped, c.levels, c.byNum, c.byText = true, nil, nil, nil
		}
		return nil
	}
	if !c.text {
		// The first text cell of a detected column: from now on it is
		// text, so the numbers read so far become levels too.
		c.text = true
		if c.capped {
			c.lost = true
		} else {
			c.codes = make([]int32, len(rows), max(2*len(rows), 64))
			for i, r := range rows {
				v := r[c.k]
				if v == 0 {
					v = 0
				}
				c.codes[i] = c.byNum[v]
			}
		}
	}
	if !isNum {
		if c.nText == 0 {
			c.textLine, _ = cr.FieldPos(j)
			c.textCell = strings.Clone(s)
		}
		c.nText++
		c.comma = c.comma && decimalComma(s)
	}
	if c.lost {
		return nil
	}
	known := len(c.levels)
	code, ok := c.find(s, c.spec.Type != Ordinal)
	switch {
	case !ok:
		return c.cellError(s, fmt.Sprintf("is not in the order that LoadOptions.Types declares for %s (%s)", c.name, strings.Join(c.spec.Order, " < ")), fmt.Sprintf("add %q at its place in the order of LoadOptions.Types %s=ordinal:... (or correct the cell)", clip(s), c.name))
	case int(code) < known:
	case c.spec.Type == Binary && len(c.levels) > 2:
		return c.cellError(s, fmt.Sprintf("is a third distinct value, but LoadOptions.Types declares %s binary (its values so far: %s)", c.name, quoteList([]string{c.levels[0].text, c.levels[1].text})), fmt.Sprintf("correct the cell, or declare the column with LoadOptions.Types %s=categorical", c.name))
	case c.spec.Type == Categorical && len(c.levels) > MaxCategories:
		return c.cellError(s, fmt.Sprintf("is distinct value number %d of %s, which LoadOptions.Types declares categorical; at most %d categories are supported", len(c.levels), c.name, MaxCategories), tooManyFix(c.name))
	}
	c.codes = append(c.codes, code)
	return nil
}

// float32Problem and float32Fix describe a number too large for float32, in which the
// models compute (it would become infinite there).
const float32Problem = "is beyond the range of float32 (±3.4e38), in which the models compute"

func float32Fix(name string) string {
	return fmt.Sprintf("rescale the column so that every value lies within ±3.4e38 (write it in larger units), or leave it out with LoadOptions.Ignore %s", name)
}

// cellError reports a problem with the cell s of the column (the caller
// fills in File and Line).
func (c *colState) cellError(s, problem, fix string) *Error {
	return &Error{Column: c.name, Value: clip(s), Problem: problem, Fix: fix}
}

func tooManyFix(name string) string {
	return fmt.Sprintf("leave the column out with LoadOptions.Ignore %s if it is free text, or declare a numeric type with LoadOptions.Types %s=continuous (or integer) if it is a measurement", name, name)
}

// decimalComma reports whether s is a number written with a decimal comma
// ("1,5").
func decimalComma(s string) bool {
	if strings.Count(s, ",") != 1 {
		return false
	}
	_, ok := numberOf(strings.Replace(s, ",", ".", 1))
	return ok
}

// column decides the column's type and its Column (without Start), and
// returns the encoding of each level (nil for a numeric column, whose
// values are the rows' own). rows is the number of rows kept; file names
// the file for errors.
func (c *colState) column(rows int, file string) (Column, []float64, *Error) {
	col := Column{Name: c.name, Type: c.spec.Type, Declared: c.spec.Type != "", Min: c.lo, Max: c.hi, Width: 1}
	e := &Error{File: file, Column: c.name}
	identifier := func() *Error {
		e.Problem = fmt.Sprintf("looks like an identifier (every value distinct): %d rows, values such as %s",
			rows, quoteList(levelTexts(c.levels[:min(3, len(c.levels))])))
		e.Fix = fmt.Sprintf("LoadOptions.Ignore %s (or declare its type with LoadOptions.Types %s=integer if it is a real measurement)", c.name, c.name)
		return e
	}
	if !col.Declared {
		switch {
		case !c.text && !c.capped && len(c.levels) == 2:
			col.Type = Binary
		case !c.text && c.allInt && !c.dup && rows >= minIdentifierRows:
			return col, nil, identifier()
		case !c.text && c.allInt:
			col.Type = Integer
		case !c.text:
			col.Type = Continuous
		case c.comma:
			e.Line, e.Value = c.textLine, clip(c.textCell)
			e.Problem = "is not a number (it uses a decimal comma)"
			e.Fix = "write decimals with a point, e.g. 1.5 instead of 1,5"
			return col, nil, e
		case !c.lost && !c.dup && rows >= minIdentifierRows:
			return col, nil, identifier()
		case !c.lost && len(c.levels) == 2:
			col.Type = Binary
		case !c.lost && len(c.levels) <= MaxCategories:
			col.Type = Categorical
		case c.nNum > c.nText:
			// A measurement with a few text cells: point at the first.
			e.Line, e.Value = c.textLine, clip(c.textCell)
			e.Problem = fmt.Sprintf("is not a number, unlike most values of %s; read as text, the column has more than %d distinct values, too many categories", c.name, MaxCategories)
			e.Fix = fmt.Sprintf("correct the cell if the column is a measurement (LoadOptions.Types %s=continuous then reports every text cell), or leave the column out with LoadOptions.Ignore %s", c.name, c.name)
			return col, nil, e
		default:
			e.Problem = fmt.Sprintf("has more than %d distinct values, too many categories (values such as %s)", MaxCategories, quoteList([]string{c.textCell}))
			e.Fix = tooManyFix(c.name)
			return col, nil, e
		}
	}
	switch col.Type {
	case Continuous, Integer:
		return col, nil, nil
	case Binary:
		if len(c.levels) < 2 {
			e.Problem = fmt.Sprintf("has only one value (%s), but LoadOptions.Types declares it binary", quoteList(levelTexts(c.levels)))
			e.Fix = fmt.Sprintf("declare another type with LoadOptions.Types %s=categorical, or leave the column out with LoadOptions.Ignore %s", c.name, c.name)
			return col, nil, e
		}
	case Ordinal:
		col.Levels = slices.Clone(c.spec.Order)
		enc := make([]float64, len(c.levels))
		for i := range enc {
			enc[i] = float64(i)
		}
		return col, enc, nil
	}
	// Binary and Categorical: levels sorted by number if all are numbers,
	// else by text.
	order := make([]int, len(c.levels))
	for i := range order {
		order[i] = i
	}
	allNum := !slices.ContainsFunc(c.levels, func(l level) bool { return !l.isNum })
	slices.SortFunc(order, func(a, b int) int {
		if allNum {
			return cmp.Compare(c.levels[a].num, c.levels[b].num)
		}
		return strings.Compare(c.levels[a].text, c.levels[b].text)
	})
	col.Levels = make([]string, len(order))
	enc := make([]float64, len(order))
	for rank, i := range order {
		col.Levels[rank] = c.levels[i].text
		enc[i] = float64(rank)
		if col.Type == Binary && allNum {
			enc[i] = c.levels[i].num // a numeric binary column keeps its numbers
		}
	}
	if col.Type == Categorical {
		col.Width = len(col.Levels)
	}
	if !c.text {
		return col, nil, nil // a detected numeric binary column: the rows hold its values
	}
	return col, enc, nil
}

func levelTexts(levels []level) []string {
	t := make([]string, len(levels))
	for i, l := range levels {
		t[i] = l.text
	}
	return t
}

// encode writes the input(s) of the column for the cell s (trimmed) into
// the row x, for Dataset.EncodeRecord.
func (c Column) encode(s string, x []float64) *Error {
	if e := CheckText(s); e != nil {
		e.Column = c.Name
		return e
	}
	e := &Error{Column: c.Name, Value: clip(s)}
	if isMissing(s) {
		e.Problem = missingProblem(s)
		e.Fix = "fill in the value: QUCE explains complete instances only (remove the row if the value is unknown)"
		return e
	}
	if c.Type == Continuous || c.Type == Integer {
		v, err := strconv.ParseFloat(s, 64)
		switch {
		case err == nil && !math.IsInf(v, 0) && c.Type == Integer && v != math.Trunc(v):
			e.Problem = fmt.Sprintf("is not an integer, but %s holds only integers", c.Name)
			e.Fix = "write a whole number"
		case err == nil && math.Abs(v) > math.MaxFloat32 && !math.IsInf(v, 0):
			e.Problem, e.Fix = float32Problem, "write the value in the units of the data, within ±3.4e38"
		case err == nil && !math.IsInf(v, 0):
			x[c.Start] = v
			return nil
		case err == nil || errors.Is(err, strconv.ErrRange):
			e.Problem, e.Fix = "is not a finite number", "write the value as an ordinary number"
		case decimalComma(s):
			e.Problem, e.Fix = "is not a number (it uses a decimal comma)", "write decimals with a point, e.g. 1.5 instead of 1,5"
		default:
			e.Problem, e.Fix = "is not a number", fmt.Sprintf("write the value of %q as a number, in the units of the data", c.Name)
		}
		return e
	}
	i := levelIndex(c.Levels, s)
	switch {
	case i < 0 && c.Type == Categorical:
		e.Problem = "is a category never seen in training data; seen: " + quoteList(firstLevels(c.Levels))
		e.Fix = fmt.Sprintf("write one of the categories of %s: the model has no input for a new one", c.Name)
	case i < 0 && c.Type == Ordinal:
		e.Problem = fmt.Sprintf("is not a level of %s (%s)", c.Name, listLevels(c.Levels, " < "))
		e.Fix = "write one of its levels"
	case i < 0:
		e.Problem = fmt.Sprintf("is neither of the two values of %s (%s)", c.Name, quoteList(c.Levels))
		e.Fix = "write one of the two"
	case c.Type == Categorical:
		x[c.Start+i] = 1
		return nil
	case c.IsNumeric():
		x[c.Start], _ = numberOf(c.Levels[i])
		return nil
	default:
		x[c.Start] = float64(i)
		return nil
	}
	return e
}

// firstLevels returns at most 10 levels, and "…" if there are more.
func firstLevels(levels []string) []string {
	if len(levels) <= 10 {
		return levels
	}
	return append(slices.Clone(levels[:10]), "…")
}

// encode sets d.Columns and d.Features from the column states of a parse
// and turns d.X, which holds the numbers of each column, into the model's
// inputs. A categorical column with one value in every row is left out
// (d.Constant): it tells the rows apart no more than a missing column,
// and a one-hot block of one input cannot move. file names the file for
// errors.
func (d *Dataset) encode(states []*colState, file string) error {
	rows := len(d.X)
	d.Columns = make([]Column, 0, len(states))
	var encs [][]float64
	var kept []int // the state of each column
	width := 0
	for k, c := range states {
		col, enc, err := c.column(rows, file)
		if err != nil {
			return err
		}
		if col.Type == Categorical && len(col.Levels) == 1 {
			d.Ignored = append(d.Ignored, col.Name)
			d.Constant = append(d.Constant, col.Name)
			continue
		}
		col.Start = width
		width += col.Width
		d.Columns = append(d.Columns, col)
		encs, kept = append(encs, enc), append(kept, k)
	}
	if len(d.Columns) == 0 {
		return &Error{
			File:    file,
			Problem: fmt.Sprintf("no feature column is left: the ones not ignored hold one value in every row (%s)", listColumns(d.Constant)),
			Fix:     "add columns whose values differ between rows",
		}
	}
	d.Features = make([]string, 0, width)
	for _, col := range d.Columns {
		if col.Type != Categorical {
			d.Features = append(d.Features, col.Name)
			continue
		}
		for _, l := range col.Levels {
			d.Features = append(d.Features, col.Name+"="+l)
		}
	}
	if len(kept) == len(states) && !slices.ContainsFunc(encs, func(enc []float64) bool { return enc != nil }) {
		return nil // every column numeric: the rows are the inputs already
	}
	X := make([][]float64, rows)
	buf := make([]float64, rows*width)
	for i := range X {
		X[i] = buf[:width:width]
		buf = buf[width:]
	}
	for n, k := range kept {
		col, enc, codes := &d.Columns[n], encs[n], states[k].codes
		if enc == nil {
			for i, r := range X {
				r[col.Start] = d.X[i][k]
			}
			continue
		}
		if col.Type == Categorical {
			for i, r := range X {
				r[col.Start+int(enc[codes[i]])] = 1
			}
			col.Min, col.Max = 0, 1
			continue
		}
		col.Min, col.Max = math.Inf(1), math.Inf(-1)
		for i, r := range X {
			v := enc[codes[i]]
			r[col.Start] = v
			col.Min, col.Max = min(col.Min, v), max(col.Max, v)
		}
	}
	d.X = X
	return nil
}
