package classifier_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/quce-go/quce/classifier"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/internal/savedmodel"
)

func wbcSplit(t testing.TB) (xtr, xte [][]float32, ytr, yte []int) {
	t.Helper()
	return modeltest.Split(t, data.WBC())
}

// trainedWBC is the default classifier on W-BC, trained once for the tests that only read it.
var trainedWBC = modeltest.Once("W-BC", func(t testing.TB) (*classifier.Classifier, error) {
	xtr, _, ytr, _ := wbcSplit(t)
	return classifier.Train(modeltest.Backend(t), xtr, ytr, 2, classifier.DefaultConfig())
})

func TestTrainQuality(t *testing.T) {
	b := modeltest.Backend(t)
	iris, err := data.Load(filepath.Join("..", "testdata", "iris.csv"), data.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name    string
		ds      *data.Dataset
		epochs  int
		lr      float64
		outputs int
		minAcc  float64
	}{
		{"wbc", data.WBC(), 100, 1e-3, 1, 0.95},
		// 120 rows make 3 batches an epoch: more epochs and a larger step than W-BC's.
		{"iris", iris, 300, 3e-3, 3, 0.9},
	} {
		t.Run(tc.name, func(t *testing.T) {
			xtr, xte, ytr, yte := modeltest.Split(t, tc.ds)
			var c *classifier.Classifier
			if tc.name == "wbc" {
				c = trainedWBC(t)
			} else {
				cfg := classifier.DefaultConfig()
				cfg.Epochs, cfg.LearningRate = tc.epochs, tc.lr
				t0 := time.Now()
				var err error
				if c, err = classifier.Train(b, xtr, ytr, tc.ds.NumClasses(), cfg); err != nil {
					t.Fatal(err)
				}
				t.Logf("training took %v", time.Since(t0))
			}
			if c.NumFeatures() != tc.ds.NumFeatures() || c.NumOutputs() != tc.outputs || c.NumClasses() != tc.ds.NumClasses() {
				t.Errorf("features %d, outputs %d, classes %d; want %d, %d, %d",
					c.NumFeatures(), c.NumOutputs(), c.NumClasses(), tc.ds.NumFeatures(), tc.outputs, tc.ds.NumClasses())
			}
			acc, err := c.Accuracy(b, xte, yte)
			if err != nil {
				t.Fatal(err)
			}
			trainAcc, _ := c.Accuracy(b, xtr, ytr)
			t.Logf("accuracy: train %.4f, test %.4f", trainAcc, acc)
			if acc <= tc.minAcc {
				t.Errorf("test accuracy %.4f ≤ %.2f", acc, tc.minAcc)
			}
		})
	}
}

