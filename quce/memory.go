package quce

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/quce-go/quce/vae"
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

// sampleRowBytes is what -samples adds to one row of a unit at each step: each of the S
// latent codes is decoded and differentiated, about 24 bytes (six float32 values) per value
// of the code, the decoder's layers and its output (what the pure-Go backend holds on W-BC
// and German credit, rounded up), and its noise is drawn into a slice and copied to a tensor.
func sampleRowBytes(samples, j, latent int, decoder []int) int64 {
	values := int64(latent + j)
	for _, w := range decoder {
		values += int64(w)
	}
	return int64(samples) * (24*values + 2*4*int64(latent))
}

// baseBytes is the memory of the process besides the job: the runtime, the models and
// their compiled graphs.
const baseBytes = 256 << 20

// fallbackMemory is the memory assumed available where the machine does not say (not
// Linux, or no /proc/meminfo).
const fallbackMemory = 4 << 30

// memoryModel is what a job's memory depends on besides its Config and size, and the limit
// it must fit in: plain values, taken from the explainer when a call begins.
type memoryModel struct {
	inputs, columns int
	vae             *vae.Config // nil: no VAE (nothing sampled)
	shards          int         // the most concurrent executions (see maxShards)
	unitRows        int         // the most rows one execution walks (Batching.UnitRows)
	replay          bool        // the replay engine runs the batches it takes (EngineReplay)
	limit           int64       // Settings.MemoryLimit (0: AvailableMemory)
}

// need is an estimate of the bytes a job of instances × cfg.Paths × candidates rows
// needs at its peak, and what it is made of: the bytes per row and the kept points per row,
// the rows one step walks at once (inFlight), and the bytes each of them holds during a step
// for the rule's points (-k) and for the latent samples (-samples).
func (mm memoryModel) need(cfg Config, instances, candidates int) (total, perRow int64, points int, inFlight, unit, sampled int64) {
	j := mm.inputs
	points = cfg.Steps + 2 // x, an offset start, and a point per step
	if cfg.PathPoints > 0 {
		points = min(points, cfg.PathPoints+1)
	}
	if cfg.Sparse {
		points += resetPieces * mm.columns // every point of the resets is kept
	}
	perRow = int64(points)*(int64(j)*(4+8)+walkPointBytes+resultPointBytes) + rowBytes(j)
	rows := int64(instances) * int64(max(1, cfg.Paths)) * int64(candidates)
	inFlight = min(rows, int64(mm.shards)*int64(mm.unitRows))
	unit = unitRowBytes(j, max(1, cfg.K))
	if cfg.Samples > 0 && mm.vae != nil {
		sampled = sampleRowBytes(cfg.Samples, j, mm.vae.Latent, mm.vae.Decoder)
	}
	total = rows*perRow + inFlight*(unit+sampled) + mm.replayBytes(cfg, rows) + baseBytes
	return total, perRow, points, inFlight, unit, sampled
}

// replayBytes is what the replay engine's executions hold for their per-step outputs, where
// it runs the job's batches (up to replayMaxRows rows a shard): an execution's outputs
// (replayStretch) in each shard, about three times over at their peak (the buffer, its first
// value and what the host reads are each held at once).
func (mm memoryModel) replayBytes(cfg Config, rows int64) int64 {
	if !mm.replay || rows == 0 {
		return 0
	}
	shards := min(rows, int64(max(1, mm.shards)))
	perShard := (rows + shards - 1) / shards
	if perShard > replayMaxRows {
		return 0
	}
	rowStep := replayRowStepBytes(execKind{rule: cfg.Rule, k: cfg.K}, mm.inputs)
	stretch := replayStretch(max(1, cfg.Steps), int(perShard), rowStep)
	return 3 * shards * int64(stretch) * perShard * int64(rowStep)
}

// JobSize is how large a call of Explain is, as far as it is known before the call runs
// (Explainer.JobSize): its searches and their steps, and the memory it needs.
type JobSize struct {
	Instances  int   // the instances to explain; those already their target are not searched
	Paths      int   // Config.Paths: the paths searched per instance
	Candidates int   // automatic λ's candidates searched per path (Auto.Grid); 1 without
	Steps      int   // the steps of each search: with automatic λ, the grid's (Auto.Steps)
	Memory     int64 // the bytes the call needs at its peak, what a MemoryLimit is held to
	// StreamChunk is how many instances ExplainStream explains at a time when its chunk is
	// 0: a unit of rows (Batching.UnitRows) for each shard.
	StreamChunk int
}

// Searches is the paths searched at once: instances × paths × candidates.
func (s JobSize) Searches() int64 {
	return int64(s.Instances) * int64(s.Paths) * int64(s.Candidates)
}

