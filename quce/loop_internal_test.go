package quce

import (
	"maps"
	"strings"
	"testing"

	"github.com/gomlx/compute"

	"github.com/quce-go/quce/internal/modeltest"
)

// noWhile is a backend that cannot run loops: it runs no closures (as ONNX Runtime).
type noWhile struct{ compute.Backend }

func (b noWhile) Capabilities() compute.Capabilities {
	caps := b.Backend.Capabilities()
	caps.Functions = false
	return caps
}

// unlistedWhile runs loops but leaves While out of its operations, as go-xla v0.4.5 does.
type unlistedWhile struct{ compute.Backend }

func (b unlistedWhile) Capabilities() compute.Capabilities {
	caps := b.Backend.Capabilities()
	caps.Operations = maps.Clone(caps.Operations)
	delete(caps.Operations, compute.OpTypeWhile)
	return caps
}

// The loop engine runs wherever it can unless the steps are chosen; the step engine where
// the backend has no While or the objective samples latent codes; a loop asked for where it
// cannot run is an error. The replay engine, where chosen, runs batches of up to
// replayMaxRows rows where it can, larger ones on the loop, and the steps where neither can.
func TestEngineChoice(t *testing.T) {
	// The choice's own logic, on a backend that runs loops (the pure-Go one, whatever the
	// tests run on) and stand-ins for others.
	b := modeltest.GoBackend(t)
	sampled := DefaultConfig()
	sampled.Samples = 2
	for _, tc := range []struct {
		name   string
		choice EngineChoice
		b      compute.Backend
		cfg    Config
		want   string // the engine, or a part of the error
	}{
		{"auto", EngineAuto, b, DefaultConfig(), "loop"},
		{"auto, a backend without While", EngineAuto, noWhile{b}, DefaultConfig(), "steps"},
		{"auto, a backend that runs While without listing it (XLA)", EngineAuto, unlistedWhile{b}, DefaultConfig(), "loop"},
		{"auto, sampled latent codes", EngineAuto, b, sampled, "steps"},
		{"steps", EngineSteps, b, DefaultConfig(), "steps"},
		{"loop", EngineLoop, b, DefaultConfig(), "loop"},
		{"loop, a backend without While", EngineLoop, noWhile{b}, DefaultConfig(), "lacks While"},
		{"loop, sampled latent codes", EngineLoop, b, sampled, "Config.Samples = 2 is not allowed"},
		{"replay", EngineReplay, b, DefaultConfig(), "replay"},
		{"replay, a batch over replayMaxRows", EngineReplay, b, DefaultConfig(), "loop"},
		{"replay, a batch over replayMaxRows, a backend without While", EngineReplay, noWhile{b}, DefaultConfig(), "steps"},
		{"replay, a backend without While", EngineReplay, noWhile{b}, DefaultConfig(), "steps"},
		{"replay, sampled latent codes", EngineReplay, b, sampled, "steps"},
	} {
		rows := 1
		if strings.Contains(tc.name, "over replayMaxRows") {
			rows = replayMaxRows + 1
		}
		w, err := engineFor(tc.choice, programs{backend: tc.b}, tc.cfg, rows)
		got := ""
		if err != nil {
			got = err.Error()
		} else {
			got = w.name()
		}
		if !strings.Contains(got, tc.want) {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// A replay search runs in at most replayStretches executions of at most replayMaxOutBytes of
// outputs each while they fit, one execution where a whole search is under
// replayMinOutBytes, and more executions (never more bytes) where four would not fit.
func TestReplayStretch(t *testing.T) {
	const wbc = 4 * 154 // the built-in W-BC networks' per-step outputs with K = 3, bytes a row
	for _, tc := range []struct {
		steps, rows, rowStepBytes int
		executions                int
	}{
		{1000, 1, wbc, 1},
		{1000, 3, wbc, 1},
		{1000, 5, wbc, 2},
		{1000, 25, wbc, 4},
		{1000, 100, wbc, 4},
		{5000, 100, wbc, 19},     // 272 steps an execution: the ceiling
		{1000, 100, 4 * 504, 13}, // 100 inputs a row: 83 steps an execution
		{7, 100, wbc, 1},
		{1, 1, wbc, 1},
		{1000, 100, 1 << 30, 1000}, // a step over the ceiling: one step an execution
	} {
		stretch := replayStretch(tc.steps, tc.rows, tc.rowStepBytes)
		executions := (tc.steps + stretch - 1) / stretch
		if executions != tc.executions || stretch < 1 || stretch > tc.steps {
			t.Errorf("%d steps of %d rows, %d bytes a row and step: %d steps an execution, %d executions; want %d",
				tc.steps, tc.rows, tc.rowStepBytes, stretch, executions, tc.executions)
		}
		if out := stretch * tc.rows * tc.rowStepBytes; stretch > 1 && out > replayMaxOutBytes {
			t.Errorf("%d steps of %d rows: %d bytes an execution, over %d", tc.steps, tc.rows, out, replayMaxOutBytes)
		}
	}
}
