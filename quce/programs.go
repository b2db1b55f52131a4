package quce

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"

	"github.com/quce-go/quce/backprop"
	"github.com/quce-go/quce/data"
	"github.com/quce-go/quce/internal/signature"
	"github.com/quce-go/quce/vae"
)

// programs are the compiled programs of an explainer's models and what runs them: the
// graph builders (graphs.go, and loop.go's loop), the cache of compiled programs per kind
// and batch size (execs), the backend each batch runs on, and the count of executions. The
// engines (engine.go) and the steps after the search (projection, resets, pull-back, the
// results) run their measurements through it. A call takes it from the Explainer as a value
// (Explainer.programs): the models and the settings as they are when the call begins, and
// the compiled programs, which all calls share.
type programs struct {
	*compiled
	stats     *callStats // the call's counts
	backend   compute.Backend
	clf       *Classifier
	vae       *vae.VAE
	cols      []data.Column                                   // the categorical blocks a step keeps on the simplex (onSimplex)
	features  []string                                        // the inputs' names, for messages
	autodiff  bool                                            // Settings.Autodiff
	batching  Batching                                        // Settings.Batching, resolved
	onCompile func(program string, rows int, seconds float64) // Settings.OnCompile
}

// compiled are an explainer's compiled programs, shared by its calls.
type compiled struct {
	mu    sync.Mutex
	execs execs // the step graphs, the loop programs and the points graph, per batch size
	probe *graph.Exec
	class *graph.Exec
	obj   *graph.Exec
}

// numFeatures is J, the models' inputs.
func (pr programs) numFeatures() int { return len(pr.features) }

// tape returns a tape for one gradient's hand-written pieces, or nil under Autodiff.
func (pr programs) tape() *backprop.Tape {
	if pr.autodiff {
		return nil
	}
	return new(backprop.Tape)
}

// stepExec returns the compiled step graph of kind for a batch of rows, and the function
// that releases it.
func (pr programs) stepExec(kind execKind, rows int) (*graph.Exec, func(), error) {
	return pr.execs.get(execKey{kind: kind, rows: rows}, func() (*graph.Exec, error) {
		return named(graph.NewExec(pr.backend, pr.stepGraph(kind)))(programStep)
	})
}

// run executes ex, one of the compiled programs, on device dev of its backend, and counts
// the execution (see Stats.Executions). The arguments must be on dev or on the host:
// GoMLX refuses a tensor left on another device. (In GoMLX v0.28.8 graph.Exec's CallOnDevice
// runs on device 0 whatever it is given; CallWithGraphOnDevice honours the device.)
//
// A program's first execution compiles it first, apart, timed (see Stats.Compiled and
// Settings.OnCompile): on XLA compiling takes seconds, which a call's first batch of a size
// pays and the next do not.
func (pr programs) run(ex *graph.Exec, dev compute.DeviceNum, args ...any) ([]*tensors.Tensor, error) {
	if err := pr.compileOnce(ex, args); err != nil {
		return nil, pr.deviceMemory(ex.Name(), args, err)
	}
	pr.stats.executions.Add(1)
	out, _, err := ex.CallWithGraphOnDevice(dev, args...)
	if err != nil {
		return nil, pr.deviceMemory(ex.Name(), args, err)
	}
	if len(out) > 0 {
		if d, err := out[0].Device(); err == nil && int(d) < len(pr.stats.perDevice) {
			pr.stats.perDevice[d].Add(1) // where it ran, as its outputs say
		}
	}
	return out, nil
}

// The names of the search's programs (Exec.Name, what OnCompile reports): the engines'
// (loop, replay) and the step engine's step, the ones whose sizes units set (deviceMemory).
const (
	programLoop   = "loop"
	programReplay = "replay"
	programStep   = "step"
)

// DeviceMemoryError is a search's execution (or its compilation) that the backend refused for
// want of device memory: on a GPU, a unit of rows whose search, with its kept path points and
// the model's activations at every Riemann point, does not fit. Smaller units need less
// (Batching.WithUnitRows) and give the same results, to float32 rounding.
type DeviceMemoryError struct {
	Program  string // the search's program: "loop", "replay" or "step"
	Rows     int    // the rows of the execution refused
	UnitRows int    // the units in use (Batching.UnitRows)
	Err      error  // the backend's own error
}

