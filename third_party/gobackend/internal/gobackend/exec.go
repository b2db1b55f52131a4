// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

package gobackend

import (
	"sync"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapes"
	"github.com/pkg/errors"
)

var _ compute.Executable = (*Executable)(nil)

// Executable holds a frozen Builder. It assumes the graph in Builder is valid and has been properly
// checked that all the shapes and data types are valid.
//
// If any inconsistencies are found, please fix in the Builder, so Executable can be written without the need
// of any duplicate checks.
type Executable struct {
	backend *Backend

	// builder must have Builder.compiled set to true, so it is no longer active.
	builder *Builder

	// mainFn is the compiled main function.
	mainFn *FunctionExecutable

	// specializations caches resolved-shape versions of the graph for dynamic graphs.
	// map[string]*ShapeSpecialization where key is bindings.Key()
	specializations sync.Map
}

// Compile time check.
var _ compute.Executable = (*Executable)(nil)

// Finalize immediately frees resources associated with the executable.
//
// TODO: Race-condition where calling Finalize will make execution crash, if finalized while executing.
//
//	Make Finalize wait for all the current executions to exit, before finalizing.
//	And add a latch indicating Finalize has been called, to tell the executions to exit immediately
//	without finishing. Finally, remove the `e.builder == nil` checks, that won't be necessary anymore,
//	since e.builder will never be set to nil while there is an execution alive.
func (e *Executable) Finalize() {
	e.builder.Finalize()
	e.builder = nil
	e.specializations.Clear()
}

// Inputs returns the list of parameters names and shapes, in order created by the Builder.Parameter calls.
func (e *Executable) Inputs() (names []string, inputShapes []shapes.Shape) {
	params := e.builder.MainFn.Parameters
	numInputs := len(params)
	if numInputs == 0 {
		return
	}
	names = make([]string, numInputs)
	inputShapes = make([]shapes.Shape, numInputs)
	for ii, node := range params {
		parameter := node.Data.(*NodeParameter)
		names[ii] = parameter.Name
		inputShapes[ii] = node.Shape
	}
	return
}

// Outputs returns the output shapes of the computation, in order given to the Builder.Compile call.
func (e *Executable) Outputs() (outputShapes []shapes.Shape) {
	outputs := e.builder.MainFn.Outputs
	numOutputs := len(outputs)
	if numOutputs == 0 {
		return
	}
	outputShapes = make([]shapes.Shape, numOutputs)
	for ii, node := range outputs {
		outputShapes[ii] = node.Shape
	}
	return outputShapes
}

// newExecutable creates an Executable ready to run the graph built with builder.
// The main function must have been compiled (via Return() and then any
// duplicate output handling in Builder.Compile()).
func newExecutable(builder *Builder, mainFn *FunctionExecutable) *Executable {
	return &Executable{
		backend: builder.Backend,
		builder: builder,
		mainFn:  mainFn,
	}
}

// NodeExecutor for the given operation type.
//
// It is given the buffers for its inputs, and a reserved buffer where to store its output, already
// with the shape pre-calculated.
type NodeExecutor func(backend *Backend, node *Node, inputs []*Buffer, inputsOwned []bool) (*Buffer, error)

// nodeMultiOutputExecutor is a version of a node executor when it returns multiple outputs.
type nodeMultiOutputExecutor func(backend *Backend, node *Node, inputs []*Buffer, inputsOwned []bool) ([]*Buffer, error)

// ClosureInputs holds the captured inputs and their ownership for a single closure.
// This is used to pass captured values to closure-calling operations (If, While, Sort).
type ClosureInputs struct {
	// Buffers are the captured input buffers for the closure.
	Buffers []*Buffer
	// Owned indicates which captured inputs can be donated to the closure.
	// If Owned[i] is true, the closure takes ownership of Buffers[i].
	Owned []bool
}

