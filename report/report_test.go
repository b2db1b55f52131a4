package report

import (
	"slices"
	"testing"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/quce"
)

// The tables plots.Evaluation draws: a run's metrics as they are and the means over seeds,
// the methods in table order, each with the label and colour eval describes it by.
func TestTables(t *testing.T) {
	r := &eval.Report{Metrics: map[eval.Method]map[string]map[string]float64{
		eval.DiceRandom: {eval.Train: {eval.ProximityL1: 2}}, eval.QUCE: {eval.Test: {eval.Validity: 0.9}}, eval.AGI: {}}}
	s := &eval.SeedSummary{Metrics: map[eval.Method]map[string]map[string]eval.Spread{
		eval.AGI: {eval.Test: {eval.Deletion: {Mean: 0.4, Std: 0.1, Seeds: 3}}}, eval.IG: {eval.Train: {eval.Deletion: {Mean: 0.2}}}}}
	for _, tc := range []struct {
		name    string
		table   plots.MetricTable
		methods []eval.Method
		value   func(plots.MetricTable) float64
		want    float64
	}{
		{"a run", EvaluationTable(r), []eval.Method{eval.QUCE, eval.AGI, eval.DiceRandom},
			func(m plots.MetricTable) float64 { return m[2].Metrics[eval.Train][eval.ProximityL1] }, 2},
		{"the means over seeds", SeedMeansTable(s), []eval.Method{eval.IG, eval.AGI},
			func(m plots.MetricTable) float64 { return m[1].Metrics[eval.Test][eval.Deletion] }, 0.4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if len(tc.table) != len(tc.methods) {
				t.Fatalf("table %v; want the methods %v", tc.table, tc.methods)
			}
			for i, m := range tc.methods {
				info, _ := m.Info()
				if got := tc.table[i].MethodStyle; got.Label != info.Label || got.Color != info.Color {
					t.Errorf("method %d is drawn as %+v; want %s's label and colour %+v", i, got, m, info)
				}
			}
			if got := tc.value(tc.table); got != tc.want {
				t.Errorf("value %g, want %g", got, tc.want)
			}
		})
	}
	if got := EvaluationTable(&eval.Report{Metrics: map[eval.Method]map[string]map[string]float64{"shap": {}}}); got[0].Label != "shap" || got[0].Color != nil {
		t.Errorf("a method eval does not know is drawn as %+v; want its name and no colour (an error in plots)", got[0].MethodStyle)
	}
}

// Every method eval describes is drawn with its own label and colour: no two alike.
func TestStyles(t *testing.T) {
	var seen []plots.MethodStyle
	for _, info := range eval.Methods() {
		s := Style(info.Name)
		if s.Label == "" || s.Color == nil || slices.ContainsFunc(seen, func(o plots.MethodStyle) bool { return o.Label == s.Label || o.Color == s.Color }) {
			t.Errorf("%s is drawn as %+v, unlabelled, without a colour or as another method", info.Name, s)
		}
		seen = append(seen, s)
	}
}

// An explanation's paths on the map: QUCE's, the lead, then IG's straight line to its
// counterfactual; none when QUCE's path failed.
func TestExplanationPaths(t *testing.T) {
	x, xc := []float64{0, 0}, []float64{1, 1}
	ok := &quce.Explanation{X: x, Paths: []*quce.Path{{Points: [][]float64{x, {0.6, 0.4}, xc}, Counterfactual: xc}}}
	failed := &quce.Explanation{X: x, Paths: []*quce.Path{{Failure: "diverged at step 1"}}}
	got := ExplanationPaths(ok)
	if len(got) != 2 || got[0].Label != "QUCE" || !got[0].Lead || got[0].Straight || len(got[0].Points) != 3 ||
		got[1].Label != "IG" || !got[1].Straight || got[1].Lead || !slices.Equal(got[1].Points[1], xc) {
		t.Errorf("ExplanationPaths = %+v; want QUCE's path, the lead, and IG's straight line to x_c", got)
	}
	for _, ex := range []*quce.Explanation{failed, nil, {}} {
		if got := ExplanationPaths(ex); got != nil {
			t.Errorf("ExplanationPaths(%+v) = %+v; want none", ex, got)
		}
	}
}

// An explanation's further counterfactuals on the map: each its own path, in QUCE's colour,
// numbered from 2 and named by the columns its search held, at most two by name; none with
// one counterfactual.
func TestOptionPaths(t *testing.T) {
	var cols []data.Column
	for i, name := range []string{"age", "job", "income", "debt"} {
		cols = append(cols, data.Column{Name: name, Type: data.Continuous, Start: i, Width: 1})
	}
	x := []float64{0, 0, 0, 0}
	path := func(held ...int) *quce.Path {
		return &quce.Path{Points: [][]float64{x, {1, float64(len(held)), 0, 0}}, Held: held}
	}
	first := path()
	ex := &quce.Explanation{X: x, Paths: []*quce.Path{first}, Counterfactuals: []*quce.Path{first, path(1), path(1, 0), path(1, 0, 3)}}
	got := OptionPaths(cols, ex)
	want := []string{"option 2: holds job", "option 3: holds job, age", "option 4: holds job, age and 1 more"}
	if len(got) != len(want) {
		t.Fatalf("OptionPaths = %+v; want %d options", got, len(want))
	}
	for i, mp := range got {
		if mp.Label != want[i] || mp.Option != i+2 || mp.Color != Style(eval.QUCE).Color || mp.Lead || mp.Straight ||
			!slices.Equal(mp.Points[1], ex.Counterfactuals[i+1].Points[1]) {
			t.Errorf("option %d is %+v; want %q in QUCE's colour, numbered %d, along its own path", i+2, mp, want[i], i+2)
		}
	}
	for _, ex := range []*quce.Explanation{nil, {Paths: []*quce.Path{first}, Counterfactuals: []*quce.Path{first}}} {
		if got := OptionPaths(cols, ex); got != nil {
			t.Errorf("OptionPaths(%+v) = %+v; want none", ex, got)
		}
	}
}
