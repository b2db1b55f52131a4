package quce_test

import (
	"testing"

	"github.com/quce-go/quce/quce"
)

// Executions counts every graph execution: with the step engine, one per optimisation step
// of a batch, so 10 more steps without early stopping are 10 more executions.
func TestExecutionsCounted(t *testing.T) {
	s := wbc(t)
	count := func(steps int) int64 {
		cfg := quce.DefaultConfig()
		cfg.Steps, cfg.EarlyStop = steps, 0
		before := s.Explainer.Executions()
		explain(t, cfg, s.XTest[:2])
		return s.Explainer.Executions() - before
	}
	short, long := count(10), count(20)
	if short < 10 || long-short != 10 {
		t.Errorf("executions: %d for 10 steps, %d for 20; want at least 10, and 10 more", short, long)
	}
	if s.Explainer.Engine() != "steps" {
		t.Errorf("engine %q, want steps", s.Explainer.Engine())
	}
}