func (e *DeviceMemoryError) Error() string {
	return fmt.Sprintf("quce: the device ran out of memory running the %s program on %d rows, in units of %d rows (%v); fix: smaller units, Batching.WithUnitRows(%d)",
		e.Program, e.Rows, e.UnitRows, e.Err, e.SmallerUnits())
}

func (e *DeviceMemoryError) Unwrap() error { return e.Err }

// SmallerUnits is the unit size to try next: half the rows that did not fit.
func (e *DeviceMemoryError) SmallerUnits() int {
	rows := e.UnitRows
	if e.Rows > 0 {
		rows = min(rows, e.Rows)
	}
	return max(1, rows/2)
}

// engineError is err from the loop or replay engine's execution of steps first to last. A
// backend that cannot run the engine's program has the steps engine; one out of device
// memory, smaller units (DeviceMemoryError says so).
func engineError(engine string, first, last int, err error) error {
	var dm *DeviceMemoryError
	if errors.As(err, &dm) {
		return err
	}
	return fmt.Errorf("quce: optimisation steps %d to %d on the %s engine: %w; fix: if the backend cannot run this program, the steps engine (-engine steps)", first, last, engine, err)
}

// deviceMemory is err as a *DeviceMemoryError when it is the backend's refusal for want of
// device memory in one of the search's programs (whose first argument gives its rows), and
// err otherwise. XLA's PJRT plugins give such a refusal the status RESOURCE_EXHAUSTED
// (go-xla writes it as "PJRT error (code=8)"); the other programs (the ± integrals', the
// probes') run fixed, small sizes that units do not set.
func (pr programs) deviceMemory(program string, args []any, err error) error {
	switch program {
	case programLoop, programReplay, programStep:
	default:
		return err
	}
	msg := err.Error()
	if !strings.Contains(msg, "RESOURCE_EXHAUSTED") && !strings.Contains(msg, "PJRT error (code=8)") &&
		!strings.Contains(strings.ToLower(msg), "out of memory") {
		return err
	}
	rows := 0
	if len(args) > 0 {
		if t, ok := args[0].(*tensors.Tensor); ok && t != nil && t.Shape().Rank() > 0 {
			rows = t.Shape().Dimensions[0]
		}
	}
	return &DeviceMemoryError{Program: program, Rows: rows, UnitRows: pr.batching.UnitRows, Err: err}
}

// compiledHook, if set (by tests: export_test.go), is called with each program's graph once
// it is compiled, from the goroutine that compiled it.
var compiledHook func(program string, g *graph.Graph)

// named names a new program (what OnCompile reports), passing on NewExec's error.
func named(ex *graph.Exec, err error) func(name string) (*graph.Exec, error) {
	return func(name string) (*graph.Exec, error) {
		if err != nil {
			return nil, err
		}
		return ex.WithName(name), nil
	}
}

// compileOnce compiles ex for the shapes of args the first time it is run, timing it.
func (pr programs) compileOnce(ex *graph.Exec, args []any) error {
	if _, seen := pr.execs.ran.LoadOrStore(ex, true); seen {
		return nil
	}
	shs := make([]shapes.Shape, len(args))
	for i, a := range args {
		t, ok := a.(*tensors.Tensor)
		if ok && t == nil {
			return nil // the execution itself says what is wrong
		}
		if !ok {
			var err error
			if t, err = tensors.FromAnyValue(a); err != nil {
				return fmt.Errorf("quce: the %s program's argument %d: %w", ex.Name(), i, err)
			}
		}
		shs[i] = t.Shape()
	}
	t0 := time.Now()
	g, err := ex.Compile(shs...)
	if err != nil {
		return fmt.Errorf("quce: compiling the %s program: %w", ex.Name(), err)
	}
	took := time.Since(t0)
	if compiledHook != nil {
		compiledHook(ex.Name(), g)
	}
	pr.stats.compiles.Add(1)
	pr.stats.compileNanos.Add(int64(took))
	if pr.onCompile != nil {
		rows := 0
		if len(shs) > 0 && shs[0].Rank() > 0 {
			rows = shs[0].Dimensions[0]
		}
		pr.onCompile(ex.Name(), rows, took.Seconds())
	}
	return nil
}

