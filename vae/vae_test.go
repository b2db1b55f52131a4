package vae_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/quce-go/quce/backprop"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/vae"
)

func wbc(t testing.TB) (xtr, xte [][]float32) {
	t.Helper()
	xtr, xte, _, _ = modeltest.Split(t, data.WBC())
	return xtr, xte
}

// trainedWBC is the default VAE on W-BC, trained once for the tests that only read it.
var trainedWBC = modeltest.Once("W-BC", func(t testing.TB) (*vae.VAE, error) {
	xtr, _ := wbc(t)
	return vae.Train(modeltest.Backend(t), xtr, vae.DefaultConfig())
})

// Mixed data: x0, a one-hot block of 3 categories (columns 1 to 3), x1. The category is the
// third of the standard normal that x0 falls in, so a VAE can reconstruct it from a code.
const (
	mixedFeatures = 5
	mixedRowCount = 400
)

var mixedBlock = vae.Block{Start: 1, Width: 3}

// mixedRows makes n standardised rows of mixed data and their categories.
func mixedRows(n int, seed uint64) (X [][]float32, cats []int) {
	rng := rand.New(rand.NewPCG(seed, 1))
	const tertile = 0.4307 // Φ⁻¹(2/3)
	for range n {
		x0, x1 := rng.NormFloat64(), rng.NormFloat64()
		c := 1
		if x0 < -tertile {
			c = 0
		} else if x0 > tertile {
			c = 2
		}
		row := []float32{float32(x0), 0, 0, 0, float32(x1)}
		row[mixedBlock.Start+c] = 1
		X, cats = append(X, row), append(cats, c)
	}
	return X, cats
}

// mixedConfig is a small VAE for the mixed data.
func mixedConfig() vae.Config {
	return vae.Config{
		Encoder: []int{32}, Latent: 2, Decoder: []int{32}, Sigma: 0.5, Categorical: []vae.Block{mixedBlock},
		MaxEpochs: 300, Patience: 20, ValFraction: 0.1, BatchSize: 32, LearningRate: 3e-3, Seed: 1,
	}
}

// trainedMixed is the mixed-data VAE.
var trainedMixed = modeltest.Once("mixed", func(t testing.TB) (*vae.VAE, error) {
	X, _ := mixedRows(mixedRowCount, 1)
	return vae.Train(modeltest.Backend(t), X, mixedConfig())
})

// TestMixedLikelihood checks the reconstruction and the loss of the mixed data against their
// definitions, computed here from the reconstruction: within the block r is a probability
// vector, and trained − paper form = ½ Σ_{Gaussian j} (x_j − r_j)²/σ² + CE − (1/J) Σ_j (x_j − r_j)²
// with CE = −Σ_k x_k·log r_k over the block (the KL cancels).
func TestMixedLikelihood(t *testing.T) {
	b := modeltest.Backend(t)
	v := trainedMixed(t)
	X, _ := mixedRows(200, 2)
	recon, err := v.Reconstruct(b, X)
	if err != nil {
		t.Fatal(err)
	}
	trained, err := v.Scores(b, X, vae.Trained)
	if err != nil {
		t.Fatal(err)
	}
	paper, err := v.Scores(b, X, vae.Paper)
	if err != nil {
		t.Fatal(err)
	}
	d, err := v.Diagnose(b, X)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("epochs %d; %+v", v.Epochs, d)
	var mse float64
	for i, r := range recon {
		var sum, gauss, ce, sq float64
		for j, x := range X[i] {
			e := float64(x - r[j])
			sq += e * e
			if j >= mixedBlock.Start && j < mixedBlock.Start+mixedBlock.Width {
				if r[j] < 0 || r[j] > 1 {
					t.Fatalf("row %d: block reconstruction %v is not in [0, 1]", i, r)
				}
				sum += float64(r[j])
				ce -= float64(x) * math.Log(float64(r[j]))
			} else {
				gauss += e * e
			}
		}
		if math.Abs(sum-1) > 1e-5 {
			t.Fatalf("row %d: block reconstruction %v sums to %v, want 1", i, r, sum)
		}
		sigma := v.Config.Sigma
		want := 0.5*gauss/(sigma*sigma) + ce - sq/mixedFeatures
		if got := float64(trained[i] - paper[i]); math.Abs(got-want) > 1e-4*(1+math.Abs(want)) {
			t.Fatalf("row %d: trained − paper form = %v, want %v", i, got, want)
		}
		mse += sq
	}
	mse /= float64(len(X) * mixedFeatures)
	if math.Abs(mse-d.ReconMSE) > 1e-5 {
		t.Errorf("Reconstruct gives MSE %.6f, Diagnose %.6f", mse, d.ReconMSE)
	}
}

