package backend

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/gomlx/compute"

	"github.com/quce-go/quce/internal/simd"
)

func TestNew(t *testing.T) {
	tests := []struct {
		config  string
		wantErr string
	}{
		{"gopatched", ""},
		{"nosuchbackend", `unknown GoMLX backend "nosuchbackend"`},
		{"nosuchbackend:opt", "fix: use one of"},
	}
	for _, tc := range tests {
		b, err := New(tc.config)
		if tc.wantErr == "" {
			if err != nil || b == nil {
				t.Errorf("New(%q) = %v, %v; want a backend", tc.config, b, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("New(%q) error = %v; want it to contain %q", tc.config, err, tc.wantErr)
		}
	}
}

// The pure-Go backend runs operations one after another unless the configuration names a
// way of running them; other backends' configurations pass through unchanged.
func TestWithOpsMode(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{"gopatched", "gopatched:ops_sequential"},
		{"gopatched:", "gopatched:ops_sequential"},
		{"gopatched:devices=3", "gopatched:devices=3,ops_sequential"},
		{"gopatched:ops_sequential", "gopatched:ops_sequential"},
		{"gopatched:ops_parallel", "gopatched:ops_parallel"},
		{"gopatched:devices=2,ops_parallel", "gopatched:devices=2,ops_parallel"},
		{"xla:cpu", "xla:cpu"},
		{"onnx:/lib/libonnxruntime.so.1", "onnx:/lib/libonnxruntime.so.1"},
	} {
		if got := withOpsMode(tc.config); got != tc.want {
			t.Errorf("withOpsMode(%q) = %q, want %q", tc.config, got, tc.want)
		}
		if _, err := New(tc.config); err != nil && strings.HasPrefix(tc.config, "go") {
			t.Errorf("New(%q): %v", tc.config, err)
		}
	}
}

// XLA computes float32 matrix products in float32 unless the configuration asks for TF32
// (go-xla's default on CUDA): withPrecision writes tf32=false into every XLA configuration
// that does not name it, which Info.Config reports; Info.TF32 and the description say when
// TF32 was asked for.
func TestWithPrecision(t *testing.T) {
	for _, tc := range []struct {
		config, want string
		tf32         bool
	}{
		{"xla:cuda", "xla:cuda,tf32=false", false},
		{"xla:cpu", "xla:cpu,tf32=false", false},
		{"xla:cuda,preallocate=false", "xla:cuda,preallocate=false,tf32=false", false},
		{"xla", "xla:,tf32=false", false},
		{"xla:", "xla:,tf32=false", false},
		{"xla:cuda,tf32=false", "xla:cuda,tf32=false", false},
		{"xla:cuda,tf32=true", "xla:cuda,tf32=true", true},
		{"xla:cuda,tf32", "xla:cuda,tf32", true},
		{"xla:cuda,tf32=1", "xla:cuda,tf32=1", true},
		{"xla:cuda,notf32", "xla:cuda,notf32", false},
		{"xla:tf32", "xla:tf32,tf32=false", false}, // a plugin of that name
		{"gopatched", "gopatched", false},
		{"gopatched:devices=2", "gopatched:devices=2", false},
		{"onnx:/lib/libonnxruntime.so.1", "onnx:/lib/libonnxruntime.so.1", false},
	} {
		got := withPrecision(tc.config)
		if got != tc.want {
			t.Errorf("withPrecision(%q) = %q, want %q", tc.config, got, tc.want)
		}
		info := Info{Config: got, Name: "stand-in", Reason: "test"}
		if info.TF32() != tc.tf32 || strings.Contains(info.String(), "TF32") != tc.tf32 {
			t.Errorf("%q: TF32() = %v, description %q; want TF32 %v, said so", got, info.TF32(), info.String(), tc.tf32)
		}
	}
}

// An XLA backend on a GPU starts with XLA's deterministic operations unless XLA_FLAGS
// already decides them; the CPU plugin and the other backends leave XLA_FLAGS alone. Info
// reports a GPU whose flags turned them off, loudly.
func TestWithDeterminism(t *testing.T) {
	for _, tc := range []struct{ config, flags, want string }{
		{"xla:cuda", "", deterministicOps},
		{"xla:cuda,tf32=false", "--xla_gpu_autotune_level=0", "--xla_gpu_autotune_level=0 " + deterministicOps},
		{"xla", "", deterministicOps},
		{"xla:rocm", "", deterministicOps},
		{"xla:cuda", "--xla_gpu_deterministic_ops=false", "--xla_gpu_deterministic_ops=false"},
		{"xla:cuda", "--xla_gpu_exclude_nondeterministic_ops=true", "--xla_gpu_exclude_nondeterministic_ops=true"},
		{"xla:cpu", "", ""},
		{"gopatched", "", ""},
		{"onnx:/lib/libonnxruntime.so.1", "", ""},
	} {
		t.Setenv(xlaFlagsVar, tc.flags)
		withDeterminism(tc.config)
		if got := os.Getenv(xlaFlagsVar); got != tc.want {
			t.Errorf("%s with XLA_FLAGS=%q: XLA_FLAGS=%q, want %q", tc.config, tc.flags, got, tc.want)
		}
	}
	for _, tc := range []struct {
		flags string
		want  bool
	}{
		{deterministicOps, true},
		{"--xla_gpu_deterministic_ops", true},
		{"--xla_gpu_deterministic_ops=1", true},
		{"--xla_gpu_deterministic_ops=false", false},
		{deterministicOps + " --xla_gpu_deterministic_ops=false", false},
		{"--xla_gpu_exclude_nondeterministic_ops=true", false},
		{"", false},
	} {
		if got := deterministicFlags(tc.flags); got != tc.want {
			t.Errorf("deterministicFlags(%q) = %v, want %v", tc.flags, got, tc.want)
		}
	}
	for _, nondet := range []bool{false, true} {
		s := Info{Config: "xla:cuda,tf32=false", Name: "stand-in", Reason: "test", Accelerator: true, Nondeterministic: nondet}.String()
		if strings.Contains(s, "WARNING: not deterministic") != nondet {
			t.Errorf("Nondeterministic %v: %q", nondet, s)
		}
	}
}

func TestDefaultHonoursEnv(t *testing.T) {
	t.Setenv(EnvVar, PatchedGo)
	b, info, err := choose()
	if err != nil {
		t.Fatal(err)
	}
	if info.Config != "gopatched" || b == nil || !strings.Contains(info.Reason, EnvVar) {
		t.Errorf("choose() with %s=go: %+v", EnvVar, info)
	}
	t.Setenv(EnvVar, "bogus")
	if _, _, err := choose(); err == nil {
		t.Error("choose() with an unknown backend name: want an error, got nil")
	}
}

// Info counts the backend's devices: one for the pure-Go backend, or as many virtual devices
// as "devices=N" asks for (patch 09 of third_party/patches); its description says so.
func TestInfoNumDevices(t *testing.T) {
	for _, tc := range []struct {
		config string
		want   int
	}{{"gopatched", 1}, {"gopatched:devices=3", 3}} {
		t.Setenv(EnvVar, tc.config)
		b, info, err := choose()
		if err != nil {
			t.Fatal(err)
		}
		if info.NumDevices != tc.want || b.NumDevices() != tc.want {
			t.Errorf("%s: Info.NumDevices %d, backend %d; want %d", tc.config, info.NumDevices, b.NumDevices(), tc.want)
		}
		if has := strings.Contains(info.String(), fmt.Sprintf("; %d devices", tc.want)); has != (tc.want > 1) {
			t.Errorf("%s: %q should name the devices only when there are several", tc.config, info)
		}
	}
	t.Setenv(EnvVar, "gopatched:devices=0")
	if _, _, err := choose(); err == nil || !strings.Contains(err.Error(), "whole number of devices") {
		t.Errorf("gopatched:devices=0: error %v, want one that asks for a whole number of devices", err)
	}
}

// pluginBackend is a backend that names a PJRT plugin, as go-xla's does.
type pluginBackend struct {
	compute.Backend
	plugin string
}

func (p pluginBackend) PluginName() string { return p.plugin }

// Info.Accelerator is set for a backend on a PJRT plugin other than the CPU's, and only then.
func TestInfoAccelerator(t *testing.T) {
	t.Setenv(EnvVar, PatchedGo)
	b, info, err := choose()
	if err != nil {
		t.Fatal(err)
	}
	if info.Accelerator {
		t.Errorf("the pure-Go backend is reported as an accelerator")
	}
	for _, tc := range []struct {
		plugin string
		want   bool
	}{{"cuda", true}, {"CUDA", true}, {"rocm", true}, {"cpu", false}, {"", false}} {
		if got := newInfo(pluginBackend{b, tc.plugin}, "xla:"+tc.plugin, "r").Accelerator; got != tc.want {
			t.Errorf("plugin %q: Accelerator %v, want %v", tc.plugin, got, tc.want)
		}
	}
}

func TestFallbackWithoutPlugin(t *testing.T) {
	t.Setenv(EnvVar, "")
	_, info, err := choose()
	if err != nil {
		t.Fatal(err)
	}
	if info.Config == "" || info.Reason == "" || info.NumDevices < 1 {
		t.Errorf("choose() gave an empty choice: %+v", info)
	}
	t.Logf("chosen without %s: %s", EnvVar, info)
}

// The pure-Go backend's description says whether this binary has its SIMD kernels; others'
// do not mention them.
func TestInfoNamesSIMD(t *testing.T) {
	want := "no SIMD kernels: built without GOEXPERIMENT=simd"
	if SIMD {
		want = "SIMD kernels (GOEXPERIMENT=simd)"
	}
	for _, tc := range []struct {
		config string
		has    bool
	}{{"gopatched", true}, {"gopatched:ops_sequential", true}, {"xla:cpu", false}, {"onnx:/lib/libonnxruntime.so.1", false}} {
		s := Info{Config: tc.config, Name: "n", Reason: "r"}.String()
		if strings.Contains(s, "SIMD") != tc.has || (tc.has && !strings.Contains(s, want)) {
			t.Errorf("%s: %q; want SIMD mentioned %v (%q)", tc.config, s, tc.has, want)
		}
	}
}

// Only the pure-Go backend's kernel set is named; other backends run kernels of their own.
func TestInfoKernelSet(t *testing.T) {
	for _, tc := range []struct{ config, want string }{
		{"gopatched", simd.KernelSet()}, {"gopatched:ops_sequential", simd.KernelSet()}, {"xla:cpu", "none"}, {"xla:cuda", "none"}, {"onnx:/lib/libonnxruntime.so.1", "none"},
	} {
		if got := (Info{Config: tc.config}).KernelSet(); got != tc.want {
			t.Errorf("%s: kernel set %q, want %q", tc.config, got, tc.want)
		}
	}
	if got := (Info{Config: "gopatched"}).KernelSet(); got != simd.AVX2 && got != simd.AVX512 && got != simd.Generic {
		t.Errorf("pure Go: kernel set %q is none of avx2, avx512, generic", got)
	}
}

// Rows are sharded over the cores, and executions are cheap (the searches run one
// execution per step), only on the pure-Go backend.
func TestShards(t *testing.T) {
	for _, tc := range []struct {
		config string
		want   int
		cheap  bool
	}{{"gopatched", 0, true}, {"gopatched:ops_sequential", 0, true}, {"xla:cpu", 1, false}, {"onnx:/lib/libonnxruntime.so.1", 1, false}} {
		info := Info{Config: tc.config}
		if got := info.Shards(); got != tc.want {
			t.Errorf("%s: %d shards, want %d", tc.config, got, tc.want)
		}
		if got := info.ExecutionsCheap(); got != tc.cheap {
			t.Errorf("%s: executions cheap %v, want %v", tc.config, got, tc.cheap)
		}
	}
}

// TestPatchedComputeBackend checks that the build uses the patched copy of the pure-Go
// backend (third_party/README.md) as a package of this module: go.mod replaces nothing (a
// dependent would not get the replacement), the default backend is the copy, the copy still
// clears the vector registers' upper halves where the patch put it, and still has the
// faster kernels and ops, the reused workers, and their tests against references.
func TestPatchedComputeBackend(t *testing.T) {
	const copyDir = "./third_party/gobackend"
	mod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range strings.Split(string(mod), "\n") {
		if f := strings.Fields(line); len(f) > 0 && f[0] == "replace" {
			t.Errorf("go.mod has %q: a module that requires this one does not get it", line)
		}
	}
	if b, err := New(PatchedGo); err != nil {
		t.Fatal(err)
	} else if got := reflect.TypeOf(b).Elem().PkgPath(); got != "github.com/quce-go/quce/third_party/gobackend/internal/gobackend" {
		t.Errorf("%s is %s's backend, want the copy's", PatchedGo, got)
	}
	backendDir := filepath.Join("..", copyDir, "internal", "gobackend")
	for _, tc := range []struct {
		file, text string
		count      int
	}{
		{"dot/matmul/avx2_router.go", "archsimd.ClearAVXUpperBits()", 1},
		{"dot/matmul/avx2_small.go", "archsimd.ClearAVXUpperBits()", 4},
		{"dot/matmul/avx2_large.go", "archsimd.ClearAVXUpperBits()", 1},
		{"dot/matmul/avx2.go", "archsimd.ClearAVXUpperBits()", 2},
		{"dot/matmul/avx2_small.go", "is accumulated in registers over the", 1},
		{"dot/matmul/avx2_small.go", "Four output columns of a row at a time", 1},
		{"dot/matmul/avx2_small_test.go", "func TestAVX2SmallBitIdentical(", 1},
		{"ops/transpose.go", "Copy a whole run of the operand's last axis", 1},
		{"ops/transpose_runs_test.go", "func TestTransposeByRuns(", 1},
		{"ops/where.go", "whereSelect32(conditionFlat", 1},
		{"ops/where_test.go", "func TestWhereSelectsBits(", 1},
		{"dot/matmul/avx2_small.go", "avx2ReduceSum4Float32x8(acc0, acc1, acc2, acc3)", 1},
		{"dot/matmul/avx2_small.go", "mask := avx2TailMaskFloat32(rhsCrossSize - col)", 2},
		{"dot/matmul/avx2_small.go", "avx2TransposedPairsFloat32(lhsBase, rhsBase, outputBase", 1},
		{"dot/matmul/avx2_transposed_pairs_amd64.s", "VFMADD231PS", 8},
		{"dot/matmul/avx2_small.go", "for ; col+4*outputVecWidth <= rhsCrossSize; col += 4 * outputVecWidth {", 1},
		{"buffers.go", "buf.RawShape = shape\n", 1},
		{"buffers_pool_test.go", "func TestGetBufferWithoutAllocations(", 1},
		{"ops/avx2_where.go", "whereSelect32Vector = avx2WhereSelect32", 1},
		{"dot/matmul/avx2_small.go", "avx2RowFloat32(lBase, rhsBase, outBase", 1},
		{"ops/avx2_elementwise.go", "{compute.OpTypeMax, execMax},", 1},
		{"ops/avx2_elementwise.go", "return a.Merge(b, a.Less(b))", 1},
		{"workerspool/workerspool.go", "go w.work(task)", 1},
		{"workerspool/workerspool_reuse_test.go", "func TestPoolReusesWorkers(", 1},
		{"ops/unaryops.go", "boolToInt8(input > 0) - boolToInt8(input < 0)", 1},
		{"ops/sign_test.go", "func TestSignWithoutBranches(", 1},
		{"ops/avx2_elementwise.go", "avx2Float32BinaryExecutor(op.opType, op.generic)", 1},
		{"ops/avx2_elementwise.go", "avx2Float32UnaryExecutor(compute.OpTypeSqrt, execSqrt)", 1},
		{"ops/avx2_elementwise_test.go", "func TestAVX2ElementwiseBitIdentical(", 1},
		{"broadcast.go", "lhsStart + j*lhsStep", 1},
		{"broadcast_runs_test.go", "func TestZipIteratorByRuns(", 1},
		{"ops/slice.go", "copy(run, operandFlat[operandFlatIdx:operandFlatIdx+runLen])", 1},
		{"ops/slice_runs_test.go", "func TestSliceByRuns(", 1},
		{"ops/reduce.go", "it.NextRun()", 2},
		{"ops/reduce_runs_test.go", "func TestReduceSumByRuns(", 1},
		{"ops/transpose.go", "copy(outputFlat[outputIdx:outputIdx+run], operandFlat[start:start+run])", 1},
		{"ops/avx2_transpose.go", "TransposeDTypeMap.Register(dtypes.Float32, gobackend.PriorityArch, avx2TransposeFloat32)", 1},
		{"buffers.go", "if idx, ok := bucketPoolIndex(bucketedSize); ok {", 2},
		{"buffers.go", "b.Flat = c.flat", 1},
		{"buffers_pool_test.go", "func TestPooledBufferKeepsCasts(", 1},
		{"buffers_pool_test.go", "func TestPooledBufferRecast(", 1},
		{"fusedops/dense.go", "row[j] += b", 1},
		{"fusedops/dense_test.go", "func TestDenseAddBiasByRows(", 1},
		{"dot/matmul/avx512_router.go", "archsimd.ClearAVXUpperBits()", 1},
		{"dot/matmul/avx512_small.go", "archsimd.ClearAVXUpperBits()", 3},
		{"dot/matmul/avx512_large.go", "archsimd.ClearAVXUpperBits()", 1},
		{"dot/matmul/avx512.go", "archsimd.ClearAVXUpperBits()", 2},
		{"dot/matmul/upper_state_test.go", "func TestProductsLeaveUpperStateClean(", 1},
		{"dot/matmul/avx512.go", "envutil.ReadBool(envutil.GoBackendSIMD_AVX512, false)", 1},
		{"dot/matmul/avx512_choice_test.go", "func TestAVX512KernelsChosen(", 1},
		{"ops/avx2_elementwise.go", "avx2Float32BinaryBroadcast(opType, lhsFlat, rhsFlat, outFlat,", 1},
		{"broadcast.go", "func (zi *ZipIterator) NextRun(perAxesIdx []int, lhsStart, rhsStart int) (int, int)", 1},
		{"ops/avx2_elementwise.go", "node.BroadcastIterator(lhsShape, rhsShape)", 1},
		{"ops/avx2_elementwise_test.go", "{[]int{9, 1, 1}, []int{1, 1, 30}, []int{9, 1, 30}},", 1},
		{"gobackend.go", "b.numDevices = n", 1},
		{"exec.go", "if inputBuffer.device != defaultDevice {", 1},
		{"devices_test.go", "func TestVirtualDevices(", 1},
		{"ops/avx2_compare.go", "gobackend.SetPlannedNodeExecutor(compute.OpTypeGreaterOrEqual, gobackend.PriorityArch, avx2Float32GreaterOrEqualExecutor)", 1},
		{"ops/avx2_compare_test.go", "func TestAVX2GreaterOrEqualSameBools(", 1},
		{"dot/matmul/avx2_small.go", "avx2Rows6Float32(lhsBase+uintptr(row*contractingSize)*iSize, rhsBase", 1},
		{"dot/matmul/avx2_rows6_amd64.s", "VFMADD231PS", 12},
		{"dot/matmul/avx2_small_test.go", "for m := 1; m <= 13; m++ {", 1},
		{"ops/scatter.go", "if window, ok := contiguousScatterWindow(outputShape, indicesShape, updatesShape, scatterParams); ok {", 1},
		{"ops/scatter_runs_test.go", "func TestScatterContiguousWindows(", 1},
		{"ops/broadcastindim.go", "iter, repeat := broadcastPlan(operand.RawShape, output.RawShape, broadcastAxes)", 1},
		{"ops/broadcastindim_runs_test.go", "func TestBroadcastInDimByRuns(", 1},
		{"ops/reduce.go", "reduceByRuns(operand.Flat.(", 4},
		{"ops/argminmax.go", "argMinMaxLastAxis(operandFlat, currentArgBest, copyIntsFn, prefixSize, reduceSize, isMin)", 1},
		{"ops/reduce_runs_test.go", "func TestArgMinMaxLastAxis(", 1},
		{"executable.go", "for i, inputIdx := range inputIdxs {", 2},
		{"executable.go", "execBuf.checkOutputs = klog.V(1).Enabled()", 1},
		{"ops/avx2_elementwise.go", "broadcast := !(lhsIsScalarOr1 || rhsIsScalarOr1 || (len(lhsFlat) == size && len(rhsFlat) == size))", 1},
		{"passes/identity.go", "gobackend.RegisterTransformation(90, &IdentityElision{})", 1},
		{"passes/identity_test.go", "func TestIdentityElision(", 1},
		{"dot/matmul/avx2_small.go", "if groups := rhsCrossSize / (2 * outputVecWidth); groups > 0 {", 1},
		{"dot/matmul/avx2_small.go", "avx2SmallFourRowsFloat32(lhsBase, rhsBase, outputBase, row+2, rest, contractingSize, rhsCrossSize)", 1},
		{"dot/matmul/gen_avx2_small_f64.go", "func avx2SmallFourRowsFloat64(", 1},
		{"executable.go", "clear(execBuf.numUsed[:fe.NumNodesToProcess])", 1},
		{"executable.go", "outputNode.Index < fe.NumNodesToProcess && execBuf.results[outputNode.Index] == inputBuffers[i]", 1},
		{"ops/while.go", "Compiled.ExecuteHandingOver(backend, state,", 2},
		{"ops/reduce.go", "store := it.inline[:]", 1},
		{"ops/strides.go", "func stridesInto(s shapes.Shape, buf []int) (strides []int) {", 1},
		{"ops/slice.go", "operandFlatStrides := stridesInto(operand.RawShape, stridesStore[:])", 1},
		{"while_allocs_test.go", "func TestWhileIterationsAllocations(", 1},
		{"dot/dot.go", "normalizedOutputShape = outputShape", 1},
		{"dot/output_shape_test.go", "func TestProductWithoutReshape(", 1},
		{"passes/mulbyone.go", "gobackend.RegisterTransformation(95, &MulByOneElision{})", 1},
		{"passes/mulbyone_test.go", "func TestMulByOneElision(", 1},
		{"builder.go", "func (node *Node) StaticSize() (int, bool) {", 1},
		{"static_size_test.go", "func TestStaticSize(", 1},
		{"ops/avx2_elementwise.go", "size, static := node.StaticSize()", 1},
		{"executable.go", "err = fe.executeSimpleNode(backend, e, execBuf)", 1},
		{"executable.go", "fe.initSequentialPlan()", 1},
		{"sequential_test.go", "func TestSequentialMatchesParallel(", 1},
		{"ops/pad.go", "return padLastAxis(backend, node, operand, fillValue, params.axesConfig[operand.RawShape.Rank()-1], planned)", 1},
		{"ops/pad_runs_test.go", "func TestPadLastAxis(", 1},
		{"ops/reduce.go", "reduceSumLastAxis(flat, output.Flat.([]float32), operand.RawShape.Dimensions[rank-1])", 1},
		{"ops/reduce_runs_test.go", "func TestReduceSumLastAxis(", 1},
		{"workerspool/workerspool_test.go", "wantStarted := int32(min(2, runtime.GOMAXPROCS(0)))", 1},
		{"buffers.go", "ok && b.putLocalBuffer(idx, buffer) {", 1},
		{"localbuffers.go", "//go:linkname procPin runtime.procPin", 1},
		{"localbuffers_test.go", "func TestLocalBuffersSurviveGC(", 1},
		{"ops/reduce.go", "reduceSumFirstAxis(flat, output.Flat.([]float32))", 1},
		{"ops/reduce_runs_test.go", "func TestReduceSumFirstAxis(", 1},
		{"executable.go", "inputsOwned[i] = in.only && execBuf.owned[in.index]", 1},
		{"sequential_test.go", "func TestSequentialPlanAroundWhile(", 1},
		{"dot/matmul/avx2_small.go", "if backend.Workers != nil && batchSize > 1 {", 1},
		{"executable.go", "result, err = e.planned(backend, node, inputBuffers, inputsOwned, output)", 1},
		{"ops/avx2_elementwise.go", "output, _ = backend.PlannedOutput(node.Shape, planned)", 2},
		{"sequential_test.go", "func TestSequentialPlannedOutputs(", 1},
		{"ops/where.go", "case inputsOwned[1] && onTrue.RawShape.Equal(outputShape):", 1},
		{"executable.go", "err = fe.executeFused(backend, e, execBuf)", 1},
		{"ops/avx2_elementwise.go", "avx2Float32BinaryExecutor(op.opType, op.generic), avx2Float32Elementwise)", 1},
		{"sequential_test.go", "func TestSequentialFusedOperations(", 1},
		{"ops/slice.go", "gobackend.SetFusedView(compute.OpTypeSlice, sliceRun)", 1},
		{"sequential_test.go", "func TestSequentialFusedViews(", 1},
		{"executable.go", "run = fe.foldConstants(run)", 1},
		{"sequential_test.go", "func TestSequentialFoldsConstants(", 1},
		{"dot/matmul/avx2.go", "rhsCrossSize*contractingSize <= avx2SmallRHSMaxSize", 1},
		{"dot/matmul/avx2_router.go", "if avx2Small(lhsCrossSize, rhsCrossSize, contractingSize) {", 1},
		{"dot/matmul/avx2_internal_test.go", "func TestAVX2SmallChosen(", 1},
		{"ops/avx2_elementwise.go", "return avx2Float64BinaryExec(opType, backend, node, inputs, inputsOwned, planned, lhs, rhs, size)", 1},
		{"ops/avx2_convert.go", "ConvertDTypePairMap.Register(dtypes.Float32, dtypes.Float64, gobackend.PriorityArch", 1},
		{"ops/avx2_where.go", "whereSelect64Vector = avx2WhereSelect64", 1},
		{"ops/avx2_elementwise.go", "avx2Float32UnaryExecutor(compute.OpTypeAbs, execAbs), unaryKernel)", 1},
		{"ops/broadcastindim.go", "case repeat >= 8 && unsafe.Sizeof(operandFlat[0]) == 1:", 1},
	} {
		src, err := os.ReadFile(filepath.Join(backendDir, filepath.FromSlash(tc.file)))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), tc.text); n != tc.count {
			t.Errorf("%s has %q %d times; the patch has it %d times", tc.file, tc.text, n, tc.count)
		}
	}
}

