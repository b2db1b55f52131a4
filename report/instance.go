package report

import (
	"fmt"
	"math"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
)

// Instance is one explanation as every output shows it: quce explain's JSON marshals it as
// it is (one element of "results"), and its CSV table, its text report and the notebook's
// HTML only format it. It is made once per explanation (NewInstance), so that the column
// sums, the changed and detour marks, the count of valid paths and what a failed row
// reports are worked out in one place; a new output field is a field here and a line in
// each format.
//
// With several paths the attribution fields are the expectations over paths (exQUCE) and
// the counterfactual is path 1's. XOriginal is the row as read, one value per column in
// its own type (text for categories); the attributions, Φ± and ε are per column (a
// categorical column's one-hot inputs summed), and Inputs holds them per model input. X and
// Counterfactual are the model's inputs, standardised. A failed row (Valid false, Failure
// set) has nil (null) for its counterfactual, attributions and the figures at its end, and
// no path: where its search went before it failed is no result, and may be far outside the
// data.
type Instance struct {
	Source
	PredictedClass     int    `json:"predicted_class"`
	PredictedClassName string `json:"predicted_class_name"`
	TargetClass        int    `json:"target_class"`
	TargetClassName    string `json:"target_class_name"`
	ClassProbabilities Vector `json:"class_probabilities"`
	ProbTargetStart    Number `json:"prob_target_start"`
	ProbTargetEnd      Number `json:"prob_target_end"`
	// Margin is F(τ|x_c) − ϑ (quce.Path.Margin): negative when not valid.
	Margin  Number `json:"margin"`
	Valid   bool   `json:"valid"`
	Failure string `json:"failure,omitempty"`
	// UnseenCombination holds the column=value entries of the pairs of category values that
	// no training row holds together (quce.Path.UnseenCombination); nil when all were seen.
	UnseenCombination []string `json:"unseen_combination,omitempty"`
	// RelaxedProbTargetEnd is F(τ) where the search ended, before its end was rounded to
	// the data's values (equal to prob_target_end when nothing was rounded).
	RelaxedProbTargetEnd   Number   `json:"relaxed_prob_target_end"`
	Projected              bool     `json:"projected"`
	RepairColumns          []string `json:"repair_columns,omitempty"`
	X                      Vector   `json:"x"`
	Counterfactual         Vector   `json:"counterfactual"`
	XOriginal              []any    `json:"x_original"`
	CounterfactualOriginal []any    `json:"counterfactual_original"`
	Attribution            Vector   `json:"attribution"`
	AttributionStd         Vector   `json:"attribution_std"`
	AttributionPlus        Vector   `json:"attribution_plus"`
	AttributionMinus       Vector   `json:"attribution_minus"`
	Epsilon                Vector   `json:"epsilon"`
	CompletenessGap        Number   `json:"completeness_gap"`
	CFUncertainty          Number   `json:"cf_uncertainty"`
	CFUncertaintyPaper     Number   `json:"cf_uncertainty_paper"`
	PathUncertainty        Number   `json:"path_uncertainty"`
	PathUncertaintyPaper   Number   `json:"path_uncertainty_paper"`
	PathSteps              int      `json:"path_steps"`
	Paths                  int      `json:"paths"`
	ValidPathsCount        int      `json:"valid_paths_count"`
	// ChangedFeatures names the features whose counterfactual value differs from x's (the
	// columns that Changed marks); ResetFeatures, with -sparse, those set back to x's value
	// after the search, in order (nil when the search did not reset any).
	ChangedFeatures []string         `json:"changed_features"`
	ResetFeatures   []string         `json:"reset_features,omitempty"`
	Auto            *quce.AutoChoice `json:"auto,omitempty"` // with -lambdas auto
	// StalledAtStep is the step at which the search stalled (quce.Path.Stalled) and walked
	// on without the proximity term; absent if it did not stall.
	StalledAtStep int         `json:"stalled_at_step,omitempty"`
	Inputs        InputValues `json:"inputs"`
	Path          *PathPoints `json:"path"`

	// AlreadyTarget: the model already predicts the target class for x, so nothing was
	// searched; the counterfactual is x and the attributions are zero. Not a counterfactual
	// that was found.
	AlreadyTarget bool `json:"already_target"`
	// DetourColumns are the columns that end unchanged yet carry an attribution: the path
	// moved them and back (quce.Explanation.Detours); Detour marks them.
	DetourColumns []string `json:"detour_columns"`
	// Options are the instance's other counterfactuals (quce.Explanation.Counterfactuals
	// after the first, with quce.Config.Counterfactuals), each an instance of its own with
	// its path, attribution and completeness gap; nil with one. Option numbers one of them
	// (2, 3, …; 0 for the first), and Held names the columns it held at x's values.
	Options []*Instance `json:"counterfactuals,omitempty"`
	Option  int         `json:"option,omitempty"`
	Held    []string    `json:"held,omitempty"`

	// Columns are the data's columns, which the per-column fields follow.
	Columns []data.Column `json:"-"`
	// Changed marks the columns that the counterfactual changes (data.Column.Changed,
	// exactly) and Detour those of DetourColumns; Rank is each column's rank by
	// |attribution| (1 for the largest, quce.RankFeatures). Changed and Rank are nil for a
	// failed row.
	Changed, Detour []bool `json:"-"`
	Rank            []int  `json:"-"`
	// FailedPaths is how many of the paths failed, and FirstPathFailure the failure of the
	// first of them ("" when none did); PulledBack is quce.Path.PulledBack of path 1.
	FailedPaths      int     `json:"-"`
	FirstPathFailure string  `json:"-"`
	PulledBack       float64 `json:"-"`
}