// TestMixedPlausibility checks that the trained-form L_ε finds real rows more plausible than
// the same rows with a wrong category, or with a block split half and half between the right
// category and a wrong one, by a margin of ½·log 2 on average. The cross-entropy of a half and
// half block is at least log 2 whatever the decoder outputs, and a real row's can approach 0;
// with a Gaussian likelihood on the block (no Config.Categorical), half and half rows scored
// only 0.12 above the real ones.
func TestMixedPlausibility(t *testing.T) {
	b := modeltest.Backend(t)
	v := trainedMixed(t)
	X, cats := mixedRows(200, 2)
	// changed copies X with each row's block set by set, given the row's category.
	changed := func(set func(block []float32, c int)) [][]float32 {
		out := make([][]float32, len(X))
		for i, r := range X {
			out[i] = slices.Clone(r)
			block := out[i][mixedBlock.Start : mixedBlock.Start+mixedBlock.Width]
			clear(block)
			set(block, cats[i])
		}
		return out
	}
	meanScore := func(rows [][]float32) float64 {
		s, err := v.Scores(b, rows, vae.Trained)
		if err != nil {
			t.Fatal(err)
		}
		var sum float64
		for _, x := range s {
			sum += float64(x)
		}
		return sum / float64(len(s))
	}
	real := meanScore(X)
	for _, tc := range []struct {
		name string
		set  func(block []float32, c int)
	}{
		{"wrong category", func(block []float32, c int) { block[(c+1)%3] = 1 }},
		{"half and half", func(block []float32, c int) { block[c], block[(c+1)%3] = 0.5, 0.5 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			other := meanScore(changed(tc.set))
			t.Logf("mean L_ε: real rows %.3f, %s %.3f", real, tc.name, other)
			if margin := math.Log(2) / 2; !(other-real > margin) {
				t.Errorf("real rows score %.3f on average, %s %.3f: want the real rows lower by more than %.3f", real, tc.name, other, margin)
			}
		})
	}
}

// TestMixedGradient checks the gradient of L_ε (trained form) with respect to x against
// central differences, at rows whose block holds relaxed values in (0, 1) that need not sum
// to 1, as during the search.
func TestMixedGradient(t *testing.T) {
	b := modeltest.Backend(t)
	v := trainedMixed(t)
	X, _ := mixedRows(40, 3)
	rng := rand.New(rand.NewPCG(3, 1))
	for _, r := range X {
		for k := range mixedBlock.Width {
			r[mixedBlock.Start+k] = float32(0.05 + 0.9*rng.Float64())
		}
	}
	// Each row, then the row moved by +h and by −h along each input.
	const h = 1e-3
	var points [][]float32
	for _, r := range X {
		points = append(points, r)
		for j := range r {
			for _, step := range []float32{h, -h} {
				p := slices.Clone(r)
				p[j] += step
				points = append(points, p)
			}
		}
	}
	loss, err := v.Scores(b, points, vae.Trained)
	if err != nil {
		t.Fatal(err)
	}
	out, err := ExecOnce(b, func(x *Node) *Node {
		return Gradient(ReduceAllSum(v.PointLoss(x, nil, vae.Trained)), x)[0]
	}, tensors.FromFlatDataAndDimensions(slices.Concat(points...), len(points), mixedFeatures))
	if err != nil {
		t.Fatal(err)
	}
	grad, err := tensors.CopyFlatData[float32](out)
	if err != nil {
		t.Fatal(err)
	}
	// The networks' ReLU kinks make L_ε piecewise smooth. Where a kink lies within ±h, the
	// gradient jumps by some Δ there and the central difference is off by up to Δ/2; the
	// gradient's second difference along the input is then about Δ, where a smooth stretch
	// gives h²·L‴ (below 1e-5 here). So an input whose second difference exceeds 1e-3 is
	// skipped, and few may be. Undetected kinks then cost at most 5e-4, and float32 rounding
	// of L_ε ≈ 2 to 5 (about 1e-6) another 1e-6/(2h) = 5e-4: hence the absolute 2e-3 beside
	// the relative 1e-2.
	const tolAbs, tolRel, kink = 2e-3, 1e-2, 1e-3
	stride := 1 + 2*mixedFeatures
	skipped := 0
	for i := range X {
		for j := range mixedFeatures {
			at, plus, minus := i*stride, i*stride+1+2*j, i*stride+2+2*j
			g := float64(grad[at*mixedFeatures+j])
			gPlus, gMinus := float64(grad[plus*mixedFeatures+j]), float64(grad[minus*mixedFeatures+j])
			if math.Abs(gPlus+gMinus-2*g) > kink {
				skipped++
				continue
			}
			fd := float64(loss[plus]-loss[minus]) / (2 * h)
			if math.Abs(fd-g) > tolAbs+tolRel*math.Abs(g) {
				t.Errorf("row %d, input %d (%v): gradient %.5f, central difference %.5f", i, j, X[i], g, fd)
			}
		}
	}
	checked := len(X) * mixedFeatures
	t.Logf("%d of %d inputs skipped at a kink", skipped, checked)
	if skipped > checked/10 {
		t.Errorf("%d of %d inputs straddle a kink; want at most a tenth", skipped, checked)
	}
}

