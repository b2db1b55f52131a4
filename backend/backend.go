// Package backend chooses the GoMLX compute backend without ever downloading anything.
//
// The rule, applied once per process:
//
//   - GOMLX_BACKEND set: exactly that configuration ("gopatched", "gopatched:ops_sequential",
//     "go", "xla:cpu", "xla:cuda", ...). An unknown name is an error that lists the
//     compiled-in backends.
//   - otherwise: XLA, but only when a PJRT plugin is already installed on this machine
//     (the auto-installer is never linked in, so nothing is fetched and nothing hangs
//     offline); else the patched pure-Go backend, which always works.
//
// # The pure-Go backends
//
// Two are linked in. "gopatched" (PatchedGo, the default without a PJRT plugin) is GoMLX's
// pure-Go backend as github.com/gomlx/compute v0.1.6 has it, with this module's series of
// patches, built from the copy in third_party/gobackend, a package of this module: whoever
// imports any package of this module gets it, with the same bits and the same speed as the
// command built in this repository, and no replace directive is involved. Its kernels are
// faster for the small networks explanations run (small products, elementwise operations,
// reductions, slices, transposes, buffers, a sequential execution's plan and fusions), it
// fixes two bugs of While loops that training and the search rely on, and its explanations
// are the same bit for bit whatever rows are computed beside them (RowsIndependent);
// third_party/README.md lists the patches with their figures. "go" (UpstreamGo) is GoMLX's
// own, as the required github.com/gomlx/compute version has it, for whoever wants to compare:
// it runs While loops with a gradient inside wrongly, so Loops finds that out before the
// first one and training and the search then run one execution per step.
//
// The pure-Go backends run an execution's operations one after another, unless the
// configuration asks for "ops_parallel" (see New).
//
// Build with -tags noxla to leave XLA (and cgo) out entirely.
package backend

import (
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/gomlx/compute"
	_ "github.com/gomlx/compute/gobackend" // GoMLX's own pure-Go backend, "go"

	"github.com/quce-go/quce/internal/simd"
	patched "github.com/quce-go/quce/third_party/gobackend"
)

// The pure-Go backends' names (see the package doc).
const (
	PatchedGo  = patched.BackendName // this module's patched copy, the default without XLA
	UpstreamGo = "go"                // GoMLX's own, as the required compute version has it
)

// EnvVar is the environment variable that forces a backend configuration.
const EnvVar = compute.ConfigEnvVar

// Info says which backend was chosen and why.
type Info struct {
	// Config is the configuration that decides the results, as outputs report it and the
	// model cache is keyed by: what was asked for, with XLA's TF32 choice written out
	// ("xla:cuda,tf32=false", see withPrecision); e.g. "gopatched" or "xla:cpu,tf32=false".
	Config string
	Name   string // the backend's own description
	Reason string // why this one was chosen
	// NumDevices is how many devices the backend reports: the explainer splits a call's rows
	// over them (quce.Settings.Shards). The pure-Go backend has one, or as many virtual
	// devices as its "devices" option asks for ("gopatched:devices=4"), for testing such splits on
	// a CPU.
	NumDevices int
	// Accelerator reports whether the backend runs on an accelerator (a PJRT plugin other
	// than XLA's CPU one, such as "cuda"): executions there cost far more than small
	// operations, and the explainer sizes them accordingly (quce.AcceleratorBatching).
	Accelerator bool
	// Nondeterministic reports that a rerun may not compute the same bits: an XLA
	// accelerator whose XLA_FLAGS turned XLA's deterministic GPU operations off (see
	// withDeterminism). Every other backend computes the same bits at every run.
	Nondeterministic bool
	// Loops is nil when the backend runs the While loops training and the search build, or
	// why not (*LoopsError, see Loops): they then run one execution per step.
	Loops error
}

// newInfo describes the backend b made from config, chosen for reason.
func newInfo(b compute.Backend, config, reason string) Info {
	accel := onAccelerator(b)
	return Info{Config: withPrecision(config), Name: b.Name(), Reason: reason, NumDevices: b.NumDevices(), Accelerator: accel,
		Nondeterministic: accel && !deterministicFlags(os.Getenv(xlaFlagsVar)), Loops: Loops(b)}
}

