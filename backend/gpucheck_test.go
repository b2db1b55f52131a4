package backend

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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
		"xla.json": `{"backend":"xla:cuda,tf32=false","deterministic":true,"simd":"none","phases":[
			{"name":"classifier training","wall_seconds":4,"first_execution_seconds":2.5},{"name":"vae training","wall_seconds":6.5,"first_execution_seconds":3},
			{"name":"explain","rows":1,"wall_seconds":3.3,"engine":"steps","executions":1004},
			{"name":"explain","rows":1,"wall_seconds":1.1,"engine":"steps","executions":1004},
			{"name":"explain","rows":455,"wall_seconds":5.79,"engine":"steps","executions":1010},
			{"name":"explain","rows":4096,"wall_seconds":19.2,"engine":"steps","executions":103,"compile_seconds":17.5},
			{"name":"explain","rows":4096,"wall_seconds":0.62,"engine":"steps","executions":103,
				"optimisation_seconds":0.35,"uncertainty_seconds":0.2,"paths_seconds":0.07}]}`,
		"go.json": `{"backend":"go","simd":"avx2","phases":[
			{"name":"classifier training","wall_seconds":0.5},{"name":"vae training","wall_seconds":0.7},
			{"name":"explain","rows":455,"wall_seconds":0.5,"engine":"steps","executions":1010}]}`,
		"xla-steps.json": `{"backend":"xla:cuda","simd":"none","phases":[
			{"name":"explain","rows":1,"wall_seconds":3.3,"engine":"steps","executions":1004},
			{"name":"explain","rows":1,"wall_seconds":1.2,"engine":"steps","executions":1004},
			{"name":"explain","rows":455,"wall_seconds":5.8,"engine":"steps","executions":1010}]}`,
		"xla-cache2.json": `{"backend":"xla:cuda","simd":"none","phases":[
			{"name":"classifier training","wall_seconds":1,"first_execution_seconds":0.4},{"name":"vae training","wall_seconds":2,"first_execution_seconds":0.9},
			{"name":"explain","rows":1,"wall_seconds":0.6,"engine":"loop","executions":6,"compile_seconds":0.5}]}`,
		"xla-cache1.err": "failed (exit 1): Unknown flags in XLA_FLAGS\n",
		"xla-rerun.json": `{"rows": 20, "identical": false}`,
		"xla-big.err":    "timed out after 120 s\n",
		"go-big.err":     "failed (exit 1): quce: the job needs 80 GB\n",
		"peer.json":      `{"runs":[{"B":455,"total":{"K10_headline_generic":{"total_wall_s":0.92}}}]}`,
		"gpu.txt":        "GPU 0: NVIDIA H200\n",
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
		"| 4 096 | 0.62 s (first, compiling: 19.2 s, of which compiling alone 17.5 s) | not run | not run |",
		"| 1 000 000 | timed out after 120 s | failed (exit 1): quce: the job needs 80 GB | not run |",
		"| training both models | 10.5 s | 1.2 s | |",
		"GPU: GPU 0: NVIDIA H200",
		"XLA with its caches in files, first process: failed (exit 1): Unknown flags in XLA_FLAGS",
		"XLA reruns (quce explain of 20 rows, two processes): DIFFERENT bytes",
		"XLA with its caches in files, second process (CACHE_FLAGS): training's first executions 0.4 + 0.9 s, 1 rows 0.6 s (compiling 0.5 s)",
		"XLA on the step engine (-engine steps, one execution per step): 1 rows 1.2 s, 455 rows 5.8 s",
		"XLA: each explain's search / ± integrals / paths on the host: 4096 rows 0.35 / 0.2 / 0.07 s",
		"XLA: backend xla:cuda,tf32=false, deterministic true, engine steps, kernels none; executions: 1 rows 1004, 1 rows 1004, 455 rows 1010, 4096 rows 103, 4096 rows 103; training's first executions (compiling): 2.5 s, 3 s",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("table lacks %q:\n%s", want, out)
		}
	}
}

