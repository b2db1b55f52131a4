package quce

// Batching sizes a search's executions: how many rows one execution walks, and how much of
// a batch's search one execution of the loop engine runs. It changes how many executions a
// call takes, never a result: rows are independent, and the loop engine carries a row's
// state from one execution to the next exactly.
//
// CPUBatching is sized for a CPU. AcceleratorBatching is sized for a GPU, where an
// execution costs about a millisecond whatever it computes and a step of some thousand rows
// costs about what a step of one row does (the kernels' launches, not their arithmetic,
// bound it); an explainer's zero Settings.Batching is the one for its backend
// (backend.Info.Accelerator).
type Batching struct {
	// UnitRows is the most rows one execution walks: a larger job is walked in units of this
	// many rows, one after another, so that its tensors stay bounded.
	UnitRows int `json:"unit_rows"`
	// LoopRowSteps bounds the work of one execution of the loop engine, rows × steps, so
	// that a cancelled context is seen and progress is reported as the search goes.
	LoopRowSteps int `json:"loop_row_steps"`
	// LoopKeptBytes bounds the buffer of kept path points one loop execution returns.
	LoopKeptBytes int `json:"loop_kept_bytes"`
	// UncertaintyRows is how many rows' ± integrals are computed together, in executions of
	// ProbeRows points (a part's K right-endpoint points on each side of every row) and of
	// PointRows points for the VAE. Parts and executions of fixed sizes keep a row's figures
	// independent of how many rows its call had: on the pure-Go backend, a product of 4M
	// multiply-adds or more whose right-hand side is larger than 128 × 128 elements (a
	// layer wider than W-BC's networks') runs on kernels that sum in another order (about
	// one point in five differed in the 8th digit on W-BC before the small products kept to
	// one kind of kernel), so on a CPU the sizes stay below that (TestBatchIndependence); an
	// explanation streamed in chunks then gets the figures of one call.
	UncertaintyRows int `json:"uncertainty_rows"`
	ProbeRows       int `json:"probe_rows"`
	PointRows       int `json:"point_rows"`
	// PadRows pads the loop engine's batches, the measurements of path segments (automatic
	// λ, resets, projections) and the VAE's executions to a power of two rows (with copies of
	// a batch's first row that never move, and with segments and points whose figures are
	// dropped), so that calls of nearby sizes share their compiled programs: on
	// XLA a program compiles in seconds (docs/GPU.md), which
	// a notebook pays for every new number of rows. A padded batch costs a GPU about what the
	// batch does; on a CPU it costs its rows, so CPUBatching leaves it off.
	PadRows bool `json:"pad_rows"`
}

// CPUBatching is the zero value's sizes. On a CPU a step costs the same per row beyond a
// few hundred rows (docs/SPEED.md), so units of 2048 rows lose nothing and keep a step to a
// fraction of a second; 2^18 row-steps bound a loop execution the same way.
var CPUBatching = Batching{UnitRows: 2048, LoopRowSteps: 1 << 18, LoopKeptBytes: 64 << 20,
	UncertaintyRows: 256, ProbeRows: 1024, PointRows: 512}

// AcceleratorBatching sizes executions for a GPU: units of 4096 rows, and the whole
// 1000-step search of a unit as one execution of the loop engine, since on a GPU an
// execution costs far more than a step's operations: with these sizes a search is faster
// than with CPUBatching's, in no more executions (docs/GPU.md). Larger units are
// not yet usable there: one unit of 32 768 rows did not finish its first run (compiling
// included) in the time of a sitting, for reasons not yet known.
//
// The ± integrals of a unit are one part there, in executions of 16 384 points (5 for
// 4096 rows at K = 10) where CPUBatching takes 96: in parts of 256 rows they were a large
// share of a unit's time on the GPU. (Not yet measured with these sizes.)
var AcceleratorBatching = Batching{UnitRows: 4096, LoopRowSteps: 4096 * 1024, LoopKeptBytes: 128 << 20,
	UncertaintyRows: 4096, ProbeRows: 16384, PointRows: 4096, PadRows: true}

// WithUnitRows is b with units of n rows, its budgets for one loop execution (row-steps and
// kept bytes) scaled with them, so that a unit's search takes as many executions as before.
func (b Batching) WithUnitRows(n int) Batching {
	r := b.resolved()
	scale := func(v int) int { return int(int64(v) * int64(n) / int64(r.UnitRows)) }
	r.LoopRowSteps, r.LoopKeptBytes, r.UnitRows = max(1, scale(r.LoopRowSteps)), max(1, scale(r.LoopKeptBytes)), n
	return r
}

// padTo is the size a batch of n rows is padded to under PadRows: the power of two at or
// above n.
func padTo(n int) int {
	size := 1
	for size < n {
		size *= 2
	}
	return size
}

// padded returns s followed by fill()'s results up to padTo(len(s)) items (Batching.PadRows);
// s itself is left as it is.
func padded[T any](s []T, fill func() T) []T {
	out := make([]T, len(s), padTo(len(s)))
	copy(out, s)
	for len(out) < cap(out) {
		out = append(out, fill())
	}
	return out
}

// resolved fills the sizes left at zero from CPUBatching.
func (b Batching) resolved() Batching {
	cpu := CPUBatching
	defaults := cpu.sizes()
	for i, f := range b.sizes() {
		if *f <= 0 {
			*f = *defaults[i]
		}
	}
	return b
}

// sizes are b's sizes, in one order.
func (b *Batching) sizes() []*int {
	return []*int{&b.UnitRows, &b.LoopRowSteps, &b.LoopKeptBytes, &b.UncertaintyRows, &b.ProbeRows, &b.PointRows}
}