// Source is where an instance's row comes from: its file, its line in that file (the
// header is line 1) and its split (train, test, or instances for a row of an instance file).
// The notebook's instances have none.
type Source struct {
	File  string `json:"file"`
	Line  int    `json:"line"`
	Split string `json:"split"`
}

// Name is how the text report names the row: "line 42 of wbc.csv (test split)".
func (s Source) Name() string {
	if s.Split == "instances" {
		return fmt.Sprintf("line %d of %s", s.Line, s.File)
	}
	return fmt.Sprintf("line %d of %s (%s split)", s.Line, s.File, s.Split)
}

// InputValues are an instance's figures per model input (named by the data's features): a
// categorical column's parts, one per category. XOriginal is the row as read and
// CounterfactualOriginal the counterfactual, both in the data's units.
type InputValues struct {
	XOriginal              Vector `json:"x_original"`
	CounterfactualOriginal Vector `json:"counterfactual_original"`
	Attribution            Vector `json:"attribution"`
	AttributionStd         Vector `json:"attribution_std"`
	AttributionPlus        Vector `json:"attribution_plus"`
	AttributionMinus       Vector `json:"attribution_minus"`
	Epsilon                Vector `json:"epsilon"`
}

// PathPoints are the kept points of path 1 (the one from x), enough to redraw the path
// figure: point k is the path's point after Step[k] optimisation steps (0 is x).
type PathPoints struct {
	Step             []int  `json:"step"`
	Points           Matrix `json:"points"`          // standardised
	PointsOriginal   Matrix `json:"points_original"` // in the data's units
	Probability      Vector `json:"probability"`     // F(τ|·)
	Uncertainty      Vector `json:"uncertainty"`     // L_ε, trained form
	UncertaintyPaper Vector `json:"uncertainty_paper"`
}

