package quce

import (
	"testing"

	"github.com/quce-go/quce/backend"
)

// Every zero value of Settings is chosen for the backend in one place (resolve): the replay
// engine and a shard per core on a pure-Go backend, one shard and the loop engine elsewhere,
// executions sized for a GPU only on an accelerator; what the caller set is kept, and a unit
// size alone scales the loop's budgets with it.
func TestSettingsResolve(t *testing.T) {
	for _, tc := range []struct {
		name     string
		info     backend.Info
		given    Settings
		shards   int
		engine   EngineChoice
		batching Batching
	}{
		{"patched pure-Go", backend.Info{Config: "gopatched"}, Settings{}, 0, EngineReplay, CPUBatching},
		{"two devices", backend.Info{Config: "gopatched:devices=2"}, Settings{}, 0, EngineReplay, CPUBatching},
		{"upstream pure-Go", backend.Info{Config: "go"}, Settings{}, 0, EngineReplay, CPUBatching},
		{"XLA on a CPU", backend.Info{Config: "xla:cpu"}, Settings{}, 1, EngineAuto, CPUBatching},
		{"XLA on a GPU", backend.Info{Config: "xla:cuda", Accelerator: true}, Settings{}, 1, EngineAuto, AcceleratorBatching},
		{"a backend not made by package backend", backend.Info{}, Settings{}, 1, EngineAuto, CPUBatching},
		{"the caller's choices", backend.Info{Config: "gopatched"}, Settings{Engine: EngineSteps, Shards: 3}, 3, EngineSteps, CPUBatching},
		{"units on a GPU", backend.Info{Config: "xla:cuda", Accelerator: true}, Settings{UnitRows: 2048}, 1, EngineAuto, AcceleratorBatching.WithUnitRows(2048)},
		{"units on a CPU", backend.Info{Config: "gopatched"}, Settings{UnitRows: 100}, 0, EngineReplay, CPUBatching.WithUnitRows(100)},
		{"partial batching", backend.Info{Config: "xla:cuda", Accelerator: true}, Settings{Batching: Batching{UnitRows: 10}}, 1, EngineAuto, Batching{UnitRows: 10}.resolved()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.given.resolve(tc.info, []string{"a", "b"})
			if got.Shards != tc.shards || got.Engine != tc.engine || got.Batching != tc.batching || got.UnitRows != 0 {
				t.Errorf("shards %d, engine %q, batching %+v, units %d; want %d, %q, %+v, 0",
					got.Shards, got.Engine, got.Batching, got.UnitRows, tc.shards, tc.engine, tc.batching)
			}
			if len(got.Columns) != 2 || got.Columns[1].Name != "b" || got.Columns[1].Start != 1 {
				t.Errorf("columns %+v, want one continuous column per input", got.Columns)
			}
			if again := got.resolve(tc.info, []string{"a", "b"}); again.Batching != got.Batching || again.Engine != got.Engine || again.Shards != got.Shards {
				t.Errorf("resolving twice changed the settings: %+v, then %+v", got, again)
			}
		})
	}
}
