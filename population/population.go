// Package population summarises the counterfactual explanations of many rows: which
// columns recourse changes and how often, by how much, how costly and how uncertain it is,
// and whether it is harder for one group of rows than for another (recourse burden, equal
// recourse across groups).
//
// Summarise takes plain results, the explanations of the rows with the data's columns,
// the rows as read and, optionally, each row's group (Grouping gives it from a column), and
// returns a Summary: per column, per row measure and per group, with percentile bootstrap
// intervals and permutation tests of the differences between groups, seeded and so
// repeatable (Input.GroupBy groups the rows by a Grouping; Summary.CSV writes the summary
// as a table, a row per column and group). What is counted over which rows:
//
//   - a row the model already predicts as its target class (quce.Explanation.AlreadyTarget)
//     needs no recourse: it is counted, and left out of everything else;
//   - validity is over the searched rows (every other row); a row whose search failed
//     (quce.Path.Failure: it diverged, or its attribution is unreliable) has no
//     counterfactual, and counts as not valid;
//   - the costs, the uncertainty and the per-column figures are over the valid
//     counterfactuals: an invalid one is no recourse, and its cost would say nothing.
//
// The estimators, the test and their assumptions are in docs/METHOD.md (the population
// view).
package population

import (
	"cmp"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/quce"
)

// The per-row measures, by their names in the Summary and the command's outputs.
const (
	// Validity is 1 for a valid counterfactual and 0 otherwise, over the searched rows; its
	// mean is the share valid.
	Validity = "validity"
	// CostL1 is ‖x_c − x‖₁ over the model's inputs, standardised (the training split's
	// standard deviations; a category change counts 2, its two one-hot inputs): the cost
	// that weighs every column alike. It is eval's proximity_l1.
	CostL1 = "cost_l1"
	// CostL0 is the number of columns the counterfactual changes (a categorical column once).
	CostL0 = "cost_l0"
	// CostL1Data is Σ |change| in the data's own units over the numeric columns (an
	// ordinal column in levels); categories are left out (CostL0 counts them). It adds
	// months to money, so the columns with the largest units dominate it: read it per data
	// set, and CostL1 across columns.
	CostL1Data = "cost_l1_data"
	// CFUncertainty is the VAE's uncertainty L_ε(x_c) of the counterfactual, in its trained
	// (negative-ELBO) form, the one QUCE minimises (explain's cf_uncertainty).
	CFUncertainty = "cf_uncertainty"
)

// Measures are the per-row measures, in the order they are reported.
var Measures = []string{Validity, CostL1, CostL0, CostL1Data, CFUncertainty}

// Number is a float64 that JSON writes as null when it is not finite (a mean over no rows,
// an interval of fewer than 2 rows, a test with an empty side): JSON has no NaN.
type Number float64

// MarshalJSON implements json.Marshaler.
func (v Number) MarshalJSON() ([]byte, error) {
	if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
		return []byte("null"), nil
	}
	return json.Marshal(float64(v))
}

// String is v as the tables print it: 3 significant digits, or a whole number from 1000 up
// to 10⁷ (an amount reads 1292, not 1.29e+03); "NA" when it is not finite.
func (v Number) String() string {
	x := float64(v)
	switch a := math.Abs(x); {
	case math.IsNaN(x) || math.IsInf(x, 0):
		return "NA"
	case a >= 1000 && a < 1e7:
		return strconv.FormatFloat(x, 'f', 0, 64)
	}
	return strconv.FormatFloat(x, 'g', 3, 64)
}

// withInterval is "v [lo, hi]", or v alone when there is no interval.
func withInterval(v, lo, hi Number) string {
	if math.IsNaN(float64(lo)) || math.IsNaN(float64(hi)) {
		return v.String()
	}
	return fmt.Sprintf("%s [%s, %s]", v, lo, hi)
}

// MeasureNames are the measures as tables name them.
var MeasureNames = map[string]string{
	Validity:      "validity (share valid)",
	CostL1:        "cost L1 (standardised inputs)",
	CostL0:        "cost L0 (columns changed)",
	CostL1Data:    "cost L1 (data units, numeric columns)",
	CFUncertainty: "counterfactual uncertainty L_ε",
}