// devices is how many devices the backend has: a call's shards are spread over them
// (job.optimiseSharded).
func (pr programs) devices() int { return max(1, pr.backend.NumDevices()) }

// lazyExec returns the program in slot, built by build on first use.
func (pr programs) lazyExec(slot **graph.Exec, build func() (*graph.Exec, error)) (*graph.Exec, error) {
	pr.mu.Lock()
	defer pr.mu.Unlock()
	if *slot == nil {
		ex, err := build()
		if err != nil {
			return nil, err
		}
		*slot = ex
	}
	return *slot, nil
}

// classProbs returns F(c|x) [rows][classes] (see Classifier.probabilities) with the
// explainer's compiled graph.
func (pr programs) classProbs(ctx context.Context, pts [][]float32) ([][]float64, error) {
	ex, err := pr.lazyExec(&pr.class, func() (*graph.Exec, error) { return named(graph.NewExec(pr.backend, pr.clf.classGraph))("class") })
	if err != nil {
		return nil, err
	}
	return pr.clf.probabilities(ctx, func(args ...any) ([]*tensors.Tensor, error) { return pr.run(ex, 0, args...) }, pts, false)
}

// probeChunk is the fixed row count of a classifier's prediction executions (predict.go):
// one compiled shape serves all.
const probeChunk = 1024

// probeMany returns F(τ|·) and its gradient at many points, in executions of a fixed size
// (Batching.ProbeRows); targets are one-hot rows.
func (pr programs) probeMany(ctx context.Context, pts, targets [][]float32) ([]float32, [][]float32, error) {
	ex, err := pr.lazyExec(&pr.probe, func() (*graph.Exec, error) { return named(graph.NewExec(pr.backend, pr.probeGraph))("probe") })
	if err != nil {
		return nil, nil, err
	}
	j, c := pr.numFeatures(), pr.clf.NumClasses()
	probs := make([]float32, 0, len(pts))
	grads := make([][]float32, 0, len(pts))
	size := pr.batching.ProbeRows
	buf := make([]float32, size*j)
	tg := make([]float32, size*c)
	for start := 0; start < len(pts); start += size {
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		end := min(start+size, len(pts))
		clear(buf)
		clear(tg)
		for i := start; i < end; i++ {
			copy(buf[(i-start)*j:], pts[i])
			copy(tg[(i-start)*c:], targets[i])
		}
		in := probeVals[any]{
			x:      tensors.FromFlatDataAndDimensions(append([]float32(nil), buf...), size, j),
			target: tensors.FromFlatDataAndDimensions(append([]float32(nil), tg...), size, c),
		}
		results, err := pr.run(ex, 0, signature.Args(in.fields())...)
		if err != nil {
			return nil, nil, fmt.Errorf("quce: probing the classifier: %w", err)
		}
		var out probeOuts[*tensors.Tensor]
		signature.Set(out.fields(), results)
		p := tensors.MustCopyFlatData[float32](out.p)
		g := tensors.MustCopyFlatData[float32](out.grad)
		for i := 0; i < end-start; i++ {
			probs = append(probs, p[i])
			grads = append(grads, g[i*j:(i+1)*j:(i+1)*j])
		}
	}
	return probs, grads, nil
}

// pointsMany returns L_ε (trained and paper form) and the reconstruction at points, in
// pieces of at most Batching.PointRows (so that a row's L_ε does not depend on how many
// rows its call had, see Batching).
func (pr programs) pointsMany(pts [][]float32) (unc, uncPaper []float32, recon [][]float32, err error) {
	size := pr.batching.PointRows
	for start := 0; start < len(pts); start += size {
		u, up, r, err := pr.pointsPiece(pts[start:min(start+size, len(pts))])
		if err != nil {
			return nil, nil, nil, err
		}
		unc, uncPaper, recon = append(unc, u...), append(uncPaper, up...), append(recon, r...)
	}
	return unc, uncPaper, recon, nil
}

