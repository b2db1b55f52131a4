package quce

import "context"

// engine walks a batch's paths: the optimisation from the rows' first points to their last,
// recording every point as row.record does (the attribution, the uncertainty sums and the
// kept points), failing, stalling and stopping rows as walkRow does. Two engines implement
// it: stepsEngine (walk.go), one execution per optimisation step with the bookkeeping on the
// host, and loopEngine (loop.go), the whole search as one compiled program. They walk the
// same paths; engineFor chooses, and Explainer.Engine says which ran.
type engine interface {
	name() string
	walk(ctx context.Context, cfg Config, rows []*row, progress func(step int)) error
}

// engineFor is the loop engine wherever it runs (loopRuns), else the steps engine.
func (e *Explainer) engineFor(cfg Config) engine {
	if e.loopRuns(cfg) {
		return loopEngine{e}
	}
	return stepsEngine{e}
}

func ptr[T any](v T) *T { return &v }