// xlaFlagsVar is the environment variable XLA reads its flags from, once, when its first
// backend starts.
const xlaFlagsVar = "XLA_FLAGS"

// deterministicOps is the XLA flag that makes XLA's GPU programs compute the same bits at
// every run: by default XLA sums some reductions and scatters with atomic additions, whose
// order varies from run to run, and picks each product's kernel by timing candidates while
// it compiles, so that two runs of the same job can differ in their last bits (and two
// processes in which kernels they chose). The flag keeps those out, at some cost in speed
// (and no autotuning, which also makes compiling faster).
const deterministicOps = "--xla_gpu_deterministic_ops=true"

// withDeterminism adds deterministicOps to XLA_FLAGS before an XLA backend on a plugin
// other than the CPU's starts, unless XLA_FLAGS already decides XLA's determinism (names
// xla_gpu_deterministic_ops or xla_gpu_exclude_nondeterministic_ops): explanations are
// deterministic given a seed on every backend unless a user turns that off, which Info then
// reports (Nondeterministic, and a warning in String).
func withDeterminism(config string) {
	name, options, _ := strings.Cut(config, ":")
	plugin, _, _ := strings.Cut(options, ",")
	if name != "xla" || strings.EqualFold(plugin, "cpu") {
		return
	}
	flags := os.Getenv(xlaFlagsVar)
	if strings.Contains(flags, "xla_gpu_deterministic_ops") || strings.Contains(flags, "xla_gpu_exclude_nondeterministic_ops") {
		return
	}
	_ = os.Setenv(xlaFlagsVar, strings.TrimSpace(flags+" "+deterministicOps))
}

// deterministicFlags reports whether XLA_FLAGS flags turn XLA's deterministic GPU operations
// on (the last mention of the flag decides, as in XLA's parser).
func deterministicFlags(flags string) bool {
	on := false
	for _, f := range strings.Fields(flags) {
		if v, ok := strings.CutPrefix(f, "--xla_gpu_deterministic_ops"); ok {
			b, err := strconv.ParseBool(strings.TrimPrefix(v, "="))
			on = v == "" || err == nil && b
		}
	}
	return on
}

// withPrecision is config with "tf32=false" added when it is XLA's and does not say "tf32".
// go-xla computes float32 matrix products on CUDA in TF32 unless told otherwise: ten bits of
// mantissa instead of float32's 23, about three significant digits, in every product of the
// models' forward and backward passes. The explanations are float32 everywhere else (the
// pure-Go backend, ONNX Runtime, XLA's CPU plugin, and the PyTorch peer, whose matrix
// products are float32 by default), so on a GPU they are too, unless GOMLX_BACKEND asks for
// "tf32=true" (Info.String then says so).
func withPrecision(config string) string {
	name, options, named := strings.Cut(config, ":")
	if name != "xla" {
		return config
	}
	_, tf32 := option(options, "tf32")
	_, notf32 := option(options, "notf32") // go-xla's other way of saying tf32=false
	if tf32 || notf32 {
		return config
	}
	if !named {
		return config + ":,tf32=false" // no plugin named: go-xla's first, with the option
	}
	return config + ",tf32=false"
}

// option returns the value of the option key in a backend's comma-separated options ("" for
// a bare key), and whether it is there, as go-xla reads them (the first part is the plugin).
func option(options, key string) (string, bool) {
	for i, o := range strings.Split(options, ",") {
		if k, v, _ := strings.Cut(o, "="); i > 0 && k == key {
			return v, true
		}
	}
	return "", false
}

// TF32 reports whether the configuration asks XLA for float32 matrix products in TF32
// ("tf32", or "tf32=" a true value for strconv.ParseBool, as go-xla reads it; see
// withPrecision).
func (i Info) TF32() bool {
	name, options, _ := strings.Cut(i.Config, ":")
	if name != "xla" {
		return false
	}
	if _, no := option(options, "notf32"); no {
		return false
	}
	v, ok := option(options, "tf32")
	on, err := strconv.ParseBool(v)
	return ok && (v == "" || on && err == nil)
}

