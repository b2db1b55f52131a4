package quce

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
)

// A job's memory grows with rows × kept points × inputs: a million paths of 201 kept points
// over 30 inputs hold tens of gigabytes. Explain estimates what a job needs before it
// allocates anything and refuses one that does not fit, naming the flags that shrink it;
// the estimate is the sum of the parts below, from what the search and its results keep.

// Bytes per kept point of one path: its float32 copy held by the walk plus a small record,
// then the float64 point of the result with its slice header, step and three values.
const (
	walkPointBytes   = 48 // pointStats without its point
	resultPointBytes = 24 + 8 + 3*8
)

// rowBytes is what one row holds besides its points: the row and its generator, the
// result's vectors (attribution, Φ±, ε, the counterfactual in both units, ...) and headers.
func rowBytes(j int) int64 { return int64(16*j*8 + 1536) }

// unitRowBytes is what the executions of one step hold per row of a unit: the inputs,
// outputs and intermediate values of the step graph over the rule's points (measured on the
// pure-Go backend with the built-in models, rounded up).
func unitRowBytes(j, k int) int64 { return int64((k+2)*j*4*16 + 8192) }

// baseBytes is the memory of the process besides the job: the runtime, the models and
// their compiled graphs.
const baseBytes = 256 << 20

// fallbackMemory is the memory assumed available where the machine does not say (not
// Linux, or no /proc/meminfo).
const fallbackMemory = 4 << 30

// jobMemory is an estimate of the bytes a job of instances × cfg.Paths × candidates rows
// needs at its peak, and the bytes per row and the kept points per row it is made of.
func (e *Explainer) jobMemory(cfg Config, instances, candidates int) (total, perRow int64, points int) {
	j := e.NumFeatures()
	points = cfg.Steps + 2 // x, an offset start, and a point per step
	if cfg.PathPoints > 0 {
		points = min(points, cfg.PathPoints+1)
	}
	if cfg.Sparse {
		points += resetPieces * len(e.cols) // every point of the resets is kept
	}
	perRow = int64(points)*(int64(j)*(4+8)+walkPointBytes+resultPointBytes) + rowBytes(j)
	rows := int64(instances) * int64(max(1, cfg.Paths)) * int64(candidates)
	shards := int64(max(1, runtime.GOMAXPROCS(0)))
	if e.Shards > 0 {
		shards = int64(e.Shards)
	}
	inFlight := min(rows, shards*maxUnitRows)
	total = rows*perRow + inFlight*unitRowBytes(j, max(1, cfg.K)) + baseBytes
	return total, perRow, points
}

// checkMemory refuses a job that needs more memory than the limit (Explainer.MemoryLimit,
// or what the machine has available), saying how large it is and how to shrink it.
func (e *Explainer) checkMemory(cfg Config, instances, candidates int) error {
	limit := e.MemoryLimit
	if limit <= 0 {
		limit = AvailableMemory()
	}
	total, perRow, points := e.jobMemory(cfg, instances, candidates)
	if total <= limit {
		return nil
	}
	size := fmt.Sprintf("%d instances × %d paths", instances, cfg.Paths)
	if candidates > 1 {
		size += fmt.Sprintf(" × %d candidates of automatic λ (-lambdas auto)", candidates)
	}
	size += fmt.Sprintf(" × %d kept points of %d inputs", points, e.NumFeatures())
	// The paths that fit: what is left for the rows once the rest is paid for.
	fitting := (limit - (total - int64(instances)*int64(cfg.Paths)*int64(candidates)*perRow)) / (int64(instances) * int64(candidates) * perRow)
	fix := "fewer instances (-n or -rows), or split the job into smaller ones"
	if fitting >= 1 {
		fix = fmt.Sprintf("fewer paths (-paths; at most %d fit), %s", fitting, fix)
	}
	if candidates > 1 {
		fix += ", or fewer candidates (-auto-grid)"
	}
	return fmt.Errorf("quce: this job needs about %s of memory (%s) but %s are available; fix: %s", gigabytes(total), size, gigabytes(limit), fix)
}

// gigabytes formats a byte count for a message.
func gigabytes(b int64) string {
	if b >= 1<<30 {
		return fmt.Sprintf("%.1f GB", float64(b)/(1<<30))
	}
	return fmt.Sprintf("%.0f MB", math.Ceil(float64(b)/(1<<20)))
}

// AvailableMemory is the memory, in bytes, this process can still use: the least of the
// machine's available memory (MemAvailable in /proc/meminfo), the room left under its
// cgroup's limit (memory.max) and the Go runtime's memory limit (GOMEMLIMIT); 4 GiB where
// none of them can be read.
func AvailableMemory() int64 {
	avail := int64(math.MaxInt64)
	if f, err := os.Open("/proc/meminfo"); err == nil {
		if v, ok := memAvailable(f); ok {
			avail = v
		}
		f.Close()
	}
	if v, ok := cgroupRoom(os.ReadFile); ok {
		avail = min(avail, v)
	}
	if avail == math.MaxInt64 {
		avail = fallbackMemory
	}
	if l := debug.SetMemoryLimit(-1); l < math.MaxInt64 {
		avail = min(avail, l)
	}
	return avail
}

// memAvailable reads MemAvailable (in kB) from /proc/meminfo's text.
func memAvailable(r io.Reader) (int64, bool) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) >= 2 && fields[0] == "MemAvailable:" {
			kb, err := strconv.ParseInt(fields[1], 10, 64)
			return kb * 1024, err == nil
		}
	}
	return 0, false
}

// cgroupRoom is memory.max − memory.current of this process's cgroup (version 2), read with
// read; false when there is no limit or it cannot be read.
func cgroupRoom(read func(string) ([]byte, error)) (int64, bool) {
	dir := "/sys/fs/cgroup"
	if b, err := read("/proc/self/cgroup"); err == nil {
		for _, line := range strings.Split(string(b), "\n") {
			if rest, ok := strings.CutPrefix(line, "0::"); ok {
				dir = filepath.Join(dir, rest)
			}
		}
	}
	number := func(name string) (int64, bool) {
		b, err := read(filepath.Join(dir, name))
		if err != nil {
			return 0, false
		}
		v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
		return v, err == nil
	}
	limit, ok := number("memory.max") // "max" when unlimited: no number
	if !ok {
		return 0, false
	}
	used, _ := number("memory.current")
	return max(0, limit-used), true
}

// every returns ctx's error on every 4096th i, so that a loop over many rows notices a
// cancellation within a fraction of a second at little cost.
func every(ctx context.Context, i int) error {
	if i%4096 != 0 {
		return nil
	}
	return ctx.Err()
}
