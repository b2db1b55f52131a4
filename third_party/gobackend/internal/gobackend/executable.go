// Copyright 2023-2026 The GoMLX Authors. SPDX-License-Identifier: Apache-2.0

package gobackend

import (
	"slices"
	"sync"
	"sync/atomic"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/compute/support/humanize"
	"github.com/pkg/errors"
	"k8s.io/klog/v2"
)

// FunctionExecutable contains pre-compiled execution information for any function.
// This is used for both the main function and closures, unifying their execution model.
type FunctionExecutable struct {
	Backend *Backend
	Builder *Builder

	// Function is the source Function this was compiled from.
	Function *Function

	// NumNodesToProcess is the max(outputs.idx)+1.
	// Arrays are sized to this to allow direct idx indexing.
	NumNodesToProcess int

	// Schedule represents the order in which nodes should be executed.
	// This should be optimized to minimize the latency/temporary memory.
	Schedule []int

	// NumUses tracks how many times each node's result is used (indexed by idx).
	NumUses []int

	// Dependents maps each node (by idx) to the list of dependent node idxs.
	Dependents [][]int

	// OutputNodes are the nodes that produce the function's outputs.
	OutputNodes []*Node

	// MaxInputs is the maximum number of inputs any node has.
	MaxInputs int

	// InputIdxs are the indices of each node's inputs (indexed by idx), so that an
	// execution reads them from one array instead of from every input's Node (a cache miss
	// for each, which for graphs of small operations was a tenth of the time).
	InputIdxs [][]int

	// ExecutionBuffersPool allows reuse of execution buffers.
	ExecutionBuffersPool sync.Pool

	// What a sequential execution of static shapes runs, made once from Schedule: the
	// constants it reads (set before the nodes run) and the other nodes to run, in order,
	// with the executor of those executeSimpleNode runs. Parameters and captured values (set
	// by Execute), the outputs of multi-output nodes (set by those) and nodes no output reads
	// are left out, so the loop over the nodes does not look at them at every execution (a
	// While body's at every iteration).
	seqConstants []seqConstant
	seqNodes     []seqNode
	seqSlots     []shapes.Shape // the shapes of the slots of planned outputs (see seqNode)
}

// seqConstant is a constant node's index and value.
type seqConstant struct {
	index int
	value *Buffer
}

// seqNode is a node a sequential execution runs, with its executor where executeSimpleNode
// runs it (nil: executeNode).
//
// A sequential execution runs its nodes in one order, so which of a node's reads of an input
// is the input's last is known when the plan is made: executeSimpleNode takes it from
// inputs instead of counting each node's uses at run time (an atomic addition, a locked
// instruction, for every input of every node). executeNode, which counts, is given the
// counts its inputs would have by then in uses.
//
// The plan also gives the small outputs of executors that can take one (PlannedNodeExecutor)
// a buffer the execution keeps from one run to the next (a slot): the outputs of a While
// body's operations are then written into the same buffers at every iteration, without the
// buffer pool's work (getting, setting up and freeing a buffer, for a small operation as much
// as its arithmetic). A slot is shared by outputs of one shape whose lives do not overlap.
// A slot's buffer is never owned by the execution: it is never freed, never taken in place
// by an operation, and copied where it is a function's output (planned outputs are not).
type seqNode struct {
	node     *Node
	executor NodeExecutor
	inputs   []seqInput // executeSimpleNode: the node's inputs, in order
	uses     []seqUses  // executeNode: its inputs' and captured inputs' uses before it

	planned PlannedNodeExecutor // executeSimpleNode, where the executor has this form
	slot    int                 // the output's slot, with planned or fused; -1 for none

	fused *seqFused // executeFused: the group of fused operations node ends (inputs are its reads)
}

// plannedMaxBytes bounds the outputs planned in slots: the small operations whose pool work
// is a large part of their time.
const plannedMaxBytes = 16 << 10

// seqInput is an input of a node executeSimpleNode runs: its index, whether the node is its
// only remaining reader (an owned input can then be reused for the output) and whether this
// is its last use (an owned input is then freed after the node).
type seqInput struct {
	index     int
	only, end bool
}

// seqUses is the number of uses of the node index that the nodes before a node made.
type seqUses struct {
	index int
	uses  int32
}

// initSequentialPlan makes seqConstants and seqNodes from Schedule.
func (fe *FunctionExecutable) initSequentialPlan() {
	var run []*Node // the nodes to run, in schedule order
	for _, nodeIdx := range fe.Schedule {
		if fe.NumUses[nodeIdx] == 0 {
			continue
		}
		node := fe.Function.Nodes[nodeIdx]
		if node.IsNodeSelectOutput {
			continue // set by its multi-output node
		}
		switch node.OpType {
		case compute.OpTypeParameter, compute.OpTypeCapturedValue:
			continue
		case compute.OpTypeConstant:
			fe.seqConstants = append(fe.seqConstants, seqConstant{nodeIdx, node.Data.(*Buffer)})
			continue
		}
		run = append(run, node)
	}
	run = fe.foldConstants(run)
	groups, fusedAway := fe.fusionGroups(run)
	used := make([]int, fe.NumNodesToProcess) // uses by the nodes planned so far
	// readsOf sets entry.inputs to the reads of its node: executeNode's rules, an input is
	// owned if one use of it remains before the node runs, and freed after the use that
	// leaves none.
	readsOf := func(entry *seqNode, reads []int) {
		entry.inputs = make([]seqInput, len(reads))
		for i, inputIdx := range reads {
			entry.inputs[i] = seqInput{index: inputIdx, only: fe.NumUses[inputIdx]-used[inputIdx] == 1}
		}
		for i, inputIdx := range reads {
			used[inputIdx]++
			entry.inputs[i].end = used[inputIdx] == fe.NumUses[inputIdx]
		}
	}
	for _, node := range run {
		nodeIdx := node.Index
		if fusedAway[nodeIdx] {
			continue // run by its group's node
		}
		entry := seqNode{node: node, slot: -1}
		if group := groups[nodeIdx]; group != nil {
			entry.fused = group
			readsOf(&entry, group.reads)
			for i := range entry.inputs {
				entry.inputs[i].only = false // a group takes no input in place
			}
		} else if executor := nodeExecutors[node.OpType]; executor != nil && NodeClosureExecutors[node.OpType] == nil &&
			!node.IsMultiOutputs() && len(node.CapturedInputs) == 0 {
			entry.executor = executor
			readsOf(&entry, fe.InputIdxs[nodeIdx])
			entry.planned = plannedExecutors[node.OpType]
		} else {
			all := slices.Clone(fe.InputIdxs[nodeIdx])
			for _, closureCaptures := range node.CapturedInputs {
				for _, captured := range closureCaptures {
					all = append(all, captured.Index)
				}
			}
			for _, index := range all {
				if !slices.ContainsFunc(entry.uses, func(u seqUses) bool { return u.index == index }) {
					entry.uses = append(entry.uses, seqUses{index, int32(used[index])})
				}
			}
			for _, index := range all {
				used[index]++
			}
		}
		fe.seqNodes = append(fe.seqNodes, entry)
	}
	fe.planOutputs(used)
}

