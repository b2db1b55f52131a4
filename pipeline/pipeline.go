// Package pipeline prepares everything an explanation needs from a dataset: the split (the
// seeded stratified one, or the user's: Options.Split, data.Dataset.Split), the scaler, the
// model to explain (the user's own, or the built-in classifier trained on the split), the
// VAE (trained models are loaded from an on-disk cache when the same data, split and
// configuration were trained before) and the QUCE explainer.
//
// Preparing is two stages. NewPlan is cheap: it resolves the Options, loads the backend,
// splits and scales the data; what a caller asks for (rows, constraints, output files) is
// checked on the Plan before anything is trained. Plan.Train then trains or loads the models
// (stopping when its context is cancelled) and builds the explainer with Options.Explainer's
// settings. Prepare is the two for a caller with nothing to check in between.
//
// The command-line tool and the notebook helpers both start here, so a notebook restart or
// a second CLI run loads the models instead of retraining them.
package pipeline

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"syscall"
	"time"

	"github.com/gomlx/compute"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/classifier"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/budget"
	"github.com/quce-go/quce/internal/savedmodel"
	"github.com/quce-go/quce/quce"
	"github.com/quce-go/quce/vae"
)

// Options say what to prepare.
type Options struct {
	Data         *data.Dataset // nil: the embedded W-BC data
	TestFraction float64       // share of rows in the test split; 0 means 0.2
	SplitSeed    int64         // seed of the stratified split
	// Split, if set, is the train/test split to use instead of the seeded one (TestFraction
	// and SplitSeed are then unused); nil: the data's own (data.Dataset.Split, from
	// data.LoadOptions.SplitColumn or data.LoadSplit) where it has one.
	Split      *data.Partition
	Classifier classifier.Config // zero value: classifier.DefaultConfig()
	// Model, if set, is the classifier to explain (a user's own: see quce.Model); the
	// built-in classifier is then not trained. Its outputs must match the data's classes:
	// one output or two for a binary target, C for C classes.
	Model quce.Model
	// ModelInput says which units Model takes ("" means raw: an exported model normally
	// standardises inside). Ignored for the built-in classifier, which takes standardised
	// units.
	ModelInput quce.Units
	// ModelOutput says whether Model outputs logits ("", the default) or probabilities.
	ModelOutput quce.Outputs
	// ModelID names Model in the cache key and the outputs (e.g. its file and SHA-256).
	ModelID string
	VAE     vae.Config // zero value: vae.DefaultConfig()
	// CacheDir holds trained models; "" disables the cache. DefaultCacheDir is the usual choice.
	CacheDir string
	// Log, if set, receives one line per phase.
	Log func(format string, args ...any)

	// ModelClasses are the data's labels in the order of Model's outputs: for one output,
	// the class of a negative logit (a probability near 0), then of a positive one; for C
	// outputs, the class each scores. nil: the data's order (Dataset.Labels: for a CSV
	// file, the labels sorted, numbers by value). A model trained with other codes (a text
	// target coded by hand, say) is read with its classes swapped without it, which the
	// model check (ModelCheck) catches.
	ModelClasses []string
	// ModelScaler, for a Model with Standardized inputs, is the standardisation it was
	// trained with (data.Dataset.ReadScaler reads one from a file); nil: the training
	// split's. It is used only for what the model is fed: the explainer still searches in
	// the training split's standardised units. ModelScalerID names it in the outputs.
	ModelScaler   *data.Scaler
	ModelScalerID string
	// AllowWeakModel explains a Model that fails its check (see ModelCheck) instead of
	// refusing it; Setup.ModelCheck says what failed. The built-in classifier is only ever
	// warned about.
	AllowWeakModel bool

	// Explainer says how the explainer runs (engine, shards, batching, memory, callbacks;
	// see quce.Settings, whose zero values suit the backend). Its Columns are the data's.
	Explainer quce.Settings
}

// Plan is the first stage of preparing, which trains nothing: the options resolved, the data,
// its split (seeded and stratified, or the user's), the scaler fitted on the training split
// and the backend. The rows, constraints and outputs a caller asks for can be checked against
// it before any model is trained (the split is the one Train's models are trained on). Make
// it with NewPlan.
type Plan struct {
	Options           Options // as resolved (defaults filled in)
	Data              *data.Dataset
	TrainIdx, TestIdx []int
	Scaler            *data.Scaler
	XTrain, XTest     [][]float64 // standardised rows of each split
	Backend           compute.Backend
	BackendInfo       backend.Info
}

