package quce_test

import (
	"context"
	"math"
	"reflect"
	"strings"
	"testing"

	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/pipeline"
	"github.com/quce-go/quce/pipeline/pipelinetest"
	"github.com/quce-go/quce/quce"
)

// The loop and replay engines walk exactly the paths the step engine walks: the same points
// kept, the same attribution, uncertainty sums, stops and failures, for every setting that
// changes the walk (rules, optimisers, early stopping, offset starts, kept points).
func TestLoopEngineMatchesStepEngine(t *testing.T) {
	modeltest.NeedLoops(t)
	modeltest.NeedRowsIndependent(t) // the engines' batches differ as rows stop
	s := wbc(t)
	base := quce.DefaultConfig()
	base.Steps = 300
	auto := autoSparse(t, s, base)
	// want checks that the setting did what it is there for (so the comparison covers it).
	for _, tc := range []struct {
		name string
		set  func(*quce.Config)
		want func(*quce.Path) bool
	}{
		{"defaults", func(*quce.Config) {}, func(p *quce.Path) bool { return p.Valid }},
		{"early stop", func(c *quce.Config) { c.EarlyStop = 5 }, func(p *quce.Path) bool { return p.Steps < base.Steps }},
		{"simpson, sgd", func(c *quce.Config) { c.Rule, c.Optimizer = quce.Simpson, quce.SGD }, nil},
		{"riemann, gd, every point", func(c *quce.Config) { c.Rule, c.Optimizer, c.PathPoints = quce.Riemann, quce.GD, 0 },
			func(p *quce.Path) bool { return len(p.Points) == p.Steps+1 }},
		{"three paths", func(c *quce.Config) { c.Paths = 3 }, nil},
		{"diverging (no bounds)", func(c *quce.Config) { c.LearningRate = 1e3; c.Steps = 40 },
			func(p *quce.Path) bool { return strings.Contains(p.Failure, "diverged") }},
		{"non-finite (no bounds)", func(c *quce.Config) { c.LearningRate = 1e39; c.Steps = 40 },
			func(p *quce.Path) bool { return strings.Contains(p.Failure, "non-finite") }},
		// Candidates of several λ as rows of one batch, refinement rounds, pull-back, resets.
		{"automatic λ, sparse", func(c *quce.Config) { *c = auto }, func(p *quce.Path) bool { return p.Valid && len(p.Resets) > 0 }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := base
			tc.set(&cfg)
			rows := s.XTest[:12]
			qs := queries(rows)
			if strings.Contains(tc.name, "no bounds") {
				for i, x := range rows {
					qs[i] = open(x)
				}
			}
			run := func(engine quce.EngineChoice) []*quce.Explanation {
				e := with(t, s.Explainer, func(st *quce.Settings) { st.Engine = engine })
				ex, st, err := e.ExplainWithStats(context.Background(), cfg, qs)
				if err != nil {
					t.Fatal(err)
				}
				if st.Engine != string(engine) {
					t.Fatalf("engine %q, want %q", st.Engine, engine)
				}
				t.Logf("%s: %d executions", engine, st.Executions)
				return ex
			}
			steps := run(quce.EngineSteps)
			for _, engine := range []quce.EngineChoice{quce.EngineLoop, quce.EngineReplay} {
				other := run(engine)
				seen := tc.want == nil
				for i := range rows {
					compareExplanations(t, i, steps[i], other[i])
					seen = seen || tc.want(other[i].Path0())
				}
				if !seen {
					t.Errorf("%s: no row shows what %q is for", engine, tc.name)
				}
			}
		})
	}
}

// autoSparse is base with automatic λ and -sparse, its bound on L_ε taken from s's training
// rows.
func autoSparse(t *testing.T, s *pipeline.Setup, base quce.Config) quce.Config {
	t.Helper()
	base.Auto, base.Sparse, base.Margin = quce.DefaultAuto(), true, quce.DefaultMargin
	cfg, err := s.WithPlausibility(base, quce.DefaultPlausibilityQuantile)
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}

func compareExplanations(t *testing.T, i int, a, b *quce.Explanation) {
	t.Helper()
	if len(a.Paths) != len(b.Paths) {
		t.Fatalf("row %d: %d paths vs %d", i, len(a.Paths), len(b.Paths))
	}
	for k := range a.Paths {
		pa, pb := a.Paths[k], b.Paths[k]
		if pa.Failure != pb.Failure {
			t.Errorf("row %d path %d: failure %q vs %q", i, k, pa.Failure, pb.Failure)
			continue
		}
		if pa.Steps != pb.Steps || len(pa.Points) != len(pb.Points) {
			t.Errorf("row %d path %d: %d steps, %d points vs %d steps, %d points", i, k, pa.Steps, len(pa.Points), pb.Steps, len(pb.Points))
			continue
		}
		if !reflect.DeepEqual(pa.Points, pb.Points) {
			t.Errorf("row %d path %d: kept points differ (max %.2e)", i, k, maxPointDiff(pa.Points, pb.Points))
		}
		if !reflect.DeepEqual(pa.Step, pb.Step) || !reflect.DeepEqual(pa.Probability, pb.Probability) ||
			!reflect.DeepEqual(pa.Uncertainty, pb.Uncertainty) || !reflect.DeepEqual(pa.UncertaintyPaper, pb.UncertaintyPaper) {
			t.Errorf("row %d path %d: the kept points' steps or measures differ", i, k)
		}
		if pa.Failure != "" {
			continue // its figures are NaN
		}
		if !reflect.DeepEqual(pa.Attribution, pb.Attribution) {
			t.Errorf("row %d path %d: attribution differs by %.2e", i, k, maxDiff(pa.Attribution, pb.Attribution))
		}
		if !reflect.DeepEqual(pa.Counterfactual, pb.Counterfactual) {
			t.Errorf("row %d path %d: counterfactual differs by %.2e", i, k, maxDiff(pa.Counterfactual, pb.Counterfactual))
		}
	}
}

