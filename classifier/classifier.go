// Package classifier is the built-in classifier that QUCE explains when the user brings no
// model of their own: an ordinary GoMLX model, a multilayer perceptron on standardised
// features (see package data's Scaler).
//
// The network is Config.Hidden dense layers with ReLU (layers.DenseWithBias and
// activation.Relu), then a linear output layer:
//
//   - two classes: one logit z, P(y=1|x) = sigmoid(z), trained with binary cross-entropy on
//     the logits;
//   - C > 2 classes: C logits, P(y=c|x) = softmax(z)_c, trained with softmax cross-entropy on
//     labels 0..C-1.
//
// Training is the loop the VAE shares (package internal/trainloop): GoMLX's optimizer.Adam
// (β = 0.9, 0.999 and ε = 1e-8, as in PyTorch and the paper) on shuffled minibatches, for
// Config.Epochs epochs within the step budget, an epoch to a graph execution with the
// rows kept on the device. The variable initialisation
// (GoMLX's default He initialiser, seeded from the store's initializer_seed) and the
// shuffling both derive from Config.Seed, so the same data and configuration train
// bit-identical weights on the same backend.
//
// The trained variables live in a model.Store (Store), and the architecture is a model
// function (ModelFn), so a user can run the classifier in their own GoMLX code. Save writes a
// GoMLX checkpoint with a checksum manifest (package internal/savedmodel); a user loads it
// without this package's help as
//
//	store := model.NewStore()
//	_, err := checkpoint.Load(store).Dir(dir).Done()
//	logits := model.MustCallOnce(backend, store, clf.ModelFn(), x) // or inside their own graph
//
// Inside the explainer the classifier is a quce.Model: Forward builds it into another graph
// with the weights as constants (package gomlxmodel), and ForwardTaped builds the same
// network with its backward pass written out (package backprop), which is how the explainer
// takes its gradients.
package classifier

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
	"github.com/gomlx/gomlx/ml/train/loss"

	"github.com/quce-go/quce/backprop"
	"github.com/quce-go/quce/gomlxmodel"
	"github.com/quce-go/quce/internal/budget"
	"github.com/quce-go/quce/internal/savedmodel"
	"github.com/quce-go/quce/internal/trainloop"
)

// Config holds the architecture and training settings.
type Config struct {
	Hidden       []int   `json:"hidden"`        // hidden layer widths
	Epochs       int     `json:"epochs"`        // passes over the training rows
	BatchSize    int     `json:"batch_size"`    // rows per Adam step
	LearningRate float64 `json:"learning_rate"` // Adam step size
	Seed         uint64  `json:"seed"`          // weight initialisation and shuffling
	// MaxSteps bounds the Adam steps whatever the rows (0: DefaultMaxSteps); on large data
	// batches also grow (package internal/budget), so training cost stays bounded.
	MaxSteps int `json:"max_steps"`
	// Progress, if set, is told the steps done and the most there will be after each epoch.
	Progress budget.Progress `json:"-"`
	// Context, if set, stops training between graph executions once it is cancelled (Train
	// then returns an error wrapping its cause).
	Context context.Context `json:"-"`
}

// DefaultMaxSteps is the default bound on training steps: W-BC takes 1 400 and German
// credit 2 500 with the defaults, so it binds only on larger data.
const DefaultMaxSteps = 4000

// DefaultConfig is one hidden layer of 60 ReLU units, 100 epochs of Adam (lr 1e-3) on
// batches of 32: about 1 400 steps on W-BC, test accuracy ≈ 0.97; at most 4 000 steps.
func DefaultConfig() Config {
	return Config{Hidden: []int{60}, Epochs: 100, BatchSize: 32, LearningRate: 1e-3, Seed: 1, MaxSteps: DefaultMaxSteps}
}

// Validate reports the first bad setting.
func (c Config) Validate() error {
	for i, h := range c.Hidden {
		if h <= 0 {
			return fmt.Errorf("classifier: hidden layer %d has width %d; fix: use positive widths", i, h)
		}
	}
	switch {
	case c.Epochs <= 0:
		return fmt.Errorf("classifier: epochs = %d; fix: use at least 1", c.Epochs)
	case c.BatchSize <= 0:
		return fmt.Errorf("classifier: batch size = %d; fix: use at least 1", c.BatchSize)
	case c.MaxSteps < 0:
		return fmt.Errorf("classifier: max steps = %d; fix: use 0 (the default bound) or a positive number", c.MaxSteps)
	case !(c.LearningRate > 0) || math.IsInf(c.LearningRate, 0):
		return fmt.Errorf("classifier: learning rate = %v; fix: use a positive number such as 1e-3", c.LearningRate)
	}
	return nil
}

// Classifier is a trained model.
type Classifier struct {
	Config Config
	// Training is what the run that trained it did: epochs, steps and graph executions
	// (zero for a classifier loaded or made from a store).
	Training trainloop.Stats

	features int
	classes  int
	store    *model.Store      // the trained variables only (no optimizer state)
	model    *gomlxmodel.Model // the same variables as graph constants, for Forward
	net      *backprop.MLP     // the same network with its hand-written backward pass
}