// foldedMaxBytes bounds the outputs foldConstants computes: constants made by broadcasting
// and reshaping small ones, not large tensors kept for the executable's life.
const foldedMaxBytes = 4 << 10

// foldConstants computes the plain operations of run (in plan order) that read only constants
// or outputs so computed, of static shape and at most foldedMaxBytes, once, when the plan is
// made, with their executors: their outputs join seqConstants, and the rest of run, which it
// returns, is what executions run. A broadcast, reshape or negation of a constant (what
// autodiff makes of scalars) is then not run at every execution, nor at every iteration of a
// While body. Only after the graph passes (Builder.optimized), which may still change nodes
// (and whose compilations of closures before them are thrown away); an operation whose
// executor fails is left to run (and fail) at execution.
func (fe *FunctionExecutable) foldConstants(run []*Node) []*Node {
	if fe.Builder == nil || !fe.Builder.optimized || fe.Backend == nil {
		return run
	}
	constant := make(map[int]*Buffer)
	for _, c := range fe.seqConstants {
		constant[c.index] = c.value
	}
	kept := run[:0:0]
	for _, node := range run {
		executor := nodeExecutors[node.OpType]
		foldable := executor != nil && NodeClosureExecutors[node.OpType] == nil && !node.IsMultiOutputs() &&
			len(node.CapturedInputs) == 0 && len(node.Inputs) > 0 && !node.Shape.IsDynamic() &&
			node.Shape.ByteSize() <= foldedMaxBytes
		var inputs []*Buffer
		for _, input := range node.Inputs {
			buf := constant[input.Index]
			foldable = foldable && buf != nil
			inputs = append(inputs, buf)
		}
		if foldable {
			if value := fold(fe.Backend, executor, node, inputs); value != nil {
				constant[node.Index] = value
				fe.seqConstants = append(fe.seqConstants, seqConstant{node.Index, value})
				continue
			}
		}
		kept = append(kept, node)
	}
	return kept
}

// fold is node's output computed by executor from the constants inputs, or nil where the
// executor fails (with an error or a panic).
func fold(backend *Backend, executor NodeExecutor, node *Node, inputs []*Buffer) (value *Buffer) {
	defer func() {
		if recover() != nil {
			value = nil
		}
	}()
	value, err := executor(backend, node, inputs, make([]bool, len(inputs)))
	if err != nil {
		return nil
	}
	return value
}

// seqFused is a group of float32 elementwise operations of one length that a sequential
// execution runs as one node, the group's last operation (its root, the seqNode's node): each
// operation's FusedKernel in plan order, on the flat operands, the outputs of all but the root
// in scratch memory (only members of the group read them) and the root's in the node's
// output. The same operations on the same operands as the operations' executors, without a
// node's dispatch, buffers and bookkeeping for each (for a graph of small operations, several
// times their arithmetic).
type seqFused struct {
	size   int          // the operations' length
	inputs []fusedInput // the runs of nodes' outputs the group reads, each once
	reads  []int        // the group's reads of nodes, one per operand (for the plan's use counts)
	steps  []fusedStep  // the operations, in plan order; the root last
}

// fusedInput is a run of a node's flat output that a group of fused operations reads: the
// whole of it, or, through a member that is a view (FusedView), size elements from offset.
type fusedInput struct {
	index, offset, length int
}

// fusedStep is an operation of a seqFused: each of its operands a and b is an index into the
// group's inputs (≥ 0) or ^k (< 0) for the output of the group's k-th operation; b is unused
// for a unary operation.
type fusedStep struct {
	opType compute.OpType
	kernel FusedKernel
	a, b   int
	unary  bool
}

// fusedMaxSize bounds the length of fused operations: the small ones, whose dispatch costs
// more than their arithmetic, with scratch memory of a few kilobytes.
const fusedMaxSize = 1024

// fusedViewOf reports whether node is a view a group can read in place (see FusedView): of a
// float32 operand of static shape, at most fusedMaxSize elements, and where it starts.
func fusedViewOf(node *Node) (offset int, ok bool) {
	view := fusedViews[node.OpType]
	if view == nil || node.IsMultiOutputs() || len(node.CapturedInputs) > 0 || len(node.Inputs) != 1 ||
		node.Shape.DType != dtypes.Float32 || node.Shape.IsDynamic() || node.Inputs[0].Shape.IsDynamic() ||
		node.Shape.Size() < 1 || node.Shape.Size() > fusedMaxSize {
		return 0, false
	}
	return view(node)
}

// fusibleNode reports whether node is an operation a group can run: a float32 operation of
// static shape, at most fusedMaxSize elements, with a FusedKernel, whose operands are float32
// of its length or of length 1.
func fusibleNode(node *Node) bool {
	if fusedKernels[node.OpType] == nil || node.IsMultiOutputs() || len(node.CapturedInputs) > 0 ||
		node.Shape.DType != dtypes.Float32 || node.Shape.IsDynamic() || len(node.Inputs) == 0 || len(node.Inputs) > 2 {
		return false
	}
	size := node.Shape.Size()
	if size < 1 || size > fusedMaxSize {
		return false
	}
	for _, input := range node.Inputs {
		if input.Shape.DType != dtypes.Float32 || input.Shape.IsDynamic() {
			return false
		}
		if n := input.Shape.Size(); n != size && n != 1 {
			return false
		}
	}
	return true
}