// Setup is a prepared dataset with its trained models: its Plan, then what Plan.Train made.
type Setup struct {
	Plan
	// Model is the model being explained: Options.Model, or the built-in Classifier.
	Model      quce.Model
	Classifier *classifier.Classifier // the built-in classifier; nil with Options.Model
	VAE        *vae.VAE
	Explainer  *quce.Explainer

	TrainAccuracy, TestAccuracy float64
	VAETrain, VAETest           vae.Diagnosis
	// Seconds spent training each model (zero when loaded from the cache). The two train at
	// the same time, so together they take about the longer of the two, not the sum.
	ClassifierSeconds, VAESeconds float64
	Cached                        bool   // both models came from the cache
	CacheKey                      string // the cache entry's name
	Warnings                      []string

	// ModelCheck is the model's score on the training split and its judgement, made
	// before anything is trained for a user's model (see ModelCheck).
	ModelCheck *ModelCheck
}

// DefaultCacheDir is $QUCE_CACHE if set, else the user cache folder's "quce".
func DefaultCacheDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return CacheDirOr(filepath.Join(d, "quce"))
	}
	return CacheDirOr(filepath.Join(os.TempDir(), "quce-cache"))
}

// CacheDirOr is $QUCE_CACHE if set, else fallback: the one place that reads $QUCE_CACHE.
func CacheDirOr(fallback string) string {
	if d := os.Getenv("QUCE_CACHE"); d != "" {
		return d
	}
	return fallback
}

// Prepare is NewPlan then Plan.Train, for a caller with nothing to check in between.
func Prepare(opts Options) (*Setup, error) {
	p, err := NewPlan(opts)
	if err != nil {
		return nil, err
	}
	return p.Train(context.Background())
}

// NewPlan resolves the options, loads nothing but the backend, and splits and scales the
// data (see Plan).
func NewPlan(opts Options) (*Plan, error) {
	ds := opts.Data
	if ds == nil {
		ds = data.WBC()
	}
	if err := resolveOptions(&opts, ds); err != nil {
		return nil, err
	}
	b, info, err := backend.Default()
	if err != nil {
		return nil, err
	}
	trIdx, teIdx, err := split(ds, opts.Split, opts.TestFraction, opts.SplitSeed)
	if err != nil {
		return nil, err
	}
	p := &Plan{Options: opts, Data: ds, TrainIdx: trIdx, TestIdx: teIdx, Backend: b, BackendInfo: info}
	train := ds.Subset(trIdx)
	p.Scaler = ds.FitScaler(train.X)
	p.XTrain, p.XTest = p.Scaler.Transform(train.X), p.Scaler.Transform(ds.Subset(teIdx).X)
	return p, nil
}

// split is the user's split, else the seeded stratified one.
func split(ds *data.Dataset, user *data.Partition, testFraction float64, seed int64) (trainIdx, testIdx []int, err error) {
	if user == nil {
		return data.Split(ds, testFraction, seed)
	}
	if err := user.Check(ds); err != nil {
		return nil, nil, fmt.Errorf("pipeline.Options.Split: %w", err)
	}
	return slices.Sorted(slices.Values(user.Train)), slices.Sorted(slices.Values(user.Test)), nil
}

