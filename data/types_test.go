package data

import (
	"errors"
	"math"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func TestParseTypes(t *testing.T) {
	tests := []struct {
		spec string
		want map[string]TypeSpec
	}{
		{"", map[string]TypeSpec{}},
		{"  ", map[string]TypeSpec{}},
		{"name=categorical,other=ordinal:Low<Medium<High,id=ignore", map[string]TypeSpec{
			"name":  {Type: Categorical},
			"other": {Type: Ordinal, Order: []string{"Low", "Medium", "High"}},
			"id":    {Type: Ignored},
		}},
		{"a=continuous, b = Integer ,c=BINARY,d=ignored", map[string]TypeSpec{
			"a": {Type: Continuous}, "b": {Type: Integer}, "c": {Type: Binary}, "d": {Type: Ignored},
		}},
		// Levels that hold "<": separated by " < ", as Summary writes them.
		{"employment=ordinal:unemployed < <1 < 1<=X<4 < 4<=X<7 < >=7", map[string]TypeSpec{
			"employment": {Type: Ordinal, Order: []string{"unemployed", "<1", "1<=X<4", "4<=X<7", ">=7"}},
		}},
		// ... or quoted, as in CSV; so are names and levels with commas.
		{`employment=ordinal:unemployed<"<1"<"1<=X<4",size=ordinal:"small, cheap"<"big ""XL"""`, map[string]TypeSpec{
			"employment": {Type: Ordinal, Order: []string{"unemployed", "<1", "1<=X<4"}},
			"size":       {Type: Ordinal, Order: []string{"small, cheap", `big "XL"`}},
		}},
		{`"a,b"=categorical`, map[string]TypeSpec{"a,b": {Type: Categorical}}},
		{"grade=ordinal: 1 < 2 < 3", map[string]TypeSpec{"grade": {Type: Ordinal, Order: []string{"1", "2", "3"}}}},
	}
	for _, tc := range tests {
		got, err := ParseTypes(tc.spec)
		if err != nil {
			t.Errorf("ParseTypes(%q): %v", tc.spec, err)
			continue
		}
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("ParseTypes(%q) = %v, want %v", tc.spec, got, tc.want)
		}
	}
}

func TestParseTypesErrors(t *testing.T) {
	tests := []struct {
		spec, column, problem string
	}{
		{"age", "", `no "="`},
		{"=integer", "", "no column name"},
		{"age=", "age", "no type"},
		{"age=number", "age", `"number" is not a type; the types are continuous, integer, binary, categorical, ordinal`},
		{"age=integer,,b=binary", "", "is empty"},
		{"age=integer,", "", "is empty"},
		{"age=integer,age=continuous", "age", "second type"},
		{"g=ordinal", "g", "needs its levels"},
		{"g=ordinal:low", "g", "needs its levels"},
		{"g=ordinal:low<<high", "g", "level 2 of the order is empty"},
		{"g=ordinal:low<high<low", "g", `lists the level "low" twice`},
		{"g=ordinal:1<2<1.0", "g", `lists the level "1.0" twice`},
		{"g=categorical:a<b", "g", "only an ordinal type takes an order"},
	}
	for _, tc := range tests {
		got, err := ParseTypes(tc.spec)
		var e *Error
		if !errors.As(err, &e) || got != nil {
			t.Errorf("ParseTypes(%q) = %v, %v; want an *Error", tc.spec, got, err)
			continue
		}
		if e.Column != tc.column || !strings.Contains(e.Problem, tc.problem) || !strings.HasPrefix(e.Problem, "LoadOptions.Types entry") ||
			!strings.Contains(e.Fix, "LoadOptions.Types NAME=TYPE") || !strings.Contains(e.Fix, "ordinal:LOW<...<HIGH") {
			t.Errorf("ParseTypes(%q): %v (column %q); want column %q, problem with %q", tc.spec, err, e.Column, tc.column, tc.problem)
		}
	}
}

