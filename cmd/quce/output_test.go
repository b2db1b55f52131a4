package main

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// entries lists the names in dir, sorted.
func entries(t *testing.T, dir string) []string {
	t.Helper()
	list, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range list {
		names = append(names, e.Name())
	}
	return names
}

// -json - and -csv - write to standard output, and the text report goes to standard error
// so that it does not corrupt them; no file named "-" appears.
func TestOutputsToStandardOutput(t *testing.T) {
	cache, err := filepath.Abs(pipelinetest.CacheDir()) // found from the working folder, which changes
	if err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	quceRun := func(args ...string) (string, string, error) {
		var o, e bytes.Buffer
		err := run(context.Background(), append(args, "-steps", "50", "-cache", cache), &o, &e)
		return o.String(), e.String(), err
	}
	stdout, stderr, err := quceRun("explain", "-n", "1", "-json", "-")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	var doc map[string]any
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("standard output is not JSON: %v\n%.200s", err, stdout)
	}
	if !strings.Contains(stderr, "predicted") || !strings.Contains(stderr, "wrote standard output") {
		t.Errorf("the report is not on standard error:\n%s", stderr)
	}

	stdout, stderr, err = quceRun("explain", "-n", "1", "-csv", "-")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	recs, err := csv.NewReader(strings.NewReader(stdout)).ReadAll()
	if err != nil || len(recs) != 31 || recs[0][0] != "file" {
		t.Errorf("standard output is not the CSV table (%v): %d records", err, len(recs))
	}
	if !strings.Contains(stderr, "predicted") {
		t.Errorf("the report is not on standard error:\n%s", stderr)
	}
	if names := entries(t, "."); len(names) != 0 {
		t.Errorf("the working folder holds %v", names)
	}

	stdout, stderr, err = quceRun("eval", "-n", "1", "-methods", "quce", "-splits", "test", "-json", "-")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("eval: standard output is not JSON: %v\n%.200s", err, stdout)
	}
	if !strings.Contains(stderr, "Validity") {
		t.Errorf("eval: the tables are not on standard error:\n%s", stderr)
	}
}

// A path that is the file standard output already is (/dev/stdout, here a link to this
// process's descriptor of it) is written as standard output: the link stays a link, and the
// file gets the JSON alone, not the JSON after the report.
func TestOutputToStandardOutputsFile(t *testing.T) {
	dir := t.TempDir()
	out, err := os.Create(filepath.Join(dir, "out.json"))
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	link := filepath.Join(dir, "stdout")
	if err := os.Symlink("/proc/self/fd/"+strconv.Itoa(int(out.Fd())), link); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(link); err != nil {
		t.Skip("no /proc:", err)
	}
	var stderr bytes.Buffer
	args := []string{"explain", "-n", "1", "-steps", "50", "-cache", pipelinetest.CacheDir(), "-json", link}
	if err := run(context.Background(), args, out, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	if st, err := os.Lstat(link); err != nil || st.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("%s is no longer a link: %v", link, err)
	}
	b, _ := os.ReadFile(out.Name())
	var doc map[string]any
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Errorf("the file is not JSON alone: %v\n%.200s", err, b)
	}
}

