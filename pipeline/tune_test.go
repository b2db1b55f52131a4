package pipeline

import (
	"testing"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/quce"
)

// The explainer is tuned to its backend: the replay engine and a shard per core on the
// pure-Go backend, one shard and the default engine on XLA, and executions sized for a GPU
// only on an accelerator.
func TestTuneFor(t *testing.T) {
	for _, tc := range []struct {
		info     backend.Info
		shards   int
		engine   quce.EngineChoice
		batching quce.Batching
	}{
		{backend.Info{Config: "gopatched"}, 0, quce.EngineReplay, quce.Batching{}},
		{backend.Info{Config: "gopatched:devices=2"}, 0, quce.EngineReplay, quce.Batching{}},
		{backend.Info{Config: "xla:cpu"}, 1, quce.EngineAuto, quce.Batching{}},
		{backend.Info{Config: "xla:cuda", Accelerator: true}, 1, quce.EngineAuto, quce.AcceleratorBatching},
	} {
		var e quce.Explainer
		tuneFor(&e, tc.info)
		if e.Shards != tc.shards || e.EngineChoice != tc.engine || e.Batching != tc.batching {
			t.Errorf("%s (accelerator %v): shards %d, engine %q, batching %+v; want %d, %q, %+v",
				tc.info.Config, tc.info.Accelerator, e.Shards, e.EngineChoice, e.Batching, tc.shards, tc.engine, tc.batching)
		}
	}
}
