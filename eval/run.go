package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"time"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

// Options say what to evaluate. The zero value of a field means its default (see
// DefaultOptions), except Seed, where 0 is a seed like any other.
type Options struct {
	N       int      // instances per split (default 100; a smaller split is used whole)
	Splits  []string // "train" and/or "test" (default both)
	Methods []Method // default AllMethods
	// Seed picks the N rows of each split (a seeded sample, listed in data order) and seeds
	// DiCE-random. The QUCE search has its own seed, Config.Seed.
	Seed uint64
	// Config is QUCE's configuration (zero: quce.DefaultConfig()). wachter uses it with
	// Lambda3 = 0; ig and agi are measured with its attribution rule, K and threshold.
	Config quce.Config
	// Class names the target class τ of every instance by its label; "" gives each instance
	// its default target (see quce.DefaultTarget).
	Class string
	// Constraints constrain every method's instances (quce.Explainer.Constrain): frozen
	// columns do not change, increase- and decrease-only columns and bounds hold along every
	// path and at every counterfactual. An instance that a bound excludes is an error.
	Constraints quce.Constraints
	// Auto is quce-auto's grid of (λ2, λ3) (nil: Config.Auto, or else quce.DefaultAuto()).
	Auto *quce.Auto
	// PlausibilityQuantile is the quantile of the training rows' L_ε that bounds a plausible
	// counterfactual, for quce-auto and for a Config with Auto or Sparse that has no bound
	// yet (0: quce.DefaultPlausibilityQuantile).
	PlausibilityQuantile float64
	AGI                  AGIConfig  // zero: DefaultAGIConfig()
	Dice                 DiceConfig // zero: DefaultDiceConfig()
	// IGPoints is the number of points of the straight IG path (K_total), x and x_c
	// included; 0 means as many as the QUCE path has (Config.Steps + 1).
	IGPoints int
	// Interp is the number of interpolation points at which L_ε is averaged along a path
	// for the path-uncertainty metrics (default 1000, as in the paper); see Interpolate.
	Interp int
	// ArcLength interpolates by arc length instead of by step index (see Interpolate).
	ArcLength bool
	// SparsityTol is the change (standardised units) of a continuous input above which its
	// column counts as changed (default 1e-3); a discrete column counts when its value
	// changes (see Changed).
	SparsityTol float64
	// AllCounterfactuals averages the counterfactual metrics (uncertainty, reconstruction
	// error, proximity, sparsity) over every counterfactual found, valid or not; by default
	// they are averaged over valid counterfactuals only.
	AllCounterfactuals bool
	// KeepPaths keeps every path in InstanceResult.Path (memory: instances × points ×
	// features); by default paths are dropped once measured.
	KeepPaths bool
	// Progress, if set, receives one line per phase.
	Progress func(format string, args ...any)
}

// DefaultOptions returns the defaults: 100 instances from each of train and test, every
// method, seed 1, quce.DefaultConfig(), AGI η 0.01 for at most 1000 steps, DiCE-random with
// 1000 samples per round, 1000 interpolation points by step index, sparsity tolerance 1e-3.
func DefaultOptions() Options {
	return Options{
		N: 100, Splits: []string{Train, Test}, Methods: append([]Method(nil), AllMethods...), Seed: 1,
		Config: quce.DefaultConfig(), AGI: DefaultAGIConfig(), Dice: DefaultDiceConfig(),
		Interp: 1000, SparsityTol: 1e-3,
	}
}

func (o Options) withDefaults() Options {
	d := DefaultOptions()
	if o.N == 0 {
		o.N = d.N
	}
	if len(o.Splits) == 0 {
		o.Splits = d.Splits
	}
	if len(o.Methods) == 0 {
		o.Methods = d.Methods
	}
	if reflect.ValueOf(o.Config).IsZero() {
		o.Config = d.Config
	}
	if o.AGI == (AGIConfig{}) {
		o.AGI = d.AGI
	}
	if o.Dice == (DiceConfig{}) {
		o.Dice = d.Dice
	}
	if o.Interp == 0 {
		o.Interp = d.Interp
	}
	if o.SparsityTol == 0 {
		o.SparsityTol = d.SparsityTol
	}
	if o.Auto == nil {
		o.Auto = o.Config.Auto
	}
	if o.Auto == nil {
		o.Auto = quce.DefaultAuto()
	}
	if o.PlausibilityQuantile == 0 {
		o.PlausibilityQuantile = quce.DefaultPlausibilityQuantile
	}
	return o
}