// TestMixedSampledCodes checks the sampled-code path (training's, and the search's with
// samples) against the mean code: with zero noise every sampled code is μ(x), so both forms of
// L_ε must agree.
func TestMixedSampledCodes(t *testing.T) {
	b := modeltest.Backend(t)
	v := trainedMixed(t)
	X, _ := mixedRows(50, 4)
	const samples = 3
	latent := v.Config.Latent
	noise := tensors.FromFlatDataAndDimensions(make([]float32, samples*len(X)*latent), samples, len(X), latent)
	out, err := ExecOnceN(b, func(x, noise *Node) []*Node {
		return []*Node{
			v.PointLoss(x, nil, vae.Trained), v.PointLoss(x, noise, vae.Trained),
			v.PointLoss(x, nil, vae.Paper), v.PointLoss(x, noise, vae.Paper),
		}
	}, tensors.FromFlatDataAndDimensions(slices.Concat(X...), len(X), mixedFeatures), noise)
	if err != nil {
		t.Fatal(err)
	}
	for f, form := range []vae.Form{vae.Trained, vae.Paper} {
		mean, _ := tensors.CopyFlatData[float32](out[2*f])
		sampled, _ := tensors.CopyFlatData[float32](out[2*f+1])
		for i := range mean {
			if math.Abs(float64(mean[i]-sampled[i])) > 1e-5*(1+math.Abs(float64(mean[i]))) {
				t.Fatalf("%v, row %d: %v with the mean code, %v with zero noise", form, i, mean[i], sampled[i])
			}
		}
	}
}

func TestTrainNotCollapsed(t *testing.T) {
	b := modeltest.Backend(t)
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
	b := modeltest.Backend(t)
	xtr, _ := wbc(t)
	xmixed, _ := mixedRows(mixedRowCount, 1)
	for _, tc := range []struct {
		name     string
		X        [][]float32
		cfg      vae.Config
		wantVars int
	}{
		// Encoder 30→128→64→30 and decoder 15→64→128→30: 3 layers each, weights and biases.
		{"W-BC", xtr, vae.DefaultConfig(), 12},
		// Encoder 5→32→4 and decoder 2→32→5: 2 layers each.
		{"mixed", xmixed, mixedConfig(), 8},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.MaxEpochs = 3
			modeltest.CheckSeededTraining(t, func(seed uint64) *model.Store {
				cfg.Seed = seed
				v, err := vae.Train(b, tc.X, cfg)
				if err != nil {
					t.Fatal(err)
				}
				return v.Store()
			}, tc.wantVars, "/decoder/output/dense/weights")
		})
	}
}