// fusionGroups finds the groups of operations of run (in plan order) that a sequential
// execution runs fused (see seqFused): by root, and the members other than roots. From the
// last operation back, an operation that can be fused and is not in a group yet roots one,
// and an operand joins its group where it can be fused or is a view of an operand outside the
// group (fusedViewOf), has the root's length, and every one of its reads is by a member of
// the group already (so never by a function's output); a group needs two members.
func (fe *FunctionExecutable) fusionGroups(run []*Node) (groups map[int]*seqFused, fusedAway map[int]bool) {
	pos := make(map[int]int, len(run))
	readers := make(map[int][]int) // a node's readers in run, once per read
	for i, node := range run {
		pos[node.Index] = i
		for _, input := range node.Inputs {
			readers[input.Index] = append(readers[input.Index], node.Index)
		}
		for _, closureCaptures := range node.CapturedInputs {
			for _, captured := range closureCaptures {
				readers[captured.Index] = append(readers[captured.Index], node.Index)
			}
		}
	}
	groups, fusedAway = make(map[int]*seqFused), make(map[int]bool)
	for i := len(run) - 1; i >= 0; i-- {
		root := run[i]
		if fusedAway[root.Index] || !fusibleNode(root) {
			continue
		}
		size := root.Shape.Size()
		inGroup := map[int]bool{root.Index: true}
		members := []*Node{root}
		for stack := []*Node{root}; len(stack) > 0; {
			c := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, p := range c.Inputs {
				_, view := fusedViewOf(p)
				if inGroup[p.Index] || fusedAway[p.Index] || groups[p.Index] != nil || !(view || fusibleNode(p)) ||
					p.Shape.Size() != size || len(readers[p.Index]) != fe.NumUses[p.Index] {
					continue
				}
				if _, planned := pos[p.Index]; !planned {
					continue
				}
				if !slices.ContainsFunc(readers[p.Index], func(r int) bool { return !inGroup[r] }) {
					inGroup[p.Index] = true
					members = append(members, p)
					stack = append(stack, p)
				}
			}
		}
		if len(members) < 2 {
			continue
		}
		slices.SortFunc(members, func(x, y *Node) int { return pos[x.Index] - pos[y.Index] })
		group := &seqFused{size: size}
		step := make(map[int]int, len(members)) // member → its step
		views := make(map[int]int)              // view member → what it reads, as an operand
		input := func(in fusedInput) int {
			group.reads = append(group.reads, in.index)
			if j := slices.Index(group.inputs, in); j >= 0 {
				return j
			}
			group.inputs = append(group.inputs, in)
			return len(group.inputs) - 1
		}
		operand := func(node *Node) int {
			if k, ok := step[node.Index]; ok {
				return ^k
			}
			if j, ok := views[node.Index]; ok {
				return j
			}
			return input(fusedInput{index: node.Index, length: node.Shape.Size()})
		}
		for _, m := range members {
			if m != root {
				fusedAway[m.Index] = true
			}
			if offset, ok := fusedViewOf(m); ok {
				q := m.Inputs[0]
				ref, inViews := views[q.Index]
				switch _, inSteps := step[q.Index]; {
				case inSteps: // a Reshape of a member's output (a view of another length is not one)
					views[m.Index] = ^step[q.Index]
				case inViews && ref < 0: // of a Reshape of a member's output
					views[m.Index] = ref
				case inViews: // of a run of an input: a run of that run, read once already
					in := group.inputs[ref]
					in.offset, in.length = in.offset+offset, size
					if j := slices.Index(group.inputs, in); j >= 0 {
						views[m.Index] = j
					} else {
						group.inputs = append(group.inputs, in)
						views[m.Index] = len(group.inputs) - 1
					}
				default:
					views[m.Index] = input(fusedInput{index: q.Index, offset: offset, length: size})
				}
				continue
			}
			s := fusedStep{opType: m.OpType, kernel: fusedKernels[m.OpType], a: operand(m.Inputs[0]), unary: len(m.Inputs) == 1}
			if !s.unary {
				s.b = operand(m.Inputs[1])
			}
			step[m.Index] = len(group.steps)
			group.steps = append(group.steps, s)
		}
		groups[root.Index] = group
	}
	return groups, fusedAway
}

// planOutputs gives slots (see seqNode) to the small static outputs of the planned nodes of
// seqNodes that only other nodes of the plan read (used counts their reads; a function's
// outputs are read by the caller too). A slot is taken at the node that writes it and given
// back after its output's last reader, so a node's output never shares a slot with its own
// inputs.
func (fe *FunctionExecutable) planOutputs(used []int) {
	lastRead := make([]int, fe.NumNodesToProcess)
	for pos, e := range fe.seqNodes {
		for _, in := range e.inputs { // executeSimpleNode's and executeFused's
			lastRead[in.index] = pos
		}
		for _, u := range e.uses { // executeNode's
			lastRead[u.index] = pos
		}
	}
	free := make(map[string][]int)  // slots free for outputs of a shape
	giveBack := make(map[int][]int) // slots given back after the node at a position
	for pos := range fe.seqNodes {
		e := &fe.seqNodes[pos]
		node := e.node
		// Not StaticSize, which keeps what it first finds: a closure is planned once when it
		// returns and again after the graph passes.
		if (e.planned != nil || e.fused != nil) && !node.Shape.IsDynamic() && node.Shape.Size() > 0 &&
			node.Shape.ByteSize() <= plannedMaxBytes &&
			used[node.Index] == fe.NumUses[node.Index] && lastRead[node.Index] > pos {
			key := node.Shape.String()
			if slots := free[key]; len(slots) > 0 {
				e.slot, free[key] = slots[len(slots)-1], slots[:len(slots)-1]
			} else {
				e.slot = len(fe.seqSlots)
				fe.seqSlots = append(fe.seqSlots, node.Shape)
			}
			giveBack[lastRead[node.Index]] = append(giveBack[lastRead[node.Index]], e.slot)
		}
		for _, slot := range giveBack[pos] {
			key := fe.seqSlots[slot].String()
			free[key] = append(free[key], slot)
		}
	}
}

// slotBuffer is the buffer of execBuf's slot, made at its first use.
func (fe *FunctionExecutable) slotBuffer(backend *Backend, execBuf *funcExecBuffers, slot int) (*Buffer, error) {
	if buf := execBuf.slots[slot]; buf != nil {
		return buf, nil
	}
	buf, err := backend.GetBuffer(fe.seqSlots[slot])
	if err != nil {
		return nil, err
	}
	buf.planned = true
	execBuf.slots[slot] = buf
	return buf, nil
}

