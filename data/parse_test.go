package data

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// wantErr describes the expected fields of an *Error. Problem is matched
// as a substring; Line, Column and Value exactly.
type wantErr struct {
	line    int
	column  string
	value   string
	problem string
}

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
		{"not a number", "a,b,t\n1,2,0\n1,abc,1\n", LoadOptions{},
			wantErr{line: 3, column: "b", value: "abc", problem: "is not a number"}},
		{"not a number CRLF", "a,b,t\r\n1,2,0\r\n1,2,0\r\nx1,2,1\r\n", LoadOptions{},
			wantErr{line: 4, column: "a", value: "x1", problem: "is not a number"}},
		{"not a number after BOM", "\ufeffa,b,t\n1,?,0\n", LoadOptions{},
			wantErr{line: 2, column: "b", value: "?", problem: "is not a number"}},
		{"decimal comma", "a,b,t\n\"1,5\",2,0\n", LoadOptions{},
			wantErr{line: 2, column: "a", value: "1,5", problem: "decimal comma"}},
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
		{"one class", "a,t\n1,0\n2,0\n3, 0\n", LoadOptions{}, wantErr{column: "t", problem: `only one class ("0")`}},
		{"one class numeric spellings", "a,t\n1,1\n2,1.0\n", LoadOptions{}, wantErr{column: "t", problem: "only one class"}},
		{"three classes", "a,t\n1,x\n2,y\n3,y\n4,z\n5,w\n", LoadOptions{},
			wantErr{line: 5, column: "t", value: "z", problem: `first three values seen: "x", "y", "z"`}},
		{"three numeric classes", "a,t\n1,0\n2,1\n3,2\n", LoadOptions{},
			wantErr{line: 4, column: "t", value: "2", problem: `first three values seen: "0", "1", "2"`}},
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
			wantErr{line: 1, column: "label", problem: `available columns: "a", "b", "t"`}},
		{"no feature columns", "target\n0\n1\n", LoadOptions{}, wantErr{line: 1, column: "target", problem: "no feature columns"}},
		{"no feature columns named target", "y\n0\n1\n", LoadOptions{Target: "y"}, wantErr{line: 1, column: "y", problem: "no feature columns"}},
		{"semicolon separated", "a;b;t\n1;2;0\n", LoadOptions{}, wantErr{line: 1, column: "a;b;t", problem: "no feature columns"}},
		{"bare quote", "a,b,t\n1,2\"3,0\n", LoadOptions{}, wantErr{line: 2, problem: "quote"}},
		{"space after closing quote", "a,b,t\n\"1\" ,2,0\n", LoadOptions{}, wantErr{line: 2, problem: "badly quoted"}},
		{"unterminated quote", "a,b,t\n1,2,0\n1,\"2,0\n3,4,1\n", LoadOptions{}, wantErr{line: 3, problem: "starts on line 3"}},
		{"UTF-16", "\xff\xfea\x00,\x00t\x00\n\x00", LoadOptions{}, wantErr{line: 1, problem: "UTF-16"}},
		{"line after multi-line quoted cell", "a,b,t\n\"1\n\",2,0\n3,x,1\n", LoadOptions{},
			wantErr{line: 4, column: "b", value: "x", problem: "is not a number"}},
		{"cell inside multi-line record", "a,b,t\n\"1\n\",x,0\n", LoadOptions{},
			wantErr{line: 3, column: "b", value: "x", problem: "is not a number"}},
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

func TestParseLongValueClipped(t *testing.T) {
	long := strings.Repeat("x", 1000)
	_, err := Parse(strings.NewReader("a,t\n"+long+",0\n"), "f", LoadOptions{})
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
	if err := os.WriteFile(bad, []byte("a,b,t\n1,2,0\n3,oops,1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Load(bad, LoadOptions{})
	checkErr(t, err, bad, wantErr{line: 3, column: "b", value: "oops", problem: "is not a number"})
}

func TestParseAccepts(t *testing.T) {
	want := &Dataset{
		Name:     "ok.csv",
		Features: []string{"a", "b"},
		X:        [][]float64{{1.5, 2}, {-3, 4e2}, {5, 0.25}},
		Y:        []int{0, 1, 1},
		Labels:   [2]string{"0", "1"},
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
				want.Labels = [2]string{"0.0", "1.0"}
				checkDataset(t, d, &want)
				return
			}
			checkDataset(t, d, want)
		})
	}
}