func TestSaveLoad(t *testing.T) {
	b := modeltest.Backend(t)
	_, xte := wbc(t)
	xmixed, _ := mixedRows(100, 2)
	for _, tc := range []struct {
		name string
		v    *vae.VAE
		X    [][]float32
	}{
		{"W-BC", trainedWBC(t), xte},
		{"mixed", trainedMixed(t), xmixed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := tc.v
			dir := filepath.Join(t.TempDir(), "vae")
			if err := v.Save(dir); err != nil {
				t.Fatal(err)
			}
			v2, err := vae.Load(dir)
			if err != nil {
				t.Fatal(err)
			}
			if v2.Epochs != v.Epochs || v2.NumFeatures() != v.NumFeatures() || !reflect.DeepEqual(v2.Config, v.Config) {
				t.Errorf("loaded epochs %d, features %d, config %+v; want %d, %d, %+v",
					v2.Epochs, v2.NumFeatures(), v2.Config, v.Epochs, v.NumFeatures(), v.Config)
			}
			for _, form := range []vae.Form{vae.Trained, vae.Paper} {
				s1, err := v.Scores(b, tc.X, form)
				if err != nil {
					t.Fatal(err)
				}
				s2, err := v2.Scores(b, tc.X, form)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(s1, s2) {
					t.Errorf("%v: the loaded VAE scores differently", form)
				}
			}
			r1, _ := v.Reconstruct(b, tc.X)
			r2, _ := v2.Reconstruct(b, tc.X)
			for i := range r1 {
				if !slices.Equal(r1[i], r2[i]) {
					t.Fatalf("row %d: the loaded VAE reconstructs differently", i)
				}
			}
		})
	}
}

func TestDamagedSave(t *testing.T) {
	v := trainedWBC(t)
	modeltest.CheckDamageDetected(t, v.Save, vae.Load)
}

