//go:build amd64 && goexperiment.simd

package ops

// Where for 4-byte types eight elements at a time with AVX2 (and for 8-byte ones four at a time), the bits of onTrue or onFalse
// selected by the same mask as whereSelect32's scalar loop (a Go bool is stored as 0 or 1, so 0
// − condition is all zeros or all ones).

import (
	"simd/archsimd"
	"unsafe"
)

func init() {
	if archsimd.X86.AVX2() {
		whereSelect32Vector = avx2WhereSelect32
		whereSelect64Vector = avx2WhereSelect64
	}
}

// avx2WhereSelect32 selects output[i] = condition[i] ? onTrue[i·onTrueStep] :
// onFalse[i·onFalseStep] for the first len(condition) rounded down to 8 elements, and
// returns that number.
func avx2WhereSelect32(condition []uint8, onTrue, onFalse, output []uint32, onTrueStep, onFalseStep int) int {
	n := len(condition) &^ 7
	if n == 0 {
		return 0
	}
	var t, f archsimd.Uint32x8
	if onTrueStep == 0 {
		t = archsimd.BroadcastUint32x8(onTrue[0])
	}
	if onFalseStep == 0 {
		f = archsimd.BroadcastUint32x8(onFalse[0])
	}
	var zero archsimd.Int32x8
	for i := 0; i < n; i += 8 {
		c := *(*uint64)(unsafe.Pointer(&condition[i])) // eight bools, 0 or 1 each
		mask := zero.Sub(archsimd.BroadcastUint64x2(c).AsInt8x16().ExtendLo8ToInt32()).AsUint32x8()
		if onTrueStep != 0 {
			t = archsimd.LoadUint32x8(onTrue[i : i+8])
		}
		if onFalseStep != 0 {
			f = archsimd.LoadUint32x8(onFalse[i : i+8])
		}
		f.Xor(f.Xor(t).And(mask)).Store(output[i : i+8])
	}
	archsimd.ClearAVXUpperBits() // the scalar SSE code that follows pays no transition penalty
	return n
}

// avx2WhereSelect64 is avx2WhereSelect32 for 8-byte elements, four at a time.
func avx2WhereSelect64(condition []uint8, onTrue, onFalse, output []uint64, onTrueStep, onFalseStep int) int {
	n := len(condition) &^ 3
	if n == 0 {
		return 0
	}
	var t, f archsimd.Uint64x4
	if onTrueStep == 0 {
		t = archsimd.BroadcastUint64x4(onTrue[0])
	}
	if onFalseStep == 0 {
		f = archsimd.BroadcastUint64x4(onFalse[0])
	}
	var zero archsimd.Int64x4
	for i := 0; i < n; i += 4 {
		c := *(*uint32)(unsafe.Pointer(&condition[i])) // four bools, 0 or 1 each
		mask := zero.Sub(archsimd.BroadcastUint32x4(c).AsInt8x16().ExtendLo4ToInt64()).AsUint64x4()
		if onTrueStep != 0 {
			t = archsimd.LoadUint64x4(onTrue[i : i+4])
		}
		if onFalseStep != 0 {
			f = archsimd.LoadUint64x4(onFalse[i : i+4])
		}
		f.Xor(f.Xor(t).And(mask)).Store(output[i : i+4])
	}
	archsimd.ClearAVXUpperBits() // the scalar SSE code that follows pays no transition penalty
	return n
}