func (o Options) validate() error {
	if o.N < 0 {
		return fmt.Errorf("eval: n = %d; fix: use a positive number of instances per split", o.N)
	}
	for _, s := range o.Splits {
		if s != Train && s != Test {
			return fmt.Errorf("eval: unknown split %q; fix: use train and/or test", s)
		}
	}
	for _, m := range o.Methods {
		if !m.valid() {
			return fmt.Errorf("eval: unknown method %q; fix: use %s", m, methodList())
		}
	}
	if !(o.PlausibilityQuantile > 0 && o.PlausibilityQuantile < 1) {
		return fmt.Errorf("eval: plausibility quantile %v; fix: use a quantile strictly between 0 and 1, such as 0.9", o.PlausibilityQuantile)
	}
	if err := o.AGI.Validate(); err != nil {
		return err
	}
	if err := o.Dice.Validate(); err != nil {
		return err
	}
	switch {
	case o.IGPoints < 0 || o.IGPoints == 1:
		return fmt.Errorf("eval: IG points = %d; fix: use 0 (as many as QUCE's path) or at least 2", o.IGPoints)
	case o.Interp < 1:
		return fmt.Errorf("eval: interpolation points = %d; fix: use at least 1 (1000 as in the paper)", o.Interp)
	case !(o.SparsityTol > 0) || math.IsInf(o.SparsityTol, 0):
		return fmt.Errorf("eval: sparsity tolerance = %v; fix: use a small positive value such as 1e-3", o.SparsityTol)
	}
	return nil
}

// Report is the result of an evaluation. Metrics has the JSON shape
// {METHOD: {SPLIT: {METRIC: value}}}; a metric that does not apply to a method (see
// Applies), or that no instance could be measured for, is absent.
type Report struct {
	Dataset string                                   `json:"dataset"`
	N       int                                      `json:"n"` // instances asked for per split
	Metrics map[Method]map[string]map[string]float64 `json:"metrics"`

	Methods []Method         `json:"methods"`
	Splits  []string         `json:"splits"`
	Rows    map[string][]int `json:"rows"` // the data set's rows (0-based) evaluated, per split
	// Counts says, per method and split, how many instances were evaluated, how many
	// counterfactuals are valid and how many instances failed (invalid, or no result).
	Counts map[Method]map[string]Counts `json:"counts"`
	// AGIFlipped is, per split, how many AGI runs reached the other class.
	AGIFlipped map[string]int `json:"agi_flipped,omitempty"`
	// AlreadyTarget is, per split, how many of the instances chosen were left out because
	// the model already predicts the target class (Options.Class) for them: not evaluated,
	// not in Rows.
	AlreadyTarget map[string]int `json:"already_target,omitempty"`
	// Instances holds every instance's outcome, failures included, per method and split,
	// in the order of Rows.
	Instances map[Method]map[string][]InstanceResult `json:"instances"`
	Settings  Settings                               `json:"settings"`
	// Paper is PaperWBC when the data set is the embedded W-BC (for reference only).
	Paper   map[Method]map[string]map[string]float64 `json:"paper,omitempty"`
	Backend string                                   `json:"backend"`
	Seconds float64                                  `json:"seconds"` // wall time of Run
}

// Counts summarises one method on one split.
type Counts struct {
	Instances int `json:"instances"`
	Valid     int `json:"valid"`
	Failed    int `json:"failed"`
}

// Settings records what the evaluation ran with.
type Settings struct {
	Seed               uint64      `json:"seed"`
	Config             quce.Config `json:"quce"`
	AutoConfig         quce.Config `json:"quce_auto"` // quce-auto's configuration, with its bound
	AGI                AGIConfig   `json:"agi"`
	Dice               DiceConfig  `json:"dice"`
	IGPoints           int         `json:"ig_points"`
	Interp             int         `json:"interp"`
	Interpolation      string      `json:"interpolation"` // "step" or "arc-length"
	SparsityTol        float64     `json:"sparsity_tol"`
	AllCounterfactuals bool        `json:"all_counterfactuals"`
	// Constraints are written with an open side of a bound (NaN) as null.
	Constraints quce.Constraints `json:"constraints"`
}

