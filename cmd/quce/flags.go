package main

import (
	"crypto/sha256"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/quce-go/quce/classifier"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/internal/atomicfile"
	"github.com/quce-go/quce/onnxmodel"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

// common holds the flags every command shares: the data, the models and the QUCE settings.
type common struct {
	dataPath, target   string
	modelPath          string
	modelInput         string
	modelOutput        string
	modelInputName     string
	modelOutputName    string
	class              string
	splitSeed          int64
	cacheDir           string
	noCache            bool
	lambdas            string
	lr                 float64
	steps, k, paths    int
	samples, earlyStop int
	threshold          float64
	seed               uint64
	optimizer, rule    string
	force              bool
	quiet              bool
	stderr             io.Writer
}

func (c *common) register(fs *flag.FlagSet) {
	d := quce.DefaultConfig()
	fs.StringVar(&c.dataPath, "data", "", "CSV file with a header row (default: the embedded W-BC data)")
	fs.StringVar(&c.target, "target", "", "name of the target column (default: the last column)")
	fs.Int64Var(&c.splitSeed, "split-seed", 1, "seed of the stratified 80/20 train/test split")
	fs.StringVar(&c.modelPath, "model", "", "explain this model instead of training the built-in one: an .onnx file, or a folder saved by the built-in classifier")
	fs.StringVar(&c.modelInput, "model-input", "raw", "units the -model takes: raw (the data's own values) or standardized")
	fs.StringVar(&c.modelOutput, "model-output", "logit", "what the -model outputs: logit or probability")
	fs.StringVar(&c.modelInputName, "model-input-name", "", "the ONNX input to feed, when the file has several")
	fs.StringVar(&c.modelOutputName, "model-output-name", "", "the ONNX output to explain, when the file has several")
	fs.StringVar(&c.class, "class", "", "target class τ by its label (default: the other class, or the most probable other class)")
	fs.StringVar(&c.cacheDir, "cache", pipeline.DefaultCacheDir(), "folder of cached trained models")
	fs.BoolVar(&c.noCache, "no-cache", false, "train the models even if they are cached, and do not cache them")
	fs.StringVar(&c.lambdas, "lambdas", fmt.Sprintf("%g,%g,%g", d.Lambda1, d.Lambda2, d.Lambda3), "λ1,λ2,λ3: weights of −log F(τ|x_c), ½‖x_c−x‖² and the VAE uncertainty")
	fs.Float64Var(&c.lr, "lr", d.LearningRate, "learning rate φ")
	fs.IntVar(&c.steps, "steps", d.Steps, "optimisation steps n")
	fs.IntVar(&c.k, "k", d.K, "Riemann points per path segment, and points of the ± integrals")
	fs.StringVar(&c.rule, "rule", string(d.Rule), "path-attribution rule: trapezoid or riemann")
	fs.IntVar(&c.paths, "paths", d.Paths, "paths per instance m (exQUCE when > 1)")
	fs.IntVar(&c.samples, "samples", d.Samples, "latent samples S in the VAE loss (0: the mean code)")
	fs.IntVar(&c.earlyStop, "early-stop", d.EarlyStop, "stop a row once valid for this many steps (0: off)")
	fs.Float64Var(&c.threshold, "threshold", d.Threshold, "decision threshold ϑ")
	fs.Uint64Var(&c.seed, "seed", d.Seed, "seed of the paths' offsets and latent samples")
	fs.StringVar(&c.optimizer, "optimizer", string(d.Optimizer), "adam, sgd (momentum 0.9) or gd")
	fs.BoolVar(&c.force, "force", false, "overwrite existing output files")
	fs.BoolVar(&c.quiet, "q", false, "no progress messages on stderr")
}

// config builds and validates the QUCE configuration from the flags.
func (c *common) config() (quce.Config, error) {
	cfg := quce.DefaultConfig()
	parts := strings.Split(c.lambdas, ",")
	if len(parts) != 3 {
		return cfg, fmt.Errorf("-lambdas %q: want three comma-separated numbers such as 1,0.01,0.1", c.lambdas)
	}
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return cfg, fmt.Errorf("-lambdas %q: λ%d %q is not a number; fix: use three numbers such as 1,0.01,0.1", c.lambdas, i+1, p)
		}
		*[]*float64{&cfg.Lambda1, &cfg.Lambda2, &cfg.Lambda3}[i] = v
	}
	opt, err := quce.ParseOptimizer(c.optimizer)
	if err != nil {
		return cfg, err
	}
	rule, err := quce.ParseRule(c.rule)
	if err != nil {
		return cfg, err
	}
	cfg.Optimizer, cfg.Rule = opt, rule
	cfg.LearningRate, cfg.Steps, cfg.K, cfg.Paths = c.lr, c.steps, c.k, c.paths
	cfg.Samples, cfg.EarlyStop, cfg.Threshold, cfg.Seed = c.samples, c.earlyStop, c.threshold, c.seed
	return cfg, cfg.Validate()
}