func maxPointDiff(a, b [][]float64) float64 {
	d := 0.0
	for i := range min(len(a), len(b)) {
		d = math.Max(d, maxDiff(a[i], b[i]))
	}
	return d
}

// The engines walk the same paths for users' own models too: a GoMLX model and the same
// network exported to ONNX, differentiated by GoMLX's autodiff inside the loop.
func TestLoopEngineMatchesStepEngineOnModelKinds(t *testing.T) {
	modeltest.NeedLoops(t)
	for _, kind := range []struct {
		name string
		onnx bool
	}{{"gomlx", false}, {"onnx", true}} {
		t.Run(kind.name, func(t *testing.T) {
			s := pipelinetest.WBCStd(kind.onnx)(t)
			cfg := quce.DefaultConfig()
			cfg.Steps = 200
			qs := queries(s.XTest[:6])
			run := func(choice quce.EngineChoice) []*quce.Explanation {
				e := with(t, s.Explainer, func(st *quce.Settings) { st.Engine = choice })
				ex, st, err := e.ExplainWithStats(context.Background(), cfg, qs)
				if err != nil {
					t.Fatal(err)
				}
				if got := st.Engine; got != string(choice) {
					t.Fatalf("engine %q, want %q", got, choice)
				}
				return ex
			}
			steps := run(quce.EngineSteps)
			for _, engine := range []quce.EngineChoice{quce.EngineLoop, quce.EngineReplay} {
				other := run(engine)
				for i := range qs {
					compareExplanations(t, i, steps[i], other[i])
				}
			}
		})
	}
}

// How a search is cut into executions (Settings.Batching: rows per execution, steps per
// loop execution) changes the number of executions, never a path: units of 10 rows and
// executions of 45 steps (the last one shorter, on the same program) walk what one
// execution of every row and step walks, as a GPU's sizes have it.
func TestBatchingChangesNoResult(t *testing.T) {
	modeltest.NeedLoops(t)
	modeltest.NeedRowsIndependent(t)
	s := wbc(t)
	auto := autoSparse(t, s, quce.DefaultConfig())
	for _, tc := range []struct {
		name string
		set  func(*quce.Config)
	}{
		{"defaults", func(*quce.Config) {}},
		{"early stop", func(c *quce.Config) { c.EarlyStop = 5 }},
		// Candidates of several λ, resets: measurements of odd numbers of segments.
		{"automatic λ, sparse", func(c *quce.Config) { *c = auto }},
	} {
		cfg := quce.DefaultConfig()
		tc.set(&cfg)
		cfg.Steps, cfg.Paths = 300, 2
		early := tc.name
		qs := queries(s.XTest[:12])
		run := func(b quce.Batching) ([]*quce.Explanation, int64) {
			e := with(t, s.Explainer, func(st *quce.Settings) { st.Engine, st.Batching = quce.EngineLoop, b })
			ex, st, err := e.ExplainWithStats(context.Background(), cfg, qs)
			if err != nil {
				t.Fatal(err)
			}
			return ex, st.Executions
		}
		small, nSmall := run(quce.Batching{UnitRows: 10, LoopRowSteps: 10 * 45})
		big, nBig := run(quce.AcceleratorBatching)
		padded, _ := run(quce.Batching{UnitRows: 10, PadRows: true}) // units of 10, 10 and 4 rows padded to 16, 16 and 4
		t.Logf("%s: %d executions in units of 10 rows and 45 steps, %d in one", early, nSmall, nBig)
		if nBig >= nSmall {
			t.Errorf("%s: %d executions with AcceleratorBatching, not fewer than %d", early, nBig, nSmall)
		}
		for _, other := range [][]*quce.Explanation{big, padded} {
			for i := range qs {
				compareExplanations(t, i, small[i], other[i])
				for k, pa := range small[i].Paths {
					pb := other[i].Paths[k]
					if d := max(maxDiff(pa.AttributionPlus, pb.AttributionPlus), maxDiff(pa.AttributionMinus, pb.AttributionMinus)); d != 0 {
						t.Errorf("row %d path %d: ± attribution differs by %.2e", i, k, d)
					}
				}
			}
		}
	}
}

// With Batching.PadRows, batches of nearby sizes run the same compiled programs: a call of
// 7 rows after one of 5 compiles nothing (both are padded to 8), where without it the
// second compiles its own.
func TestPadRowsSharesPrograms(t *testing.T) {
	modeltest.NeedLoops(t)
	s := wbc(t)
	cfg := quce.DefaultConfig()
	cfg.Steps = 20
	var e *quce.Explainer
	compiled := func(rows int) int64 {
		_, st := explainWith(t, e, cfg, s.XTest[40:40+rows])
		return st.Compiled
	}
	for _, tc := range []struct {
		pad         bool
		first, then int // rows of the two calls (sizes no other test compiles)
		wantSecond  bool
	}{{false, 13, 11, true}, {true, 21, 19, false}} {
		e = with(t, s.Explainer, func(st *quce.Settings) {
			st.Engine, st.Shards, st.Batching = quce.EngineLoop, 1, quce.Batching{PadRows: tc.pad}
		})
		compiled(tc.first)
		if second := compiled(tc.then); (second > 0) != tc.wantSecond {
			t.Errorf("PadRows %v: %d rows after %d compiled %d programs; want some: %v", tc.pad, tc.then, tc.first, second, tc.wantSecond)
		}
	}
}
