package gonbext_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	gonbext "github.com/quce-go/quce/gonb_ext"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// Prepare paces the garbage collector as the command does (pipeline.PaceGC), so that a
// notebook's one-row explanations run at the command's speed.
func TestPreparePacesTheCollector(t *testing.T) {
	defer debug.SetMemoryLimit(debug.SetMemoryLimit(-1))
	defer debug.SetGCPercent(debug.SetGCPercent(100))
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	t.Setenv("QUCE_OUTPUT_DIR", t.TempDir())
	if _, err := gonbext.Prepare(pipeline.Options{SplitSeed: 1, CacheDir: pipelinetest.CacheDir()}); err != nil {
		t.Fatal(err)
	}
	if got := debug.SetGCPercent(100); got != pipeline.GCPercent {
		t.Errorf("collector at %d%% after Prepare; want %d%%", got, pipeline.GCPercent)
	}
}

// Outside a notebook the helpers display nothing, write HTML files when QUCE_OUTPUT_DIR is
// set, and never crash; Tune says it needs a notebook.
func TestOutsideNotebook(t *testing.T) {
	s, dir := preparedOutside(t)
	cfg := quce.DefaultConfig()
	cfg.Steps = 200
	ex, err := gonbext.Explain(s, cfg, s.XTest[:2])
	if err != nil {
		t.Fatal(err)
	}
	for name, show := range map[string]func() error{
		"explanation": func() error { return gonbext.ShowExplanation(s, ex[0]) },
		"table":       func() error { return gonbext.ShowTable(s, ex) },
		"map":         func() error { return gonbext.ShowMap(s, ex[0]) },
		"sweep":       func() error { return gonbext.ShowSweep(s, cfg, s.XTest[:2], "lambda3", []float64{0, 0.1}) },
	} {
		if err := show(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
	files, _ := filepath.Glob(filepath.Join(dir, "*.html"))
	if len(files) != 5 { // prepare + the four above
		t.Errorf("%d output files, want 5: %v", len(files), files)
	}
	for _, f := range files {
		b, _ := os.ReadFile(f)
		if strings.Contains(f, "explanation") && strings.Count(string(b), "<svg") != 2 {
			t.Errorf("%s: want 2 SVGs (Figure 1 and the path)", f)
		}
	}
	// Automatic λ: the bound from s.WithPlausibility, and the front of the candidates.
	auto := cfg
	auto.Auto = quce.DefaultAuto()
	if auto, err = s.WithPlausibility(auto, quce.DefaultPlausibilityQuantile); err != nil {
		t.Fatal(err)
	}
	aex, err := gonbext.Explain(s, auto, s.XTest[:1])
	if err != nil {
		t.Fatal(err)
	}
	if err := gonbext.ShowFront(s, aex[0]); err != nil {
		t.Fatal(err)
	}
	fronts, _ := filepath.Glob(filepath.Join(dir, "*front*.html"))
	if len(fronts) != 1 {
		t.Fatalf("front files %v, want one", fronts)
	}
	if b, _ := os.ReadFile(fronts[0]); !strings.Contains(string(b), "<svg") || !strings.Contains(string(b), "plausibility bound") {
		t.Errorf("%s holds no front plot", fronts[0])
	}
	if err := gonbext.ShowFront(s, ex[0]); err == nil || !strings.Contains(err.Error(), "fixed λ") {
		t.Errorf("ShowFront of a fixed-λ explanation: %v", err)
	}
	if err := gonbext.Tune(s, s.XTest[:1], cfg); err == nil || !strings.Contains(err.Error(), "notebook") {
		t.Errorf("Tune outside a notebook: %v", err)
	}
	if err := gonbext.ShowTable(s, nil); err == nil {
		t.Error("ShowTable(nil): want an error")
	}
}

func TestSliderScale(t *testing.T) {
	for _, v := range []float64{0, 0.001, 0.01, 0.1, 1, 10, 100} {
		if got := gonbext.SliderValue(gonbext.SliderPosition(v)); v != 0 && (got < v*0.99 || got > v*1.01) || v == 0 && got != 0 {
			t.Errorf("slider round trip of %g gave %g", v, got)
		}
	}
}

// A large job says how large it is in the cell before its search starts (stopped there).
func TestExplainSaysALargeJob(t *testing.T) {
	s, dir := preparedOutside(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	defer func(c context.Context) { gonbext.Context = c }(gonbext.Context)
	gonbext.Context = ctx
	cfg := quce.DefaultConfig()
	cfg.Paths = 10000
	if _, err := gonbext.Explain(s, cfg, s.XTest[:1]); !errors.Is(err, context.Canceled) {
		t.Errorf("error %v, want the job stopped", err)
	}
	notes, _ := filepath.Glob(filepath.Join(dir, "*-progress.html"))
	want := "a large job: 10 000 searches (1 instance × 10 000 paths) of 1000 steps, about "
	if len(notes) != 1 {
		t.Fatalf("progress notes %v, want one", notes)
	}
	if b, _ := os.ReadFile(notes[0]); !strings.Contains(string(b), want) {
		t.Errorf("%s says %q, want %q", notes[0], b, want)
	}
}

// preparedOutside is W-BC prepared outside a notebook, the helpers writing their HTML to the
// folder dir (QUCE_OUTPUT_DIR); it skips the test inside GoNB.
func preparedOutside(t *testing.T) (s *pipeline.Setup, dir string) {
	t.Helper()
	if gonbext.InNotebook() {
		t.Skip("running inside GoNB")
	}
	dir = t.TempDir()
	t.Setenv("QUCE_OUTPUT_DIR", dir)
	s, err := gonbext.Prepare(pipeline.Options{SplitSeed: 1, CacheDir: pipelinetest.CacheDir()})
	if err != nil {
		t.Fatal(err)
	}
	return s, dir
}
