package quce

import (
	"context"
	"fmt"
)

// ExplainStream explains queries chunk by chunk, chunk of them at a time (0: the rows one
// step of the search walks at once, a unit of Batching.UnitRows per shard, so that streaming
// loses no parallelism),
// and hands each chunk's explanations to emit with the index of its first query, so that a
// whole data set is explained in the memory of one chunk: once emit returns, the chunk's
// explanations are the caller's to keep or drop. Rows are independent and each row's random
// numbers are keyed by its instance's values (see Explain), so the explanations are those of
// one Explain call on all the queries, whatever the chunk, up to the backend's rounding: the
// pure-Go backend's last bits for a row can depend on its place in a step execution (a few
// rows of a large file differ in the last digits of their L_ε figures, see docs/SPEED.md). A chunk
// is emitted while the next one is explained: emit runs on a goroutine of its own, for one
// chunk at a time and in order, so two chunks' explanations are held at once. The memory
// check counts the chunk being explained; with Config.PathPoints 2 each path keeps only its
// start and its end, for outputs that need no path. It returns the call's Stats, its chunks' timings summed; an error
// stops it, naming the chunk, and so does emit's, returned as it is.
func (e *Explainer) ExplainStream(ctx context.Context, cfg Config, queries []Query, chunk int, emit func(first int, ex []*Explanation) error) (Stats, error) {
	jb := e.job()
	tm, err := jb.explainStream(ctx, cfg, queries, chunk, emit)
	return jb.pr.stats.stats(tm), err
}

// explainStream is Explainer.ExplainStream, returning the summed timings.
func (jb job) explainStream(ctx context.Context, cfg Config, queries []Query, chunk int, emit func(first int, ex []*Explanation) error) (Timings, error) {
	var tm Timings
	if chunk < 0 {
		return tm, fmt.Errorf("quce: chunk %d; fix: use a positive number of instances per chunk, or 0 for the default", chunk)
	}
	if chunk == 0 {
		chunk = jb.memory.streamChunk()
	}
	if len(queries) == 0 {
		return tm, fmt.Errorf("quce: no instances to explain")
	}
	// Each chunk is emitted while the next is explained (its output, formatted and written on
	// the host, costs about as much as a search on a GPU): emit runs on a goroutine of its
	// own, for one chunk at a time and in order. An error of emit's cancels the chunk being
	// explained.
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	emitted := make(chan error, 1)
	emitting := false
	wait := func() error {
		if !emitting {
			return nil
		}
		emitting = false
		return <-emitted
	}
	for first := 0; first < len(queries); first += chunk {
		last := min(first+chunk, len(queries))
		ex, t, err := jb.explain(ctx, cfg, queries[first:last])
		tm.Optimisation += t.Optimisation
		tm.Uncertainty += t.Uncertainty
		tm.Paths += t.Paths
		if emitErr := wait(); emitErr != nil {
			return tm, emitErr
		}
		if err == nil {
			err = ctx.Err() // a job stopped while the chunk was explained emits nothing more
		}
		if err != nil {
			if len(queries) > chunk {
				// The instance numbers inside err count from the chunk's first.
				err = fmt.Errorf("quce: the chunk of instances %d to %d (the numbers below count from %d): %w", first, last-1, first, err)
			}
			return tm, err
		}
		emitting = true
		go func(first int, ex []*Explanation) {
			err := emit(first, ex)
			if err != nil {
				cancel()
			}
			emitted <- err
		}(first, ex)
	}
	return tm, wait()
}