// InstanceResult is one method's outcome on one instance.
type InstanceResult struct {
	Index    int `json:"index"`    // position in the split's evaluated rows
	Row      int `json:"row"`      // row of the data set (0-based)
	Line     int `json:"line"`     // the row's line in its CSV file (the header is line 1), as the CLI numbers rows
	Label    int `json:"label"`    // the data's label
	Original int `json:"original"` // f(x), the model's class at threshold ϑ
	Target   int `json:"target"`   // τ
	// Valid is F(τ|x_c) ≥ ϑ (for ig: QUCE's counterfactual, where its path ends).
	Valid bool `json:"valid"`
	// Failure says why the instance has no valid result ("" when it has one).
	Failure string `json:"failure,omitempty"`
	// ProbEnd is F(τ|x_c); for DiCE-random without a counterfactual, the highest F(τ|·)
	// of any candidate. NaN (null in JSON) when the method failed before it had one.
	ProbEnd float64 `json:"prob_end"`
	Steps   int     `json:"steps,omitempty"` // path steps (agi: until the flip)
	// Metrics holds this instance's values of the per-instance metrics (path_uncertainty,
	// path_uncertainty_trained, cf_uncertainty, cf_uncertainty_trained, cf_recon_error,
	// proximity_l1, proximity_l2, sparsity, completeness_gap (signed), deletion, insertion).
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Warnings name per-instance metrics that came out non-finite and were left out.
	Warnings []string `json:"warnings,omitempty"`
	// CounterfactualOriginal is x_c in the data's units; Attribution is Φ (path methods).
	CounterfactualOriginal []float64 `json:"counterfactual,omitempty"`
	Attribution            []float64 `json:"attribution,omitempty"`
	// Auto is how quce-auto chose this instance's λ2 and λ3, with the candidates it saw.
	Auto *quce.AutoChoice `json:"auto,omitempty"`

	Counterfactual []float64   `json:"-"` // x_c, standardised
	Path           [][]float64 `json:"-"` // the path, standardised (path methods, with Options.KeepPaths)
}

// MarshalJSON writes ProbEnd as null when it is not finite: JSON has no NaN.
func (r InstanceResult) MarshalJSON() ([]byte, error) {
	type plain InstanceResult
	var end *float64
	if !math.IsNaN(r.ProbEnd) && !math.IsInf(r.ProbEnd, 0) {
		end = &r.ProbEnd
	}
	return json.Marshal(struct {
		plain
		ProbEnd *float64 `json:"prob_end"`
	}{plain(r), end})
}

// outcome is a method's raw result on one instance before the metrics.
type outcome struct {
	res      InstanceResult
	x        []float64
	path     *quce.Path // path methods
	measured bool       // the path is measured (no numerical failure)
}

