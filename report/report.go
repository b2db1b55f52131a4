// Package report turns results into what the command-line tool and the notebooks show, once
// for both: the view of one explanation (Instance) that quce explain's JSON marshals and its
// CSV table (CSV), its text report (WriteText) and the notebook's HTML format, an
// evaluation's metric table for plots.Evaluation (a single run's values, or the means over
// seeds), and the map of an explanation's paths with AGI's beside QUCE's and IG's.
package report

import (
	"context"

	"github.com/quce-go/quce/eval"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/plots"
	"github.com/quce-go/quce/quce"
)

// EvaluationTable is r's metrics as plots.Evaluation draws them.
func EvaluationTable(r *eval.Report) plots.MetricTable {
	table := plots.MetricTable{}
	for m, splits := range r.Metrics {
		table[string(m)] = splits
	}
	return table
}

// SeedMeansTable is the means over seeds of s's metrics, as plots.Evaluation draws them (the
// tables give the spread).
func SeedMeansTable(s *eval.SeedSummary) plots.MetricTable {
	table := plots.MetricTable{}
	for m, splits := range s.Metrics {
		table[string(m)] = map[string]map[string]float64{}
		for split, metrics := range splits {
			table[string(m)][split] = map[string]float64{}
			for k, v := range metrics {
				table[string(m)][split][k] = v.Mean
			}
		}
	}
	return table
}

// MapPaths are the paths plots.Map draws for each explanation of exs: QUCE's path and IG's
// straight line (plots.ExplanationPaths), then AGI's path from the same instance towards the
// same target (eval.RunAGI with its defaults and threshold ϑ), found for all at once.
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
		paths[i] = append(plots.ExplanationPaths(e), plots.MapPath{Method: string(eval.AGI), Points: agi[i].Points})
	}
	return paths, nil
}

// Map draws paths (one explanation's MapPaths) over s's training rows.
func Map(s *pipeline.Setup, paths []plots.MapPath, o plots.Options) ([]byte, error) {
	return plots.Map(s.XTrain, s.Data.Subset(s.TrainIdx).Y, paths, o)
}