// Input is what Summarise summarises: the explanations of a set of rows.
type Input struct {
	Columns      []data.Column       // the data's columns (quce.Explainer.Columns)
	Explanations []*quce.Explanation // one per row
	// Rows are the explained rows in the data's units, as read (data.Dataset.X), one per
	// explanation; nil takes each explanation's XOriginal.
	Rows [][]float64
	// Groups gives each row's group; nil summarises the rows as one population.
	Groups []string
	// GroupOrder is the order in which groups are reported (Grouping.Names); nil is the
	// order in which they first appear in Groups. A group of it with no row is listed in
	// Summary.Absent.
	GroupOrder []string
	// CounterfactualGroups gives the group of each row's counterfactual, when the group
	// column may change (nil when it is frozen). Rows are still grouped by their own value;
	// Scope.LeftGroup counts the valid counterfactuals in another group.
	CounterfactualGroups []string
}

// Options are the resampling settings; the zero value takes the defaults.
type Options struct {
	Bootstrap    int     `json:"bootstrap"`    // resamples for each percentile interval (0: 2000)
	Permutations int     `json:"permutations"` // relabellings for each permutation test (0: 2000)
	Level        float64 `json:"level"`        // the intervals' coverage (0: 0.95)
	Seed         uint64  `json:"seed"`         // of every resample and relabelling
	Transitions  int     `json:"transitions"`  // most frequent changes kept per column of levels (0: 3)
}

// Defaults of Options.
const (
	DefaultBootstrap    = 2000
	DefaultPermutations = 2000
	DefaultLevel        = 0.95
	DefaultTransitions  = 3
)

// Resolve fills in the defaults of o and checks it, so that a command can refuse bad
// settings before any work.
func (o Options) Resolve() (Options, error) {
	if o.Bootstrap == 0 {
		o.Bootstrap = DefaultBootstrap
	}
	if o.Permutations == 0 {
		o.Permutations = DefaultPermutations
	}
	if o.Level == 0 {
		o.Level = DefaultLevel
	}
	if o.Transitions == 0 {
		o.Transitions = DefaultTransitions
	}
	switch {
	case o.Bootstrap < 100:
		return o, fmt.Errorf("population.Options.Bootstrap %d: too few resamples for a percentile interval; fix: use at least 100 (%d is the default)", o.Bootstrap, DefaultBootstrap)
	case o.Permutations < 100:
		return o, fmt.Errorf("population.Options.Permutations %d: too few relabellings for a p-value (the smallest would be %.2g); fix: use at least 100 (%d is the default)", o.Permutations, 1/float64(o.Permutations+1), DefaultPermutations)
	case !(o.Level > 0 && o.Level < 1):
		return o, fmt.Errorf("population: interval level %v; fix: use a coverage strictly between 0 and 1, such as 0.95", o.Level)
	case o.Transitions < 0:
		return o, fmt.Errorf("population: Transitions %d; fix: use 0 for the default or a positive count", o.Transitions)
	}
	return o, nil
}

// Summary is the population view of a set of explanations.
type Summary struct {
	Options Options `json:"options"` // as used (defaults filled in)
	Overall Scope   `json:"overall"` // every row
	Groups  []Scope `json:"groups"`  // per group with rows, in the group order; nil without groups
	// Comparisons are the differences between groups, for each measure: with two groups,
	// the first minus the second; with more, each group minus the rest of the rows.
	Comparisons []Comparison `json:"comparisons"`
	Absent      []string     `json:"absent_groups"`  // groups of Input.GroupOrder with no row
	Rows        []Row        `json:"rows,omitempty"` // per row, in the input's order
}

// Row is one row's recourse. The costs are computed for every row, but summarised only
// over the valid counterfactuals.
type Row struct {
	Group               string `json:"group,omitempty"`
	CounterfactualGroup string `json:"counterfactual_group,omitempty"`
	AlreadyTarget       bool   `json:"already_target"`
	Valid               bool   `json:"valid"`
	// Failure says why the row's search failed (quce.Path.Failure): it has no
	// counterfactual, so its costs are NaN and it counts as not valid.
	Failure       string `json:"failure,omitempty"`
	CostL1        Number `json:"cost_l1"`
	CostL0        Number `json:"cost_l0"`
	CostL1Data    Number `json:"cost_l1_data"`
	CFUncertainty Number `json:"cf_uncertainty"`
	// Changed names the columns the counterfactual changes, in the data's order.
	Changed []string `json:"changed_columns"`
}