// Train trains (or loads) the models and builds the explainer. The classifier and the VAE,
// when the cache lacks them, train at the same time; Options.Log may be called from either
// (one call at a time). Training stops between executions once ctx is cancelled (the cache's
// files are written whole or not at all).
func (p *Plan) Train(ctx context.Context) (*Setup, error) {
	s := &Setup{Plan: *p}
	s.Options.Classifier.Context, s.Options.VAE.Context = ctx, ctx
	logf := s.Options.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	train, test := s.Data.Subset(s.TrainIdx), s.Data.Subset(s.TestIdx)
	xtr, xte := data.ToFloat32(s.XTrain), data.ToFloat32(s.XTest)

	// A user's model is scored before anything is trained, so a model read with its
	// classes in the wrong order or fed the wrong units is refused at once.
	var clf *quce.Classifier
	var err error
	if s.Options.Model != nil {
		if clf, err = s.checkUserModel(logf, train.Y); err != nil {
			return nil, err
		}
	}

	clfPath, vaePath := s.cachePaths()
	if err := s.loadCachedModels(clfPath, vaePath); err != nil {
		return nil, err
	}
	// The classifier and the VAE do not depend on each other, so what the cache lacks is
	// trained at the same time, one core each on the pure-Go backend (its operations run
	// one after another, see backend.New): a training step's operations (batches of at most
	// 512 rows, layers of at most 128 units) are too small to be worth spreading over
	// cores. Every operation computes the same way alone or together, so the weights are
	// the same bits as trained alone.
	logf = serialized(logf)
	if err := s.trainMissingModels(logf, s.Backend, clfPath, vaePath, xtr, train.Y); err != nil {
		return nil, err
	}
	if s.Model == nil {
		s.Model = s.Classifier
	}
	s.Cached = s.ClassifierSeconds == 0 && s.VAESeconds == 0
	if clf == nil { // the built-in classifier: scored, and only warned about
		if clf, err = s.checkBuiltInClassifier(logf, train.Y); err != nil {
			return nil, err
		}
	}
	s.TrainAccuracy = s.ModelCheck.Accuracy
	if err := s.buildExplainer(clf); err != nil {
		return nil, err
	}
	if err := s.diagnose(logf, xtr, xte, test.Y); err != nil {
		return nil, err
	}
	return s, nil
}

// resolveOptions fills in the defaults of opts for the data ds and checks a user's model
// against the data.
func resolveOptions(opts *Options, ds *data.Dataset) error {
	if opts.TestFraction == 0 {
		opts.TestFraction = 0.2
	}
	if opts.Split == nil {
		opts.Split = ds.Split
	}
	if opts.Classifier.Epochs == 0 {
		opts.Classifier = classifier.DefaultConfig()
	}
	if opts.Model != nil {
		if opts.ModelInput == "" {
			opts.ModelInput = quce.Raw
		}
		if opts.ModelOutput == "" {
			opts.ModelOutput = quce.Logits
		}
		if err := checkModel(opts.Model, ds); err != nil {
			return err
		}
	} else {
		if opts.ModelClasses != nil || opts.ModelScaler != nil {
			return optionErrorf("{ModelClasses} and {ModelScaler} describe a user's {Model}, but none is given and the built-in classifier is trained on the data's own classes and standardisation; fix: drop them, or give {Model}")
		}
		opts.ModelInput, opts.ModelOutput = quce.Standardized, quce.Logits
	}
	if opts.VAE.MaxEpochs == 0 {
		opts.VAE = vae.DefaultConfig()
	}
	// The VAE learns a categorical column's one-hot block with a categorical likelihood.
	opts.VAE.Categorical = nil
	for _, c := range ds.Columns {
		if c.Type == data.Categorical {
			opts.VAE.Categorical = append(opts.VAE.Categorical, vae.Block{Start: c.Start, Width: c.Width})
		}
	}
	return nil
}

// checkUserModel scores a user's model on the training split (labels trainY) and refuses
// it, unless AllowWeakModel, when it fails its check.
func (s *Setup) checkUserModel(logf func(string, ...any), trainY []int) (*quce.Classifier, error) {
	opts, ds := s.Options, s.Data
	clf, err := userClassifier(opts, ds, s.Scaler)
	if err != nil {
		return nil, err
	}
	if s.ModelCheck, err = scoreModel(s.Backend, clf, opts, ds, s.XTrain, trainY, s.TrainIdx); err != nil {
		return nil, err
	}
	logModelCheck(logf, s.ModelCheck)
	if s.ModelCheck.Weak && !opts.AllowWeakModel {
		return nil, refusal(s.ModelCheck, opts, ds)
	}
	if s.ModelCheck.Weak {
		s.Warnings = append(s.Warnings, fmt.Sprintf("the model %s fails the check before explaining (%s); it is explained anyway, as asked", modelName(opts), s.ModelCheck.Problem))
	}
	return clf, nil
}

// cachePaths sets s.CacheKey and returns where the cache keeps the classifier and the VAE:
// "" without a cache, where nothing is loaded or saved.
func (s *Setup) cachePaths() (clfPath, vaePath string) {
	s.CacheKey = cacheKey(s.Data, s.Options, s.BackendInfo.Config)
	if s.Options.CacheDir != "" {
		dir := filepath.Join(s.Options.CacheDir, s.CacheKey)
		clfPath, vaePath = filepath.Join(dir, "classifier"), filepath.Join(dir, "vae")
	}
	return clfPath, vaePath
}

