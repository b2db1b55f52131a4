package main

import (
	"bytes"
	"context"
	"encoding/json"
	"runtime"
	"strconv"
	"strings"
	"testing"

	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/quce"
)

// quce bench says what ran: per explain phase the engine, the graph executions it ran and
// on how many devices (TestExplainOnTwoDevices has two), and which kernel set the pure-Go
// backend used. With the "steps" engine each extra
// optimisation step of a batch costs exactly one more execution; with the "loop" engine
// and the "replay" engine (the default on the pure-Go backend) a batch's search is one
// execution whatever its steps, which only a count of the explainer's executions shows.
func TestBenchSaysWhatRan(t *testing.T) {
	modeltest.NeedPureGo(t)
	// A search of the loop or replay engine: the same executions for any number of steps,
	// at most 3 a shard (its first points, the loop, its last points) and 5 for the call.
	oneSearchPerShard := func(short, long, shards int64) bool { return short == long && short <= 5+3*shards }
	type benchDoc struct {
		SIMD          string        `json:"simd"`
		Deterministic *bool         `json:"deterministic"`
		Devices       int           `json:"devices"`
		Accelerator   bool          `json:"accelerator"`
		Batching      quce.Batching `json:"batching"`
		Phases        []struct {
			Name       string `json:"name"`
			Rows       int    `json:"rows"`
			Engine     string `json:"engine"`
			Executions int64  `json:"executions"`
			Devices    int    `json:"devices"`
			Shards     int    `json:"shards"`
			// The wall time and its split (quce.Timings).
			Wall         float64 `json:"wall_seconds"`
			Optimisation float64 `json:"optimisation_seconds"`
			Uncertainty  float64 `json:"uncertainty_seconds"`
			Paths        float64 `json:"paths_seconds"`
		} `json:"phases"`
	}
	bench := func(steps int, extra ...string) benchDoc {
		var stdout, stderr bytes.Buffer
		args := []string{"bench", "-rows", "1,3", "-steps", strconv.Itoa(steps), "-early-stop", "0", "-epochs", "3", "-vae-epochs", "2", "-latent", "2", "-q"}
		if err := run(context.Background(), append(args, extra...), &stdout, &stderr); err != nil {
			t.Fatalf("bench -steps %d: %v\n%s", steps, err, stderr.String())
		}
		var doc benchDoc
		if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
			t.Fatal(err)
		}
		return doc
	}
	for _, tc := range []struct {
		engine string
		flags  []string
		check  func(short, long, shards int64) bool // the executions of 5 and of 9 steps
		want   string
	}{
		{"loop", []string{"-engine", "loop"}, oneSearchPerShard, "the same for 5 and 9 steps, at most 5 + 3 a shard"},
		{"steps", []string{"-engine", "steps"}, func(short, long, shards int64) bool { return short >= 5 && long-short == 4*shards },
			"at least one per step, and 4 more a shard for 4 more steps"},
		{"replay", []string{"-engine", "replay"}, oneSearchPerShard, "the same for 5 and 9 steps, at most 5 + 3 a shard"},
		// -engine auto: the replay engine on the pure-Go backend, where it is the faster.
		{"replay", nil, oneSearchPerShard, "the same for 5 and 9 steps, at most 5 + 3 a shard"},
	} {
		t.Run(strings.Join(append([]string{tc.engine}, tc.flags...), " "), func(t *testing.T) {
			short, long := bench(5, tc.flags...), bench(9, tc.flags...)
			if short.Accelerator || short.Batching != quce.CPUBatching {
				t.Errorf(`"accelerator" %v, "batching" %+v; want false and the CPU's sizes %+v`, short.Accelerator, short.Batching, quce.CPUBatching)
			}
			if short.Deterministic == nil || !*short.Deterministic {
				t.Errorf(`"deterministic" is %v, want true on the pure-Go backend`, short.Deterministic)
			}
			if short.SIMD != "avx2" && short.SIMD != "avx512" && short.SIMD != "generic" {
				t.Errorf(`"simd" is %q, want the pure-Go backend's kernel set: avx2, avx512 or generic`, short.SIMD)
			}
			explains := 0
			for i, p := range short.Phases {
				if p.Name != "explain" {
					continue
				}
				explains++
				if p.Devices != 1 || short.Devices != 1 {
					t.Errorf("B=%d: executions on %d of %d devices, want the one device of the pure-Go backend", p.Rows, p.Devices, short.Devices)
				}
				if p.Shards < 1 || p.Shards > min(p.Rows, runtime.GOMAXPROCS(0)) || long.Phases[i].Shards != p.Shards {
					t.Errorf("B=%d: %d and %d shards, want the same, from 1 to one a row or core", p.Rows, p.Shards, long.Phases[i].Shards)
				}
				if split := p.Optimisation + p.Uncertainty + p.Paths; p.Optimisation <= 0 || p.Uncertainty <= 0 || p.Paths <= 0 || split > p.Wall {
					t.Errorf("B=%d: optimisation %gs, uncertainty %gs, paths %gs of %gs wall; want each part timed, within the wall time",
						p.Rows, p.Optimisation, p.Uncertainty, p.Paths, p.Wall)
				}
				if p.Engine != tc.engine || !tc.check(p.Executions, long.Phases[i].Executions, int64(p.Shards)) {
					t.Errorf("B=%d: engine %q, %d executions for 5 steps and %d for 9 in %d shards; want %q, %s",
						p.Rows, p.Engine, p.Executions, long.Phases[i].Executions, p.Shards, tc.engine, tc.want)
				}
			}
			if explains != 2 {
				t.Errorf("%d explain phases, want 2 (-rows 1,3)", explains)
			}
		})
	}
}

