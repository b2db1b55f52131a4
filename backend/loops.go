package backend

import (
	"fmt"
	"math"
	"os"
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/gomlx/core/graph"
	"github.com/gomlx/gomlx/core/tensors"
)

// LoopsError says why a backend cannot run the While loops the models' training and the
// search build (a gradient inside the loop's body, a value given to the loop twice whose
// second result nothing reads), and what runs instead.
type LoopsError struct {
	Backend string // the backend's name in GOMLX_BACKEND (its String)
	Err     error  // what the probe saw
}

func (e *LoopsError) Error() string {
	return fmt.Sprintf("the %s backend cannot run a While loop with a gradient inside (%v): training and the search run one execution per step instead (slower, same method)", e.Backend, e.Err)
}

func (e *LoopsError) Unwrap() error { return e.Err }

// probes holds Loops' answer for each backend it has probed (compute.Backend → error).
var probes sync.Map

// Loops reports whether b runs the While loops that training and the search build: nil, or a
// *LoopsError. A backend without closures (Capabilities().Functions false, as ONNX Runtime)
// builds no loop at all and is not probed. Any other is probed once, the first time it is
// asked, by compiling and running a small program with both patterns (GoMLX's own pure-Go
// backend, github.com/gomlx/compute v0.1.14, fails the first: "input 0 for node Mul not
// computed yet"); the answer is kept for the process, and a failure is said once on stderr,
// since a user who chose such a backend with GOMLX_BACKEND gets slower runs without having
// asked for them.
func Loops(b compute.Backend) error {
	if !b.Capabilities().Functions {
		return nil
	}
	if v, ok := probes.Load(b); ok {
		err, _ := v.(error)
		return err
	}
	err := probeLoops(b)
	if v, loaded := probes.LoadOrStore(b, err); loaded {
		err, _ = v.(error)
		return err
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "quce: WARNING: %v\n", err)
	}
	return err
}

// probeSteps is how many steps the probe's loop takes.
const probeSteps = 3

// probeLoops runs, on b, a While loop of probeSteps gradient-descent steps on f(x) = Σ c·x²,
// whose state is the step, x and c (c given as the loop's start value twice over: as state
// and as a value carried unchanged whose result nothing reads), and checks its result.
func probeLoops(b compute.Backend) (err error) {
	fail := func(e error) error { return &LoopsError{Backend: b.String(), Err: e} }
	defer func() {
		if r := recover(); r != nil {
			err = fail(fmt.Errorf("%v", r))
		}
	}()
	scalar := shapes.Make(dtypes.Float32)
	exec, err := graph.NewExec(b, func(x, c *graph.Node) *graph.Node {
		g := x.Graph()
		xShape, cShape := x.Shape(), c.Shape()
		params := func(g *graph.Graph, what string) (step, x, c, carried *graph.Node) {
			return graph.Parameter(g, what+"_step", scalar), graph.Parameter(g, what+"_x", xShape),
				graph.Parameter(g, what+"_c", cShape), graph.Parameter(g, what+"_carried", cShape)
		}
		cond := graph.NewClosure(g, func(g *graph.Graph) []*graph.Node {
			step, _, _, _ := params(g, "cond")
			return []*graph.Node{graph.LessThan(step, graph.Const(g, float32(probeSteps)))}
		})
		body := graph.NewClosure(g, func(g *graph.Graph) []*graph.Node {
			step, x, c, carried := params(g, "body")
			grad := graph.Gradient(graph.ReduceAllSum(graph.Mul(c, graph.Mul(x, x))), x)[0]
			next := graph.Sub(x, graph.MulScalar(grad, 0.1))
			return []*graph.Node{graph.AddScalar(step, 1), next, c, carried}
		})
		start := graph.Neg(graph.Neg(c)) // a value of the execution's own, given twice
		return graph.While(cond, body, graph.ScalarZero(g, dtypes.Float32), x, start, start)[1]
	})
	if err != nil {
		return fail(err)
	}
	defer exec.Finalize()
	x0, c := []float32{1, -2}, []float32{0.5, 2}
	out, err := exec.Exec(x0, c)
	if err != nil {
		return fail(err)
	}
	got := tensors.MustCopyFlatData[float32](out[0])
	for i := range x0 {
		want := float64(x0[i]) * math.Pow(1-0.2*float64(c[i]), probeSteps)
		if math.Abs(float64(got[i])-want) > 1e-5*(1+math.Abs(want)) {
			return fail(fmt.Errorf("the loop computed x[%d] = %v, want %v", i, got[i], want))
		}
	}
	return nil
}

// RunsLoops reports whether b runs the While loops training and the search build: it runs
// closures (Capabilities().Functions, as the pure-Go and XLA backends do and ONNX Runtime
// does not) and Loops finds no fault in them. Not Capabilities().Operations[OpTypeWhile]:
// go-xla runs While but has left it out of that list.
func RunsLoops(b compute.Backend) bool { return b.Capabilities().Functions && Loops(b) == nil }
