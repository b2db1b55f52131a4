package pipeline_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
)

// The embedded data's rows are numbered by the lines of data/wbc.csv, the file that is
// embedded: loading that file gives the same numbers.
func TestLinesEmbedded(t *testing.T) {
	embedded, err := pipeline.Lines(data.WBC())
	if err != nil {
		t.Fatal(err)
	}
	file, err := data.Load(filepath.Join("..", "data", "wbc.csv"), data.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	fromFile, err := pipeline.Lines(file)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(embedded, fromFile) || embedded[0] != 2 || embedded[568] != 570 {
		t.Errorf("embedded lines %v…%v differ from data/wbc.csv's", embedded[:3], embedded[len(embedded)-1])
	}
	if got := pipeline.DataFile(data.WBC()); got != "wbc.csv" {
		t.Errorf("DataFile = %q, want wbc.csv", got)
	}
}

// Lines counts physical lines as data.Parse does: blank lines, CRLF endings, a byte-order
// mark and a quoted cell spanning two lines.
func TestLinesOfAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "d.csv")
	text := "\ufeffa,b,y\r\n1,2,0\r\n\r\n3,4,1\r\n  \r\n5,6,\"x\ny\"\r\n7,8,0\r\n"
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ds, err := data.Load(path, data.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []int{2, 4, 6, 8}
	// The lines data.Parse recorded, and those of a data set built without them, read again
	// from its file.
	bare := *ds
	bare.Lines = nil
	for _, d := range []*data.Dataset{ds, &bare} {
		lines, err := pipeline.Lines(d)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(lines, want) {
			t.Errorf("lines %v, want %v", lines, want)
		}
	}
	// A subset keeps its rows' lines.
	if lines, err := pipeline.Lines(ds.Subset([]int{3, 1})); err != nil || !slices.Equal(lines, []int{8, 4}) {
		t.Errorf("subset: lines %v, %v; want [8 4]", lines, err)
	}
	// A file edited after loading: the recorded lines still name the loaded rows, but the
	// file no longer numbers them.
	os.WriteFile(path, []byte("a,b,y\n1,2,0\n3,4,1\n"), 0o644)
	if lines, err := pipeline.Lines(ds); err != nil || !slices.Equal(lines, want) {
		t.Errorf("edited file: lines %v, %v", lines, err)
	}
	if _, err := pipeline.Lines(&bare); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("edited file, no recorded lines: error %v", err)
	}
}