func TestColumnFormatValue(t *testing.T) {
	cat := Column{Name: "c", Type: Categorical, Levels: []string{"blue", "green", "red"}, Start: 1, Width: 3}
	ord := Column{Name: "o", Type: Ordinal, Levels: []string{"low", "mid", "high"}, Width: 1}
	binText := Column{Name: "b", Type: Binary, Levels: []string{"no", "yes"}, Width: 1}
	binNum := Column{Name: "n", Type: Binary, Levels: []string{"1", "2"}, Width: 1}
	integer := Column{Name: "i", Type: Integer, Width: 1}
	cont := Column{Name: "x", Type: Continuous, Width: 1}
	nan := math.NaN()
	tests := []struct {
		col    Column
		x      []float64
		format string
		value  any
	}{
		{cat, []float64{9, 0, 0, 1}, "red", "red"},
		{cat, []float64{9, 0.2, 0.7, 0.1}, "green", "green"}, // the largest entry of a moved block
		{cat, []float64{9, 0.5, 0.5, 0}, "blue", "blue"},     // a tie: the first level
		{cat, []float64{9, nan, -1, nan}, "green", "green"},
		{cat, []float64{9, nan, nan, nan}, "NaN", nil},
		{ord, []float64{1}, "mid", "mid"},
		{ord, []float64{1.6}, "high", "high"},
		{ord, []float64{7}, "high", "high"}, // clamped to the levels
		{ord, []float64{-0.7}, "low", "low"},
		{ord, []float64{nan}, "NaN", nil},
		{binText, []float64{0.4}, "no", "no"},
		{binText, []float64{0.6}, "yes", "yes"},
		{binNum, []float64{1}, "1", 1.0},
		{binNum, []float64{1.7}, "2", 2.0}, // the nearer of its two values
		{binNum, []float64{-3}, "1", 1.0},
		{integer, []float64{41.6}, "42", 42.0},
		{integer, []float64{-0.2}, "0", 0.0}, // no "-0"
		{integer, []float64{math.Inf(1)}, "+Inf", nil},
		{cont, []float64{17.99}, "17.99", 17.99},
		{cont, []float64{1234567.8}, "1.23457e+06", 1234567.8},
		{cont, []float64{0.1 + 0.2}, "0.3", 0.1 + 0.2},
		{cont, []float64{nan}, "NaN", nil},
	}
	for _, tc := range tests {
		if got := tc.col.Format(tc.x); got != tc.format {
			t.Errorf("%s %v: Format = %q, want %q", tc.col.Type, tc.x, got, tc.format)
		}
		if got := tc.col.Value(tc.x); got != tc.value {
			t.Errorf("%s %v: Value = %#v, want %#v", tc.col.Type, tc.x, got, tc.value)
		}
	}
	for _, tc := range []struct {
		col  Column
		want bool
	}{{cat, false}, {ord, false}, {binText, false}, {binNum, true}, {integer, true}, {cont, true},
		{Column{Type: Binary, Levels: []string{"1", "x"}}, false}} {
		if got := tc.col.IsNumeric(); got != tc.want {
			t.Errorf("%s %q: IsNumeric = %v", tc.col.Type, tc.col.Levels, got)
		}
	}
}

func TestSumColumns(t *testing.T) {
	cols := []Column{
		{Name: "a", Type: Continuous, Start: 0, Width: 1},
		{Name: "c", Type: Categorical, Levels: []string{"x", "y", "z"}, Start: 1, Width: 3},
		{Name: "b", Type: Binary, Levels: []string{"no", "yes"}, Start: 4, Width: 1},
	}
	tests := []struct {
		v, want []float64
	}{
		{[]float64{1, 2, 3, 4, 5}, []float64{1, 9, 5}},
		{[]float64{0.5, -1, 1, 0.25, 0}, []float64{0.5, 0.25, 0}},
	}
	for _, tc := range tests {
		if got := SumColumns(cols, tc.v); !slices.Equal(got, tc.want) {
			t.Errorf("SumColumns(%v) = %v, want %v", tc.v, got, tc.want)
		}
	}
	if got := SumColumns(nil, nil); len(got) != 0 {
		t.Errorf("SumColumns(nil) = %v", got)
	}
}

// TestLabels: a figure names a changed categorical or text column by its change, and every
// other column by its name.
func TestLabels(t *testing.T) {
	d := GermanCredit()
	x, xc := d.X[0], slices.Clone(d.X[0])
	housing, _ := d.Column("housing")
	age, _ := d.Column("age")
	clear(xc[housing.Start : housing.Start+housing.Width])
	xc[housing.Start+slices.Index(housing.Levels, "rent")] = 1
	xc[age.Start] += 5
	labels := Labels(d.Columns, x, xc)
	for i, c := range d.Columns {
		want := c.Name
		if c.Name == "housing" {
			want = "housing: own → rent"
		}
		if labels[i] != want {
			t.Errorf("column %s: label %q, want %q", c.Name, labels[i], want)
		}
	}
}
