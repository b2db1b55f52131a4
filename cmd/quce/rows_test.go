package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// quceRun runs the command with the test cache and few steps.
func quceRun(args ...string) (stdout, stderr string, err error) {
	var o, e bytes.Buffer
	if len(args) > 0 && (args[0] == "explain" || args[0] == "eval" || args[0] == "summary") {
		args = append(args, "-steps", "50", "-cache", pipelinetest.CacheDir())
	}
	err = run(context.Background(), args, &o, &e)
	return o.String(), e.String(), err
}

// failsEarly runs the command and checks that it fails with an error holding every one of
// want, before the models are prepared.
func failsEarly(t *testing.T, args, want []string) {
	t.Helper()
	_, stderr, err := quceRun(args...)
	if err == nil {
		t.Fatal("no error")
	}
	for _, w := range want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q lacks %q", err, w)
		}
	}
	if strings.Contains(stderr, "backend:") {
		t.Errorf("the models were prepared before the error:\n%s", stderr)
	}
}

// explainOut is the part of quce explain's JSON these tests read.
type explainOut struct {
	DataFile     string `json:"data_file"`
	InstanceFile string `json:"instance_file"`
	Config       struct {
		Frozen []string `json:"frozen"`
		Rows   []int    `json:"rows"`
		Model  struct {
			Classifier struct {
				Hidden []int `json:"hidden"`
				Epochs int   `json:"epochs"`
			} `json:"classifier"`
		} `json:"model"`
		VAE struct {
			Latent    int `json:"latent"`
			MaxEpochs int `json:"max_epochs"`
		} `json:"vae"`
	} `json:"config"`
	Results []struct {
		File                   string    `json:"file"`
		Line                   int       `json:"line"`
		Split                  string    `json:"split"`
		X                      []float64 `json:"x"`
		XOriginal              []float64 `json:"x_original"`
		Counterfactual         []float64 `json:"counterfactual"`
		CounterfactualOriginal []float64 `json:"counterfactual_original"`
		PathSteps              int       `json:"path_steps"`
		Paths                  int       `json:"paths"`
		ValidPathsCount        *int      `json:"valid_paths_count"`
		Path                   struct {
			Step           []int       `json:"step"`
			Points         [][]float64 `json:"points"`
			PointsOriginal [][]float64 `json:"points_original"`
			Probability    []float64   `json:"probability"`
		} `json:"path"`
	} `json:"results"`
}

// explainJSON runs quce explain with -json and reads the JSON back.
func explainJSON(t *testing.T, args ...string) (explainOut, map[string]any) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "e.json")
	if i := slices.Index(args, "-json"); i >= 0 {
		out = args[i+1]
	} else {
		args = append(args, "-json", out)
	}
	_, stderr, err := quceRun(append([]string{"explain", "-q", "-top", "0"}, args...)...)
	if err != nil {
		t.Fatalf("explain %v: %v\n%s", args, err, stderr)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var doc explainOut
	var raw map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatal(err)
	}
	return doc, raw
}

// wbcLines is data/wbc.csv's lines (lines[0] is line 1, the header).
func wbcLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pipelinetest.Root(), "data", "wbc.csv"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(string(b), "\n")
}

// values are the features of a CSV line of data/wbc.csv (the target is last).
func values(t *testing.T, line string) []float64 {
	t.Helper()
	cells := strings.Split(line, ",")
	out := make([]float64, len(cells)-1)
	for i := range out {
		v, err := strconv.ParseFloat(cells[i], 64)
		if err != nil {
			t.Fatal(err)
		}
		out[i] = v
	}
	return out
}

// splitLines are the lines of data/wbc.csv in the train and test splits (split seed 1).
func splitLines(t *testing.T) (train, test []int) {
	t.Helper()
	tr, te, err := data.Split(data.WBC(), testFraction, 1)
	if err != nil {
		t.Fatal(err)
	}
	for _, i := range tr {
		train = append(train, i+2)
	}
	for _, i := range te {
		test = append(test, i+2)
	}
	return train, test
}

