package quce

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/quce-go/quce/data"
)

// A path whose attribution misses much of the change in F, or splits it into parts that
// cancel far beyond it, fails, and a failed path reports no numbers: its counterfactual, attribution and the figures at its end are NaN, whatever
// was measured, so no output can print them as a result.
func TestPathResultWithdrawsUnreliableAttribution(t *testing.T) {
	in := inputs{scaler: &data.Scaler{Mean: []float64{1, 2}, Std: []float64{2, 3}}}
	cfg := Config{Threshold: 0.5}
	path := func(phi []float64, failure string) *Path {
		x0, xc := []float32{0, 0}, []float32{1, 1}
		r := &row{phi: phi, failure: failure, searched: 2, n: 2, sumUnc: 2, sumPaper: 2,
			kept: keptPoints{points: []pointStats{{x: x0, prob: 0.1}, {x: xc, step: 1, prob: 0.9}}}}
		r.last = r.kept.points[1]
		return in.pathResult(cfg, r, []float64{0.01, 0.02}, []float64{0.03, 0.04}, []float32{0.1, 0.2}, "fix: the test's fix")
	}
	for _, tc := range []struct {
		name    string
		phi     []float64
		failure string
		want    string // "" for a path that stands
	}{
		{"gap within the bound", []float64{0.5, 0.3}, "", ""},
		{"gap just inside the bound", []float64{0.5, 0.3 + 0.49}, "", ""},
		{"gap beyond the bound", []float64{0.5, 0.3 + 0.51}, "", "completeness gap is beyond ±0.5"},
		{"negative gap beyond the bound", []float64{-3, 0}, "", "completeness gap is beyond ±0.5"},
		{"non-finite attribution", []float64{math.Inf(1), 0}, "", "completeness gap is beyond ±0.5"},
		{"parts cancelling within the bound", []float64{5.3, -4.5}, "", ""},
		{"parts cancelling beyond the bound", []float64{5.5, -4.7}, "", "parts sum to more than 10 in absolute value"},
		{"a search that diverged", []float64{0.5, 0.3}, "diverged at step 3 (…); fix: …", "diverged at step 3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := path(tc.phi, tc.failure)
			if tc.want == "" {
				if p.Failure != "" || !p.Valid || math.IsNaN(p.CompletenessGap) {
					t.Fatalf("failure %q, valid %v, gap %v; want a valid path", p.Failure, p.Valid, p.CompletenessGap)
				}
				return
			}
			if !strings.Contains(p.Failure, tc.want) || !strings.Contains(p.Failure, "fix:") || p.Valid {
				t.Fatalf("failure %q, valid %v; want an invalid path failing with %q and a fix", p.Failure, p.Valid, tc.want)
			}
			for name, v := range map[string][]float64{"Counterfactual": p.Counterfactual, "CounterfactualOriginal": p.CounterfactualOriginal,
				"Attribution": p.Attribution, "AttributionPlus": p.AttributionPlus, "AttributionMinus": p.AttributionMinus, "Epsilon": p.Epsilon,
				"end figures": {p.ProbEnd, p.RelaxedProb, p.CompletenessGap, p.CFUncertainty, p.CFUncertaintyPaper, p.CFReconError, p.PathUncertainty, p.PathUncertaintyPaper}} {
				for _, x := range v {
					if !math.IsNaN(x) {
						t.Errorf("%s of a failed path: %v; want NaN", name, v)
						break
					}
				}
			}
			if len(p.Points) != 2 {
				t.Errorf("a failed path keeps %d points; want the 2 it walked", len(p.Points))
			}
		})
	}
}

// The expected attribution is over the paths that did not fail; with none, it is NaN.
func TestExpectationLeavesOutFailedPaths(t *testing.T) {
	nan := math.NaN()
	ok := func(a, b float64) *Path {
		return &Path{Attribution: []float64{a, b}, AttributionPlus: []float64{0, 0}, AttributionMinus: []float64{0, 0}, ProbEnd: a + b}
	}
	failed := &Path{Failure: "diverged", Attribution: []float64{nan, nan}, AttributionPlus: []float64{nan, nan}, AttributionMinus: []float64{nan, nan}, ProbEnd: nan}
	x := &Explanation{Paths: []*Path{failed, ok(0.2, 0.4), ok(0.4, 0.2)}}
	x.expectation()
	if math.Abs(x.Attribution[0]-0.3) > 1e-12 || math.Abs(x.Attribution[1]-0.3) > 1e-12 || math.Abs(x.CompletenessGap) > 1e-12 || len(x.Completed()) != 2 {
		t.Errorf("attribution %v, gap %v over %d paths; want [0.3 0.3], 0 over the 2 that did not fail", x.Attribution, x.CompletenessGap, len(x.Completed()))
	}
	all := &Explanation{Paths: []*Path{failed}}
	all.expectation()
	if !math.IsNaN(all.Attribution[0]) || !math.IsNaN(all.CompletenessGap) {
		t.Errorf("every path failed: attribution %v, gap %v; want NaN", all.Attribution, all.CompletenessGap)
	}
	if err := NoneSucceeded([]*Explanation{all}); err == nil || !strings.Contains(err.Error(), "diverged") {
		t.Errorf("NoneSucceeded with every path failed: %v; want an error naming the failure", err)
	}
	if err := NoneSucceeded([]*Explanation{all, {Paths: []*Path{ok(0.1, 0.1)}}}); err != nil {
		t.Errorf("NoneSucceeded with one success: %v", err)
	}
}

