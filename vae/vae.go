// Package vae is the variational autoencoder whose loss QUCE uses as the uncertainty (or
// implausibility) of a point. It is an ordinary GoMLX model: the variables live in a
// model.Store, the two networks are model functions, training runs GoMLX's optimizer.Adam in
// the loop the classifier shares (package internal/trainloop: an epoch to a graph
// execution, the rows kept on the device), and Save writes a GoMLX checkpoint.
//
// The encoder maps a row x of J inputs to q(z|x) = N(μ(x), diag(exp(logvar(x)))); the prior
// is N(0, I); the decoder maps a code z to J outputs x̂ = dec(z). Both networks are dense
// layers with ReLU (layers.DenseWithBias and activation.Relu) and a linear output: the encoder
// Config.Encoder hidden layers then 2·latent outputs (μ, then logvar), in scope "encoder"; the
// decoder Config.Decoder hidden layers then J outputs, in scope "decoder". logvar is clipped
// to [−10, 10] so exp(logvar) can neither overflow nor vanish for points far from the data.
//
// The likelihood p(x|z) suits each kind of input. A standardised numeric input j is Gaussian
// with mean x̂_j and fixed standard deviation σ. A categorical column comes as a one-hot block
// of 0/1 inputs (Config.Categorical) and is categorical, with the probabilities
// softmax(x̂_block) of the block's outputs; its negative log-likelihood is the cross-entropy
// −Σ_k x_k·log softmax(x̂_block)_k. A Gaussian would not do for such a block: a decoder can
// output any numbers, so a relaxed point such as (0.5, 0.5) is reconstructed about as closely
// as a real category and looks nearly as plausible, whereas the cross-entropy of a block that
// sums to 1 is at least its entropy (log 2 for half/half), 0 only for a real category. The
// cross-entropy takes soft targets, because the QUCE search relaxes a block to any values in
// [0, 1]; being linear in them, it ranks blocks only among values that sum to 1 (a block of
// zeros costs 0), so the search must keep each block there. The reconstruction r, used for
// ε = |x − r| and the paper form below, is softmax(x̂_block) within a block (so it lies in
// [0, 1] and sums to 1) and x̂ elsewhere.
//
// Training minimises the negative ELBO, ½ Σ_{Gaussian j} (x_j − x̂_j)²/σ² + Σ_blocks CE + KL,
// with one reparameterised code z = μ + exp(½ logvar)·ε per row, on minibatches with Adam
// (β = 0.9, 0.999, ε = 1e-8, as in PyTorch), and stops early: after each epoch the loss with
// the mean code z = μ is measured on a held-out validation split, training stops after
// Patience epochs without improvement, and the weights of the best epoch are kept. The
// initialisation, the split, the shuffling and the noise all derive from Config.Seed, so the
// same data and configuration train bit-identical weights on the same backend.
//
// The paper's form of the loss, (1/J) Σ_j (x_j − r_j)² + KL, collapses the VAE on
// standardised data (the averaged reconstruction term acts like a noise variance of J/2 per
// feature, which no latent dimension beats; see docs/METHOD.md), so it is only reported as a
// metric beside the trained form, never trained on. The decoder's outputs become the
// reconstruction in one function and the terms of both forms in one more built on it
// (reconstruction and fit, below); LossParts, Combine, PointLoss, Reconstruction, Scores,
// Diagnose and training all go through them, so the QUCE objective, the Go-side scores and
// the metrics share one definition.
//
// The methods that take a *Node (Encode, Decode, LossParts, Combine, PointLoss,
// Reconstruction) build the trained VAE into that node's graph with its weights as constants
// (package gomlxmodel). Store, EncoderFn and DecoderFn give the same model to a user's own
// GoMLX code, and a folder written by Save loads with plain
// checkpoint.Load(store).Dir(dir).Done().
package vae

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/gomlx/compute"
	. "github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
	"github.com/gomlx/gomlx/ml/layers"
	"github.com/gomlx/gomlx/ml/layers/activation"
	"github.com/gomlx/gomlx/ml/model"

	"github.com/quce-go/quce/backprop"
	"github.com/quce-go/quce/gomlxmodel"
	"github.com/quce-go/quce/internal/budget"
	"github.com/quce-go/quce/internal/savedmodel"
	"github.com/quce-go/quce/internal/signature"
	"github.com/quce-go/quce/internal/trainloop"
)

