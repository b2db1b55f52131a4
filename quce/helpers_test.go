package quce_test

import (
	"context"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
)

var (
	setupOnce sync.Once
	setup     *pipeline.Setup
	setupErr  error
)

// wbc prepares W-BC with the default models once per test binary, through the on-disk
// cache in the repository's .quce-cache (or $QUCE_CACHE) so reruns do not retrain.
func wbc(t testing.TB) *pipeline.Setup {
	t.Helper()
	setupOnce.Do(func() {
		dir := os.Getenv("QUCE_CACHE")
		if dir == "" {
			dir = filepath.Join("..", ".quce-cache")
		}
		setup, setupErr = pipeline.Prepare(pipeline.Options{SplitSeed: 1, CacheDir: dir})
	})
	if setupErr != nil {
		t.Fatal(setupErr)
	}
	return setup
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