// onAccelerator reports whether b runs on a PJRT plugin other than the CPU's (go-xla's
// backend names its plugin; the pure-Go and ONNX Runtime backends name none).
func onAccelerator(b compute.Backend) bool {
	p, ok := b.(interface{ PluginName() string })
	if !ok {
		return false
	}
	name := strings.ToLower(p.PluginName())
	return name != "" && name != "cpu"
}

// SIMD reports whether this binary was built with GOEXPERIMENT=simd, which lets the pure-Go
// backend use its AVX2/AVX-512 kernels on amd64 (see docs/SPEED.md).
const SIMD = simd.Enabled

// Shards is how many concurrent executions the explainer should split independent rows
// into: 0 (one per CPU core) on the pure-Go backend, which keeps about one core busy per
// execution; 1 elsewhere, since ONNX Runtime and XLA run each execution on threads of their
// own, where a second shard only competes for them (docs/SPEED.md).
// On a backend of several devices the explainer makes at least one shard per device
// whatever this says.
func (i Info) Shards() int {
	if i.PureGo() {
		return 0
	}
	return 1
}

// ExecutionsCheap reports whether an execution costs little beyond its operations: true on
// the pure-Go backend, which runs it in-process, so a search runs faster in executions of
// many steps with its bookkeeping in Go (the replay engine), or one execution per step, than
// as one program that does the bookkeeping as graph operations (faster for small batches,
// about as fast from a few hundred rows on: docs/SPEED.md); false on XLA, where an execution
// on a GPU costs far more than a step's operations.
func (i Info) ExecutionsCheap() bool { return i.PureGo() }

// KernelSet names the kernels that run this backend's matrix products: for the patched
// pure-Go backend the set it chose ("avx2", "avx512" or "generic", see simd.KernelSet);
// "none" for another backend (XLA, ONNX Runtime, GoMLX's own pure-Go one), which runs code
// of its own.
func (i Info) KernelSet() string {
	if i.Patched() {
		return simd.KernelSet()
	}
	return "none"
}

// RowsIndependent reports whether a row's figures are the same bit for bit whatever rows are
// computed beside it (a batch's size, shards, units, streamed chunks): true on the patched
// pure-Go backend with its SIMD kernels, which sum a row's products the same way at every
// batch size. Its generic kernels (a build without GOEXPERIMENT=simd), GoMLX's own pure-Go
// backend, ONNX Runtime and XLA choose how to sum a product by its size, so there a job
// split differently agrees to float32 rounding, not bit for bit.
func (i Info) RowsIndependent() bool { return i.Patched() && i.KernelSet() != "generic" }

// PureGo reports whether the configuration is a pure-Go backend, the patched one or GoMLX's
// own (any of their options): in-process, one core an execution.
func (i Info) PureGo() bool { return isPureGo(i.Config) }

// Patched reports whether the configuration is the patched pure-Go backend (PatchedGo).
func (i Info) Patched() bool {
	name, _, _ := strings.Cut(i.Config, ":")
	return name == PatchedGo
}

// isPureGo reports whether config names one of the pure-Go backends.
func isPureGo(config string) bool {
	name, _, _ := strings.Cut(config, ":")
	return name == PatchedGo || name == UpstreamGo
}

// String names the backend and why it was chosen; for the pure-Go backend it also says
// whether this binary has its SIMD kernels (see SIMD).
func (i Info) String() string {
	s := fmt.Sprintf("%s (%s)", i.Name, i.Reason)
	if i.NumDevices > 1 {
		s += fmt.Sprintf("; %d devices", i.NumDevices)
	}
	if i.Nondeterministic {
		s += "; WARNING: not deterministic: " + xlaFlagsVar + " turned XLA's deterministic GPU operations off (" + deterministicOps + " turns them on), so a rerun can differ in its last bits"
	}
	if i.TF32() {
		s += "; WARNING: float32 matrix products in TF32 (about 3 significant digits), as tf32 in " + EnvVar + " asks; the figures differ from float32 ones in their fourth digit"
	}
	if i.Patched() {
		if SIMD {
			s += "; SIMD kernels (GOEXPERIMENT=simd)"
		} else {
			s += "; no SIMD kernels: built without GOEXPERIMENT=simd, about 2× slower"
		}
	}
	if i.PureGo() && !i.Patched() {
		s += "; NOTE: GoMLX's own pure-Go backend, not this module's patched one (" + EnvVar + "=" + PatchedGo + "): slower, and its results depend on the batch"
	}
	if i.Loops != nil {
		s += "; WARNING: " + i.Loops.Error()
	}
	return s
}