// String says the size as a person reads it: "40 000 searches (2 instances × 20 000 paths)
// of 1000 steps, about 4.1 GB of memory".
func (s JobSize) String() string {
	parts := fmt.Sprintf("%s %s × %s paths", grouped(int64(s.Instances)), plural(s.Instances, "instance", "instances"), grouped(int64(s.Paths)))
	then := ""
	if s.Candidates > 1 {
		parts += fmt.Sprintf(" × %d candidates of automatic λ", s.Candidates)
		then = ", then searches of fewer rows that refine them"
	}
	return fmt.Sprintf("%s searches (%s) of %s steps%s, about %s of memory", grouped(s.Searches()), parts, grouped(int64(s.Steps)), then, gigabytes(s.Memory))
}

// grouped is n with its digits in groups of three from 10 000 on: "1000", "200 000".
func grouped(n int64) string {
	s := strconv.FormatInt(n, 10)
	if n < 10000 {
		return s
	}
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + " " + s[i:]
	}
	return s
}

// size is Explainer.JobSize: the searches of the call's first search (search) and what the
// memory check (check) would estimate for them.
func (mm memoryModel) size(cfg Config, instances int) JobSize {
	s := JobSize{Instances: instances, Paths: max(1, cfg.Paths), Candidates: 1, Steps: cfg.Steps, StreamChunk: mm.streamChunk()}
	if cfg.Auto != nil {
		s.Candidates, s.Steps = len(cfg.Auto.Grid), autoSteps(cfg)
		cfg.Steps = s.Steps
	}
	s.Memory, _, _, _, _, _ = mm.need(cfg, instances, s.Candidates)
	return s
}

// streamChunk is ExplainStream's default chunk: a unit of rows for each shard, the rows in
// flight at once.
func (mm memoryModel) streamChunk() int { return mm.shards * mm.unitRows }

// check refuses a job that needs more memory than the limit (Settings.MemoryLimit,
// or what the machine has available), saying how large it is and how to shrink it.
func (mm memoryModel) check(cfg Config, instances, candidates int) error {
	limit := mm.limit
	if limit <= 0 {
		limit = AvailableMemory()
	}
	total, perRow, points, inFlight, unit, sampled := mm.need(cfg, instances, candidates)
	if total <= limit {
		return nil
	}
	size := fmt.Sprintf("%d %s × %d paths", instances, plural(instances, "instance", "instances"), cfg.Paths)
	if candidates > 1 {
		size += fmt.Sprintf(" × %d candidates of automatic λ (Auto.Grid)", candidates)
	}
	size += fmt.Sprintf(" × %d kept points of %d inputs", points, mm.inputs)
	j := int64(mm.inputs)
	// What one step holds for the rows it walks at once, when that is most of the job: the
	// rule's points (Config.K) and the latent samples (Config.Samples) grow it, not the rows.
	if perStep := inFlight * (unit + sampled); 2*perStep > total {
		size += fmt.Sprintf("; each step holds %s for the %d rows it walks at once, with Config.K %d points per segment", gigabytes(perStep), inFlight, cfg.K)
		if cfg.Samples > 0 {
			size += fmt.Sprintf(" and Config.Samples %d latent samples", cfg.Samples)
		}
	}
	// What fits of each setting: what is left for it once the rest is paid for.
	var fixes []string
	if sampled > 0 {
		perSample := sampled / int64(cfg.Samples)
		if fit := (limit - (total - inFlight*sampled)) / (inFlight * perSample); fit < int64(cfg.Samples) && fit >= 0 {
			fixes = append(fixes, fmt.Sprintf("fewer latent samples (Config.Samples; at most %d fit, 0 uses the mean code)", fit))
		}
	}
	// unitRowBytes grows by j·64 bytes per point of Config.K.
	if fit := (limit-(total-inFlight*unit))/(inFlight*j*64) - 2; fit >= 1 && fit < int64(cfg.K) {
		fixes = append(fixes, fmt.Sprintf("fewer points per segment (Config.K; at most %d fit)", fit))
	}
	if fitting := (limit - (total - int64(instances)*int64(cfg.Paths)*int64(candidates)*perRow)) / (int64(instances) * int64(candidates) * perRow); fitting >= 1 && fitting < int64(cfg.Paths) {
		fixes = append(fixes, fmt.Sprintf("fewer paths (Config.Paths; at most %d fit)", fitting))
	}
	if instances > 1 {
		fixes = append(fixes, "fewer instances")
	}
	if candidates > 1 {
		fixes = append(fixes, "fewer candidates (Auto.Grid)")
	}
	fixes = append(fixes, "split the job into smaller ones")
	if len(fixes) > 1 {
		fixes[len(fixes)-1] = "or " + fixes[len(fixes)-1]
	}
	return fmt.Errorf("quce: this job needs about %s of memory (%s) but %s are available; fix: %s", gigabytes(total), size, gigabytes(limit), strings.Join(fixes, ", "))
}

// plural is one when n is 1, else many.
func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
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