// pointsPiece is pointsMany for at most Batching.PointRows points, in one execution.
func (pr programs) pointsPiece(pts [][]float32) (unc, uncPaper []float32, recon [][]float32, err error) {
	if len(pts) == 0 {
		return nil, nil, nil, nil
	}
	n, j := len(pts), pr.numFeatures()
	if pr.batching.PadRows { // zero points, whose figures are dropped
		zero := make([]float32, j)
		pts = padded(pts, func() []float32 { return zero })
	}
	ex, release, err := pr.execs.get(execKey{points: true, rows: len(pts)}, func() (*graph.Exec, error) {
		return named(graph.NewExec(pr.backend, pr.pointGraph))("points")
	})
	if err != nil {
		return nil, nil, nil, err
	}
	defer release()
	flat := make([]float32, 0, len(pts)*j)
	for _, p := range pts {
		flat = append(flat, p...)
	}
	results, err := pr.run(ex, 0, tensors.FromFlatDataAndDimensions(flat, len(pts), j))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("quce: evaluating the VAE: %w", err)
	}
	var out pointOuts[*tensors.Tensor]
	signature.Set(out.fields(), results)
	unc = tensors.MustCopyFlatData[float32](out.unc)[:n]
	uncPaper = tensors.MustCopyFlatData[float32](out.uncPaper)[:n]
	rf := tensors.MustCopyFlatData[float32](out.recon)
	recon = make([][]float32, n)
	for i := range recon {
		recon[i] = rf[i*j : (i+1)*j : (i+1)*j]
	}
	return unc, uncPaper, recon, nil
}

// objective returns G and its gradient at one point xc for the instance x0, the one-hot
// target onehot and the weights lam (λ1, λ2, λ3).
func (pr programs) objective(xc, x0, onehot, lam []float32) (float64, []float64, error) {
	ex, err := pr.lazyExec(&pr.obj, func() (*graph.Exec, error) { return named(graph.NewExec(pr.backend, pr.objectiveGraph))("objective") })
	if err != nil {
		return 0, nil, err
	}
	j := pr.numFeatures()
	in := objectiveVals[any]{
		xc:     tensors.FromFlatDataAndDimensions(xc, 1, j),
		x0:     tensors.FromFlatDataAndDimensions(x0, 1, j),
		target: tensors.FromFlatDataAndDimensions(onehot, 1, len(onehot)),
		lam:    tensors.FromFlatDataAndDimensions(lam, 1, 3),
	}
	results, err := pr.run(ex, 0, signature.Args(in.fields())...)
	if err != nil {
		return 0, nil, err
	}
	var out objectiveOuts[*tensors.Tensor]
	signature.Set(out.fields(), results)
	return float64(tensors.MustCopyFlatData[float32](out.g)[0]), toF64(tensors.MustCopyFlatData[float32](out.grad)), nil
}

// predict returns the class probabilities of each query, checking the queries' shapes and
// values.
func (pr programs) predict(queries []Query) ([][]float64, error) {
	j := pr.numFeatures()
	xs := make([][]float32, len(queries))
	for i, q := range queries {
		if len(q.X) != j {
			return nil, fmt.Errorf("quce: instance %d has %d features, the models have %d; fix: pass rows with the models' columns", i, len(q.X), j)
		}
		for f, v := range q.X {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("quce: instance %d, feature %q is %v; fix: pass finite values", i, pr.features[f], v)
			}
		}
		xs[i] = toF32(q.X)
	}
	return pr.classProbs(context.Background(), xs)
}

// uncertainty is Explainer.Uncertainty.
func (pr programs) uncertainty(pts [][]float64) (trained, paper []float64, recon [][]float64, err error) {
	f := make([][]float32, len(pts))
	for i, p := range pts {
		if len(p) != pr.numFeatures() {
			return nil, nil, nil, fmt.Errorf("quce: point %d has %d features, want %d", i, len(p), pr.numFeatures())
		}
		f[i] = toF32(p)
	}
	u, up, r, err := pr.pointsMany(f)
	if err != nil {
		return nil, nil, nil, err
	}
	recon = make([][]float64, len(r))
	for i := range r {
		recon[i] = toF64(r[i])
	}
	return toF64(u), toF64(up), recon, nil
}
