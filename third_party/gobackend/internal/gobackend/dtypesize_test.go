package gobackend

import (
	"testing"

	"github.com/gomlx/compute/dtypes"
)

// DTypeSize must be dtype.Size() for every dtype Size knows, and panic like it for one it
// does not; byteSize must be SizeForDimensions of one dimension.
func TestDTypeSizeIsSize(t *testing.T) {
	for _, dtype := range dtypes.DTypeValues() {
		var want, wantBytes int
		sizePanics := func() (panicked bool) {
			defer func() { panicked = recover() != nil }()
			want = dtype.Size()
			wantBytes = dtype.SizeForDimensions(7)
			return false
		}()
		oursPanics := func() (panicked bool) {
			defer func() { panicked = recover() != nil }()
			if got := DTypeSize(dtype); got != want {
				t.Errorf("%s: DTypeSize = %d, Size() = %d", dtype, got, want)
			}
			if got := byteSize(dtype, 7); got != wantBytes {
				t.Errorf("%s: byteSize(7) = %d, SizeForDimensions(7) = %d", dtype, got, wantBytes)
			}
			return false
		}()
		if sizePanics != oursPanics {
			t.Errorf("%s: Size panics %v, DTypeSize %v", dtype, sizePanics, oursPanics)
		}
	}
}