// Run evaluates the chosen methods on N instances of each chosen split of s, with one
// classifier, one VAE and the same batched machinery for every method, and computes the
// metrics (docs/METHOD.md#metrics). QUCE runs once per split and ig reuses its counterfactuals.
func Run(ctx context.Context, s *pipeline.Setup, o Options) (*Report, error) {
	start := time.Now()
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	if s == nil || s.Explainer == nil || s.Model == nil {
		return nil, fmt.Errorf("eval: the setup has no trained models; fix: prepare it with pipeline.Prepare")
	}
	logf := o.Progress
	if logf == nil {
		logf = func(string, ...any) {}
	}
	igPoints := o.IGPoints
	if igPoints == 0 {
		igPoints = o.Config.Steps + 1
	}
	interpName := "step"
	if o.ArcLength {
		interpName = "arc-length"
	}
	rep := &Report{
		Dataset: s.Data.Name, N: o.N, Methods: o.Methods, Splits: o.Splits,
		Metrics:   map[Method]map[string]map[string]float64{},
		Rows:      map[string][]int{},
		Counts:    map[Method]map[string]Counts{},
		Instances: map[Method]map[string][]InstanceResult{},
		Settings: Settings{
			Seed: o.Seed, Config: o.Config, AGI: o.AGI, Dice: o.Dice, IGPoints: igPoints,
			Interp: o.Interp, Interpolation: interpName, SparsityTol: o.SparsityTol,
			AllCounterfactuals: o.AllCounterfactuals, Constraints: o.Constraints,
		},
		Backend: s.BackendInfo.String(),
	}
	if IsWBC(s.Data.Name) {
		rep.Paper = PaperWBC
	}
	for _, m := range o.Methods {
		rep.Metrics[m] = map[string]map[string]float64{}
		rep.Counts[m] = map[string]Counts{}
		rep.Instances[m] = map[string][]InstanceResult{}
	}
	cols, sc := s.Explainer.Columns(), s.Explainer.Scaler()
	// Checked once here, so that a bad flag is not reported as a problem of one instance.
	if err := quce.CheckConstraints(cols, o.Constraints); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	if !slices.ContainsFunc(cols, func(c data.Column) bool { return !slices.Contains(o.Constraints.Frozen, c.Name) }) {
		return nil, fmt.Errorf("eval: -frozen freezes every column, so no method can change anything; fix: leave at least one column out of -frozen")
	}
	mdl := newModel(s.Backend, s.Explainer.Classifier())
	target, err := ClassIndex(s.Data.Labels, o.Class)
	if err != nil {
		return nil, err
	}
	lines, err := pipeline.Lines(s.Data)
	if err != nil {
		return nil, err
	}
	lo, hi := trainRange(s.XTrain)
	// Every point of every path is kept, so the path uncertainty is measured along the
	// path itself (and the points the explainer measured are reused), not a thinned copy.
	cfg := o.Config
	cfg.PathPoints = 0
	acfg := cfg
	acfg.Auto = o.Auto
	if cfg, err = s.WithPlausibility(cfg, o.PlausibilityQuantile); err != nil {
		return nil, err
	}
	if acfg, err = s.WithPlausibility(acfg, o.PlausibilityQuantile); err != nil {
		return nil, err
	}
	rep.Settings.Config, rep.Settings.AutoConfig = cfg, acfg
	// wachter is the fixed-λ search without the uncertainty term.
	wcfg := cfg
	wcfg.Lambda3, wcfg.Auto = 0, nil

	for _, split := range o.Splits {
		xsAll, idx := s.XTrain, s.TrainIdx
		if split == Test {
			xsAll, idx = s.XTest, s.TestIdx
		}
		pick := sample(len(xsAll), o.N, o.Seed, split)
		if len(pick) == 0 {
			return nil, fmt.Errorf("eval: the %s split is empty; fix: use a larger data set or another split", split)
		}
		xs := make([][]float64, len(pick))
		rows := make([]int, len(pick))
		for i, p := range pick {
			xs[i], rows[i] = xsAll[p], idx[p]
		}
		if xs, rows, err = leaveOutAlreadyTarget(s, o, split, target, xs, rows, rep); err != nil {
			return nil, err
		}
		rep.Rows[split] = rows
		base := make([]InstanceResult, len(xs))
		for i := range xs {
			base[i] = InstanceResult{Index: i, Row: rows[i], Line: lines[rows[i]], Label: s.Data.Y[rows[i]]}
		}
		queries := make([]quce.Query, len(xs))
		boxes := make([]box, len(xs))
		targets := make([]int, len(xs))
		for i, x := range xs {
			if queries[i], err = s.Explainer.Constrain(quce.Query{X: x, Target: target}, o.Constraints); err != nil {
				return nil, fmt.Errorf("eval: the %s split's row %d (line %d): %w", split, rows[i], lines[rows[i]], err)
			}
			if boxes[i], err = newBox(s.Explainer, queries[i]); err != nil {
				return nil, err
			}
			targets[i] = target
		}

		outs := map[Method][]*outcome{}
		secs := map[Method]float64{}
		// search runs one of the QUCE searches (quce, quce-auto, wachter) as method m.
		search := func(m Method, c quce.Config, what string) ([]*quce.Explanation, error) {
			logf("eval: %s: %s on %d instances (%d steps)", split, what, len(xs), c.Steps)
			t0 := time.Now()
			ex, err := s.Explainer.Explain(ctx, c, queries)
			if err != nil {
				return nil, fmt.Errorf("eval: %s on the %s split: %w", what, split, err)
			}
			secs[m] = time.Since(t0).Seconds()
			outs[m] = pathOutcomes(base, xs, ex, o.Config.Threshold, "")
			return ex, nil
		}
		var quceEx []*quce.Explanation
		if slices.Contains(o.Methods, QUCE) || slices.Contains(o.Methods, IG) {
			if quceEx, err = search(QUCE, cfg, "QUCE"); err != nil {
				return nil, err
			}
		}
		if slices.Contains(o.Methods, IG) {
			logf("eval: %s: straight-line IG to QUCE's counterfactuals (%d points)", split, igPoints)
			t0 := time.Now()
			// IG goes to QUCE's counterfactual, so an instance whose QUCE search failed has
			// no IG path.
			var idx []int
			var lines [][][]float64
			var qs []quce.Query
			for i, x := range xs {
				if p := quceEx[i].Path0(); p.Failure == "" {
					idx, qs = append(idx, i), append(qs, queries[i])
					lines = append(lines, straightLine(x, p.Counterfactual, igPoints))
				}
			}
			var ex []*quce.Explanation
			if len(idx) > 0 {
				if ex, err = s.Explainer.ExplainPaths(ctx, cfg, qs, lines); err != nil {
					return nil, fmt.Errorf("eval: IG on the %s split: %w", split, err)
				}
			}
			secs[IG] = time.Since(t0).Seconds()
			measured := pathOutcomes(subset(base, idx), subset(xs, idx), ex, o.Config.Threshold, "ends at QUCE's counterfactual, which is not valid: ")
			outs[IG] = make([]*outcome, len(xs))
			for k, i := range idx {
				outs[IG][i] = measured[k]
			}
			for i, oc := range outs[IG] {
				if oc == nil {
					r := base[i]
					r.Original, r.Target = quceEx[i].PredictedClass, quceEx[i].Target
					r.ProbEnd = math.NaN()
					r.Failure = "QUCE's search failed, so there is no counterfactual for IG to go to: " + quceEx[i].Path0().Failure
					outs[IG][i] = &outcome{res: r, x: xs[i]}
				}
			}
		}
		if slices.Contains(o.Methods, QUCEAuto) {
			if _, err := search(QUCEAuto, acfg, fmt.Sprintf("QUCE with automatic λ (%d candidates each)", len(acfg.Auto.Grid))); err != nil {
				return nil, err
			}
		}
		if slices.Contains(o.Methods, Wachter) {
			if _, err := search(Wachter, wcfg, "Wachter (λ3 = 0)"); err != nil {
				return nil, err
			}
		}
		if slices.Contains(o.Methods, AGI) {
			logf("eval: %s: AGI on %d instances (η %v, at most %d steps)", split, len(xs), o.AGI.Eta, o.AGI.MaxSteps)
			t0 := time.Now()
			var legal func(i int, pt []float64) ([]float64, error)
			if slices.ContainsFunc(cols, func(c data.Column) bool { return c.Type != data.Continuous }) {
				legal = func(i int, pt []float64) ([]float64, error) { return s.Explainer.Legalize(queries[i], pt) }
			}
			agi, err := mdl.agi(ctx, legal, boxes, targets, o.AGI, o.Config.Threshold)
			if err != nil {
				return nil, fmt.Errorf("eval: AGI on the %s split: %w", split, err)
			}
			paths := make([][][]float64, len(agi))
			for i, p := range agi {
				paths[i] = p.Points
				end := p.Points[len(p.Points)-1]
				legal, err := s.Explainer.Legalize(queries[i], end)
				if err != nil {
					return nil, err
				}
				if !slices.Equal(legal, end) {
					// The end is projected onto the nearest legal row as QUCE's is, and the
					// projection walked in pieces as the explainer walks its own, so the metrics
					// are the legal row's and the attribution still integrates to it.
					paths[i] = append(slices.Clip(p.Points), straightLine(end, legal, projectPieces+1)[1:]...)
				}
			}
			ex, err := s.Explainer.ExplainPaths(ctx, cfg, queries, paths)
			if err != nil {
				return nil, fmt.Errorf("eval: measuring the AGI paths on the %s split: %w", split, err)
			}
			secs[AGI] = time.Since(t0).Seconds()
			outs[AGI] = pathOutcomes(base, xs, ex, o.Config.Threshold, "AGI reached the other class, but the legal row nearest its end is ")
			flipped := 0
			for i, p := range agi {
				oc := outs[AGI][i]
				oc.res.Steps = p.Steps // the projection's pieces are no AGI steps
				switch {
				case p.Failure != "":
					oc.res.Valid = false
					oc.res.Failure = "AGI stopped: " + p.Failure
				case p.Flipped:
					flipped++
				case !oc.measured:
					oc.res.Failure = fmt.Sprintf("AGI did not reach the other class in %d steps; %s", p.Steps, oc.res.Failure)
				default:
					oc.res.Valid = false
					oc.res.Failure = fmt.Sprintf("AGI did not reach the other class in %d steps (F(τ|·) = %.3g < ϑ = %v at the last point)", p.Steps, p.ProbEnd, o.Config.Threshold)
				}
			}
			if rep.AGIFlipped == nil {
				rep.AGIFlipped = map[string]int{}
			}
			rep.AGIFlipped[split] = flipped
		}
		if slices.Contains(o.Methods, DiceRandom) {
			logf("eval: %s: DiCE-random on %d instances (%d samples per round)", split, len(xs), o.Dice.Samples)
			t0 := time.Now()
			spaces := make([]*diceSpace, len(xs))
			for i, b := range boxes {
				spaces[i] = newDiceSpace(cols, sc, b, lo, hi)
			}
			dr, err := mdl.dice(ctx, spaces, targets, o.Dice, o.Config.Threshold, o.Seed)
			if err != nil {
				return nil, fmt.Errorf("eval: DiCE-random on the %s split: %w", split, err)
			}
			secs[DiceRandom] = time.Since(t0).Seconds()
			outs[DiceRandom] = diceOutcomes(base, xs, dr, s.Explainer)
		}

		logf("eval: %s: metrics", split)
		if err := measure(ctx, s.Explainer, mdl, o, outs); err != nil {
			return nil, err
		}
		for _, m := range o.Methods {
			rep.Metrics[m][split] = aggregate(m, outs[m], o)
			rep.Metrics[m][split][SecondsPerInstance] = secs[m] / float64(len(xs))
			c := Counts{Instances: len(xs)}
			res := make([]InstanceResult, len(outs[m]))
			for i, oc := range outs[m] {
				res[i] = oc.res
				if !o.KeepPaths {
					res[i].Path = nil
				}
				if oc.res.Valid {
					c.Valid++
				}
				if oc.res.Failure != "" {
					c.Failed++
				}
			}
			rep.Counts[m][split] = c
			rep.Instances[m][split] = res
		}
	}
	rep.Seconds = time.Since(start).Seconds()
	logf("eval: done in %.1f s", rep.Seconds)
	return rep, nil
}