// loadCachedModels sets s.Model to the user's model, or loads the built-in classifier from
// the cache, and loads the VAE from the cache; what the cache lacks stays nil.
func (s *Setup) loadCachedModels(clfPath, vaePath string) error {
	var err error
	s.Model = s.Options.Model
	if s.Model == nil {
		if s.Classifier, err = loadCached(clfPath, classifier.Load, s); err != nil {
			return err
		}
	}
	if s.VAE, err = loadCached(vaePath, vae.Load, s); err != nil {
		return err
	}
	return nil
}

// trainMissingModels trains on tb, at the same time, the models that neither the user gave
// nor the cache held, on the standardised training rows xtr with labels trainY, and saves
// them to the cache.
func (s *Setup) trainMissingModels(logf func(string, ...any), tb compute.Backend, clfPath, vaePath string, xtr [][]float32, trainY []int) error {
	opts, ds := s.Options, s.Data
	var training sync.WaitGroup
	var clfErr, vaeErr error
	var clfUnsaved, vaeUnsaved string // why a trained model could not be cached
	if s.Model == nil && s.Classifier == nil {
		training.Go(func() {
			logf("training the classifier %v on %d rows", opts.Classifier.Hidden, len(xtr))
			s.Classifier, s.ClassifierSeconds, clfUnsaved, clfErr = trainModel(logf, "classifier", clfPath,
				func(p budget.Progress) (*classifier.Classifier, error) {
					cc := opts.Classifier
					cc.Progress = p
					return classifier.Train(tb, xtr, trainY, ds.NumClasses(), cc)
				})
		})
	}
	if s.VAE == nil {
		logf("training the VAE (latent %d) on %d rows", opts.VAE.Latent, len(xtr))
		s.VAE, s.VAESeconds, vaeUnsaved, vaeErr = trainModel(logf, "VAE", vaePath, func(p budget.Progress) (*vae.VAE, error) {
			vc := opts.VAE
			vc.Progress = p
			return vae.Train(tb, xtr, vc)
		})
	}
	training.Wait()
	if err := errors.Join(clfErr, vaeErr); err != nil {
		return err
	}
	for _, w := range []string{clfUnsaved, vaeUnsaved} {
		if w != "" {
			s.Warnings = append(s.Warnings, w)
		}
	}
	return nil
}

// checkBuiltInClassifier scores the built-in classifier on the training split (labels
// trainY) and warns when it is weak.
func (s *Setup) checkBuiltInClassifier(logf func(string, ...any), trainY []int) (*quce.Classifier, error) {
	opts := s.Options
	clf, err := quce.NewClassifier(s.Model, opts.ModelInput, opts.ModelOutput, s.Scaler)
	if err != nil {
		return nil, err
	}
	if s.ModelCheck, err = scoreModel(s.Backend, clf, opts, s.Data, s.XTrain, trainY, s.TrainIdx); err != nil {
		return nil, err
	}
	logModelCheck(logf, s.ModelCheck)
	if s.ModelCheck.Weak {
		s.Warnings = append(s.Warnings, fmt.Sprintf("the built-in classifier is weak on the %d training rows: %s; its explanations describe a model that has learnt little", s.ModelCheck.Rows, s.ModelCheck.Problem))
	}
	return clf, nil
}

// buildExplainer makes the QUCE explainer of the classifier clf and the VAE, with the data's
// columns, the pairs of category values its training split holds, and the settings of
// Options.Explainer.
func (s *Setup) buildExplainer(clf *quce.Classifier) error {
	settings := s.Options.Explainer
	settings.Columns = s.Data.Columns
	settings.SeenCategories = data.SeenCombinations(s.Data.Columns, s.Data.Subset(s.TrainIdx).X)
	var err error
	s.Explainer, err = quce.New(s.Backend, clf, s.VAE, s.Scaler, s.Data.Features, settings)
	return err
}

