package quce

// Batching sizes a search's executions: how many rows one execution walks, and how much of
// a batch's search one execution of the loop engine runs. It changes how many executions a
// call takes, never a result: rows are independent, and the loop engine carries a row's
// state from one execution to the next exactly.
//
// The zero value is sized for a CPU (CPUBatching). AcceleratorBatching is sized for a GPU,
// where an execution costs about a millisecond whatever it computes and a step of 32 768
// rows costs about what a step of one row does; package pipeline chooses it when the
// backend runs on an accelerator (backend.Info.Accelerator).
type Batching struct {
	// UnitRows is the most rows one execution walks: a larger job is walked in units of this
	// many rows, one after another, so that its tensors stay bounded.
	UnitRows int
	// LoopRowSteps bounds the work of one execution of the loop engine, rows × steps, so
	// that a cancelled context is seen and progress is reported as the search goes.
	LoopRowSteps int
	// LoopKeptBytes bounds the buffer of kept path points one loop execution returns.
	LoopKeptBytes int
}

// CPUBatching is the zero value's sizes. On a CPU a step costs the same per row beyond a
// few hundred rows (docs/SPEED.md), so units of 2048 rows lose nothing and keep a step to a
// fraction of a second; 2^18 row-steps are about a second of the loop engine's work.
var CPUBatching = Batching{UnitRows: 2048, LoopRowSteps: 1 << 18, LoopKeptBytes: 64 << 20}

// AcceleratorBatching sizes executions for a GPU: a unit of 32 768 rows, and the whole
// 1000-step search of such a unit as one execution of the loop engine (its kept path
// points, up to 1 GiB, stay in the GPU's memory until it ends). Measured on one H200
// (docs/GPU.md): with CPUBatching, 32 768 rows took 960 executions and 4.8 s of search.
var AcceleratorBatching = Batching{UnitRows: 1 << 15, LoopRowSteps: 1 << 25, LoopKeptBytes: 1 << 30}

// resolved fills the fields left at zero from CPUBatching.
func (b Batching) resolved() Batching {
	if b.UnitRows <= 0 {
		b.UnitRows = CPUBatching.UnitRows
	}
	if b.LoopRowSteps <= 0 {
		b.LoopRowSteps = CPUBatching.LoopRowSteps
	}
	if b.LoopKeptBytes <= 0 {
		b.LoopKeptBytes = CPUBatching.LoopKeptBytes
	}
	return b
}