// Instances of mixed data hold the cells as the data file does: categories as text. They are
// encoded as the data's rows are; ignored columns and the target may be present.
func TestReadInstancesMixed(t *testing.T) {
	raw, err := os.ReadFile(filepath.Join("..", "data", "german_credit.csv"))
	if err != nil {
		t.Fatal(err)
	}
	write := fileWriter(t)
	dataPath := write("german.csv", string(raw))
	ds, err := data.Load(dataPath, data.LoadOptions{Ignore: []string{"foreign_worker"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := pipeline.DataFile(data.GermanCredit()); got != "german_credit.csv" {
		t.Errorf("DataFile = %q, want german_credit.csv", got)
	}
	lines := strings.Split(strings.TrimSpace(string(raw)), "\n")
	header := lines[0]
	// columns writes the cells of the CSV lines in the given column order.
	columns := func(order []string, rows ...string) string {
		names := strings.Split(header, ",")
		var b strings.Builder
		b.WriteString(strings.Join(order, ",") + "\n")
		for _, r := range rows {
			cells := strings.Split(r, ",")
			out := make([]string, len(order))
			for k, name := range order {
				out[k] = cells[slices.Index(names, name)]
			}
			b.WriteString(strings.Join(out, ",") + "\n")
		}
		return b.String()
	}
	all := strings.Split(header, ",")
	reversed := slices.Clone(all)
	slices.Reverse(reversed)
	features := slices.DeleteFunc(slices.Clone(all), func(h string) bool { return h == "foreign_worker" || h == "target" })
	for _, tc := range []struct {
		name, text string
		rows       []int // the rows of ds the instances are
	}{
		{"the data's own rows", header + "\n" + lines[1] + "\n" + lines[2] + "\n", []int{0, 1}},
		{"columns reversed", columns(reversed, lines[2]), []int{1}},
		{"features only", columns(features, lines[1]), []int{0}},
		{"ignored and target cells are skipped", header + "\n" + strings.Replace(lines[1], ",yes,yes,0", ",yes,NA,unknown", 1) + "\n", []int{0}},
	} {
		in, err := pipeline.ReadInstances(write("good.csv", tc.text), ds)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		for k, i := range tc.rows {
			if !slices.Equal(in.X[k], ds.X[i]) {
				t.Errorf("%s: instance %d encodes to %v, want row %d's %v", tc.name, k, in.X[k], i, ds.X[i])
			}
			if in.Lines[k] != k+2 {
				t.Errorf("%s: instance %d on line %d, want %d", tc.name, k, in.Lines[k], k+2)
			}
		}
	}
	row := func(old, new string) string { return header + "\n" + strings.Replace(lines[1], old, new, 1) + "\n" }
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"unknown category", row(",own,", ",boat,"), []string{"line 2", `column "housing"`, `value "boat"`,
			`never seen in training data; seen: "for free", "own", "rent"`, "fix: write one of the categories of housing"}},
		{"not an integer", row(",67,", ",67.5,"), []string{"line 2", `column "age"`, `value "67.5"`, "not an integer", "fix:"}},
		{"neither binary value", row(",yes,yes,", ",maybe,yes,"), []string{"line 2", `column "own_telephone"`, `value "maybe"`, `neither of the two values of own_telephone ("none", "yes")`, "fix:"}},
		{"missing category", row(",own,", ",NA,"), []string{"line 2", `column "housing"`, `value "NA"`, "missing", "fix:"}},
		// The row starts on line 2, with a quoted cell that ends on line 3.
		{"a cell after a line break", header + "\n\"" + strings.Replace(strings.Replace(lines[1], ",own,", ",boat,", 1), "<0,", "<0\n\",", 1) + "\n",
			[]string{"line 3", `column "housing"`, `value "boat"`, "never seen"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := pipeline.ReadInstances(write(strings.ReplaceAll(tc.name, " ", "_")+".csv", tc.text), ds)
			var de *data.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *data.Error", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func TestReadInstances(t *testing.T) {
	ds := data.WBC()
	write := fileWriter(t)
	// The features in reverse order, no target, a blank line.
	rev := slices.Clone(ds.Features)
	slices.Reverse(rev)
	row := func(i int, cols []string) string {
		cells := make([]string, len(cols))
		for k, c := range cols {
			cells[k] = strconv.FormatFloat(ds.X[i][slices.Index(ds.Features, c)], 'g', -1, 64)
		}
		return strings.Join(cells, ",")
	}
	good := write("good.csv", strings.Join(rev, ",")+"\n"+row(0, rev)+"\n\n"+row(5, rev)+"\n")
	in, err := pipeline.ReadInstances(good, ds)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(in.Lines, []int{2, 4}) || !slices.Equal(in.X[0], ds.X[0]) || !slices.Equal(in.X[1], ds.X[5]) {
		t.Errorf("lines %v, rows %v %v", in.Lines, in.X[0][:3], in.X[1][:3])
	}
	header := strings.Join(append(slices.Clone(ds.Features), "target"), ",")
	full := row(0, ds.Features)
	for _, tc := range []struct {
		name, text string
		want       []string
	}{
		{"unknown column", header + ",id\n" + full + ",1,7\n", []string{"line 1", `column "id"`, "fix:"}},
		{"missing column", strings.Join(ds.Features[1:], ",") + "\n" + strings.SplitN(full, ",", 2)[1] + "\n", []string{"line 1", `"mean_radius"`, "fix:"}},
		{"wrong count", header + "\n" + full + ",1\n" + full + "\n", []string{"line 3", "30 cells", "31", "fix:"}},
		{"empty cell", header + "\n," + strings.SplitN(full, ",", 2)[1] + ",1\n", []string{"line 2", `column "mean_radius"`, "missing", "fix:"}},
		{"NA", header + "\nNA," + strings.SplitN(full, ",", 2)[1] + ",1\n", []string{"line 2", `value "NA"`, "missing", "fix:"}},
		{"text", header + "\nbig," + strings.SplitN(full, ",", 2)[1] + ",1\n", []string{"line 2", `value "big"`, "not a number", "fix:"}},
		{"no rows", header + "\n", []string{"no instances", "fix:"}},
		{"empty", "", []string{"empty", "fix:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := write(strings.ReplaceAll(tc.name, " ", "_")+".csv", tc.text)
			_, err := pipeline.ReadInstances(p, ds)
			var de *data.Error
			if !errors.As(err, &de) {
				t.Fatalf("error %v is not a *data.Error", err)
			}
			for _, w := range append(tc.want, filepath.Base(p)) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

// fileWriter returns a function that writes a file of the given name and text into a fresh
// temporary folder and returns its path.
func fileWriter(t *testing.T) func(name, text string) string {
	dir := t.TempDir()
	return func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
}
