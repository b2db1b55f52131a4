package vae_test

import (
	"math"
	"path/filepath"
	"testing"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/vae"
)

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

func TestTrainNotCollapsedAndRoundTrip(t *testing.T) {
	b, _, err := backend.Default()
	if err != nil {
		t.Fatal(err)
	}
	xtr, xte := wbc(t)
	v, err := vae.Train(b, xtr, vae.DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	dtr, err := v.Diagnose(b, xtr)
	if err != nil {
		t.Fatal(err)
	}
	dte, err := v.Diagnose(b, xte)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("epochs %d; train %+v; test %+v", v.Epochs, dtr, dte)
	if dte.Collapsed || dte.ReconMSE > 0.5 {
		t.Errorf("test reconstruction MSE %.3f (collapsed=%v); want < 0.5 and not collapsed", dte.ReconMSE, dte.Collapsed)
	}
	scores, err := v.Scores(b, xte, vae.Trained)
	if err != nil {
		t.Fatal(err)
	}
	paper, _ := v.Scores(b, xte, vae.Paper)
	for i := range scores {
		if math.IsNaN(float64(scores[i])) || scores[i] <= 0 || paper[i] <= 0 {
			t.Fatalf("row %d: scores %v / %v, want positive", i, scores[i], paper[i])
		}
	}
	path := filepath.Join(t.TempDir(), "vae.json")
	if err := v.Save(path); err != nil {
		t.Fatal(err)
	}
	v2, err := vae.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	s2, _ := v2.Scores(b, xte, vae.Trained)
	for i := range scores {
		if scores[i] != s2[i] {
			t.Fatalf("row %d: loaded VAE scores %v, original %v", i, s2[i], scores[i])
		}
	}
}

func TestCollapseDetected(t *testing.T) {
	b, _, _ := backend.Default()
	xtr, _ := wbc(t)
	cfg := vae.DefaultConfig()
	cfg.MaxEpochs = 1
	cfg.LearningRate = 1e-9 // untrained: decoder output ≈ constant, but KL not ≈ 0
	v, err := vae.Train(b, xtr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	// Force the textbook collapse: decoder outputs 0 (the mean), encoder outputs μ=0, logvar=0.
	last := &v.Decoder.Layers[len(v.Decoder.Layers)-1]
	clear(last.W)
	clear(last.B)
	enc := &v.Encoder.Layers[len(v.Encoder.Layers)-1]
	clear(enc.W)
	clear(enc.B)
	d, err := v.Diagnose(b, xtr)
	if err != nil {
		t.Fatal(err)
	}
	if !d.Collapsed || d.Warning == "" {
		t.Errorf("a VAE that outputs the mean was not flagged as collapsed: %+v", d)
	}
}
