package data

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// A split column says train or test in any case, is not a feature, and is by default not
// the target even as the last column.
func TestSplitColumn(t *testing.T) {
	csv := "a,b,y,fold\n1,2,p,train\n3,4,q,Test\n\n5,6,p,TRAIN\n7,8,q,train\n9,1,p,test\n"
	d, err := Parse(strings.NewReader(csv), "f.csv", LoadOptions{SplitColumn: "fold"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Target != "y" || !reflect.DeepEqual(d.Features, []string{"a", "b"}) || !reflect.DeepEqual(d.Ignored, []string{"fold"}) {
		t.Errorf("target %q, features %v, ignored %v; want y, [a b], [fold]", d.Target, d.Features, d.Ignored)
	}
	want := &Partition{By: `the column "fold"`, Train: []int{0, 2, 3}, Test: []int{1, 4}}
	if !reflect.DeepEqual(d.Split, want) {
		t.Errorf("split %+v, want %+v", d.Split, want)
	}
	if d.Files != nil {
		t.Errorf("Files %v for one file, want nil", d.Files)
	}
	if s := d.Subset([]int{0, 1}); s.Split != nil {
		t.Errorf("a Subset kept the split %+v", s.Split)
	}
	plain, err := Parse(strings.NewReader(csv), "f.csv", LoadOptions{Target: "y", Ignore: []string{"fold"}})
	if err != nil || plain.Split != nil {
		t.Errorf("without SplitColumn: split %+v, err %v; want none", plain.Split, err)
	}
}

func TestSplitColumnErrors(t *testing.T) {
	if _, err := Embedded("wbc", LoadOptions{SplitColumn: "fold"}); err == nil || !strings.Contains(err.Error(), "LoadOptions.SplitColumn names a column that is not in the header") {
		t.Errorf("a split column of the embedded data: %v", err)
	}
	for _, c := range []struct {
		name, csv string
		opts      LoadOptions
		want      []string
	}{
		{"other value", "a,y,fold\n1,p,train\n2,q,test\n3,p,valid\n", LoadOptions{SplitColumn: "fold"},
			[]string{`f.csv line 4, column "fold": value "valid" is not a split`, "write train or test"}},
		{"empty cell", "a,y,fold\n1,p,train\n2,q,\n", LoadOptions{SplitColumn: "fold"},
			[]string{`f.csv line 3, column "fold": is not a split`}},
		{"not a column", "a,y,fold\n1,p,train\n", LoadOptions{SplitColumn: "folds"},
			[]string{`column "folds": LoadOptions.SplitColumn names a column that is not in the header`}},
		{"the target", "a,y,fold\n1,p,train\n", LoadOptions{SplitColumn: "y", Target: "y"},
			[]string{`LoadOptions.SplitColumn names the target column`}},
		{"typed", "a,y,fold\n1,p,train\n", LoadOptions{SplitColumn: "fold", Target: "y", Types: map[string]TypeSpec{"fold": {Type: Categorical}}},
			[]string{`is the split column (LoadOptions.SplitColumn) but given the type categorical`}},
		{"no test row", "a,y,fold\n1,p,train\n2,q,train\n", LoadOptions{SplitColumn: "fold"},
			[]string{`gives 2 training rows and 0 test rows`}},
		{"class not trained", "a,y,fold\n1,p,train\n2,q,test\n3,p,test\n", LoadOptions{SplitColumn: "fold"},
			[]string{`column "y": class "q" has no row in the training split (the column "fold")`}},
	} {
		_, err := Parse(strings.NewReader(c.csv), "f.csv", c.opts)
		var e *Error
		if !errors.As(err, &e) {
			t.Errorf("%s: err %v, want a *data.Error", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", c.name, err, w)
			}
		}
	}
}

// writeFiles writes CSV files into a temporary folder and returns their paths.
func writeFiles(t *testing.T, texts ...string) []string {
	dir := t.TempDir()
	var paths []string
	for i, s := range texts {
		p := filepath.Join(dir, string(rune('a'+i))+".csv")
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	return paths
}

// Two files are one data set, split by file, whose rows keep their own file's lines; types
// are detected over both (a level only in the test file is a level).
func TestLoadSplit(t *testing.T) {
	p := writeFiles(t, "c,a,y\nu,1,p\nv,2,q\n", "\ufeffc,a,y\n\nw,3,p\nu,4,q\n")
	d, err := LoadSplit(p[0], p[1], LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := p[0] + " + " + p[1]; d.Name != want {
		t.Errorf("Name %q, want %q", d.Name, want)
	}
	if !reflect.DeepEqual(d.Lines, []int{2, 3, 3, 4}) || !reflect.DeepEqual(d.Files, []string{p[0], p[0], p[1], p[1]}) {
		t.Errorf("lines %v of files %v", d.Lines, d.Files)
	}
	if !reflect.DeepEqual(d.Split.Train, []int{0, 1}) || !reflect.DeepEqual(d.Split.Test, []int{2, 3}) {
		t.Errorf("split %+v", d.Split)
	}
	if !reflect.DeepEqual(d.Features, []string{"c=u", "c=v", "c=w", "a"}) {
		t.Errorf("features %v, want the levels of both files", d.Features)
	}
	one, err := Load(p[0], LoadOptions{})
	if err != nil || one.Checksum == d.Checksum {
		t.Errorf("the train file alone has the checksum of both (%v)", err)
	}
	if s := d.Subset([]int{3}); !reflect.DeepEqual(s.Files, []string{p[1]}) {
		t.Errorf("Subset's Files %v", s.Files)
	}
}

func TestLoadSplitErrors(t *testing.T) {
	good := "a,y\n1,p\n2,q\n"
	for _, c := range []struct {
		name, train, test string
		opts              LoadOptions
		want              string
	}{
		{"other header", good, "a,z\n1,p\n", LoadOptions{}, `b.csv line 1: the header "a", "z" is not the header of`},
		{"empty test", good, "", LoadOptions{}, `b.csv: file is empty`},
		{"test header only", good, "a,y\n", LoadOptions{}, `gives 2 training rows and 0 test rows`},
		{"bad cell in test", good, "a,y\n\n1,p\nx,q\n", LoadOptions{Types: map[string]TypeSpec{"a": {Type: Continuous}}}, `b.csv line 4, column "a"`},
		{"ragged test row", good, "a,y\n1,p,3\n", LoadOptions{}, `b.csv line 2: row has 3 cells`},
		{"with a split column", good, good, LoadOptions{SplitColumn: "a"}, `LoadOptions.SplitColumn and data.LoadSplit both give the split`},
	} {
		p := writeFiles(t, c.train, c.test)
		_, err := LoadSplit(p[0], p[1], c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
	if _, err := LoadSplit("/no/such/file.csv", "x.csv", LoadOptions{}); err == nil || !strings.Contains(err.Error(), "/no/such/file.csv: file not found") {
		t.Errorf("missing file: %v", err)
	}
}

func TestPartitionCheck(t *testing.T) {
	d := &Dataset{Name: "d", Target: "y", X: make([][]float64, 4), Y: []int{0, 1, 0, 1}, Labels: []string{"p", "q"}}
	for _, c := range []struct {
		name        string
		train, test []int
		want        string // "" for no error
	}{
		{"good", []int{0, 1}, []int{2, 3}, ""},
		{"no test rows of a class", []int{0, 1, 3}, []int{2}, ""},
		{"out of range", []int{0, 1}, []int{2, 4}, "names row index 4"},
		{"twice", []int{0, 1, 2}, []int{2, 3}, "names row index 2"},
		{"a row left out", []int{0, 1}, []int{2}, "puts 3 of the 4 rows in a split"},
		{"no training row of a class", []int{0, 2}, []int{1, 3}, `class "q" has no row in the training split`},
	} {
		err := (&Partition{By: "hand", Train: c.train, Test: c.test}).Check(d)
		if (err == nil) != (c.want == "") || err != nil && !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: err %v, want %q", c.name, err, c.want)
		}
	}
}

func TestPartitionKey(t *testing.T) {
	a := &Partition{Train: []int{0, 1}, Test: []int{2, 3}}
	for _, b := range []*Partition{{Train: []int{0, 2}, Test: []int{1, 3}}, {Train: []int{0, 1, 2}, Test: []int{3}}} {
		if a.Key() == b.Key() {
			t.Errorf("splits %+v and %+v share the key %s", a, b, a.Key())
		}
	}
	if same := (&Partition{By: "other", Train: []int{0, 1}, Test: []int{2, 3}}); same.Key() != a.Key() {
		t.Errorf("the same rows give keys %s and %s", same.Key(), a.Key())
	}
}
