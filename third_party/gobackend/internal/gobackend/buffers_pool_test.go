package gobackend

// Buffer pools found by index, a buffer's last cast reused, and no allocation to take a buffer
// from the pool.

import (
	"reflect"
	"testing"
	"unsafe"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/gomlx/compute/support"
)

func TestBucketPoolIndex(t *testing.T) {
	seen := map[int]int{}
	for size := 0; size <= 1<<20; size++ {
		bucket := support.TwoBitBucketLen(size)
		idx, ok := bucketPoolIndex(bucket)
		if !ok || idx < 0 || idx >= 128 {
			t.Fatalf("bucket %d (of size %d): index %d, %v", bucket, size, idx, ok)
		}
		if other, dup := seen[idx]; dup && other != bucket {
			t.Fatalf("buckets %d and %d share index %d", other, bucket, idx)
		}
		seen[idx] = bucket
	}
	for _, size := range []int{5, 7, 9, 10, 100, 1<<40 + 1} {
		if _, ok := bucketPoolIndex(size); ok {
			t.Errorf("size %d is not a bucket but got an index", size)
		}
	}
	if idx, ok := bucketPoolIndex(1 << 62); !ok || idx >= 128 {
		t.Errorf("the largest bucket: index %d, %v", idx, ok)
	}
}

func TestPooledBufferRecast(t *testing.T) {
	b := newDefaultBackend()
	get := func(dtype dtypes.DType, n int) *Buffer {
		buf, err := b.GetBuffer(shapes.Make(dtype, n))
		if err != nil {
			t.Fatal(err)
		}
		return buf
	}
	// 6 float32 and 5 int32 (24 and 20 bytes) share the 24-byte bucket; the same memory must
	// come back cast to each request's type and length.
	for _, tc := range []struct {
		dtype dtypes.DType
		n     int
	}{{dtypes.Float32, 6}, {dtypes.Float32, 6}, {dtypes.Int32, 5}, {dtypes.Float32, 5}, {dtypes.Float32, 6}} {
		buf := get(tc.dtype, tc.n)
		var n int
		var data unsafe.Pointer
		switch flat := buf.Flat.(type) {
		case []float32:
			n, data = len(flat), unsafe.Pointer(unsafe.SliceData(flat))
			if tc.dtype != dtypes.Float32 {
				t.Fatalf("asked for %s, got %T", tc.dtype, buf.Flat)
			}
		case []int32:
			n, data = len(flat), unsafe.Pointer(unsafe.SliceData(flat))
			if tc.dtype != dtypes.Int32 {
				t.Fatalf("asked for %s, got %T", tc.dtype, buf.Flat)
			}
		}
		if n != tc.n || data != unsafe.Pointer(unsafe.SliceData(buf.RawBytes)) {
			t.Fatalf("asked for %d %s: got %d elements at %p, RawBytes at %p", tc.n, tc.dtype, n, data, unsafe.SliceData(buf.RawBytes))
		}
		b.PutBuffer(buf)
	}
}

// TestGetBufferWithoutAllocations: once the pool holds a buffer of the size, taking it and
// giving it back allocates nothing (the shape is kept as given, not copied, and its size in
// bytes is computed without a slice on the heap), and the buffer has the shape asked for.
func TestGetBufferWithoutAllocations(t *testing.T) {
	b := newDefaultBackend()
	for _, shape := range []shapes.Shape{
		shapes.Make(dtypes.Float32, 10, 64), shapes.Make(dtypes.Float32), shapes.Make(dtypes.Int32, 3, 4, 5),
	} {
		cycle := func() {
			buf, err := b.GetBuffer(shape)
			if err != nil {
				t.Fatal(err)
			}
			if !buf.RawShape.Equal(shape) {
				t.Fatalf("got a buffer of shape %s, want %s", buf.RawShape, shape)
			}
			b.PutBuffer(buf)
		}
		cycle()
		if allocs := testing.AllocsPerRun(100, cycle); allocs != 0 {
			t.Errorf("%s: %v allocations to take a buffer from the pool and give it back, want 0", shape, allocs)
		}
	}
}

// TestPooledBufferKeepsCasts: a pooled buffer that serves outputs of several lengths and types
// in turn (as the 24-byte one does for 6 float32, 5 float32 and 5 int32 here) keeps a cast
// for each, so taking it for any of them again allocates nothing (a single kept cast boxed a
// new slice at every change of length).
func TestPooledBufferKeepsCasts(t *testing.T) {
	b := newDefaultBackend()
	lengths := []shapes.Shape{shapes.Make(dtypes.Float32, 6), shapes.Make(dtypes.Float32, 5), shapes.Make(dtypes.Int32, 5)}
	cycle := func() {
		for _, shape := range lengths {
			buf, err := b.GetBuffer(shape)
			if err != nil {
				t.Fatal(err)
			}
			if n := reflect.ValueOf(buf.Flat).Len(); n != shape.Size() {
				t.Fatalf("asked for %s, got %d elements", shape, n)
			}
			b.PutBuffer(buf)
		}
	}
	cycle()
	if allocs := testing.AllocsPerRun(100, cycle); allocs != 0 {
		t.Errorf("%v allocations to take a buffer for three lengths in turn, want 0", allocs)
	}
}