// TestComputeCopyIsUpstreamPlusPatches checks that third_party/gobackend is exactly the
// module the patch series applies to, as the Go module proxy serves it, with
// third_party/patches applied in order, relocated into this module, with third_party/port
// applied: scripts/vendor-compute.sh rebuilds it (from Go's module cache when the module is
// there) and compares every file. A change made to the copy alone fails it.
func TestComputeCopyIsUpstreamPlusPatches(t *testing.T) {
	out, err := exec.Command("bash", filepath.Join("..", "scripts", "vendor-compute.sh"), "--check").CombinedOutput()
	if err != nil {
		t.Fatalf("scripts/vendor-compute.sh --check: %v\n%s", err, out)
	}
}

// Of describes a backend New made by its configuration, so the explainer's choices for it
// (shards, engine, batching) are those of Info; another backend, such as one wrapped by a
// caller, is described without one, and so as neither pure-Go nor patched.
func TestOf(t *testing.T) {
	b, err := New(PatchedGo)
	if err != nil {
		t.Fatal(err)
	}
	if got := Of(b); got.Config != PatchedGo || !got.PureGo() || !got.ExecutionsCheap() || got.Shards() != 0 || got.Accelerator {
		t.Errorf("Of(New(%q)) = %+v: want its configuration, pure-Go, a shard per core, no accelerator", PatchedGo, got)
	}
	wrapped := struct{ compute.Backend }{b}
	if got := Of(wrapped); got.Config != "" || got.PureGo() || got.Shards() != 1 {
		t.Errorf("Of(a wrapped backend) = %+v: want no configuration, not pure-Go, one shard", got)
	}
}
