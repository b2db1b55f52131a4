// Package modeltest holds what the tests of the built-in models (package classifier and
// package vae) share: the backend, the standardised W-BC split, a model trained once per
// test binary, and the checks that training is seeded and that a damaged saved model
// (package savedmodel) is detected.
package modeltest

import (
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/savedmodel"
)

// Backend is the default backend; it fails the test when there is none.
func Backend(t testing.TB) compute.Backend {
	t.Helper()
	b, _ := chosen(t)
	return b
}

// GoBackend is the patched pure-Go backend, whatever backend the tests run on: for a test of
// its own behaviour, or one that compares explanations bit for bit.
func GoBackend(t testing.TB) compute.Backend {
	t.Helper()
	b, err := backend.New(backend.PatchedGo)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// chosen is the default backend and its description; it fails the test when there is none.
func chosen(t testing.TB) (compute.Backend, backend.Info) {
	t.Helper()
	b, info, err := backend.Default()
	if err != nil {
		t.Fatal(err)
	}
	return b, info
}

// NeedLoops skips t on a backend that runs no While loops (ONNX Runtime), where what t
// tests is never taken: explanations run on the step engine there and training unrolls an
// epoch's steps, which other tests check.
func NeedLoops(t testing.TB) {
	t.Helper()
	if !RunsLoops(t) {
		t.Skipf("the %s backend runs no While loops", Backend(t).Name())
	}
}

// RunsLoops reports whether the test backend runs While loops (see NeedLoops).
func RunsLoops(t testing.TB) bool {
	t.Helper()
	return backend.RunsLoops(Backend(t)) // as whileloop.Runs, whose tests use this package
}

// NeedPureGo skips t unless the tests run on the patched pure-Go backend: t checks what that
// backend does (its kernel sets, its default engine, its executions).
func NeedPureGo(t testing.TB) {
	t.Helper()
	if i := info(t); !i.Patched() {
		t.Skipf("checks the pure-Go backend; the tests run on %s", i)
	}
}

// NeedRowsIndependent skips t unless the test backend gives a row the same figures bit for
// bit whatever rows are computed beside it, as the pure-Go backend with its SIMD kernels
// does (backend.Info.RowsIndependent). Elsewhere a job split into shards, units or chunks
// agrees with one call to float32 rounding, not bit for bit, and a test that compares the
// two byte for byte does not apply.
func NeedRowsIndependent(t testing.TB) {
	t.Helper()
	if !RowsIndependent(t) {
		t.Skipf("on %s a row's figures may change in their last bits with the rows beside it", info(t))
	}
}

// RowsIndependent reports whether the test backend gives a row the same figures bit for bit
// whatever rows are computed beside it (see NeedRowsIndependent).
func RowsIndependent(t testing.TB) bool {
	t.Helper()
	return info(t).RowsIndependent()
}

// info describes the test backend.
func info(t testing.TB) backend.Info {
	t.Helper()
	_, i := chosen(t)
	return i
}

// BuildFlags are the flags that build a command for a test with this test binary's build
// tags (the ONNX Runtime backend is in a binary only with -tags onnx).
func BuildFlags() []string { return buildFlags }

// Split returns the standardised train and test rows of ds and their labels (20% test,
// seed 1).
func Split(t testing.TB, ds *data.Dataset) (xtr, xte [][]float32, ytr, yte []int) {
	t.Helper()
	tr, te, err := data.Split(ds, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	train, test := ds.Subset(tr), ds.Subset(te)
	sc := data.FitScaler(train.X)
	return data.ToFloat32(sc.Transform(train.X)), data.ToFloat32(sc.Transform(test.X)), train.Y, test.Y
}

// Once returns a function that trains a model with train the first time a test asks for it
// and gives every later test the same model (or the same failure), for the tests that only
// read it. The training time is logged, named by name.
func Once[M any](name string, train func(testing.TB) (M, error)) func(testing.TB) M {
	var (
		once sync.Once
		m    M
		err  error
	)
	return func(t testing.TB) M {
		t.Helper()
		once.Do(func() {
			t0 := time.Now()
			m, err = train(t)
			t.Logf("%s training took %v", name, time.Since(t0))
		})
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

// CheckSeededTraining trains three times with train, twice with one seed and once with
// another, and checks that the store holds wantVars variables, that the same seed gives
// bit-identical variables and that the other seed changes the variable at probe (a path
// such as "/output/dense/weights").
func CheckSeededTraining(t *testing.T, train func(seed uint64) *model.Store, wantVars int, probe string) {
	t.Helper()
	w1, w2, w3 := weights(t, train(7)), weights(t, train(7)), weights(t, train(8))
	if len(w1) != wantVars {
		t.Errorf("store holds %d variables, want %d: %v", len(w1), wantVars, slices.Sorted(maps.Keys(w1)))
	}
	for path, v := range w1 {
		if !slices.Equal(v, w2[path]) {
			t.Errorf("%s differs between two trainings with the same seed", path)
		}
	}
	if _, ok := w1[probe]; !ok {
		t.Fatalf("no variable %s", probe)
	}
	if slices.Equal(w1[probe], w3[probe]) {
		t.Error("seeds 7 and 8 trained the same weights")
	}
}

// weights returns every variable's values, by path.
func weights(t *testing.T, s *model.Store) map[string][]float32 {
	t.Helper()
	out := map[string][]float32{}
	for v := range s.IterVariables() {
		flat, err := tensors.CopyFlatData[float32](v.MustValue())
		if err != nil {
			t.Fatalf("%s: %v", v.Path(), err)
		}
		out[v.Path()] = flat
	}
	return out
}

// CheckDamageDetected saves a model with save into fresh folders, damages each in one way (a
// truncated checkpoint, an edited manifest, a missing checkpoint file, a missing manifest)
// and checks that load reports an error wrapping savedmodel.ErrCorrupt that names the damaged
// file and says how to fix it; a missing folder must be fs.ErrNotExist instead.
func CheckDamageDetected[M any](t *testing.T, save func(dir string) error, load func(dir string) (M, error)) {
	t.Helper()
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string) string // returns the file the error must name
	}{
		{"truncated checkpoint", func(t *testing.T, dir string) string {
			f := findFile(t, dir, ".bin")
			info, err := os.Stat(f)
			if err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(f, info.Size()/2); err != nil {
				t.Fatal(err)
			}
			return filepath.Base(f)
		}},
		{"edited manifest", func(t *testing.T, dir string) string {
			f := filepath.Join(dir, savedmodel.ManifestName)
			raw, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			features := regexp.MustCompile(`"features": (\d+)`)
			m := features.FindSubmatch(raw)
			if m == nil {
				t.Fatalf("no feature count in %s", raw)
			}
			n, _ := strconv.Atoi(string(m[1]))
			edited := features.ReplaceAll(raw, []byte(`"features": `+strconv.Itoa(n+1)))
			if err := os.WriteFile(f, edited, 0o644); err != nil {
				t.Fatal(err)
			}
			return savedmodel.ManifestName
		}},
		{"missing checkpoint json", func(t *testing.T, dir string) string {
			f := findFile(t, dir, ".json")
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			return filepath.Base(f)
		}},
		{"missing manifest", func(t *testing.T, dir string) string {
			if err := os.Remove(filepath.Join(dir, savedmodel.ManifestName)); err != nil {
				t.Fatal(err)
			}
			return savedmodel.ManifestName
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "model")
			if err := save(dir); err != nil {
				t.Fatal(err)
			}
			file := tc.damage(t, dir)
			_, err := load(dir)
			if !errors.Is(err, savedmodel.ErrCorrupt) {
				t.Fatalf("got %v, want an error wrapping savedmodel.ErrCorrupt", err)
			}
			if !strings.Contains(err.Error(), file) || !strings.Contains(err.Error(), "fix: delete the folder and retrain") {
				t.Errorf("error %q does not name %s or say how to fix it", err, file)
			}
		})
	}
	t.Run("missing folder", func(t *testing.T) {
		_, err := load(filepath.Join(t.TempDir(), "none"))
		if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, savedmodel.ErrCorrupt) {
			t.Errorf("got %v, want a not-exist error", err)
		}
	})
}

// findFile returns the file in dir (not the manifest) whose name ends with suffix.
func findFile(t *testing.T, dir, suffix string) string {
	t.Helper()
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if e.Name() != savedmodel.ManifestName && strings.HasSuffix(e.Name(), suffix) {
			return filepath.Join(dir, e.Name())
		}
	}
	t.Fatalf("no *%s file in %s", suffix, dir)
	return ""
}

// Variants returns a function that gives a copy of base changed by edit, for tables of
// configurations that each differ from a good one in one setting.
func Variants[C any](base C) func(edit func(*C)) C {
	return func(edit func(*C)) C {
		c := base
		edit(&c)
		return c
	}
}
