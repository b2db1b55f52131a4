package quce

import (
	"maps"
	"strings"
	"testing"

	"github.com/gomlx/compute"

	"github.com/quce-go/quce/backend"
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
// replayMaxRows rows where it can, and the steps where it cannot.
func TestEngineChoice(t *testing.T) {
	b, _, err := backend.Default()
	if err != nil {
		t.Fatal(err)
	}
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
		{"loop, sampled latent codes", EngineLoop, b, sampled, "samples = 2 is not allowed"},
		{"replay", EngineReplay, b, DefaultConfig(), "replay"},
		{"replay, a batch over replayMaxRows", EngineReplay, b, DefaultConfig(), "steps"},
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