// newFunctionExecutable creates a FunctionExecutable for the given function.
// The function must have Return() called (f.returned == true).
func newFunctionExecutable(f *Function) (*FunctionExecutable, error) {
	if !f.IsReturned {
		return nil, errors.Errorf("function must have Return() called before compilation")
	}

	// Calculate numNodesToProcess from outputs.
	// This has the benefit of immediately discarding nodes with idx > max(outputs.idx),
	// meaning nodes that outputs don't depend on.
	var numNodesToProcess int
	for _, output := range f.Outputs {
		numNodesToProcess = max(numNodesToProcess, output.Index+1)
	}

	fe := &FunctionExecutable{
		Backend:           f.RawBuilder.Backend,
		Builder:           f.RawBuilder,
		Function:          f,
		OutputNodes:       f.Outputs,
		NumNodesToProcess: numNodesToProcess,
		NumUses:           make([]int, numNodesToProcess),
		Dependents:        make([][]int, numNodesToProcess),
	}

	// Find max inputs (the maximum number of inputs any single node has),
	// including for captured inputs, and count uses/dependents
	fe.InputIdxs = make([][]int, numNodesToProcess)
	for nodeIdx := range numNodesToProcess {
		node := f.Nodes[nodeIdx]
		fe.InputIdxs[nodeIdx] = make([]int, len(node.Inputs))
		for i, input := range node.Inputs {
			fe.InputIdxs[nodeIdx][i] = input.Index
		}
		// Total inputs = regular inputs + all captured inputs across closures
		totalCaptured := 0
		for _, closureCaptures := range node.CapturedInputs {
			totalCaptured += len(closureCaptures)
		}
		totalInputs := len(node.Inputs) + totalCaptured
		fe.MaxInputs = max(fe.MaxInputs, totalInputs)
	}

	// Recursively count uses for each node starting from outputs.
	for _, output := range f.Outputs {
		fe.countNodeUsesAndDependents(output)
	}

	// Initialize execution buffers pool
	fe.ExecutionBuffersPool = sync.Pool{
		New: func() any {
			return &funcExecBuffers{
				results:       make([]*Buffer, numNodesToProcess),
				numUsed:       make([]atomic.Int32, numNodesToProcess),
				owned:         make([]bool, numNodesToProcess),
				remainingDeps: make([]int, numNodesToProcess),
			}
		},
	}

	fe.InitSchedule()
	fe.initSequentialPlan()

	if klog.V(1).Enabled() {
		klog.Infof("* Compiling function %q: estimated max temporary memory: %s\n",
			fe.Function.Name(), humanize.Bytes(fe.EstimatedTemporaryMemory()))
	}
	return fe, nil
}

// countNodeUsesAndDependents recursively counts how many times a node is used.
// It tracks both regular inputs and captured inputs (for closure-calling ops).
func (fe *FunctionExecutable) countNodeUsesAndDependents(node *Node) {
	nodeIdx := node.Index
	fe.NumUses[nodeIdx]++
	if fe.NumUses[nodeIdx] == 1 {
		// On the first visit, recursively traverse inputs of the node.
		for _, input := range node.Inputs {
			fe.Dependents[input.Index] = append(fe.Dependents[input.Index], nodeIdx)
			fe.countNodeUsesAndDependents(input)
		}
		// Also track captured inputs for closure-calling ops (If, While, Sort, etc.).
		// This ensures captured values are properly tracked in the dependency graph
		// so they can be freed when no longer needed.
		for _, closureCaptures := range node.CapturedInputs {
			for _, capturedInput := range closureCaptures {
				fe.Dependents[capturedInput.Index] = append(fe.Dependents[capturedInput.Index], nodeIdx)
				fe.countNodeUsesAndDependents(capturedInput)
			}
		}
	}
}

// funcExecBuffers holds intermediate results during function execution.
type funcExecBuffers struct {
	// results hold the calculated computations at each step (indexed by idx).
	results []*Buffer

	// numUsed tracks how many times each node has been used already.
	// Uses atomic.Int32 to allow safe concurrent reads in ownership checks.
	numUsed []atomic.Int32

	// owned indicates whether the corresponding buffer is owned by the executor.
	//
	// Notice different rows are written by different threads in parallel mode, but since
	// each row is 1 byte, and Go's thread sanitizer has an 8-bytes resolution, it may trigger
	// false race conditions. See discussion in github.com/gomlx/gomlx/issues/387
	//
	// Future: use a []int (int is 64 bits/8 bytes) instead of bool to avoid the issue?
	owned []bool

	// remainingDeps is the number of remaining dependencies for each node.
	remainingDeps []int

	// opsExecutionType can be sequential or parallel.
	opsExecutionType OpsExecutionType

	// checkOutputs is klog.V(1).Enabled() when the execution began: each output is then
	// checked (read once per execution rather than once per node).
	checkOutputs bool

	// Sequential execution-only: reused for each op.
	opInputBuffers []*Buffer
	opInputsOwned  []bool

	// What opInputBuffers and opInputsOwned are set to at the start of a sequential execution,
	// made by the first one.
	seqInputBuffers []*Buffer
	seqInputsOwned  []bool

	// The buffers of the slots of planned outputs (see seqNode), made at their first use and
	// kept with execBuf for its next execution.
	slots []*Buffer

	// executeFused's operands and scratch memory, kept with execBuf for its next execution.
	fusedInputs  [][]float32
	fusedScratch []float32

	// Parallel execution only: protects shared state.
	mu sync.Mutex
}

// Execute runs the compiled function with the given inputs.
// The inputs must match the function's parameters in count and shape.
// capturedInputs are the values captured from parent scopes (for closures).
// donateCaptures indicates which captured inputs can be donated to the closure.
// If donateCaptures is nil, no captured inputs will be donated.
// spec is the shape specialization for the current execution, or nil for static graphs.
func (fe *FunctionExecutable) Execute(backend *Backend, inputs []*Buffer, donate []bool, capturedInputs []*Buffer,
	donateCaptures []bool, spec *ShapeSpecialization) ([]*Buffer, error) {
	return fe.execute(backend, inputs, donate, capturedInputs, donateCaptures, spec, true)
}

// ExecuteHandingOver is Execute for a caller that keeps no other handle to the buffers it
// donates, such as a While loop to its state: the outputs the execution owns are handed over
// in the handles the execution has for them, not in new ones (an allocation for every output
// of every iteration of a loop).
func (fe *FunctionExecutable) ExecuteHandingOver(backend *Backend, inputs []*Buffer, donate []bool, capturedInputs []*Buffer,
	donateCaptures []bool, spec *ShapeSpecialization) ([]*Buffer, error) {
	return fe.execute(backend, inputs, donate, capturedInputs, donateCaptures, spec, false)
}