func (c *common) logf(format string, args ...any) {
	if !c.quiet {
		fmt.Fprintf(c.stderr, format+"\n", args...)
	}
}

// prepare loads the data and trains or loads the models.
func (c *common) prepare() (*pipeline.Setup, error) {
	var ds *data.Dataset
	if c.dataPath != "" {
		var err error
		if ds, err = data.Load(c.dataPath, data.LoadOptions{Target: c.target}); err != nil {
			return nil, err
		}
	} else if c.target != "" && c.target != data.WBC().Target {
		return nil, fmt.Errorf("-target %q: the embedded W-BC data's target is %q; fix: drop -target or pass -data", c.target, data.WBC().Target)
	}
	opts := pipeline.Options{Data: ds, SplitSeed: c.splitSeed, CacheDir: c.cacheDir, Log: c.logf}
	if c.noCache {
		opts.CacheDir = ""
	}
	if err := c.loadModel(&opts); err != nil {
		return nil, err
	}
	s, err := pipeline.Prepare(opts)
	if err != nil {
		return nil, err
	}
	c.logf("backend: %s", s.BackendInfo)
	if s.Cached {
		c.logf("models loaded from the cache (%s)", s.CacheKey)
	}
	for _, w := range s.Warnings {
		c.logf("warning: %s", w)
	}
	if _, err := eval.ClassIndex(s.Data.Labels, c.class); err != nil {
		return nil, err
	}
	return s, nil
}

// loadModel reads -model: an ONNX file, or a folder holding a saved built-in classifier.
func (c *common) loadModel(opts *pipeline.Options) error {
	if c.modelPath == "" {
		if c.modelInputName != "" || c.modelOutputName != "" {
			return fmt.Errorf("-model-input-name and -model-output-name choose among an ONNX file's inputs and outputs; fix: pass the file with -model")
		}
		return nil
	}
	in, err := quce.ParseUnits(c.modelInput)
	if err != nil {
		return fmt.Errorf("-model-input: %w", err)
	}
	out, err := quce.ParseOutputs(c.modelOutput)
	if err != nil {
		return fmt.Errorf("-model-output: %w", err)
	}
	opts.ModelInput, opts.ModelOutput = in, out
	st, err := os.Stat(c.modelPath)
	if err != nil {
		return fmt.Errorf("-model %s: %w; fix: pass an .onnx file or a saved classifier folder", c.modelPath, err)
	}
	if st.IsDir() {
		clf, err := classifier.Load(c.modelPath)
		if err != nil {
			return fmt.Errorf("-model %s: %w", c.modelPath, err)
		}
		opts.Model, opts.ModelID = clf, "classifier folder "+c.modelPath
		return nil
	}
	m, err := onnxmodel.Load(c.modelPath, onnxmodel.Options{Input: c.modelInputName, Output: c.modelOutputName})
	if err != nil {
		return err
	}
	sum, err := fileSHA256(c.modelPath)
	if err != nil {
		return err
	}
	opts.Model, opts.ModelID = m, fmt.Sprintf("onnx %s sha256:%s", c.modelPath, sum)
	c.logf("model: %s (%d features, %d outputs, %s input, %s output)", c.modelPath, m.NumFeatures(), m.NumOutputs(), in, out)
	return nil
}

func fileSHA256(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("reading %s: %w", path, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// modelJSON describes the explained model for the JSON outputs.
func modelJSON(s *pipeline.Setup) map[string]any {
	m := map[string]any{
		"input": s.Options.ModelInput, "output": s.Options.ModelOutput,
		"features": s.Model.NumFeatures(), "outputs": s.Model.NumOutputs(),
	}
	if s.Options.Model != nil {
		m["kind"], m["id"] = "user", s.Options.ModelID
	} else {
		m["kind"], m["classifier"] = "built-in", s.Classifier.Config
	}
	return m
}

// checkOutput refuses to overwrite an existing file unless -force was given.
func (c *common) checkOutput(path string) error {
	if path == "" || c.force {
		return nil
	}
	if _, err := os.Stat(path); err == nil {
		return fmt.Errorf("%s already exists; fix: choose another name or pass -force to overwrite it", path)
	}
	return nil
}

// writeOutput writes a file atomically (no partial file is ever left behind).
func writeOutput(path string, data []byte) error { return atomicfile.WriteFile(path, data) }
