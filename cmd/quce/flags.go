package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/quce-go/quce/classifier"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/progress"
	"github.com/quce-go/quce/internal/savedmodel"
	"github.com/quce-go/quce/onnxmodel"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
	"github.com/quce-go/quce/vae"
)

// common holds the flags every command shares: the data, the models and the QUCE settings.
type common struct {
	dataPath, target   string
	trainCSV, testCSV  string // -train and -test: the files
	splitColumn        string
	types, ignore      string
	dropMissing        bool
	modelPath          string
	modelInput         string
	modelOutput        string
	modelInputName     string
	modelOutputName    string
	modelClasses       string
	scalerPath         string
	allowWeakModel     bool
	class              string
	splitSeed          int64
	cacheDir           string
	noCache            bool
	lambdas            string
	autoGrid           string
	autoRounds         int
	autoSteps          float64
	pullBack           bool
	margin             float64
	plausQuantile      float64
	sparse             bool
	counterfactuals    int
	modelSeed          uint64 // 0: the models' default seed; set per seed by eval -seeds
	autoMethod         bool   // quce eval runs quce-auto, which takes -auto-grid without -lambdas auto
	lr                 float64
	steps, k, paths    int
	samples, earlyStop int
	threshold          float64
	seed               uint64
	optimizer, rule    string
	hidden             string
	epochs, latent     int
	vaeEpochs          int
	engine             string
	concurrent         int
	unitRows           int
	force              bool
	quiet              bool
	meter              *progress.Line // the searches' progress on stderr; nil with -q
	stderr             io.Writer
	set                map[string]bool // the flags given on the command line
	flags              *flag.FlagSet
}