func TestBadInput(t *testing.T) {
	b := modeltest.Backend(t)
	X := [][]float32{{0, 1}, {1, 0}, {1, 1}, {0, 0}}
	mixed, _ := mixedRows(4, 1)
	standardised := slices.Clone(mixed)
	standardised[2] = []float32{0.3, 0, -0.7, 1, 0.1}
	blocks := func(b ...vae.Block) func(*vae.Config) { return func(c *vae.Config) { c.Categorical = b } }
	good := vae.DefaultConfig()
	good.MaxEpochs = 1
	with := modeltest.Variants(good)
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
		{"block of width 1", mixed, with(blocks(vae.Block{Start: 1, Width: 1})), "block 0 (start 1, width 1) has fewer than 2 columns"},
		{"negative block start", mixed, with(blocks(vae.Block{Start: -1, Width: 3})), "covers columns -1 to 1"},
		{"block past the last column", mixed, with(blocks(vae.Block{Start: 3, Width: 3})), "covers columns 3 to 5, but the rows have columns 0 to 4"},
		{"blocks out of order", mixed, with(blocks(vae.Block{Start: 3, Width: 2}, vae.Block{Start: 1, Width: 2})), "block 1 (start 1, width 2) starts before block 0"},
		{"overlapping blocks", mixed, with(blocks(mixedBlock, vae.Block{Start: 3, Width: 2})), "block 1 (start 3, width 2) overlaps block 0 (columns 1 to 3)"},
		{"standardised block", standardised, with(blocks(mixedBlock)), "row 2, column 2 (categorical block 0) is -0.7"},
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
	b := modeltest.Backend(t)
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

// TestStepBudget: training stops at MaxSteps even before early stopping would, and reports
// its progress.
func TestStepBudget(t *testing.T) {
	xtr, _ := wbc(t)
	cfg := vae.DefaultConfig()
	cfg.MaxSteps = 20
	done, total := 0, 0
	cfg.Progress = func(d, tot int) { done, total = d, tot }
	v, err := vae.Train(modeltest.Backend(t), xtr, cfg)
	if err != nil {
		t.Fatal(err)
	}
	perEpoch := (len(xtr) - int(float64(len(xtr))*cfg.ValFraction)) / cfg.BatchSize
	if done != 20 || total != 20 || v.Epochs != (20+perEpoch-1)/perEpoch {
		t.Errorf("progress ended at %d of %d steps after %d epochs; want 20 of 20 after %d", done, total, v.Epochs, (20+perEpoch-1)/perEpoch)
	}
	// Each epoch's steps (and its validation loss) ran in one graph execution.
	if v.Training.Steps != 20 || v.Training.Executions != v.Epochs {
		t.Errorf("%d steps in %d executions, want 20 in one per epoch (%d)", v.Training.Steps, v.Training.Executions, v.Epochs)
	}
}

// TestTapedLossGradient checks LossPartsTaped's gradient (both networks differentiated by
// their hand-written backward passes, package backprop) against autodiff's through LossParts,
// for both forms, with the mean code and with sampled codes, on W-BC and on mixed data with
// relaxed blocks.
func TestTapedLossGradient(t *testing.T) {
	b := modeltest.Backend(t)
	xtr, _ := wbc(t)
	mixed, _ := mixedRows(30, 5)
	rng := rand.New(rand.NewPCG(5, 1))
	for _, r := range mixed {
		for k := range mixedBlock.Width {
			r[mixedBlock.Start+k] = float32(0.05 + 0.9*rng.Float64())
		}
	}
	for _, tc := range []struct {
		name    string
		v       *vae.VAE
		rows    [][]float32
		samples int
	}{
		{"W-BC, mean code", trainedWBC(t), xtr[:40], 0},
		{"W-BC, 3 sampled codes", trainedWBC(t), xtr[:40], 3},
		{"mixed, mean code", trainedMixed(t), mixed, 0},
		{"mixed, 2 sampled codes", trainedMixed(t), mixed, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			j, l := tc.v.NumFeatures(), tc.v.Config.Latent
			noise := make([]float32, max(1, tc.samples)*len(tc.rows)*l)
			for k := range noise {
				noise[k] = float32(rng.NormFloat64())
			}
			out, err := ExecOnceN(b, func(x, n *Node) []*Node {
				if tc.samples == 0 {
					n = nil
				}
				var res []*Node
				for _, form := range []vae.Form{vae.Trained, vae.Paper} {
					tape := new(backprop.Tape)
					hand := ReduceAllSum(tc.v.Combine(tc.v.LossPartsTaped(tape, x, n), form))
					auto := ReduceAllSum(tc.v.Combine(tc.v.LossParts(x, n), form))
					res = append(res, hand, auto, tape.Gradient(hand, x), Gradient(auto, x)[0])
				}
				return res
			}, tensors.FromFlatDataAndDimensions(slices.Concat(tc.rows...), len(tc.rows), j),
				tensors.FromFlatDataAndDimensions(noise, max(1, tc.samples), len(tc.rows), l))
			if err != nil {
				t.Fatal(err)
			}
			for f, form := range []vae.Form{vae.Trained, vae.Paper} {
				get := func(i int) []float32 { return tensors.MustCopyFlatData[float32](out[4*f+i]) }
				hand, auto := get(0)[0], get(1)[0]
				if d := math.Abs(float64(hand - auto)); d > 1e-5*math.Abs(float64(auto)) {
					t.Errorf("%v: loss %v taped, %v autodiff", form, hand, auto)
				}
				gh, ga := get(2), get(3)
				scale, worst := 0.0, 0.0
				for i := range ga {
					scale = max(scale, math.Abs(float64(ga[i])))
					worst = max(worst, math.Abs(float64(gh[i]-ga[i])))
				}
				if worst > 1e-5*scale || math.IsNaN(worst) {
					t.Errorf("%v: gradients differ by up to %.3g (largest %.3g), want ≤ 1e-5 relative", form, worst, scale)
				}
			}
		})
	}
}

// A cancelled Config.Context stops training before its next graph execution, with an error
// that names the model and wraps the cause.
func TestTrainCancelled(t *testing.T) {
	xtr, _ := wbc(t)
	ctx, cancel := context.WithCancel(context.Background())
	cfg := vae.DefaultConfig()
	cfg.Context = ctx
	cfg.Progress = func(done, _ int) { cancel() } // after the first epoch
	_, err := vae.Train(modeltest.Backend(t), xtr, cfg)
	perEpoch := (len(xtr) - int(float64(len(xtr))*cfg.ValFraction)) / cfg.BatchSize
	if want := fmt.Sprintf("vae: training stopped after %d steps", perEpoch); !errors.Is(err, context.Canceled) || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("got %v, want %q…, wrapping context.Canceled", err, want)
	}
}
