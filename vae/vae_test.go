package vae_test

import (
	"math"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/savedmodel/savedmodeltest"
	"github.com/quce-go/quce/vae"
)

func testBackend(t testing.TB) compute.Backend {
	t.Helper()
	b, _, err := backend.Default()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func wbc(t testing.TB) (xtr, xte [][]float32) {
	t.Helper()
	ds := data.WBC()
	tr, te, err := data.Split(ds, 0.2, 1)
	if err != nil {
		t.Fatal(err)
	}
	sc := data.FitScaler(ds.Subset(tr).X)
	return data.ToFloat32(sc.Transform(ds.Subset(tr).X)), data.ToFloat32(sc.Transform(ds.Subset(te).X))
}

var (
	wbcOnce sync.Once
	wbcVAE  *vae.VAE
	wbcErr  error
)

// trainedWBC is the default VAE on W-BC, trained once for the tests that only read it.
func trainedWBC(t testing.TB) *vae.VAE {
	t.Helper()
	wbcOnce.Do(func() {
		xtr, _ := wbc(t)
		t0 := time.Now()
		wbcVAE, wbcErr = vae.Train(testBackend(t), xtr, vae.DefaultConfig())
		t.Logf("W-BC training took %v", time.Since(t0))
	})
	if wbcErr != nil {
		t.Fatal(wbcErr)
	}
	return wbcVAE
}

func TestTrainNotCollapsed(t *testing.T) {
	b := testBackend(t)
	xtr, xte := wbc(t)
	v := trainedWBC(t)
	dtr, err := v.Diagnose(b, xtr)
	if err != nil {
		t.Fatal(err)
	}
	dte, err := v.Diagnose(b, xte)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("epochs %d; train %+v; test %+v", v.Epochs, dtr, dte)
	if dte.Collapsed || dte.ReconMSE > 0.3 {
		t.Errorf("test reconstruction MSE %.3f (collapsed=%v); want < 0.3 and not collapsed", dte.ReconMSE, dte.Collapsed)
	}
	scores, err := v.Scores(b, xte, vae.Trained)
	if err != nil {
		t.Fatal(err)
	}
	paper, err := v.Scores(b, xte, vae.Paper)
	if err != nil {
		t.Fatal(err)
	}
	for i := range scores {
		if math.IsNaN(float64(scores[i])) || scores[i] <= 0 || paper[i] <= 0 {
			t.Fatalf("row %d: scores %v / %v, want positive", i, scores[i], paper[i])
		}
	}
	recon, err := v.Reconstruct(b, xte)
	if err != nil {
		t.Fatal(err)
	}
	var mse float64
	for i, r := range recon {
		for k, x := range r {
			mse += math.Pow(float64(x-xte[i][k]), 2)
		}
	}
	mse /= float64(len(recon) * v.NumFeatures())
	if math.Abs(mse-dte.ReconMSE) > 1e-4 {
		t.Errorf("Reconstruct gives MSE %.5f, Diagnose %.5f", mse, dte.ReconMSE)
	}
}

func TestDeterministic(t *testing.T) {
	b := testBackend(t)
	xtr, _ := wbc(t)
	cfg := vae.DefaultConfig()
	cfg.MaxEpochs = 3
	// Encoder 30→128→64→30 and decoder 15→64→128→30: 3 layers each, weights and biases.
	savedmodeltest.CheckSeededTraining(t, func(seed uint64) *model.Store {
		cfg.Seed = seed
		v, err := vae.Train(b, xtr, cfg)
		if err != nil {
			t.Fatal(err)
		}
		return v.Store()
	}, 12, "/decoder/output/dense/weights")
}

func TestSaveLoad(t *testing.T) {
	b := testBackend(t)
	_, xte := wbc(t)
	v := trainedWBC(t)
	dir := filepath.Join(t.TempDir(), "vae")
	if err := v.Save(dir); err != nil {
		t.Fatal(err)
	}
	v2, err := vae.Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if v2.Epochs != v.Epochs || v2.NumFeatures() != v.NumFeatures() || v2.Config.Latent != v.Config.Latent {
		t.Errorf("loaded epochs %d, features %d, latent %d; want %d, %d, %d",
			v2.Epochs, v2.NumFeatures(), v2.Config.Latent, v.Epochs, v.NumFeatures(), v.Config.Latent)
	}
	for _, form := range []vae.Form{vae.Trained, vae.Paper} {
		s1, err := v.Scores(b, xte, form)
		if err != nil {
			t.Fatal(err)
		}
		s2, err := v2.Scores(b, xte, form)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(s1, s2) {
			t.Errorf("%v: the loaded VAE scores differently", form)
		}
	}
	r1, _ := v.Reconstruct(b, xte)
	r2, _ := v2.Reconstruct(b, xte)
	for i := range r1 {
		if !slices.Equal(r1[i], r2[i]) {
			t.Fatalf("row %d: the loaded VAE reconstructs differently", i)
		}
	}
}

func TestDamagedSave(t *testing.T) {
	v := trainedWBC(t)
	savedmodeltest.CheckDamageDetected(t, v.Save, func(dir string) error {
		_, err := vae.Load(dir)
		return err
	})
}

func TestBadInput(t *testing.T) {
	b := testBackend(t)
	X := [][]float32{{0, 1}, {1, 0}, {1, 1}, {0, 0}}
	good := vae.DefaultConfig()
	good.MaxEpochs = 1
	with := func(f func(*vae.Config)) vae.Config {
		c := good
		f(&c)
		return c
	}
	for _, tc := range []struct {
		name string
		X    [][]float32
		cfg  vae.Config
		want string
	}{
		{"zero width", X, with(func(c *vae.Config) { c.Decoder = []int{0} }), "width 0"},
		{"no latent", X, with(func(c *vae.Config) { c.Latent = 0 }), "latent = 0"},
		{"zero sigma", X, with(func(c *vae.Config) { c.Sigma = 0 }), "sigma = 0"},
		{"no epochs", X, with(func(c *vae.Config) { c.MaxEpochs = 0 }), "max epochs = 0"},
		{"no patience", X, with(func(c *vae.Config) { c.Patience = 0 }), "patience = 0"},
		{"validation fraction 1", X, with(func(c *vae.Config) { c.ValFraction = 1 }), "validation fraction = 1"},
		{"no batch", X, with(func(c *vae.Config) { c.BatchSize = 0 }), "batch size = 0"},
		{"infinite learning rate", X, with(func(c *vae.Config) { c.LearningRate = math.Inf(1) }), "learning rate = +Inf"},
		{"one row", X[:1], good, "1 training rows"},
		{"ragged rows", [][]float32{{0, 1}, {1}}, good, "row 1 has 1 features"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := vae.Train(b, tc.X, tc.cfg)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, want an error containing %q", err, tc.want)
			}
		})
	}
}

func TestCollapseDetected(t *testing.T) {
	b := testBackend(t)
	xtr, _ := wbc(t)
	cfg := vae.DefaultConfig()
	cfg.MaxEpochs = 1
	v, err := vae.Train(b, xtr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Force the textbook collapse: the decoder outputs 0 (the mean), the encoder μ=0, logvar=0.
	store := model.NewStore()
	for variable := range v.Store().IterVariables() {
		value := variable.MustValue()
		if strings.HasSuffix(variable.Scope(), "/output/dense") {
			value = tensors.FromShape(value.Shape())
		}
		if _, err := store.CreateVariable(variable.Path(), value); err != nil {
			t.Fatal(err)
		}
	}
	collapsed, err := vae.FromStore(store, v.Config, v.NumFeatures())
	if err != nil {
		t.Fatal(err)
	}
	d, err := collapsed.Diagnose(b, xtr)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Collapsed || d.Warning == "" {
		t.Errorf("a VAE that outputs the mean was not flagged as collapsed: %+v", d)
	}
	if d, _ := v.Diagnose(b, xtr); d.Collapsed {
		t.Errorf("the VAE after one epoch was flagged as collapsed: %+v", d)
	}
}
