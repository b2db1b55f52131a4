package data

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// FuzzParse checks that ParseTypes and Parse never panic, that every
// failure is an *Error, and that every success is a well-formed data set
// whose columns decode and encode their own rows.
func FuzzParse(f *testing.F) {
	seeds := []string{
		"a,b,target\n1.5,2,0\n-3,4e2,1\n",
		"\ufeffa,b,t\r\n1,2,0\r\n3,4,1\r\n\r\n",
		"\"a\",\"b\",t\n\"1.5\", \" 2 \",yes\n3,4,no\n",
		"a,t\n1,0\n2,0\n",
		"a,t\n1,x\n2,y\n3,z\n",
		"a,t\n1,10\n2,9\n3,9.0\n4,2\n",
		"a,t\n1,setosa\n2,virginica\n3,versicolor\n4,setosa\n",
		"a,a,t\n1,2,0\n",
		"a,b,t\n1,nan,0\n",
		"a,b,t\n1,2\n",
		"a,,t\n",
		"t\n0\n1\n",
		"a,b,t\n\"1\n\",2,0\n3,4,1\n",
		"a,b,t\n1,2\"3,0\n",
		"a,b,t\n1,\"2,0\n",
		"a,t\n1,1\n2,1.0\n3,-0\n",
		"\xff\xfea\x00",
		"",
		"\n\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s), "", "", false)
	}
	f.Add([]byte("a,label,b\n1,p,2\n3,q,4\n"), "label", "", false)
	f.Add(wbcCSV[:2000], "", "", false)
	f.Add(germanCSV[:3000], "", "employment=ordinal:unemployed < <1 < 1<=X<4 < 4<=X<7 < >=7,duration=continuous", false)
	f.Add([]byte("id,c,n,t\n1,x,1.5,0\n2,NA,2,1\n3,y,?,0\n4,x,3,1\n"), "", "id=ignore,c=categorical", true)
	f.Add([]byte("g,b,t\nlow,1,0\nhigh,2,1\nmid,1,0\n"), "", `g=ordinal:low<"mid"<high,b=binary`, false)
	f.Add([]byte("a,t\n1,0\n2,1\nx,0\n\"1,5\",1\n"), "", "a=integer", false)
	f.Fuzz(func(t *testing.T, in []byte, target, typeSpec string, dropMissing bool) {
		isError := func(err error) {
			t.Helper()
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if e.Problem == "" || e.Fix == "" || e.Line < 0 {
				t.Fatalf("incomplete error %+v", e)
			}
			_ = err.Error()
		}
		types, err := ParseTypes(typeSpec)
		if err != nil {
			isError(err)
		}
		d, err := Parse(bytes.NewReader(in), "fuzz.csv", LoadOptions{Target: target, Types: types, DropMissing: dropMissing})
		if err != nil {
			isError(err)
			if d != nil {
				t.Fatalf("data set returned with error %v", err)
			}
			return
		}
		if d.Rows() == 0 || d.NumFeatures() == 0 || len(d.Y) != d.Rows() {
			t.Fatalf("bad shape: %d rows, %d features, %d labels", d.Rows(), d.NumFeatures(), len(d.Y))
		}
		nc := d.NumClasses()
		if nc < 2 || nc > MaxClasses || nc != len(d.Labels) {
			t.Fatalf("%d classes, labels %q", nc, d.Labels)
		}
		for c, l := range d.Labels {
			if l == "" || slices.Contains(d.Labels[:c], l) {
				t.Fatalf("bad labels %q", d.Labels)
			}
		}
		if tt := strings.TrimSpace(target); tt != "" && d.Target != tt {
			t.Fatalf("Target = %q, want %q", d.Target, target)
		}
		seen := make([]bool, nc)
		for i, row := range d.X {
			if len(row) != d.NumFeatures() {
				t.Fatalf("row %d has %d values, want %d", i, len(row), d.NumFeatures())
			}
			for _, v := range row {
				if math.IsNaN(v) || math.IsInf(v, 0) {
					t.Fatalf("row %d has %v", i, v)
				}
			}
			if y := d.Y[i]; y < 0 || y >= nc {
				t.Fatalf("row %d label %d", i, y)
			} else {
				seen[y] = true
			}
		}
		if slices.Contains(seen, false) {
			t.Fatalf("a class has no rows: seen %v", seen)
		}
		if len(d.Checksum) != 64 {
			t.Fatalf("checksum %q", d.Checksum)
		}
		if len(d.Lines) != d.Rows() || !slices.IsSorted(d.Lines) || d.Lines[0] < 2 || d.Dropped < 0 {
			t.Fatalf("lines %v, dropped %d", d.Lines, d.Dropped)
		}
		checkColumns(t, d)
	})
}

// checkColumns checks that d's columns cover its inputs in order, and that
// every row decodes to cells (Format, Value) that encode back to the row
// (up to Format's 6 digits for continuous columns).
func checkColumns(t *testing.T, d *Dataset) {
	start := 0
	for _, c := range d.Columns {
		if c.Start != start || c.Width < 1 || c.Type == Ignored || c.Type == Categorical && c.Width != len(c.Levels) ||
			c.Type != Categorical && c.Width != 1 || !(c.Min <= c.Max) {
			t.Fatalf("column %+v after %d inputs", c, start)
		}
		start += c.Width
	}
	if start != d.NumFeatures() {
		t.Fatalf("columns cover %d of %d inputs", start, d.NumFeatures())
	}
	for i, x := range d.X {
		values := map[string]string{}
		for _, c := range d.Columns {
			values[c.Name] = c.Format(x)
			if _, err := json.Marshal(c.Value(x)); err != nil {
				t.Fatalf("row %d, %s: Value %v: %v", i, c.Name, c.Value(x), err)
			}
		}
		back, err := d.EncodeRecord(values)
		if err != nil {
			t.Fatalf("row %d: %v does not encode: %v", i, values, err)
		}
		for _, c := range d.Columns {
			for j := c.Start; j < c.Start+c.Width; j++ {
				if c.Type == Continuous && math.Abs(back[j]-x[j]) <= 1e-5*math.Abs(x[j]) {
					continue
				}
				if back[j] != x[j] {
					t.Fatalf("row %d, %s: %v decodes to %q, which encodes to %v", i, d.Features[j], x[j], values[c.Name], back[j])
				}
			}
		}
	}
}