func (c *common) register(fs *flag.FlagSet) {
	d := quce.DefaultConfig()
	fs.StringVar(&c.dataPath, "data", "", "CSV file with a header row, or an embedded data set: wbc (the default) or german_credit")
	fs.StringVar(&c.target, "target", "", "name of the target column (default: the last column)")
	fs.StringVar(&c.types, "types", "", "column types that detection should not guess, e.g. housing=categorical,employment=ordinal:low<mid<high,id=ignore (types: continuous, integer, binary, categorical, ordinal, ignore)")
	fs.StringVar(&c.ignore, "ignore", "", "comma-separated columns to leave out of the features (identifiers, free text)")
	fs.BoolVar(&c.dropMissing, "drop-missing", false, "drop rows with a missing cell (empty, NA, ?) instead of stopping at the first")
	fs.Int64Var(&c.splitSeed, "split-seed", 1, "seed of the stratified 80/20 train/test split")
	fs.StringVar(&c.splitColumn, "split-column", "", "the data's own split instead of the seeded one: a column whose cells say train or test (any case); it is not a feature")
	fs.StringVar(&c.trainCSV, "train", "", "with -test, instead of -data: the training rows' CSV file; the data are both files' rows, split by file")
	fs.StringVar(&c.testCSV, "test", "", "with -train: the test rows' CSV file, with the same header")
	fs.StringVar(&c.modelPath, "model", "", "explain this model instead of training the built-in one: an .onnx file, or a folder saved by the built-in classifier")
	fs.StringVar(&c.modelInput, "model-input", "raw", "units the -model takes: raw (the data's own values) or standardized")
	fs.StringVar(&c.modelOutput, "model-output", "logit", "what the -model outputs: logit or probability")
	fs.StringVar(&c.modelInputName, "model-input-name", "", "the ONNX input to feed, when the file has several")
	fs.StringVar(&c.modelOutputName, "model-output-name", "", "the ONNX output to explain, when the file has several")
	fs.StringVar(&c.modelClasses, "model-classes", "", "the data's labels in the order of the -model's outputs, comma-separated (one output: the class of a negative logit, then of a positive one; default: the data's order, sorted labels for a CSV file)")
	fs.StringVar(&c.scalerPath, "scaler", "", "with -model-input standardized: a JSON file with the standardisation the model was trained with, by column ({\"col\": {\"mean\": m, \"scale\": s}, …}, or scikit-learn's columns/mean/scale lists), or the min-max scaling it was trained with ({\"col\": {\"min\": a, \"max\": b}, …}, or MinMaxScaler's data_min_/data_max_ lists); default: the training split's standardisation")
	fs.BoolVar(&c.allowWeakModel, "allow-weak-model", false, "explain a -model that fails the check before explaining (accuracy on the training rows at or below the majority class rate, or another class order clearly better), saying so in the output")
	fs.StringVar(&c.class, "class", "", "target class τ by its label (default: the other class, or the most probable other class)")
	fs.StringVar(&c.cacheDir, "cache", pipeline.DefaultCacheDir(), "folder of cached trained models")
	fs.BoolVar(&c.noCache, "no-cache", false, "train the models even if they are cached, and do not cache them")
	fs.StringVar(&c.lambdas, "lambdas", fmt.Sprintf("%g,%g,%g", d.Lambda1, d.Lambda2, d.Lambda3), "λ1,λ2,λ3: weights of −log F(τ|x_c), ½‖x_c−x‖² and the VAE uncertainty; or auto: λ1 = 1 and (λ2, λ3) chosen per instance among -auto-grid")
	fs.StringVar(&c.autoGrid, "auto-grid", gridFlag(quce.DefaultAuto().Grid), "with -lambdas auto: the candidate λ2:λ3 pairs, comma-separated")
	fs.IntVar(&c.autoRounds, "auto-rounds", quce.DefaultAuto().Rounds, "with -lambdas auto: rounds that refine each instance's λ2 after -auto-grid (0: the grid alone)")
	fs.Float64Var(&c.autoSteps, "auto-steps", quce.DefaultAuto().Steps, "with -lambdas auto: the share of -steps that each candidate's search runs (above 0, at most 1)")
	fs.BoolVar(&c.pullBack, "pull-back", quce.DefaultAuto().PullBack, "with -lambdas auto: walk each counterfactual back towards the instance while F(τ|x_c) ≥ ϑ + -margin and it stays plausible")
	fs.Float64Var(&c.margin, "margin", quce.DefaultMargin, "with -lambdas auto or -sparse (or, when given, for the repairs of discrete columns): how far above ϑ the walks back towards the instance keep F(τ|x_c): the pull-back, the -sparse resets and the repairs after rounding to legal values")
	fs.Float64Var(&c.plausQuantile, "plausibility-quantile", quce.DefaultPlausibilityQuantile, "with -lambdas auto or -sparse: a counterfactual is plausible when its L_ε is at most this quantile of the training rows' L_ε")
	fs.BoolVar(&c.sparse, "sparse", false, "after the search, set changed features back to the instance's values, smallest change first, while the counterfactual stays valid and plausible")
	fs.IntVar(&c.counterfactuals, "counterfactuals", 1, fmt.Sprintf("up to this many distinct valid counterfactuals per row (1 to %d): each further one is searched again holding at the row's value one more column that the earlier ones moved most, and kept when it changes another set of columns", quce.MaxCounterfactuals))
	fs.Float64Var(&c.lr, "lr", d.LearningRate, "learning rate φ")
	fs.IntVar(&c.steps, "steps", d.Steps, "optimisation steps n")
	fs.IntVar(&c.k, "k", d.K, "Riemann points per path segment, and points of the ± integrals")
	fs.StringVar(&c.rule, "rule", string(d.Rule), "path-attribution rule: trapezoid, simpson or riemann")
	fs.IntVar(&c.paths, "paths", d.Paths, "paths per instance m (exQUCE when > 1)")
	fs.IntVar(&c.samples, "samples", d.Samples, "latent samples S in the VAE loss (0: the mean code)")
	fs.IntVar(&c.earlyStop, "early-stop", d.EarlyStop, "stop a row once valid for this many steps (0: off)")
	fs.Float64Var(&c.threshold, "threshold", d.Threshold, "decision threshold ϑ")
	fs.Uint64Var(&c.seed, "seed", d.Seed, "seed of the paths' offsets and latent samples")
	fs.StringVar(&c.optimizer, "optimizer", string(d.Optimizer), "adam, sgd (momentum 0.9) or gd")
	dc, dv := classifier.DefaultConfig(), vae.DefaultConfig()
	fs.StringVar(&c.hidden, "hidden", intList(dc.Hidden), "hidden layer widths of the built-in classifier, comma-separated (e.g. 60 or 64,32)")
	fs.IntVar(&c.epochs, "epochs", dc.Epochs, "training epochs of the built-in classifier")
	fs.IntVar(&c.latent, "latent", dv.Latent, "latent dimensions of the VAE")
	fs.IntVar(&c.vaeEpochs, "vae-epochs", dv.MaxEpochs, "most training epochs of the VAE (it stops earlier once its validation loss stops improving)")
	fs.IntVar(&c.concurrent, "concurrent", 0, "the most executions of a call's searches run at the same time, each on a part of the rows (0: one per CPU core on the pure-Go backend, one on XLA and ONNX Runtime, which spread an execution over threads or a GPU of their own); the results are the same (bit for bit on the pure-Go backend with its SIMD kernels, else to float32 rounding)")
	fs.IntVar(&c.unitRows, "unit-rows", 0, "the most rows one execution of a search walks (0: 2048 on a CPU, 4096 on a GPU); a larger job is walked in units of this many rows, one after another; the results are the same (bit for bit on the pure-Go backend with its SIMD kernels, else to float32 rounding)")
	fs.StringVar(&c.engine, "engine", "auto", "how the searches run: loop (a batch's whole search as one compiled program), steps (one graph execution per optimisation step), replay (many steps an execution, their bookkeeping replayed on the host, for batches of up to 100 rows; loop for larger ones) or auto (replay on the pure-Go backend, where it is the faster, else loop wherever the backend runs it); the results are the same (bit for bit on the pure-Go backend with its SIMD kernels, else to float32 rounding)")
	fs.BoolVar(&c.force, "force", false, "overwrite existing output files")
	fs.BoolVar(&c.quiet, "q", false, "no progress messages on stderr")
}