// A whole sitting with stand-ins for the GPU, quce and the peer: the runs go in the order
// of what the table is for (XLA and the peer first, the pure-Go backend at a million rows
// last), each within what is left of BUDGET, and a spent budget leaves the later cells
// saying so rather than the sitting overrunning its machine's time; SKIP leaves runs out.
func TestGPUCheckSitting(t *testing.T) {
	bin := t.TempDir()
	stub(t, bin, "nvidia-smi", "echo 'GPU 0: NVIDIA Stand-in (UUID: GPU-0)'")
	plugins := t.TempDir()
	if err := os.WriteFile(filepath.Join(plugins, "pjrt_c_api_cuda_plugin.so"), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	tools := t.TempDir()
	stub(t, tools, "quce", `echo "$GOMLX_BACKEND $* ${XLA_FLAGS:+flags=$XLA_FLAGS}" >>"$RUNS"
prev=; for a in "$@"; do # the million rows' table, and its input, named
	case $prev in -csv | -instances) echo "$a" >>"$RUNS.files"; [ $prev = -csv ] && echo table >"$a";; -json) echo '{"results":[]}' >"$a";; esac; prev=$a
done
[ -n "$STUB_SLEEP" ] && exec sleep "$STUB_SLEEP"
[ -n "$STUB_BIG_FAIL" ] && [ "${prev%.csv}" != "$prev" ] && { echo "quce: stopped half-way" >&2; exit 1; }
w=2; case " $* " in *" -unit-rows "*) w=1;; esac # larger units explain 32 768 rows faster
echo '{"backend":"'$GOMLX_BACKEND'","simd":"none","phases":[{"name":"explain","rows":455,"wall_seconds":0.5,"engine":"loop","executions":3},
{"name":"explain","rows":32768,"wall_seconds":'$w',"engine":"loop","executions":3}]}'`)
	stub(t, tools, "python", `[ "$1" = -c ] && exit 0 # PyTorch sees the GPU
shift # the peer script
echo "peer $*" >>"$RUNS"
while [ $# -gt 0 ]; do [ "$1" = --out ] && out=$2; shift; done
echo '{"runs":[{"B":455,"total":{"K10_headline_generic":{"total_wall_s":0.9}}}]}' >"$out"`)
	peer := filepath.Join(tools, "quce_torch_peer.py")
	if err := os.WriteFile(peer, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	runsOf := func(path string) []string {
		b, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		var runs []string
		for _, l := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			f := strings.Fields(l)
			runs = append(runs, f[0]+" "+filepath.Base(f[len(f)-1])) // backend or peer, and the last argument
		}
		return runs
	}
	all := []string{"xla:cuda 1,1,455,455,4096,4096,32768,32768", "peer 32768", "xla:cuda 16384,16384,32768",
		"xla:cuda big.csv", "xla:cuda flags=--xla_gpu_deterministic_ops=false", "xla:cuda rerun1.json", "xla:cuda rerun2.json",
		"xla:cuda kernels", "xla:cuda kernels",
		"xla:cuda flags=--xla_gpu_enable_command_buffer=FUSION,CUBLAS,CONDITIONAL,WHILE", "xla:cuda 4096,4096,32768",
		"gopatched 1,1,455,455,4096,4096,32768,32768", "peer 1000000", "xla:cuda steps", "gopatched big.csv"}
	for _, tc := range []struct {
		name     string
		env      []string
		wantRuns []string
		want     []string
		dontWant []string
	}{
		{"the whole sitting", nil, all, []string{"| 455 | 0.5 s | 0.5 s | 0.9 s |",
			"XLA with While loops as CUDA graphs (CMDBUF_FLAGS): 455 rows 0.5 s",
			"XLA with several executions at a time (-concurrent): 455 rows 0.5 s",
			"XLA with larger units (-unit-rows): 455 rows 0.5 s, 32768 rows 1 s",
			" s (units of 16384 rows) | ", // the million rows in the units that were faster
			"XLA without its deterministic GPU operations (XLA_FLAGS=--xla_gpu_deterministic_ops=false): 455 rows 0.5 s",
			"XLA reruns (quce explain of 20 rows, two processes): byte-identical",
			"XLA with its caches in files, second process (CACHE_FLAGS): 455 rows 0.5 s (compiling 0 s)"}, nil},
		// (The million rows' XLA cell is a time, which a loaded machine may make any.)
		{"runs left out", []string{"SKIP=peer-big go-big"}, slices.Concat(all[:12], all[13:14]), []string{
			"| not run: left out (SKIP) | not run: left out (SKIP) |",
		}, []string{"| 1 000 000 | not run"}},
		{"without the larger units", []string{"SKIP=xla-units"}, slices.Concat(all[:2], all[3:]), nil, []string{"(units of", "| 1 000 000 | not run"}},
		// The million rows stopped, their table half written: the files are removed.
		{"the million rows stopped", []string{"STUB_BIG_FAIL=1"}, all, []string{
			"| 1 000 000 | failed (exit 1): quce: stopped half-way |"}, nil},
		{"a spent budget", []string{"BUDGET=1", "STUB_SLEEP=5"}, all[:1], []string{
			"| 455 | timed out after 1 s | not run: the sitting's budget of 1 s was spent (BUDGET) | not run: the sitting's budget of 1 s was spent (BUDGET) |",
		}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			runs, results := filepath.Join(t.TempDir(), "runs"), t.TempDir()
			env := append([]string{"PJRT_PLUGIN_LIBRARY_PATH=" + plugins, "QUCE_BIN=" + filepath.Join(tools, "quce"),
				"PEER=" + peer, "PYTHON=" + filepath.Join(tools, "python"), "RUNS=" + runs, "OUT=" + results}, tc.env...)
			out, code := gpuCheck(t, bin, env)
			if code != 0 {
				t.Fatalf("exit %d:\n%s", code, out)
			}
			// The million rows' input and table (10 GB on a GPU machine) are never among the
			// results that come back from a lent machine, and are gone once the sitting ends.
			files, _ := os.ReadFile(runs + ".files")
			if n := len(strings.Fields(string(files))); n == 0 && slices.Contains(tc.wantRuns, "xla:cuda big.csv") {
				t.Errorf("the million rows ran, but no -csv or -instances file was named")
			}
			for _, f := range strings.Fields(string(files)) {
				if strings.HasPrefix(f, results) {
					t.Errorf("%s is among the results in %s", f, results)
				}
				if _, err := os.Stat(f); err == nil {
					t.Errorf("%s is left after the sitting", f)
				}
			}
			if got := runsOf(runs); strings.Join(got, "; ") != strings.Join(tc.wantRuns, "; ") {
				t.Errorf("runs %q, want %q", got, tc.wantRuns)
			}
			for _, w := range tc.want {
				if !strings.Contains(out, w) {
					t.Errorf("output lacks %q:\n%s", w, out)
				}
			}
			for _, w := range tc.dontWant {
				if strings.Contains(out, w) {
					t.Errorf("output has %q:\n%s", w, out)
				}
			}
		})
	}
	out, code := gpuCheck(t, bin, []string{"PJRT_PLUGIN_LIBRARY_PATH=" + plugins, "QUCE_BIN=" + filepath.Join(tools, "quce"),
		"PEER=" + peer, "PYTHON=" + filepath.Join(tools, "python"), "OUT=" + t.TempDir(), "BUDGET=ten"})
	if code != 2 || !strings.Contains(out, "BUDGET=ten is not a number of seconds; fix:") {
		t.Errorf("BUDGET=ten: exit %d, output %q; want exit 2 naming BUDGET with the fix", code, out)
	}
}