// NumFeatures is the input width J.
func (c *Classifier) NumFeatures() int { return c.features }

// NumClasses is the number of classes: 2 for a binary classifier, else C.
func (c *Classifier) NumClasses() int { return c.classes }

// NumOutputs is the logits' width: 1 for a binary classifier (one logit), else C.
func (c *Classifier) NumOutputs() int { return outputsFor(c.classes) }

func outputsFor(classes int) int {
	if classes == 2 {
		return 1
	}
	return classes
}

// Forward builds the logits [rows, NumOutputs] for standardised x [rows, NumFeatures] into
// x's graph, with the weights as constants. It makes the classifier a quce.Model.
func (c *Classifier) Forward(x *Node) *Node { return c.model.Forward(x) }

// ForwardTaped builds the same logits and records them on t with the network's hand-written
// backward pass (package backprop), which the explainer's gradients use; with t nil it is
// Forward, differentiated by GoMLX's autodiff.
func (c *Classifier) ForwardTaped(t *backprop.Tape, x *Node) *Node {
	if t == nil {
		return c.Forward(x)
	}
	return c.net.Taped(t, x)
}

// Store returns the trained variables, for use in the user's own GoMLX code with ModelFn.
// The classifier's graphs use a constant copy made when it was trained or loaded, so
// changing these variables does not change the classifier.
func (c *Classifier) Store() *model.Store { return c.store }

// ModelFn returns the architecture as a GoMLX model function: standardised x
// [rows, NumFeatures] in, logits [rows, NumOutputs] out. With Store (or a store loaded from
// the saved folder with checkpoint.Load) it computes exactly what Forward does.
func (c *Classifier) ModelFn() func(scope *model.Scope, x *Node) *Node {
	return modelFn(c.Config.Hidden, c.NumOutputs())
}

// modelFn is the MLP: each hidden layer in scope "hidden_<i>", the output in "output".
func modelFn(hidden []int, outputs int) func(scope *model.Scope, x *Node) *Node {
	hidden = append([]int(nil), hidden...)
	return func(scope *model.Scope, x *Node) *Node {
		for i, h := range hidden {
			x = activation.Relu(layers.DenseWithBias(scope.In("hidden_%d", i), x, h))
		}
		return layers.DenseWithBias(scope.In("output"), x, outputs)
	}
}

// Train fits a classifier with the given number of classes to standardised rows X with
// labels y in 0..classes-1.
func Train(b compute.Backend, X [][]float32, y []int, classes int, cfg Config) (*Classifier, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if classes < 2 {
		return nil, fmt.Errorf("classifier: %d classes; fix: train on data with at least 2 classes", classes)
	}
	if len(X) == 0 || len(X) != len(y) {
		return nil, fmt.Errorf("classifier: %d rows and %d labels; fix: pass one label per row", len(X), len(y))
	}
	j := len(X[0])
	if j == 0 {
		return nil, errors.New("classifier: rows have no features")
	}
	if err := gomlxmodel.CheckRows("classifier", X, j); err != nil {
		return nil, err
	}
	for i, label := range y {
		if label < 0 || label >= classes {
			return nil, fmt.Errorf("classifier: row %d has label %d; fix: use labels 0..%d for %d classes", i, label, classes-1, classes)
		}
	}

	outputs := outputsFor(classes)
	lossFn := loss.SparseCategoricalCrossEntropyLogits
	if outputs == 1 {
		lossFn = loss.BinaryCrossentropyLogits
	}
	all := make([]int, len(X))
	for i := range all {
		all[i] = i
	}
	net := modelFn(cfg.Hidden, outputs)
	trained, err := trainloop.Run(b, func(scope *model.Scope, in []*Node) *Node { return net(scope, in[0]) }, lossFn, trainloop.Spec{
		Model: "classifier", Seed: cfg.Seed, LearningRate: cfg.LearningRate, BatchSize: cfg.BatchSize,
		MaxEpochs: cfg.Epochs, MaxSteps: cmp.Or(cfg.MaxSteps, DefaultMaxSteps), Progress: cfg.Progress, Context: cfg.Context,
		Rand:   rand.New(rand.NewPCG(cfg.Seed, 0x636c6173)),
		Inputs: []*tensors.Tensor{rowsTensor(X, all, j)}, Labels: []*tensors.Tensor{labelsTensor(y, all, outputs)},
	})
	if err != nil {
		return nil, err
	}
	c, err := newClassifier(cfg, j, classes, trained.Weights)
	if err != nil {
		return nil, err
	}
	c.Training = trained.Stats
	return c, nil
}

// FromStore makes a classifier of the given configuration from variables already in store,
// laid out as ModelFn builds them (trained in the user's own code, edited, or written by
// hand, such as a linear model with Hidden empty). The store is kept as is; its values are
// copied as constants for Forward now, so later changes to it are not seen.
func FromStore(store *model.Store, cfg Config, features, classes int) (*Classifier, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if features <= 0 || classes < 2 {
		return nil, fmt.Errorf("classifier: %d features and %d classes; fix: use at least 1 feature and 2 classes", features, classes)
	}
	return newClassifier(cfg, features, classes, store)
}

