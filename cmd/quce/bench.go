package main

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/pprof"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/internal/trainloop"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/quce"
	"github.com/quce-go/quce/report"
)

// phase is one timed phase of quce bench.
type phase struct {
	Name        string  `json:"name"`
	Rows        int     `json:"rows,omitempty"`
	WallSeconds float64 `json:"wall_seconds"`
	CPUSeconds  float64 `json:"cpu_seconds"`
	RowsPerSec  float64 `json:"rows_per_second,omitempty"`
	// For explain phases: the split of the wall time and the completeness gap reached.
	// Optimisation includes the path attribution, integrated in the same executions;
	// Uncertainty is ε and the ± integrals; Paths is building the paths' results on the
	// host (quce.Timings).
	Optimisation    float64 `json:"optimisation_seconds,omitempty"`
	Uncertainty     float64 `json:"uncertainty_seconds,omitempty"`
	Paths           float64 `json:"paths_seconds,omitempty"`
	CompletenessGap float64 `json:"completeness_gap_mean,omitempty"`
	Validity        float64 `json:"validity,omitempty"`
	// Engine names how the searches ran (see quce.Stats.Engine), and Executions counts
	// the graph executions the phase ran: with the "steps" engine at least one per step, with
	// the "loop" engine a few per batch. For a training phase, Steps counts its optimiser
	// steps and Executions the graph executions that ran them (an epoch each, see package
	// internal/trainloop).
	Engine     string `json:"engine,omitempty"`
	Steps      int64  `json:"steps,omitempty"`
	Executions int64  `json:"executions,omitempty"`
	// FirstExecutionSeconds, for a training phase, is its first execution's wall time,
	// which includes compiling the epoch program (trainloop.Stats).
	FirstExecutionSeconds float64 `json:"first_execution_seconds,omitempty"`
	// Devices counts the backend's devices that ran at least one of an explain phase's
	// executions: the rows are split over the devices (see quce.Settings.Shards) when
	// there are enough of them.
	Devices int `json:"devices,omitempty"`
	// Compiled and CompileSeconds, for an explain phase, are the programs it compiled (a
	// batch size's first run compiles those of that size) and the seconds that took, part
	// of its wall time (quce.Stats.Compiled).
	Compiled       int64   `json:"compiled,omitempty"`
	CompileSeconds float64 `json:"compile_seconds,omitempty"`
	// Shards, for an explain phase, is how many parts its rows were searched in at the same
	// time, each with executions of its own (one per CPU core on the pure-Go backend, while
	// there are rows for them; quce.Stats.Shards).
	Shards int `json:"shards,omitempty"`
}

// trainingPhase is a model's training phase: its seconds and what its run did.
func trainingPhase(name string, seconds float64, st trainloop.Stats) phase {
	return phase{Name: name, WallSeconds: seconds, Steps: int64(st.Steps), Executions: int64(st.Executions),
		FirstExecutionSeconds: st.FirstExecutionSeconds}
}

// buildProfile names the CPU profile the running binary was optimised with (the Go
// compiler's -pgo: cmd/quce/default.pgo, written by scripts/pgo-profile.sh, for go build and
// go run), or says "off". It changes the speed, not the results, so only quce bench says it.
func buildProfile() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "-pgo" && s.Value != "" {
				return filepath.Base(s.Value)
			}
		}
	}
	return "off"
}

func cpuSeconds() float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return math.NaN()
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}

func timed(name string, rows int, fn func() error) (phase, error) {
	c0, t0 := cpuSeconds(), time.Now()
	err := fn()
	p := phase{Name: name, Rows: rows, WallSeconds: time.Since(t0).Seconds(), CPUSeconds: cpuSeconds() - c0}
	if rows > 0 {
		p.RowsPerSec = float64(rows) / p.WallSeconds
	}
	return p, err
}

