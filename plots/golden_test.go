package plots

import (
	"bytes"
	"flag"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"gonum.org/v1/plot/cmpimg"
)

var update = flag.Bool("update", false, "draw TestGolden's reference images anew (go test ./plots -run Golden -update)")

// goldenDelta is how far a pixel may be from its reference's, as cmpimg.EqualApprox
// measures it (0 alike, 1 anything), gonum/plot's own tolerance: enough for rounding in the
// rasteriser, too little for a changed colour, a moved line or a different text.
const goldenDelta = 0.01

// goldenFigures are the main figures, each drawn from small hand-made inputs, by the name
// of its reference image in testdata/golden.
func goldenFigures() []struct {
	name string
	draw func(Options) ([]byte, error)
} {
	ex, names := fixture(8, 1, 20)
	many, _ := fixture(8, 6, 20)
	train, labels, paths := mapFixture()
	_, _, options := mapOptionsFixture()
	return []struct {
		name string
		draw func(Options) ([]byte, error)
	}{
		{"attribution", func(o Options) ([]byte, error) { return Attribution(ex, names, o) }},
		{"path", func(o Options) ([]byte, error) { return Path(ex, names, nil, o) }},
		{"map", func(o Options) ([]byte, error) { return Map(train, labels, paths, o) }},
		{"map-options", func(o Options) ([]byte, error) { return Map(train, labels, options, o) }},
		{"paths", func(o Options) ([]byte, error) { return Paths(many, names, o) }},
		{"evaluation", func(o Options) ([]byte, error) { return Evaluation(metricFixture(), nil, o) }},
		{"sweep", func(o Options) ([]byte, error) { return Sweep(sweepFixture(), "λ3", o) }},
		{"population-columns", func(o Options) ([]byte, error) { return RecourseColumns(summaryFixture(), o) }},
		{"population-cost", func(o Options) ([]byte, error) { return RecourseCost(summaryFixture(), "group", o) }},
		{"population-groups", func(o Options) ([]byte, error) { return RecourseGroups(summaryFixture(), "group", o) }},
	}
}

// Each main figure, drawn as PNG, matches its reference image in testdata/golden within
// goldenDelta. A figure that changes on purpose gets a new reference with -update; one
// that differs leaves the picture drawn, and its difference, in a folder the failure names.
func TestGolden(t *testing.T) {
	for _, tc := range goldenFigures() {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.draw(Options{Format: PNG})
			if err != nil {
				t.Fatal(err)
			}
			ref := filepath.Join("testdata", "golden", tc.name+".png")
			if *update {
				if err := os.MkdirAll(filepath.Dir(ref), 0o755); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(ref, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(ref)
			if err != nil {
				t.Fatalf("%v; fix: go test ./plots -run Golden -update draws the reference images", err)
			}
			ok, err := cmpimg.EqualApprox("png", got, want, goldenDelta)
			if err != nil {
				t.Fatal(err)
			}
			if !ok {
				t.Errorf("%s differs from the reference %s%s; if the change is meant, go test ./plots -run Golden -update draws the references anew",
					tc.name, ref, keepMismatch(t, tc.name, got, want))
			}
		})
	}
}

// keepMismatch writes got and its difference from want (cmpimg.Diff) to a new temporary
// folder, which outlives the test, and says where.
func keepMismatch(t *testing.T, name string, got, want []byte) string {
	dir, err := os.MkdirTemp("", "plots-golden-")
	if err != nil {
		return " (the picture drawn could not be kept: " + err.Error() + ")"
	}
	gotPath := filepath.Join(dir, name+".png")
	if err := os.WriteFile(gotPath, got, 0o644); err != nil {
		return " (the picture drawn could not be kept: " + err.Error() + ")"
	}
	out := "; the picture drawn is " + gotPath
	a, errA := png.Decode(bytes.NewReader(got))
	b, errB := png.Decode(bytes.NewReader(want))
	if errA != nil || errB != nil {
		return out
	}
	diff := image.NewRGBA64(a.Bounds().Union(b.Bounds()))
	cmpimg.Diff(diff, a, b)
	var buf bytes.Buffer
	if png.Encode(&buf, diff) == nil && os.WriteFile(filepath.Join(dir, name+"-diff.png"), buf.Bytes(), 0o644) == nil {
		out += " and its difference " + filepath.Join(dir, name+"-diff.png")
	}
	if a.Bounds() != b.Bounds() {
		out += "; the sizes differ: " + a.Bounds().Size().String() + ", the reference " + b.Bounds().Size().String()
	}
	return out
}

// The tolerance catches a change a reader would see: the evaluation with one method in
// another colour is not its reference.
func TestGoldenCatchesAChange(t *testing.T) {
	table := metricFixture()
	table[0].Color = methodStyle("dice-random").Color
	got, err := Evaluation(table, nil, Options{Format: PNG})
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile(filepath.Join("testdata", "golden", "evaluation.png"))
	if err != nil {
		t.Fatalf("%v; fix: go test ./plots -run Golden -update draws the reference images", err)
	}
	if ok, err := cmpimg.EqualApprox("png", got, want, goldenDelta); err != nil || ok {
		t.Errorf("an evaluation with QUCE in DiCE's colour matches the reference (error %v)", err)
	}
}