// NewInstance is the view of e, an explanation of the row src of data with columns cols
// and class names labels.
func NewInstance(cols []data.Column, labels []string, e *quce.Explanation, src Source) *Instance {
	p := e.Path0()
	sum := func(v []float64) Vector { return data.SumColumns(cols, v) }
	in := &Instance{
		Source:         src,
		PredictedClass: e.PredictedClass, TargetClass: e.Target,
		PredictedClassName: labels[e.PredictedClass], TargetClassName: labels[e.Target],
		ClassProbabilities: e.Probabilities,
		ProbTargetStart:    Number(e.ProbStart), ProbTargetEnd: Number(p.ProbEnd), Valid: p.Valid, Failure: p.Failure,
		Margin: Number(p.Margin), UnseenCombination: p.UnseenCombination,
		RelaxedProbTargetEnd: Number(p.RelaxedProb), Projected: p.Projected, RepairColumns: names(cols, p.Repairs),
		X: e.X, Counterfactual: p.Counterfactual,
		XOriginal: values(cols, e.XOriginal), CounterfactualOriginal: values(cols, p.CounterfactualOriginal),
		Attribution: sum(e.Attribution), AttributionStd: sum(e.AttributionStd),
		AttributionPlus: sum(e.AttributionPlus), AttributionMinus: sum(e.AttributionMinus),
		Epsilon: sum(p.Epsilon), CompletenessGap: Number(e.CompletenessGap),
		CFUncertainty: Number(p.CFUncertainty), CFUncertaintyPaper: Number(p.CFUncertaintyPaper),
		PathUncertainty: Number(p.PathUncertainty), PathUncertaintyPaper: Number(p.PathUncertaintyPaper),
		PathSteps: p.Steps, Paths: len(e.Paths), StalledAtStep: p.Stalled,
		Auto: e.Auto, AlreadyTarget: e.AlreadyTarget,
		Inputs: InputValues{
			XOriginal: e.XOriginal, CounterfactualOriginal: p.CounterfactualOriginal,
			Attribution: e.Attribution, AttributionStd: e.AttributionStd,
			AttributionPlus: e.AttributionPlus, AttributionMinus: e.AttributionMinus, Epsilon: p.Epsilon,
		},
		Path: &PathPoints{
			Step: p.Step, Points: p.Points, PointsOriginal: p.PointsOriginal,
			Probability: p.Probability, Uncertainty: p.Uncertainty, UncertaintyPaper: p.UncertaintyPaper,
		},
		Columns: cols, PulledBack: p.PulledBack,
	}
	for _, q := range e.Paths {
		if q.Valid {
			in.ValidPathsCount++
		}
		if q.Failure != "" {
			if in.FailedPaths == 0 {
				in.FirstPathFailure = q.Failure
			}
			in.FailedPaths++
		}
	}
	if p.Resets != nil {
		in.ResetFeatures = names(cols, p.Resets)
	}
	in.Detour = e.ByColumn(cols).Detours()
	if in.Detour == nil { // an explanation made by hand: nothing is known to be a detour
		in.Detour = make([]bool, len(cols))
	}
	in.DetourColumns = names(cols, marked(in.Detour))
	if p.Failure != "" {
		// The path from x failed: its numbers are NaN (null), and the row reports no
		// attribution (not even the other paths' mean: it has no counterfactual to go with).
		in.Counterfactual, in.CounterfactualOriginal, in.Epsilon, in.Path = nil, nil, nil, nil
		in.Attribution, in.AttributionStd, in.AttributionPlus, in.AttributionMinus = nil, nil, nil, nil
		in.CompletenessGap, in.Inputs = Number(math.NaN()), InputValues{XOriginal: e.XOriginal}
		return in
	}
	changed := data.ChangedColumns(cols, e.X, p.Counterfactual, data.ExactChange)
	in.ChangedFeatures = names(cols, changed)
	in.Changed = make([]bool, len(cols))
	for _, ci := range changed {
		in.Changed[ci] = true
	}
	in.Rank = make([]int, len(cols))
	for r, ci := range quce.RankFeatures(in.Attribution) {
		in.Rank[ci] = r + 1
	}
	for k, alt := range e.Counterfactuals[min(1, len(e.Counterfactuals)):] {
		o := NewInstance(cols, labels, OptionExplanation(e, alt), src)
		o.Option, o.Held = k+2, names(cols, alt.Held)
		in.Options = append(in.Options, o)
	}
	return in
}

// OptionExplanation is e as explained by its other counterfactual p alone: its one path,
// whose attribution, ± uncertainty and completeness gap are the explanation's.
func OptionExplanation(e *quce.Explanation, p *quce.Path) *quce.Explanation {
	o := *e
	o.Paths, o.Counterfactuals, o.Auto = []*quce.Path{p}, nil, nil
	o.Attribution, o.AttributionStd = p.Attribution, make([]float64, len(p.Attribution))
	o.AttributionPlus, o.AttributionMinus, o.CompletenessGap = p.AttributionPlus, p.AttributionMinus, p.CompletenessGap
	o.Unchanged = make([]bool, len(e.X))
	for j, x := range e.X {
		o.Unchanged[j] = p.Counterfactual[j] == float64(float32(x))
	}
	return &o
}

// Top lists the n columns of largest |attribution|, largest first (all of them if there are
// fewer); none for a failed row.
func (in *Instance) Top(n int) []int {
	order := make([]int, len(in.Rank))
	for ci, r := range in.Rank {
		order[r-1] = ci
	}
	return order[:min(n, len(order))]
}

// names maps column indices to the columns' names.
func names(cols []data.Column, idx []int) []string {
	out := make([]string, len(idx))
	for i, ci := range idx {
		out[i] = cols[ci].Name
	}
	return out
}

// marked lists the indices where marks is true.
func marked(marks []bool) []int {
	out := []int{}
	for i, m := range marks {
		if m {
			out = append(out, i)
		}
	}
	return out
}

// values is a row (the data's units) as one value per column in its own type: a string for
// categories and levels, a number otherwise.
func values(cols []data.Column, x []float64) []any {
	out := make([]any, len(cols))
	for i, c := range cols {
		out[i] = c.Value(x)
	}
	return out
}
