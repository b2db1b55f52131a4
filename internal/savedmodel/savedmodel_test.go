package savedmodel

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"
	"github.com/gomlx/gomlx/ml/model/checkpoint"
)

type testMeta struct {
	Width int `json:"width"`
}

// loaded is what the tests' kind of model builds: the store and the metadata as loaded.
type loaded struct {
	store *model.Store
	meta  testMeta
}

// testKind is the kind of model the tests save.
var testKind = Kind[testMeta, loaded]{Name: "test", Build: func(store *model.Store, m testMeta) (loaded, error) {
	return loaded{store, m}, nil
}}

// loadTest loads a model of testKind from dir into a store, with its metadata into m.
func loadTest(dir string, m *testMeta) (*model.Store, error) {
	l, err := testKind.Load(dir)
	*m = l.meta
	return l.store, err
}

func testStore(t *testing.T, scale float32) *model.Store {
	t.Helper()
	s := model.NewStore()
	w := tensors.FromFlatDataAndDimensions([]float32{1 * scale, 2, 3, 4, 5, 6}, 2, 3)
	b := tensors.FromFlatDataAndDimensions([]float32{-1, 0.5, scale}, 3)
	for path, v := range map[string]*tensors.Tensor{"/layer/weights": w, "/layer/biases": b} {
		if _, err := s.CreateVariable(path, v); err != nil {
			t.Fatal(err)
		}
	}
	s.SetParam("/note", "kept")
	return s
}

// values returns the store's variables, by path.
func values(t *testing.T, s *model.Store) map[string][]float32 {
	t.Helper()
	out := map[string][]float32{}
	for v := range s.IterVariables() {
		flat, err := tensors.CopyFlatData[float32](v.MustValue())
		if err != nil {
			t.Fatal(err)
		}
		out[v.Path()] = flat
	}
	return out
}

func sameValues(a, b map[string][]float32) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if !slices.Equal(v, b[k]) {
			return false
		}
	}
	return true
}

func TestRoundTrip(t *testing.T) {
	store := testStore(t, 1)
	dir := filepath.Join(t.TempDir(), "a", "model")
	if err := testKind.Save(dir, store, testMeta{3}); err != nil {
		t.Fatal(err)
	}
	if store.NumVariables() != 2 || store.Loader() != nil {
		t.Errorf("Save changed the store: %d variables, loader %v", store.NumVariables(), store.Loader())
	}
	var m testMeta
	loaded, err := loadTest(dir, &m)
	if err != nil {
		t.Fatal(err)
	}
	if m != (testMeta{3}) {
		t.Errorf("meta %+v", m)
	}
	if !sameValues(values(t, store), values(t, loaded)) {
		t.Errorf("loaded %v, saved %v", values(t, loaded), values(t, store))
	}
	if v, _ := loaded.GetParam("/note"); v != "kept" {
		t.Errorf("param /note = %v", v)
	}

	// GoMLX alone reads the same checkpoint.
	plain := model.NewStore()
	if _, err := checkpoint.Load(plain).Dir(dir).Immediate().Done(); err != nil {
		t.Fatal(err)
	}
	if !sameValues(values(t, store), values(t, plain)) {
		t.Errorf("checkpoint.Load gives %v", values(t, plain))
	}

	info, err := os.Stat(dir)
	if err != nil || info.Mode().Perm() != 0o755 {
		t.Errorf("folder mode %v (%v), want 0755", info.Mode(), err)
	}
}