// parse parses the command line and records which flags it gave.
func (c *common) parse(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		return errUsage
	}
	c.set, c.flags = map[string]bool{}, fs
	fs.Visit(func(fl *flag.Flag) { c.set[fl.Name] = true })
	return nil
}

// config builds the QUCE configuration from the flags and validates it (quce.Config.Validate:
// the one place the settings are checked); configError names the flag of a bad setting.
// With -lambdas auto or -sparse the bound on L_ε is left to withBound, which takes it from
// the training rows at -plausibility-quantile.
func (c *common) config() (quce.Config, error) {
	cfg := quce.DefaultConfig()
	if err := c.lambdaSettings(&cfg); err != nil {
		return cfg, err
	}
	var err error
	if cfg.Optimizer, err = quce.ParseOptimizer(c.optimizer); err != nil {
		return cfg, c.configError(err)
	}
	if cfg.Rule, err = quce.ParseRule(c.rule); err != nil {
		return cfg, c.configError(err)
	}
	cfg.LearningRate, cfg.Steps, cfg.K, cfg.Paths = c.lr, c.steps, c.k, c.paths
	cfg.Samples, cfg.EarlyStop, cfg.Threshold, cfg.Seed = c.samples, c.earlyStop, c.threshold, c.seed
	cfg.Sparse = c.sparse
	if c.counterfactuals != 1 { // one is the default, which the JSON leaves out
		cfg.Counterfactuals = c.counterfactuals
	}
	if cfg.Auto != nil || cfg.Sparse {
		cfg.PlausibilityQuantile = c.plausQuantile
	}
	if cfg.Auto != nil || cfg.Sparse || c.set["margin"] {
		cfg.Margin = c.margin // at fixed λ without -sparse nothing walks back, so no margin unless asked
	}
	if err := cfg.Validate(); err != nil {
		return cfg, c.configError(err)
	}
	if c.concurrent < 0 {
		return cfg, fmt.Errorf("-concurrent %d: a number of executions cannot be negative; fix: a positive number, or 0 for the backend's default", c.concurrent)
	}
	if c.unitRows < 0 {
		return cfg, fmt.Errorf("-unit-rows %d: a number of rows cannot be negative; fix: a positive number, or 0 for the backend's default", c.unitRows)
	}
	choice, err := c.engineChoice()
	if err != nil {
		return cfg, err
	}
	if err := choice.Check(cfg); err != nil {
		return cfg, c.configError(err)
	}
	if c.autoMethod && cfg.Auto == nil {
		// quce eval's quce-auto searches with these settings and -auto-grid.
		auto := cfg
		if auto.Auto, err = c.autoGridFlag(); err != nil {
			return cfg, err
		}
		auto.PlausibilityQuantile = c.plausQuantile
		if err := auto.Validate(); err != nil {
			return cfg, c.configError(err)
		}
	}
	return cfg, nil
}

