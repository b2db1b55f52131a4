package quce_test

import (
	"sync"
	"testing"

	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/quce"
)

// Executions counts every graph execution. The step engine runs one per optimisation step
// of a batch, so 10 more steps without early stopping are 10 more executions; the loop
// engine runs a batch's whole search in one, so a 1000-step search costs what a 10-step one
// does: the first points, the loop, the last point, and the call's own few (the
// predictions before and the measures after). Each shard of the call's rows (one a CPU
// core, see Stats.Shards) is a batch of its own.
func TestExecutionsCounted(t *testing.T) {
	s := wbc(t)
	var last quce.Stats
	count := func(engine quce.EngineChoice, steps int) int64 {
		cfg := quce.DefaultConfig()
		cfg.Steps, cfg.EarlyStop = steps, 0
		_, last = explainWith(t, with(t, s.Explainer, func(st *quce.Settings) { st.Engine = engine }), cfg, s.XTest[:2])
		return last.Executions
	}
	short, long := count(quce.EngineSteps, 10), count(quce.EngineSteps, 20)
	shards := int64(last.Shards)
	if shards < 1 || shards > 2 {
		t.Errorf("the 2 rows searched in %d shards, want 1 or 2", shards)
	}
	if short < 10 || long-short != 10*shards {
		t.Errorf("step engine: %d executions for 10 steps, %d for 20 in %d shards; want at least 10, and 10 more a shard", short, long, shards)
	}
	if last.Engine != "steps" {
		t.Errorf("engine %q, want steps", last.Engine)
	}
	modeltest.NeedLoops(t)
	short, long = count(quce.EngineLoop, 10), count(quce.EngineLoop, 1000)
	if long != short || long > 5+3*shards {
		t.Errorf("loop engine: %d executions for 10 steps, %d for 1000 in %d shards; want the same, at most 5 + 3 a shard (3 for a shard's search)", short, long, shards)
	}
	if last.Engine != "loop" {
		t.Errorf("engine %q, want loop", last.Engine)
	}
}

// The resets of Config.Sparse are walked in pieces whose segments are all known before any
// is measured, so each round of trial resets (one column per row) is one execution for
// every row and piece, not one per piece: the resets cost at most one execution per column.
func TestResetsOneExecutionPerRound(t *testing.T) {
	s := wbc(t)
	cfg := quce.DefaultConfig()
	cfg.Steps, cfg.Sparse = 200, true
	cfg, err := s.WithPlausibility(cfg, quce.DefaultPlausibilityQuantile)
	if err != nil {
		t.Fatal(err)
	}
	count := func(sparse bool) (int64, int) {
		cfg.Sparse = sparse
		ex, st := explainWith(t, s.Explainer, cfg, s.XTest[:4])
		resets := 0
		for _, e := range ex {
			resets += len(e.Path0().Resets)
		}
		return st.Executions, resets
	}
	plain, _ := count(false)
	sparse, resets := count(true)
	j := int64(len(s.Explainer.Features()))
	if resets == 0 || sparse-plain < 2 || sparse-plain > j+1 {
		t.Errorf("%d resets kept; %d executions without -sparse, %d with; want some resets, and at most %d more executions (one per column tried)",
			resets, plain, sparse, j+1)
	}
}

// Each program compiles once, at its first execution, and says so (Settings.OnCompile,
// Stats.Compiled): a batch size seen for the first time compiles its programs, the same
// call again compiles none.
func TestCompilesCountedOnce(t *testing.T) {
	modeltest.NeedLoops(t)
	s := wbc(t)
	seen := map[string]int{}
	var mu sync.Mutex // the shards compile at the same time
	e := with(t, s.Explainer, func(st *quce.Settings) {
		st.Engine = quce.EngineLoop
		st.OnCompile = func(program string, rows int, seconds float64) {
			mu.Lock()
			defer mu.Unlock()
			if seconds < 0 {
				t.Errorf("%s program: compiled in %g s", program, seconds)
			}
			seen[program] = max(seen[program], rows)
		}
	})
	cfg := quce.DefaultConfig()
	cfg.Steps, cfg.Paths = 30, 7 // 7 rows a shard or more: a batch size no other test compiles
	_, first := explainWith(t, e, cfg, s.XTest[:1])
	if first.Compiled == 0 || first.CompileSeconds <= 0 || seen["loop"] == 0 {
		t.Errorf("a new batch size compiled %d programs in %g s (seen %v); want some, a loop program among them, and some time", first.Compiled, first.CompileSeconds, seen)
	}
	if _, again := explainWith(t, e, cfg, s.XTest[:1]); again.Compiled != 0 {
		t.Errorf("the same call again compiled %d programs; want none", again.Compiled)
	}
	// An explainer With other settings shares the programs, unless it takes its gradients
	// another way (Autodiff), which the programs are built for.
	progress := with(t, e, func(st *quce.Settings) { st.Progress = func(int, int) {} })
	if _, st := explainWith(t, progress, cfg, s.XTest[:1]); st.Compiled != 0 {
		t.Errorf("With a progress callback, the same call compiled %d programs; want none (shared)", st.Compiled)
	}
	autodiff := with(t, e, func(st *quce.Settings) { st.Autodiff = true })
	if _, st := explainWith(t, autodiff, cfg, s.XTest[:1]); st.Compiled == 0 {
		t.Error("With Autodiff, the same call compiled no program; want its own")
	}
}