// execute is Execute, with newHandles saying whether the outputs the execution owns are given
// in new handles.
func (fe *FunctionExecutable) execute(backend *Backend, inputs []*Buffer, donate []bool, capturedInputs []*Buffer,
	donateCaptures []bool, spec *ShapeSpecialization, newHandles bool) ([]*Buffer, error) {
	// Use function's parameters (not builder.inputs) for proper function/closure support
	funcParams := fe.Function.Parameters
	if len(inputs) != len(funcParams) {
		return nil, errors.Errorf("function expects %d inputs, got %d",
			len(funcParams), len(inputs))
	}

	// Validate captured inputs count
	if len(capturedInputs) != len(fe.Function.CapturedLocalNodes) {
		return nil, errors.Errorf("function expects %d captured values, got %d",
			len(fe.Function.CapturedLocalNodes), len(capturedInputs))
	}

	// Get execution buffers from pool and reset. No other goroutine sees execBuf before the
	// execution starts, so the use counts are cleared as plain memory: an atomic store per
	// node (a locked instruction each) was a few percent of a small graph's execution, a
	// While body's at every iteration.
	execBuf := fe.ExecutionBuffersPool.Get().(*funcExecBuffers)
	clear(execBuf.numUsed[:fe.NumNodesToProcess])
	clear(execBuf.owned[:fe.NumNodesToProcess])
	clear(execBuf.results[:fe.NumNodesToProcess])
	clear(execBuf.remainingDeps[:fe.NumNodesToProcess])

	// Set up parameters from inputs using idx directly
	for i, inputNode := range funcParams {
		inputIdx := inputNode.Index
		execBuf.results[inputIdx] = inputs[i]
		execBuf.owned[inputIdx] = len(donate) > 0 && donate[i] // donate defaults to false
	}

	// Set up captured values from parent scope.
	// If donateCaptures[i] is true, the closure takes ownership of the buffer.
	for i, captureNode := range fe.Function.CapturedLocalNodes {
		captureIdx := captureNode.Index
		execBuf.results[captureIdx] = capturedInputs[i]
		execBuf.owned[captureIdx] = len(donateCaptures) > 0 && donateCaptures[i] // donateCaptures defaults to false
	}

	// Decide execution mode
	executionMode := backend.OpsExecutionType
	if executionMode == OpsExecutionDynamic {
		if backend.NumLiveExecutions.Load() <= 1 {
			executionMode = OpsExecutionParallel
		} else {
			executionMode = OpsExecutionSequential
		}
	}
	execBuf.opsExecutionType = executionMode
	execBuf.checkOutputs = klog.V(1).Enabled()

	// Execute
	var err error
	if executionMode == OpsExecutionSequential {
		err = fe.executeSequentially(backend, execBuf, spec)
	} else {
		err = fe.executeParallel(backend, execBuf, spec)
	}
	if err != nil {
		fe.ExecutionBuffersPool.Put(execBuf)
		return nil, err
	}

	// Collect outputs
	outputs := make([]*Buffer, len(fe.OutputNodes))
	for i, outNode := range fe.OutputNodes {
		outIdx := outNode.Index
		outputs[i] = execBuf.results[outIdx]
		if outputs[i] == nil {
			fe.ExecutionBuffersPool.Put(execBuf)
			return nil, errors.Errorf("output %d not computed", i)
		}
		if !execBuf.owned[outIdx] {
			// Clone the buffer since we don't own it
			outputs[i], err = backend.CloneBuffer(execBuf.results[outIdx])
			if err != nil {
				return nil, err
			}
		} else if newHandles {
			// We owned it, and now we are giving it to the user.
			// Return a shallow clone so the user can have a fresh handle,
			// while keeping the original handle (if it was a donated input) unchanged.
			//
			// If we return the same pointer, and the user calls Finalize() on it (which clears
			// the memory), then the user would be destroying the output they just received.
			outputs[i] = execBuf.results[outIdx].shallowClone()
		}
		execBuf.results[outIdx] = nil // Set to nil so it's not put back into the pool in the cleanup loop below.
	}

	// Free any remaining owned buffers that weren't outputs
	for idx, buf := range execBuf.results {
		if buf != nil {
			if execBuf.owned[idx] {
				backend.PutBuffer(buf)
			}
			execBuf.results[idx] = nil
		}
	}

	fe.ExecutionBuffersPool.Put(execBuf)
	return outputs, nil
}

// executeSequentially executes nodes one after another in topological order.
func (fe *FunctionExecutable) executeSequentially(backend *Backend, execBuf *funcExecBuffers, spec *ShapeSpecialization) error {
	// Input slices reused by every node, kept with execBuf for its next execution (a While
	// body's next iteration); executeNode may leave them shorter, so they are cut back to full
	// length from their capacity.
	if execBuf.seqInputBuffers == nil {
		execBuf.seqInputBuffers = make([]*Buffer, fe.MaxInputs)
		execBuf.seqInputsOwned = make([]bool, fe.MaxInputs)
	}
	execBuf.opInputBuffers = execBuf.seqInputBuffers
	execBuf.opInputsOwned = execBuf.seqInputsOwned
	defer func() {
		clear(execBuf.seqInputBuffers) // no buffer is kept alive by execBuf in the pool
		execBuf.opInputBuffers = nil
		execBuf.opInputsOwned = nil
	}()

	if spec == nil {
		if len(execBuf.slots) != len(fe.seqSlots) {
			execBuf.slots = make([]*Buffer, len(fe.seqSlots))
		}
		for _, c := range fe.seqConstants {
			execBuf.results[c.index] = c.value
		}
		for i := range fe.seqNodes {
			e := &fe.seqNodes[i]
			var err error
			if e.fused != nil {
				err = fe.executeFused(backend, e, execBuf)
			} else if e.executor != nil {
				err = fe.executeSimpleNode(backend, e, execBuf)
			} else {
				for _, u := range e.uses {
					execBuf.numUsed[u.index].Store(u.uses)
				}
				err = fe.executeNode(backend, e.node, execBuf, nil)
			}
			if err != nil {
				return err
			}
		}
		return nil
	}
	for _, nodeIdx := range fe.Schedule {
		if execBuf.results[nodeIdx] != nil {
			// Already computed (parameter)
			continue
		}
		if fe.NumUses[nodeIdx] == 0 {
			// Not used by any output: this effectively performs a dead code elimination (DCE).
			continue
		}
		if err := fe.executeNode(backend, spec.resolvedNodes[nodeIdx], execBuf, spec); err != nil {
			return err
		}
	}
	return nil
}

