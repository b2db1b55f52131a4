package data

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// col abbreviates a Column in the tables below.
func col(name string, typ ColumnType, levels []string, lo, hi float64, start, width int, declared bool) Column {
	return Column{Name: name, Type: typ, Levels: levels, Min: lo, Max: hi, Start: start, Width: width, Declared: declared}
}

func types(kv ...any) LoadOptions {
	o := LoadOptions{Types: map[string]TypeSpec{}}
	for i := 0; i < len(kv); i += 2 {
		switch v := kv[i+1].(type) {
		case ColumnType:
			o.Types[kv[i].(string)] = TypeSpec{Type: v}
		case []string:
			o.Types[kv[i].(string)] = TypeSpec{Type: Ordinal, Order: v}
		}
	}
	return o
}

func TestColumnTypes(t *testing.T) {
	tests := []struct {
		name     string
		in       string // the target is the last column
		opts     LoadOptions
		cols     []Column
		features []string
		x        [][]float64
	}{
		{"continuous", "a,t\n1.5,0\n2,1\n3,0\n", LoadOptions{},
			[]Column{col("a", Continuous, nil, 1.5, 3, 0, 1, false)}, []string{"a"}, [][]float64{{1.5}, {2}, {3}}},
		{"integer", "a,t\n1,0\n2.0,1\n-3,0\n", LoadOptions{},
			[]Column{col("a", Integer, nil, -3, 3-1, 0, 1, false)}, []string{"a"}, [][]float64{{1}, {2}, {-3}}},
		{"constant number", "a,t\n4,0\n4,1\n", LoadOptions{},
			[]Column{col("a", Integer, nil, 4, 4, 0, 1, false)}, []string{"a"}, [][]float64{{4}, {4}}},
		{"binary numbers keep their values", "a,t\n2,0\n1,1\n2.0,0\n", LoadOptions{},
			[]Column{col("a", Binary, []string{"1", "2"}, 1, 2, 0, 1, false)}, []string{"a"}, [][]float64{{2}, {1}, {2}}},
		{"binary -0 and 0 are one value", "a,t\n-0,0\n0,1\n0.5,0\n", LoadOptions{},
			[]Column{col("a", Binary, []string{"-0", "0.5"}, 0, 0.5, 0, 1, false)}, []string{"a"}, [][]float64{{0}, {0}, {0.5}}},
		{"binary text", "a,t\nyes,0\nno,1\nyes,0\n", LoadOptions{},
			[]Column{col("a", Binary, []string{"no", "yes"}, 0, 1, 0, 1, false)}, []string{"a"}, [][]float64{{1}, {0}, {1}}},
		{"categorical text", "c,t\nred,0\nblue,1\ngreen,0\nred,1\n", LoadOptions{},
			[]Column{col("c", Categorical, []string{"blue", "green", "red"}, 0, 1, 0, 3, false)},
			[]string{"c=blue", "c=green", "c=red"}, [][]float64{{0, 0, 1}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
		{"one text value is left out", "a,c,t\n1.5,x,0\n2,x,1\n3,x,0\n", LoadOptions{},
			[]Column{col("a", Continuous, nil, 1.5, 3, 0, 1, false)}, []string{"a"}, [][]float64{{1.5}, {2}, {3}}},
		{"one value declared categorical is left out", "c,a,t\n3,1.5,0\n3,2,1\n3,3,0\n", types("c", Categorical),
			[]Column{col("a", Continuous, nil, 1.5, 3, 0, 1, false)}, []string{"a"}, [][]float64{{1.5}, {2}, {3}}},
		// Numbers first, then text: the numbers become categories too, in
		// byte order since not all levels are numbers.
		{"numbers then text", "c,t\n9,0\n10,1\n9.0,0\nx,1\n", LoadOptions{},
			[]Column{col("c", Categorical, []string{"10", "9", "x"}, 0, 1, 0, 3, false)},
			[]string{"c=10", "c=9", "c=x"}, [][]float64{{0, 1, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
		{"declared categorical on numbers sorts by number", "c,t\n10,0\n9,1\n2,0\n", types("c", Categorical),
			[]Column{col("c", Categorical, []string{"2", "9", "10"}, 0, 1, 0, 3, true)},
			[]string{"c=2", "c=9", "c=10"}, [][]float64{{0, 0, 1}, {0, 1, 0}, {1, 0, 0}}},
		{"declared ordinal", "g,t\nlow,0\nhigh,1\nmedium,0\n", types("g", []string{"low", "medium", "high"}),
			[]Column{col("g", Ordinal, []string{"low", "medium", "high"}, 0, 2, 0, 1, true)},
			[]string{"g"}, [][]float64{{0}, {2}, {1}}},
		{"ordinal levels not all seen, numbers by value", "g,t\n1.0,0\n3,1\n", types("g", []string{"1", "2", "3"}),
			[]Column{col("g", Ordinal, []string{"1", "2", "3"}, 0, 2, 0, 1, true)}, []string{"g"}, [][]float64{{0}, {2}}},
		{"declared binary text", "b,t\nT,0\nF,1\n", types("b", Binary),
			[]Column{col("b", Binary, []string{"F", "T"}, 0, 1, 0, 1, true)}, []string{"b"}, [][]float64{{1}, {0}}},
		{"declared binary numbers", "b,t\n5,0\n3,1\n", types("b", Binary),
			[]Column{col("b", Binary, []string{"3", "5"}, 3, 5, 0, 1, true)}, []string{"b"}, [][]float64{{5}, {3}}},
		{"declared continuous on integers", "a,t\n1,0\n2,1\n3,0\n", types("a", Continuous),
			[]Column{col("a", Continuous, nil, 1, 3, 0, 1, true)}, []string{"a"}, [][]float64{{1}, {2}, {3}}},
		{"declared integer", "a,t\n1,0\n2,1\n3,0\n", types("a", Integer),
			[]Column{col("a", Integer, nil, 1, 3, 0, 1, true)}, []string{"a"}, [][]float64{{1}, {2}, {3}}},
		{"declared categorical takes infinities and huge numbers as text", "c,t\ninf,0\n1e999,1\n", types("c", Categorical),
			[]Column{col("c", Categorical, []string{"1e999", "inf"}, 0, 1, 0, 2, true)}, []string{"c=1e999", "c=inf"}, [][]float64{{0, 1}, {1, 0}}},
		{"none is a value", "c,t\nnone,0\nyes,1\n", LoadOptions{},
			[]Column{col("c", Binary, []string{"none", "yes"}, 0, 1, 0, 1, false)}, []string{"c"}, [][]float64{{0}, {1}}},
		{"ignored", "id,a,note,t\nx,1.5,NA,0\ny,2.5,,1\nz,3,x,0\n", LoadOptions{Ignore: []string{"id", " note"}},
			[]Column{col("a", Continuous, nil, 1.5, 3, 0, 1, false)}, []string{"a"}, [][]float64{{1.5}, {2.5}, {3}}},
		{"ignored by LoadOptions.Types", "id,a,t\nx,1.5,0\ny,2.5,1\nz,3,0\n", types("id", Ignored),
			[]Column{col("a", Continuous, nil, 1.5, 3, 0, 1, false)}, []string{"a"}, [][]float64{{1.5}, {2.5}, {3}}},
		{"mixed columns in file order", "n,c,t,b,g\n1.5,x,0,no,b\n2,y,1,yes,a\n3,z,1,no,b\n",
			LoadOptions{Target: "t", Types: map[string]TypeSpec{"g": {Type: Ordinal, Order: []string{"b", "a"}}}},
			[]Column{
				col("n", Continuous, nil, 1.5, 3, 0, 1, false),
				col("c", Categorical, []string{"x", "y", "z"}, 0, 1, 1, 3, false),
				col("b", Binary, []string{"no", "yes"}, 0, 1, 4, 1, false),
				col("g", Ordinal, []string{"b", "a"}, 0, 1, 5, 1, true),
			},
			[]string{"n", "c=x", "c=y", "c=z", "b", "g"},
			[][]float64{{1.5, 1, 0, 0, 0, 0}, {2, 0, 1, 0, 1, 1}, {3, 0, 0, 1, 0, 0}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(strings.NewReader(tc.in), "c.csv", tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(d.Columns, tc.cols) {
				t.Errorf("Columns =\n%+v\nwant\n%+v", d.Columns, tc.cols)
			}
			if !slices.Equal(d.Features, tc.features) || !reflect.DeepEqual(d.X, tc.x) {
				t.Errorf("Features %q, X %v; want %q, %v", d.Features, d.X, tc.features, tc.x)
			}
			// Format gives back each cell, in its own spelling.
			for i, row := range d.X {
				for _, c := range d.Columns {
					if c.Type == Continuous {
						continue
					}
					if got, want := c.Format(row), cellOf(tc.in, c.Name, i); !sameValue(got, want) {
						t.Errorf("row %d: %s.Format = %q, want %q", i, c.Name, got, want)
					}
				}
			}
		})
	}
}

// cellOf returns the cell of column name in data row i of the CSV text in
// (no quotes, no blank lines).
func cellOf(in, name string, i int) string {
	lines := strings.Split(strings.TrimSpace(in), "\n")
	j := slices.Index(strings.Split(lines[0], ","), name)
	return strings.Split(lines[i+1], ",")[j]
}

func TestColumnTypeErrors(t *testing.T) {
	numbers := func(n int, f func(i int) string) string {
		var b strings.Builder
		b.WriteString("a,t\n")
		for i := range n {
			fmt.Fprintf(&b, "%s,%d\n", f(i), i%2)
		}
		return b.String()
	}
	ordinal := types("g", []string{"low", "high"})
	tests := []struct {
		name string
		in   string
		opts LoadOptions
		want wantErr
	}{
		// Declared types that do not fit.
		{"integer on a decimal", "a,t\n1,0\n1.5,1\n", types("a", Integer),
			wantErr{line: 3, column: "a", value: "1.5", problem: "is not an integer", fix: "LoadOptions.Types a=continuous"}},
		{"integer on text", "a,t\n1,0\nx,1\n", types("a", Integer),
			wantErr{line: 3, column: "a", value: "x", problem: "is not a number, but LoadOptions.Types declares a integer", fix: "LoadOptions.Types a=categorical"}},
		{"continuous on text", "a,t\nx,0\n1,1\n", types("a", Continuous),
			wantErr{line: 2, column: "a", value: "x", problem: "is not a number", fix: "LoadOptions.Types a=categorical"}},
		{"binary with three values", "a,t\nx,0\ny,1\nx,0\nz,1\n", types("a", Binary),
			wantErr{line: 5, column: "a", value: "z", problem: `third distinct value, but LoadOptions.Types declares a binary (its values so far: "x", "y")`, fix: "LoadOptions.Types a=categorical"}},
		{"binary with one value", "a,t\nx,0\nx,1\n", types("a", Binary),
			wantErr{column: "a", problem: `only one value ("x")`, fix: "LoadOptions.Types a=categorical"}},
		{"ordinal misses a value", "g,t\nlow,0\nmedium,1\n", ordinal,
			wantErr{line: 3, column: "g", value: "medium", problem: "not in the order that LoadOptions.Types declares for g (low < high)", fix: `add "medium"`}},
		{"ordinal lists a value twice", "g,t\nlow,0\n", types("g", []string{"low", "high", "low"}),
			wantErr{column: "g", problem: `LoadOptions.Types: the order lists the level "low" twice`, fix: "LoadOptions.Types NAME=TYPE"}},
		{"unknown type", "a,t\n1,0\n", types("a", ColumnType("text")),
			wantErr{column: "a", problem: `"text" is not a type; the types are continuous, integer, binary, categorical, ordinal`, fix: "LoadOptions.Types"}},
		{"LoadOptions.Types names no column", "a,b,t\n1,2,0\n", types("c", Integer),
			wantErr{line: 1, column: "c", problem: `LoadOptions.Types names a column that is not in the header; the columns are "a", "b", "t"`, fix: "LoadOptions.Types"}},
		{"LoadOptions.Ignore names no column", "a,b,t\n1,2,0\n", LoadOptions{Ignore: []string{"id"}},
			wantErr{line: 1, column: "id", problem: `LoadOptions.Ignore names a column that is not in the header; the columns are "a", "b", "t"`, fix: "LoadOptions.Ignore"}},
		{"type of the target", "a,t\n1,0\n", types("t", Categorical),
			wantErr{line: 1, column: "t", problem: "LoadOptions.Types names the target column", fix: "LoadOptions.Target NAME"}},
		{"target ignored", "a,t\n1,0\n", LoadOptions{Ignore: []string{"t"}},
			wantErr{line: 1, column: "t", problem: "LoadOptions.Ignore names the target column", fix: "leave t out of LoadOptions.Ignore"}},
		{"ignored and typed", "a,b,t\n1,2,0\n", LoadOptions{Ignore: []string{"a"}, Types: map[string]TypeSpec{"a": {Type: Integer}}},
			wantErr{line: 1, column: "a", problem: "ignored with LoadOptions.Ignore but given the type integer with LoadOptions.Types", fix: "only one of LoadOptions.Ignore and LoadOptions.Types"}},
		{"every feature ignored", "a,b,t\n1,2,0\n", LoadOptions{Ignore: []string{"a", "b"}},
			wantErr{line: 1, problem: "every feature column is ignored", fix: "LoadOptions.Ignore"}},

		// Identifiers: every value distinct over 20 rows.
		{"identifier of integers", numbers(20, func(i int) string { return strconv.Itoa(1000 + i) }), LoadOptions{},
			wantErr{column: "a", problem: `looks like an identifier (every value distinct): 20 rows, values such as "1000", "1001", "1002"`,
				fix: "LoadOptions.Ignore a (or declare its type with LoadOptions.Types a=integer if it is a real measurement)"}},
		{"identifier of text", numbers(25, func(i int) string { return "P" + strconv.Itoa(i) }), LoadOptions{},
			wantErr{column: "a", problem: "looks like an identifier (every value distinct): 25 rows", fix: "LoadOptions.Ignore a"}},
		{"identifier of text and numbers", numbers(30, func(i int) string { return strconv.Itoa(i) + strings.Repeat("b", i/25) }), LoadOptions{},
			wantErr{column: "a", problem: "looks like an identifier (every value distinct): 30 rows", fix: "LoadOptions.Ignore a"}},
		{"identifier of many integers", numbers(300, func(i int) string { return strconv.Itoa(7 * i) }), LoadOptions{},
			wantErr{column: "a", problem: "looks like an identifier (every value distinct): 300 rows", fix: "LoadOptions.Ignore a"}},

		// Too many categories.
		{"101 categories", numbers(202, func(i int) string { return "c" + strconv.Itoa(i%101) }), LoadOptions{},
			wantErr{column: "a", problem: "more than 100 distinct values, too many categories", fix: "LoadOptions.Ignore a if it is free text, or declare a numeric type with LoadOptions.Types a=continuous"}},
		{"101 declared categories", numbers(202, func(i int) string { return strconv.Itoa(i % 101) }), types("a", Categorical),
			wantErr{line: 102, column: "a", value: "100", problem: "distinct value number 101 of a, which LoadOptions.Types declares categorical", fix: "LoadOptions.Ignore a"}},
		{"a measurement with a text cell", numbers(300, func(i int) string {
			if i == 250 {
				return "oops"
			}
			return strconv.FormatFloat(float64(i%150)/7, 'g', -1, 64)
		}), LoadOptions{}, wantErr{line: 252, column: "a", value: "oops", problem: "is not a number, unlike most values of a", fix: "LoadOptions.Ignore a"}},
		{"mostly text with many values", numbers(300, func(i int) string {
			if i < 120 {
				return strconv.Itoa(i % 110)
			}
			return "w" + strconv.Itoa(i%90)
		}), LoadOptions{}, wantErr{column: "a", problem: `more than 100 distinct values, too many categories (values such as "w30")`, fix: "LoadOptions.Ignore a"}},

		// Numbers that are not finite.
		{"infinity", "a,t\nx,0\ninf,1\n", LoadOptions{}, wantErr{line: 3, column: "a", value: "inf", problem: "not a finite number", fix: "LoadOptions.Types a=categorical"}},
		{"out of range among text", "a,t\nx,0\n-1e999,1\n", LoadOptions{}, wantErr{line: 3, column: "a", value: "-1e999", problem: "out of range"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(strings.NewReader(tc.in), "m.csv", tc.opts)
			if d != nil {
				t.Errorf("got a data set with an error")
			}
			checkErr(t, err, "m.csv", tc.want)
		})
	}
}

// Near misses of the errors above are accepted.
func TestColumnTypeNearMisses(t *testing.T) {
	rows := func(n int, f func(i int) string) string {
		var b strings.Builder
		b.WriteString("a,t\n")
		for i := range n {
			fmt.Fprintf(&b, "%s,%d\n", f(i), i%2)
		}
		return b.String()
	}
	tests := []struct {
		name string
		in   string
		opts LoadOptions
		typ  ColumnType
	}{
		{"19 distinct integers", rows(19, strconv.Itoa), LoadOptions{}, Integer},
		{"20 integers, one repeated", rows(20, func(i int) string { return strconv.Itoa(min(i, 18)) }), LoadOptions{}, Integer},
		{"20 distinct decimals (a measurement)", rows(20, func(i int) string { return strconv.Itoa(i) + ".5" }), LoadOptions{}, Continuous},
		{"identifier declared integer", rows(20, strconv.Itoa), types("a", Integer), Integer},
		{"identifier declared categorical", rows(20, strconv.Itoa), types("a", Categorical), Categorical},
		{"19 distinct words", rows(19, func(i int) string { return "w" + strconv.Itoa(i) }), LoadOptions{}, Categorical},
		{"100 categories", rows(300, func(i int) string { return "c" + strconv.Itoa(i%100) }), LoadOptions{}, Categorical},
		{"many numbers, declared continuous", rows(300, func(i int) string { return strconv.Itoa(i % 200) }), types("a", Continuous), Continuous},
	}
	for _, tc := range tests {
		d, err := Parse(strings.NewReader(tc.in), "m.csv", tc.opts)
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := d.Columns[0].Type; got != tc.typ {
			t.Errorf("%s: type %s, want %s", tc.name, got, tc.typ)
		}
	}
}

func TestMissingValues(t *testing.T) {
	for _, m := range []string{"", "  ", "NA", "na", "N/A", "n/a", "?", "NaN", "nan", "null", "NULL", "Null", `""`} {
		in := "a,c,t\n1,x,0\n" + m + ",y,1\n"
		_, err := Parse(strings.NewReader(in), "m.csv", LoadOptions{})
		problem := "stands for a missing value"
		switch strings.TrimSpace(strings.Trim(m, `"`)) {
		case "":
			problem = "cell is empty (a missing value)"
		case "NaN", "nan":
			problem = "is not a finite number (NaN: a missing value)"
		}
		checkErr(t, err, "m.csv", wantErr{line: 3, column: "a", value: strings.TrimSpace(strings.Trim(m, `"`)), problem: problem,
			fix: "fill in the missing value, or LoadOptions.DropMissing drops such rows (or LoadOptions.Ignore a leaves out"})
	}
	_, err := Parse(strings.NewReader("a,t\n1,0\n2,NA\n"), "m.csv", LoadOptions{})
	checkErr(t, err, "m.csv", wantErr{line: 3, column: "t", value: "NA", problem: "stands for a missing value", fix: "fill in the missing class, or LoadOptions.DropMissing"})

	// -drop-missing: rows with a missing feature or target go, and Lines
	// skip them; a missing value in an ignored column does not count.
	in := "id,a,c,t\n" +
		"1,1.5,x,0\n" +
		"2,,y,1\n" + // line 3: dropped
		"\n" +
		"3,2.5,?,0\n" + // line 5: dropped
		",3.5,y,1\n" + // line 6: kept, the id is ignored
		"5,4.5,x,null\n" + // line 7: dropped
		"6,5.5,none,0\n"
	d, err := Parse(strings.NewReader(in), "m.csv", LoadOptions{DropMissing: true, Ignore: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Dropped != 3 || !slices.Equal(d.Lines, []int{2, 6, 8}) || !reflect.DeepEqual(d.X, [][]float64{{1.5, 0, 1, 0}, {3.5, 0, 0, 1}, {5.5, 1, 0, 0}}) ||
		!slices.Equal(d.Y, []int{0, 1, 0}) || !slices.Equal(d.Ignored, []string{"id"}) {
		t.Errorf("Dropped %d, Lines %v, X %v, Y %v, Ignored %q", d.Dropped, d.Lines, d.X, d.Y, d.Ignored)
	}
	if c, _ := d.Column("c"); !slices.Equal(c.Levels, []string{"none", "x", "y"}) {
		t.Errorf("levels of the kept rows: %q", c.Levels)
	}
	// Without missing values, nothing is dropped.
	d, err = Parse(strings.NewReader("a,t\n1,0\n2,1\n"), "m.csv", LoadOptions{DropMissing: true})
	if err != nil || d.Dropped != 0 || !slices.Equal(d.Lines, []int{2, 3}) {
		t.Errorf("no missing values: %v, Dropped %d, Lines %v", err, d.Dropped, d.Lines)
	}
	_, err = Parse(strings.NewReader("a,t\n,0\nNA,1\n"), "m.csv", LoadOptions{DropMissing: true})
	checkErr(t, err, "m.csv", wantErr{problem: "every data row (2) has a missing value, and LoadOptions.DropMissing dropped them all", fix: "LoadOptions.Ignore NAME"})
}

// Numeric files load exactly as before mixed types: every column
// continuous, the same inputs, values, classes and checksum. The
// fingerprints are those of the parser before mixed types.
func TestNumericDataUnchanged(t *testing.T) {
	tests := []struct {
		path, fingerprint, checksum string
		allContinuous               bool
	}{
		{"wbc.csv", "6f84c04c56bd7ff19659425295d8205a8ddb12e7e2c61e23535c9f7681a1ecb3",
			"9b9e3a2fe53a2264f7e756aff00ab883450186c47bfb2027b4d90ca51d23347d", true},
		{"../testdata/iris.csv", "6b8de1754e233505be903d76b136622cef840c5eae8ef3bcf665ffdfab86547f",
			"e404da8a0348eaa780e968c07a8f4dc90fe90eea54ddceeb5b444ce0caae8d30", true},
		{"../testdata/german_numeric.csv", "1e56d0405610d6ec27d05d70beb7465ca495cf0eb4bbcbd04715dfc1db4edcc9",
			"049c8e944bfd5d2978d02fb996aa805dbccc94667b08d61c4a0d5f0ba69492d8", false},
	}
	for _, tc := range tests {
		d, err := Load(tc.path, LoadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		h := sha256.New()
		h.Write([]byte(strings.Join(d.Features, ",")))
		for _, r := range d.X {
			for _, v := range r {
				binary.Write(h, binary.LittleEndian, math.Float64bits(v))
			}
		}
		for _, y := range d.Y {
			binary.Write(h, binary.LittleEndian, int64(y))
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != tc.fingerprint || d.Checksum != tc.checksum {
			t.Errorf("%s: fingerprint %s, checksum %s; want %s, %s", tc.path, got, d.Checksum, tc.fingerprint, tc.checksum)
		}
		for _, c := range d.Columns {
			if tc.allContinuous && c.Type != Continuous || !c.IsNumeric() || c.Width != 1 {
				t.Errorf("%s: column %+v", tc.path, c)
			}
		}
	}
	if d := WBC(); len(d.Columns) != 30 || d.Columns[0].Type != Continuous || !slices.Equal(d.Lines[:3], []int{2, 3, 4}) || d.Lines[568] != 570 {
		t.Errorf("WBC: %d columns, lines %v…%d", len(d.Columns), d.Lines[:3], d.Lines[568])
	}
}

func TestFitScalerOneHot(t *testing.T) {
	d := GermanCredit()
	s := d.FitScaler(d.X)
	plain := FitScaler(d.X)
	z := s.Transform(d.X)
	for _, c := range d.Columns {
		for j := c.Start; j < c.Start+c.Width; j++ {
			if c.Type != Categorical {
				if s.Mean[j] != plain.Mean[j] || s.Std[j] != plain.Std[j] {
					t.Errorf("%s: mean, std %v, %v; want FitScaler's %v, %v", d.Features[j], s.Mean[j], s.Std[j], plain.Mean[j], plain.Std[j])
				}
				continue
			}
			if s.Mean[j] != 0 || s.Std[j] != 1 {
				t.Errorf("%s: one-hot input has mean %v, std %v", d.Features[j], s.Mean[j], s.Std[j])
			}
			for i := range z {
				if z[i][j] != d.X[i][j] || (z[i][j] != 0 && z[i][j] != 1) {
					t.Fatalf("%s, row %d: standardised %v", d.Features[j], i, z[i][j])
				}
			}
		}
	}
	if e := d.FitScaler(nil); len(e.Mean) != 0 {
		t.Errorf("no rows: %+v", e)
	}
}

func TestEncodeRecord(t *testing.T) {
	d, err := Parse(strings.NewReader("id,n,i,c,b,nb,g,t\n"+
		"1,1.5,3,red,no,1,low,0\n"+
		"2,2.5,4,blue,yes,2,high,1\n"+
		"3,3.5,5,green,no,1,low,0\n"), "e.csv", LoadOptions{Ignore: []string{"id"}, Types: map[string]TypeSpec{"g": {Type: Ordinal, Order: []string{"low", "mid", "high"}}}})
	if err != nil {
		t.Fatal(err)
	}
	rec := func(kv ...string) map[string]string {
		m := map[string]string{"n": "1.5", "i": "3", "c": "red", "b": "no", "nb": "1", "g": "low"}
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "-" {
				delete(m, kv[i])
				continue
			}
			m[kv[i]] = kv[i+1]
		}
		return m
	}
	// A row of the file, and other spellings of its values.
	for _, r := range []map[string]string{rec(), rec("n", " 1.5 ", "i", "3.0", "nb", "1.0", "id", "17", "t", "1")} {
		x, err := d.EncodeRecord(r)
		if err != nil || !slices.Equal(x, d.X[0]) {
			t.Errorf("EncodeRecord(%v) = %v, %v; want %v", r, x, err, d.X[0])
		}
	}
	if x, err := d.EncodeRecord(rec("c", "blue", "g", "mid", "nb", "2", "b", "yes")); err != nil || !slices.Equal(x, []float64{1.5, 3, 1, 0, 0, 1, 2, 1}) {
		t.Errorf("EncodeRecord: %v, %v", x, err)
	}
	tests := []struct {
		rec             map[string]string
		column, value   string
		problem, fixHas string
	}{
		{rec("c", "purple"), "c", "purple", `is a category never seen in training data; seen: "blue", "green", "red"`, "write one of the categories of c"},
		{rec("i", "3.5"), "i", "3.5", "is not an integer, but i holds only integers", "whole number"},
		{rec("n", "x"), "n", "x", "is not a number", `write the value of "n" as a number`},
		{rec("n", "1,5"), "n", "1,5", "decimal comma", "point"},
		{rec("n", "inf"), "n", "inf", "is not a finite number", "ordinary number"},
		{rec("n", "1e300"), "n", "1e300", "is beyond the range of float32", "within ±3.4e38"},
		{rec("c", "gr\xfcn"), "c", "gr\xfcn", "is not UTF-8 text (byte 0xFC at byte 3)", "iconv"},
		{rec("b", "maybe"), "b", "maybe", `is neither of the two values of b ("no", "yes")`, "one of the two"},
		{rec("nb", "3"), "nb", "3", `is neither of the two values of nb ("1", "2")`, "one of the two"},
		{rec("g", "top"), "g", "top", "is not a level of g (low < mid < high)", "one of its levels"},
		{rec("c", "NA"), "c", "NA", "stands for a missing value", "fill in the value"},
		{rec("n", ""), "n", "", "cell is empty (a missing value)", "fill in the value"},
		{rec("g", "-"), "g", "", "is missing: the instance has no value for this feature column", "every feature column"},
		{rec("colour", "red"), "colour", "", `is not a column of the data, whose feature columns are "n", "i", "c", "b", "nb", "g"`, `optionally the target column "t"`},
	}
	for _, tc := range tests {
		x, err := d.EncodeRecord(tc.rec)
		var e *Error
		if x != nil || !errors.As(err, &e) {
			t.Errorf("%v: %v, %v; want an *Error", tc.rec, x, err)
			continue
		}
		if e.Column != tc.column || e.Value != tc.value || !strings.Contains(e.Problem, tc.problem) || !strings.Contains(e.Fix, tc.fixHas) || e.File != "" || e.Line != 0 {
			t.Errorf("%v: %+v; want column %q, value %q, problem %q, fix with %q", tc.rec, e, tc.column, tc.value, tc.problem, tc.fixHas)
		}
	}
	// A data set built by hand, without Columns, has continuous columns.
	h := &Dataset{Features: []string{"a", "b"}, X: [][]float64{{1, 2}, {3, 0.5}}}
	if x, err := h.EncodeRecord(map[string]string{"a": "7", "b": "8"}); err != nil || !slices.Equal(x, []float64{7, 8}) {
		t.Errorf("hand-built: %v, %v", x, err)
	}
	if got := h.Summary(); !slices.Equal(got, []string{"a: continuous, 1 … 3", "b: continuous, 0.5 … 2"}) {
		t.Errorf("hand-built Summary: %q", got)
	}
}
