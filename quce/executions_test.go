package quce_test

import (
	"testing"

	"github.com/quce-go/quce/quce"
)

// Executions counts every graph execution. The step engine runs one per optimisation step
// of a batch, so 10 more steps without early stopping are 10 more executions; the loop
// engine runs a batch's whole search in one, so a 1000-step search costs what a 10-step one
// does: the first points, the loop, the last point, and the call's own few (the
// predictions before and the measures after).
func TestExecutionsCounted(t *testing.T) {
	s := wbc(t)
	was := s.Explainer.EngineChoice
	t.Cleanup(func() { s.Explainer.EngineChoice = was })
	count := func(steps int) int64 {
		cfg := quce.DefaultConfig()
		cfg.Steps, cfg.EarlyStop = steps, 0
		before := s.Explainer.Executions()
		explain(t, cfg, s.XTest[:2])
		return s.Explainer.Executions() - before
	}
	s.Explainer.EngineChoice = quce.EngineSteps
	short, long := count(10), count(20)
	if short < 10 || long-short != 10 {
		t.Errorf("step engine: %d executions for 10 steps, %d for 20; want at least 10, and 10 more", short, long)
	}
	if s.Explainer.Engine() != "steps" {
		t.Errorf("engine %q, want steps", s.Explainer.Engine())
	}
	s.Explainer.EngineChoice = quce.EngineLoop
	short, long = count(10), count(1000)
	if long != short || long > 8 {
		t.Errorf("loop engine: %d executions for 10 steps, %d for 1000; want the same, at most 8 (3 for the search)", short, long)
	}
	if s.Explainer.Engine() != "loop" {
		t.Errorf("engine %q, want loop", s.Explainer.Engine())
	}
}