// benchExplain times the explanation of b training rows (repeated if b exceeds them): its
// phase, with what ran (engine, executions, devices) and what it reached (gap, validity).
func benchExplain(ctx context.Context, f *common, s *pipeline.Setup, cfg quce.Config, b int) (phase, error) {
	qs := make([]quce.Query, b)
	for i := range qs {
		qs[i] = quce.NewQuery(s.XTrain[i%len(s.XTrain)])
	}
	var st quce.Stats
	var ex []*quce.Explanation
	p, err := timed("explain", b, func() error {
		var err error
		ex, st, err = s.Explainer.ExplainWithStats(ctx, cfg, qs)
		return err
	})
	if err != nil {
		return p, err
	}
	p.Optimisation, p.Uncertainty, p.Paths = st.Optimisation, st.Uncertainty, st.Paths
	p.Engine, p.Executions, p.Shards = st.Engine, st.Executions, st.Shards
	p.Compiled, p.CompileSeconds = st.Compiled, st.CompileSeconds
	for _, n := range st.ExecutionsPerDevice {
		if n > 0 {
			p.Devices++
		}
	}
	valid := 0
	for _, e := range ex {
		p.CompletenessGap += math.Abs(e.CompletenessGap) / float64(len(ex))
		if e.Path0().Valid {
			valid++
		}
	}
	p.Validity = float64(valid) / float64(len(ex))
	f.logf("B=%d: %.2fs wall (optimisation with attribution %.2fs, ± uncertainty %.2fs, paths %.2fs; compiling %d programs %.2fs), %d executions on %d of %d devices", b, p.WallSeconds, st.Optimisation, st.Uncertainty, st.Paths, p.Compiled, p.CompileSeconds, p.Executions, p.Devices, s.BackendInfo.NumDevices)
	return p, nil
}

func runBench(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	f := &common{stderr: stderr}
	fs := flag.NewFlagSet("quce bench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	f.register(fs)
	batches := fs.String("rows", "1,100,455", "comma-separated batch sizes B (rows of the training split, repeated if B exceeds it)")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the whole run (training and every batch) to this file, for go tool pprof, or as the profile the command is built with (scripts/pgo-profile.sh)")
	if err := f.parse(fs, args); err != nil {
		return err
	}
	if *cpuProfile == "-" {
		return fmt.Errorf("-cpuprofile -: standard output carries the JSON; fix: name a file for the profile")
	}
	if err := f.checkOutput("-cpuprofile", *cpuProfile); err != nil {
		return err
	}
	cfg, err := f.config()
	if err != nil {
		return err
	}
	var sizes []int
	for _, p := range strings.Split(*batches, ",") {
		b, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || b <= 0 {
			return fmt.Errorf("-rows %q: %q is not a positive integer; fix: list batch sizes (rows per run) such as 1,100,455", *batches, p)
		}
		sizes = append(sizes, b)
	}
	// Training is always timed from scratch: the cache would hide it.
	f.noCache = true
	var prof bytes.Buffer
	if *cpuProfile != "" {
		if err := pprof.StartCPUProfile(&prof); err != nil {
			return fmt.Errorf("-cpuprofile %s: %v; fix: leave -cpuprofile out while another profile of this process runs", *cpuProfile, err)
		}
		defer pprof.StopCPUProfile()
	}
	var phases []phase
	var s *pipeline.Setup
	p, err := timed("prepare (classifier + VAE training)", 0, func() error { s, err = f.prepare(ctx); return err })
	if err != nil {
		return err
	}
	if cfg, err = f.withBound(s, cfg); err != nil {
		return err
	}
	var clf trainloop.Stats // none for a user's model
	if s.Classifier != nil {
		clf = s.Classifier.Training
	}
	phases = append(phases,
		trainingPhase("classifier training", s.ClassifierSeconds, clf),
		trainingPhase("vae training", s.VAESeconds, s.VAE.Training), p)
	f.logf("training: classifier %d steps in %d executions, VAE %d steps in %d executions", clf.Steps, clf.Executions, s.VAE.Training.Steps, s.VAE.Training.Executions)
	for _, b := range sizes {
		p, err := benchExplain(ctx, f, s, cfg, b)
		if err != nil {
			return err
		}
		phases = append(phases, p)
	}
	if *cpuProfile != "" {
		pprof.StopCPUProfile()
		if err := writeOutputs(stdout, []output{{*cpuProfile, prof.Bytes()}}); err != nil {
			return err
		}
		f.logf("wrote %s", *cpuProfile)
	}
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	doc := map[string]any{
		"max_rss_mb": float64(ru.Maxrss) / 1024, // Linux reports kilobytes
		"backend":    s.BackendInfo.Config, "deterministic": !s.BackendInfo.Nondeterministic, "devices": s.BackendInfo.NumDevices, "simd": s.BackendInfo.KernelSet(), "accelerator": s.BackendInfo.Accelerator, "batching": s.Explainer.Settings().Batching, "pgo": buildProfile(), "cpus": runtime.NumCPU(), "gomaxprocs": runtime.GOMAXPROCS(0),
		"versions": backend.Versions(), "config": cfg, "dataset": report.DatasetJSON(s), "phases": phases,
		"model": report.ModelJSON(s), "model_check": s.ModelCheck, "while_loops": report.WhileLoopsJSON(s.BackendInfo),
	}
	b, err := json.MarshalIndent(doc, "", " ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(stdout, string(b))
	return err
}
