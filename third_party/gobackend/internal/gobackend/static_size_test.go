package gobackend_test

import (
	"testing"

	"github.com/gomlx/compute/dtypes"
	"github.com/gomlx/compute/shapes"
	"github.com/quce-go/quce/third_party/gobackend/internal/gobackend"
)

// TestStaticSize: a node's StaticSize is its shape's size for a static shape (a scalar's is
// 1) and not static for a dynamic one, and the same when asked again.
func TestStaticSize(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shape  shapes.Shape
		size   int
		static bool
	}{
		{"matrix", shapes.Make(dtypes.Float32, 2, 3), 6, true},
		{"scalar", shapes.Make(dtypes.Float32), 1, true},
		{"empty", shapes.Make(dtypes.Float32, 4, 0), 0, true},
		{"dynamic", shapes.MakeDynamic(dtypes.Float32, []int{shapes.DynamicDim, 3}, []string{"batch", ""}), 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			node := &gobackend.Node{Shape: tc.shape}
			for range 2 {
				if size, static := node.StaticSize(); size != tc.size || static != tc.static {
					t.Errorf("StaticSize() = %d, %v; want %d, %v", size, static, tc.size, tc.static)
				}
			}
		})
	}
}