func checkDataset(t *testing.T, got, want *Dataset) {
	t.Helper()
	if got.Name != want.Name || got.Target != want.Target || got.Labels != want.Labels {
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
	if got.Rows() != len(want.X) || got.NumFeatures() != len(want.Features) {
		t.Errorf("Rows, NumFeatures = %d, %d; want %d, %d", got.Rows(), got.NumFeatures(), len(want.X), len(want.Features))
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
		Labels:   [2]string{"no", "yes"},
		Target:   "label",
	})
	// Default target is the last column; a constant feature is kept.
	_, err = Parse(strings.NewReader(in), "t.csv", LoadOptions{})
	checkErr(t, err, "t.csv", wantErr{line: 2, column: "label", value: "yes", problem: "is not a number"})
	in2 := "a,b,c,label\n1,2,3,yes\n4,5,3,no\n"
	d, err = Parse(strings.NewReader(in2), "t.csv", LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.NumFeatures() != 3 || d.X[0][2] != 3 || d.X[1][2] != 3 {
		t.Errorf("constant feature not kept: %v %v", d.Features, d.X)
	}
}

func TestLabelMapping(t *testing.T) {
	tests := []struct {
		name   string
		labels []string // target cells, in row order
		want   [2]string
		y      []int
	}{
		{"0/1 keeps mapping", []string{"1", "0", "1"}, [2]string{"0", "1"}, []int{1, 0, 1}},
		{"0.0/1.0 keeps mapping", []string{"1.0", "0.0"}, [2]string{"0.0", "1.0"}, []int{1, 0}},
		{"mixed spellings of 0 and 1", []string{"1", "0.0", "1.0", "0"}, [2]string{"0.0", "1"}, []int{1, 0, 1, 0}},
		{"-0 is 0", []string{"1", "-0", "0"}, [2]string{"-0", "1"}, []int{1, 0, 0}},
		{"1/2 sorted numerically", []string{"2", "1", "2"}, [2]string{"1", "2"}, []int{1, 0, 1}},
		{"-1/1", []string{"1", "-1"}, [2]string{"-1", "1"}, []int{1, 0}},
		{"9/10 numeric not lexical", []string{"10", "9"}, [2]string{"9", "10"}, []int{1, 0}},
		{"M/B lexical", []string{"M", "B", "M"}, [2]string{"B", "M"}, []int{1, 0, 1}},
		{"yes/no lexical", []string{"yes", "no"}, [2]string{"no", "yes"}, []int{1, 0}},
		{"number and text lexical", []string{"benign", "1"}, [2]string{"1", "benign"}, []int{1, 0}},
		{"case matters", []string{"b", "B"}, [2]string{"B", "b"}, []int{1, 0}},
		{"quoted and spaced", []string{`" M "`, "B", " M"}, [2]string{"B", "M"}, []int{1, 0, 1}},
		{"already ordered", []string{"a", "b"}, [2]string{"a", "b"}, []int{0, 1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			b.WriteString("x,y\n")
			for i, l := range tc.labels {
				b.WriteString(string(rune('0'+i%10)) + "," + l + "\n")
			}
			d, err := Parse(strings.NewReader(b.String()), "l.csv", LoadOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if d.Labels != tc.want {
				t.Errorf("Labels = %q, want %q", d.Labels, tc.want)
			}
			if !reflect.DeepEqual(d.Y, tc.y) {
				t.Errorf("Y = %v, want %v", d.Y, tc.y)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{File: "data.csv", Line: 7, Column: "mean_radius", Value: "abc", Problem: "is not a number", Fix: "make every feature cell a number (or remove the row)"},
			`data.csv line 7, column "mean_radius": value "abc" is not a number; fix: make every feature cell a number (or remove the row)`},
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
