package backend

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gpuCheck runs scripts/gpu-check.sh with args in an environment of its own: PATH is bin
// (the test's stand-ins) then the system's, HOME an empty folder.
func gpuCheck(t *testing.T, bin string, env []string, args ...string) (string, int) {
	t.Helper()
	script, err := filepath.Abs("../scripts/gpu-check.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", append([]string{script}, args...)...)
	cmd.Env = append([]string{"PATH=" + bin + ":/usr/bin:/bin", "HOME=" + t.TempDir()}, env...)
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); ok {
		return string(out), ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	return string(out), 0
}

// stub writes an executable shell script name into bin.
func stub(t *testing.T, bin, name, body string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(bin, name), []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
}

// The GPU check stops at the first thing missing, says what and how to fix it, and exits 2:
// no GPU, no CUDA PJRT plugin (nor JAX's), no quce binary.
func TestGPUCheckFailsClearly(t *testing.T) {
	if out, err := exec.Command("bash", "-n", "../scripts/gpu-check.sh").CombinedOutput(); err != nil {
		t.Fatalf("bash -n: %v\n%s", err, out)
	}
	if sc, err := exec.LookPath("shellcheck"); err == nil {
		if out, err := exec.Command(sc, "../scripts/gpu-check.sh").CombinedOutput(); err != nil {
			t.Errorf("shellcheck: %v\n%s", err, out)
		}
	}
	if _, err := exec.LookPath("nvidia-smi"); err == nil {
		t.Log("this machine has nvidia-smi: the stand-ins below shadow it")
	}
	noGPU := t.TempDir()
	stub(t, noGPU, "nvidia-smi", "echo 'NVIDIA-SMI has failed because it could not communicate with the NVIDIA driver.'; exit 9")
	gpu := t.TempDir()
	stub(t, gpu, "nvidia-smi", "echo 'GPU 0: NVIDIA Stand-in (UUID: GPU-0)'")
	stub(t, gpu, "python3", "exit 1") // no JAX: python3 lists no site-packages
	plugins := t.TempDir()
	if err := os.WriteFile(filepath.Join(plugins, "pjrt_c_api_cuda_plugin.so"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		bin  string
		env  []string
		want string
	}{
		{"no nvidia-smi", t.TempDir(), nil, "no NVIDIA GPU: nvidia-smi is not on PATH"},
		{"no driver", noGPU, nil, "no NVIDIA GPU: nvidia-smi -L says: NVIDIA-SMI has failed"},
		{"no plugin", gpu, []string{"PJRT_PLUGIN_LIBRARY_PATH=" + t.TempDir()}, "no CUDA PJRT plugin: no pjrt_c_api_cuda_plugin.so in PJRT_PLUGIN_LIBRARY_PATH"},
		{"no binary", gpu, []string{"PJRT_PLUGIN_LIBRARY_PATH=" + plugins, "QUCE_BIN=/nonexistent/quce"}, "no quce binary at /nonexistent/quce; fix:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, code := gpuCheck(t, tc.bin, append(tc.env, "OUT="+t.TempDir()))
			if code != 2 || !strings.Contains(out, tc.want) || !strings.Contains(out, "fix:") {
				t.Errorf("exit %d, output %q; want exit 2 and %q with its fix", code, out, tc.want)
			}
		})
	}
}

// --table prints a sitting's table from its files: quce bench's JSON per backend (the warm
// one-row figure, the first in brackets, training as the sum of both models), the peer's
// totals, and why a run has no figure.
func TestGPUCheckTable(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"xla.json": `{"backend":"xla:cuda","simd":"none","phases":[
			{"name":"classifier training","wall_seconds":4},{"name":"vae training","wall_seconds":6.5},
			{"name":"explain","rows":1,"wall_seconds":3.3,"engine":"steps","executions":1004},
			{"name":"explain","rows":1,"wall_seconds":1.1,"engine":"steps","executions":1004},
			{"name":"explain","rows":455,"wall_seconds":5.79,"engine":"steps","executions":1010}]}`,
		"go.json": `{"backend":"go","simd":"avx2","phases":[
			{"name":"classifier training","wall_seconds":0.5},{"name":"vae training","wall_seconds":0.7},
			{"name":"explain","rows":455,"wall_seconds":0.5,"engine":"steps","executions":1010}]}`,
		"xla-steps.json": `{"backend":"xla:cuda","simd":"none","phases":[
			{"name":"explain","rows":1,"wall_seconds":3.3,"engine":"steps","executions":1004},
			{"name":"explain","rows":1,"wall_seconds":1.2,"engine":"steps","executions":1004},
			{"name":"explain","rows":455,"wall_seconds":5.8,"engine":"steps","executions":1010}]}`,
		"xla-big.err": "timed out after 120 s\n",
		"go-big.err":  "failed (exit 1): quce: the job needs 80 GB\n",
		"peer.json":   `{"runs":[{"B":455,"total":{"K10_headline_generic":{"total_wall_s":0.92}}}]}`,
		"gpu.txt":     "GPU 0: NVIDIA H200\n",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, code := gpuCheck(t, t.TempDir(), nil, "--table", dir)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, out)
	}
	for _, want := range []string{
		"| 1 | 1.1 s (first, compiling: 3.3 s) | not run | not run |",
		"| 455 | 5.79 s | 0.5 s | 0.92 s |",
		"| 1 000 000 | timed out after 120 s | failed (exit 1): quce: the job needs 80 GB | not run |",
		"| training both models | 10.5 s | 1.2 s | |",
		"GPU: GPU 0: NVIDIA H200",
		"XLA on the step engine (-engine steps, one execution per step): 1 rows 1.2 s, 455 rows 5.8 s",
		"XLA: backend xla:cuda, engine steps, kernels none; executions: 1 rows 1004, 1 rows 1004, 455 rows 1010",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}