// lambdaSettings reads -lambdas (three numbers, or auto with -auto-grid) into cfg, and
// refuses -auto-grid and -plausibility-quantile where nothing uses them.
func (c *common) lambdaSettings(cfg *quce.Config) error {
	auto := c.autoLambdas()
	if !auto && strings.Contains(strings.ToLower(c.lambdas), "auto") {
		return fmt.Errorf("-lambdas %q: auto chooses λ2 and λ3 itself, so it cannot be mixed with numbers; fix: give -lambdas auto alone (λ1 = 1), or three numbers such as 1,0.01,0.1", c.lambdas)
	}
	for _, name := range []string{"auto-grid", "auto-rounds", "auto-steps", "pull-back"} {
		if !auto && !c.autoMethod && c.set[name] {
			return fmt.Errorf("-%s is a setting of automatic λ; fix: add -lambdas auto, or drop -%s", name, name)
		}
	}
	if c.autoRounds < 0 || c.autoRounds > quce.MaxAutoRounds {
		return fmt.Errorf("-auto-rounds %d: fix: use 0 to %d rounds", c.autoRounds, quce.MaxAutoRounds)
	}
	if !(c.autoSteps > 0 && c.autoSteps <= 1) {
		return fmt.Errorf("-auto-steps %v: fix: use a share of -steps above 0 and at most 1, such as %g", c.autoSteps, quce.DefaultAuto().Steps)
	}
	if !auto && !c.autoMethod && !c.sparse && c.set["plausibility-quantile"] {
		return fmt.Errorf("-plausibility-quantile bounds plausible counterfactuals for -lambdas auto and -sparse; fix: add one of them, or drop -plausibility-quantile")
	}
	if auto {
		var err error
		cfg.Auto, err = c.autoGridFlag()
		return err
	}
	parts := strings.Split(c.lambdas, ",")
	if len(parts) != 3 {
		return fmt.Errorf("-lambdas %q: want three comma-separated numbers such as 1,0.01,0.1", c.lambdas)
	}
	var lambdas [3]float64
	for i, p := range parts {
		v, err := strconv.ParseFloat(strings.TrimSpace(p), 64)
		if err != nil {
			return fmt.Errorf("-lambdas %q: λ%d %q is not a number; fix: use three numbers such as 1,0.01,0.1", c.lambdas, i+1, p)
		}
		lambdas[i] = v
	}
	cfg.Lambda1, cfg.Lambda2, cfg.Lambda3 = lambdas[0], lambdas[1], lambdas[2]
	return nil
}

// autoLambdas reports -lambdas auto.
func (c *common) autoLambdas() bool { return strings.EqualFold(strings.TrimSpace(c.lambdas), "auto") }