// Outputs that cannot be written safely, or that collide, are refused before any work:
// one file named twice (also through "./" or a link), -json X -svg X, a file a picture
// would overwrite (even with -force), standard output named twice, a folder as a stream, a
// link that leads nowhere. Nothing is written.
func TestOutputCollisionsRefusedFirst(t *testing.T) {
	dir := t.TempDir()
	svg := filepath.Join(dir, "svg")
	os.Mkdir(svg, 0o755)
	os.Symlink("svg", filepath.Join(dir, "alias"))
	os.WriteFile(filepath.Join(dir, "a.json"), []byte("mine"), 0o644)
	os.Symlink("a.json", filepath.Join(dir, "a-link.json"))
	os.Symlink(filepath.Join(dir, "nowhere", "x.json"), filepath.Join(dir, "dangling.json"))
	before := entries(t, dir)
	x := filepath.Join(dir, "X")
	for _, tc := range []struct {
		name string
		args []string
		want []string
	}{
		{"-json X -svg X", []string{"explain", "-json", x, "-svg", x},
			[]string{"-json " + x + " is the -svg folder " + x, "fix:"}},
		{"-json a folder above -svg", []string{"explain", "-json", dir + "/out", "-svg", dir + "/out/svg"},
			[]string{"is the -svg folder", "or a folder above it"}},
		{"-json a picture", []string{"explain", "-rows", "3", "-json", filepath.Join(svg, "line3-map.svg"), "-svg", svg, "-force"},
			[]string{"-json " + filepath.Join(svg, "line3-map.svg") + " and -svg " + filepath.Join(svg, "line3-map.svg") + " are the same file", "fix: give the -json file a name no picture has"}},
		{"-csv a picture through a link", []string{"explain", "-rows", "3", "-csv", filepath.Join(dir, "alias", "line3-path.svg"), "-svg", svg, "-force"},
			[]string{"-csv " + filepath.Join(dir, "alias", "line3-path.svg") + " and -svg", "are the same file"}},
		{"-json and -csv through a link", []string{"explain", "-json", filepath.Join(dir, "a.json"), "-csv", filepath.Join(dir, "a-link.json"), "-force"},
			[]string{"-json " + filepath.Join(dir, "a.json") + " and -csv " + filepath.Join(dir, "a-link.json") + " are the same file"}},
		{"-json and -csv through ./", []string{"explain", "-json", filepath.Join(dir, "b.json"), "-csv", dir + "/./svg/../b.json"},
			[]string{"are the same file"}},
		{"eval -json the picture", []string{"eval", "-json", filepath.Join(svg, "evaluation.svg"), "-svg", svg, "-force"},
			[]string{"are the same file"}},
		{"standard output twice", []string{"explain", "-json", "-", "-csv", "-"},
			[]string{"-json and -csv both write to standard output", "fix:"}},
		{"-svg -", []string{"explain", "-svg", "-"}, []string{"-svg -: the pictures are files in a folder", "fix:"}},
		{"a link to nowhere", []string{"explain", "-json", filepath.Join(dir, "dangling.json")},
			[]string{"is a symbolic link to " + filepath.Join(dir, "nowhere", "x.json"), "fix:"}},
		{"a link to an existing file needs -force", []string{"explain", "-json", filepath.Join(dir, "a-link.json")},
			[]string{"(a link to " + filepath.Join(dir, "a.json") + ") already exists", "-force"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			failsEarly(t, tc.args, tc.want)
			if got := entries(t, dir); !slices.Equal(got, before) {
				t.Errorf("the folder holds %v, not %v", got, before)
			}
			if got := entries(t, svg); len(got) != 0 {
				t.Errorf("the -svg folder holds %v", got)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.json")); string(b) != "mine" {
		t.Errorf("the user's file holds %q", b)
	}
}

// Writing through a link writes the file it leads to, and a device is written in place:
// neither is replaced.
func TestOutputsThroughLinksAndDevices(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "results", "e.json")
	os.Mkdir(filepath.Dir(target), 0o755)
	os.WriteFile(target, []byte("old"), 0o644)
	link := filepath.Join(dir, "e.json")
	os.Symlink(target, link)
	nullLink := filepath.Join(dir, "null.csv")
	os.Symlink("/dev/null", nullLink)
	_, stderr, err := quceRun("explain", "-n", "1", "-json", link, "-csv", nullLink, "-force")
	if err != nil {
		t.Fatalf("%v\n%s", err, stderr)
	}
	for _, l := range []string{link, nullLink} {
		if st, err := os.Lstat(l); err != nil || st.Mode()&fs.ModeSymlink == 0 {
			t.Errorf("%s is no longer a link: %v", l, err)
		}
	}
	if st, err := os.Stat("/dev/null"); err != nil || st.Mode()&fs.ModeCharDevice == 0 {
		t.Errorf("/dev/null is no longer a device: %v", err)
	}
	var doc map[string]any
	if b, _ := os.ReadFile(target); json.Unmarshal(b, &doc) != nil {
		t.Errorf("the link's file holds %.100q", b)
	}
	if got := entries(t, filepath.Dir(target)); !slices.Equal(got, []string{"e.json"}) {
		t.Errorf("the link's folder holds %v", got)
	}
}

// A run that fails while writing (here a full disk: /dev/full) leaves no file of this run,
// and the file -force would have replaced is as it was.
func TestFailedWriteLeavesNothing(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	dir := t.TempDir()
	kept := filepath.Join(dir, "e.json")
	os.WriteFile(kept, []byte("the user's results"), 0o644)
	_, stderr, err := quceRun("explain", "-n", "2", "-json", kept, "-svg", filepath.Join(dir, "svg"), "-csv", "/dev/full", "-force")
	if err == nil || !strings.Contains(err.Error(), "/dev/full") || !strings.Contains(err.Error(), "no space left") {
		t.Fatalf("error %v; want no space left on /dev/full\n%s", err, stderr)
	}
	if !strings.Contains(err.Error(), "no output file of this run was left") || !strings.Contains(err.Error(), "fix: free space") {
		t.Errorf("error %v does not say that nothing was left, or the fix", err)
	}
	if got := entries(t, dir); !slices.Equal(got, []string{"e.json"}) {
		t.Errorf("the folder holds %v", got)
	}
	if b, _ := os.ReadFile(kept); string(b) != "the user's results" {
		t.Errorf("the user's file holds %.100q", b)
	}
}