// executeParallel executes nodes in parallel based on dependency graph.
func (fe *FunctionExecutable) executeParallel(backend *Backend, execBuf *funcExecBuffers, spec *ShapeSpecialization) error {
	var (
		readyToExecute chan int
		collectErrors  []error
		execMu         sync.Mutex
	)
	readyToExecute = make(chan int, fe.NumNodesToProcess+10)
	stopExecutionFn := sync.OnceFunc(func() { close(readyToExecute) })

	expected := 0
	completed := 0

	// Count expected nodes and initialize dependencies
	// Dependencies include both regular inputs and captured inputs
	for _, nodeIdx := range fe.Schedule {
		if fe.NumUses[nodeIdx] > 0 {
			expected++
			node := fe.Function.Nodes[nodeIdx]
			// Total dependencies = regular inputs + all captured inputs across closures
			totalCaptured := 0
			for _, closureCaptures := range node.CapturedInputs {
				totalCaptured += len(closureCaptures)
			}
			execBuf.remainingDeps[nodeIdx] = len(node.Inputs) + totalCaptured
			if execBuf.remainingDeps[nodeIdx] == 0 {
				readyToExecute <- nodeIdx
			}
		}
	}

	appendErrorFn := func(err error) {
		execMu.Lock()
		defer execMu.Unlock()
		collectErrors = append(collectErrors, err)
		stopExecutionFn()
	}

	var wg sync.WaitGroup
	for nodeIdx := range readyToExecute {
		// Closure that executes one node.
		nodeExecFn := func() {
			defer wg.Done()
			node := fe.Function.Nodes[nodeIdx]
			if spec != nil {
				node = spec.resolvedNodes[nodeIdx]
			}

			defer func(nodeIdx int) {
				execMu.Lock()
				defer execMu.Unlock()
				if len(collectErrors) > 0 {
					return
				}
				completed++
				if completed == expected {
					stopExecutionFn()
					return
				}

				if node.IsMultiOutputs() {
					// Handle multi-output nodes: update dependents of each output.
					for _, outputNode := range node.MultiOutputsNodes {
						outputIdx := outputNode.Index
						if outputIdx >= fe.NumNodesToProcess || fe.NumUses[outputIdx] == 0 {
							continue
						}
						completed++
						if completed == expected {
							stopExecutionFn()
							return
						}
						for _, depIdx := range fe.Dependents[outputIdx] {
							execBuf.remainingDeps[depIdx]--
							if execBuf.remainingDeps[depIdx] == 0 {
								readyToExecute <- depIdx
							}
						}
					}
				} else {
					// Single output node.
					for _, depIdx := range fe.Dependents[nodeIdx] {
						execBuf.remainingDeps[depIdx]--
						if execBuf.remainingDeps[depIdx] == 0 {
							readyToExecute <- depIdx
						}
					}
				}
			}(nodeIdx)

			if execBuf.results[nodeIdx] != nil {
				return
			}
			if fe.NumUses[nodeIdx] == 0 {
				return
			}

			if err := fe.executeNode(backend, node, execBuf, spec); err != nil {
				appendErrorFn(err)
				return
			}
		}

		wg.Add(1)
		backend.Workers.WaitToStart(nodeExecFn)
	}

	// Wait for all nodes to complete before exit (to avoid race condition where some execution
	// is cleaning up while execBuf is being reused).
	wg.Wait()

	if len(collectErrors) > 0 {
		return collectErrors[0]
	}
	return nil
}

// executeSimpleNode is executeNode in a sequential execution for a node with one output, no
// closures and an executor (most of a graph's operations): the same steps, without what only
// the other kinds of node and a parallel execution need, and with the inputs' last uses
// from the plan (see seqNode).
func (fe *FunctionExecutable) executeSimpleNode(backend *Backend, e *seqNode, execBuf *funcExecBuffers) error {
	node := e.node
	inputBuffers := execBuf.opInputBuffers[:len(e.inputs)]
	inputsOwned := execBuf.opInputsOwned[:len(e.inputs)]
	for i, in := range e.inputs {
		buf := execBuf.results[in.index]
		if buf == nil {
			return errors.Errorf("input %d for node %s not computed yet", i, node.OpType)
		}
		if !buf.InUse {
			return errors.Errorf("input %d for node %s has been released already!?", i, node.OpType)
		}
		inputBuffers[i] = buf
		inputsOwned[i] = in.only && execBuf.owned[in.index]
	}
	var result *Buffer
	var err error
	switch {
	case e.slot >= 0:
		var output *Buffer
		if output, err = fe.slotBuffer(backend, execBuf, e.slot); err == nil {
			result, err = e.planned(backend, node, inputBuffers, inputsOwned, output)
		}
	case e.planned != nil:
		result, err = e.planned(backend, node, inputBuffers, inputsOwned, nil)
	default:
		result, err = e.executor(backend, node, inputBuffers, inputsOwned)
	}
	if err != nil {
		return errors.WithMessagef(err, "executing %s", node.OpType)
	}
	if execBuf.checkOutputs {
		if err := result.Check(); err != nil {
			klog.Errorf("executing single output %s: output buffer %p: %v", node.OpType, result, err)
		}
	}
	execBuf.results[node.Index] = result
	execBuf.owned[node.Index] = !result.planned
	// Free the inputs this was the last use of.
	for i, in := range e.inputs {
		buf := inputBuffers[i]
		if buf == nil {
			// Consumed by the operation (reused for its output).
			execBuf.results[in.index] = nil
			continue
		}
		if in.end && execBuf.owned[in.index] {
			if result == buf {
				return errors.Errorf("op %s reused input %d as output but didn't set input to nil in buffer slice",
					node.OpType, i)
			}
			backend.PutBuffer(buf)
			execBuf.results[in.index] = nil
		}
	}
	return nil
}

// executeFused runs the group of fused operations e ends (see seqFused), as executeSimpleNode
// runs a node.
func (fe *FunctionExecutable) executeFused(backend *Backend, e *seqNode, execBuf *funcExecBuffers) error {
	group, node := e.fused, e.node
	inputs := execBuf.fusedInputs[:0]
	for i, in := range group.inputs {
		buf := execBuf.results[in.index]
		if buf == nil || !buf.InUse {
			return errors.Errorf("input %d of the operations fused into %s is not available", i, node.OpType)
		}
		inputs = append(inputs, buf.Flat.([]float32)[in.offset:in.offset+in.length])
	}
	execBuf.fusedInputs = inputs
	n := group.size
	if need := n * (len(group.steps) - 1); len(execBuf.fusedScratch) < need {
		execBuf.fusedScratch = make([]float32, need)
	}
	var output *Buffer
	var err error
	if e.slot >= 0 {
		output, err = fe.slotBuffer(backend, execBuf, e.slot)
	} else {
		output, err = backend.GetBuffer(node.Shape)
	}
	if err != nil {
		return errors.WithMessagef(err, "executing the operations fused into %s", node.OpType)
	}
	operand := func(ref int) []float32 {
		if ref >= 0 {
			return inputs[ref]
		}
		k := ^ref
		return execBuf.fusedScratch[k*n : (k+1)*n]
	}
	last := len(group.steps) - 1
	for k, s := range group.steps {
		out := output.Flat.([]float32)
		if k < last {
			out = execBuf.fusedScratch[k*n : (k+1)*n]
		}
		var b []float32
		if !s.unary {
			b = operand(s.b)
		}
		s.kernel(s.opType, out, operand(s.a), b)
	}
	execBuf.results[node.Index] = output
	execBuf.owned[node.Index] = !output.planned
	// Free the inputs this was the last use of.
	for _, in := range e.inputs {
		if buf := execBuf.results[in.index]; in.end && buf != nil && execBuf.owned[in.index] {
			backend.PutBuffer(buf)
			execBuf.results[in.index] = nil
		}
	}
	return nil
}