// leaveOutAlreadyTarget drops the instances that the model already predicts as the target
// class (-class): they have nothing to change, so no method can fail on them, and counting
// them would inflate every method's validity. rep.AlreadyTarget records how many were left
// out; when none is left, it is an error.
func leaveOutAlreadyTarget(s *pipeline.Setup, o Options, split string, target int, xs [][]float64, rows []int, rep *Report) ([][]float64, []int, error) {
	if target == quce.AutoTarget {
		return xs, rows, nil
	}
	probs, err := s.Explainer.Predict(xs)
	if err != nil {
		return nil, nil, err
	}
	var keepX [][]float64
	var keepRows []int
	for i, p := range probs {
		if quce.PredictedClass(p, o.Config.Threshold) != target {
			keepX, keepRows = append(keepX, xs[i]), append(keepRows, rows[i])
		}
	}
	if left := len(xs) - len(keepX); left > 0 {
		if rep.AlreadyTarget == nil {
			rep.AlreadyTarget = map[string]int{}
		}
		rep.AlreadyTarget[split] = left
	}
	if len(keepX) == 0 {
		return nil, nil, fmt.Errorf("eval: the model already predicts %q for all %d instances of the %s split, so there is nothing to explain; fix: name another class with -class, or leave -class out", s.Data.Labels[target], len(xs), split)
	}
	return keepX, keepRows, nil
}

