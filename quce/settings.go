package quce

import (
	"slices"
	"sync/atomic"

	"github.com/quce-go/quce/backend"
	"github.com/quce-go/quce/data"
)

// Settings say how an explainer runs its work. They are given once, to New (or With, for an
// explainer of the same models with other settings), and never change after: an Explainer
// is safe for concurrent use because nothing in it is set after it is made. Every zero value
// means "chosen for the backend", decided here and nowhere else (see resolve), so a program,
// a notebook and the command line get the same choices.
type Settings struct {
	// Columns group the inputs into the data's columns (data.Dataset.Columns): a categorical
	// column is a one-hot block kept on the simplex and projected onto a category, an
	// integer column rounded, and so on. nil: every input its own continuous column, and
	// nothing projected. They must cover the inputs in order.
	Columns []data.Column
	// SeenCategories are the pairs of category values the training rows hold
	// (data.SeenCombinations of the training split). The walks after the search (the repairs
	// after the projection onto legal rows, Config.Sparse's resets, automatic λ's
	// pull-back) avoid a counterfactual that pairs values no training row pairs, and a path
	// that still does says so (Path.UnseenCombination). nil: every pair counts as seen.
	SeenCategories *data.Combinations

	// Engine chooses the engine the searches run on: EngineAuto (the zero value) the replay
	// engine for batches of up to 100 rows where an execution costs little beyond its
	// operations (the pure-Go backends, backend.Info.ExecutionsCheap), the loop elsewhere
	// wherever the backend runs it, else the steps; EngineLoop the loop or an error;
	// EngineSteps one execution per step; EngineReplay the replay engine on any backend.
	// Every engine walks the same paths (bit for bit on the pure-Go backend with its SIMD
	// kernels, else to float32 rounding).
	Engine EngineChoice

	// Shards, if positive, is the most concurrent executions the rows of one call are split
	// into (rows are independent; a shard has at least one row). 0: one per CPU core on a
	// pure-Go backend, which keeps about one core busy per execution, and one elsewhere,
	// where XLA and ONNX Runtime spread an execution over threads or a device of their own
	// (backend.Info.Shards). On a backend of several devices there are at least as many
	// shards as devices, and shard k runs on device k mod devices.
	Shards int

	// Batching sizes the searches' executions (rows per execution, steps per execution of
	// the loop engine). The zero value is the backend's: AcceleratorBatching on a GPU, else
	// CPUBatching; in another value a size left at zero is CPUBatching's. It changes how
	// many executions a call takes, not its results.
	Batching Batching
	// UnitRows, if positive, sets Batching's units to this many rows, its budgets for one
	// loop execution scaled with them (Batching.WithUnitRows): the one size a user is likely
	// to change, for a device short of memory (DeviceMemoryError).
	UnitRows int

	// MemoryLimit, if positive, is the most memory in bytes one call may need; 0 means the
	// memory this process has available (AvailableMemory). A call that would need more is
	// refused before it starts, with what it needs and how to shrink it.
	MemoryLimit int64

	// Autodiff takes every gradient with GoMLX's autodiff, also through the built-in
	// networks, whose backward passes are otherwise written out (package backprop). It is
	// slower; the tests use it as the reference.
	Autodiff bool

	// Progress, if set, is called as the search goes with the steps done and the steps to
	// do: after every step on the step engine, after every execution on the loop and replay
	// engines (an execution of the loop walks up to Batching.LoopRowSteps row-steps: a batch
	// of a few hundred rows reports once, at its last step). A job walked in units of rows
	// counts the steps of every unit of its first shard, from that shard's goroutine. An
	// explainer with a progress of its own for one job is With's.
	Progress func(step, steps int)

	// OnCompile, if set, is called after each program is compiled (its name, such as
	// "loop", "step" or "probe", the rows it takes, and the seconds it took), from the
	// goroutine that compiled it. Each program compiles once, at its first execution; on
	// XLA that takes seconds, which a call's first batch of each size pays (Stats.Compiled).
	OnCompile func(program string, rows int, seconds float64)
}

// resolve is s with its zero values chosen for the backend info describes (see Settings)
// and its columns those of features when none are given.
func (s Settings) resolve(info backend.Info, features []string) Settings {
	if s.Shards <= 0 {
		s.Shards = info.Shards()
	}
	if s.Engine == EngineAuto && info.ExecutionsCheap() {
		s.Engine = EngineReplay
	}
	switch {
	case s.Batching == (Batching{}) && info.Accelerator:
		s.Batching = AcceleratorBatching
	default:
		s.Batching = s.Batching.resolved()
	}
	if s.UnitRows > 0 {
		s.Batching = s.Batching.WithUnitRows(s.UnitRows)
	}
	s.UnitRows = 0 // in Batching now
	if s.Columns == nil {
		s.Columns = continuousColumns(features)
	} else {
		s.Columns = slices.Clone(s.Columns)
	}
	return s
}

// Stats are what one call ran (Explainer.ExplainWithStats, ExplainStream): the wall seconds
// of its phases, the engine and shards its search ran on, and the executions and
// compilations it took. Calls running at the same time each count their own.
type Stats struct {
	Timings
	// Engine names the engine the call's search ran on: "loop", the whole search of a batch
	// in one compiled program (a graph.While over the steps; loop.go), "replay", many steps
	// an execution with their bookkeeping replayed on the host (replay.go), or "steps", a
	// host loop of one graph execution per optimisation step. When its batches ran on
	// different engines (replay for small ones, loop for large), the last batch's. "" when
	// nothing was searched.
	Engine string
	// Shards is how many shards the search's rows were split into (see Settings.Shards):
	// parts searched at the same time, each by executions of its own. 0 when nothing was
	// searched.
	Shards int
	// Executions counts the call's graph executions: the step engine runs one per
	// optimisation step of each batch, the loop engine a few per batch, so the count says
	// how much of the time went to per-execution overhead.
	Executions int64
	// ExecutionsPerDevice counts them by the device their outputs are on (one entry per
	// device of the backend): the searches run on every device when there are enough rows;
	// the rest (predictions, uncertainty, the walks after the search) on device 0.
	ExecutionsPerDevice []int64
	// Compiled is how many programs the call compiled (each compiles once, at its first
	// execution, so a second call of the same sizes compiles none), and CompileSeconds the
	// seconds that took, included in the timings.
	Compiled       int64
	CompileSeconds float64
}

// callStats count one call's work as it runs (programs.run, compileOnce, the walks), from
// however many goroutines its shards use.
type callStats struct {
	executions   atomic.Int64
	compiles     atomic.Int64
	compileNanos atomic.Int64
	perDevice    []atomic.Int64
	engine       atomic.Pointer[string]
	shards       atomic.Int64
}

func newCallStats(devices int) *callStats {
	return &callStats{perDevice: make([]atomic.Int64, max(1, devices))}
}

// stats are the counts so far, with the call's timings tm.
func (c *callStats) stats(tm Timings) Stats {
	s := Stats{Timings: tm, Shards: int(c.shards.Load()), Executions: c.executions.Load(),
		Compiled: c.compiles.Load(), CompileSeconds: float64(c.compileNanos.Load()) / 1e9,
		ExecutionsPerDevice: make([]int64, len(c.perDevice))}
	for d := range c.perDevice {
		s.ExecutionsPerDevice[d] = c.perDevice[d].Load()
	}
	if p := c.engine.Load(); p != nil {
		s.Engine = *p
	}
	return s
}
