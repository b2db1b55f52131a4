package backend

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestNew(t *testing.T) {
	tests := []struct {
		config  string
		wantErr string
	}{
		{"go", ""},
		{"nosuchbackend", `unknown GoMLX backend "nosuchbackend"`},
		{"nosuchbackend:opt", "fix: use one of"},
	}
	for _, tc := range tests {
		b, err := New(tc.config)
		if tc.wantErr == "" {
			if err != nil || b == nil {
				t.Errorf("New(%q) = %v, %v; want a backend", tc.config, b, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
			t.Errorf("New(%q) error = %v; want it to contain %q", tc.config, err, tc.wantErr)
		}
	}
}

func TestDefaultHonoursEnv(t *testing.T) {
	t.Setenv(EnvVar, "go")
	b, info, err := choose()
	if err != nil {
		t.Fatal(err)
	}
	if info.Config != "go" || b == nil || !strings.Contains(info.Reason, EnvVar) {
		t.Errorf("choose() with %s=go: %+v", EnvVar, info)
	}
	t.Setenv(EnvVar, "bogus")
	if _, _, err := choose(); err == nil {
		t.Error("choose() with an unknown backend name: want an error, got nil")
	}
}

func TestFallbackWithoutPlugin(t *testing.T) {
	t.Setenv(EnvVar, "")
	_, info, err := choose()
	if err != nil {
		t.Fatal(err)
	}
	if info.Config == "" || info.Reason == "" {
		t.Errorf("choose() gave an empty choice: %+v", info)
	}
	t.Logf("chosen without %s: %s", EnvVar, info)
}

// The pure-Go backend's description says whether this binary has its SIMD kernels; others'
// do not mention them.
func TestInfoNamesSIMD(t *testing.T) {
	want := "no SIMD kernels: built without GOEXPERIMENT=simd"
	if SIMD {
		want = "SIMD kernels (GOEXPERIMENT=simd)"
	}
	for _, tc := range []struct {
		config string
		has    bool
	}{{"go", true}, {"go:ops_sequential", true}, {"xla:cpu", false}, {"onnx:/lib/libonnxruntime.so.1", false}} {
		s := Info{Config: tc.config, Name: "n", Reason: "r"}.String()
		if strings.Contains(s, "SIMD") != tc.has || (tc.has && !strings.Contains(s, want)) {
			t.Errorf("%s: %q; want SIMD mentioned %v (%q)", tc.config, s, tc.has, want)
		}
	}
}

// Rows are sharded over the cores only on the pure-Go backend.
func TestShards(t *testing.T) {
	for _, tc := range []struct {
		config string
		want   int
	}{{"go", 0}, {"go:ops_sequential", 0}, {"xla:cpu", 1}, {"onnx:/lib/libonnxruntime.so.1", 1}} {
		if got := (Info{Config: tc.config}).Shards(); got != tc.want {
			t.Errorf("%s: %d shards, want %d", tc.config, got, tc.want)
		}
	}
}

// TestPatchedComputeBackend checks that the build uses the patched copy of the pure-Go
// backend (third_party/README.md): go.mod still replaces the module with it, and the copy
// still clears the vector registers' upper halves where the patch put it.
func TestPatchedComputeBackend(t *testing.T) {
	const copyDir = "./third_party/gomlx-compute"
	mod, err := os.ReadFile(filepath.Join("..", "go.mod"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(strings.Split(string(mod), "\n"), "replace github.com/gomlx/compute => "+copyDir) {
		t.Errorf("go.mod does not replace github.com/gomlx/compute with %s", copyDir)
	}
	dir := filepath.Join("..", copyDir, "internal", "gobackend", "dot", "matmul")
	for file, calls := range map[string]int{"avx2_router.go": 1, "avx2_small.go": 3, "avx2_large.go": 1, "avx2.go": 2} {
		src, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		if n := strings.Count(string(src), "archsimd.ClearAVXUpperBits()"); n != calls {
			t.Errorf("%s clears the upper halves %d times; the patch does it %d times", file, n, calls)
		}
	}
}
