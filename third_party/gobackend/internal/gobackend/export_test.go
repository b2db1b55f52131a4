package gobackend

import "github.com/gomlx/compute"

// PlannedOutputs is the number of nodes with a planned output in e's main function's
// sequential plan, and of the slots they share (see seqNode).
func PlannedOutputs(e compute.Executable) (nodes, slots int) {
	fe := e.(*Executable).mainFn
	for _, n := range fe.seqNodes {
		if n.slot >= 0 {
			nodes++
		}
	}
	return nodes, len(fe.seqSlots)
}

// FusedOperations is the number of groups of fused operations in e's main function's
// sequential plan, of the operations they run and of their inputs read in part, through a
// view from an offset (see seqFused).
func FusedOperations(e compute.Executable) (groups, operations, offsetViews int) {
	for _, n := range e.(*Executable).mainFn.seqNodes {
		if n.fused != nil {
			groups++
			operations += len(n.fused.steps)
			for _, in := range n.fused.inputs {
				if in.offset > 0 {
					offsetViews++
				}
			}
		}
	}
	return groups, operations, offsetViews
}

// FoldedConstants is the number of operations e's main function's sequential plan computed
// when it was made (see foldConstants).
func FoldedConstants(e compute.Executable) (folded int) {
	fe := e.(*Executable).mainFn
	for _, c := range fe.seqConstants {
		if fe.Function.Nodes[c.index].OpType != compute.OpTypeConstant {
			folded++
		}
	}
	return folded
}