// nodeClosureExecutor is an executor for operations that call closures (If, While, Sort).
// It receives captured inputs separately from regular inputs with explicit ownership tracking.
// This allows proper buffer donation for captured values.
// closureInputs is a slice with one entry per closure the operation uses.
type nodeClosureExecutor func(backend *Backend, node *Node, inputs []*Buffer, inputsOwned []bool, closureInputs []ClosureInputs) ([]*Buffer, error)

// PlannedNodeExecutor is a NodeExecutor that can write its output into a buffer a sequential
// execution planned for it: output is a buffer of node.Shape (static) that the execution
// keeps from one run to the next, or nil, where the executor gets its output as a
// NodeExecutor does (PlannedOutput). It returns the buffer it wrote: output, an input it owns
// and took in place, or one it got itself. The contents of output are what it last held.
type PlannedNodeExecutor func(backend *Backend, node *Node, inputs []*Buffer, inputsOwned []bool, output *Buffer) (*Buffer, error)

// FusedKernel computes a float32 elementwise operation of opType into out, element by element
// exactly as the executor registered for opType computes its float32 output: a and b have
// out's length or length 1 (broadcast); b is nil for a unary operation. out never shares
// memory with a or b.
type FusedKernel func(opType compute.OpType, out, a, b []float32)

var (
	// plannedExecutors are the PlannedNodeExecutor forms of nodeExecutors, where the registered
	// executor has one (SetPlannedNodeExecutor).
	plannedExecutors [compute.OpTypeLast]PlannedNodeExecutor

	// fusedKernels are the kernels of the registered executors that have one
	// (SetFusibleNodeExecutor).
	fusedKernels [compute.OpTypeLast]FusedKernel

	// fusedViews are the FusedView of the operations that have one (SetFusedView).
	fusedViews [compute.OpTypeLast]FusedView

	// nodeExecutors should be populated during initialization (`init` functions) for the ops implemented.
	// For the nodes not implemented, leave it as nil, and it will return an error.
	//
	// nodeExecutors should be populated with a priority (see setNodeExecutor), which can conctorl whether
	// to overwrite a nodeExecutors configuration independent of the order of settting.
	nodeExecutors         [compute.OpTypeLast]NodeExecutor
	nodeExecutorsPriority [compute.OpTypeLast]RegisterPriority

	// MultiOutputsNodeExecutors should be populated during initialization for the multi-output ops
	// implemented. E.g.: RNGBitGenerator.
	MultiOutputsNodeExecutors [compute.OpTypeLast]nodeMultiOutputExecutor

	// NodeClosureExecutors should be populated during initialization for ops that call closures.
	// E.g.: If, While, Sort.
	// These executors receive captured inputs separately with explicit ownership tracking.
	NodeClosureExecutors [compute.OpTypeLast]nodeClosureExecutor
)

// RegisterPriority defines the priority of a node executor. Highest priority takes precedence.
// Anything with priority < 0 is ignored.
type RegisterPriority int

const (
	PriorityGeneric RegisterPriority = 0
	PriorityTyped   RegisterPriority = 1   // Specialized typed implementation.
	PriorityArch    RegisterPriority = 10  // Specialized architecture implementation.
	PriorityUser    RegisterPriority = 100 // Custom user overrides.
)

// SetNodeExecutor sets the node executor for the given operation type with the specified priority.
// If the priority is lower than the current priority for the operation type, the executor is ignored.
func SetNodeExecutor(opType compute.OpType, priority RegisterPriority, executor NodeExecutor) {
	if priority < nodeExecutorsPriority[opType] {
		// We have something registered with higher priority, ignore.
		return
	}
	nodeExecutorsPriority[opType] = priority
	nodeExecutors[opType] = executor
	plannedExecutors[opType] = nil
	fusedKernels[opType] = nil
	fusedViews[opType] = nil
}

