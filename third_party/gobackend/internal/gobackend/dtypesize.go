package gobackend

import "github.com/gomlx/compute/dtypes"

// DTypeSize is dtype.Size(), the bytes of one element, without going through reflect for
// the dtypes it lists (every operation's output buffer asks for it); any other dtype goes to
// dtype.Size(), which panics for a dtype it does not know.
func DTypeSize(dtype dtypes.DType) int {
	switch dtype {
	case dtypes.Bool, dtypes.Int8, dtypes.Uint8, dtypes.Int4, dtypes.Uint4, dtypes.Int2, dtypes.Uint2, dtypes.Int1, dtypes.Uint1:
		return 1
	case dtypes.Int16, dtypes.Uint16, dtypes.Float16, dtypes.BFloat16:
		return 2
	case dtypes.Int32, dtypes.Uint32, dtypes.Float32:
		return 4
	case dtypes.Int64, dtypes.Uint64, dtypes.Float64, dtypes.Complex64:
		return 8
	case dtypes.Complex128:
		return 16
	}
	return dtype.Size()
}

// byteSize is the bytes of n elements of dtype: dtype.SizeForDimensions(n) without its
// variadic slice, which escapes to the heap in compute's dtypes (an allocation for every
// buffer taken from the pool), and with DTypeSize.
func byteSize(dtype dtypes.DType, n int) int {
	if dtype.IsPacked() {
		return (n*dtype.Bits() + 7) / 8
	}
	return n * DTypeSize(dtype)
}
