// Package budget bounds what training the built-in models costs on large data. A fixed
// number of epochs makes the cost grow with the rows without bound (docs/SPEED.md, training
// on large data); instead a model trains for at most a fixed number of optimiser steps, and on
// large data each step takes a larger batch, so that an epoch stays at most StepsPerEpoch
// steps until the batch reaches MaxBatch. On the small data sets the defaults were chosen on
// (W-BC, Iris, German credit) neither limit binds, so those models are unchanged.
package budget

// StepsPerEpoch is the most steps an epoch takes before batches grow.
const StepsPerEpoch = 200

// MaxBatch is the largest batch the budget grows a batch to.
const MaxBatch = 512

// Batch is the batch size for n rows: the configured size, grown so that an epoch is at most
// StepsPerEpoch whole batches, up to MaxBatch, and never above n.
func Batch(configured, n int) int {
	b := max(configured, min((n+StepsPerEpoch-1)/StepsPerEpoch, MaxBatch))
	return max(1, min(b, n))
}

// Progress reports training progress: done of total steps. A nil Progress reports nothing.
type Progress func(done, total int)

// Report calls p if it is set.
func (p Progress) Report(done, total int) {
	if p != nil {
		p(done, total)
	}
}
