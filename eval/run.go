package eval

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"time"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
)

// Options say what to evaluate. The zero value of a field means its default (see
// DefaultOptions), except Seed, where 0 is a seed like any other.
type Options struct {
	// N is the instances per split (default 100; a smaller split is used whole). With
	// Class they are N rows that need recourse: the model does not already predict Class.
	N       int
	Splits  []string // "train" and/or "test" (default both)
	Methods []Method // default DefaultMethods
	// Seed picks the N rows of each split (a seeded sample, listed in data order) and seeds
	// DiCE-random. The QUCE search has its own seed, Config.Seed. With Class, the rows are
	// the first N in the seeded order that need recourse.
	Seed uint64
	// Rows, when set, names the rows to evaluate, instead of N and Seed, by their lines in
	// the CSV file (the header is line 1), so that the results can be set beside another
	// tool's on the same rows. Each split evaluates the rows it holds; a split in Splits that
	// holds none of them is left out.
	Rows []int
	// Config is QUCE's configuration (zero: quce.DefaultConfig()). wachter uses it with
	// Lambda3 = 0; ig and agi are measured with its attribution rule, K and threshold.
	Config quce.Config
	// Class names the target class τ of every instance by its label; "" gives each instance
	// its default target (see quce.DefaultTarget). Rows that the model already predicts as
	// Class are skipped (Report.AlreadyTarget).
	Class string
	// Constraints constrain every method's instances (quce.Explainer.Constrain): frozen
	// columns do not change, increase- and decrease-only columns and bounds hold along every
	// path and at every counterfactual. An instance that a bound excludes is an error.
	Constraints quce.Constraints
	// Auto is quce-auto's grid of (λ2, λ3) (nil: Config.Auto, or else quce.DefaultAuto()).
	Auto *quce.Auto
	// AutoMargin, if set, is quce-auto's Config.Margin, 0 included; nil: Config.Margin
	// when positive, else quce.DefaultMargin (a Config for fixed λ has no margin unless it
	// walks back, so its zero cannot say "none" for quce-auto).
	AutoMargin *float64
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

// DefaultOptions returns the defaults: 100 instances from each of train and test, the
// DefaultMethods, seed 1, quce.DefaultConfig(), AGI η 0.01 for at most 1000 steps,
// DiCE-random with 1000 samples per round, 1000 interpolation points by step index,
// sparsity tolerance 1e-3.
func DefaultOptions() Options {
	return Options{
		N: 100, Splits: []string{Train, Test}, Methods: DefaultMethods(), Seed: 1,
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
	N       int                                      `json:"n"` // instances asked for per split (with Options.Rows: rows named)
	Metrics map[Method]map[string]map[string]float64 `json:"metrics"`

	Methods []Method         `json:"methods"`
	Splits  []string         `json:"splits"`
	SplitBy string           `json:"split_by,omitempty"` // Data.SplitBy: a user's split
	Rows    map[string][]int `json:"rows"`               // the data set's rows (0-based) evaluated, per split
	// Counts says, per method and split, how many instances were evaluated, how many
	// counterfactuals are valid and how many instances failed (invalid, or no result).
	Counts map[Method]map[string]Counts `json:"counts"`
	// AGIFlipped is, per split, how many AGI runs reached the other class.
	AGIFlipped map[string]int `json:"agi_flipped,omitempty"`
	// AlreadyTarget is, per split, how many rows were skipped because the model already
	// predicts the target class (Options.Class) for them: the rows of the seeded order
	// passed over on the way to N that need recourse, or the rows of Options.Rows left out.
	// They are not evaluated, and not in Rows.
	AlreadyTarget map[string]int `json:"already_target,omitempty"`
	// Applied lists, by Go name and value, every setting that differs from its default
	// (such as "quce.Config.Sparse" or "eval.Options.Class \"1\""): all that shaped the
	// figures besides the header's instance count, splits, methods and seed.
	Applied []string `json:"applied,omitempty"`
	// Matched is, per split, how many instances every method with counterfactuals made
	// valid: the instances the matched metrics (ProximityL1Matched, CFUncertaintyMatched)
	// average over.
	Matched map[string]int `json:"matched"`
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
	Rows        []int            `json:"rows,omitempty"` // Options.Rows: the lines named
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
	// proximity_l1, proximity_l2, sparsity, completeness_gap (signed), deletion, insertion,
	// and the recourse metrics ynn, redundancy (valid counterfactuals), distance_l1_minmax,
	// distance_l2_minmax, distance_linf_minmax and constraint_violations (0 or 1); with
	// quce.Config.Counterfactuals above 1, counterfactuals_per_row (this instance's count),
	// options_distance_l1_minmax and, with two or more, diversity_continuous,
	// diversity_categorical and count_diversity).
	Metrics map[string]float64 `json:"metrics,omitempty"`
	// Warnings name per-instance metrics that came out non-finite and were left out.
	Warnings []string `json:"warnings,omitempty"`
	// CounterfactualOriginal is x_c in the data's units; Attribution is Φ (path methods).
	CounterfactualOriginal []float64 `json:"counterfactual,omitempty"`
	Attribution            []float64 `json:"attribution,omitempty"`
	// Options are, with quce.Config.Counterfactuals above 1, the instance's further distinct
	// valid counterfactuals after the first, in the data's units, in the order found.
	Options [][]float64 `json:"options,omitempty"`
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
	// options are, with quce.Config.Counterfactuals above 1, the method's distinct valid
	// counterfactuals of the instance (standardised), the first being res.Counterfactual;
	// nil for a method that gives one.
	options [][]float64
}

// Run evaluates the chosen methods on N instances of each chosen split of d, with one
// classifier, one VAE and the same batched machinery for every method, and computes the
// metrics (docs/METHOD.md#metrics). Each method runs once per split, in table order; ig
// reuses QUCE's counterfactuals.
func Run(ctx context.Context, d Data, o Options) (*Report, error) {
	start := time.Now()
	ev, err := newEvaluation(d, o)
	if err != nil {
		return nil, err
	}
	for _, name := range ev.o.Splits {
		if err := ev.evaluateSplit(ctx, name); err != nil {
			return nil, err
		}
	}
	ev.rep.Seconds = time.Since(start).Seconds()
	ev.logf("eval: done in %.1f s", ev.rep.Seconds)
	return ev.rep, nil
}

// evaluation is one Run: its data, its options with their defaults, and what every split
// and method shares.
type evaluation struct {
	d    Data
	o    Options
	logf func(format string, args ...any)
	mdl  *model
	rep  *Report
	// target is τ of every instance (quce.AutoTarget: each its default).
	target int
	// lo and hi are the training rows' range, per input (DiCE-random's range).
	lo, hi []float64
	// cfg is QUCE's configuration, autoCfg quce-auto's and wachterCfg Wachter's (λ3 = 0),
	// each with the plausibility bound it needs.
	cfg, autoCfg, wachterCfg quce.Config
	igPoints                 int // points of ig's straight line
	// classes are the model's classes of every row, per split, once computed (predicted).
	classes map[string][]int
	// rowsIn are the positions of Options.Rows' rows in each split (resolveRows).
	rowsIn map[string][]int
}

// newEvaluation checks d and o and starts the report.
func newEvaluation(d Data, o Options) (*evaluation, error) {
	o = o.withDefaults()
	if err := o.validate(); err != nil {
		return nil, err
	}
	if err := d.check(); err != nil {
		return nil, err
	}
	ev := &evaluation{d: d, o: o, logf: o.Progress, mdl: newModel(d.Backend, d.Explainer.Classifier()), classes: map[string][]int{}}
	if ev.logf == nil {
		ev.logf = func(string, ...any) {}
	}
	ev.igPoints = o.IGPoints
	if ev.igPoints == 0 {
		ev.igPoints = o.Config.Steps + 1
	}
	if err := ev.resolveRows(); err != nil {
		return nil, err
	}
	ev.rep = newReport(d, ev.o, ev.igPoints)
	cols := d.Explainer.Columns()
	// Checked once here, so that a bad constraint is not reported as a problem of one instance.
	if err := quce.CheckConstraints(cols, o.Constraints); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	if !slices.ContainsFunc(cols, func(c data.Column) bool { return !slices.Contains(o.Constraints.Frozen, c.Name) }) {
		return nil, fmt.Errorf("eval: Constraints.Frozen freezes every column, so no method can change anything; fix: leave at least one column out of Constraints.Frozen")
	}
	var err error
	if ev.target, err = data.ClassIndex(d.Classes, o.Class); err != nil {
		return nil, fmt.Errorf("eval: eval.Options.Class %w", err)
	}
	ev.lo, ev.hi = trainRange(d.Train.X)
	if err := ev.configs(); err != nil {
		return nil, err
	}
	return ev, nil
}

// configs sets the searches' configurations, each with its plausibility bound.
func (ev *evaluation) configs() error {
	// Every point of every path is kept, so the path uncertainty is measured along the
	// path itself (and the points the explainer measured are reused), not a thinned copy.
	cfg := ev.o.Config
	cfg.PathPoints = 0
	acfg := cfg
	acfg.Auto = ev.o.Auto
	switch {
	case ev.o.AutoMargin != nil:
		acfg.Margin = *ev.o.AutoMargin
	case acfg.Margin == 0:
		acfg.Margin = quce.DefaultMargin // automatic λ's, unless the configuration sets one
	}
	var err error
	if ev.cfg, err = ev.d.WithPlausibility(cfg, ev.o.PlausibilityQuantile); err != nil {
		return err
	}
	if ev.autoCfg, err = ev.d.WithPlausibility(acfg, ev.o.PlausibilityQuantile); err != nil {
		return err
	}
	ev.rep.Settings.Config, ev.rep.Settings.AutoConfig = ev.cfg, ev.autoCfg
	ev.wachterCfg = ev.cfg
	ev.wachterCfg.Lambda3, ev.wachterCfg.Auto = 0, nil
	return nil
}

// newReport is the report of d and o before any method has run.
func newReport(d Data, o Options, igPoints int) *Report {
	interp := "step"
	if o.ArcLength {
		interp = "arc-length"
	}
	rep := &Report{
		Dataset: d.Name, N: cmp.Or(len(o.Rows), o.N), Methods: o.Methods, Splits: o.Splits, SplitBy: d.SplitBy,
		Metrics:   map[Method]map[string]map[string]float64{},
		Rows:      map[string][]int{},
		Counts:    map[Method]map[string]Counts{},
		Instances: map[Method]map[string][]InstanceResult{},
		Settings: Settings{
			Seed: o.Seed, Config: o.Config, AGI: o.AGI, Dice: o.Dice, IGPoints: igPoints,
			Interp: o.Interp, Interpolation: interp, SparsityTol: o.SparsityTol,
			AllCounterfactuals: o.AllCounterfactuals, Constraints: o.Constraints, Rows: o.Rows,
		},
		Backend: d.BackendName,
		Applied: applied(o),
	}
	if IsWBC(d.Name) {
		rep.Paper = PaperWBC
	}
	for _, m := range o.Methods {
		rep.Metrics[m] = map[string]map[string]float64{}
		rep.Counts[m] = map[string]Counts{}
		rep.Instances[m] = map[string][]InstanceResult{}
	}
	return rep
}

// split is one split's instances as every method gets them, and the methods' outcomes.
type split struct {
	*evaluation
	name    string
	xs      [][]float64 // the instances, standardised
	base    []InstanceResult
	queries []quce.Query // constrained (Options.Constraints)
	boxes   []box
	targets []int
	outs    map[Method][]*outcome // per method run so far
}

// newSplit picks the named split's instances (pickRows) and constrains them.
func (ev *evaluation) newSplit(ctx context.Context, name string) (*split, error) {
	all := ev.d.split(name)
	pick, err := ev.pickRows(ctx, name, all)
	if err != nil {
		return nil, err
	}
	s := &split{evaluation: ev, name: name, outs: map[Method][]*outcome{}}
	rows := make([]int, len(pick))
	s.xs = make([][]float64, len(pick))
	for i, p := range pick {
		s.xs[i], rows[i] = all.X[p], all.Rows[p]
	}
	ev.rep.Rows[name] = rows
	n := len(s.xs)
	s.base, s.queries, s.boxes, s.targets = make([]InstanceResult, n), make([]quce.Query, n), make([]box, n), make([]int, n)
	for i, x := range s.xs {
		r := rows[i]
		s.base[i] = InstanceResult{Index: i, Row: r, Line: ev.d.Lines[r], Label: ev.d.Labels[r]}
		q := quce.Query{X: x, Original: ev.d.Originals[r], Target: ev.target}
		if s.queries[i], err = ev.d.Explainer.Constrain(q, ev.o.Constraints); err != nil {
			return nil, fmt.Errorf("eval: the %s split's row %d (line %d): %w", name, r, ev.d.Lines[r], err)
		}
		if s.boxes[i], err = newBox(ev.d.Explainer, s.queries[i]); err != nil {
			return nil, err
		}
		s.targets[i] = ev.target
	}
	return s, nil
}

// evaluateSplit runs the methods on the named split's instances, measures their outcomes
// and records them in the report.
func (ev *evaluation) evaluateSplit(ctx context.Context, name string) error {
	s, err := ev.newSplit(ctx, name)
	if err != nil {
		return err
	}
	secs, err := s.runMethods(ctx)
	if err != nil {
		return err
	}
	ev.logf("eval: %s: metrics", name)
	if err := measure(ctx, ev.d.Explainer, ev.mdl, ev.o, s.outs); err != nil {
		return err
	}
	if err := s.recourse(ctx); err != nil {
		return err
	}
	s.several()
	ev.record(s, secs)
	return nil
}

// runMethods runs the chosen methods, and those they need, on the split, and returns each
// one's wall seconds.
func (s *split) runMethods(ctx context.Context) (map[Method]float64, error) {
	run := map[Method]bool{}
	for _, m := range s.o.Methods {
		a, _ := lookup(m)
		run[m] = true
		for _, n := range a.needs {
			run[n] = true
		}
	}
	secs := map[Method]float64{}
	for _, r := range registry {
		m := r.about().name
		if !run[m] {
			continue
		}
		t0 := time.Now()
		outs, err := r.run(ctx, s)
		if err != nil {
			return nil, err
		}
		secs[m], s.outs[m] = time.Since(t0).Seconds(), outs
	}
	return secs, nil
}

// record writes the split's measured outcomes into the report.
func (ev *evaluation) record(s *split, secs map[Method]float64) {
	both := matchedInstances(ev.o.Methods, s.outs, len(s.xs))
	if ev.rep.Matched == nil {
		ev.rep.Matched = map[string]int{}
	}
	ev.rep.Matched[s.name] = len(both)
	for _, m := range ev.o.Methods {
		ev.rep.Metrics[m][s.name] = aggregate(m, s.outs[m], ev.o)
		for _, k := range matchedOf {
			if v, ok := meanOver(s.outs[m], both, k.of); ok && Applies(m, k.matched) {
				ev.rep.Metrics[m][s.name][k.matched] = v
			}
		}
		ev.rep.Metrics[m][s.name][SecondsPerInstance] = secs[m] / float64(len(s.xs))
		c := Counts{Instances: len(s.xs)}
		res := make([]InstanceResult, len(s.outs[m]))
		for i, oc := range s.outs[m] {
			res[i] = oc.res
			if !ev.o.KeepPaths {
				res[i].Path = nil
			}
			if oc.res.Valid {
				c.Valid++
			}
			if oc.res.Failure != "" {
				c.Failed++
			}
		}
		ev.rep.Counts[m][s.name] = c
		ev.rep.Instances[m][s.name] = res
	}
}

// pickRows chooses the positions of the named split's rows to evaluate, in the split's
// order: Options.Rows' rows of the split, or else N rows of a seeded order (seededOrder).
// With Options.Class, a row that the model already predicts as the target class is skipped
// (it has nothing to change, so no method can fail on it, and counting it would inflate
// every method's validity), and the seeded order is walked on until N rows need recourse;
// the report's AlreadyTarget records how many were skipped. When none is left, it is an
// error.
func (ev *evaluation) pickRows(ctx context.Context, name string, all Split) ([]int, error) {
	cand, limit := seededOrder(len(all.X), ev.o.N, ev.o.Seed, name), ev.o.N
	if ev.o.Rows != nil {
		cand, limit = ev.rowsIn[name], len(ev.rowsIn[name])
	}
	if len(cand) == 0 {
		return nil, fmt.Errorf("eval: the %s split is empty; fix: use a larger data set or another split", name)
	}
	if ev.target == quce.AutoTarget {
		return slices.Sorted(slices.Values(cand[:min(limit, len(cand))])), nil
	}
	class, err := ev.predicted(ctx, name)
	if err != nil {
		return nil, err
	}
	var pick []int
	skipped := 0
	for _, p := range cand {
		if len(pick) == limit {
			break
		}
		if class[p] == ev.target {
			skipped++
			continue
		}
		pick = append(pick, p)
	}
	if skipped > 0 {
		if ev.rep.AlreadyTarget == nil {
			ev.rep.AlreadyTarget = map[string]int{}
		}
		ev.rep.AlreadyTarget[name] = skipped
	}
	if len(pick) == 0 {
		return nil, fmt.Errorf("eval: the model already predicts %q for all %d rows of the %s split it was given, so there is nothing to explain; fix: name another class with eval.Options.Class, or leave eval.Options.Class out", ev.d.Classes[ev.target], skipped, name)
	}
	slices.Sort(pick)
	return pick, nil
}

// predicted is the model's class (at threshold ϑ) of every row of the named split, computed
// once per evaluation: for Options.Class and for YNN.
func (ev *evaluation) predicted(ctx context.Context, name string) ([]int, error) {
	if c, ok := ev.classes[name]; ok {
		return c, nil
	}
	probs, err := ev.mdl.probs.At(ctx, ev.d.split(name).X)
	if err != nil {
		return nil, err
	}
	c := make([]int, len(probs))
	for i, p := range probs {
		c[i] = quce.PredictedClass(p, ev.o.Config.Threshold)
	}
	ev.classes[name] = c
	return c, nil
}

// resolveRows maps Options.Rows (lines of the CSV file) to the positions of their rows in
// the splits (ev.rowsIn), and leaves out of ev.o.Splits a split that holds none of them.
func (ev *evaluation) resolveRows() error {
	if ev.o.Rows == nil {
		return nil
	}
	rowOf := map[int]int{}
	for r, l := range ev.d.Lines {
		rowOf[l] = r
	}
	posOf := map[string]map[int]int{}
	for _, name := range []string{Train, Test} {
		posOf[name] = map[int]int{}
		for p, r := range ev.d.split(name).Rows {
			posOf[name][r] = p
		}
	}
	ev.rowsIn = map[string][]int{}
	seen := map[int]bool{}
	for _, l := range ev.o.Rows {
		r, ok := rowOf[l]
		if !ok || seen[l] {
			what := "is listed twice; fix: list each line once"
			if !ok {
				what = fmt.Sprintf("holds no data row (the header is line 1; the data rows are on lines %d to %d); fix: choose lines of data rows", ev.d.Lines[0], ev.d.Lines[len(ev.d.Lines)-1])
			}
			return fmt.Errorf("eval: eval.Options.Rows: line %d %s", l, what)
		}
		seen[l] = true
		in := ""
		for _, name := range []string{Train, Test} {
			if _, ok := posOf[name][r]; ok {
				in = name
			}
		}
		if in == "" {
			return fmt.Errorf("eval: eval.Options.Rows: line %d is in neither the train nor the test split; fix: drop the line", l)
		}
		if !slices.Contains(ev.o.Splits, in) {
			return fmt.Errorf("eval: eval.Options.Rows: line %d is in the %s split, which eval.Options.Splits %v leaves out; fix: add %s to eval.Options.Splits, or drop the line", l, in, ev.o.Splits, in)
		}
		ev.rowsIn[in] = append(ev.rowsIn[in], posOf[in][r])
	}
	var splits []string
	for _, name := range ev.o.Splits {
		if len(ev.rowsIn[name]) > 0 {
			splits = append(splits, name)
			slices.Sort(ev.rowsIn[name])
		}
	}
	ev.o.Splits = splits
	return nil
}

// sample picks n of size rows with a generator seeded by seed and the split's name, and
// returns them in ascending order; all rows when n ≥ size.
func sample(size, n int, seed uint64, split string) []int {
	pick := seededOrder(size, n, seed, split)
	return slices.Sorted(slices.Values(pick[:min(n, size)]))
}

// seededOrder is the order in which the rows of a split of size rows are taken for n
// instances: every row in a shuffle seeded by seed and the split's name (its first n are
// sample's), or all rows in order when n ≥ size.
func seededOrder(size, n int, seed uint64, split string) []int {
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
	return all
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