// Scope is the summary of a set of rows: all of them, or one group.
type Scope struct {
	Name          string `json:"name"`           // "all", or the group
	Rows          int    `json:"rows"`           // explained
	AlreadyTarget int    `json:"already_target"` // already predicted as the target: no recourse needed
	Searched      int    `json:"searched"`       // Rows − AlreadyTarget
	Valid         int    `json:"valid"`          // searched rows with a valid counterfactual
	// Failed counts the searched rows whose search failed (quce.Path.Failure): no
	// counterfactual, so not valid.
	Failed int `json:"failed"`
	// LeftGroup counts the valid counterfactuals whose group is not the row's (with
	// Input.CounterfactualGroups; 0 without).
	LeftGroup int `json:"left_group"`
	// Measures are the per-row measures (Measures), in that order.
	Measures []Estimate    `json:"measures"`
	Columns  []ColumnStats `json:"columns"` // per column, in the data's order
}

// Measure returns the estimate of the named measure (one of Measures; the zero Estimate
// for another name).
func (s *Scope) Measure(name string) Estimate {
	for _, e := range s.Measures {
		if e.Measure == name {
			return e
		}
	}
	return Estimate{}
}

// Estimate is a measure's distribution over a scope's rows: its mean with the percentile
// bootstrap interval, and its spread.
type Estimate struct {
	Measure string `json:"measure"`
	N       int    `json:"n"` // rows it is over: the searched rows for validity, else the valid ones
	Mean    Number `json:"mean"`
	Lo      Number `json:"lo"` // the interval of the mean, at Options.Level
	Hi      Number `json:"hi"`
	SD      Number `json:"sd"` // the rows' standard deviation (n − 1)
	Min     Number `json:"min"`
	Q1      Number `json:"q1"`
	Median  Number `json:"median"`
	Q3      Number `json:"q3"`
	Max     Number `json:"max"`
}

// String is the mean with its interval: "7.16 [6.49, 7.86]".
func (e Estimate) String() string { return withInterval(e.Mean, e.Lo, e.Hi) }

// ColumnStats is what the valid counterfactuals of a scope do to one column.
type ColumnStats struct {
	Column     string          `json:"column"`
	Type       data.ColumnType `json:"type"`
	Changed    int             `json:"changed"`     // valid counterfactuals that change it
	ChangeRate Number          `json:"change_rate"` // Changed / valid counterfactuals
	// MeanChange is the mean signed change, counterfactual minus row, over the
	// counterfactuals that change it, in the data's units (an ordinal column in levels);
	// NaN for a column of categories, whose Transitions say how it changes.
	MeanChange Number `json:"mean_change"`
	// MeanAbsAttribution is the mean |Φ| of the column (a categorical column's inputs
	// summed) over the valid counterfactuals, changed or not; MeanAbsMinus and MeanAbsPlus
	// are the mean |Φ−| and |Φ+|, its uncertainty attributions.
	MeanAbsAttribution Number `json:"mean_abs_attribution"`
	MeanAbsMinus       Number `json:"mean_abs_attribution_minus"`
	MeanAbsPlus        Number `json:"mean_abs_attribution_plus"`
	// Transitions are, for a column of levels (categorical, ordinal, a binary column of
	// text), its most frequent changes, most frequent first.
	Transitions []Transition `json:"transitions,omitempty"`
}

// ByChangeRate orders columns by how often they change, most often first, then by mean
// |Φ|, then in the data's order (a column of a scope without valid counterfactuals, whose
// figures are NaN, last).
func ByChangeRate(cs []ColumnStats) []int {
	order := make([]int, len(cs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Or(cmp.Compare(cs[b].ChangeRate, cs[a].ChangeRate), cmp.Compare(cs[b].MeanAbsAttribution, cs[a].MeanAbsAttribution))
	})
	return order
}

// Change is MeanChange as the tables print it: with its sign, "levels" after an ordinal
// column's, and "" for a column of categories.
func (c ColumnStats) Change() string {
	if math.IsNaN(float64(c.MeanChange)) {
		return ""
	}
	s := c.MeanChange.String()
	if c.MeanChange > 0 {
		s = "+" + s
	}
	if c.Type == data.Ordinal {
		s += " levels"
	}
	return s
}

// TransitionsText is Transitions as the tables print them: "rent → own (12), …".
func (c ColumnStats) TransitionsText() string {
	parts := make([]string, len(c.Transitions))
	for i, t := range c.Transitions {
		parts[i] = fmt.Sprintf("%s → %s (%d)", t.From, t.To, t.Count)
	}
	return strings.Join(parts, ", ")
}