// writeInstances writes rows of data/wbc.csv (by line) as an instance file with the
// feature columns in reverse order, without the target, and a blank line after the first
// row: the instances are then on lines 2, 4, 5, ...
func writeInstances(t *testing.T, lines ...int) string {
	t.Helper()
	all := wbcLines(t)
	header := strings.Split(all[0], ",")
	feats := slices.Clone(header[:len(header)-1])
	slices.Reverse(feats)
	var b strings.Builder
	b.WriteString(strings.Join(feats, ",") + "\n")
	for k, l := range lines {
		cells := strings.Split(all[l-1], ",")
		row := make([]string, len(feats))
		for i, f := range feats {
			row[i] = cells[slices.Index(header, f)]
		}
		b.WriteString(strings.Join(row, ",") + "\n")
		if k == 0 {
			b.WriteString("\n")
		}
	}
	p := filepath.Join(t.TempDir(), "new.csv")
	if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Rows are chosen by their line in the CSV file, and every output names them so; the
// values explained are those on that line.
func TestExplainRows(t *testing.T) {
	train, test := splitLines(t)
	file := wbcLines(t)
	newCSV := writeInstances(t, 10, 20, 30)
	for _, tc := range []struct {
		name      string
		args      []string
		wantLines []int
		wantSplit []string // one per line; nil: any split
		source    []int    // for -instances: the data/wbc.csv line each instance copies
	}{
		{"-rows in any split", []string{"-rows", "3,2,570"}, []int{3, 2, 570}, nil, nil},
		{"-rows in the named split", []string{"-rows", strconv.Itoa(test[3]), "-split", "test"}, []int{test[3]}, []string{"test"}, nil},
		{"-rows with -split all", []string{"-rows", strconv.Itoa(train[0]), "-split", "all"}, []int{train[0]}, []string{"train"}, nil},
		{"-n all", []string{"-n", "all"}, test, nil, nil},
		{"-n of the train split", []string{"-n", "2", "-split", "train"}, train[:2], []string{"train", "train"}, nil},
		{"-n of all rows", []string{"-n", "3", "-split", "all"}, []int{2, 3, 4}, nil, nil},
		{"-instances, every row", []string{"-instances", newCSV}, []int{2, 4, 5}, []string{"instances", "instances", "instances"}, []int{10, 20, 30}},
		{"-instances with -rows", []string{"-instances", newCSV, "-rows", "5,2"}, []int{5, 2}, []string{"instances", "instances"}, []int{30, 10}},
		{"-instances with -n", []string{"-instances", newCSV, "-n", "1"}, []int{2}, []string{"instances"}, []int{10}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc, _ := explainJSON(t, tc.args...)
			var lines []int
			for _, r := range doc.Results {
				lines = append(lines, r.Line)
			}
			if !slices.Equal(lines, tc.wantLines) {
				t.Fatalf("lines %v, want %v", lines, tc.wantLines)
			}
			for i, r := range doc.Results {
				src := r.Line
				if tc.source != nil {
					src = tc.source[i]
					if r.File != newCSV || doc.InstanceFile != newCSV {
						t.Errorf("file %q, instance_file %q; want %q", r.File, doc.InstanceFile, newCSV)
					}
				} else if r.File != "wbc.csv" || doc.DataFile != "wbc.csv" {
					t.Errorf("file %q, data_file %q; want wbc.csv", r.File, doc.DataFile)
				}
				if !slices.Equal(r.XOriginal, values(t, file[src-1])) {
					t.Errorf("line %d: x_original is not the row on line %d of data/wbc.csv", r.Line, src)
				}
				switch {
				case tc.wantSplit != nil && r.Split != tc.wantSplit[i]:
					t.Errorf("line %d: split %q, want %q", r.Line, r.Split, tc.wantSplit[i])
				case tc.source == nil && r.Split != map[bool]string{true: "test", false: "train"}[slices.Contains(test, r.Line)]:
					t.Errorf("line %d: split %q, but that line is in the other split", r.Line, r.Split)
				}
			}
		})
	}
}