// diagnose measures the model's test accuracy and the VAE's reconstruction on both splits
// (xtr, and xte with labels testY), warns of a collapsed VAE and logs the figures.
func (s *Setup) diagnose(logf func(string, ...any), xtr, xte [][]float32, testY []int) error {
	var err error
	b := s.Backend
	if len(xte) > 0 {
		if s.TestAccuracy, err = s.accuracy(s.XTest, testY); err != nil {
			return err
		}
		if s.VAETest, err = s.VAE.Diagnose(b, xte); err != nil {
			return err
		}
	}
	if s.VAETrain, err = s.VAE.Diagnose(b, xtr); err != nil {
		return err
	}
	if s.VAETrain.Collapsed {
		s.Warnings = append(s.Warnings, s.VAETrain.Warning)
	}
	logf("classifier accuracy train %.3f test %.3f; VAE reconstruction MSE train %.3f test %.3f",
		s.TrainAccuracy, s.TestAccuracy, s.VAETrain.ReconMSE, s.VAETest.ReconMSE)
	return nil
}

// progressEvery is how often long training reports its progress.
const progressEvery = 2 * time.Second

// serialized is logf with its calls one at a time (the models train concurrently).
func serialized(logf func(string, ...any)) func(string, ...any) {
	var mu sync.Mutex
	return func(format string, args ...any) {
		mu.Lock()
		defer mu.Unlock()
		logf(format, args...)
	}
}

// trainModel trains one model with progress reported through logf, saves it to path (unless
// path is ""), and returns it with the seconds training took. A model that cannot be saved
// (a cache folder that cannot be written) is still this run's: unsaved says why it was not
// cached, for a warning, rather than failing the run after the training it waited for.
func trainModel[M interface{ Save(string) error }](logf func(string, ...any), name, path string,
	train func(budget.Progress) (M, error)) (m M, seconds float64, unsaved string, err error) {
	t0 := time.Now()
	if m, err = train(progress(logf, "training the "+name)); err != nil {
		return m, 0, "", err
	}
	seconds = time.Since(t0).Seconds()
	if path != "" {
		if serr := m.Save(path); serr != nil {
			unsaved = fmt.Sprintf("the %s was trained but could not be cached (%v), so the next run trains it again; fix: a cache folder this process can write (Options.CacheDir DIR), or no cache (Options.CacheDir \"\")", name, serr)
		}
	}
	logf("trained the %s in %.1f s", name, seconds)
	return m, seconds, unsaved, nil
}

// progress reports a training's steps through logf, at most every progressEvery, so short
// trainings stay quiet and long ones show they are moving.
func progress(logf func(string, ...any), what string) budget.Progress {
	last := time.Now()
	return func(done, total int) {
		if time.Since(last) >= progressEvery {
			last = time.Now()
			logf("%s: step %d of at most %d", what, done, total)
		}
	}
}

// accuracy is the share of standardised rows xs whose predicted class is their label.
func (s *Setup) accuracy(xs [][]float64, y []int) (float64, error) {
	probs, err := s.Explainer.Predict(xs)
	if err != nil {
		return 0, err
	}
	right := 0
	for i, p := range probs {
		if quce.PredictedClass(p, 0.5) == y[i] {
			right++
		}
	}
	return float64(right) / float64(len(probs)), nil
}

// featureNamer is a model that knows its input columns' names (an ONNX file may say).
type featureNamer interface{ FeatureNames() []string }

// checkModel checks a user's model against the data: feature count, feature names where
// the model names them, and output count against the target's classes.
func checkModel(m quce.Model, ds *data.Dataset) error {
	j, c, k := m.NumFeatures(), m.NumOutputs(), ds.NumClasses()
	if j != ds.NumFeatures() {
		return inputCountError(j, ds)
	}
	if fn, ok := m.(featureNamer); ok {
		if names := fn.FeatureNames(); len(names) == j {
			for f, n := range names {
				if n != ds.Features[f] {
					return fmt.Errorf("the model's feature %d is %q but column %d of %s is %q; fix: put the data's columns in the model's order", f+1, n, f+1, ds.Name, ds.Features[f])
				}
			}
		}
	}
	switch {
	case c == 1 && k != 2:
		return fmt.Errorf("the model has one output (a binary classifier) but the target %q of %s has %d classes; fix: use a model with %d outputs, or a binary target", ds.Target, ds.Name, k, k)
	case c > 1 && c != k:
		return fmt.Errorf("the model has %d outputs but the target %q of %s has %d classes (%s); fix: use the data the model was trained on, or a model with one output per class", c, ds.Target, ds.Name, k, shortList(ds.Labels))
	}
	return nil
}