// Transition is one change of a column of levels and how many counterfactuals make it.
type Transition struct {
	From  string `json:"from"`
	To    string `json:"to"`
	Count int    `json:"count"`
}

// Comparison is the difference in one measure between a group and another group or the
// rest of the rows.
type Comparison struct {
	Measure string `json:"measure"`
	Group   string `json:"group"`
	Versus  string `json:"versus"` // the other group, or "rest"
	N       int    `json:"n"`      // rows of Group the measure is over
	NVersus int    `json:"n_versus"`
	// Difference is mean(Group) − mean(Versus), with its percentile bootstrap interval.
	Difference Number `json:"difference"`
	Lo         Number `json:"lo"`
	Hi         Number `json:"hi"`
	// P is the two-sided permutation p-value of Difference (Options.Permutations
	// relabellings).
	P Number `json:"p"`
}

// FewRows is the fewest rows on each side of a comparison for which the outputs do not warn
// that its interval and p-value rest on very few rows.
const FewRows = 10

// Few reports a comparison with fewer than FewRows rows on a side: the percentile bootstrap
// is too narrow there, and one row more or less moves the p-value.
func (c Comparison) Few() bool { return min(c.N, c.NVersus) < FewRows }

// String is the difference with its interval: "-0.478 [-1.21, 0.207]".
func (c Comparison) String() string { return withInterval(c.Difference, c.Lo, c.Hi) }

// Rest names the rows outside a group, in Comparison.Versus.
const Rest = "rest"

// All names the scope of every row.
const All = "all"

// Summarise summarises in (see the package documentation) with the options o.
func Summarise(in Input, o Options) (*Summary, error) {
	o, err := o.Resolve()
	if err != nil {
		return nil, err
	}
	rows, err := in.rows()
	if err != nil {
		return nil, err
	}
	s := &Summary{Options: o, Rows: rows}
	all := make([]int, len(rows))
	for i := range all {
		all[i] = i
	}
	s.Overall = in.scope(o, All, rows, all)
	if in.Groups == nil {
		return s, nil
	}
	order := in.GroupOrder
	if order == nil {
		for _, g := range in.Groups {
			if !slices.Contains(order, g) {
				order = append(order, g)
			}
		}
	}
	members := map[string][]int{}
	for i, g := range in.Groups {
		if !slices.Contains(order, g) {
			return nil, fmt.Errorf("population: row %d is in group %q, which is not in the group order %q; fix: list every group in GroupOrder", i+1, g, order)
		}
		members[g] = append(members[g], i)
	}
	var present []string
	for _, g := range order {
		if len(members[g]) == 0 {
			s.Absent = append(s.Absent, g)
			continue
		}
		present = append(present, g)
		s.Groups = append(s.Groups, in.scope(o, g, rows, members[g]))
	}
	switch {
	case len(present) == 2:
		for _, m := range Measures {
			s.Comparisons = append(s.Comparisons, compare(o, m, present[0], present[1], rows, members[present[0]], members[present[1]]))
		}
	case len(present) > 2:
		for _, m := range Measures {
			for _, g := range present {
				var rest []int
				for i, h := range in.Groups {
					if h != g {
						rest = append(rest, i)
					}
				}
				s.Comparisons = append(s.Comparisons, compare(o, m, g, Rest, rows, members[g], rest))
			}
		}
	}
	return s, nil
}