// autoGridFlag reads -auto-grid.
func (c *common) autoGridFlag() (*quce.Auto, error) {
	grid, err := parseGrid(c.autoGrid)
	if err != nil {
		return nil, err
	}
	auto := quce.DefaultAuto()
	auto.Grid, auto.Rounds, auto.Steps, auto.PullBack = grid, c.autoRounds, c.autoSteps, c.pullBack
	return auto, nil
}

// parseGrid reads -auto-grid: "λ2:λ3,λ2:λ3,…". The weights are checked with the other
// settings (quce.Auto.Validate).
func parseGrid(s string) ([]quce.Lambdas, error) {
	fix := "fix: list λ2:λ3 pairs, comma-separated, such as " + gridFlag(quce.DefaultAuto().Grid)
	var grid []quce.Lambdas
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		l2, l3, ok := strings.Cut(part, ":")
		a, err2 := strconv.ParseFloat(strings.TrimSpace(l2), 64)
		b, err3 := strconv.ParseFloat(strings.TrimSpace(l3), 64)
		if !ok || err2 != nil || err3 != nil {
			return nil, fmt.Errorf("-auto-grid %q: %q is not a λ2:λ3 pair; %s", s, part, fix)
		}
		grid = append(grid, quce.Lambdas{Lambda2: a, Lambda3: b})
	}
	if len(grid) == 0 {
		return nil, fmt.Errorf("-auto-grid %q is empty; %s", s, fix)
	}
	return grid, nil
}

// engineChoice is -engine's choice.
func (c *common) engineChoice() (quce.EngineChoice, error) {
	choice, err := quce.ParseEngineChoice(c.engine)
	if err != nil {
		return "", fmt.Errorf("-engine %s: %w", c.given("engine", c.engine), err)
	}
	return choice, nil
}

// configError is err with the quce.Config setting it refuses named by its flag, as given.
func (c *common) configError(err error) error {
	var fe *quce.FieldError
	if !errors.As(err, &fe) {
		return err
	}
	flag, part, ok := settingFlag(fe.Field)
	if !ok {
		return fmt.Errorf("the QUCE settings: %w", err)
	}
	given := c.given(flag, fe.Value)
	switch {
	case part != "":
		return fmt.Errorf("-%s %s: %s = %v is not allowed; fix: %s", flag, given, part, fe.Value, fe.Fix)
	case fe.Problem != "":
		return fmt.Errorf("-%s %s: %s; fix: %s", flag, given, fe.Problem, fe.Fix)
	}
	return fmt.Errorf("-%s %s is not allowed; fix: %s", flag, given, fe.Fix)
}

// given is the value of the flag name as the command line gave it (quoted when the flag
// takes text), or value when the flags were not parsed.
func (c *common) given(name string, value any) string {
	if c.flags == nil || c.flags.Lookup(name) == nil {
		return fmt.Sprint(value)
	}
	v := c.flags.Lookup(name).Value
	if g, ok := v.(flag.Getter); ok {
		if s, ok := g.Get().(string); ok {
			return strconv.Quote(s)
		}
	}
	return v.String()
}

// gridFlag formats a grid as -auto-grid takes it.
func gridFlag(grid []quce.Lambdas) string {
	parts := make([]string, len(grid))
	for i, l := range grid {
		parts[i] = fmt.Sprintf("%g:%g", l.Lambda2, l.Lambda3)
	}
	return strings.Join(parts, ",")
}

// withBound sets the plausibility bound of automatic λ and sparsity from the training rows
// at -plausibility-quantile (quce.Explainer.WithBound); it leaves other configurations as
// they are.
func (c *common) withBound(s *pipeline.Setup, cfg quce.Config) (quce.Config, error) {
	if cfg.Auto == nil && !cfg.Sparse {
		return cfg, nil
	}
	cfg, err := s.Explainer.WithBound(cfg, s.XTrain)
	if err != nil {
		return cfg, fmt.Errorf("-plausibility-quantile %g: %w", cfg.PlausibilityQuantile, err)
	}
	c.logf("plausible: L_ε ≤ %.4g, the %g quantile over the %d training rows", cfg.Plausibility, cfg.PlausibilityQuantile, len(s.XTrain))
	return cfg, nil
}