// projectPieces is the number of straight pieces in which AGI's end is walked to the nearest
// legal row: as many as the explainer walks its own projection in, where the attribution's
// integration error stays below 1e-3.
const projectPieces = 8

// sample picks n of size rows with a generator seeded by seed and the split's name, and
// returns them in ascending order; all rows when n ≥ size.
func sample(size, n int, seed uint64, split string) []int {
	all := make([]int, size)
	for i := range all {
		all[i] = i
	}
	if n >= size {
		return all
	}
	var key uint64
	for _, c := range split {
		key = key*131 + uint64(c)
	}
	rng := rand.New(rand.NewPCG(seed, key))
	rng.Shuffle(size, func(a, b int) { all[a], all[b] = all[b], all[a] })
	pick := all[:n]
	slices.Sort(pick)
	return pick
}

// trainRange is the per-feature minimum and maximum of the training rows.
func trainRange(x [][]float64) (lo, hi []float64) {
	j := len(x[0])
	lo, hi = make([]float64, j), make([]float64, j)
	for f := 0; f < j; f++ {
		lo[f], hi[f] = math.Inf(1), math.Inf(-1)
		for _, r := range x {
			lo[f], hi[f] = min(lo[f], r[f]), max(hi[f], r[f])
		}
	}
	return lo, hi
}