// logvarBound clips logvar(x) to [−logvarBound, logvarBound].
const logvarBound = 10

// Block is a one-hot block of inputs: Start, Start+1, …, Start+Width−1 (Width ≥ 2).
type Block struct {
	Start int `json:"start"`
	Width int `json:"width"`
}

// Config holds the architecture and training settings.
type Config struct {
	Encoder      []int   `json:"encoder"`       // encoder hidden widths (input and 2·latent are added)
	Latent       int     `json:"latent"`        // latent dimensions
	Decoder      []int   `json:"decoder"`       // decoder hidden widths
	Sigma        float64 `json:"sigma"`         // fixed standard deviation σ of the Gaussian inputs
	MaxEpochs    int     `json:"max_epochs"`    // upper bound on passes over the data
	Patience     int     `json:"patience"`      // epochs without validation improvement before stopping
	ValFraction  float64 `json:"val_fraction"`  // share of training rows held out for early stopping
	BatchSize    int     `json:"batch_size"`    // rows per Adam step
	LearningRate float64 `json:"learning_rate"` // Adam step size
	Seed         uint64  `json:"seed"`          // initialisation, shuffling, validation split, noise
	// MaxSteps bounds the Adam steps whatever the rows (0: DefaultMaxSteps); on large data
	// batches also grow (package internal/budget), so training cost stays bounded.
	MaxSteps int `json:"max_steps"`
	// Progress, if set, is told the steps done and the most there will be after each epoch.
	Progress budget.Progress `json:"-"`
	// Context, if set, stops training between graph executions once it is cancelled (Train
	// then returns an error wrapping its cause).
	Context context.Context `json:"-"`
	// Categorical lists the one-hot blocks, in column order, that have a categorical
	// likelihood; every other input is Gaussian. Omitted from JSON when empty, so a numeric
	// configuration encodes (and keys caches) as before.
	Categorical []Block `json:"categorical,omitempty"`
}

// DefaultMaxSteps is the default bound on training steps: at most 300 epochs take 1 800
// steps on W-BC and 3 300 on German credit, so it binds only on larger data.
const DefaultMaxSteps = 4000

