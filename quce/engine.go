package quce

import (
	"context"
	"fmt"
	"strings"

	"github.com/gomlx/compute"
)

// engine walks a batch's paths: the optimisation from the rows' first points to their last,
// recording every point as row.record does (the attribution, the uncertainty sums and the
// kept points), failing, stalling and stopping rows as walkRow does. Two engines implement
// it: stepsEngine (walk.go), one execution per optimisation step with the bookkeeping on the
// host, and loopEngine (loop.go), the whole search as one compiled program. They walk the
// same paths; engineFor chooses, and Stats.Engine says which ran. A walk runs its
// executions on device dev of the backend (its shard's, see optimiseSharded).
type engine interface {
	name() string
	walk(ctx context.Context, cfg Config, rows []*row, dev compute.DeviceNum, progress func(step int)) error
}

// EngineChoice chooses the engine the searches run on (Settings.Engine).
type EngineChoice string

// The choices.
const (
	EngineAuto   EngineChoice = ""       // chosen for the backend (see Settings.Engine)
	EngineLoop   EngineChoice = "loop"   // the loop engine, or an error where it cannot run
	EngineSteps  EngineChoice = "steps"  // one execution per optimisation step
	EngineReplay EngineChoice = "replay" // many steps an execution for batches of up to replayMaxRows rows, the loop for larger ones, where they can run; else the steps
)

// replayMaxRows is the largest batch EngineReplay runs on the replay engine. On the pure-Go
// backend it is faster than the step engine for one row and than the loop engine up to about
// 100 rows, where its outputs per step (which the loop keeps on the device) have grown to a
// cost of their own; at a few hundred rows a batch it is slower than the loop, which is as
// fast as the step engine there (docs/SPEED.md).
const replayMaxRows = 100

// ParseEngineChoice accepts auto, loop, steps or replay (any case).
func ParseEngineChoice(s string) (EngineChoice, error) {
	switch c := EngineChoice(strings.ToLower(strings.TrimSpace(s))); c {
	case "auto":
		return EngineAuto, nil
	case EngineLoop, EngineSteps, EngineReplay:
		return c, nil
	}
	return "", fmt.Errorf("unknown engine %q; fix: use auto, loop, steps or replay", s)
}

// Check refuses what the chosen engine cannot run on any backend: the loop engine with
// sampled latent codes, which are drawn on the host at every step (Config.Samples).
func (c EngineChoice) Check(cfg Config) error {
	if c == EngineLoop && cfg.Samples > 0 {
		return &FieldError{Field: "samples", Value: cfg.Samples, Fix: "0 (the mean code) on the loop engine, or the steps engine"}
	}
	return nil
}

// engineFor is the engine a search for cfg of a batch of rows runs on with the programs pr
// (see EngineChoice).
func engineFor(choice EngineChoice, pr programs, cfg Config, rows int) (engine, error) {
	if err := choice.Check(cfg); err != nil {
		return nil, err
	}
	switch {
	case choice == EngineSteps:
		return stepsEngine{pr}, nil
	case choice == EngineReplay && rows <= replayMaxRows && pr.loopRuns(cfg):
		return replayEngine{pr}, nil
	case pr.loopRuns(cfg):
		return loopEngine{pr}, nil
	case choice == EngineLoop:
		return nil, fmt.Errorf("quce: the loop engine cannot run on the %s backend (it lacks While); fix: the steps engine", pr.backend.Name())
	}
	return stepsEngine{pr}, nil
}

func ptr[T any](v T) *T { return &v }
