// Package pipelinetest gives tests the W-BC data with the default models, prepared once per
// test binary through the on-disk model cache, so test runs after the first do not retrain.
package pipelinetest

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/quce-go/quce/pipeline"
)

// CacheDir is $QUCE_CACHE, else .quce-cache at the repository's root (ignored by git).
func CacheDir() string { return pipeline.CacheDirOr(filepath.Join(Root(), ".quce-cache")) }

// Root is the repository's root folder (where go.mod is), found from the working folder
// up (that folder itself when no go.mod is found): not from CacheDir, which $QUCE_CACHE may
// put anywhere.
func Root() string {
	dir, err := os.Getwd()
	if err != nil {
		return "."
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return d
		}
		if filepath.Dir(d) == d {
			return dir
		}
	}
}

var (
	once  sync.Once
	setup *pipeline.Setup
	err   error
)

// WBC prepares the embedded W-BC data (split seed 1) with the default models.
func WBC(t testing.TB) *pipeline.Setup {
	t.Helper()
	once.Do(func() { setup, err = pipeline.Prepare(pipeline.Options{SplitSeed: 1, CacheDir: CacheDir()}) })
	if err != nil {
		t.Fatal(err)
	}
	return setup
}