// Every mistake in choosing rows fails before the models are loaded, naming the flag, the
// file, the line and column, and the fix.
func TestExplainRowErrors(t *testing.T) {
	train, _ := splitLines(t)
	dir := t.TempDir()
	header := strings.Split(wbcLines(t)[0], ",")
	row := wbcLines(t)[1]
	feats := strings.Join(header[:len(header)-1], ",")
	bad := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	unknown := bad("unknown.csv", strings.Join(header, ",")+",patient_id\n"+row+",17\n")
	missing := bad("missing.csv", strings.Join(header[1:], ",")+"\n"+row[strings.Index(row, ",")+1:]+"\n")
	noTarget := row[:strings.LastIndex(row, ",")]
	count := bad("count.csv", feats+"\n"+noTarget+"\n"+noTarget[strings.Index(noTarget, ",")+1:]+"\n")
	two := writeInstances(t, 10, 20) // lines 2 and 4
	empty := bad("empty.csv", strings.Join(header, ",")+"\n"+row+"\n,"+row[strings.Index(row, ",")+1:]+"\n")
	na := bad("na.csv", strings.Join(header, ",")+"\nNA,"+row[strings.Index(row, ",")+1:]+"\n")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"header line", []string{"-rows", "1"}, []string{"-rows", "line 1 of wbc.csv is the header", "lines 2 to 570", "fix:"}},
		{"past the end", []string{"-rows", "3,571"}, []string{"line 571", "past the last data row", "fix:"}},
		{"negative line", []string{"-rows", "-4"}, []string{"line -4", "fix:"}},
		{"not a number", []string{"-rows", "3,x"}, []string{`-rows "3,x"`, `"x" is not a line number`, "fix:"}},
		{"listed twice", []string{"-rows", "3,3"}, []string{"line 3 is listed twice"}},
		{"line in the other split", []string{"-rows", strconv.Itoa(train[0]), "-split", "test"}, []string{"line " + strconv.Itoa(train[0]), "in the train split", "-split train", "fix:"}},
		{"-n and -rows", []string{"-rows", "3", "-n", "2"}, []string{"-n and -rows", "fix:"}},
		{"-n too large", []string{"-n", "115"}, []string{"-n 115", "only 114 rows", "-n all"}},
		{"-n zero", []string{"-n", "0"}, []string{`-n "0"`, "fix:"}},
		{"-n word", []string{"-n", "some"}, []string{`-n "some"`, "fix:"}},
		{"-split with -instances", []string{"-instances", count, "-split", "test"}, []string{"-split", "-instances", "fix:"}},
		{"instance file missing", []string{"-instances", filepath.Join(dir, "nope.csv")}, []string{"nope.csv", "not found", "fix:"}},
		{"unknown column", []string{"-instances", unknown}, []string{"unknown.csv line 1", `column "patient_id"`, "not a column of wbc.csv", "fix:"}},
		{"missing column", []string{"-instances", missing}, []string{"missing.csv line 1", `"mean_radius"`, "fix:"}},
		{"wrong column count", []string{"-instances", count}, []string{"count.csv line 3", "29 cells", "30", "fix:"}},
		{"empty value", []string{"-instances", empty}, []string{"empty.csv line 3", `column "mean_radius"`, "missing", "fix:"}},
		{"NA value", []string{"-instances", na}, []string{"na.csv line 2", `column "mean_radius"`, `value "NA"`, "missing", "fix:"}},
		{"instance line out of range", []string{"-instances", two, "-rows", "5"}, []string{"line 5 of " + two, "past the last data row", "lines 2 to 4", "fix:"}},
		{"instance line blank", []string{"-instances", two, "-rows", "3"}, []string{"line 3 of " + two, "holds no data row", "fix:"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			failsEarly(t, append([]string{"explain"}, tc.args...), tc.want)
		})
	}
}

