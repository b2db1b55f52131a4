//go:build onnx

package backend

import (
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/gomlx/compute"
)

func TestONNXRegistered(t *testing.T) {
	if !slices.Contains(compute.List(), "onnx") {
		t.Fatalf("built with -tags onnx but %q is not registered: %v", "onnx", compute.List())
	}
}

func TestONNXNeverDownloads(t *testing.T) {
	t.Setenv("ONNXRUNTIME_SHARED_LIBRARY_PATH", "")
	t.Setenv("HOME", t.TempDir()) // no previously auto-installed library either
	if _, err := New("onnx:cpu"); err == nil {
		t.Skip("ONNX Runtime is already initialised in this process, or a library was found without a path")
	} else if !strings.Contains(err.Error(), "auto-installation is disabled") {
		t.Errorf("New(onnx:cpu) without a library: %v; want the auto-installation-disabled error", err)
	}
}

// TestONNXBackend runs a tiny graph when the library is available: set
// QUCE_TEST_ONNXRUNTIME=/path/to/libonnxruntime.so.1 (scripts/get-onnxruntime.sh).
func TestONNXBackend(t *testing.T) {
	lib := os.Getenv("QUCE_TEST_ONNXRUNTIME")
	if lib == "" {
		t.Skip("QUCE_TEST_ONNXRUNTIME not set")
	}
	b, err := New("onnx:" + lib)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("backend: %s", b.Description())
}