// SetPlannedNodeExecutor is SetNodeExecutor for an executor that can write into a planned
// output: it runs as the NodeExecutor (without a planned output) everywhere, and sequential
// executions plan outputs for it (see seqNode).
func SetPlannedNodeExecutor(opType compute.OpType, priority RegisterPriority, executor PlannedNodeExecutor) {
	if priority < nodeExecutorsPriority[opType] {
		return
	}
	SetNodeExecutor(opType, priority, executor.Executor())
	plannedExecutors[opType] = executor
}

// SetFusibleNodeExecutor is SetPlannedNodeExecutor for an elementwise operation whose float32
// outputs kernel computes as executor does: sequential executions may run it fused with
// others (see seqFused).
func SetFusibleNodeExecutor(opType compute.OpType, priority RegisterPriority, executor PlannedNodeExecutor, kernel FusedKernel) {
	if priority < nodeExecutorsPriority[opType] {
		return
	}
	SetPlannedNodeExecutor(opType, priority, executor)
	fusedKernels[opType] = kernel
}

// Plans reports whether sequential executions plan the outputs of opType's nodes (its
// executor was registered with SetPlannedNodeExecutor) and whether they may fuse them (with
// SetFusibleNodeExecutor): which executors are registered depends on the build (the float32
// elementwise ones are the AVX2 executors of a GOEXPERIMENT=simd build on amd64).
func Plans(opType compute.OpType) (planned, fused bool) {
	return plannedExecutors[opType] != nil, fusedKernels[opType] != nil
}

// FusedView reports whether node's output is a contiguous run of its operand's flat elements,
// and where it starts: a Reshape (at 0), or a Slice of one run. A group of fused operations
// (see seqFused) reads such an output in place, in its operand.
type FusedView func(node *Node) (offset int, ok bool)

// SetFusedView sets the FusedView of opType's nodes, for the executor registered for opType:
// SetNodeExecutor drops it.
func SetFusedView(opType compute.OpType, view FusedView) { fusedViews[opType] = view }

// Executor is p as a NodeExecutor: one that gets its output itself.
func (p PlannedNodeExecutor) Executor() NodeExecutor {
	return func(backend *Backend, node *Node, inputs []*Buffer, inputsOwned []bool) (*Buffer, error) {
		return p(backend, node, inputs, inputsOwned, nil)
	}
}

// PlannedOutput is a PlannedNodeExecutor's output buffer of shape (its node's, or the node's
// made concrete): output where the execution planned one (only for static shapes), else
// GetBuffer(shape).
func (b *Backend) PlannedOutput(shape shapes.Shape, output *Buffer) (*Buffer, error) {
	if output != nil {
		return output, nil
	}
	return b.GetBuffer(shape)
}

type OpsExecutionType int

const (
	OpsExecutionDynamic OpsExecutionType = iota
	OpsExecutionParallel
	OpsExecutionSequential
)