// maxWidth bounds -hidden and -latent: wider layers are almost surely a typo.
const maxWidth = 100_000

// modelConfigs builds the built-in classifier's and the VAE's configurations from -hidden,
// -epochs, -latent and -vae-epochs; every error names the flag.
func (c *common) modelConfigs() (classifier.Config, vae.Config, error) {
	cc, vc := classifier.DefaultConfig(), vae.DefaultConfig()
	if c.modelPath != "" {
		for _, name := range []string{"hidden", "epochs"} {
			if c.set[name] {
				return cc, vc, fmt.Errorf("-%s shapes the built-in classifier, which is not trained with -model; fix: drop -%s (or -model)", name, name)
			}
		}
	}
	cc.Hidden = nil
	for _, p := range strings.Split(c.hidden, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || w <= 0 || w > maxWidth {
			return cc, vc, fmt.Errorf("-hidden %q: %q is not a layer width; fix: list positive widths up to %d, comma-separated, such as 60 or 64,32", c.hidden, strings.TrimSpace(p), maxWidth)
		}
		cc.Hidden = append(cc.Hidden, w)
	}
	switch {
	case c.epochs <= 0:
		return cc, vc, fmt.Errorf("-epochs %d: fix: train the classifier for at least 1 epoch (%d is the default)", c.epochs, classifier.DefaultConfig().Epochs)
	case c.latent <= 0 || c.latent > maxWidth:
		return cc, vc, fmt.Errorf("-latent %d: fix: use between 1 and %d latent dimensions (%d is the default)", c.latent, maxWidth, vae.DefaultConfig().Latent)
	case c.vaeEpochs <= 0:
		return cc, vc, fmt.Errorf("-vae-epochs %d: fix: allow the VAE at least 1 epoch (%d is the default)", c.vaeEpochs, vae.DefaultConfig().MaxEpochs)
	}
	cc.Epochs, vc.Latent, vc.MaxEpochs = c.epochs, c.latent, c.vaeEpochs
	if c.modelSeed != 0 {
		cc.Seed, vc.Seed = c.modelSeed, c.modelSeed
	}
	if err := cc.Validate(); err != nil {
		return cc, vc, fmt.Errorf("the classifier settings (-hidden, -epochs): %w", err)
	}
	if err := vc.Validate(); err != nil {
		return cc, vc, fmt.Errorf("the VAE settings (-latent, -vae-epochs): %w", err)
	}
	return cc, vc, nil
}

// intList formats widths as a flag value: "64,32".
func intList(v []int) string {
	s := make([]string, len(v))
	for i, x := range v {
		s[i] = strconv.Itoa(x)
	}
	return strings.Join(s, ",")
}

func (c *common) logf(format string, args ...any) {
	if !c.quiet {
		fmt.Fprintf(c.stderr, format+"\n", args...)
	}
}

// testFraction is the share of rows in the test split.
const testFraction = 0.2

// slowCompile is the compile time, in seconds, from which a compiled program is logged.
const slowCompile = 0.5

