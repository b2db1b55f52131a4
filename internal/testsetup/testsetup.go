// Package testsetup gives tests the W-BC data with the default models, prepared once per
// test binary through the on-disk model cache, so test runs after the first do not retrain.
package testsetup

import (
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/quce-go/quce/pipeline"
)

// CacheDir is $QUCE_CACHE, else .quce-cache at the repository's root (ignored by git).
func CacheDir() string {
	if d := os.Getenv("QUCE_CACHE"); d != "" {
		return d
	}
	dir, err := os.Getwd()
	if err != nil {
		return ".quce-cache"
	}
	for d := dir; ; d = filepath.Dir(d) {
		if _, err := os.Stat(filepath.Join(d, "go.mod")); err == nil {
			return filepath.Join(d, ".quce-cache")
		}
		if filepath.Dir(d) == d {
			return filepath.Join(dir, ".quce-cache")
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
