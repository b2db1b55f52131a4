package pipeline_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/classifier"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/savedmodel"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/vae"
)

// Small models keep the test fast; the cache logic does not depend on their size.
func opts(dir string) pipeline.Options {
	c := classifier.DefaultConfig()
	c.Epochs = 5
	v := vae.DefaultConfig()
	v.MaxEpochs = 3
	return pipeline.Options{SplitSeed: 1, CacheDir: dir, Classifier: c, VAE: v}
}

func TestCacheLoadsAndRepairs(t *testing.T) {
	dir := t.TempDir()
	first, err := pipeline.Prepare(opts(dir))
	if err != nil {
		t.Fatal(err)
	}
	if first.Cached {
		t.Fatal("an empty cache reported a hit")
	}
	second, err := pipeline.Prepare(opts(dir))
	if err != nil {
		t.Fatal(err)
	}
	if !second.Cached || second.CacheKey != first.CacheKey {
		t.Fatalf("second run: cached=%v key %s vs %s", second.Cached, second.CacheKey, first.CacheKey)
	}
	p1, _ := first.Explainer.Predict(first.XTest)
	p2, _ := second.Explainer.Predict(second.XTest)
	for i := range p1 {
		if p1[i][1] != p2[i][1] {
			t.Fatalf("row %d: loaded model predicts %v, trained %v", i, p2[i], p1[i])
		}
	}
	// A different configuration is a different entry.
	o := opts(dir)
	o.Classifier.Seed = 2
	third, err := pipeline.Prepare(o)
	if err != nil {
		t.Fatal(err)
	}
	if third.Cached || third.CacheKey == first.CacheKey {
		t.Error("a changed configuration hit the old cache entry")
	}
	// A truncated entry is detected, reported and retrained.
	path := filepath.Join(dir, first.CacheKey, "vae")
	ckpts, _ := filepath.Glob(filepath.Join(path, "checkpoint-*.bin"))
	if len(ckpts) != 1 {
		t.Fatalf("VAE cache entry holds %v; want one checkpoint", ckpts)
	}
	b, _ := os.ReadFile(ckpts[0])
	if err := os.WriteFile(ckpts[0], b[:len(b)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	fourth, err := pipeline.Prepare(opts(dir))
	if err != nil {
		t.Fatal(err)
	}
	if fourth.Cached || len(fourth.Warnings) == 0 || !strings.Contains(fourth.Warnings[0], "damaged") {
		t.Errorf("truncated cache entry: cached=%v warnings %q", fourth.Cached, fourth.Warnings)
	}
	if _, err := vae.Load(path); err != nil {
		t.Errorf("the damaged entry was not rewritten: %v", err)
	}
	leftovers, _ := filepath.Glob(filepath.Join(dir, first.CacheKey, ".*tmp*"))
	if len(leftovers) != 0 {
		t.Errorf("temporary files left behind: %v", leftovers)
	}
}

// A cache folder that cannot be written does not throw the trained models away: the run
// goes on with them and warns, with the fix.
func TestUnwritableCacheWarns(t *testing.T) {
	file := filepath.Join(t.TempDir(), "not-a-folder")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := pipeline.Prepare(opts(file))
	if err != nil {
		t.Fatalf("a cache that cannot be written failed the run: %v", err)
	}
	if len(s.Warnings) != 2 || !strings.Contains(s.Warnings[0], "classifier was trained but could not be cached") ||
		!strings.Contains(s.Warnings[1], "VAE was trained but could not be cached") || !strings.Contains(s.Warnings[1], `no cache (Options.CacheDir "")`) {
		t.Errorf("warnings %q; want one per model with the fix", s.Warnings)
	}
	if _, err := s.Explainer.Predict(s.XTest[:1]); err != nil {
		t.Errorf("the trained models do not serve the run: %v", err)
	}
}

// TestModelsTrainedTogetherAsAlone: Prepare trains the classifier and the VAE at the same time
// (on the sequential-ops form of the pure-Go backend when that is the default); each must
// come out bit for bit as trained alone on the default backend. Compared through the saved
// checkpoints.
func TestModelsTrainedTogetherAsAlone(t *testing.T) {
	o := opts("")
	o.Classifier.Epochs, o.VAE.MaxEpochs = 20, 20
	s, err := pipeline.Prepare(o)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := backend.Default()
	if err != nil {
		t.Fatal(err)
	}
	xtr := data.ToFloat32(s.XTrain)
	clf, err := classifier.Train(b, xtr, s.Data.Subset(s.TrainIdx).Y, s.Data.NumClasses(), s.Options.Classifier)
	if err != nil {
		t.Fatal(err)
	}
	v, err := vae.Train(b, xtr, s.Options.VAE)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name            string
		together, alone func(string) error
	}{
		{"classifier", s.Classifier.Save, clf.Save},
		{"vae", s.VAE.Save, v.Save},
	} {
		dir := t.TempDir()
		if err := tc.together(filepath.Join(dir, "together")); err != nil {
			t.Fatal(err)
		}
		if err := tc.alone(filepath.Join(dir, "alone")); err != nil {
			t.Fatal(err)
		}
		together, _ := filepath.Glob(filepath.Join(dir, "together", "checkpoint-*.bin"))
		alone, _ := filepath.Glob(filepath.Join(dir, "alone", "checkpoint-*.bin"))
		if len(together) != 1 || len(alone) != 1 {
			t.Fatalf("%s: checkpoints %v and %v; want one each", tc.name, together, alone)
		}
		a, _ := os.ReadFile(together[0])
		c, _ := os.ReadFile(alone[0])
		if len(a) == 0 || !bytes.Equal(a, c) {
			t.Errorf("%s: the weights trained together with the other model differ from those trained alone", tc.name)
		}
	}
}

// A cache entry that holds the other kind of model (a VAE where the classifier belongs) is
// not loaded as one: Load names the folder and both kinds, and Prepare warns and retrains.
func TestCacheEntryOfTheOtherKind(t *testing.T) {
	dir := t.TempDir()
	first, err := pipeline.Prepare(opts(dir))
	if err != nil {
		t.Fatal(err)
	}
	clfPath, vaePath := filepath.Join(dir, first.CacheKey, "classifier"), filepath.Join(dir, first.CacheKey, "vae")
	_, err = classifier.Load(vaePath)
	if !errors.Is(err, savedmodel.ErrWrongKind) || !strings.Contains(err.Error(), vaePath) || !strings.Contains(err.Error(), "holds a vae, not a classifier") {
		t.Errorf("loading the VAE's folder as a classifier: %v", err)
	}
	if err := os.RemoveAll(clfPath); err != nil {
		t.Fatal(err)
	}
	if err := os.CopyFS(clfPath, os.DirFS(vaePath)); err != nil {
		t.Fatal(err)
	}
	second, err := pipeline.Prepare(opts(dir))
	if err != nil {
		t.Fatal(err)
	}
	if second.Cached || len(second.Warnings) == 0 || !strings.Contains(second.Warnings[0], "not a classifier") {
		t.Errorf("a VAE in the classifier's place: cached=%v warnings %q", second.Cached, second.Warnings)
	}
	if _, err := classifier.Load(clfPath); err != nil {
		t.Errorf("the entry was not rewritten with a classifier: %v", err)
	}
}