// plan loads the data and the -model, and plans the preparation (pipeline.NewPlan): the
// split, the scaler and the explainer's settings, with nothing trained, so that a command
// checks its rows, constraints and outputs against the split the models will be trained on
// before any training (see train).
func (c *common) plan() (*pipeline.Plan, error) {
	ds, err := c.loadData()
	if err != nil {
		return nil, err
	}
	if ds.Dropped > 0 {
		c.logf("-drop-missing: dropped %d of %d rows with a missing cell", ds.Dropped, ds.Rows()+ds.Dropped)
	}
	for _, name := range ds.Constant {
		c.logf("note: column %q holds one value in every row, so it can neither change a prediction nor explain one; it is left out of the features (as -ignore %s would do)", name, name)
	}
	clf, v, err := c.modelConfigs()
	if err != nil {
		return nil, err
	}
	engine, err := c.engineChoice()
	if err != nil {
		return nil, err
	}
	opts := pipeline.Options{Data: ds, SplitSeed: c.splitSeed, TestFraction: testFraction, CacheDir: c.cacheDir,
		Classifier: clf, VAE: v, Log: c.logf, Explainer: quce.Settings{Engine: engine, Shards: c.concurrent, UnitRows: c.unitRows,
			// On XLA a program compiles in seconds, which a batch size's first run pays:
			// say so, where it is long enough to be noticed (the pure-Go backend's take
			// milliseconds), and leave it out of the searches' pace.
			OnCompile: func(program string, rows int, seconds float64) {
				c.meter.Compiled(seconds)
				if seconds >= slowCompile {
					c.logf("compiled the %s program for %d rows in %.1f s (once per batch size)", program, rows, seconds)
				}
			}}}
	if c.noCache {
		opts.CacheDir = ""
	}
	if !c.quiet && c.meter == nil { // its Write clears its line for the messages
		c.meter = progress.ForWriter(c.stderr)
		c.stderr = c.meter
	}
	opts.Explainer.Progress = c.meter.ProgressFunc()
	if _, err := data.ClassIndex(ds.Labels, c.class); err != nil {
		return nil, fmt.Errorf("-class %w", err)
	}
	if err := c.loadModel(&opts); err != nil {
		return nil, err
	}
	if c.scalerPath != "" {
		if opts.ModelScaler, err = ds.ReadScaler(c.scalerPath); err != nil {
			return nil, fmt.Errorf("-scaler: %w", err)
		}
		if opts.ModelScalerID, err = pipeline.FileID(c.scalerPath); err != nil {
			return nil, err
		}
	}
	p, err := pipeline.NewPlan(opts)
	if err != nil {
		return nil, flagError(err)
	}
	return p, nil
}

// train trains or loads the models of the plan p (pipeline.Plan.Train) and says what it
// got: the backend, the cache entry or how the columns were read, the warnings.
func (c *common) train(ctx context.Context, p *pipeline.Plan) (*pipeline.Setup, error) {
	s, err := prepareUntil(ctx, func() (*pipeline.Setup, error) { return p.Train(ctx) })
	if err != nil {
		return nil, flagError(err)
	}
	c.logf("backend: %s", s.BackendInfo)
	if s.Cached {
		c.logf("models loaded from the cache (%s)", s.CacheKey)
	} else {
		// The first run on a data set says how its columns were read, so a wrong guess
		// (an identifier, a category written as numbers) is seen and fixed with -types.
		c.logf("columns of %s (change with -types and -ignore):", pipeline.DataFile(s.Data))
		for _, line := range s.Data.Summary() {
			c.logf("  %s", line)
		}
	}
	for _, w := range s.Warnings {
		c.logf("warning: %s", flagNames(w))
	}
	return s, nil
}

// prepare is plan then train, for a command with nothing to check in between.
func (c *common) prepare(ctx context.Context) (*pipeline.Setup, error) {
	p, err := c.plan()
	if err != nil {
		return nil, err
	}
	return c.train(ctx, p)
}