// DefaultConfig is the architecture of the issue (30→128→64→2·15, 15→64→128→30), σ = 0.5,
// Adam 3e-3 on batches of 64, at most 300 epochs with patience 20 on a 10% validation split.
//
// σ = 0.5 was chosen on W-BC: σ = 1 over-weights the KL term and reconstructs much worse,
// σ = 0.3 reconstructs a little better with twice the KL and trains slower (docs/METHOD.md).
func DefaultConfig() Config {
	return Config{
		Encoder: []int{128, 64}, Latent: 15, Decoder: []int{64, 128}, Sigma: 0.5,
		MaxEpochs: 300, Patience: 20, ValFraction: 0.1, BatchSize: 64, LearningRate: 3e-3, Seed: 1,
		MaxSteps: DefaultMaxSteps,
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
	case c.MaxSteps < 0:
		return fmt.Errorf("vae: max steps = %d; fix: use 0 (the default bound) or a positive number", c.MaxSteps)
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

// checkBlocks reports the first categorical block that does not fit rows of j inputs: each
// must lie within them, have at least 2 columns, and come after the one before it without
// overlapping it.
func (c Config) checkBlocks(j int) error {
	for i, b := range c.Categorical {
		name := fmt.Sprintf("categorical block %d (start %d, width %d)", i, b.Start, b.Width)
		if b.Width < 2 {
			return fmt.Errorf("vae: %s has fewer than 2 columns; fix: give a block one 0/1 column per category, or leave a lone 0/1 column out of Config.Categorical", name)
		}
		if b.Start < 0 || b.Start+b.Width > j {
			return fmt.Errorf("vae: %s covers columns %d to %d, but the rows have columns 0 to %d; fix: make the blocks match the data's encoded columns", name, b.Start, b.Start+b.Width-1, j-1)
		}
		if i == 0 {
			continue
		}
		prev := c.Categorical[i-1]
		if b.Start < prev.Start {
			return fmt.Errorf("vae: %s starts before block %d (start %d); fix: list the blocks in column order", name, i-1, prev.Start)
		}
		if b.Start < prev.Start+prev.Width {
			return fmt.Errorf("vae: %s overlaps block %d (columns %d to %d); fix: give each column to one block at most", name, i-1, prev.Start, prev.Start+prev.Width-1)
		}
	}
	return nil
}

// Form chooses the scaling of the point loss.
type Form int

const (
	// Trained is the negative ELBO the VAE was trained on,
	// ½ Σ_{Gaussian j} (x_j − x̂_j)²/σ² + Σ_blocks −Σ_k x_k·log softmax(x̂_block)_k + KL. It is
	// L_ε inside the QUCE objective and the plausibility score.
	Trained Form = iota
	// Paper is the paper's "VAE loss", (1/J) Σ_j (x_j − r_j)² + KL with r the reconstruction,
	// reported as a metric so figures compare with the paper's tables.
	Paper
)

func (f Form) String() string {
	if f == Paper {
		return "paper (mean MSE + KL)"
	}
	return "trained (Gaussian negative ELBO)"
}

// VAE is a trained model.
type VAE struct {
	Config Config
	// Epochs is how many epochs ran before early stopping.
	Epochs int
	// Training is what the run that trained it did: epochs, steps and graph executions
	// (zero for a VAE loaded or made from a store).
	Training trainloop.Stats

	features int
	store    *model.Store      // the trained variables only (no optimizer state)
	enc, dec *gomlxmodel.Model // the same variables as graph constants
	// The same networks with their backward passes written out (package backprop).
	encNet, decNet *backprop.MLP
}

// NumFeatures is the input width J.
func (v *VAE) NumFeatures() int { return v.features }

// Store returns the trained variables of both networks, for use in the user's own GoMLX
// code with EncoderFn and DecoderFn. The VAE's graphs use a constant copy made when it was
// trained or loaded, so changing these variables does not change the VAE.
func (v *VAE) Store() *model.Store { return v.store }

// EncoderFn returns the encoder as a GoMLX model function: x [rows, J] in, [rows, 2·latent]
// out, μ in the first half and logvar (before Encode's clipping) in the second.
func (v *VAE) EncoderFn() func(scope *model.Scope, x *Node) *Node { return encoderFn(v.Config) }

// DecoderFn returns the decoder as a GoMLX model function: codes z [rows, latent] in, its
// outputs x̂ [rows, J] out (as Decode: logits within the categorical blocks).
func (v *VAE) DecoderFn() func(scope *model.Scope, z *Node) *Node {
	return decoderFn(v.Config, v.features)
}

func encoderFn(cfg Config) func(scope *model.Scope, x *Node) *Node {
	hidden := append([]int(nil), cfg.Encoder...)
	out := 2 * cfg.Latent
	return func(scope *model.Scope, x *Node) *Node { return mlp(scope.In("encoder"), x, hidden, out) }
}

func decoderFn(cfg Config, features int) func(scope *model.Scope, z *Node) *Node {
	hidden := append([]int(nil), cfg.Decoder...)
	return func(scope *model.Scope, z *Node) *Node { return mlp(scope.In("decoder"), z, hidden, features) }
}

// mlp is dense layers with ReLU in scopes "hidden_<i>", then a linear layer in "output".
func mlp(scope *model.Scope, x *Node, hidden []int, out int) *Node {
	for i, h := range hidden {
		x = activation.Relu(layers.DenseWithBias(scope.In("hidden_%d", i), x, h))
	}
	return layers.DenseWithBias(scope.In("output"), x, out)
}

// nets is the pair of networks as graph functions, on a training store's scope while
// training and on the constant copies afterwards, with the blocks that say how to read the
// decoder's outputs. The loss code below is written once for both.
type nets struct {
	encode func(x *Node) *Node // [rows, 2·latent]
	decode func(z *Node) *Node // [rows, J]
	blocks []Block
}

// scopeNets builds the networks from scope's variables. Each function may be called once
// per graph (the scopes may be entered once).
func scopeNets(scope *model.Scope, cfg Config, features int) nets {
	enc, dec := encoderFn(cfg), decoderFn(cfg, features)
	return nets{
		encode: func(x *Node) *Node { return enc(scope, x) },
		decode: func(z *Node) *Node { return dec(scope, z) },
		blocks: cfg.Categorical,
	}
}

// consts builds the trained networks with their weights as constants, recorded on t with
// their hand-written backward passes unless t is nil.
func (v *VAE) consts(t *backprop.Tape) nets {
	if t == nil {
		return nets{encode: v.enc.Forward, decode: v.dec.Forward, blocks: v.Config.Categorical}
	}
	return nets{
		encode: func(x *Node) *Node { return v.encNet.Taped(t, x) },
		decode: func(z *Node) *Node { return v.decNet.Taped(t, z) },
		blocks: v.Config.Categorical,
	}
}

func (n nets) encodeSplit(x *Node) (mu, logvar *Node) {
	h := n.encode(x)
	l := h.Shape().Dimensions[1] / 2
	mu = Slice(h, AxisRange(), AxisRange(0, l))
	logvar = ClipScalar(Slice(h, AxisRange(), AxisRange(l, 2*l)), -logvarBound, logvarBound)
	return mu, logvar
}

// Parts are the terms of L_ε per row, [rows] each, from which Combine makes either form, so a
// graph that needs both runs the networks once.
type Parts struct {
	Gauss *Node // Σ over the Gaussian inputs of (x_j − x̂_j)²
	CE    *Node // Σ over the blocks of −Σ_k x_k·log softmax(x̂_block)_k; nil without blocks
	SqErr *Node // Σ over all inputs of (x_j − r_j)², r the reconstruction (the paper form's)
	KL    *Node // KL(q(z|x) ‖ N(0, I))
	Recon *Node // the reconstruction r [rows, J]; nil when the codes are sampled
}

// reconstruction reads decoder outputs xhat [n, J] as the likelihood does: r is
// softmax(x̂_block) within each block and x̂ elsewhere; logp holds each block's
// log softmax(x̂_block), [n, width].
func reconstruction(xhat *Node, blocks []Block) (r *Node, logp []*Node) {
	if len(blocks) == 0 {
		return xhat, nil
	}
	var pieces []*Node
	col := 0 // the first column not yet in pieces
	for _, b := range blocks {
		if b.Start > col {
			pieces = append(pieces, Slice(xhat, AxisRange(), AxisRange(col, b.Start)))
		}
		lp := LogSoftmax(Slice(xhat, AxisRange(), AxisRange(b.Start, b.Start+b.Width)), 1)
		logp = append(logp, lp)
		pieces = append(pieces, Exp(lp))
		col = b.Start + b.Width
	}
	if j := xhat.Shape().Dimensions[1]; col < j {
		pieces = append(pieces, Slice(xhat, AxisRange(), AxisRange(col, j)))
	}
	return Concatenate(pieces, 1), logp
}

// fit compares rows x [n, J] with decoder outputs xhat [n, J]: the one definition of the
// reconstruction's terms of L_ε (every part but KL).
func fit(x, xhat *Node, blocks []Block) Parts {
	r, logp := reconstruction(xhat, blocks)
	sq := Square(Sub(x, r))
	p := Parts{SqErr: ReduceSum(sq, 1), Recon: r}
	if len(blocks) == 0 {
		p.Gauss = p.SqErr
		return p
	}
	gaussian := make([]float64, x.Shape().Dimensions[1]) // 1 on the Gaussian inputs
	for j := range gaussian {
		gaussian[j] = 1
	}
	for i, b := range blocks {
		clear(gaussian[b.Start : b.Start+b.Width])
		ce := Neg(ReduceSum(Mul(Slice(x, AxisRange(), AxisRange(b.Start, b.Start+b.Width)), logp[i]), 1))
		if p.CE == nil {
			p.CE = ce
		} else {
			p.CE = Add(p.CE, ce)
		}
	}
	// r = x̂ outside the blocks, so there sq is the Gaussian term's squared error.
	p.Gauss = ReduceSum(Mul(sq, ConstAsDType(x.Graph(), x.DType(), [][]float64{gaussian})), 1)
	return p
}

func (n nets) lossParts(x, noise *Node) Parts {
	mu, logvar := n.encodeSplit(x)
	// KL is built before the decoder, as it was before blocks existed: the gradients that reach
	// mu and logvar from several uses are summed in graph order, so another order would change
	// trained weights in their last bits.
	kl := KL(mu, logvar)
	if noise == nil {
		p := fit(x, n.decode(mu), n.blocks)
		p.KL = kl
		return p
	}
	s := noise.Shape().Dimensions[0]
	rows, l, j := mu.Shape().Dimensions[0], mu.Shape().Dimensions[1], x.Shape().Dimensions[1]
	z := Add(ExpandAxes(mu, 0), Mul(ExpandAxes(Exp(MulScalar(logvar, 0.5)), 0), noise)) // [S, rows, L]
	// All S·rows codes go through the decoder at once.
	xs := Reshape(BroadcastToDims(ExpandAxes(x, 0), s, rows, j), s*rows, j)
	p := fit(xs, n.decode(Reshape(z, s*rows, l)), n.blocks)
	mean := func(t *Node) *Node { return ReduceMean(Reshape(t, s, rows), 0) }
	sampled := Parts{Gauss: mean(p.Gauss), SqErr: mean(p.SqErr), KL: kl}
	if p.CE != nil {
		sampled.CE = mean(p.CE)
	}
	return sampled
}

func (n nets) pointLoss(x, noise *Node, sigma float64, form Form) *Node {
	return combine(n.lossParts(x, noise), sigma, x.Shape().Dimensions[1], form)
}

// KL is KL(q(z|x) ‖ N(0, I)) per row, summed over latent dimensions.
func KL(mu, logvar *Node) *Node {
	return MulScalar(ReduceSum(Sub(Sub(AddScalar(logvar, 1), Square(mu)), Exp(logvar)), 1), -0.5)
}

// combine makes L_ε in the given form from its parts, for rows of j inputs.
func combine(p Parts, sigma float64, j int, form Form) *Node {
	if form == Paper {
		return Add(DivScalar(p.SqErr, float64(j)), p.KL)
	}
	nll := MulScalar(p.Gauss, 0.5/(sigma*sigma))
	if p.CE != nil {
		nll = Add(nll, p.CE)
	}
	return Add(nll, p.KL)
}

// The methods below build the trained VAE into their argument's graph, with its weights as
// constants.

// Encode returns μ(x) and logvar(x) (clipped to [−10, 10]), each [rows, latent].
func (v *VAE) Encode(x *Node) (mu, logvar *Node) { return v.consts(nil).encodeSplit(x) }

// Decode returns the decoder's outputs dec(z) [rows, J] for codes z [rows, latent]: the
// Gaussian means, and within each categorical block the logits of its softmax
// (Reconstruction gives the probabilities).
func (v *VAE) Decode(z *Node) *Node { return v.dec.Forward(z) }

// LossParts returns the terms of L_ε per row (see Parts). With noise == nil the code is
// z = μ(x) (deterministic, the default); otherwise noise has shape [S, rows, latent] of
// standard normals and the reconstruction terms are averaged over the S reparameterised codes
// z = μ + exp(½ logvar)·noise. Combine makes either form of the loss from the parts.
func (v *VAE) LossParts(x, noise *Node) Parts { return v.LossPartsTaped(nil, x, noise) }

// LossPartsTaped is LossParts with both networks recorded on t with their hand-written
// backward passes, so t.Gradient differentiates anything built from the parts without
// GoMLX's autodiff going through the networks (package backprop). With t nil it is LossParts.
func (v *VAE) LossPartsTaped(t *backprop.Tape, x, noise *Node) Parts {
	return v.consts(t).lossParts(x, noise)
}

// Combine makes L_ε per row in the given form from its parts.
func (v *VAE) Combine(p Parts, form Form) *Node {
	return combine(p, v.Config.Sigma, v.features, form)
}

// PointLoss is L_ε(x) per row, shape [rows], in the given form, with the codes chosen by
// noise as in LossParts.
func (v *VAE) PointLoss(x, noise *Node, form Form) *Node {
	return v.consts(nil).pointLoss(x, noise, v.Config.Sigma, form)
}

// Reconstruction returns r [rows, J] from the mean code μ(x): dec(μ(x)), with the softmax
// taken within each categorical block, so there r is a probability vector like the 0/1
// inputs it reconstructs.
func (v *VAE) Reconstruction(x *Node) *Node {
	mu, _ := v.Encode(x)
	r, _ := reconstruction(v.Decode(mu), v.Config.Categorical)
	return r
}

// Train fits a VAE to rows X: standardised numeric inputs, and 0/1 inputs in the blocks of
// cfg.Categorical.
func Train(b compute.Backend, X [][]float32, cfg Config) (*VAE, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if len(X) < 2 {
		return nil, fmt.Errorf("vae: %d training rows; fix: provide at least 2", len(X))
	}
	j := len(X[0])
	if j == 0 {
		return nil, errors.New("vae: rows have no features")
	}
	if err := cfg.checkBlocks(j); err != nil {
		return nil, err
	}
	if err := gomlxmodel.CheckRows("vae", X, j); err != nil {
		return nil, err
	}
	if err := checkBlockValues(X, cfg.Categorical); err != nil {
		return nil, err
	}
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

	// The model's "prediction" is the per-row loss, with one code sampled from the noise
	// input; the loss is its mean, there being no labels.
	modelFn := func(scope *model.Scope, in []*Node) *Node {
		return scopeNets(scope, cfg, j).pointLoss(in[0], ExpandAxes(in[1], 0), cfg.Sigma, Trained)
	}
	meanLoss := func(_, perRow []*Node) *Node { return ReduceAllMean(perRow[0]) }
	trained, err := trainloop.Run(b, modelFn, meanLoss, trainloop.Spec{
		Model: "vae", Seed: cfg.Seed, LearningRate: cfg.LearningRate, BatchSize: cfg.BatchSize,
		MaxEpochs: cfg.MaxEpochs, MaxSteps: cmp.Or(cfg.MaxSteps, DefaultMaxSteps), Progress: cfg.Progress, Context: cfg.Context,
		Rand: rng, Inputs: []*tensors.Tensor{matrix(fit, j)},
		// One standard normal code noise per row and step, drawn step after step.
		Noise: func(steps, batch int) []*tensors.Tensor {
			noise := make([]float32, steps*batch*cfg.Latent)
			for k := range noise {
				noise[k] = float32(rng.NormFloat64())
			}
			return []*tensors.Tensor{tensors.FromFlatDataAndDimensions(noise, steps, batch, cfg.Latent)}
		},
		// The validation loss uses the mean code, as the explainer's scores do.
		Validation: &trainloop.Validation{
			Loss: func(scope *model.Scope, x *Node) *Node {
				return ReduceAllMean(scopeNets(scope, cfg, j).pointLoss(x, nil, cfg.Sigma, Trained))
			},
			Rows: matrix(val, j), Patience: cfg.Patience,
		},
	})
	if err != nil {
		return nil, err
	}
	v, err := newVAE(cfg, j, trained.Epochs, trained.Weights)
	if err != nil {
		return nil, err
	}
	v.Training = trained.Stats
	return v, nil
}

// checkBlockValues reports a training value outside [0, 1] in a categorical block: the
// cross-entropy of a negative target has no lower bound, so training would diverge, and such
// a value is most likely a one-hot column that was standardised by mistake.
func checkBlockValues(X [][]float32, blocks []Block) error {
	for i, row := range X {
		for bi, b := range blocks {
			for k, x := range row[b.Start : b.Start+b.Width] {
				if !(x >= 0 && x <= 1) {
					return fmt.Errorf("vae: row %d, column %d (categorical block %d) is %v; fix: give one-hot blocks as 0/1 values, not standardised", i, b.Start+k, bi, x)
				}
			}
		}
	}
	return nil
}

// FromStore makes a VAE of the given configuration for rows of the given width from
// variables already in store, laid out as EncoderFn and DecoderFn build them (trained in the
// user's own code, or edited). The store is kept as is; its values are copied as constants
// now, so later changes to it are not seen. Epochs is 0.
func FromStore(store *model.Store, cfg Config, features int) (*VAE, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if features <= 0 {
		return nil, fmt.Errorf("vae: %d features; fix: use at least 1", features)
	}
	if err := cfg.checkBlocks(features); err != nil {
		return nil, err
	}
	return newVAE(cfg, features, 0, store)
}

func newVAE(cfg Config, features, epochs int, store *model.Store) (*VAE, error) {
	enc, err := gomlxmodel.New(store, encoderFn(cfg), features)
	if err != nil {
		return nil, fmt.Errorf("vae: encoder: %w", err)
	}
	dec, err := gomlxmodel.New(store, decoderFn(cfg, features), cfg.Latent)
	if err != nil {
		return nil, fmt.Errorf("vae: decoder: %w", err)
	}
	if enc.NumOutputs() != 2*cfg.Latent || dec.NumOutputs() != features {
		return nil, fmt.Errorf("vae: the networks give %d and %d outputs, want %d and %d",
			enc.NumOutputs(), dec.NumOutputs(), 2*cfg.Latent, features)
	}
	encNet, err := backprop.NewMLP(store, "/encoder")
	if err != nil {
		return nil, fmt.Errorf("vae: encoder: %w", err)
	}
	decNet, err := backprop.NewMLP(store, "/decoder")
	if err != nil {
		return nil, fmt.Errorf("vae: decoder: %w", err)
	}
	return &VAE{Config: cfg, Epochs: epochs, features: features, store: store, enc: enc, dec: dec, encNet: encNet, decNet: decNet}, nil
}

// Diagnosis summarises how well the VAE fits some rows.
type Diagnosis struct {
	ReconMSE  float64 `json:"recon_mse"` // mean over rows and features of (x − r)², r = Reconstruction(x)
	KL        float64 `json:"kl"`        // mean over rows of KL(q(z|x) ‖ N(0,I))
	Variance  float64 `json:"variance"`  // mean per-feature variance of the rows
	Collapsed bool    `json:"collapsed"` // KL ≈ 0 and reconstruction ≈ the data's variance
	Warning   string  `json:"warning,omitempty"`
}

// Diagnose measures reconstruction and KL on X and detects posterior collapse: a collapsed
// VAE reconstructs every row as the mean, so its "uncertainty" says nothing about a point.
func (v *VAE) Diagnose(b compute.Backend, X [][]float32) (Diagnosis, error) {
	if err := gomlxmodel.CheckRows("vae", X, v.features); err != nil {
		return Diagnosis{}, err
	}
	results, err := ExecOnceN(b, func(x *Node) []*Node {
		p := v.LossParts(x, nil)
		out := diagnosisOuts[*Node]{mse: ReduceAllMean(Square(Sub(x, p.Recon))), kl: ReduceAllMean(p.KL)}
		return signature.Values(out.fields())
	}, matrix(X, v.features))
	if err != nil {
		return Diagnosis{}, fmt.Errorf("vae: diagnosing: %w", err)
	}
	var out diagnosisOuts[*tensors.Tensor]
	signature.Set(out.fields(), results)
	d := Diagnosis{ReconMSE: float64(tensors.ToScalar[float32](out.mse)), KL: float64(tensors.ToScalar[float32](out.kl)), Variance: meanVariance(X)}
	if d.KL < 1e-2 && d.ReconMSE > 0.9*d.Variance {
		d.Collapsed = true
		d.Warning = fmt.Sprintf("the VAE has collapsed (KL %.2g, reconstruction MSE %.3f vs data variance %.3f): its uncertainty carries no information; fix: train longer, lower sigma or widen the latent space", d.KL, d.ReconMSE, d.Variance)
	}
	return d, nil
}

// diagnosisOuts are Diagnose's program's outputs, by name: the reconstruction's mean squared
// error and the mean KL, scalars (T is *Node inside the program, *tensors.Tensor outside).
type diagnosisOuts[T any] struct{ mse, kl T }

func (o *diagnosisOuts[T]) fields() []*T { return []*T{&o.mse, &o.kl} }

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
	if err := gomlxmodel.CheckRows("vae", X, v.features); err != nil {
		return nil, err
	}
	out, err := ExecOnce(b, func(x *Node) *Node { return v.PointLoss(x, nil, form) }, matrix(X, v.features))
	if err != nil {
		return nil, fmt.Errorf("vae: scoring: %w", err)
	}
	return tensors.CopyFlatData[float32](out)
}

// Reconstruct returns the reconstruction r (see Reconstruction) of each row.
func (v *VAE) Reconstruct(b compute.Backend, X [][]float32) ([][]float32, error) {
	if err := gomlxmodel.CheckRows("vae", X, v.features); err != nil {
		return nil, err
	}
	out, err := ExecOnce(b, v.Reconstruction, matrix(X, v.features))
	if err != nil {
		return nil, fmt.Errorf("vae: reconstructing: %w", err)
	}
	flat, err := tensors.CopyFlatData[float32](out)
	if err != nil {
		return nil, err
	}
	j := v.features
	rows := make([][]float32, len(X))
	for i := range rows {
		rows[i] = flat[i*j : (i+1)*j : (i+1)*j]
	}
	return rows, nil
}

// matrix packs rows into a [len(rows), cols] float32 tensor.
func matrix(rows [][]float32, cols int) *tensors.Tensor {
	flat := make([]float32, 0, len(rows)*cols)
	for _, r := range rows {
		flat = append(flat, r...)
	}
	return tensors.FromFlatDataAndDimensions(flat, len(rows), cols)
}

// meta is what a saved VAE's manifest records besides its kind: FromStore's arguments and
// the epochs run.
type meta struct {
	Config   Config `json:"config"`
	Features int    `json:"features"`
	Epochs   int    `json:"epochs"`
}

// saved is the VAE's kind of saved model.
var saved = savedmodel.Kind[meta, *VAE]{Name: "vae", Build: func(store *model.Store, m meta) (*VAE, error) {
	v, err := FromStore(store, m.Config, m.Features)
	if err != nil {
		return nil, err
	}
	v.Epochs = m.Epochs
	return v, nil
}}

// Save writes both networks into the folder dir, created or replaced atomically, for Load
// or for EncoderFn and DecoderFn in a user's own code (package internal/savedmodel has the
// layout: one GoMLX checkpoint, and a manifest with the kind, configuration and checksums).
func (v *VAE) Save(dir string) error {
	return saved.Save(dir, v.store, meta{Config: v.Config, Features: v.features, Epochs: v.Epochs})
}

// Load reads a VAE written by Save. A damaged folder gives an error wrapping
// savedmodel.ErrCorrupt, a saved classifier one wrapping savedmodel.ErrWrongKind, and a
// missing folder one wrapping fs.ErrNotExist.
func Load(dir string) (*VAE, error) { return saved.Load(dir) }
