package main

import (
	"bufio"
	"errors"
	"io"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/pipeline/pipelinetest"
)

// buildCommand builds quce into dir and returns its path, for tests that run it as a
// process of its own (a signal, an environment variable read once per process).
func buildCommand(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "quce")
	if out, err := exec.Command("go", slices.Concat([]string{"build"}, modeltest.BuildFlags(), []string{"-o", bin, "."})...).CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// Ctrl-C during an explanation stops promptly, exits 130 and leaves no output file behind.
func TestInterruptLeavesNoPartialFiles(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the command")
	}
	dir := t.TempDir()
	bin := buildCommand(t, dir)
	out := filepath.Join(dir, "out")
	cache, _ := filepath.Abs(pipelinetest.CacheDir())
	cmd := exec.Command(bin, "explain", "-n", "114", "-steps", "100000", "-json", filepath.Join(out, "e.json"), "-svg", out, "-cache", cache)
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "explaining") {
			break
		}
	}
	go io.Copy(io.Discard, stderr)
	time.Sleep(500 * time.Millisecond)
	sent := time.Now()
	if err := cmd.Process.Signal(syscall.SIGINT); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	took := time.Since(sent)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 130 {
		t.Errorf("exit: %v; want status 130", err)
	}
	t.Logf("stopped %.2f s after SIGINT", took.Seconds())
	if entries, _ := os.ReadDir(out); len(entries) != 0 {
		t.Errorf("interrupted run left files: %v", entries)
	}
}

// FuzzConfigFlags feeds arbitrary flag values to the configuration parser: it must return a
// valid configuration or an error, never panic or accept NaN.
func FuzzConfigFlags(f *testing.F) {
	f.Add("1,0.01,0.1", 0.01, 1000, 10, 1, 0.5, "adam", "trapezoid")
	f.Add("nan,1,1", -1.0, 0, 0, 0, 1.0, "sgd", "riemann")
	f.Add("1e309,0,0", math.Inf(1), -5, 3, 2, 0.0, "GD", "x")
	f.Fuzz(func(t *testing.T, lambdas string, lr float64, steps, k, paths int, threshold float64, opt, rule string) {
		c := &common{lambdas: lambdas, lr: lr, steps: steps, k: k, paths: paths, threshold: threshold, optimizer: opt, rule: rule, seed: 1}
		cfg, err := c.config()
		if err != nil {
			return
		}
		for _, v := range []float64{cfg.Lambda1, cfg.Lambda2, cfg.Lambda3, cfg.LearningRate, cfg.Threshold} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				t.Fatalf("accepted a non-finite setting: %+v", cfg)
			}
		}
		if cfg.Steps <= 0 || cfg.K <= 0 || cfg.Paths <= 0 || cfg.Threshold <= 0 || cfg.Threshold >= 1 || cfg.LearningRate <= 0 {
			t.Fatalf("accepted an invalid configuration: %+v", cfg)
		}
	})
}