var (
	once    sync.Once
	chosen  compute.Backend
	info    Info
	initErr error
)

// Default returns the process-wide backend, choosing it on first use (see the package doc).
func Default() (compute.Backend, Info, error) {
	once.Do(func() { chosen, info, initErr = choose() })
	return chosen, info, initErr
}

func choose() (compute.Backend, Info, error) {
	if cfg, ok := os.LookupEnv(EnvVar); ok && strings.TrimSpace(cfg) != "" {
		b, err := New(cfg)
		if err != nil {
			return nil, Info{}, err
		}
		return b, newInfo(b, cfg, EnvVar+"="+cfg), nil
	}
	if plugin := installedXLAPlugin(); plugin != "" {
		cfg := "xla:" + plugin
		if b, err := New(cfg); err == nil {
			return b, newInfo(b, cfg, "PJRT plugin "+plugin+" is installed"), nil
		}
	}
	b, err := New(PatchedGo)
	if err != nil {
		return nil, Info{}, err
	}
	return b, newInfo(b, PatchedGo, "no PJRT plugin installed; the patched pure-Go backend, "+PatchedGo), nil
}

// withOpsMode is config with "ops_sequential" added when it is a pure-Go backend's and
// names no way of running operations ("ops_sequential" or "ops_parallel"). Left to itself,
// that backend runs an execution's operations on goroutines of their own, as their inputs
// become ready, whenever it is the only execution in flight. The explainer's graphs are
// hundreds of small operations, mostly in a chain, for which that handover costs more than
// the operations, most of all for batches of a few dozen rows (docs/SPEED.md, "Operations
// one after another"). Larger operations still spread over the cores inside
// themselves (the products' workers), and a call's rows over the cores in shards, each its
// own execution. Info.Config stays what was asked for: the model cache's key, and what the
// outputs report.
func withOpsMode(config string) string {
	name, options, _ := strings.Cut(config, ":")
	if !isPureGo(config) {
		return config
	}
	for _, o := range strings.Split(options, ",") {
		if o == "ops_sequential" || o == "ops_parallel" {
			return config
		}
	}
	if options == "" {
		return name + ":ops_sequential"
	}
	return config + ",ops_sequential"
}

// New creates a backend from a configuration string "name[:options]". Unlike
// compute.NewWithConfig it never panics: an unknown name is returned as an error. The pure-Go
// backend runs an execution's operations one after another unless the configuration asks
// otherwise (see withOpsMode); XLA computes float32 products in float32 unless it asks for
// TF32 (see withPrecision), and on a GPU deterministically unless XLA_FLAGS says otherwise
// (see withDeterminism).
func New(config string) (b compute.Backend, err error) {
	name, _, _ := strings.Cut(config, ":")
	available := compute.List()
	slices.Sort(available)
	if !slices.Contains(available, name) {
		return nil, fmt.Errorf("unknown GoMLX backend %q in %s=%q; fix: use one of %s",
			name, EnvVar, config, strings.Join(available, ", "))
	}
	defer func() {
		if r := recover(); r != nil {
			b, err = nil, fmt.Errorf("creating GoMLX backend %q: %v", config, r)
		}
	}()
	withDeterminism(config)
	b, err = compute.NewWithConfig(withPrecision(withOpsMode(config)))
	if err != nil {
		return nil, fmt.Errorf("creating GoMLX backend %q: %w", config, err)
	}
	made.Store(b, config)
	return b, nil
}

// made holds the configuration of every backend New made, for Of.
var made sync.Map

// Of describes b as far as the choices made for it need (Info.Shards, Info.ExecutionsCheap,
// Info.Accelerator): a backend New made has its configuration; another (made by GoMLX
// directly, or wrapped) has none, and is treated as neither pure-Go nor patched. Its Reason
// is empty and its Loops unprobed (nil).
func Of(b compute.Backend) Info {
	config, _ := made.Load(b)
	c, _ := config.(string)
	return Info{Config: withPrecision(c), Name: b.Name(), NumDevices: b.NumDevices(), Accelerator: onAccelerator(b)}
}
