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

// limitMemory makes limit the most memory s's jobs may need, for the rest of the test.
func limitMemory(t testing.TB, s *pipeline.Setup, limit int64) {
	t.Cleanup(func() { s.Explainer.MemoryLimit = 0 })
	s.Explainer.MemoryLimit = limit
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