// straightLine is the path of p points from x to xc (x and xc exactly at its ends).
func straightLine(x, xc []float64, p int) [][]float64 {
	out := make([][]float64, p)
	out[0] = append([]float64(nil), x...)
	for k := 1; k < p-1; k++ {
		t := float64(k) / float64(p-1)
		pt := make([]float64, len(x))
		for j := range x {
			pt[j] = x[j] + t*(xc[j]-x[j])
		}
		out[k] = pt
	}
	out[p-1] = append([]float64(nil), xc...)
	return out
}

// pathOutcomes turns explanations (one path each) into outcomes.
func pathOutcomes(base []InstanceResult, xs [][]float64, ex []*quce.Explanation, threshold float64, invalidPrefix string) []*outcome {
	out := make([]*outcome, len(ex))
	for i, e := range ex {
		p := e.Path0()
		r := base[i]
		r.Original, r.Target = e.PredictedClass, e.Target
		r.Valid, r.ProbEnd, r.Steps = p.Valid, p.ProbEnd, p.Steps
		r.Counterfactual = p.Counterfactual
		r.CounterfactualOriginal = p.CounterfactualOriginal
		r.Attribution = p.Attribution
		r.Auto = e.Auto
		r.Path = p.Points
		switch {
		case p.Failure != "":
			// A failed path has no counterfactual and no attribution (its numbers are NaN).
			r.Counterfactual, r.CounterfactualOriginal, r.Attribution = nil, nil, nil
			r.Failure = "failed: " + p.Failure
		case !p.Valid:
			r.Failure = fmt.Sprintf("%snot valid: F(τ|x_c) = %.3g < ϑ = %v", invalidPrefix, p.ProbEnd, threshold)
		}
		out[i] = &outcome{res: r, x: xs[i], path: p, measured: p.Failure == ""}
	}
	return out
}

// subset is the elements of v at idx.
func subset[T any](v []T, idx []int) []T {
	out := make([]T, len(idx))
	for k, i := range idx {
		out[k] = v[i]
	}
	return out
}

func diceOutcomes(base []InstanceResult, xs [][]float64, dr []*DiceResult, e *quce.Explainer) []*outcome {
	out := make([]*outcome, len(dr))
	for i, d := range dr {
		r := base[i]
		r.Original, r.Target = d.Original, d.Target
		r.ProbEnd = d.ProbEnd
		if d.Counterfactual != nil {
			r.Valid = true
			r.Counterfactual = d.Counterfactual
			r.CounterfactualOriginal = e.Scaler().InverseRow(d.Counterfactual)
		} else {
			r.Failure = fmt.Sprintf("no candidate reached the target class (%d candidates changing up to %d features; best F(τ|·) = %.3g < ϑ)", d.Candidates, d.Features, d.ProbEnd)
			if d.NonFinite > 0 {
				r.Failure += fmt.Sprintf("; the model's F(τ|·) was not finite for %d of them", d.NonFinite)
			}
		}
		out[i] = &outcome{res: r, x: xs[i]}
	}
	return out
}

// ClassIndex is the index of the class labelled name among labels, or quce.AutoTarget for
// "". An unknown name is an error that lists the classes.
func ClassIndex(labels []string, name string) (int, error) {
	if name == "" {
		return quce.AutoTarget, nil
	}
	for i, l := range labels {
		if l == name {
			return i, nil
		}
	}
	return 0, fmt.Errorf("-class %q names no class of the target; fix: use one of %q", name, labels)
}
