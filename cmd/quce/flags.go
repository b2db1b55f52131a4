package main

import (
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/nn"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

// common holds the flags every command shares: the data, the models and the QUCE settings.
type common struct {
	dataPath, target   string
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
	return s, nil
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
func writeOutput(path string, data []byte) error { return nn.WriteFileAtomic(path, data) }
