package quce_test

import (
	"fmt"
	"testing"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/internal/modeltest"
	"github.com/quce-go/quce/quce"
)

// On a backend of several devices (here three virtual devices of the pure-Go backend) a
// call's shards run on every device, and the explanations are those of the same shards on
// one device, bit for bit, on both engines. The three-device explainer is limited to one
// shard and still makes one per device; the one-device explainer makes the same three
// shards, so the comparison holds with or without the SIMD kernels. With early stopping the
// shards' batches shrink as their rows stop, and stay on their devices.
func TestRowsSplitAcrossDevices(t *testing.T) {
	s := wbc(t)
	// Both on the pure-Go backend, whatever the tests run on: the comparison is bit for bit.
	three, err := backend.New("gopatched:devices=3")
	if err != nil {
		t.Fatal(err)
	}
	one := twinOn(t, s, modeltest.GoBackend(t), quce.Settings{Shards: 3})
	split := twinOn(t, s, three, quce.Settings{Shards: 1})
	rows := s.XTest[:100]
	for _, tc := range []struct {
		engine    quce.EngineChoice
		earlyStop int
	}{{quce.EngineSteps, 0}, {quce.EngineSteps, 5}, {quce.EngineLoop, 0}, {quce.EngineLoop, 5}} {
		cfg := quce.DefaultConfig()
		cfg.Steps, cfg.EarlyStop = 200, tc.earlyStop
		engine := tc.engine
		t.Run(fmt.Sprintf("%s, early stop %d", engine, cfg.EarlyStop), func(t *testing.T) {
			explain := func(ex *quce.Explainer) ([]*quce.Explanation, []int64) {
				ex = with(t, ex, func(st *quce.Settings) { st.Engine = engine })
				res, st := explainWith(t, ex, cfg, rows)
				if got := st.Engine; got != string(engine) {
					t.Fatalf("engine %q, want %q", got, engine)
				}
				return res, st.ExecutionsPerDevice
			}
			want, ranOne := explain(one)
			got, ran := explain(split)
			t.Logf("executions per device: %v on one device, %v on three", ranOne, ran)
			if len(ranOne) != 1 || len(ran) != 3 {
				t.Fatalf("%d and %d devices counted, want 1 and 3", len(ranOne), len(ran))
			}
			for d, n := range ran {
				if n == 0 {
					t.Errorf("device %d ran no executions (%v)", d, ran)
				}
			}
			stopped := 0
			for i := range rows {
				compareExplanations(t, i, want[i], got[i])
				if got[i].Path0().Steps < cfg.Steps {
					stopped++
				}
			}
			if cfg.EarlyStop > 0 && stopped < len(rows)/2 {
				t.Errorf("%d rows of %d stopped early: want most of them to, so that the shards' batches shrink", stopped, len(rows))
			}
		})
	}
}