// executeNode executes a single node and stores its result.
func (fe *FunctionExecutable) executeNode(backend *Backend, node *Node, execBuf *funcExecBuffers, spec *ShapeSpecialization) error {
	nodeIdx := node.Index

	// Handle constants specially
	if node.OpType == compute.OpTypeConstant {
		execBuf.owned[nodeIdx] = false
		execBuf.results[nodeIdx] = node.Data.(*Buffer)
		return nil
	}

	// Note: OpTypeParameter and OpTypeCapturedValue nodes have their results
	// set up in Execute() and should never reach executeNode.
	// We don't check for them here for performance (this is the inner execution loop).

	// Prepare inputs
	numInputs := len(node.Inputs)
	var (
		inputBuffers []*Buffer
		inputsOwned  []bool
	)
	if execBuf.opInputBuffers != nil {
		inputBuffers = execBuf.opInputBuffers[:numInputs]
		inputsOwned = execBuf.opInputsOwned[:numInputs]
	} else {
		inputBuffers = make([]*Buffer, numInputs)
		inputsOwned = make([]bool, numInputs)
	}

	// Gather inputs. In parallel mode, we do NOT hold a lock here - the dependency
	// tracking ensures inputs are ready. The lock is only used in cleanup.
	inputIdxs := fe.InputIdxs[nodeIdx]
	for i, inputIdx := range inputIdxs {
		inputBuffers[i] = execBuf.results[inputIdx]
		if inputBuffers[i] == nil {
			return errors.Errorf("input %d for node %s not computed yet", i, node.OpType)
		}
		if !inputBuffers[i].InUse {
			return errors.Errorf("input %d for node %s has been released already!?", i, node.OpType)
		}
		// Only "own" the input if this is the last use of it.
		// The atomic Load is safe for concurrent access - if we miss ownership,
		// the buffer just won't be reused in-place. The important thing
		// is we don't free the buffer until all users have finished (handled in cleanup).
		inputsOwned[i] = execBuf.owned[inputIdx] &&
			fe.NumUses[inputIdx]-int(execBuf.numUsed[inputIdx].Load()) == 1
	}

	// lockIfNeededFn should be called before the execBuf slices are updated.
	// It's refactored here is a closure so the code doens't need to be duplicated in the
	// switch clause below.
	lockIfNeededFn := func() {
		if execBuf.opsExecutionType == OpsExecutionParallel {
			execBuf.mu.Lock()
		}
	}

	// Check for closure executor first (If, While, Sort).
	// Closure executors receive captured inputs separately with explicit ownership tracking.
	closureExecutor := NodeClosureExecutors[node.OpType]
	switch {
	case closureExecutor != nil:
		// Build []ClosureInputs from node.capturedInputs (already grouped per closure).
		closureInputs := make([]ClosureInputs, len(node.CapturedInputs))
		for closureIdx, closureCaptures := range node.CapturedInputs {
			closureInputs[closureIdx] = ClosureInputs{
				Buffers: make([]*Buffer, len(closureCaptures)),
				Owned:   make([]bool, len(closureCaptures)),
			}
			for i, capturedNode := range closureCaptures {
				capturedIdx := capturedNode.Index
				closureInputs[closureIdx].Buffers[i] = execBuf.results[capturedIdx]
				if closureInputs[closureIdx].Buffers[i] == nil {
					return errors.Errorf("captured input %d for closure %d of node %s not computed yet",
						i, closureIdx, node.OpType)
				}
				// Only "own" the captured input if this is the last use of it.
				closureInputs[closureIdx].Owned[i] = execBuf.owned[capturedIdx] &&
					fe.NumUses[capturedIdx]-int(execBuf.numUsed[capturedIdx].Load()) == 1
			}
		}

		outputBuffers, err := closureExecutor(backend, node, inputBuffers, inputsOwned, closureInputs)
		if err != nil {
			return errors.WithMessagef(err, "executing closure op %s", node.OpType)
		}
		if execBuf.checkOutputs {
			for _, outputBuf := range outputBuffers {
				if err := outputBuf.Check(); err != nil {
					klog.Errorf("executing closure op %s: output buffer %p: %v", node.OpType, outputBuf, err)
				}
			}
		}

		// Check if any captured inputs were consumed (set to nil by the executor).
		// If so, mark execBuf.results as nil to indicate they're no longer available.
		for closureIdx, closureCaptures := range node.CapturedInputs {
			for i, capturedNode := range closureCaptures {
				if closureInputs[closureIdx].Buffers[i] == nil {
					execBuf.results[capturedNode.Index] = nil
				}
			}
		}

		// Write outputs to execBuf (closure ops are always multi-output style), or free those no longer
		// needed.
		lockIfNeededFn()
		for outputIdx, outputBuf := range outputBuffers {
			outputNode := node.MultiOutputsNodes[outputIdx]
			outputNodeIdx := outputNode.Index
			if outputNodeIdx >= fe.NumNodesToProcess || fe.NumUses[outputNodeIdx] == 0 {
				backend.PutBuffer(outputBuf)
				continue
			}
			execBuf.results[outputNodeIdx] = outputBuf
			execBuf.owned[outputNodeIdx] = true
		}

	case node.IsMultiOutputs():
		// Execute the node
		multiExecutor := MultiOutputsNodeExecutors[node.OpType]
		if multiExecutor == nil {
			return errors.Errorf("no multi-output executor for op %s", node.OpType)
		}

		outputBuffers, err := multiExecutor(backend, node, inputBuffers, inputsOwned)
		if err != nil {
			return errors.WithMessagef(err, "executing multi-output %s", node.OpType)
		}
		if execBuf.checkOutputs {
			for _, outputBuf := range outputBuffers {
				if err := outputBuf.Check(); err != nil {
					klog.Errorf("executing multi-output %s: output buffer %p: %v", node.OpType, outputBuf, err)
				}
			}
		}

		// Write outputs to execBuf (multi-output ops are always multi-output style), or free those no longer
		// needed.
		lockIfNeededFn()
		for outputIdx, outputBuf := range outputBuffers {
			outputNode := node.MultiOutputsNodes[outputIdx]
			outputNodeIdx := outputNode.Index
			if outputNodeIdx >= fe.NumNodesToProcess || fe.NumUses[outputNodeIdx] == 0 {
				// Output of node is not used by any other node, we can immediately release it.
				backend.PutBuffer(outputBuf)
				continue
			}
			execBuf.results[outputNodeIdx] = outputBuf
			execBuf.owned[outputNodeIdx] = true
		}

	default:
		// Single output node:
		executor := nodeExecutors[node.OpType]
		if executor == nil {
			return errors.Errorf("no executor for op %s", node.OpType)
		}

		result, err := executor(backend, node, inputBuffers, inputsOwned)
		if err != nil {
			return errors.WithMessagef(err, "executing %s", node.OpType)
		}
		if execBuf.checkOutputs {
			if err := result.Check(); err != nil {
				klog.Errorf("executing single output %s: output buffer %p: %v", node.OpType, result, err)
			}
		}

		// Write result to execBuf (single output node), or free it if not needed.
		lockIfNeededFn()
		execBuf.results[nodeIdx] = result
		execBuf.owned[nodeIdx] = true
	}
	// At the exit of the switch statement, lockIfNeededFn() must have been called,
	// so we can write further updates to execBuf

	// Update usage counts and free unused buffers.
	for i, inputIdx := range inputIdxs {
		newCount := execBuf.numUsed[inputIdx].Add(1) // Mark this input as used.
		if inputBuffers[i] == nil {
			// Input buffer is nil, means it has been consumed by the operation.
			// Mark that the associated results is no longer available.
			execBuf.results[inputIdx] = nil
			continue
		}
		if !inputBuffers[i].InUse {
			return errors.Errorf("input #%d for node %s has been released, but not marked as consumed!?",
				i, node.OpType)
		}
		if int(newCount) == fe.NumUses[inputIdx] && execBuf.owned[inputIdx] {
			// Check if it is reused as one of the outputs -- common for in-place operations, like in exec_binary.go.
			// The contract is that if the input is reused, the operator must set the input buffer to nil in the input slice.
			// If we find the input buffer reused as an output but it is not nil here, it is a bug in the operator implementation.
			if node.IsMultiOutputs() {
				for outIdx, outputNode := range node.MultiOutputsNodes {
					// An output nothing reads is not processed: it has no result slot.
					if outputNode.Index < fe.NumNodesToProcess && execBuf.results[outputNode.Index] == inputBuffers[i] {
						return errors.Errorf("op %s (output %d) reused input %d as output but didn't set input to nil in buffer slice", node.OpType, outIdx, i)
					}
				}
			} else if execBuf.results[nodeIdx] == inputBuffers[i] {
				return errors.Errorf("op %s reused input %d as output but didn't set input to nil in buffer slice",
					node.OpType, i)
			}

			// Release the input buffer - all users have finished.
			backend.PutBuffer(inputBuffers[i])
			execBuf.results[inputIdx] = nil
		}
	}
	// Also update usage counts for captured inputs.
	// These are treated as additional inputs for lifetime tracking.
	for _, closureCaptures := range node.CapturedInputs {
		for _, capturedInput := range closureCaptures {
			capturedIdx := capturedInput.Index
			newCount := execBuf.numUsed[capturedIdx].Add(1)
			capturedBuf := execBuf.results[capturedIdx]
			if capturedBuf == nil {
				continue
			}
			if int(newCount) == fe.NumUses[capturedIdx] && execBuf.owned[capturedIdx] {
				// Release the captured buffer - all uses have finished.
				backend.PutBuffer(capturedBuf)
				execBuf.results[capturedIdx] = nil
			}
		}
	}
	if execBuf.opsExecutionType == OpsExecutionParallel {
		// Unlock if it's a parallel execution.
		execBuf.mu.Unlock()
	} else {
		// For sequential execution, we store the input buffers and ownership slices
		// to save an allocation for these slices in the next time it is executed.
		execBuf.opInputBuffers = inputBuffers
		execBuf.opInputsOwned = inputsOwned
	}
	return nil
}

