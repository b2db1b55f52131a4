package data

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// wantErr describes the expected fields of an *Error. Problem and fix are
// matched as substrings (an empty fix only requires some fix); Line,
// Column and Value exactly.
type wantErr struct {
	line    int
	column  string
	value   string
	problem string
	fix     string
}

// flagName matches a flag of the quce command that sets a LoadOptions field, which the
// package's messages name by the field instead (the command names it by its flag).
var flagName = regexp.MustCompile(`(^|[^\w-])-(target|types|ignore|drop-missing|data)\b`)

func checkErr(t *testing.T, err error, file string, w wantErr) {
	t.Helper()
	if err == nil {
		t.Fatalf("got no error, want %+v", w)
	}
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("error %v (%T) is not an *Error", err, err)
	}
	if e.File != file {
		t.Errorf("File = %q, want %q", e.File, file)
	}
	if e.Line != w.line {
		t.Errorf("Line = %d, want %d (%v)", e.Line, w.line, err)
	}
	if e.Column != w.column {
		t.Errorf("Column = %q, want %q (%v)", e.Column, w.column, err)
	}
	if e.Value != w.value {
		t.Errorf("Value = %q, want %q (%v)", e.Value, w.value, err)
	}
	if !strings.Contains(e.Problem, w.problem) {
		t.Errorf("Problem = %q, want it to contain %q", e.Problem, w.problem)
	}
	if e.Fix == "" {
		t.Errorf("Fix is empty (%v)", err)
	}
	if !strings.Contains(e.Fix, w.fix) {
		t.Errorf("Fix = %q, want it to contain %q", e.Fix, w.fix)
	}
	if flagName.MatchString(e.Fix) {
		t.Errorf("Fix = %q names a flag of the quce command; a caller of the package sets LoadOptions' fields", e.Fix)
	}
	if !strings.Contains(err.Error(), "fix: ") {
		t.Errorf("message %q has no fix", err.Error())
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		opts LoadOptions
		want wantErr
	}{
		{"empty file", "", LoadOptions{}, wantErr{problem: "file is empty"}},
		{"only blank lines", "\n\r\n   \n\n", LoadOptions{}, wantErr{problem: "file is empty"}},
		{"only BOM", "\ufeff", LoadOptions{}, wantErr{problem: "file is empty"}},
		{"header only", "a,b,target\n", LoadOptions{}, wantErr{problem: "no data rows"}},
		{"header only CRLF and blank lines", "a,b,target\r\n\r\n\r\n", LoadOptions{}, wantErr{problem: "no data rows"}},
		{"ragged short row", "a,b,t\n1,2,0\n1,2\n", LoadOptions{},
			wantErr{line: 3, problem: "row has 2 cells but the header has 3"}},
		{"ragged long row after blank line", "a,b,t\n1,2,0\n\n1,2,3,4\n", LoadOptions{},
			wantErr{line: 4, problem: "row has 4 cells but the header has 3"}},
		{"not a number", "a,b,t\n1,2,0\n1,abc,1\n", continuous("b"),
			wantErr{line: 3, column: "b", value: "abc", problem: "is not a number", fix: "LoadOptions.Types b=categorical"}},
		{"not a number CRLF", "a,b,t\r\n1,2,0\r\n1,2,0\r\nx1,2,1\r\n", continuous("a"),
			wantErr{line: 4, column: "a", value: "x1", problem: "is not a number"}},
		{"missing after BOM", "\ufeffa,b,t\n1,?,0\n", LoadOptions{},
			wantErr{line: 2, column: "b", value: "?", problem: "stands for a missing value", fix: "LoadOptions.DropMissing"}},
		{"decimal comma", "a,b,t\n\"1,5\",2,0\n", LoadOptions{},
			wantErr{line: 2, column: "a", value: "1,5", problem: "decimal comma"}},
		{"decimal comma among numbers", "a,b,t\n1,2,0\n2,3,1\n\"2,5\",2,0\n\"3,5\",2,0\n", LoadOptions{},
			wantErr{line: 4, column: "a", value: "2,5", problem: "decimal comma"}},
		{"decimal comma declared continuous", "a,b,t\n1,2,0\n\"2,5\",3,1\n", continuous("a"),
			wantErr{line: 3, column: "a", value: "2,5", problem: "decimal comma"}},
		{"nan", "a,b,t\n1,nan,0\n", LoadOptions{}, wantErr{line: 2, column: "b", value: "nan", problem: "not a finite number"}},
		{"NaN", "a,b,t\n1,NaN,0\n", LoadOptions{}, wantErr{line: 2, column: "b", value: "NaN", problem: "not a finite number"}},
		{"inf", "a,b,t\ninf,1,0\n", LoadOptions{}, wantErr{line: 2, column: "a", value: "inf", problem: "not a finite number"}},
		{"+Inf", "a,b,t\n1,2,0\n+Inf,1,0\n", LoadOptions{}, wantErr{line: 3, column: "a", value: "+Inf", problem: "not a finite number"}},
		{"-Infinity", "a,b,t\n1,-Infinity,0\n", LoadOptions{}, wantErr{line: 2, column: "b", value: "-Infinity", problem: "not a finite number"}},
		{"quoted NaN with spaces", "a,b,t\n1,\" NaN \",0\n", LoadOptions{}, wantErr{line: 2, column: "b", value: "NaN", problem: "not a finite number"}},
		{"out of range", "a,b,t\n1,1e400,0\n", LoadOptions{}, wantErr{line: 2, column: "b", value: "1e400", problem: "out of range"}},
		{"empty feature cell", "a,b,t\n1,,0\n", LoadOptions{}, wantErr{line: 2, column: "b", problem: "cell is empty"}},
		{"blank feature cell", "a,b,t\n1,2,0\n   ,2,1\n", LoadOptions{}, wantErr{line: 3, column: "a", problem: "cell is empty"}},
		{"empty quoted cell", "a,b,t\n1,\"\",1\n", LoadOptions{}, wantErr{line: 2, column: "b", problem: "cell is empty"}},
		{"empty target cell", "a,b,t\n1,2,0\n1,2,\n", LoadOptions{}, wantErr{line: 3, column: "t", problem: "cell is empty"}},
		{"one class", "a,t\n1,0\n2,0\n3, 0\n", LoadOptions{},
			wantErr{column: "t", problem: `only one class ("0")`, fix: "LoadOptions.Target NAME"}},
		{"one class numeric spellings", "a,t\n1,1\n2,1.0\n", LoadOptions{}, wantErr{column: "t", problem: "only one class"}},
		{"one text class", "a,t\n1,setosa\n2,setosa\n", LoadOptions{},
			wantErr{column: "t", problem: `only one class ("setosa")`, fix: "LoadOptions.Target NAME"}},
		{"51 numeric classes (continuous column)", targetCSV(numbered(0, 51, 0.5)), LoadOptions{},
			wantErr{line: 52, column: "t", value: "25", problem: `distinct value number 51 in the target column (first seen: "0", "0.5", "1", ...), all numbers; at most 20 classes written as numbers`, fix: "group the values into at most 20 classes"}},
		{"51 text classes", targetCSV(append(numberedText(50), "c1", "new")), LoadOptions{},
			wantErr{line: 53, column: "t", value: "new", problem: "at most 50 classes", fix: "LoadOptions.Target NAME"}},
		{"many classes, error at the 51st", targetCSV(numbered(0, 1000, 1)), LoadOptions{},
			wantErr{line: 52, column: "t", value: "50", problem: "distinct value number 51", fix: "LoadOptions.Target NAME"}},
		{"duplicate column", "a,b,a,t\n1,2,3,0\n", LoadOptions{},
			wantErr{line: 1, column: "a", problem: "more than once (columns 1 and 3)"}},
		{"duplicate column after trimming", " a , b,a ,t\n", LoadOptions{},
			wantErr{line: 1, column: "a", problem: "more than once (columns 1 and 3)"}},
		{"duplicate target name", "a,t,t\n1,0,0\n", LoadOptions{},
			wantErr{line: 1, column: "t", problem: "more than once (columns 2 and 3)"}},
		{"header after blank lines", "\n\na,a,t\n", LoadOptions{},
			wantErr{line: 3, column: "a", problem: "more than once"}},
		{"empty column name", "a,,t\n1,2,0\n", LoadOptions{}, wantErr{line: 1, problem: "header column 2 has no name"}},
		{"unknown target", "a,b,t\n1,2,0\n", LoadOptions{Target: "label"},
			wantErr{line: 1, column: "label", problem: `available columns: "a", "b", "t"`, fix: "LoadOptions.Target NAME"}},
		{"no feature columns", "target\n0\n1\n", LoadOptions{}, wantErr{line: 1, column: "target", problem: "no feature columns"}},
		{"no feature columns named target", "y\n0\n1\n", LoadOptions{Target: "y"}, wantErr{line: 1, column: "y", problem: "no feature columns"}},
		{"semicolon separated", "a;b;t\n1;2;0\n", LoadOptions{}, wantErr{line: 1, column: "a;b;t", problem: "no feature columns"}},
		{"bare quote", "a,b,t\n1,2\"3,0\n", LoadOptions{}, wantErr{line: 2, problem: "quote"}},
		{"space after closing quote", "a,b,t\n\"1\" ,2,0\n", LoadOptions{}, wantErr{line: 2, problem: "badly quoted"}},
		{"unterminated quote", "a,b,t\n1,2,0\n1,\"2,0\n3,4,1\n", LoadOptions{}, wantErr{line: 3, problem: "starts on line 3"}},
		{"UTF-16", "\xff\xfea\x00,\x00t\x00\n\x00", LoadOptions{}, wantErr{line: 1, problem: "UTF-16"}},
		{"line after multi-line quoted cell", "a,b,t\n\"1\n\",2,0\n3,x,1\n", continuous("b"),
			wantErr{line: 4, column: "b", value: "x", problem: "is not a number"}},
		{"cell inside multi-line record", "a,b,t\n\"1\n\",x,0\n", continuous("b"),
			wantErr{line: 3, column: "b", value: "x", problem: "is not a number"}},
		{"missing cell inside multi-line record", "a,b,t\n\"1\n\",NA,0\n", LoadOptions{},
			wantErr{line: 3, column: "b", value: "NA", problem: "missing value"}},

		// Numbers the models cannot hold: they compute in float32.
		{"beyond float32", "a,b,t\n1,2,0\n1,1e300,1\n", LoadOptions{},
			wantErr{line: 3, column: "b", value: "1e300", problem: "beyond the range of float32", fix: "LoadOptions.Ignore b"}},
		{"beyond float32, negative", "a,b,t\n-3.5e38,2,0\n", LoadOptions{},
			wantErr{line: 2, column: "a", value: "-3.5e38", problem: "beyond the range of float32", fix: "rescale"}},
		{"beyond float32 declared continuous", "a,b,t\n1,2,0\n1,4e38,1\n", continuous("b"),
			wantErr{line: 3, column: "b", value: "4e38", problem: "beyond the range of float32"}},
		{"beyond float32 declared binary", "a,b,t\n1,0,0\n1,1e300,1\n", types("b", Binary),
			wantErr{line: 3, column: "b", value: "1e300", problem: "beyond the range of float32"}},

		// Bytes that are not UTF-8 (a Latin-1 file): refused, not read as U+FFFD.
		{"Latin-1 cell", "a,city,t\n1,Berlin,0\n2,M\xfcnchen,1\n", LoadOptions{},
			wantErr{line: 3, column: "city", value: "M\xfcnchen", problem: "is not UTF-8 text (byte 0xFC at byte 2)", fix: "iconv -f latin1 -t utf-8"}},
		{"Latin-1 header", "a,St\xe4dt,t\n1,x,0\n", LoadOptions{},
			wantErr{line: 1, value: "St\xe4dt", problem: "in header column 2 is not UTF-8 text", fix: "iconv"}},
		{"Latin-1 target", "a,t\n1,ja\n2,nein\n3,s\xfc\n", LoadOptions{},
			wantErr{line: 4, column: "t", value: "s\xfc", problem: "is not UTF-8 text", fix: "UTF-8"}},

		// A numeric target with many distinct values is a measurement, not classes.
		{"numeric target of 45 values", ageCSV(120), LoadOptions{Target: "age"},
			wantErr{column: "age", problem: "the target column holds 45 distinct numbers (from 18 to 62) in 120 rows, so it looks like a measurement", fix: "LoadOptions.Target NAME"}},
		{"21 numeric classes", targetCSV(numbered(0, 21, 1)), LoadOptions{},
			wantErr{column: "t", problem: "21 distinct numbers", fix: "at most 20 classes"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(strings.NewReader(tc.in), "test.csv", tc.opts)
			if d != nil {
				t.Errorf("got a data set with an error")
			}
			checkErr(t, err, "test.csv", tc.want)
		})
	}
}

