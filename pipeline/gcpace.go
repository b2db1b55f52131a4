package pipeline

import (
	"os"
	"runtime/debug"

	"github.com/quce-go/quce/quce"
)

// GCPercent is the garbage collector's pace PaceGC sets unless GOGC is set. An optimisation
// step allocates a little in each of its few hundred small operations, so at Go's default
// (100) the collector ran every few hundred steps and emptied the pure-Go backend's buffer
// pools each time. At 400 the collector runs a fraction as often, so the pools keep their
// buffers: one row (n = 1000, K = 10) takes clearly less time, the work unit of 455 rows
// the same, for a larger heap (docs/SPEED.md).
const GCPercent = 400

// PaceGC sets the collector's pace to GCPercent unless GOGC is set. At that pace the heap may
// grow to five times what is live before a collection, so unless GOMEMLIMIT is set the memory
// available is made a soft limit: as a large job nears it the collector works harder
// instead, and a job the explainer accepted for its size (quce.AvailableMemory) fits. The
// command calls it first thing; the notebook helpers' Prepare too, since a notebook's
// program (a cell with a slider, say) runs explanations of one row over and over.
func PaceGC() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		debug.SetMemoryLimit(quce.AvailableMemory())
	}
}