// The -csv table, the JSON and the SVG files of one run: contents, names and modes.
func TestExplainOutputs(t *testing.T) {
	dir := t.TempDir()
	jsonPath, csvPath, svgDir := filepath.Join(dir, "e.json"), filepath.Join(dir, "e.csv"), filepath.Join(dir, "svg")
	doc, raw := explainJSON(t, "-n", "2", "-frozen", "mean_radius, worst_area", "-csv", csvPath, "-svg", svgDir, "-json", jsonPath)

	// JSON: one numbering, the path points with their steps, every setting.
	if !slices.Equal(doc.Config.Frozen, []string{"mean_radius", "worst_area"}) {
		t.Errorf("config.frozen = %v", doc.Config.Frozen)
	}
	for _, r := range raw["results"].([]any) {
		for _, gone := range []string{"index", "split_row", "valid_paths"} {
			if _, ok := r.(map[string]any)[gone]; ok {
				t.Errorf("result still has %q", gone)
			}
		}
	}
	for _, r := range doc.Results {
		p := r.Path
		if r.ValidPathsCount == nil || *r.ValidPathsCount < 0 || *r.ValidPathsCount > r.Paths || r.Paths != 1 {
			t.Errorf("line %d: valid_paths_count %v of %d paths", r.Line, r.ValidPathsCount, r.Paths)
		}
		if len(p.Step) < 2 || p.Step[0] != 0 || p.Step[len(p.Step)-1] != r.PathSteps || !slices.IsSorted(p.Step) {
			t.Errorf("line %d: steps %v… of a %d-step path", r.Line, p.Step[:min(3, len(p.Step))], r.PathSteps)
		}
		if len(p.Points) != len(p.Step) || len(p.PointsOriginal) != len(p.Step) || len(p.Probability) != len(p.Step) {
			t.Errorf("line %d: %d steps, %d points, %d original points, %d probabilities", r.Line, len(p.Step), len(p.Points), len(p.PointsOriginal), len(p.Probability))
			continue
		}
		for f, v := range p.Points[0] {
			if v != float64(float32(r.X[f])) { // the path is walked in float32
				t.Errorf("line %d: the path starts at %v, not at x = %v (feature %d)", r.Line, v, r.X[f], f)
				break
			}
		}
		if !slices.Equal(p.Points[len(p.Points)-1], r.Counterfactual) {
			t.Errorf("line %d: the path does not end at the counterfactual", r.Line)
		}
		for f, v := range p.PointsOriginal[0] {
			if d := v - r.XOriginal[f]; abs(d) > 1e-5*(1+abs(v)) {
				t.Errorf("line %d: points_original[0][%d] = %v, x_original %v", r.Line, f, v, r.XOriginal[f])
				break
			}
		}
	}

	// CSV: the header, one row per instance and feature, numbers that parse.
	recs := readRecords(t, csvPath)
	head := recs[0]
	for _, c := range []string{"file", "line", "split", "column", "original", "counterfactual", "attribution",
		"attribution_plus", "attribution_minus", "epsilon", "prob_target_start", "prob_target_end", "valid", "completeness_gap",
		"cf_uncertainty", "path_uncertainty", "path_steps", "valid_paths_count"} {
		if !slices.Contains(head, c) {
			t.Errorf("CSV header lacks %q: %v", c, head)
		}
	}
	features := data.WBC().Features
	if len(recs)-1 != 2*len(features) {
		t.Fatalf("%d CSV rows, want %d (2 instances × %d features)", len(recs)-1, 2*len(features), len(features))
	}
	col := func(rec []string, name string) string { return rec[slices.Index(head, name)] }
	for k, rec := range recs[1:] {
		r := doc.Results[k/len(features)]
		if col(rec, "line") != strconv.Itoa(r.Line) || col(rec, "split") != r.Split || col(rec, "file") != "wbc.csv" ||
			col(rec, "column") != features[k%len(features)] {
			t.Errorf("CSV row %d: %v names another instance or feature than line %d, %s", k+2, rec[:4], r.Line, features[k%len(features)])
		}
		for _, c := range []string{"line", "rank", "original", "counterfactual", "attribution", "attribution_std", "attribution_plus",
			"attribution_minus", "epsilon", "prob_target_start", "prob_target_end", "completeness_gap", "cf_uncertainty",
			"path_uncertainty", "path_steps", "paths", "valid_paths_count"} {
			if _, err := strconv.ParseFloat(col(rec, c), 64); err != nil {
				t.Errorf("CSV row %d, column %s: %q is not a number", k+2, c, col(rec, c))
			}
		}
		if _, err := strconv.ParseBool(col(rec, "valid")); err != nil {
			t.Errorf("CSV row %d: valid %q", k+2, col(rec, "valid"))
		}
		orig, _ := strconv.ParseFloat(col(rec, "original"), 64)
		cf, _ := strconv.ParseFloat(col(rec, "counterfactual"), 64)
		if name := col(rec, "column"); name == "mean_radius" && abs(cf-orig) > 1e-6*abs(orig) { // float32 path
			t.Errorf("line %d: the frozen mean_radius moved from %s to %s", r.Line, col(rec, "original"), col(rec, "counterfactual"))
		}
	}

	// SVG files are named by line; every output is readable by others (0644).
	var want []string
	for _, r := range doc.Results {
		for _, kind := range []string{"attribution", "path", "map"} {
			want = append(want, filepath.Join(svgDir, "line"+strconv.Itoa(r.Line)+"-"+kind+".svg"))
		}
	}
	got, _ := filepath.Glob(filepath.Join(svgDir, "*.svg"))
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("SVG files %v, want %v", got, want)
	}
	for _, p := range append(want, jsonPath, csvPath) {
		st, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if st.Mode().Perm() != 0o644 {
			t.Errorf("%s has mode %v, want 0644", filepath.Base(p), st.Mode().Perm())
		}
	}
}