// ageCSV returns a CSV of rows people: x, their age (18 to 62 in turn) and a yes/no label.
func ageCSV(rows int) string {
	var b strings.Builder
	b.WriteString("x,age,label\n")
	for i := range rows {
		fmt.Fprintf(&b, "%d,%d,%s\n", i%7, 18+i%45, []string{"no", "yes"}[i%2])
	}
	return b.String()
}

// Text that is not UTF-8 in a column that is ignored is not read, and so not refused.
func TestParseIgnoredColumnNotUTF8(t *testing.T) {
	d, err := Parse(strings.NewReader("a,note,t\n1,gr\xfcn,0\n2,x,1\n"), "n.csv", LoadOptions{Ignore: []string{"note"}})
	if err != nil || d.Rows() != 2 {
		t.Fatalf("%v", err)
	}
}

// A categorical column with one value in every row carries nothing and would be a one-hot
// block of one input that cannot move: it is left out, and said so.
func TestParseConstantTextColumn(t *testing.T) {
	d, err := Parse(strings.NewReader("a,country,id,t\n1.5,x,1,0\n2,x,2,1\n3,x,3,0\n"), "k.csv", LoadOptions{Ignore: []string{"id"}})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(d.Constant, []string{"country"}) || !slices.Equal(d.Ignored, []string{"id", "country"}) || !slices.Equal(d.Features, []string{"a"}) {
		t.Errorf("Constant %q, Ignored %q, Features %q", d.Constant, d.Ignored, d.Features)
	}
	if got := d.Summary(); !slices.Contains(got, "country: ignored (one value in every row)") {
		t.Errorf("Summary %q", got)
	}
	if s := d.Subset([]int{1}); !slices.Equal(s.Constant, d.Constant) {
		t.Errorf("Subset drops Constant: %q", s.Constant)
	}
	// An instance may hold the column, which is skipped like any ignored one.
	if x, err := d.EncodeRecord(map[string]string{"a": "2", "country": "y"}); err != nil || !slices.Equal(x, []float64{2}) {
		t.Errorf("EncodeRecord: %v, %v", x, err)
	}
	// With no other feature column, nothing is left to explain.
	_, err = Parse(strings.NewReader("country,t\nx,0\nx,1\n"), "k.csv", LoadOptions{})
	checkErr(t, err, "k.csv", wantErr{problem: `no feature column is left: the ones not ignored hold one value in every row ("country")`, fix: "differ"})
}

