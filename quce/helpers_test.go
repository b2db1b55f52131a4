package quce_test

import (
	"context"
	"testing"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// wbc is W-BC with the default models (see pipeline/pipelinetest).
func wbc(t testing.TB) *pipeline.Setup { return pipelinetest.WBC(t) }

// recourseSetups are the data sets the recourse tests explain rows of, with how many test
// rows: W-BC (numeric) and German credit (mixed, thirteen categorical columns).
var recourseSetups = []struct {
	name  string
	setup func(testing.TB) *pipeline.Setup
	rows  int
}{{"wbc", pipelinetest.WBC, 24}, {"german", pipelinetest.German, 16}}

// with is e with its settings changed by change (Explainer.With): the same models and
// compiled programs, for one test's settings.
func with(t testing.TB, e *quce.Explainer, change func(*quce.Settings)) *quce.Explainer {
	t.Helper()
	st := e.Settings()
	change(&st)
	ex, err := e.With(st)
	if err != nil {
		t.Fatal(err)
	}
	return ex
}

// explainWith explains standardised rows with e, returning the call's statistics.
func explainWith(t testing.TB, e *quce.Explainer, cfg quce.Config, rows [][]float64) ([]*quce.Explanation, quce.Stats) {
	t.Helper()
	ex, st, err := e.ExplainWithStats(context.Background(), cfg, queries(rows))
	if err != nil {
		t.Fatal(err)
	}
	return ex, st
}

func queries(rows [][]float64) []quce.Query {
	qs := make([]quce.Query, len(rows))
	for i, r := range rows {
		qs[i] = quce.NewQuery(r)
	}
	return qs
}

func explain(t testing.TB, cfg quce.Config, rows [][]float64) []*quce.Explanation {
	t.Helper()
	ex, err := wbc(t).Explainer.Explain(context.Background(), cfg, queries(rows))
	if err != nil {
		t.Fatal(err)
	}
	return ex
}