// inputCountError says why a model taking j inputs does not fit the data ds. The data's
// inputs are its columns with each categorical column one-hot encoded, so a model that takes
// a code per categorical column (or one-hot inputs of a column read as numbers) differs by
// the encoding, not by the data: then the fix is the column types, named with the columns.
func inputCountError(j int, ds *data.Dataset) error {
	var categorical []string
	oneHot := 0
	for _, c := range ds.Columns {
		if c.Type == data.Categorical {
			categorical, oneHot = append(categorical, c.Name), oneHot+c.Width
		}
	}
	if len(categorical) > 0 && j == len(ds.Columns) {
		return fmt.Errorf("the model takes %d inputs, one per column of %s, but %s reads its categorical columns %s as %d one-hot inputs (%d inputs in all); fix: if the model takes those columns as numeric codes, read them as numbers with data.LoadOptions.Types (e.g. %s=integer), else give the model one-hot inputs",
			j, ds.Name, ds.Name, shortList(categorical), oneHot, ds.NumFeatures(), categorical[0])
	}
	return fmt.Errorf("the model takes %d inputs but %s has %d (%d columns, categorical ones one-hot encoded: %s); fix: pass the data the model was trained on, with the same feature columns and column types (data.LoadOptions.Types; and data.LoadOptions.Target naming the class column)",
		j, ds.Name, ds.NumFeatures(), len(ds.Columns), shortList(ds.Features))
}

// shortList is the first few names of a list, for messages.
func shortList(names []string) string {
	if len(names) <= 5 {
		return fmt.Sprintf("%q", names)
	}
	return fmt.Sprintf("%q …", names[:5])
}

// loadCached loads a model from the cache; no cache (path "") or a missing entry gives nil,
// and a damaged one, or one holding the other kind of model, is reported as a warning and
// retrained (the new folder replaces it atomically).
func loadCached[M any](path string, load func(string) (*M, error), s *Setup) (*M, error) {
	if path == "" {
		return nil, nil
	}
	// Nothing is cached where the path does not exist, or passes through a file (a -cache
	// that names one: saving then fails with a warning, see trainModel).
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
		return nil, nil
	}
	m, err := load(path)
	if err == nil {
		return m, nil
	}
	if errors.Is(err, savedmodel.ErrCorrupt) || errors.Is(err, savedmodel.ErrWrongKind) {
		s.Warnings = append(s.Warnings, fmt.Sprintf("damaged cache entry %s was retrained: %v", path, err))
		return nil, nil
	}
	return nil, err
}

// cacheKey names a cache entry by everything that determines the trained weights. With a
// user's model only the VAE is trained, so the classifier's settings are left out (and the
// VAE is shared by every model explained on the same data). A user's split is in the key
// by its Key (the seeded split's keys are as they were before there were user splits).
func cacheKey(ds *data.Dataset, o Options, backendConfig string) string {
	clf := &o.Classifier
	if o.Model != nil {
		clf = nil
	}
	userSplit := ""
	if o.Split != nil {
		userSplit = o.Split.Key()
	}
	key, _ := json.Marshal(struct {
		Format     string
		Data       string
		Target     string
		Features   []string
		TestFrac   float64
		SplitSeed  int64
		Classifier *classifier.Config
		VAE        vae.Config
		Backend    string
		UserSplit  string `json:",omitempty"`
	}{savedmodel.Format, ds.Checksum, ds.Target, ds.Features, o.TestFraction, o.SplitSeed, clf, o.VAE, backendConfig, userSplit})
	sum := sha256.Sum256(key)
	return hex.EncodeToString(sum[:8])
}

// WithPlausibility returns cfg with the plausibility bound that automatic λ and sparsity
// need (quce.Config.Plausibility): the q-quantile of L_ε over the training rows
// (quce.Explainer.WithBound). A cfg with neither, or with a bound already set, is returned
// as it is.
func (s *Setup) WithPlausibility(cfg quce.Config, q float64) (quce.Config, error) {
	if (cfg.Auto != nil || cfg.Sparse) && cfg.Plausibility == 0 {
		cfg.PlausibilityQuantile = q
	}
	return s.Explainer.WithBound(cfg, s.XTrain)
}