// continuous declares the columns continuous, so that text in them is an
// error.
func continuous(names ...string) LoadOptions {
	o := LoadOptions{Types: map[string]TypeSpec{}}
	for _, n := range names {
		o.Types[n] = TypeSpec{Type: Continuous}
	}
	return o
}

func TestParseLongValueClipped(t *testing.T) {
	long := strings.Repeat("x", 1000)
	_, err := Parse(strings.NewReader("a,t\n"+long+",0\n"), "f", continuous("a"))
	var e *Error
	if !errors.As(err, &e) {
		t.Fatalf("got %v, want *Error", err)
	}
	if len(e.Value) > maxValueLen+3 || !strings.HasSuffix(e.Value, "...") {
		t.Errorf("Value not clipped: %d bytes", len(e.Value))
	}
}

func TestLoadErrors(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.csv")
	_, err := Load(missing, LoadOptions{})
	checkErr(t, err, missing, wantErr{problem: "file not found"})
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(err, fs.ErrNotExist) = false for %v", err)
	}

	_, err = Load("", LoadOptions{})
	checkErr(t, err, "", wantErr{problem: "no file path"})

	_, err = Load(dir, LoadOptions{})
	checkErr(t, err, dir, wantErr{problem: "directory"})

	bad := filepath.Join(dir, "bad.csv")
	if err := os.WriteFile(bad, []byte("a,b,t\n1,2,0\n3,NA,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad, LoadOptions{})
	checkErr(t, err, bad, wantErr{line: 3, column: "b", value: "NA", problem: "missing value", fix: "LoadOptions.DropMissing"})
}

func TestParseAccepts(t *testing.T) {
	want := &Dataset{
		Name:     "ok.csv",
		Features: []string{"a", "b"},
		X:        [][]float64{{1.5, 2}, {-3, 4e2}, {5, 0.25}},
		Y:        []int{0, 1, 1},
		Labels:   []string{"0", "1"},
		Target:   "target",
	}
	tests := []struct {
		name string
		in   string
	}{
		{"plain", "a,b,target\n1.5,2,0\n-3,4e2,1\n5,0.25,1\n"},
		{"no final newline", "a,b,target\n1.5,2,0\n-3,4e2,1\n5,0.25,1"},
		{"trailing empty line", "a,b,target\n1.5,2,0\n-3,4e2,1\n5,0.25,1\n\n"},
		{"trailing spaces line", "a,b,target\n1.5,2,0\n-3,4e2,1\n5,0.25,1\n   \n"},
		{"blank lines in between", "\na,b,target\n\n1.5,2,0\n\n-3,4e2,1\n5,0.25,1\n"},
		{"BOM", "\ufeffa,b,target\n1.5,2,0\n-3,4e2,1\n5,0.25,1\n"},
		{"CRLF", "a,b,target\r\n1.5,2,0\r\n-3,4e2,1\r\n5,0.25,1\r\n\r\n"},
		{"BOM and CRLF", "\ufeffa,b,target\r\n1.5,2,0\r\n-3,4e2,1\r\n5,0.25,1\r\n"},
		{"quoted", "\"a\",\"b\",\"target\"\n\"1.5\",\"2\",\"0\"\n\"-3\",\"4e2\",\"1\"\n\"5\",\"0.25\",\"1\"\n"},
		{"spaces", " a , b ,target \n 1.5 ,2,  0\n-3 , 4e2 , 1 \n\t5,0.25\t,1\n"},
		{"spaces around quotes", "a, \"b\",target\n \"1.5\", \"2\",0\n-3, \" 4e2 \",1\n5,0.25,\" 1\"\n"},
		{"numeric label spellings", "a,b,target\n1.5,2,0.0\n-3,4e2,1.0\n5,0.25,1\n"},
		{"plus sign and leading zeros", "a,b,target\n+1.5,02,0\n-3,400.000,1\n5,.25,1\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(strings.NewReader(tc.in), "ok.csv", LoadOptions{})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			sum := sha256.Sum256([]byte(tc.in))
			if d.Checksum != hex.EncodeToString(sum[:]) {
				t.Errorf("Checksum = %s, want sha256 of the input", d.Checksum)
			}
			if tc.name == "numeric label spellings" {
				want := *want
				want.Labels = []string{"0.0", "1.0"}
				checkDataset(t, d, &want)
				return
			}
			checkDataset(t, d, want)
		})
	}
}