func TestReplace(t *testing.T) {
	for _, atomic := range []bool{true, false} {
		name := map[bool]string{true: "exchange", false: "fallback"}[atomic]
		t.Run(name, func(t *testing.T) {
			saved := exchange
			t.Cleanup(func() { exchange = saved })
			swaps := 0
			exchange = func(a, b string) error {
				if !atomic {
					return errors.ErrUnsupported
				}
				err := saved(a, b)
				if err == nil {
					swaps++
				}
				return err
			}
			defer func() { t.Logf("%d atomic swaps", swaps) }()
			parent := t.TempDir()
			dir := filepath.Join(parent, "model")
			for i, scale := range []float32{1, 2, 3} {
				store := testStore(t, scale)
				if err := testKind.Save(dir, store, testMeta{Width: i}); err != nil {
					t.Fatal(err)
				}
				var m testMeta
				loaded, err := loadTest(dir, &m)
				if err != nil {
					t.Fatal(err)
				}
				if m.Width != i || !sameValues(values(t, store), values(t, loaded)) {
					t.Errorf("save %d: loaded width %d, values %v", i, m.Width, values(t, loaded))
				}
			}
			entries, _ := os.ReadDir(parent)
			if len(entries) != 1 {
				t.Errorf("the parent holds %v, want only the model", entries)
			}
			// A file in the way (the previous format's single file) is replaced too.
			file := filepath.Join(parent, "old-format")
			if err := os.WriteFile(file, []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
			if err := testKind.Save(file, testStore(t, 1), testMeta{}); err != nil {
				t.Fatal(err)
			}
			if _, err := loadTest(file, &testMeta{}); err != nil {
				t.Error(err)
			}
		})
	}
}

func TestFailedSaveKeepsOldModel(t *testing.T) {
	parent := t.TempDir()
	dir := filepath.Join(parent, "model")
	if err := testKind.Save(dir, testStore(t, 1), testMeta{Width: 1}); err != nil {
		t.Fatal(err)
	}
	if err := (Kind[any, any]{Name: testKind.Name}).Save(dir, testStore(t, 2), make(chan int)); err == nil {
		t.Fatal("saving unmarshalable metadata succeeded")
	}
	var m testMeta
	if _, err := loadTest(dir, &m); err != nil || m.Width != 1 {
		t.Errorf("after a failed save: %v, width %d", err, m.Width)
	}
	if entries, _ := os.ReadDir(parent); len(entries) != 1 {
		t.Errorf("the parent holds %v, want only the model", entries)
	}
}

// rewriteManifest applies edit to the manifest's body and stores it with a valid checksum,
// as a tool (or a person) that knows the format would.
func rewriteManifest(t *testing.T, dir string, edit func(*body)) {
	t.Helper()
	path := filepath.Join(dir, ManifestName)
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	var b body
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(m.Body, &b); err != nil {
		t.Fatal(err)
	}
	edit(&b)
	m.Body, _ = json.Marshal(b)
	m.SHA256 = sum(m.Body)
	raw, _ = json.Marshal(m)
	if err := os.WriteFile(path, raw, 0o644); err != nil {
		t.Fatal(err)
	}
}

func checkpointFile(t *testing.T, dir, suffix string) string {
	t.Helper()
	matches, _ := filepath.Glob(filepath.Join(dir, "checkpoint-*"+suffix))
	if len(matches) != 1 {
		t.Fatalf("checkpoint files *%s: %v", suffix, matches)
	}
	return matches[0]
}

func TestDamage(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, dir string) string // returns what the message must mention
	}{
		{"truncated bin", func(t *testing.T, dir string) string {
			f := checkpointFile(t, dir, ".bin")
			if err := os.Truncate(f, 10); err != nil {
				t.Fatal(err)
			}
			return filepath.Base(f) + " is truncated or edited"
		}},
		{"edited json", func(t *testing.T, dir string) string {
			f := checkpointFile(t, dir, ".json")
			raw, _ := os.ReadFile(f)
			if err := os.WriteFile(f, []byte(strings.Replace(string(raw), "Float32", "Float64", 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			return filepath.Base(f) + " is truncated or edited"
		}},
		{"missing bin", func(t *testing.T, dir string) string {
			f := checkpointFile(t, dir, ".bin")
			if err := os.Remove(f); err != nil {
				t.Fatal(err)
			}
			return filepath.Base(f) + " is missing"
		}},
		{"missing manifest", func(t *testing.T, dir string) string {
			if err := os.Remove(filepath.Join(dir, ManifestName)); err != nil {
				t.Fatal(err)
			}
			return ManifestName + " is missing"
		}},
		{"manifest not JSON", func(t *testing.T, dir string) string {
			if err := os.WriteFile(filepath.Join(dir, ManifestName), []byte("{\"sha256\": "), 0o644); err != nil {
				t.Fatal(err)
			}
			return ManifestName + " is not a manifest"
		}},
		{"edited manifest", func(t *testing.T, dir string) string {
			path := filepath.Join(dir, ManifestName)
			raw, _ := os.ReadFile(path)
			if err := os.WriteFile(path, []byte(strings.Replace(string(raw), `"width": 3`, `"width": 4`, 1)), 0o644); err != nil {
				t.Fatal(err)
			}
			return ManifestName + " was edited or damaged"
		}},
		{"other format", func(t *testing.T, dir string) string {
			rewriteManifest(t, dir, func(b *body) { b.Format = "quce-model/9" })
			return `holds format "quce-model/9"`
		}},
		{"file checksum changed", func(t *testing.T, dir string) string {
			f := filepath.Base(checkpointFile(t, dir, ".json"))
			rewriteManifest(t, dir, func(b *body) { b.Files[f] = sum(nil) })
			return f + " is truncated or edited"
		}},
		{"unlisted checkpoint", func(t *testing.T, dir string) string {
			f := filepath.Join(dir, "checkpoint-n0000009-extra.json")
			if err := os.WriteFile(f, []byte("{}"), 0o644); err != nil {
				t.Fatal(err)
			}
			return "checkpoint-n0000009-extra.json is not in " + ManifestName
		}},
		{"no checkpoint listed", func(t *testing.T, dir string) string {
			rewriteManifest(t, dir, func(b *body) { b.Files = nil })
			// The real checkpoint files are now unlisted.
			return "is not in " + ManifestName
		}},
		{"a file, not a folder", func(t *testing.T, dir string) string {
			if err := os.RemoveAll(dir); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(dir, []byte(`{"format":"quce-model/1"}`), 0o644); err != nil {
				t.Fatal(err)
			}
			return "not a saved model's folder"
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "model")
			if err := testKind.Save(dir, testStore(t, 1), testMeta{3}); err != nil {
				t.Fatal(err)
			}
			want := tc.damage(t, dir)
			_, err := loadTest(dir, &testMeta{})
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("got %v, want an error wrapping ErrCorrupt", err)
			}
			if msg := err.Error(); !strings.Contains(msg, want) || !strings.Contains(msg, "fix: delete the folder and retrain") {
				t.Errorf("error %q does not say %q and how to fix it", msg, want)
			}
		})
	}
}