func TestDeterministic(t *testing.T) {
	b := modeltest.Backend(t)
	xtr, _, ytr, _ := wbcSplit(t)
	cfg := classifier.DefaultConfig()
	cfg.Epochs = 5
	// Weights and biases of 2 layers.
	modeltest.CheckSeededTraining(t, func(seed uint64) *model.Store {
		cfg.Seed = seed
		c, err := classifier.Train(b, xtr, ytr, 2, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return c.Store()
	}, 4, "/output/dense/weights")
}

func TestSaveLoad(t *testing.T) {
	b := modeltest.Backend(t)
	c := trainedWBC(t)
	_, xte, _, _ := wbcSplit(t)
	want, err := c.Logits(b, xte)
	if err != nil {
		t.Fatal(err)
	}
	parent := t.TempDir()
	dir := filepath.Join(parent, "clf")
	// Twice: the second save replaces the first.
	for round := range 2 {
		if err := c.Save(dir); err != nil {
			t.Fatal(err)
		}
		c2, err := classifier.Load(dir)
		if err != nil {
			t.Fatal(err)
		}
		if c2.NumFeatures() != c.NumFeatures() || c2.NumOutputs() != c.NumOutputs() || !slices.Equal(c2.Config.Hidden, c.Config.Hidden) {
			t.Fatalf("round %d: loaded %d features, %d outputs, %v hidden", round, c2.NumFeatures(), c2.NumOutputs(), c2.Config.Hidden)
		}
		got, err := c2.Logits(b, xte)
		if err != nil {
			t.Fatal(err)
		}
		for i := range want {
			if !slices.Equal(got[i], want[i]) {
				t.Fatalf("round %d, row %d: loaded model gives %v, original %v", round, i, got[i], want[i])
			}
		}
	}
	entries, _ := os.ReadDir(parent)
	if len(entries) != 1 {
		t.Errorf("the parent folder holds %d entries after two saves, want only the model: %v", len(entries), entries)
	}
}

func TestDamagedSave(t *testing.T) {
	c := trainedWBC(t)
	modeltest.CheckDamageDetected(t, c.Save, classifier.Load)
}

func TestBadInput(t *testing.T) {
	b := modeltest.Backend(t)
	X := [][]float32{{0, 1}, {1, 0}, {1, 1}, {0, 0}}
	y := []int{0, 1, 1, 0}
	good := classifier.DefaultConfig()
	good.Epochs = 1
	with := modeltest.Variants(good)
	for _, tc := range []struct {
		name    string
		X       [][]float32
		y       []int
		classes int
		cfg     classifier.Config
		want    string
	}{
		{"zero width", X, y, 2, with(func(c *classifier.Config) { c.Hidden = []int{8, 0} }), "hidden layer 1 has width 0"},
		{"no epochs", X, y, 2, with(func(c *classifier.Config) { c.Epochs = 0 }), "epochs = 0"},
		{"no batch", X, y, 2, with(func(c *classifier.Config) { c.BatchSize = -1 }), "batch size = -1"},
		{"zero learning rate", X, y, 2, with(func(c *classifier.Config) { c.LearningRate = 0 }), "learning rate = 0"},
		{"one class", X, y, 1, good, "1 classes"},
		{"label out of range", X, []int{0, 1, 2, 0}, 2, good, "row 2 has label 2"},
		{"negative label", X, []int{0, -1, 1, 0}, 3, good, "row 1 has label -1"},
		{"labels missing", X, y[:3], 2, good, "4 rows and 3 labels"},
		{"ragged rows", [][]float32{{0, 1}, {1}}, []int{0, 1}, 2, good, "row 1 has 1 features"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := classifier.Train(b, tc.X, tc.y, tc.classes, tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestWrongFeatureCount(t *testing.T) {
	b := modeltest.Backend(t)
	c := trainedWBC(t)
	xtr, _, _, _ := wbcSplit(t)
	short := [][]float32{xtr[0][:29]}
	if _, err := c.Logits(b, short); err == nil || !strings.Contains(err.Error(), "row 0 has 29 features, the model was trained on 30") {
		t.Errorf("29 features into a 30-feature model: %v", err)
	}
}

// A folder whose checksums hold but whose variables do not fit the recorded architecture
// (written by other code, or by a bug) is reported as damaged, not loaded.
func TestVariablesDoNotFit(t *testing.T) {
	c := trainedWBC(t)
	for _, tc := range []struct {
		name string
		edit func(path string, v *tensors.Tensor) *tensors.Tensor // nil drops the variable
	}{
		{"missing variable", func(path string, v *tensors.Tensor) *tensors.Tensor {
			if path == "/output/dense/biases" {
				return nil
			}
			return v
		}},
		{"wrong shape", func(path string, v *tensors.Tensor) *tensors.Tensor {
			if path == "/hidden_0/dense/weights" {
				return tensors.FromShape(shapes.Make(dtypes.Float32, 30, 59))
			}
			return v
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := model.NewStore()
			for v := range c.Store().IterVariables() {
				if value := tc.edit(v.Path(), v.MustValue()); value != nil {
					if _, err := store.CreateVariable(v.Path(), value); err != nil {
						t.Fatal(err)
					}
				}
			}
			dir := filepath.Join(t.TempDir(), "clf")
			meta := map[string]any{"config": c.Config, "features": 30, "classes": 2}
			if err := (savedmodel.Kind[map[string]any, any]{Name: "classifier"}).Save(dir, store, meta); err != nil {
				t.Fatal(err)
			}
			if _, err := classifier.Load(dir); !errors.Is(err, savedmodel.ErrCorrupt) {
				t.Errorf("got %v, want an error wrapping savedmodel.ErrCorrupt", err)
			} else {
				t.Log(err)
			}
		})
	}
}

// FromStore takes weights made elsewhere: here logit = x1 + 2·x2 − 0.5 with no hidden layer.
func TestFromStore(t *testing.T) {
	b := modeltest.Backend(t)
	store := model.NewStore()
	for path, v := range map[string]*tensors.Tensor{
		"/output/dense/weights": tensors.FromValue([][]float32{{1}, {2}}),
		"/output/dense/biases":  tensors.FromValue([]float32{-0.5}),
	} {
		if _, err := store.CreateVariable(path, v); err != nil {
			t.Fatal(err)
		}
	}
	cfg := classifier.DefaultConfig()
	cfg.Hidden = nil
	c, err := classifier.FromStore(store, cfg, 2, 2)
	if err != nil {
		t.Fatal(err)
	}
	logits, err := c.Logits(b, [][]float32{{0, 0}, {1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if logits[0][0] != -0.5 || logits[1][0] != 2.5 {
		t.Errorf("logits %v, want [[-0.5] [2.5]]", logits)
	}
	if _, err := classifier.FromStore(store, classifier.DefaultConfig(), 2, 2); err == nil {
		t.Error("a store without the hidden layer was taken for a one-hidden-layer classifier")
	}
}

// TestStepBudget: training stops at MaxSteps whatever the epochs, and reports its progress.
func TestStepBudget(t *testing.T) {
	xtr, _, ytr, _ := wbcSplit(t)
	perEpoch := len(xtr) / 32
	for _, tc := range []struct {
		name              string
		epochs, maxSteps  int
		wantDone, wantTot int
	}{
		{"the bound binds", 100, 30, 30, 30},
		{"the epochs end first", 2, 4000, 2 * perEpoch, 2 * perEpoch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := classifier.DefaultConfig()
			cfg.Epochs, cfg.MaxSteps = tc.epochs, tc.maxSteps
			done, total := 0, 0
			cfg.Progress = func(d, tot int) { done, total = d, tot }
			if _, err := classifier.Train(modeltest.Backend(t), xtr, ytr, 2, cfg); err != nil {
				t.Fatal(err)
			}
			if done != tc.wantDone || total != tc.wantTot {
				t.Errorf("progress ended at %d of %d steps, want %d of %d", done, total, tc.wantDone, tc.wantTot)
			}
		})
	}
}

// A cancelled Config.Context stops training before its next graph execution, with an error
// that names the model and wraps the cause.
func TestTrainCancelled(t *testing.T) {
	xtr, _, ytr, _ := wbcSplit(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	cfg := classifier.DefaultConfig()
	cfg.Context = ctx
	_, err := classifier.Train(modeltest.Backend(t), xtr, ytr, 2, cfg)
	if !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), "classifier: training stopped after 0 steps") {
		t.Errorf("got %v, want the training stopped before its first execution, wrapping context.Canceled", err)
	}
}
