package ops

import (
	"slices"
	"unsafe"

	"github.com/gomlx/compute"
	"github.com/gomlx/compute/shapeinference"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

func init() {
	gobackend.RegisterWhere.Register(Where, gobackend.PriorityGeneric)
	gobackend.SetPlannedNodeExecutor(compute.OpTypeWhere, gobackend.PriorityGeneric, execWhere)
}

// Where implements the compute.Builder interface.
func Where(f *gobackend.Function, conditionOp, onTrueOp, onFalseOp compute.Value) (compute.Value, error) {
	inputs, err := f.VerifyAndCastValues("Where", conditionOp, onTrueOp, onFalseOp)
	if err != nil {
		return nil, err
	}
	condition, onTrue, onFalse := inputs[0], inputs[1], inputs[2]
	outputShape, err := shapeinference.Where(condition.Shape, onTrue.Shape, onFalse.Shape)
	if err != nil {
		return nil, err
	}
	// The executor takes each operand as a scalar or of the output's dimensions. Shape
	// inference also accepts operands of the output's rank with axes of dimension 1
	// (broadcast along them): those are broadcast first.
	operands := []*gobackend.Node{condition, onTrue, onFalse}
	for i, operand := range operands {
		if operand.Shape.IsScalar() || slices.Equal(operand.Shape.Dimensions, outputShape.Dimensions) {
			continue
		}
		target := outputShape.Clone()
		target.DType = operand.Shape.DType
		axes := make([]int, operand.Shape.Rank())
		for axis := range axes {
			axes[axis] = axis
		}
		broadcast, err := f.BroadcastInDim(operand, target, axes)
		if err != nil {
			return nil, err
		}
		operands[i] = broadcast.(*gobackend.Node)
	}
	node, _ := f.GetOrCreateNode(compute.OpTypeWhere, outputShape, operands, nil)
	return node, nil
}

func execWhere(backend *gobackend.Backend, node *gobackend.Node, inputs []*gobackend.Buffer, inputsOwned []bool, planned *gobackend.Buffer) (*gobackend.Buffer, error) {
	condition, onTrue, onFalse := inputs[0], inputs[1], inputs[2]

	// Figure out what the outputBuffer is going to be.
	outputShape := node.Shape

	var output *gobackend.Buffer
	var err error
	// Ownership first: most operands are not owned, and comparing shapes (a walk over both
	// dimensions) was half of a small Where's time.
	switch {
	case inputsOwned[1] && onTrue.RawShape.Equal(outputShape):
		output = onTrue
		inputs[1] = nil
	case inputsOwned[2] && onFalse.RawShape.Equal(outputShape):
		output = onFalse
		inputs[2] = nil
	default:
		output, err = backend.PlannedOutput(node.Shape, planned)
		if err != nil {
			return nil, err
		}
	}
	tmpAny, tmpErr := whereDTypeMap.Get(outputShape.DType)
	if tmpErr != nil {
		panic(tmpErr)
	}
	fn := tmpAny.(func(conditionBuf, onTrueBuf, onFalseBuf, outputBuf *gobackend.Buffer))
	fn(condition, onTrue, onFalse, output)
	return output, nil
}

//gobackend:dtypemap execWhereGeneric ints,uints,floats,half,bool
var whereDTypeMap = gobackend.NewDTypeMap("Where")

func execWhereGeneric[T gobackend.SupportedTypesConstraints](conditionBuf, onTrueBuf, onFalseBuf, outputBuf *gobackend.Buffer) {
	if conditionBuf.RawShape.IsScalar() {
		// Case 1: condition is a scalar, either we take onTrue or onFalse as a whole (with potential broadcast).
		if conditionBuf.Flat.([]bool)[0] {
			execWhereSetOutputWithValue[T](outputBuf, onTrueBuf)
		} else {
			execWhereSetOutputWithValue[T](outputBuf, onFalseBuf)
		}
		return
	}

	conditionFlat := conditionBuf.Flat.([]bool)
	onTrueFlat := onTrueBuf.Flat.([]T)
	onFalseFlat := onFalseBuf.Flat.([]T)
	outputFlat := outputBuf.Flat.([]T)
	onTrueIsScalar := onTrueBuf.RawShape.IsScalar()
	onFalseIsScalar := onFalseBuf.RawShape.IsScalar()
	onTrue := onTrueFlat[0]
	onFalse := onFalseFlat[0]
	if unsafe.Sizeof(onTrue) == 4 {
		whereSelect32(conditionFlat, onTrueFlat, onFalseFlat, outputFlat, onTrueIsScalar, onFalseIsScalar)
		return
	}
	if unsafe.Sizeof(onTrue) == 8 && whereSelect64Vector != nil {
		whereSelect64(conditionFlat, onTrueFlat, onFalseFlat, outputFlat, onTrueIsScalar, onFalseIsScalar)
		return
	}
	for outputIdx, condition := range conditionFlat {
		if condition {
			if !onTrueIsScalar {
				onTrue = onTrueFlat[outputIdx]
			}
			outputFlat[outputIdx] = onTrue
		} else {
			if !onFalseIsScalar {
				onFalse = onFalseFlat[outputIdx]
			}
			outputFlat[outputIdx] = onFalse
		}
	}
}

// whereSelect32 is Where for 4-byte types, without a branch per element.
//
// The condition of a ReLU's gradient is close to random, and the branches of the generic loop
// cost more than the copy itself. This selects the bits of onTrue or onFalse with a mask made
// from the condition (a Go bool is stored as 0 or 1), so the output is bit for bit what the
// generic loop writes.
func whereSelect32[T gobackend.SupportedTypesConstraints](condition []bool, onTrue, onFalse, output []T, onTrueIsScalar, onFalseIsScalar bool) {
	conditionBytes := unsafe.Slice((*uint8)(unsafe.Pointer(unsafe.SliceData(condition))), len(condition))
	onTrueBits := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(onTrue))), len(onTrue))
	onFalseBits := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(onFalse))), len(onFalse))
	outputBits := unsafe.Slice((*uint32)(unsafe.Pointer(unsafe.SliceData(output))), len(output))[:len(condition)]
	onTrueStep, onFalseStep := 1, 1
	if onTrueIsScalar {
		onTrueStep = 0
	}
	if onFalseIsScalar {
		onFalseStep = 0
	}
	start := 0
	if whereSelect32Vector != nil {
		start = whereSelect32Vector(conditionBytes, onTrueBits, onFalseBits, outputBits, onTrueStep, onFalseStep)
	}
	for outputIdx := start; outputIdx < len(conditionBytes); outputIdx++ {
		t, f := onTrueBits[outputIdx*onTrueStep], onFalseBits[outputIdx*onFalseStep]
		outputBits[outputIdx] = f ^ ((f ^ t) & -uint32(conditionBytes[outputIdx]))
	}
}