func abs(v float64) float64 { return max(v, -v) }

// Every output path is checked before any work: a folder named as a file, a file named as
// a folder, a folder that cannot be written, two outputs in one file, an existing file.
func TestOutputPathsCheckedFirst(t *testing.T) {
	dir := t.TempDir()
	folder := filepath.Join(dir, "folder")
	os.Mkdir(folder, 0o755)
	file := filepath.Join(dir, "file.txt")
	os.WriteFile(file, []byte("x"), 0o644)
	readOnly := filepath.Join(dir, "ro")
	os.Mkdir(readOnly, 0o555)
	for _, tc := range []struct {
		name     string
		args     []string
		want     []string
		needUser bool // root can write into a read-only folder, so the case is skipped as root
	}{
		{"-json names a folder", []string{"explain", "-json", folder}, []string{"-json " + folder + " is a folder", "fix:"}, false},
		{"-csv names a folder", []string{"explain", "-csv", folder, "-force"}, []string{"-csv " + folder + " is a folder", "fix:"}, false},
		{"-json inside a file", []string{"explain", "-json", filepath.Join(file, "e.json")}, []string{file + " is a file, not a folder", "fix:"}, false},
		{"-svg names a file", []string{"explain", "-svg", file}, []string{"-svg " + file + " is a file, not a folder", "fix:"}, false},
		{"-json and -csv the same file", []string{"explain", "-json", filepath.Join(dir, "o"), "-csv", filepath.Join(dir, ".", "o")}, []string{"-json " + filepath.Join(dir, "o") + " and -csv", "are the same file", "fix:"}, false},
		{"existing file", []string{"explain", "-csv", file}, []string{"already exists", "-force"}, false},
		{"eval -json names a folder", []string{"eval", "-json", folder}, []string{"-json " + folder + " is a folder"}, false},
		{"-json in a read-only folder", []string{"explain", "-json", filepath.Join(readOnly, "e.json")}, []string{"cannot write in the folder " + readOnly, "fix:"}, true},
		{"-svg under a read-only folder", []string{"explain", "-svg", filepath.Join(readOnly, "svg", "x")}, []string{"cannot write in the folder " + readOnly}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.needUser && os.Geteuid() == 0 {
				t.Skip("running as root, which can write into a read-only folder")
			}
			failsEarly(t, tc.args, tc.want)
		})
	}
	if entries, _ := os.ReadDir(readOnly); len(entries) != 0 {
		t.Errorf("the read-only folder holds %v", entries)
	}
}

// -hidden, -epochs, -latent and -vae-epochs shape the models and are recorded in the JSON.
func TestModelSizeFlags(t *testing.T) {
	doc, _ := explainJSON(t, "-no-cache", "-hidden", "8,4", "-epochs", "2", "-latent", "3", "-vae-epochs", "2", "-n", "1")
	c := doc.Config
	if !slices.Equal(c.Model.Classifier.Hidden, []int{8, 4}) || c.Model.Classifier.Epochs != 2 || c.VAE.Latent != 3 || c.VAE.MaxEpochs != 2 {
		t.Errorf("config: classifier %+v, vae %+v", c.Model.Classifier, c.VAE)
	}
}

// With -class, -n N explains N rows that need recourse: rows the model already predicts as
// the class are skipped (and said to be), and asking for more rows than need it is an error
// with the number there are.
func TestNCountsRowsThatNeedRecourse(t *testing.T) {
	_, raw := explainJSON(t, "-n", "3", "-class", "malignant")
	results, _ := raw["results"].([]any)
	if len(results) != 3 {
		t.Fatalf("%d results, want 3", len(results))
	}
	for _, r := range results {
		if r := r.(map[string]any); r["already_target"] != false {
			t.Errorf("line %v is already malignant: it needs no recourse", r["line"])
		}
	}
	_, stderr, err := quceRun("explain", "-n", "3", "-class", "malignant", "-top", "0")
	if err != nil || !strings.Contains(stderr, "-class malignant: skipped") {
		t.Errorf("error %v; stderr lacks the skipped rows:\n%s", err, stderr)
	}
	_, _, err = quceRun("explain", "-n", "100", "-class", "malignant", "-q")
	if err == nil || !strings.Contains(err.Error(), "need recourse") || !strings.Contains(err.Error(), "fix: use -n") {
		t.Errorf("-n 100 of the test split's rows needing recourse: %v; want an error with the number and the fix", err)
	}
}
