package data

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ColumnType is the kind of values a feature column holds, which decides
// how it is encoded as model inputs (see the package documentation).
type ColumnType string

// The column types. Detection gives Continuous, Integer, Binary or
// Categorical; Ordinal and Ignored are only ever declared.
const (
	Continuous  ColumnType = "continuous"
	Integer     ColumnType = "integer"     // every value an integer
	Binary      ColumnType = "binary"      // exactly two distinct values (numbers or text)
	Categorical ColumnType = "categorical" // text values, or declared
	Ordinal     ColumnType = "ordinal"     // declared with its order
	Ignored     ColumnType = "ignore"
)

// MaxCategories is the largest number of levels of a categorical column.
// Each level is a model input, and a column with more distinct text
// values is almost always free text or an identifier.
const MaxCategories = 100

// minIdentifierRows is the fewest rows over which a column whose values
// are all distinct is taken for an identifier: in a handful of rows, any
// measurement can happen to be all distinct.
const minIdentifierRows = 20

// TypeSpec is a declared type: Order only for Ordinal (lowest first).
type TypeSpec struct {
	Type  ColumnType
	Order []string
}

// typeNames lists the names ParseTypes accepts, for messages.
const typeNames = "continuous, integer, binary, categorical, ordinal:LOW<...<HIGH, ignore"

// typesFix is the fix of every -types syntax error.
const typesFix = "write LoadOptions.Types NAME=TYPE,NAME=TYPE,... with TYPE one of " + typeNames +
	` (put a level that holds "<" or "," in double quotes, or separate the levels by " < ")`

// ParseTypes parses the CLI syntax of -types:
//
//	name=categorical,other=ordinal:Low<Medium<High,id=ignore
//
// The types are continuous, integer, binary, categorical, ordinal (with
// its levels, lowest first) and ignore (or ignored). An ordinal's levels
// are separated by "<"; when the levels themselves hold "<" (as German
// credit's "1<=X<4" does), separate them by " < " with spaces around, or
// put them in double quotes, as in CSV. A name or level that holds a
// comma goes in double quotes too. Type names are case-insensitive;
// spaces around names, types and levels are dropped. An empty spec gives
// an empty map. Every problem is an *Error that names LoadOptions.Types
// and lists the types.
func ParseTypes(spec string) (map[string]TypeSpec, error) {
	types := map[string]TypeSpec{}
	if strings.TrimSpace(spec) == "" {
		return types, nil
	}
	for _, item := range splitUnquoted(spec, ",") {
		item = strings.TrimSpace(item)
		bad := func(column, problem string) error {
			return &Error{Column: column, Problem: fmt.Sprintf("LoadOptions.Types entry %q: %s", clip(item), problem), Fix: typesFix}
		}
		if item == "" {
			return nil, bad("", "is empty (two commas in a row, or one at the end)")
		}
		nameType := splitUnquotedN(item, "=", 2)
		if len(nameType) != 2 {
			return nil, bad("", `has no "=" between the column name and its type`)
		}
		name := unquote(strings.TrimSpace(nameType[0]))
		if name == "" {
			return nil, bad("", "has no column name before the =")
		}
		if _, dup := types[name]; dup {
			return nil, bad(name, "gives a second type to the same column")
		}
		typ, order, hasOrder := strings.Cut(nameType[1], ":")
		ts := TypeSpec{Type: ColumnType(strings.ToLower(strings.TrimSpace(typ)))}
		if ts.Type == "ignored" {
			ts.Type = Ignored
		}
		if hasOrder {
			sep := "<"
			if len(splitUnquoted(order, " < ")) > 1 {
				sep = " < "
			}
			for _, l := range splitUnquoted(order, sep) {
				ts.Order = append(ts.Order, unquote(strings.TrimSpace(l)))
			}
		}
		if p := ts.problem(); p != "" {
			return nil, bad(name, p)
		}
		types[name] = ts
	}
	return types, nil
}

// problem says what is wrong with a declared type, in the terms of
// LoadOptions.Types, or returns "".
func (ts TypeSpec) problem() string {
	switch ts.Type {
	case Continuous, Integer, Binary, Categorical, Ignored:
		if ts.Order != nil {
			return fmt.Sprintf("only an ordinal type takes an order of levels, not %s", ts.Type)
		}
		return ""
	case Ordinal:
	case "":
		return "has no type after the =; the types are " + typeNames
	default:
		return fmt.Sprintf("%q is not a type; the types are %s", clip(string(ts.Type)), typeNames)
	}
	if len(ts.Order) < 2 {
		return "an ordinal type needs its levels, lowest first, at least two: NAME=ordinal:low<medium<high"
	}
	for i, l := range ts.Order {
		if l == "" {
			return fmt.Sprintf("level %d of the order is empty", i+1)
		}
		for _, m := range ts.Order[:i] {
			if sameValue(l, m) {
				return fmt.Sprintf("the order lists the level %q twice", clip(l))
			}
		}
	}
	return ""
}

