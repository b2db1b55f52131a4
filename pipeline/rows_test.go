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
	lines, err := pipeline.Lines(ds)
	if err != nil {
		t.Fatal(err)
	}
	if want := []int{2, 4, 6, 8}; !slices.Equal(lines, want) {
		t.Errorf("lines %v, want %v", lines, want)
	}
	// A file edited after loading no longer numbers the loaded rows.
	os.WriteFile(path, []byte("a,b,y\n1,2,0\n3,4,1\n"), 0o644)
	if _, err := pipeline.Lines(ds); err == nil || !strings.Contains(err.Error(), "changed") {
		t.Errorf("edited file: error %v", err)
	}
}

func TestReadInstances(t *testing.T) {
	ds := data.WBC()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
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