// EstimatedTemporaryMemory estimates the memory used for the function if executed sequentially.
//
// It assumes temporary memory is used for every node output (using Shape.ByteSize()),
// and released everytime one node output is no longer needed (its output has been used
// fe.NumUses[nodeIdx] times). It does not actually execute the nodes, just simulates the
// execution to report back the maximum temporary memory live at any time.
func (fe *FunctionExecutable) EstimatedTemporaryMemory() int64 {
	var currentMemory int64
	var maxMemory int64
	numUsed := make([]int, fe.NumNodesToProcess)
	computed := make([]bool, fe.NumNodesToProcess)

	// Pre-mark parameters and captured values as computed.
	for _, node := range fe.Function.Parameters {
		if node.Index < fe.NumNodesToProcess {
			computed[node.Index] = true
		}
	}
	for _, node := range fe.Function.CapturedLocalNodes {
		if node.Index < fe.NumNodesToProcess {
			computed[node.Index] = true
		}
	}

	for _, nodeIdx := range fe.Schedule {
		if computed[nodeIdx] {
			continue
		}
		if fe.NumUses[nodeIdx] == 0 {
			continue
		}

		node := fe.Function.Nodes[nodeIdx]

		if node.OpType == compute.OpTypeParameter ||
			node.OpType == compute.OpTypeConstant ||
			node.OpType == compute.OpTypeCapturedValue {
			computed[nodeIdx] = true
			continue
		}

		// Allocate memory for this node's output(s)
		if node.IsMultiOutputs() {
			for _, outputNode := range node.MultiOutputsNodes {
				if outputNode.Index >= fe.NumNodesToProcess || fe.NumUses[outputNode.Index] == 0 {
					continue
				}
				computed[outputNode.Index] = true
				currentMemory += outputNode.Shape.ByteSize()
			}
		} else {
			computed[nodeIdx] = true
			currentMemory += node.Shape.ByteSize()
		}

		if currentMemory > maxMemory {
			maxMemory = currentMemory
		}

		// Simulate the release of inputs
		for _, input := range node.Inputs {
			inputIdx := input.Index
			numUsed[inputIdx]++
			if numUsed[inputIdx] == fe.NumUses[inputIdx] {
				inputNode := fe.Function.Nodes[inputIdx]
				if inputNode.OpType != compute.OpTypeParameter &&
					inputNode.OpType != compute.OpTypeConstant &&
					inputNode.OpType != compute.OpTypeCapturedValue &&
					!inputNode.IsMultiOutputs() {
					currentMemory -= inputNode.Shape.ByteSize()
				}
			}
		}

		// Simulate the release of captured inputs
		for _, closureCaptures := range node.CapturedInputs {
			for _, capturedInput := range closureCaptures {
				capturedIdx := capturedInput.Index
				numUsed[capturedIdx]++
				if numUsed[capturedIdx] == fe.NumUses[capturedIdx] {
					capturedNode := fe.Function.Nodes[capturedIdx]
					if capturedNode.OpType != compute.OpTypeParameter &&
						capturedNode.OpType != compute.OpTypeConstant &&
						capturedNode.OpType != compute.OpTypeCapturedValue &&
						!capturedNode.IsMultiOutputs() {
						currentMemory -= capturedNode.Shape.ByteSize()
					}
				}
			}
		}
	}

	return maxMemory
}