// splitUnquoted splits s at every sep that is not inside double quotes.
func splitUnquoted(s, sep string) []string { return splitUnquotedN(s, sep, -1) }

// splitUnquotedN is splitUnquoted giving at most n parts (all if n < 0).
func splitUnquotedN(s, sep string, n int) []string {
	var parts []string
	start, quoted := 0, false
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '"':
			quoted = !quoted
		case !quoted && strings.HasPrefix(s[i:], sep) && (n < 0 || len(parts) < n-1):
			parts = append(parts, s[start:i])
			i += len(sep) - 1
			start = i + 1
		}
	}
	return append(parts, s[start:])
}

// unquote removes the double quotes around s, as CSV writes them (an
// inner quote doubled).
func unquote(s string) string {
	if len(s) >= 2 && s[0] == '"' && s[len(s)-1] == '"' {
		return strings.ReplaceAll(s[1:len(s)-1], `""`, `"`)
	}
	return s
}

// Column is one feature column of the file and its place among the
// model's inputs.
type Column struct {
	Name string
	Type ColumnType // never Ignored here
	// Levels are, for Categorical, the categories (sorted by number if all
	// are numbers, else in byte order); for Ordinal, the declared order;
	// for Binary, its two values (sorted the same way); nil otherwise.
	Levels []string
	// Min and Max are the observed range over all rows, in encoded units
	// (numeric: the value; ordinal: the rank 0..k-1; text binary: 0 and 1;
	// categorical: 0 and 1).
	Min, Max float64
	// The column's inputs are Features[Start:Start+Width]; Width is
	// len(Levels) for Categorical, else 1.
	Start, Width int
	Declared     bool // the type came from LoadOptions.Types rather than detection
}

// IsNumeric reports whether the column's input is a number of the data's
// own: Continuous or Integer, or Binary with two numeric values.
func (c Column) IsNumeric() bool {
	switch c.Type {
	case Continuous, Integer:
		return true
	case Binary:
		_, _, ok := c.binaryValues()
		return ok
	}
	return false
}

// binaryValues returns the numbers of a Binary column's two levels, if
// both are numbers (then they are its codes).
func (c Column) binaryValues() (lo, hi float64, ok bool) {
	if c.Type != Binary || len(c.Levels) != 2 {
		return 0, 0, false
	}
	lo, ok1 := numberOf(c.Levels[0])
	hi, ok2 := numberOf(c.Levels[1])
	return lo, hi, ok1 && ok2
}

// level returns the index of the level that the column's inputs in x
// stand for (Categorical, Ordinal, Binary), or false if they are not
// finite or the column has no levels.
func (c Column) level(x []float64) (int, bool) {
	if len(c.Levels) == 0 {
		return 0, false
	}
	v := x[c.Start]
	switch c.Type {
	case Categorical:
		// The level with the largest entry: a counterfactual moves the
		// one-hot block continuously, and its largest entry is the
		// category it leans to.
		best := -1
		for i, w := range x[c.Start : c.Start+c.Width] {
			if !math.IsNaN(w) && (best < 0 || w > x[c.Start+best]) {
				best = i
			}
		}
		return best, best >= 0
	case Binary:
		if lo, hi, ok := c.binaryValues(); ok {
			if math.IsNaN(v) {
				return 0, false
			}
			if math.Abs(v-hi) < math.Abs(v-lo) {
				return 1, true
			}
			return 0, true
		}
	case Ordinal:
	default:
		return 0, false
	}
	if math.IsNaN(v) {
		return 0, false
	}
	return int(min(max(math.Round(v), 0), float64(len(c.Levels)-1))), true
}

