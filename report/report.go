// Package report turns results into what the command-line tool and the notebooks show, once
// for both: the view of one explanation (Instance) that quce explain's JSON marshals and its
// CSV table (CSV), its text report (WriteText) and the notebook's HTML format, an
// evaluation's metric table for plots.Evaluation (a single run's values, or the means over
// seeds), the map of an explanation's paths: QUCE's, IG's and AGI's, and its further
// counterfactuals', and the description of a run's setup in the JSON outputs (DatasetJSON,
// ModelJSON, ColumnsJSON, WhileLoopsJSON).
// Each method is drawn with the label and colour its eval method declares (eval.Methods), so
// that plots knows no method.
package report

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/quce"
)

// EvaluationTable is r's metrics as plots.Evaluation draws them, the methods in table order.
func EvaluationTable(r *eval.Report) plots.MetricTable {
	var table plots.MetricTable
	for _, m := range tableOrder(slices.Collect(maps.Keys(r.Metrics))) {
		table = append(table, plots.MethodMetrics{MethodStyle: Style(m), Metrics: r.Metrics[m]})
	}
	return table
}

// SeedMeansTable is the means over seeds of s's metrics, as plots.Evaluation draws them (the
// tables give the spread), the methods in table order.
func SeedMeansTable(s *eval.SeedSummary) plots.MetricTable {
	var table plots.MetricTable
	for _, m := range tableOrder(slices.Collect(maps.Keys(s.Metrics))) {
		means := map[string]map[string]float64{}
		for split, metrics := range s.Metrics[m] {
			means[split] = map[string]float64{}
			for k, v := range metrics {
				means[split][k] = v.Mean
			}
		}
		table = append(table, plots.MethodMetrics{MethodStyle: Style(m), Metrics: means})
	}
	return table
}

// tableOrder is ms in the order of eval's tables, any method eval does not know last, by
// name.
func tableOrder(ms []eval.Method) []eval.Method {
	all := eval.AllMethods()
	rank := func(m eval.Method) int {
		if i := slices.Index(all, m); i >= 0 {
			return i
		}
		return len(all)
	}
	slices.SortFunc(ms, func(a, b eval.Method) int {
		return cmp.Or(cmp.Compare(rank(a), rank(b)), cmp.Compare(a, b))
	})
	return ms
}

// Style is how plots draws method m: with the label and colour eval describes it by. A method
// eval does not know has its name for a label and no colour, which plots reports.
func Style(m eval.Method) plots.MethodStyle {
	info, ok := m.Info()
	if !ok {
		return plots.MethodStyle{Label: string(m)}
	}
	return plots.MethodStyle{Label: info.Label, Color: info.Color}
}

// ExplanationPaths are the paths of an explanation for plots.Map: QUCE's path (its first,
// which starts exactly at x), the lead, and IG's straight line from x to the same
// counterfactual; none when that path failed.
func ExplanationPaths(ex *quce.Explanation) []plots.MapPath {
	if ex == nil || len(ex.Paths) == 0 || ex.Paths[0] == nil || ex.Path0().Failure != "" {
		return nil // a failed path has no counterfactual to draw
	}
	p := ex.Path0()
	out := []plots.MapPath{{MethodStyle: Style(eval.QUCE), Lead: true, Points: p.Points}}
	if ex.X != nil && p.Counterfactual != nil {
		out = append(out, plots.MapPath{MethodStyle: Style(eval.IG), Straight: true, Points: [][]float64{ex.X, p.Counterfactual}})
	}
	return out
}

// OptionPaths are the further counterfactuals of an explanation for plots.Map, each QUCE's
// path of its own search (quce.Explanation.Counterfactuals after the first), in QUCE's
// colour and named by OptionLabel; none with one counterfactual.
func OptionPaths(cols []data.Column, ex *quce.Explanation) []plots.MapPath {
	if ex == nil || len(ex.Counterfactuals) < 2 {
		return nil
	}
	var out []plots.MapPath
	for i, p := range ex.Counterfactuals[1:] {
		style := Style(eval.QUCE)
		style.Label = OptionLabel(cols, i+2, p)
		out = append(out, plots.MapPath{MethodStyle: style, Option: i + 2, Points: p.Points})
	}
	return out
}

// OptionLabel names option k (2, 3, …), whose path is p, by the columns its search held,
// short enough for a legend or a heading: "option 3: holds age, job", and past two columns
// "option 5: holds age, job and 2 more" (the first two, which the options before held
// too).
func OptionLabel(cols []data.Column, k int, p *quce.Path) string {
	held := names(cols, p.Held)
	switch {
	case len(held) == 0:
		return fmt.Sprintf("option %d", k)
	case len(held) > 2:
		return fmt.Sprintf("option %d: holds %s and %d more", k, strings.Join(held[:2], ", "), len(held)-2)
	}
	return fmt.Sprintf("option %d: holds %s", k, strings.Join(held, ", "))
}

// MapPaths are the paths plots.Map draws for each explanation of exs: QUCE's path and IG's
// straight line (ExplanationPaths), then AGI's path from the same instance towards the
// same target (eval.RunAGI with its defaults and threshold ϑ), found for all at once, and
// last the further counterfactuals (OptionPaths), drawn over the rest.
func MapPaths(ctx context.Context, s *pipeline.Setup, exs []*quce.Explanation, threshold float64) ([][]plots.MapPath, error) {
	xs := make([][]float64, len(exs))
	targets := make([]int, len(exs))
	for i, e := range exs {
		xs[i], targets[i] = e.X, e.Target
	}
	agi, err := eval.RunAGI(ctx, s.Backend, s.Explainer.Classifier(), xs, targets, eval.DefaultAGIConfig(), threshold)
	if err != nil {
		return nil, err
	}
	paths := make([][]plots.MapPath, len(exs))
	for i, e := range exs {
		paths[i] = append(ExplanationPaths(e), plots.MapPath{MethodStyle: Style(eval.AGI), Points: agi[i].Points})
		paths[i] = append(paths[i], OptionPaths(s.Explainer.Columns(), e)...)
	}
	return paths, nil
}

// Map draws paths (one explanation's MapPaths) over s's training rows.
func Map(s *pipeline.Setup, paths []plots.MapPath, o plots.Options) ([]byte, error) {
	return plots.Map(s.XTrain, s.Data.Subset(s.TrainIdx).Y, paths, o)
}