// prepareUntil runs prepare (pipeline.Plan.Train), given up when ctx is cancelled: the
// command returns at once, and training (given ctx) stops before its next graph execution
// (the cache's files are written whole or not at all).
func prepareUntil(ctx context.Context, prepare func() (*pipeline.Setup, error)) (*pipeline.Setup, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	type prepared struct {
		s   *pipeline.Setup
		err error
	}
	done := make(chan prepared, 1)
	go func() {
		s, err := prepare()
		done <- prepared{s, err}
	}()
	select {
	case p := <-done:
		return p.s, p.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// loadData reads -data with -target, -types, -ignore and -drop-missing: a CSV file, or one
// of the embedded data sets by name (a file of that name wins, so no file is shadowed).
func (c *common) loadData() (*data.Dataset, error) {
	opts := data.LoadOptions{Target: c.target, Ignore: splitList(c.ignore), DropMissing: c.dropMissing, SplitColumn: c.splitColumn}
	if strings.TrimSpace(c.types) != "" {
		var err error
		if opts.Types, err = data.ParseTypes(c.types); err != nil {
			return nil, err
		}
	}
	switch user := c.set["split-column"] || c.set["train"] || c.set["test"]; {
	case (c.trainCSV == "") != (c.testCSV == ""):
		return nil, errors.New("-train and -test give the training and the test rows' files together; fix: give both, or one file with -data")
	case c.trainCSV != "" && c.set["data"]:
		return nil, errors.New("-train and -test are the data, so -data would be a second data set; fix: drop -data")
	case user && c.set["split-seed"]:
		return nil, errors.New("-split-seed seeds the split drawn when the data give none, and -split-column or -train and -test give one; fix: drop -split-seed")
	case c.trainCSV != "":
		return data.LoadSplit(c.trainCSV, c.testCSV, opts)
	}
	name := c.dataPath
	if name == "" {
		name = data.DefaultEmbedded
	}
	if _, err := os.Stat(name); err != nil && slices.Contains(data.EmbeddedNames(), name) {
		return data.Embedded(name, opts)
	}
	return data.Load(c.dataPath, opts)
}

// loadModel reads -model: an ONNX file, or a folder holding a saved built-in classifier.
func (c *common) loadModel(opts *pipeline.Options) error {
	if c.modelPath == "" {
		// Each of these says something about the user's model, so without one it would be
		// ignored, and the run would not be the one asked for.
		for _, name := range []string{"model-input", "model-output", "model-input-name", "model-output-name", "model-classes", "scaler", "allow-weak-model"} {
			if c.set[name] {
				return fmt.Errorf("-%s describes the model given with -model, and there is none: the built-in classifier is trained on the data's own classes and standardisation; fix: add -model FILE (an .onnx file or a saved classifier folder), or drop -%s", name, name)
			}
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
	opts.ModelInput, opts.ModelOutput, opts.AllowWeakModel = in, out, c.allowWeakModel
	if c.set["model-classes"] {
		opts.ModelClasses = splitList(c.modelClasses)
	}
	st, err := os.Stat(c.modelPath)
	if err != nil {
		return fmt.Errorf("-model %s: %w; fix: pass an .onnx file or a saved classifier folder", c.modelPath, err)
	}
	if st.IsDir() {
		clf, err := classifier.Load(c.modelPath)
		var bad *savedmodel.CorruptError
		if errors.As(err, &bad) {
			// The folder is the user's: deleting it, the fix for a cache entry, would lose it.
			return fmt.Errorf("-model %s is not a classifier folder as quce saves it (%s); fix: pass an .onnx file, or a folder the built-in classifier saved (the classifier folder of a -cache entry), unchanged", c.modelPath, bad.Problem)
		}
		if err != nil {
			return fmt.Errorf("-model %s: %w", c.modelPath, err)
		}
		opts.Model, opts.ModelID = clf, "classifier folder "+c.modelPath
		return nil
	}
	m, err := onnxmodel.Load(c.modelPath, onnxmodel.Options{Input: c.modelInputName, Output: c.modelOutputName})
	var oe *onnxmodel.OptionError
	if errors.As(err, &oe) {
		return errors.New(oe.Text(optionFlag("onnxmodel")))
	}
	if err != nil {
		return err
	}
	id, err := pipeline.FileID(c.modelPath)
	if err != nil {
		return err
	}
	opts.Model, opts.ModelID = m, "onnx "+id
	c.logf("model: %s (%d features, %d outputs, %s input, %s output)", c.modelPath, m.NumFeatures(), m.NumOutputs(), in, out)
	return nil
}
