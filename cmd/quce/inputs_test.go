package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// inputCSV writes a CSV of 120 rows to dir/name: two measurements a and b, the text column
// country ("x" in every row), an age from 18 to 62 and a yes/no label; change edits row i
// (0-based) as written.
func inputCSV(t *testing.T, dir, name string, change func(i int, row []string)) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("a,b,country,age,label\n")
	for i := range 120 {
		a, c := float64(i%11)/10-0.5, float64(i%7)/7-0.4
		row := []string{fmt.Sprint(a), fmt.Sprint(c), "x", fmt.Sprint(18 + i%45), []string{"no", "yes"}[map[bool]int{false: 0, true: 1}[a+c > 0]]}
		if change != nil {
			change(i, row)
		}
		b.WriteString(strings.Join(row, ",") + "\n")
	}
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// A text column with one value in every row is left out with a note, in the log and the
// JSON, rather than failing inside the VAE (it did: "vae: categorical block 0 ... has
// fewer than 2 columns").
func TestConstantTextColumn(t *testing.T) {
	dir := t.TempDir()
	p := inputCSV(t, dir, "people.csv", nil)
	out := filepath.Join(dir, "e.json")
	_, stderr, err := quceRun("explain", "-data", p, "-n", "1", "-epochs", "3", "-vae-epochs", "3", "-json", out)
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if !strings.Contains(stderr, `note: column "country" holds one value in every row`) || !strings.Contains(stderr, "-ignore country") {
		t.Errorf("no note of the left-out column:\n%s", stderr)
	}
	var doc struct {
		Dataset struct {
			ConstantColumns []string `json:"constant_columns"`
		}
		Features []string
	}
	b, _ := os.ReadFile(out)
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(doc.Dataset.ConstantColumns, []string{"country"}) || slices.Contains(doc.Features, "country=x") {
		t.Errorf("JSON: constant columns %q, features %q", doc.Dataset.ConstantColumns, doc.Features)
	}
}

// Inputs that were accepted and gave wrong results are refused before any model is
// trained, naming the file, line, column and value, and the fix.
func TestBadInputsRefusedFirst(t *testing.T) {
	dir := t.TempDir()
	people := inputCSV(t, dir, "people.csv", nil)
	huge := inputCSV(t, dir, "huge.csv", func(i int, row []string) {
		if i == 5 {
			row[1] = "1e300"
		}
	})
	latin1 := inputCSV(t, dir, "latin1.csv", func(i int, row []string) {
		if i == 3 {
			row[2] = "M\xfcnchen"
		}
	})
	single := inputCSV(t, dir, "single.csv", func(i int, row []string) {
		if i == 7 {
			row[4] = "maybe"
		}
	})
	instances := filepath.Join(dir, "new.csv")
	os.WriteFile(instances, []byte("a,b,age\n0.1,1e39,30\n"), 0o644)
	latin1Header := filepath.Join(dir, "new-latin1.csv")
	os.WriteFile(latin1Header, []byte("a,b,\xe2ge\n0.1,0.2,30\n"), 0o644)
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"numeric target of many values", []string{"explain", "-data", people, "-target", "age"},
			[]string{`people.csv, column "age": the target column holds 45 distinct numbers (from 18 to 62) in 120 rows`, "fix: choose the class column with -target NAME"}},
		{"beyond float32", []string{"explain", "-data", huge},
			[]string{`huge.csv line 7, column "b": value "1e300" is beyond the range of float32`, "fix: rescale"}},
		{"not UTF-8", []string{"explain", "-data", latin1},
			[]string{`latin1.csv line 5, column "country": value "M\xfcnchen" is not UTF-8 text`, "iconv -f latin1 -t utf-8"}},
		{"a class of one row", []string{"explain", "-data", single},
			[]string{`single.csv line 9, column "label": class "maybe" (line 9) has a single row`, "fix: remove the row"}},
		{"eval, a class of one row", []string{"eval", "-data", single},
			[]string{`class "maybe" (line 9) has a single row`}},
		{"an instance beyond float32", []string{"explain", "-data", people, "-instances", instances},
			[]string{`new.csv line 2, column "b": value "1e39" is beyond the range of float32`}},
		{"an instance file not UTF-8", []string{"explain", "-data", people, "-instances", latin1Header},
			[]string{`new-latin1.csv line 1: value "\xe2ge" in header column 3 is not UTF-8 text`, "iconv"}},
	} {
		t.Run(tc.name, func(t *testing.T) { failsEarly(t, tc.args, tc.want) })
	}
}
