package quce_test

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// open is a query for x without any bound, so that nothing but the search stops it.
func open(x []float64) quce.Query {
	q := quce.NewQuery(x)
	q.Lower, q.Upper = make([]float64, len(x)), make([]float64, len(x))
	for f := range x {
		q.Lower[f], q.Upper[f] = math.Inf(-1), math.Inf(1)
	}
	return q
}

// A search with an absurd learning rate is reported as diverged, with the step and the fix,
// and none of its numbers is reported as a result: a failure is never a success.
func TestDivergedSearchReportsNoNumbers(t *testing.T) {
	s := wbc(t)
	for _, tc := range []struct {
		name string
		lr   float64
	}{{"learning rate 1e9", 1e9}, {"learning rate 1e3", 1e3}} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := quce.DefaultConfig()
			cfg.LearningRate, cfg.Steps, cfg.Paths = tc.lr, 100, 2
			ex, err := s.Explainer.Explain(context.Background(), cfg, []quce.Query{open(s.XTest[0]), open(s.XTest[1])})
			if err != nil {
				t.Fatal(err)
			}
			for i, e := range ex {
				for k, p := range e.Paths {
					if p.Valid || !strings.Contains(p.Failure, "diverged at step") || !strings.Contains(p.Failure, "-lr") || !strings.Contains(p.Failure, "such as 0.01") {
						t.Fatalf("instance %d path %d: valid %v, failure %q; want a divergence naming -lr and a smaller value", i, k, p.Valid, p.Failure)
					}
					for _, v := range [][]float64{p.Counterfactual, p.Attribution, {p.ProbEnd, p.CompletenessGap, p.CFUncertainty}} {
						for _, x := range v {
							if !math.IsNaN(x) {
								t.Fatalf("instance %d path %d: a number %v is reported for a diverged search", i, k, x)
							}
						}
					}
					for _, pt := range p.Points {
						for f, x := range pt {
							if !(math.Abs(x-e.X[f]) <= 1e3) {
								t.Fatalf("instance %d path %d: a kept point holds %v, beyond where the search counts as diverged", i, k, x)
							}
						}
					}
				}
				if !math.IsNaN(e.CompletenessGap) || !math.IsNaN(e.Attribution[0]) {
					t.Errorf("instance %d: expected attribution %v, gap %v over no path that did not fail; want NaN", i, e.Attribution[0], e.CompletenessGap)
				}
			}
			if err := quce.NoneSucceeded(ex); err == nil || !strings.Contains(err.Error(), "-lr") {
				t.Errorf("NoneSucceeded: %v; want an error with the fix", err)
			}
		})
	}
}