// rows measures every row, checking the input's lengths.
func (in Input) rows() ([]Row, error) {
	n := len(in.Explanations)
	if n == 0 {
		return nil, fmt.Errorf("population: no explanations to summarise")
	}
	for _, l := range []struct {
		what string
		k    int
	}{{"Rows", len(in.Rows)}, {"Groups", len(in.Groups)}, {"CounterfactualGroups", len(in.CounterfactualGroups)}} {
		if l.k != 0 && l.k != n {
			return nil, fmt.Errorf("population: %d %s for %d explanations; fix: give one per explanation, or nil", l.k, l.what, n)
		}
	}
	if in.CounterfactualGroups != nil && in.Groups == nil {
		return nil, fmt.Errorf("population: CounterfactualGroups without Groups; fix: give the rows' groups too")
	}
	if len(in.Columns) == 0 {
		return nil, fmt.Errorf("population: no columns; fix: pass the explainer's Columns")
	}
	width := in.Columns[len(in.Columns)-1].Start + in.Columns[len(in.Columns)-1].Width
	out := make([]Row, n)
	for i, e := range in.Explanations {
		if e == nil || len(e.Paths) == 0 {
			return nil, fmt.Errorf("population: explanation %d has no path", i+1)
		}
		p := e.Path0()
		x := e.XOriginal
		if in.Rows != nil {
			x = in.Rows[i]
		}
		if len(x) != width || len(e.X) != width || len(p.Counterfactual) != width || len(p.CounterfactualOriginal) != width {
			return nil, fmt.Errorf("population: explanation %d has rows of %d, %d and %d inputs for columns of %d; fix: pass the columns of the data it explains", i+1, len(x), len(e.X), len(p.Counterfactual), width)
		}
		r := Row{AlreadyTarget: e.AlreadyTarget, Valid: p.Valid, Failure: p.Failure, CFUncertainty: Number(p.CFUncertainty)}
		if in.Groups != nil {
			r.Group = in.Groups[i]
		}
		if in.CounterfactualGroups != nil {
			r.CounterfactualGroup = in.CounterfactualGroups[i]
		}
		if p.Failure != "" {
			nan := Number(math.NaN())
			r.Valid, r.CostL1, r.CostL0, r.CostL1Data, r.CFUncertainty = false, nan, nan, nan, nan
			out[i] = r
			continue
		}
		changed := data.ChangedColumns(in.Columns, e.X, p.Counterfactual, data.ExactChange)
		l1 := 0.0
		for f, v := range e.X {
			l1 += math.Abs(p.Counterfactual[f] - float64(float32(v)))
		}
		r.CostL1, r.CostL0, r.Changed = Number(l1), Number(len(changed)), data.Names(colsAt(in.Columns, changed))
		l1 = 0
		for _, ci := range changed {
			if d, ok := change(in.Columns[ci], x, p.CounterfactualOriginal); ok {
				l1 += math.Abs(d)
			}
		}
		r.CostL1Data = Number(l1)
		out[i] = r
	}
	return out, nil
}

// colsAt are the columns idx of cols.
func colsAt(cols []data.Column, idx []int) []data.Column {
	out := make([]data.Column, len(idx))
	for k, ci := range idx {
		out[k] = cols[ci]
	}
	return out
}

// change is the signed change of a column from row x to row xc (data units) in the data's
// units: numbers for a numeric column (an integer column's values rounded, as the data
// holds them), levels for an ordinal one; false for a column of categories.
func change(c data.Column, x, xc []float64) (float64, bool) {
	switch {
	case c.IsNumeric():
		a, ok1 := c.Value(x).(float64)
		b, ok2 := c.Value(xc).(float64)
		return b - a, ok1 && ok2
	case c.Type == data.Ordinal:
		a, b := slices.Index(c.Levels, c.Format(x)), slices.Index(c.Levels, c.Format(xc))
		return float64(b - a), a >= 0 && b >= 0
	}
	return 0, false
}

// levelled reports a column whose values are levels: it changes by transitions.
func levelled(c data.Column) bool { return !c.IsNumeric() }

// values is a measure on the rows idx that it is over: the searched ones for validity,
// else the valid ones.
func values(measure string, rows []Row, idx []int) []float64 {
	var out []float64
	for _, i := range idx {
		r := rows[i]
		switch {
		case r.AlreadyTarget:
		case measure == Validity:
			out = append(out, b2f(r.Valid))
		case !r.Valid:
		case measure == CostL1:
			out = append(out, float64(r.CostL1))
		case measure == CostL0:
			out = append(out, float64(r.CostL0))
		case measure == CostL1Data:
			out = append(out, float64(r.CostL1Data))
		case measure == CFUncertainty:
			out = append(out, float64(r.CFUncertainty))
		}
	}
	return out
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}

// scope summarises the rows idx under the name name.
func (in Input) scope(o Options, name string, rows []Row, idx []int) Scope {
	s := Scope{Name: name, Rows: len(idx)}
	var valid []int
	for _, i := range idx {
		r := rows[i]
		switch {
		case r.AlreadyTarget:
			s.AlreadyTarget++
		case r.Failure != "":
			s.Failed++
		case r.Valid:
			valid = append(valid, i)
			if r.CounterfactualGroup != "" && r.CounterfactualGroup != r.Group {
				s.LeftGroup++
			}
		}
	}
	s.Searched, s.Valid = s.Rows-s.AlreadyTarget, len(valid)
	for _, m := range Measures {
		s.Measures = append(s.Measures, estimate(o, m, name, values(m, rows, idx)))
	}
	s.Columns = in.columnStats(o, rows, valid)
	return s
}