func TestMissing(t *testing.T) {
	_, err := loadTest(filepath.Join(t.TempDir(), "none"), &testMeta{})
	if !errors.Is(err, fs.ErrNotExist) || errors.Is(err, ErrCorrupt) {
		t.Errorf("got %v, want a not-exist error", err)
	}
}

// A sound model of another kind is refused with an error that names the folder, both kinds
// and the fix, and is not taken for damage (which would tell the user to delete it).
func TestWrongKind(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "vae")
	if err := (Kind[testMeta, loaded]{Name: "vae"}).Save(dir, testStore(t, 1), testMeta{3}); err != nil {
		t.Fatal(err)
	}
	built := false
	classifier := Kind[testMeta, bool]{Name: "classifier", Build: func(*model.Store, testMeta) (bool, error) { built = true; return true, nil }}
	_, err := classifier.Load(dir)
	if !errors.Is(err, ErrWrongKind) || errors.Is(err, ErrCorrupt) || built {
		t.Fatalf("got %v (built %v), want an error wrapping ErrWrongKind only, before build", err, built)
	}
	for _, want := range []string{dir, "holds a vae, not a classifier", "fix: give the folder of a saved classifier"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if err := (Kind[testMeta, loaded]{}).Save(filepath.Join(t.TempDir(), "m"), testStore(t, 1), testMeta{}); err == nil || !strings.Contains(err.Error(), "no kind given") {
		t.Errorf("saving without a kind: %v", err)
	}
}

// The kind lives in the manifest's body, next to the format: a manifest without one is
// damaged, and a manifest of the previous format (kind inside the metadata) is refused as
// another format, so a cache keyed by Format retrains it.
func TestKindInManifest(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(*body)
		want string
	}{
		{"no kind", func(b *body) { b.Kind = "" }, ManifestName + " names no kind of model"},
		{"format 2", func(b *body) { b.Format, b.Kind = "quce-model/2", "" }, `holds format "quce-model/2"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "model")
			if err := testKind.Save(dir, testStore(t, 1), testMeta{3}); err != nil {
				t.Fatal(err)
			}
			rewriteManifest(t, dir, tc.edit)
			_, err := loadTest(dir, &testMeta{})
			if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error wrapping ErrCorrupt saying %q", err, tc.want)
			}
		})
	}
}

// An error from build (metadata that does not fit the variables) is reported as damage to
// the folder, with the caller's reason.
func TestBuildError(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "model")
	if err := testKind.Save(dir, testStore(t, 1), testMeta{3}); err != nil {
		t.Fatal(err)
	}
	misfit := Kind[testMeta, *testMeta]{Name: testKind.Name, Build: func(_ *model.Store, m testMeta) (*testMeta, error) {
		return &m, fmt.Errorf("width %d does not fit", m.Width)
	}}
	got, err := misfit.Load(dir)
	if got != nil || !errors.Is(err, ErrCorrupt) {
		t.Fatalf("got %v and %v, want nil and an error wrapping ErrCorrupt", got, err)
	}
	for _, want := range []string{dir, "width 3 does not fit", "fix: delete the folder and retrain"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
}