func checkDataset(t *testing.T, got, want *Dataset) {
	t.Helper()
	if got.Name != want.Name || got.Target != want.Target || !slices.Equal(got.Labels, want.Labels) {
		t.Errorf("Name, Target, Labels = %q, %q, %q; want %q, %q, %q",
			got.Name, got.Target, got.Labels, want.Name, want.Target, want.Labels)
	}
	if !reflect.DeepEqual(got.Features, want.Features) {
		t.Errorf("Features = %q, want %q", got.Features, want.Features)
	}
	if !reflect.DeepEqual(got.X, want.X) {
		t.Errorf("X = %v, want %v", got.X, want.X)
	}
	if !reflect.DeepEqual(got.Y, want.Y) {
		t.Errorf("Y = %v, want %v", got.Y, want.Y)
	}
	if got.Rows() != len(want.X) || got.NumFeatures() != len(want.Features) || got.NumClasses() != len(want.Labels) {
		t.Errorf("Rows, NumFeatures, NumClasses = %d, %d, %d; want %d, %d, %d",
			got.Rows(), got.NumFeatures(), got.NumClasses(), len(want.X), len(want.Features), len(want.Labels))
	}
}

func TestParseTargetOption(t *testing.T) {
	in := "a,label,b,c\n1,yes,2,3\n4,no,5,5\n7,yes,8,5\n"
	d, err := Parse(strings.NewReader(in), "t.csv", LoadOptions{Target: "label"})
	if err != nil {
		t.Fatal(err)
	}
	checkDataset(t, d, &Dataset{
		Name:     "t.csv",
		Features: []string{"a", "b", "c"},
		X:        [][]float64{{1, 2, 3}, {4, 5, 5}, {7, 8, 5}},
		Y:        []int{1, 0, 1},
		Labels:   []string{"no", "yes"},
		Target:   "label",
	})
	// Default target is the last column; then label is a feature, a
	// binary one of text (no = 0, yes = 1).
	d, err = Parse(strings.NewReader(in), "t.csv", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if col, _ := d.Column("label"); col.Type != Binary || !reflect.DeepEqual(d.X, [][]float64{{1, 1, 2}, {4, 0, 5}, {7, 1, 8}}) {
		t.Errorf("label as a feature: %+v, X = %v", col, d.X)
	}
	// A constant feature is kept.
	in2 := "a,b,c,label\n1,2,3,yes\n4,5,3,no\n"
	d, err = Parse(strings.NewReader(in2), "t.csv", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.NumFeatures() != 3 || d.X[0][2] != 3 || d.X[1][2] != 3 {
		t.Errorf("constant feature not kept: %v %v", d.Features, d.X)
	}
}

// targetCSV returns a CSV with one feature column x and a target column t
// holding labels, one row each.
func targetCSV(labels []string) string {
	var b strings.Builder
	b.WriteString("x,t\n")
	for i, l := range labels {
		b.WriteString(strconv.Itoa(i%10) + "," + l + "\n")
	}
	return b.String()
}

// numbered returns n numbers from start in steps of step, as text.
func numbered(start float64, n int, step float64) []string {
	v := make([]string, n)
	for i := range v {
		v[i] = strconv.FormatFloat(start+float64(i)*step, 'g', -1, 64)
	}
	return v
}

// numberedText returns "c0", "c1", ..., "c<n-1>".
func numberedText(n int) []string {
	v := make([]string, n)
	for i := range v {
		v[i] = "c" + strconv.Itoa(i)
	}
	return v
}

func TestLabelMapping(t *testing.T) {
	desc20 := numbered(19, 20, -1) // "19", "18", ..., "0"
	y20 := make([]int, 20)
	for i := range y20 {
		y20[i] = 19 - i
	}
	tests := []struct {
		name   string
		labels []string // target cells, in row order
		want   []string
		y      []int
	}{
		// Two classes: the mapping this package has always used.
		{"0/1 keeps mapping", []string{"1", "0", "1"}, []string{"0", "1"}, []int{1, 0, 1}},
		{"0.0/1.0 keeps mapping", []string{"1.0", "0.0"}, []string{"0.0", "1.0"}, []int{1, 0}},
		{"mixed spellings of 0 and 1", []string{"1", "0.0", "1.0", "0"}, []string{"0.0", "1"}, []int{1, 0, 1, 0}},
		{"-0 is 0", []string{"1", "-0", "0"}, []string{"-0", "1"}, []int{1, 0, 0}},
		{"1/2 sorted numerically", []string{"2", "1", "2"}, []string{"1", "2"}, []int{1, 0, 1}},
		{"-1/1", []string{"1", "-1"}, []string{"-1", "1"}, []int{1, 0}},
		{"9/10 numeric not lexical", []string{"10", "9"}, []string{"9", "10"}, []int{1, 0}},
		{"M/B lexical", []string{"M", "B", "M"}, []string{"B", "M"}, []int{1, 0, 1}},
		{"yes/no lexical", []string{"yes", "no"}, []string{"no", "yes"}, []int{1, 0}},
		{"number and text lexical", []string{"benign", "1"}, []string{"1", "benign"}, []int{1, 0}},
		{"case matters", []string{"b", "B"}, []string{"B", "b"}, []int{1, 0}},
		{"quoted and spaced", []string{`" M "`, "B", " M"}, []string{"B", "M"}, []int{1, 0, 1}},
		{"already ordered", []string{"a", "b"}, []string{"a", "b"}, []int{0, 1}},

		// More classes: the same rule, generalised.
		{"three text classes", []string{"x", "y", "y", "z"}, []string{"x", "y", "z"}, []int{0, 1, 1, 2}},
		{"four text classes sorted", []string{"x", "y", "y", "z", "w"}, []string{"w", "x", "y", "z"}, []int{1, 2, 2, 3, 0}},
		{"iris species sorted", []string{"virginica", "setosa", "versicolor", "setosa"},
			[]string{"setosa", "versicolor", "virginica"}, []int{2, 0, 1, 0}},
		{"0/1/2 keeps numbers", []string{"2", "0", "1", "0"}, []string{"0", "1", "2"}, []int{2, 0, 1, 0}},
		{"numeric by value, 10 after 9", []string{"10", "9", "2", "100", "9"}, []string{"2", "9", "10", "100"}, []int{2, 1, 0, 3, 1}},
		{"negative and decimal numbers", []string{"-1", "0.5", "-2.5", "1e1"}, []string{"-2.5", "-1", "0.5", "1e1"}, []int{1, 2, 0, 3}},
		{"numeric spellings of three classes", []string{"2", "1.0", "0", "1", "2.0", "0.0"},
			[]string{"0", "1.0", "2"}, []int{2, 1, 0, 1, 2, 0}},
		{"numbers and text lexical", []string{"a", "9", "10"}, []string{"10", "9", "a"}, []int{2, 1, 0}},
		{"text case and spaces", []string{"b", " B", `"a"`, "b "}, []string{"B", "a", "b"}, []int{2, 0, 1, 2}},
		{"20 numeric classes accepted", desc20, numbered(0, 20, 1), y20},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			d, err := Parse(strings.NewReader(targetCSV(tc.labels)), "l.csv", LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(d.Labels, tc.want) {
				t.Errorf("Labels = %q, want %q", d.Labels, tc.want)
			}
			if d.NumClasses() != len(tc.want) {
				t.Errorf("NumClasses = %d, want %d", d.NumClasses(), len(tc.want))
			}
			if !reflect.DeepEqual(d.Y, tc.y) {
				t.Errorf("Y = %v, want %v", d.Y, tc.y)
			}
		})
	}
}

// irisLike returns an Iris-shaped CSV: the header of Iris, 50 rows of each
// species, interleaved with virginica first so that first appearance and
// class order differ.
func irisLike() string {
	var b strings.Builder
	b.WriteString("sepal_length,sepal_width,petal_length,petal_width,species\r\n")
	species := []string{"virginica", "setosa", "versicolor"}
	for i := range 150 {
		k := float64(i % 50)
		fmt.Fprintf(&b, "%.1f,%.1f,%.1f,%.1f,%s\r\n", 4.3+k/20, 2+k/25, 1+k/10, 0.1+k/20, species[i%3])
	}
	return b.String()
}

func TestParseIris(t *testing.T) {
	type source struct {
		name string
		load func() (*Dataset, error)
	}
	sources := []source{
		{"inline", func() (*Dataset, error) {
			return Parse(strings.NewReader(irisLike()), "iris.csv", LoadOptions{Target: "species"})
		}},
	}
	// The shared copy of the real data set, where this checkout has it.
	const shared = "/work/shared/data/iris.csv"
	if _, err := os.Stat(shared); err == nil {
		sources = append(sources, source{"shared file", func() (*Dataset, error) {
			return Load(shared, LoadOptions{Target: "species"})
		}})
	}
	for _, src := range sources {
		t.Run(src.name, func(t *testing.T) {
			d, err := src.load()
			if err != nil {
				t.Fatal(err)
			}
			if want := []string{"setosa", "versicolor", "virginica"}; !slices.Equal(d.Labels, want) || d.NumClasses() != 3 {
				t.Errorf("Labels = %q (%d classes), want %q", d.Labels, d.NumClasses(), want)
			}
			if d.Rows() != 150 || d.NumFeatures() != 4 || d.Target != "species" {
				t.Errorf("got %dx%d, target %q; want 150x4, target species", d.Rows(), d.NumFeatures(), d.Target)
			}
			var count [3]int
			for i, y := range d.Y {
				if y < 0 || y >= 3 {
					t.Fatalf("row %d has class %d", i, y)
				}
				count[y]++
			}
			if count != [3]int{50, 50, 50} {
				t.Errorf("rows per class = %v, want 50 each", count)
			}
			// A stratified split keeps every class in both parts.
			train, test, err := Split(d, 0.2, 1)
			if err != nil {
				t.Fatal(err)
			}
			if len(train) != 120 || len(test) != 30 {
				t.Errorf("split %d/%d, want 120/30", len(train), len(test))
			}
			var inTest [3]int
			for _, i := range test {
				inTest[d.Y[i]]++
			}
			if inTest != [3]int{10, 10, 10} {
				t.Errorf("test rows per class = %v, want 10 each", inTest)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{File: "data.csv", Line: 7, Column: "mean_radius", Value: "abc", Problem: "is not a number", Fix: "correct the cell"},
			`data.csv line 7, column "mean_radius": value "abc" is not a number; fix: correct the cell`},
		{Error{File: "data.csv", Problem: "file is empty", Fix: "add rows"}, "data.csv: file is empty; fix: add rows"},
		{Error{Line: 3, Problem: "row has 2 cells but the header has 3"}, "line 3: row has 2 cells but the header has 3"},
		{Error{Column: "t", Problem: "bad"}, `column "t": bad`},
		{Error{Problem: "bad"}, "bad"},
		{Error{File: "f", Line: 2, Column: "b", Problem: "cell is empty", Fix: "fill it"}, `f line 2, column "b": cell is empty; fix: fill it`},
		{Error{File: "f", Value: "a\"b"}, `f: value "a\"b" invalid data`},
	}
	for _, tc := range tests {
		if got := tc.e.Error(); got != tc.want {
			t.Errorf("Error() = %q\nwant      %q", got, tc.want)
		}
	}
	inner := errors.New("inner")
	if e := (&Error{err: inner}); !errors.Is(e, inner) {
		t.Errorf("Unwrap does not expose the inner error")
	}
}
