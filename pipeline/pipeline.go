// Package pipeline prepares everything an explanation needs from a dataset: the seeded
// stratified split, the scaler, the trained classifier and VAE (loaded from an on-disk
// cache when the same data and configuration were trained before) and the QUCE explainer.
//
// The command-line tool and the notebook helpers both start here, so a notebook restart or
// a second CLI run loads the models instead of retraining them.
package pipeline

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/gomlx/compute"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/classifier"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/nn"
	"github.com/quce-go/quce/quce"
	"github.com/quce-go/quce/vae"
)

// Options say what to prepare.
type Options struct {
	Data         *data.Dataset     // nil: the embedded W-BC data
	TestFraction float64           // share of rows in the test split; 0 means 0.2
	SplitSeed    int64             // seed of the stratified split
	Classifier   classifier.Config // zero value: classifier.DefaultConfig()
	VAE          vae.Config        // zero value: vae.DefaultConfig()
	// CacheDir holds trained models; "" disables the cache. DefaultCacheDir is the usual choice.
	CacheDir string
	// Log, if set, receives one line per phase.
	Log func(format string, args ...any)
}

// Setup is a prepared dataset with its trained models.
type Setup struct {
	Options           Options // as resolved (defaults filled in)
	Data              *data.Dataset
	TrainIdx, TestIdx []int
	Scaler            *data.Scaler
	XTrain, XTest     [][]float64 // standardised rows of each split
	Classifier        *classifier.Classifier
	VAE               *vae.VAE
	Explainer         *quce.Explainer
	Backend           compute.Backend
	BackendInfo       backend.Info

	TrainAccuracy, TestAccuracy float64
	VAETrain, VAETest           vae.Diagnosis
	// Seconds spent training (zero when loaded from the cache).
	ClassifierSeconds, VAESeconds float64
	Cached                        bool   // both models came from the cache
	CacheKey                      string // the cache entry's name
	Warnings                      []string
}

// DefaultCacheDir is $QUCE_CACHE if set, else the user cache folder's "quce".
func DefaultCacheDir() string {
	if d := os.Getenv("QUCE_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "quce")
	}
	return filepath.Join(os.TempDir(), "quce-cache")
}

// Prepare splits, scales, trains (or loads) and builds the explainer.
func Prepare(opts Options) (*Setup, error) {
	logf := opts.Log
	if logf == nil {
		logf = func(string, ...any) {}
	}
	ds := opts.Data
	if ds == nil {
		ds = data.WBC()
	}
	if opts.TestFraction == 0 {
		opts.TestFraction = 0.2
	}
	if opts.Classifier.Epochs == 0 {
		opts.Classifier = classifier.DefaultConfig()
	}
	if opts.VAE.MaxEpochs == 0 {
		opts.VAE = vae.DefaultConfig()
	}
	b, info, err := backend.Default()
	if err != nil {
		return nil, err
	}
	trIdx, teIdx, err := data.Split(ds, opts.TestFraction, opts.SplitSeed)
	if err != nil {
		return nil, err
	}
	s := &Setup{Options: opts, Data: ds, TrainIdx: trIdx, TestIdx: teIdx, Backend: b, BackendInfo: info}
	train, test := ds.Subset(trIdx), ds.Subset(teIdx)
	s.Scaler = data.FitScaler(train.X)
	s.XTrain, s.XTest = s.Scaler.Transform(train.X), s.Scaler.Transform(test.X)
	xtr, xte := data.ToFloat32(s.XTrain), data.ToFloat32(s.XTest)

	s.CacheKey = cacheKey(ds, opts, info.Config)
	var dir string
	if opts.CacheDir != "" {
		dir = filepath.Join(opts.CacheDir, s.CacheKey)
	}
	clfPath, vaePath := filepath.Join(dir, "classifier.json"), filepath.Join(dir, "vae.json")

	s.Classifier, err = loadCached(dir, clfPath, classifier.Load, s)
	if err != nil {
		return nil, err
	}
	if s.Classifier == nil {
		logf("training the classifier %v on %d rows", opts.Classifier.Hidden, len(xtr))
		t0 := time.Now()
		if s.Classifier, err = classifier.Train(b, xtr, train.Y, opts.Classifier); err != nil {
			return nil, err
		}
		s.ClassifierSeconds = time.Since(t0).Seconds()
		if dir != "" {
			if err := s.Classifier.Save(clfPath); err != nil {
				return nil, err
			}
		}
	}
	s.VAE, err = loadCached(dir, vaePath, vae.Load, s)
	if err != nil {
		return nil, err
	}
	if s.VAE == nil {
		logf("training the VAE (latent %d) on %d rows", opts.VAE.Latent, len(xtr))
		t0 := time.Now()
		if s.VAE, err = vae.Train(b, xtr, opts.VAE); err != nil {
			return nil, err
		}
		s.VAESeconds = time.Since(t0).Seconds()
		if dir != "" {
			if err := s.VAE.Save(vaePath); err != nil {
				return nil, err
			}
		}
	}
	s.Cached = s.ClassifierSeconds == 0 && s.VAESeconds == 0
	if s.TrainAccuracy, err = s.Classifier.Accuracy(b, xtr, train.Y); err != nil {
		return nil, err
	}
	if len(xte) > 0 {
		if s.TestAccuracy, err = s.Classifier.Accuracy(b, xte, test.Y); err != nil {
			return nil, err
		}
		if s.VAETest, err = s.VAE.Diagnose(b, xte); err != nil {
			return nil, err
		}
	}
	if s.VAETrain, err = s.VAE.Diagnose(b, xtr); err != nil {
		return nil, err
	}
	if s.VAETrain.Collapsed {
		s.Warnings = append(s.Warnings, s.VAETrain.Warning)
	}
	logf("classifier accuracy train %.3f test %.3f; VAE reconstruction MSE train %.3f test %.3f",
		s.TrainAccuracy, s.TestAccuracy, s.VAETrain.ReconMSE, s.VAETest.ReconMSE)
	s.Explainer, err = quce.New(b, s.Classifier, s.VAE, s.Scaler, ds.Features)
	if err != nil {
		return nil, err
	}
	if s.Explainer.SmallBatch, err = backend.ForSmallBatches(); err != nil {
		return nil, err
	}
	return s, nil
}

// loadCached loads a model from the cache; a missing entry gives nil, and a damaged one is
// reported as a warning and retrained (the new file replaces it atomically).
func loadCached[M any](dir, path string, load func(string) (*M, error), s *Setup) (*M, error) {
	if dir == "" {
		return nil, nil
	}
	if _, err := os.Stat(path); errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	m, err := load(path)
	if err == nil {
		return m, nil
	}
	if errors.Is(err, nn.ErrCorrupt) {
		s.Warnings = append(s.Warnings, fmt.Sprintf("damaged cache entry %s was retrained: %v", path, err))
		return nil, nil
	}
	return nil, err
}

// cacheKey names a cache entry by everything that determines the trained weights.
func cacheKey(ds *data.Dataset, o Options, backendConfig string) string {
	key, _ := json.Marshal(struct {
		Format     string
		Data       string
		Target     string
		Features   []string
		TestFrac   float64
		SplitSeed  int64
		Classifier classifier.Config
		VAE        vae.Config
		Backend    string
	}{nn.FileFormat, ds.Checksum, ds.Target, ds.Features, o.TestFraction, o.SplitSeed, o.Classifier, o.VAE, backendConfig})
	sum := sha256.Sum256(key)
	return hex.EncodeToString(sum[:8])
}