func newClassifier(cfg Config, features, classes int, store *model.Store) (*Classifier, error) {
	m, err := gomlxmodel.New(store, modelFn(cfg.Hidden, outputsFor(classes)), features)
	if err != nil {
		return nil, err
	}
	net, err := backprop.NewMLP(store, "")
	if err != nil {
		return nil, fmt.Errorf("classifier: %w", err)
	}
	return &Classifier{Config: cfg, features: features, classes: classes, store: store, model: m, net: net}, nil
}

// rowsTensor packs the rows X[idx] into a [len(idx), j] tensor.
func rowsTensor(X [][]float32, idx []int, j int) *tensors.Tensor {
	flat := make([]float32, 0, len(idx)*j)
	for _, i := range idx {
		flat = append(flat, X[i]...)
	}
	return tensors.FromFlatDataAndDimensions(flat, len(idx), j)
}

// labelsTensor is y[idx] as the loss wants it: float32 0/1 [n, 1] for one logit, int32
// class indices [n, 1] for the softmax.
func labelsTensor(y []int, idx []int, outputs int) *tensors.Tensor {
	if outputs == 1 {
		flat := make([]float32, len(idx))
		for k, i := range idx {
			flat[k] = float32(y[i])
		}
		return tensors.FromFlatDataAndDimensions(flat, len(idx), 1)
	}
	flat := make([]int32, len(idx))
	for k, i := range idx {
		flat[k] = int32(y[i])
	}
	return tensors.FromFlatDataAndDimensions(flat, len(idx), 1)
}

// Logits returns the logits [rows][NumOutputs] for standardised rows X.
func (c *Classifier) Logits(b compute.Backend, X [][]float32) ([][]float32, error) {
	if err := gomlxmodel.CheckRows("classifier", X, c.features); err != nil {
		return nil, err
	}
	idx := make([]int, len(X))
	for i := range idx {
		idx[i] = i
	}
	out, err := ExecOnce(b, c.Forward, rowsTensor(X, idx, c.features))
	if err != nil {
		return nil, fmt.Errorf("classifier: predicting: %w", err)
	}
	flat, err := tensors.CopyFlatData[float32](out)
	if err != nil {
		return nil, err
	}
	k := c.NumOutputs()
	rows := make([][]float32, len(X))
	for i := range rows {
		rows[i] = flat[i*k : (i+1)*k : (i+1)*k]
	}
	return rows, nil
}

// Predict returns the predicted class of each standardised row: for one logit, class 1
// when the logit is ≥ 0 (P ≥ 0.5); else the class with the largest logit (the first on ties).
func (c *Classifier) Predict(b compute.Backend, X [][]float32) ([]int, error) {
	logits, err := c.Logits(b, X)
	if err != nil {
		return nil, err
	}
	pred := make([]int, len(logits))
	for i, z := range logits {
		if len(z) == 1 {
			if z[0] >= 0 {
				pred[i] = 1
			}
			continue
		}
		for k := range z {
			if z[k] > z[pred[i]] {
				pred[i] = k
			}
		}
	}
	return pred, nil
}

// Accuracy is the share of rows whose predicted class (see Predict) equals the label.
func (c *Classifier) Accuracy(b compute.Backend, X [][]float32, y []int) (float64, error) {
	if len(X) != len(y) {
		return 0, fmt.Errorf("classifier: %d rows and %d labels; fix: pass one label per row", len(X), len(y))
	}
	pred, err := c.Predict(b, X)
	if err != nil {
		return 0, err
	}
	right := 0
	for i, p := range pred {
		if p == y[i] {
			right++
		}
	}
	return float64(right) / float64(len(pred)), nil
}

// meta is what a saved classifier's manifest records besides its kind: FromStore's arguments.
type meta struct {
	Config   Config `json:"config"`
	Features int    `json:"features"`
	Classes  int    `json:"classes"`
}

// saved is the classifier's kind of saved model.
var saved = savedmodel.Kind[meta, *Classifier]{Name: "classifier", Build: func(store *model.Store, m meta) (*Classifier, error) {
	return FromStore(store, m.Config, m.Features, m.Classes)
}}

// Save writes the classifier into the folder dir, created or replaced atomically: a GoMLX
// checkpoint of Store (which ModelFn reads back in a user's own code) and a manifest with
// the kind, the configuration and checksums (package internal/savedmodel).
func (c *Classifier) Save(dir string) error {
	return saved.Save(dir, c.store, meta{Config: c.Config, Features: c.features, Classes: c.classes})
}

// Load reads a classifier written by Save. A damaged folder gives an error wrapping
// savedmodel.ErrCorrupt, a saved VAE one wrapping savedmodel.ErrWrongKind, and a missing
// folder one wrapping fs.ErrNotExist.
func Load(dir string) (*Classifier, error) { return saved.Load(dir) }
