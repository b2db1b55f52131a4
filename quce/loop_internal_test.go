package quce

import (
	"maps"
	"testing"

	"github.com/gomlx/compute"

	"github.com/quce-go/quce/backend"
)

// noWhile is a backend that cannot run loops: it reports no While.
type noWhile struct{ compute.Backend }

func (b noWhile) Capabilities() compute.Capabilities {
	caps := b.Backend.Capabilities()
	caps.Operations = maps.Clone(caps.Operations)
	delete(caps.Operations, compute.OpTypeWhile)
	return caps
}

// The loop engine runs wherever it can; the step engine where the backend has no While,
// where the objective samples latent codes, or when asked for.
func TestEngineChoice(t *testing.T) {
	b, _, err := backend.Default()
	if err != nil {
		t.Fatal(err)
	}
	sampled := DefaultConfig()
	sampled.Samples = 2
	for _, tc := range []struct {
		name string
		e    *Explainer
		cfg  Config
		loop bool
	}{
		{"the pure-Go backend", &Explainer{backend: b}, DefaultConfig(), true},
		{"a backend without While", &Explainer{backend: noWhile{b}}, DefaultConfig(), false},
		{"sampled latent codes", &Explainer{backend: b}, sampled, false},
		{"StepEngine set", &Explainer{backend: b, StepEngine: true}, DefaultConfig(), false},
	} {
		if got := tc.e.loopRuns(tc.cfg); got != tc.loop {
			t.Errorf("%s: loop engine %v, want %v", tc.name, got, tc.loop)
		}
	}
}