// estimate is the distribution of a measure's values v in the scope named scope.
func estimate(o Options, measure, scope string, v []float64) Estimate {
	e := Estimate{Measure: measure, N: len(v)}
	sorted := slices.Sorted(slices.Values(v))
	m := mean(v)
	lo, hi := bootstrapMean(rng(o.Seed, "mean", measure, scope), v, o.Bootstrap, o.Level)
	sd := math.NaN()
	if len(v) > 1 {
		ss := 0.0
		for _, x := range v {
			ss += (x - m) * (x - m)
		}
		sd = math.Sqrt(ss / float64(len(v)-1))
	}
	e.Mean, e.Lo, e.Hi, e.SD = Number(m), Number(lo), Number(hi), Number(sd)
	e.Min, e.Q1, e.Median = Number(quantile(sorted, 0)), Number(quantile(sorted, 0.25)), Number(quantile(sorted, 0.5))
	e.Q3, e.Max = Number(quantile(sorted, 0.75)), Number(quantile(sorted, 1))
	return e
}

// columnStats are the per-column figures over the valid rows idx.
func (in Input) columnStats(o Options, rows []Row, idx []int) []ColumnStats {
	out := make([]ColumnStats, len(in.Columns))
	n := float64(len(idx))
	byCol := make([]*quce.Explanation, len(idx))
	for k, i := range idx {
		byCol[k] = in.Explanations[i].ByColumn(in.Columns)
	}
	for ci, c := range in.Columns {
		st := ColumnStats{Column: c.Name, Type: c.Type}
		var changes []float64
		counts := map[Transition]int{}
		var attr, minus, plus float64
		for k, i := range idx {
			e := byCol[k]
			attr += math.Abs(e.Attribution[ci])
			minus += math.Abs(e.AttributionMinus[ci])
			plus += math.Abs(e.AttributionPlus[ci])
			if !slices.Contains(rows[i].Changed, c.Name) {
				continue
			}
			st.Changed++
			x, xc := in.row(i), in.Explanations[i].Path0().CounterfactualOriginal
			if d, ok := change(c, x, xc); ok {
				changes = append(changes, d)
			}
			if levelled(c) {
				counts[Transition{From: c.Format(x), To: c.Format(xc)}]++
			}
		}
		st.ChangeRate = Number(float64(st.Changed) / n)
		st.MeanChange = Number(math.NaN())
		if !levelled(c) || c.Type == data.Ordinal {
			st.MeanChange = Number(mean(changes))
		}
		st.MeanAbsAttribution, st.MeanAbsMinus, st.MeanAbsPlus = Number(attr/n), Number(minus/n), Number(plus/n)
		for t, k := range counts {
			t.Count = k
			st.Transitions = append(st.Transitions, t)
		}
		slices.SortFunc(st.Transitions, func(a, b Transition) int {
			return cmp.Or(b.Count-a.Count, cmp.Compare(a.From, b.From), cmp.Compare(a.To, b.To))
		})
		st.Transitions = st.Transitions[:min(len(st.Transitions), o.Transitions)]
		out[ci] = st
	}
	return out
}

// row is explained row i in the data's units.
func (in Input) row(i int) []float64 {
	if in.Rows != nil {
		return in.Rows[i]
	}
	return in.Explanations[i].XOriginal
}

// compare is the difference in measure between the rows a (named group) and b (versus).
func compare(o Options, measure, group, versus string, rows []Row, a, b []int) Comparison {
	va, vb := values(measure, rows, a), values(measure, rows, b)
	lo, hi := bootstrapDifference(rng(o.Seed, "difference", measure, group, versus), va, vb, o.Bootstrap, o.Level)
	return Comparison{
		Measure: measure, Group: group, Versus: versus, N: len(va), NVersus: len(vb),
		Difference: Number(mean(va) - mean(vb)), Lo: Number(lo), Hi: Number(hi),
		P: Number(permutationP(rng(o.Seed, "permutation", measure, group, versus), va, vb, o.Permutations)),
	}
}