// Format returns the column's value in the row x (encoded, original
// units: a full input row of len(Features)) as text in the data's own
// terms: categorical, the level with the largest entry of its block;
// ordinal, Levels[round(rank)]; binary, the nearer of its two values
// (Levels[round(code)] for text); integer, the rounded integer;
// continuous, up to 6 significant digits. A value that is not finite is
// written as Go formats it ("NaN", "+Inf").
func (c Column) Format(x []float64) string {
	if i, ok := c.level(x); ok {
		return c.Levels[i]
	}
	v := x[c.Start]
	if c.Type == Integer {
		return strconv.FormatFloat(roundInt(v), 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'g', 6, 64)
}

// Value returns the column's value in the row x as Format does, ready for
// encoding/json: a string for categorical, ordinal and text binary
// columns, a float64 for numeric ones (integer-valued for Integer, one
// of the two values for numeric Binary), nil where the input is not
// finite (JSON has no NaN).
func (c Column) Value(x []float64) any {
	i, ok := c.level(x)
	switch {
	case ok && c.IsNumeric():
		v, _ := numberOf(c.Levels[i])
		return v
	case ok:
		return c.Levels[i]
	}
	v := x[c.Start]
	if math.IsNaN(v) || math.IsInf(v, 0) || !c.IsNumeric() {
		return nil
	}
	if c.Type == Integer {
		return roundInt(v)
	}
	return v
}

// roundInt rounds v to an integer, without a negative zero ("-0").
func roundInt(v float64) float64 {
	if r := math.Round(v); r != 0 {
		return r
	}
	return 0
}

// summary describes the column in one line, as Dataset.Summary does.
func (c Column) summary() string {
	var desc string
	switch c.Type {
	case Continuous:
		desc = fmt.Sprintf("%s … %s", strconv.FormatFloat(c.Min, 'g', 6, 64), strconv.FormatFloat(c.Max, 'g', 6, 64))
	case Integer:
		desc = fmt.Sprintf("%s … %s", strconv.FormatFloat(c.Min, 'f', 0, 64), strconv.FormatFloat(c.Max, 'f', 0, 64))
	case Binary:
		if c.IsNumeric() {
			desc = c.Levels[0] + " or " + c.Levels[1]
		} else {
			desc = fmt.Sprintf("%s (0) or %s (1)", c.Levels[0], c.Levels[1])
		}
	case Ordinal:
		desc = listLevels(c.Levels, " < ")
	case Categorical:
		noun := "categories"
		if len(c.Levels) == 1 {
			noun = "category"
		}
		desc = fmt.Sprintf("%d %s (%s)", len(c.Levels), noun, listLevels(c.Levels, ", "))
	}
	return fmt.Sprintf("%s: %s, %s", c.Name, c.Type, desc)
}

// listLevels joins at most 10 levels with sep, saying how many more there
// are.
func listLevels(levels []string, sep string) string {
	const most = 10
	if len(levels) <= most {
		return strings.Join(levels, sep)
	}
	return strings.Join(levels[:most], sep) + sep + fmt.Sprintf("… (%d more)", len(levels)-most)
}

// SumColumns turns a vector with one entry per model input (an
// attribution, say) into one entry per column: a categorical column's
// one-hot block is summed, so its entry is the whole column's share.
func SumColumns(cols []Column, v []float64) []float64 {
	out := make([]float64, len(cols))
	for i, c := range cols {
		for _, w := range v[c.Start : c.Start+c.Width] {
			out[i] += w
		}
	}
	return out
}

// levelIndex returns the index of the level s among levels: the same
// text, or the same number written differently ("1.0" for "1").
func levelIndex(levels []string, s string) int {
	if i := slices.Index(levels, s); i >= 0 {
		return i
	}
	return slices.IndexFunc(levels, func(l string) bool { return sameValue(l, s) })
}

// sameValue reports whether a and b are the same value: the same text, or
// equal numbers.
func sameValue(a, b string) bool {
	if a == b {
		return true
	}
	x, ok1 := numberOf(a)
	y, ok2 := numberOf(b)
	return ok1 && ok2 && x == y
}

// numberOf parses s as a finite number.
func numberOf(s string) (float64, bool) {
	v, err := strconv.ParseFloat(s, 64)
	return v, err == nil && !math.IsNaN(v) && !math.IsInf(v, 0)
}

// Names returns the columns' names, in order.
func Names(cols []Column) []string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return names
}

// Labels are the columns' names for a figure of the change from row x to row xc (original
// units): a column whose values are words (categorical, ordinal, a text binary column) and
// that changed is labelled with the change in its own terms, "housing: rent → own".
func Labels(cols []Column, x, xc []float64) []string {
	out := Names(cols)
	for i, c := range cols {
		if c.IsNumeric() {
			continue
		}
		if a, b := c.Format(x), c.Format(xc); a != b {
			out[i] = fmt.Sprintf("%s: %s → %s", c.Name, a, b)
		}
	}
	return out
}
