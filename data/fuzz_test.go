package data

import (
	"bytes"
	"errors"
	"math"
	"slices"
	"strings"
	"testing"
)

// FuzzParse checks that Parse never panics, that every failure is an
// *Error, and that every success is a well-formed data set.
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
		f.Add([]byte(s), "")
	}
	f.Add([]byte("a,label,b\n1,p,2\n3,q,4\n"), "label")
	f.Add(wbcCSV[:2000], "")
	f.Fuzz(func(t *testing.T, in []byte, target string) {
		d, err := Parse(bytes.NewReader(in), "fuzz.csv", LoadOptions{Target: target})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v (%T) is not an *Error", err, err)
			}
			if d != nil {
				t.Fatalf("data set returned with error %v", err)
			}
			if e.Problem == "" || e.Fix == "" || e.Line < 0 {
				t.Fatalf("incomplete error %+v", e)
			}
			_ = err.Error()
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
	})
}