// quce bench reports each model's training steps and the graph executions that ran them:
// on W-BC an epoch's steps run in one execution, so the executions are the epochs, far
// fewer than the steps. It also gives the first execution's time (which compiles), part of
// the phase's.
func TestBenchCountsTrainingExecutions(t *testing.T) {
	var stdout, stderr bytes.Buffer
	args := []string{"bench", "-rows", "1", "-steps", "2", "-epochs", "3", "-vae-epochs", "2", "-latent", "2", "-q"}
	if err := run(context.Background(), args, &stdout, &stderr); err != nil {
		t.Fatalf("bench: %v\n%s", err, stderr.String())
	}
	var doc struct {
		Phases []struct {
			Name       string  `json:"name"`
			Wall       float64 `json:"wall_seconds"`
			Steps      int64   `json:"steps"`
			Executions int64   `json:"executions"`
			First      float64 `json:"first_execution_seconds"`
		} `json:"phases"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	// W-BC's 455 training rows: the classifier takes 14 batches of 32 an epoch, the VAE
	// (on the 409 rows left beside its validation split) 6 of 64.
	want := map[string][2]int64{"classifier training": {3 * 14, 3}, "vae training": {2 * 6, 2}}
	for _, p := range doc.Phases {
		if w, ok := want[p.Name]; ok {
			if p.Steps != w[0] || p.Executions != w[1] {
				t.Errorf("%s: %d steps in %d executions, want %d in %d", p.Name, p.Steps, p.Executions, w[0], w[1])
			}
			if p.First <= 0 || p.First > p.Wall {
				t.Errorf("%s: first execution %g s of a phase of %g s; want a part of it", p.Name, p.First, p.Wall)
			}
			delete(want, p.Name)
		}
	}
	if len(want) > 0 {
		t.Errorf("no phases %v in the report", want)
	}
}

// -concurrent sets how many executions a call's searches run at the same time (each on a
// part of the rows), and -unit-rows how many rows one execution walks, whatever the
// backend's defaults; a negative number is refused.
func TestExecutionFlags(t *testing.T) {
	for _, tc := range []struct {
		flag, value string
		check       func(shards, unitRows int) bool // nil: refused
		want        string
	}{
		{"-concurrent", "1", func(shards, _ int) bool { return shards == 1 }, "3 rows in 1 shard"},
		{"-concurrent", "3", func(shards, _ int) bool { return shards == 3 }, "3 rows in 3 shards"},
		{"-concurrent", "-1", nil, ""},
		{"-unit-rows", "2", func(_, unitRows int) bool { return unitRows == 2 }, "units of 2 rows"},
		{"-unit-rows", "-2", nil, ""},
	} {
		t.Run(tc.flag+" "+tc.value, func(t *testing.T) {
			var stdout, stderr bytes.Buffer
			args := []string{"bench", "-rows", "3", "-steps", "5", "-epochs", "3", "-vae-epochs", "2", "-latent", "2", "-q", tc.flag, tc.value}
			err := run(context.Background(), args, &stdout, &stderr)
			if tc.check == nil {
				if err == nil || !strings.Contains(err.Error(), tc.flag+" "+tc.value) || !strings.Contains(err.Error(), "fix:") {
					t.Errorf("error %v, want one naming the flag and its fix", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("%v\n%s", err, stderr.String())
			}
			var doc struct {
				Batching quce.Batching `json:"batching"`
				Phases   []struct {
					Name   string `json:"name"`
					Shards int    `json:"shards"`
				} `json:"phases"`
			}
			if err := json.Unmarshal(stdout.Bytes(), &doc); err != nil {
				t.Fatal(err)
			}
			for _, p := range doc.Phases {
				if p.Name == "explain" && !tc.check(p.Shards, doc.Batching.UnitRows) {
					t.Errorf("%d shards, units of %d rows; want %s", p.Shards, doc.Batching.UnitRows, tc.want)
				}
			}
		})
	}
}