// whereSelect64 is whereSelect32 for 8-byte types (float64 sums picked per row).
func whereSelect64[T gobackend.SupportedTypesConstraints](condition []bool, onTrue, onFalse, output []T, onTrueIsScalar, onFalseIsScalar bool) {
	conditionBytes := unsafe.Slice((*uint8)(unsafe.Pointer(unsafe.SliceData(condition))), len(condition))
	onTrueBits := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(onTrue))), len(onTrue))
	onFalseBits := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(onFalse))), len(onFalse))
	outputBits := unsafe.Slice((*uint64)(unsafe.Pointer(unsafe.SliceData(output))), len(output))[:len(condition)]
	onTrueStep, onFalseStep := 1, 1
	if onTrueIsScalar {
		onTrueStep = 0
	}
	if onFalseIsScalar {
		onFalseStep = 0
	}
	start := whereSelect64Vector(conditionBytes, onTrueBits, onFalseBits, outputBits, onTrueStep, onFalseStep)
	for outputIdx := start; outputIdx < len(conditionBytes); outputIdx++ {
		t, f := onTrueBits[outputIdx*onTrueStep], onFalseBits[outputIdx*onFalseStep]
		outputBits[outputIdx] = f ^ ((f ^ t) & -uint64(conditionBytes[outputIdx]))
	}
}

// whereSelect64Vector is whereSelect32Vector for 8-byte types, four at a time.
var whereSelect64Vector func(condition []uint8, onTrue, onFalse, output []uint64, onTrueStep, onFalseStep int) int

// whereSelect32Vector, where the CPU has it (avx2_where.go), does whereSelect32's selection for
// the first elements, eight at a time with the same mask, and returns how many it did.
var whereSelect32Vector func(condition []uint8, onTrue, onFalse, output []uint32, onTrueStep, onFalseStep int) int

func execWhereSetOutputWithValue[T gobackend.SupportedTypesConstraints](outputBuf, valueBuf *gobackend.Buffer) {
	if valueBuf == outputBuf {
		// The output is reusing the value buffer, nothing to do.
		return
	}
	if valueBuf.RawShape.Equal(outputBuf.RawShape) {
		// Copy over values.
		copy(outputBuf.Flat.([]T), valueBuf.Flat.([]T))
		return
	}
	// Value must then be a scalar:
	c := valueBuf.Flat.([]T)[0]
	outputSlice := outputBuf.Flat.([]T)
	for outputIdx := range outputSlice {
		outputSlice[outputIdx] = c
	}
}