// A failed candidate of automatic λ is never chosen over one that did not fail, and its NaN
// figures are written as null.
func TestFailedCandidate(t *testing.T) {
	nan := math.NaN()
	cands := []Candidate{{Distance: nan, Uncertainty: nan, ProbEnd: nan, Failure: "diverged"}, {Distance: 3, Uncertainty: 9, ProbEnd: 0.2}}
	if k, _ := chooseCandidate(cands, 5, 0.5); k != 1 {
		t.Errorf("chose candidate %d; want 1, the one whose search did not fail", k)
	}
	b, err := json.Marshal(cands)
	if err != nil {
		t.Fatal(err)
	}
	if want := `"distance":null,"uncertainty":null,"prob_end":null`; !strings.Contains(string(b), want) || !strings.Contains(string(b), `"failure":"diverged"`) {
		t.Errorf("JSON %s lacks %s and the failure", b, want)
	}
}

// The machine's memory is read from /proc/meminfo and the cgroup's limit.
func TestAvailableMemoryReading(t *testing.T) {
	if v, ok := memAvailable(strings.NewReader("MemTotal:       32000000 kB\nMemAvailable:   20000000 kB\n")); !ok || v != 20000000*1024 {
		t.Errorf("MemAvailable: %d, %v", v, ok)
	}
	if _, ok := memAvailable(strings.NewReader("MemTotal: 1 kB\n")); ok {
		t.Error("no MemAvailable line: read one")
	}
	files := func(m map[string]string) func(string) ([]byte, error) {
		return func(name string) ([]byte, error) {
			if s, ok := m[name]; ok {
				return []byte(s), nil
			}
			return nil, errors.New("no such file")
		}
	}
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  int64
		ok    bool
	}{
		{"limit of the process's cgroup", map[string]string{"/proc/self/cgroup": "0::/job\n", "/sys/fs/cgroup/job/memory.max": "1000\n", "/sys/fs/cgroup/job/memory.current": "300\n"}, 700, true},
		{"root cgroup", map[string]string{"/sys/fs/cgroup/memory.max": "5000\n", "/sys/fs/cgroup/memory.current": "1000\n"}, 4000, true},
		{"no limit", map[string]string{"/sys/fs/cgroup/memory.max": "max\n"}, 0, false},
		{"no cgroup files", nil, 0, false},
	} {
		if v, ok := cgroupRoom(files(tc.files)); v != tc.want || ok != tc.ok {
			t.Errorf("%s: %d, %v; want %d, %v", tc.name, v, ok, tc.want, tc.ok)
		}
	}
	if AvailableMemory() <= 0 {
		t.Error("AvailableMemory is not positive")
	}
}

// Where the replay engine runs a job's batches (up to replayMaxRows rows a shard), the memory
// estimate counts its executions' per-step outputs, three times over: 616 bytes a row and
// step with 30 inputs and K = 3, a quarter of a 1000-step search an execution for 100 rows.
func TestMemoryCountsReplayOutputs(t *testing.T) {
	cfg := DefaultConfig()
	cfg.K, cfg.Paths = 3, 1
	for _, tc := range []struct {
		rows   int
		replay bool
		want   int64
	}{
		{200, true, 3 * 2 * 250 * 100 * 616}, // two shards of 100 rows, four executions each
		{1, true, 3 * 1000 * 616},            // one row: the whole search in one execution
		{201, true, 0},                       // 101 rows a shard: the loop engine's
		{200, false, 0},                      // another engine chosen
	} {
		mm := memoryModel{inputs: 30, columns: 30, shards: 2, unitRows: 2048}
		without, _, _, _, _, _ := mm.need(cfg, tc.rows, 1)
		mm.replay = tc.replay
		with, _, _, _, _, _ := mm.need(cfg, tc.rows, 1)
		if got := with - without; got != tc.want {
			t.Errorf("%d rows, replay %v: the estimate counts %d bytes for the replay's outputs, want %d", tc.rows, tc.replay, got, tc.want)
		}
	}
}

// A job's size says the searches of its first search and the memory that the check holds to
// the limit: a limit of that memory lets it run, one byte less refuses it.
func TestJobSize(t *testing.T) {
	fixed, auto := DefaultConfig(), DefaultConfig()
	fixed.Paths = 20000
	auto.Paths, auto.Auto = 3, DefaultAuto()
	for _, tc := range []struct {
		name string
		cfg  Config
		want string
	}{
		{"fixed λ", fixed, "40 000 searches (2 instances × 20 000 paths) of 1000 steps"},
		{"automatic λ", auto, "36 searches (2 instances × 3 paths × 6 candidates of automatic λ) of 350 steps, then searches of fewer rows that refine them"},
	} {
		mm := memoryModel{inputs: 30, columns: 30, shards: 2, unitRows: 2048}
		s := mm.size(tc.cfg, 2)
		if got := s.String(); !strings.HasPrefix(got, tc.want+", about ") {
			t.Errorf("%s: %q, want it to begin %q", tc.name, got, tc.want)
		}
		steps := tc.cfg
		steps.Steps = s.Steps // the check is of the first search's steps (search)
		for limit, refused := range map[int64]bool{s.Memory: false, s.Memory - 1: true} {
			mm.limit = limit
			if err := mm.check(steps, 2, s.Candidates); (err != nil) != refused {
				t.Errorf("%s: a limit of %d bytes for %d needed: %v", tc.name, limit, s.Memory, err)
			}
		}
	}
}