// A job that needs more memory than there is is refused before it starts, with its size and
// the flags that shrink it; a normal one runs.
func TestMemoryEstimateRefusesOversizedJob(t *testing.T) {
	s := wbc(t)
	auto := quce.DefaultConfig()
	auto.Auto = quce.DefaultAuto()
	var err error
	if auto, err = s.WithPlausibility(auto, 0.9); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		cfg   quce.Config
		paths int
		want  []string // nil: the job runs
	}{
		{"100000 paths", quce.DefaultConfig(), 100000, []string{"needs about", "2 instances × 100000 paths × 202 kept points of 30 inputs", "1.0 GB are available", "-paths; at most", "-n"}},
		{"automatic λ multiplies the rows", auto, 3000, []string{"× 6 candidates of automatic λ (-lambdas auto)", "-auto-grid"}},
		// -k and -samples grow what each step holds, not the rows: the fix names them.
		{"-k multiplies each step", withK(quce.DefaultConfig(), 100000000), 1, []string{"each step holds", "-k 100000000 points per segment", "-k; at most"}},
		{"-samples multiplies each step", withSamples(quce.DefaultConfig(), 150000), 1, []string{"each step holds", "-samples 150000 latent samples", "-samples; at most"}},
		{"a normal job", quce.DefaultConfig(), 2, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tc.cfg
			cfg.Paths = tc.paths
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			// A job the estimate wrongly let through stops at its first step.
			e := with(t, s.Explainer, func(st *quce.Settings) { st.MemoryLimit, st.Progress = 1<<30, func(int, int) { cancel() } })
			_, err := e.Explain(ctx, cfg, queries(s.XTest[:2]))
			if tc.want == nil {
				if !errors.Is(err, context.Canceled) {
					t.Fatalf("a normal job: %v; want it to start (and be cancelled at its first step)", err)
				}
				return
			}
			if err == nil || errors.Is(err, context.Canceled) {
				t.Fatalf("error %v; want the job refused before it starts", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}

func withK(c quce.Config, k int) quce.Config             { c.K = k; return c }
func withSamples(c quce.Config, samples int) quce.Config { c.Samples = samples; return c }

// A cancelled context stops every phase of a job: the search of many paths (walked in units),
// automatic λ with sparsity, and what follows the search (the resets, the ± integrals).
// Cancelling from the progress callback makes the point of cancellation an event, not a race.
func TestCancelStopsEveryPhase(t *testing.T) {
	s := wbc(t)
	sparse := quce.DefaultConfig()
	sparse.Auto, sparse.Sparse = quce.DefaultAuto(), true
	var err error
	if sparse, err = s.WithPlausibility(sparse, 0.9); err != nil {
		t.Fatal(err)
	}
	short := func(c quce.Config, paths int) quce.Config {
		c.Steps, c.Paths = 5, paths
		return c
	}
	for _, tc := range []struct {
		name   string
		cfg    quce.Config
		cancel func(step, steps int) bool // when the progress callback cancels; nil: before the call
	}{
		{"before the call, a million paths", short(quce.DefaultConfig(), 1000000), nil},
		// 4200 rows: more than one unit of rows per execution (see Batching.UnitRows).
		// The first report: after the first step on the step engine, after the first
		// execution's steps on the loop engine.
		{"at the first report of 2100 paths", short(quce.DefaultConfig(), 2100), func(int, int) bool { return true }},
		{"at the first report, automatic λ and sparsity", short(sparse, 1), func(int, int) bool { return true }},
		{"after the last step, automatic λ and sparsity", short(sparse, 1), func(step, steps int) bool { return step == steps }},
		{"after the last step of 2100 paths", short(quce.DefaultConfig(), 2100), func(step, steps int) bool { return step == steps }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			e := s.Explainer
			if tc.cancel == nil {
				cancel()
			} else {
				e = with(t, e, func(st *quce.Settings) {
					st.Progress = func(step, steps int) {
						if tc.cancel(step, steps) {
							cancel()
						}
					}
				})
			}
			ex, err := e.Explain(ctx, tc.cfg, queries(s.XTest[:2]))
			if !errors.Is(err, context.Canceled) || ex != nil {
				t.Errorf("%d explanations, error %v; want none and context.Canceled", len(ex), err)
			}
		})
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := s.Explainer.ExplainPaths(ctx, quce.DefaultConfig(), queries(s.XTest[:1]), [][][]float64{{s.XTest[0]}}); !errors.Is(err, context.Canceled) {
		t.Errorf("ExplainPaths with a cancelled context: %v", err)
	}
}

// A job of more rows than one execution walks (Batching.UnitRows, 2048 on a CPU) is walked in units, one
// after another, so that each step is short and a cancellation is noticed promptly: the
// progress counts every unit's steps. Rows are independent, so a path's result is the same
// as in a small job.
func TestLargeJobWalkedInUnits(t *testing.T) {
	s := wbc(t)
	cfg := quce.DefaultConfig()
	cfg.Steps, cfg.Paths = 3, 2100 // 4200 rows: three units
	total := 0
	e := with(t, s.Explainer, func(st *quce.Settings) { st.Shards, st.Progress = 1, func(_, steps int) { total = steps } })
	ex, _ := explainWith(t, e, cfg, s.XTest[:2])
	if want := 3 * cfg.Steps; total != want {
		t.Errorf("progress counted %d steps; want %d (3 units of %d steps)", total, want, cfg.Steps)
	}
	small := cfg
	small.Paths = 1
	alone := explain(t, small, s.XTest[:2])
	for i := range ex {
		if d := maxDiff(ex[i].Path0().Counterfactual, alone[i].Path0().Counterfactual); d > 1e-6 {
			t.Errorf("instance %d: path 1 differs by %.2e walked in units", i, d)
		}
	}
}

// Inside a box (German credit's discrete columns keep to their observed ranges), a search
// with an absurd learning rate jumps from corner to corner instead of running off: its
// attribution, parts of ±40 that cancel to near the change in F, is reported as unreliable,
// never as a result.
func TestSearchInsideBoundsWithAbsurdStepsFails(t *testing.T) {
	s := pipelinetest.German(t)
	cfg := quce.DefaultConfig()
	cfg.LearningRate, cfg.Steps = 1e9, 200
	ex, err := s.Explainer.Explain(context.Background(), cfg, queries(s.XTest[:8]))
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range ex {
		p := e.Path0()
		if p.Failure == "" || p.Valid || !strings.Contains(p.Failure, "-lr") {
			t.Errorf("instance %d: valid %v, failure %q, attribution %v; want a failure with the -lr fix", i, p.Valid, p.Failure, e.Attribution)
		}
		sum := 0.0
		for _, v := range e.Attribution {
			sum += math.Abs(v)
		}
		if !math.IsNaN(sum) {
			t.Errorf("instance %d: an attribution summing to %v in absolute value is reported", i, sum)
		}
	}
}