// Execute the executable on defaultDevice: its outputs are on that device.
// The number and shapes of the inputs must match those returned by Inputs, and every input
// must be on defaultDevice: an input on another device is an error, as on real hardware,
// rather than copied (CopyToDevice copies), so that multi-device code tested on the virtual
// devices (the "devices" option) moves its data as it must on accelerators.
//
// The inputs marked in `donate` will become invalid after use.
// This is useful if the input buffer is no longer needed or if updating a variable
// so its Buffer space can be reused as an output Buffer.
//
// Donated buffers are no longer valid after the call.
// If donate is nil, it is assumed to be false for all buffers, and no buffer is donated.
func (e *Executable) Execute(inputs []compute.Buffer, donate []bool, defaultDevice compute.DeviceNum) ([]compute.Buffer, error) {
	// Keep the live executions count.
	e.backend.NumLiveExecutions.Add(1)
	defer e.backend.NumLiveExecutions.Add(-1)

	if err := e.backend.checkDevice(defaultDevice); err != nil {
		return nil, errors.WithMessage(err, "Execute")
	}

	// Check inputs length
	params := e.builder.MainFn.Parameters
	if len(inputs) != len(params) {
		return nil, errors.Errorf("Execute: expected %d inputs, got %d", len(params), len(inputs))
	}

	// donate defaults to false for all buffers.
	if len(donate) == 0 {
		donate = make([]bool, len(inputs))
	}

	// Check input shapes and convert to *Buffer
	bufInputs := make([]*Buffer, len(inputs))
	for ii, input := range inputs {
		if input == nil {
			return nil, errors.Errorf("Execute: input buffer #%d is nil!?", ii)
		}
		inputBuffer, ok := input.(*Buffer)
		if !ok {
			return nil, errors.Errorf("Execute: input buffer #%d is not from Go backend", ii)
		}
		if !inputBuffer.InUse {
			return nil, errors.Errorf(
				"Execute: input buffer (%p) #%d is not valid, likely it is being used after being released",
				inputBuffer, ii)
		}
		if inputBuffer.Flat == nil {
			return nil, errors.Errorf("Execute: input buffer #%d flat data is set to nil (!?)", ii)
		}
		if inputBuffer.device != defaultDevice {
			return nil, errors.Errorf("Execute: input buffer #%d is on device %d, but %q executes on device %d "+
				"-- copy it there first (Buffer.CopyToDevice)", ii, inputBuffer.device, e.builder.name, defaultDevice)
		}
		nodeInput := params[ii]
		if !nodeInput.Shape.IsDynamic() {
			if !inputBuffer.RawShape.EqualDimensions(nodeInput.Shape) {
				return nil, errors.Errorf("Execute: parameter %q (input #%d) for %q: expected shape %s, got %s",
					nodeInput.Data.(*NodeParameter).Name, ii, e.builder.name, nodeInput.Shape, inputBuffer.RawShape)
			}
			if inputBuffer.RawShape.DType != nodeInput.Shape.DType {
				return nil, errors.Errorf("Execute: parameter %q (input #%d) for %q: expected DType %s, got %s",
					nodeInput.Data.(*NodeParameter).Name, ii, e.builder.name, nodeInput.Shape.DType, inputBuffer.RawShape.DType)
			}
		} else {
			// In the case of dynamic shapes, we only check the DType and Rank.
			// The dimensions are used to extract bindings below.
			if inputBuffer.RawShape.DType != nodeInput.Shape.DType {
				return nil, errors.Errorf("Execute: parameter %q (input #%d) for %q: expected DType %s, got %s",
					nodeInput.Data.(*NodeParameter).Name, ii, e.builder.name, nodeInput.Shape.DType, inputBuffer.RawShape.DType)
			}
			if inputBuffer.RawShape.Rank() != nodeInput.Shape.Rank() {
				return nil, errors.Errorf("Execute: parameter %q (input #%d) for %q: expected rank %d, got %d",
					nodeInput.Data.(*NodeParameter).Name, ii, e.builder.name, nodeInput.Shape.Rank(), inputBuffer.RawShape.Rank())
			}
		}
		bufInputs[ii] = inputBuffer
	}

	// Handle dynamic shapes: extract bindings and get specialization.
	var spec *ShapeSpecialization
	if hasDynamicParameters(params) {
		bindings, err := extractBindingsFromInputs(params, bufInputs)
		if err != nil {
			return nil, errors.WithMessage(err, "Execute")
		}
		spec, err = e.getOrCreateSpecialization(bindings)
		if err != nil {
			return nil, errors.WithMessage(err, "Execute")
		}
	}

	// Delegate to FunctionExecutable
	// Main function doesn't have captured values, so pass nil for both
	outputs, err := e.mainFn.Execute(e.backend, bufInputs, donate, nil, nil, spec)
	if err != nil {
		return nil, err
	}

	// Convert outputs to compute.Buffer
	result := make([]compute.Buffer, len(outputs))
	for i, out := range outputs {
		out.device = defaultDevice
		result[i] = out
	}
	return result, nil
}
