#!/usr/bin/env bash
# gpu-check.sh: one sitting on a machine with an NVIDIA GPU. It finds the CUDA PJRT plugin,
# then runs quce on XLA (the GPU), quce on the pure-Go backend (the CPU cores) and the PyTorch
# peer on the GPU, at 1, 455, 4 096, 32 768 and 1 000 000 rows (W-BC's rows repeated, n = 1000
# steps) plus training, and prints the table of docs/GPU.md; then quce on XLA again
# with XLA told to run While loops as CUDA graphs (XLA_FLAGS=$CMDBUF_FLAGS), which keeps the
# host out of each step of a loop, and on the step engine (-engine steps) at 1 and 455 rows,
# to show what the loop engine changes.
#
#   bash scripts/gpu-check.sh [-o DIR]     run the sitting; results and logs go to DIR
#                                          (default: $OUT/gpu-check if $OUT is set, else /tmp/quce-gpu-check)
#   bash scripts/gpu-check.sh --table DIR  print the table of a sitting's results again
#
# The machine needs no Go: it runs a binary built beforehand (docs/GPU.md says how).
#   QUCE_BIN      the quce binary (default bin/gpu/quce)
#   PEER          the peer script (default bin/gpu/peer/quce_torch_peer.py, else ../shared/peer/…)
#   RUN_TIMEOUT   seconds allowed to each run up to 32 768 rows (default 300)
#   BIG_TIMEOUT   seconds allowed to each 1 000 000-row run (default 120). quce's is the
#                 whole job a user runs: `quce explain -instances FILE -csv OUT` on a file of
#                 a million rows (written from data/wbc.csv), streamed, models trained
#                 first, timed end to end with its peak memory; the peer's is its benchmark
#   BUDGET        seconds for the whole sitting (default 540, so that it fits one 10-minute
#                 command on a lent machine); a run gets at most what is left of it
#   PYTHON        the Python with PyTorch for the peer (default python3)
#   SKIP          runs to leave out, by name, separated by spaces: xla peer xla-units xla-big
#                 xla-nondet xla-rerun xla-cache1 xla-cache2 xla-cmdbuf xla-conc go peer-big
#                 xla-steps go-big (e.g.
#                 SKIP="peer-big go-big" when a million rows are known not to fit the time or
#                 the GPU)
#   CMDBUF_FLAGS  the XLA_FLAGS of the xla-cmdbuf run (default
#                 --xla_gpu_enable_command_buffer=FUSION,CUBLAS,CONDITIONAL,WHILE)
#   CONCURRENT    the executions at a time of the xla-conc run (quce -concurrent; default 4)
#   UNIT_ROWS     the rows an execution walks in the xla-units run (quce -unit-rows; default
#                 16384), which has UNITS_TIMEOUT seconds (default 120)
#   CACHE_FLAGS   the XLA_FLAGS of the two xla-cache runs (default: XLA's autotuning results
#                 and compiled kernels kept in files under DIR/xla-cache, which the second
#                 run reads)
# A run that fails or runs out of time is a cell saying so; the others still run. The runs go
# in order of what the table is for, so that a spent budget leaves out the least: quce on XLA
# and the peer (up to 32 768 rows, with training), XLA with larger units, quce at a million
# rows (in the larger units where they were faster), XLA without its deterministic
# operations (what quce's default costs), two processes' explanations compared byte for
# byte, XLA with its caches kept in files (two runs), XLA with CUDA graphs, XLA with several
# executions at a time, the pure-Go backend, the peer at a million rows, XLA on the step
# engine, and the pure-Go backend at a million rows.
set -euo pipefail

die() {
	echo "gpu-check: $*" >&2
	exit 2
}

here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
small_rows="1 1 455 455 4096 4096 32768 32768" # each twice: the first run compiles, the second is warm
big_rows=1000000

# table DIR prints the sitting's table from the files in DIR.
table() {
	python3 - "$1" <<'EOF'
import json, os, sys

d = sys.argv[1]

def load(name):
    p = os.path.join(d, name + ".json")
    try:
        with open(p) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None

def why(name):
    p = os.path.join(d, name + ".err")
    if os.path.exists(p):
        with open(p) as f:
            return f.read().strip().splitlines()[0]
    return "not run"

def quce_cells(name):
    """rows -> list of explain seconds (in order), and the training seconds, of a quce bench JSON."""
    doc = load(name)
    if doc is None:
        return None, why(name), None
    cells, train = {}, None
    for p in doc["phases"]:
        if p["name"] == "explain":
            cells.setdefault(p["rows"], []).append(p)
    t = [p["wall_seconds"] for p in doc["phases"] if p["name"] in ("classifier training", "vae training")]
    if len(t) == 2:
        train = sum(t)
    return cells, None, (train, doc)

def fmt_quce(cells, err, rows):
    if cells is None or rows not in cells:
        return err or "not run"
    ps = cells[rows]
    s = "%.3g s" % ps[-1]["wall_seconds"]
    if ps[-1].get("unit_rows"):
        s += " (units of %d rows)" % ps[-1]["unit_rows"]
    if len(ps) > 1:
        s += " (first, compiling: %.3g s" % ps[0]["wall_seconds"]
        if ps[0].get("compile_seconds"):
            s += ", of which compiling alone %.3g s" % ps[0]["compile_seconds"]
        s += ")"
    elif ps[-1].get("compile_seconds"):
        s += " (compiling alone %.3g s)" % ps[-1]["compile_seconds"]
    bad = [p for p in ps if p.get("completeness_gap_mean", 0) > 5e-4]
    if bad:
        s += " gap %.1e!" % bad[0]["completeness_gap_mean"]
    return s

def peer_cells(name):
    doc = load(name)
    if doc is None:
        return None, why(name)
    out = {}
    for run in doc["runs"]:
        t = run["total"].get("K10_headline_generic")
        if t:
            out[run["B"]] = t["total_wall_s"]
    return out, None

cols = []
for small, big in (("xla", "xla-big"), ("go", "go-big")):
    c1, e1, meta = quce_cells(small)
    c2, e2, _ = quce_cells(big)
    cols.append((c1, e1, c2, e2, meta))
p1, pe1 = peer_cells("peer")
p2, pe2 = peer_cells("peer-big")

def cell(col, rows):
    c1, e1, c2, e2, _ = col
    if rows == 1000000:
        return fmt_quce(c2, e2, rows)
    return fmt_quce(c1, e1, rows)

def peer(rows):
    cells, err = (p2, pe2) if rows == 1000000 else (p1, pe1)
    if cells is None or rows not in cells:
        return err or "not run"
    return "%.3g s" % cells[rows]

gpu = ""
info = os.path.join(d, "gpu.txt")
if os.path.exists(info):
    with open(info) as f:
        gpu = f.read().strip()
print("| rows, n = 1000 | quce, XLA on the GPU | quce, pure Go, %s CPU cores | PyTorch peer on the GPU (K = 10) |" % os.cpu_count())
print("|---|---|---|---|")
for rows in (1, 455, 4096, 32768, 1000000):
    print("| %s | %s | %s | %s |" % (format(rows, ",").replace(",", " "), cell(cols[0], rows), cell(cols[1], rows), peer(rows)))
train = []
for col in cols:
    meta = col[4]
    train.append("%.3g s" % meta[0] if meta and meta[0] is not None else (col[1] or "not run"))
print("| training both models | %s | %s | |" % tuple(train))
print()
if gpu:
    print("GPU:", gpu)
steps, steps_err, _ = quce_cells("xla-steps")
if steps is not None:
    print("XLA on the step engine (-engine steps, one execution per step): " + ", ".join(
        "%d rows %.3g s" % (rows, ps[-1]["wall_seconds"]) for rows, ps in sorted(steps.items())))
elif steps_err != "not run":
    print("XLA on the step engine: " + steps_err)
rr = load("xla-rerun")
if rr is not None:
    print("XLA reruns (quce explain of %d rows, two processes): %s" % (rr["rows"], "byte-identical" if rr["identical"] else "DIFFERENT bytes"))
elif why("xla-rerun") != "not run":
    print("XLA reruns: " + why("xla-rerun"))
for name, label, how in (("xla-nondet", "XLA without its deterministic GPU operations", " (XLA_FLAGS=--xla_gpu_deterministic_ops=false)"),
                         ("xla-cmdbuf", "XLA with While loops as CUDA graphs", " (CMDBUF_FLAGS)"),
                         ("xla-conc", "XLA with several executions at a time", " (-concurrent)"),
                         ("xla-units", "XLA with larger units", " (-unit-rows)")):
    cells, err, _ = quce_cells(name)
    if cells is not None:
        print(label + how + ": " + ", ".join("%d rows %s" % (rows, fmt_quce(cells, None, rows)) for rows in sorted(cells)))
    elif err != "not run":
        print(label + ": " + err)
def compiling(doc):
    """What a quce bench JSON spent compiling: training's first executions and each explain's compile."""
    first = [p.get("first_execution_seconds") for p in doc["phases"] if p["name"] in ("classifier training", "vae training")]
    parts = ["training's first executions %.3g + %.3g s" % tuple(first)] if len(first) == 2 and None not in first else []
    parts += ["%d rows %.3g s (compiling %.3g s)" % (p["rows"], p["wall_seconds"], p.get("compile_seconds", 0)) for p in doc["phases"] if p["name"] == "explain"]
    return ", ".join(parts)
for name, label in (("xla-cache1", "XLA with its caches in files, first process"), ("xla-cache2", "XLA with its caches in files, second process")):
    doc = load(name)
    if doc is not None:
        print(label + " (CACHE_FLAGS): " + compiling(doc))
    elif why(name) != "not run":
        print(label + ": " + why(name))
for label, col in (("XLA", cols[0]), ("pure Go", cols[1])):
    meta = col[4]
    if not meta:
        continue
    doc = meta[1]
    execs = ", ".join("%d rows %d" % (p["rows"], p.get("executions", 0)) for p in doc["phases"] if p["name"] == "explain")
    first = [p.get("first_execution_seconds") for p in doc["phases"] if p["name"] in ("classifier training", "vae training")]
    compiling = ""
    if len(first) == 2 and None not in first:
        compiling = "; training's first executions (compiling): %.3g s, %.3g s" % tuple(first)
    print("%s: backend %s, deterministic %s, engine %s, kernels %s; executions: %s%s" % (
        label, doc.get("backend"), str(doc.get("deterministic", "?")).lower(),
        ",".join(sorted({p.get("engine", "?") for p in doc["phases"] if p["name"] == "explain"})),
        doc.get("simd"), execs, compiling))
    # Where each explain's time went: the search on the device, the ± integrals, the paths'
    # results built on the host (quce.Timings).
    split = ", ".join("%d rows %.3g / %.3g / %.3g s" % (p["rows"], p["optimisation_seconds"], p.get("uncertainty_seconds", 0), p.get("paths_seconds", 0))
                      for p in doc["phases"] if p["name"] == "explain" and "optimisation_seconds" in p)
    if split:
        print("%s: each explain's search / ± integrals / paths on the host: %s" % (label, split))
EOF
}

# streamed DIR NAME BACKEND QUCE [UNIT_ROWS]: the million-row job of the quce binary QUCE on
# BACKEND (with -unit-rows UNIT_ROWS if given), timed end to end, as DIR/NAME.json in quce
# bench's form (one explain phase) with the peak memory of the run. attempt runs it as
# `gpu-check.sh --streamed ...`, under its time limit. Its input (big.csv, 0.2 GB) and its
# table (about 10 GB) are in the sitting's scratch folder, GPU_CHECK_SCRATCH, never in DIR:
# DIR is what comes back from a lent machine, whole even when the sitting is stopped.
streamed() {
	local dir=$1 name=$2 backend=$3 quce=$4 units=${5:-}
	local scratch=${GPU_CHECK_SCRATCH:?the sitting sets GPU_CHECK_SCRATCH}
	if [[ ! -e $scratch/big.csv ]]; then
		python3 - "$root/data/wbc.csv" "$scratch/big.csv" "$big_rows" <<'EOF'
import sys
src, dst, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
with open(src) as f:
    lines = f.read().splitlines()
with open(dst, "w") as out:
    out.write(lines[0] + "\n")
    rows = lines[1:]
    out.writelines(rows[i % len(rows)] + "\n" for i in range(n))
EOF
	fi
	python3 - "$dir/$name.json" "$big_rows" "$units" env GOMLX_BACKEND="$backend" "$quce" explain -q ${units:+-unit-rows "$units"} -csv "$scratch/$name.csv" -instances "$scratch/big.csv" <<'EOF'
import json, resource, subprocess, sys, time
out, rows, units, cmd = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
t = time.time()
rc = subprocess.run(cmd, stdout=subprocess.DEVNULL).returncode
if rc:
    sys.exit(rc)  # quce's error is the log's last line
wall = time.time() - t
rss = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
phase = {"name": "explain", "rows": rows, "wall_seconds": wall, "streamed": True}
if units:
    phase["unit_rows"] = int(units)
with open(out, "w") as f:
    json.dump({"backend": cmd[1].split("=", 1)[1], "max_rss_mb": rss, "phases": [phase]}, f)
EOF
	rm -f "$scratch/$name.csv"
}

# rerun DIR QUCE: `quce explain` of 20 test rows on XLA in two processes, one after the
# other, and whether they wrote the same bytes (every figure, path and attribution), as
# DIR/xla-rerun.json: quce asks XLA for deterministic GPU operations (XLA_FLAGS), without
# which atomic sums and kernels chosen by timing can change a rerun's last bits. attempt
# runs it as `gpu-check.sh --rerun ...`, under its time limit.
rerun() {
	local dir=$1 quce=$2 scratch=${GPU_CHECK_SCRATCH:?the sitting sets GPU_CHECK_SCRATCH} k same=false
	for k in 1 2; do
		env GOMLX_BACKEND=xla:cuda "$quce" explain -q -force -n 20 -json "$scratch/rerun$k.json" >/dev/null
	done
	cmp -s "$scratch/rerun1.json" "$scratch/rerun2.json" && same=true
	echo "{\"rows\": 20, \"identical\": $same}" >"$dir/xla-rerun.json"
}

# faster_units DIR: UNIT_ROWS if the xla-units run explained 32 768 rows faster than the xla
# run's second (warm) run did in units of 4 096, else nothing.
faster_units() {
	python3 - "$1" "${UNIT_ROWS:-16384}" <<'EOF'
import json, os, sys
d, units = sys.argv[1], sys.argv[2]
def last(name):
    try:
        with open(os.path.join(d, name + ".json")) as f:
            ps = [p for p in json.load(f)["phases"] if p["name"] == "explain" and p["rows"] == 32768]
        return ps[-1]["wall_seconds"] if ps else None
    except (OSError, ValueError, KeyError):
        return None
a, b = last("xla-units"), last("xla")
if a is not None and (b is None or a < b):
    print(units)
EOF
}

if [[ ${1:-} == --streamed ]]; then
	streamed "$2" "$3" "$4" "$5" "${6:-}"
	exit
fi
if [[ ${1:-} == --rerun ]]; then
	rerun "$2" "$3"
	exit
fi
if [[ ${1:-} == --table ]]; then
	[[ -d ${2:-} ]] || die "--table needs the folder of a sitting's results"
	table "$2"
	exit 0
fi
dir=${OUT:+$OUT/gpu-check}
dir=${dir:-/tmp/quce-gpu-check}
if [[ ${1:-} == -o ]]; then
	[[ -n ${2:-} ]] || die "-o needs a folder"
	dir=$2
elif [[ -n ${1:-} ]]; then
	die "unknown argument $1; usage: gpu-check.sh [-o DIR] | --table DIR"
fi

# 1. The GPU.
command -v nvidia-smi >/dev/null ||
	die "no NVIDIA GPU: nvidia-smi is not on PATH; fix: run this on a machine with an NVIDIA GPU and its driver"
gpu=$(nvidia-smi -L 2>&1) || true
if [[ $gpu != *GPU* ]]; then
	die "no NVIDIA GPU: nvidia-smi -L says: ${gpu:-nothing}; fix: run this on a machine with a working NVIDIA driver"
fi

# 2. The CUDA PJRT plugin, where go-xla looks for it (PJRT_PLUGIN_LIBRARY_PATH, or the
# folders its installer uses), else JAX's, linked under the name go-xla looks for.
plugin=pjrt_c_api_cuda_plugin.so
found=""
IFS=: read -r -a dirs <<<"${PJRT_PLUGIN_LIBRARY_PATH:-}"
for p in "${dirs[@]}" /usr/local/lib/go-xla "$HOME/.local/lib/go-xla"; do
	if [[ -n $p && -e $p/$plugin ]]; then
		found=$p/$plugin
		break
	fi
done
if [[ -z $found ]] && command -v python3 >/dev/null; then
	for sp in $(python3 -c 'import site; print(" ".join(site.getsitepackages() + [site.getusersitepackages()]))' 2>/dev/null); do
		for jax in "$sp"/jax_plugins/xla_cuda*/xla_cuda_plugin.so; do
			[[ -e $jax ]] || continue
			link=$dir/pjrt/sp
			mkdir -p "$link/jax_plugins/cuda"
			ln -sf "$jax" "$link/jax_plugins/cuda/$plugin"
			# the plugin finds the NVIDIA libraries through its RPATH, relative to itself
			ln -sfn "$sp/nvidia" "$link/nvidia"
			ln -sfn "$sp/nvidia" "$link/jax_plugins/nvidia"
			export PJRT_PLUGIN_LIBRARY_PATH=$link/jax_plugins/cuda
			found=$jax
			break 2
		done
	done
fi
[[ -n $found ]] ||
	die "no CUDA PJRT plugin: no $plugin in PJRT_PLUGIN_LIBRARY_PATH (${PJRT_PLUGIN_LIBRARY_PATH:-unset}), /usr/local/lib/go-xla or ~/.local/lib/go-xla, and no JAX CUDA plugin (jax_plugins/xla_cuda*/xla_cuda_plugin.so) in python3's site-packages; fix: install one (docs/GPU.md: go-xla's pjrt_installer, or pip install 'jax[cuda13]')"

# 3. The programs.
quce=${QUCE_BIN:-$root/bin/gpu/quce}
[[ -x $quce ]] || die "no quce binary at $quce; fix: build it where Go is (docs/GPU.md) and set QUCE_BIN"
peer=${PEER:-}
if [[ -z $peer ]]; then
	for p in "$root/bin/gpu/peer/quce_torch_peer.py" "$root/../shared/peer/quce_torch_peer.py"; do
		[[ -e $p ]] && peer=$p && break
	done
fi
[[ -n $peer && -e $peer ]] || die "no PyTorch peer script (${peer:-none found}); fix: copy the peer folder to bin/gpu/peer or set PEER"
${PYTHON:-python3} -c 'import torch, sys; sys.exit(0 if torch.cuda.is_available() else 1)' 2>/dev/null ||
	die "PyTorch cannot see the GPU (python3 -c 'import torch; torch.cuda.is_available()' is not True); fix: install a CUDA build of PyTorch"

mkdir -p "$dir"
rm -f "$dir"/*.json "$dir"/*.err "$dir"/*.prof
echo "$gpu" | head -1 >"$dir/gpu.txt"
echo "gpu-check: $(head -1 "$dir/gpu.txt"); plugin $found; results in $dir" >&2

# The million-row jobs' files, removed when the sitting ends however it ends (a lent
# machine's stop, SIGKILL, leaves them on that machine, not among the results).
scratch=$(mktemp -d "${TMPDIR:-/tmp}/quce-gpu-check.XXXXXX")
trap 'rm -rf "$scratch"' EXIT
export GPU_CHECK_SCRATCH=$scratch

budget=${BUDGET:-540}
[[ $budget =~ ^[0-9]+$ ]] || die "BUDGET=$budget is not a number of seconds; fix: set it to e.g. 540, or leave it unset"
start=$SECONDS

# attempt NAME SECONDS CMD...: runs CMD for at most SECONDS, and at most what is left of the
# budget; its JSON is DIR/NAME.json, which CMD writes itself or prints on stdout; its log is
# DIR/NAME.log. A failure, or no budget left, leaves DIR/NAME.err with why, for the table.
attempt() {
	local name=$1 secs=$2 rc=0 left
	shift 2
	if [[ " ${SKIP:-} " == *" $name "* ]]; then
		echo "not run: left out (SKIP)" >"$dir/$name.err"
		echo "gpu-check: $name left out (SKIP)" >&2
		return
	fi
	left=$((budget - (SECONDS - start)))
	if ((left < 1)); then
		echo "not run: the sitting's budget of $budget s was spent (BUDGET)" >"$dir/$name.err"
		echo "gpu-check: $name not run: budget spent" >&2
		return
	fi
	((secs > left)) && secs=$left
	echo "gpu-check: $name ..." >&2
	timeout "$secs" "$@" >"$dir/$name.out" 2>"$dir/$name.log" || rc=$?
	if ((rc == 124)); then
		echo "timed out after $secs s" >"$dir/$name.err"
	elif ((rc != 0)); then
		echo "failed (exit $rc): $(tail -1 "$dir/$name.log")" >"$dir/$name.err"
	elif [[ ! -e $dir/$name.json ]]; then
		mv "$dir/$name.out" "$dir/$name.json"
	fi
	rm -f "$dir/$name.out"
}

rows_csv=${small_rows// /,}
python=${PYTHON:-python3}
peer_args=(--device cuda --K 10 --reps 1 --threads 1 --models "$(dirname "$peer")/models.pt"
	--opt-variants manual_jit --attr-variants manual)
on_xla=(env GOMLX_BACKEND=xla:cuda "$quce" bench)
on_go=(env GOMLX_BACKEND=gopatched "$quce" bench)
# With a CPU profile of the host's side (go tool pprof QUCE_BIN DIR/xla.prof).
attempt xla "${RUN_TIMEOUT:-300}" "${on_xla[@]}" -cpuprofile "$dir/xla.prof" -rows "$rows_csv"
attempt peer "${RUN_TIMEOUT:-300}" "$python" "$peer" "${peer_args[@]}" --out "$dir/peer.json" --B 1 455 4096 32768
# Larger units than the explainer's on a GPU (4 096 rows): where they stop working, and
# whether compiling (logged, and in the JSON) or running is what takes the time.
attempt xla-units "${UNITS_TIMEOUT:-120}" "${on_xla[@]}" -unit-rows "${UNIT_ROWS:-16384}" -rows "${UNIT_ROWS:-16384},${UNIT_ROWS:-16384},32768"
# The million rows in the larger units where they explained 32 768 rows faster.
attempt xla-big "${BIG_TIMEOUT:-120}" bash "$here/gpu-check.sh" --streamed "$dir" xla-big xla:cuda "$quce" "$(faster_units "$dir")"
# What XLA's deterministic GPU operations, quce's default, cost: the xla run without them.
attempt xla-nondet "${RUN_TIMEOUT:-300}" env XLA_FLAGS=--xla_gpu_deterministic_ops=false "${on_xla[@]}" -rows "$rows_csv"
# And what they give: two processes' explanations, byte for byte.
attempt xla-rerun "${RUN_TIMEOUT:-300}" bash "$here/gpu-check.sh" --rerun "$dir" "$quce"
# XLA's own caches kept from one process to the next (its autotuning results and its
# compiled kernels, in files): what compiling costs a later run of quce, training included.
# Two processes, the second reading what the first wrote. (The autotuning folder must exist;
# the kernel cache goes with the parallel compilation of LLVM modules, as JAX sets them.)
rm -rf "$dir/xla-cache" && mkdir -p "$dir/xla-cache/autotune"
xla_caches="--xla_gpu_per_fusion_autotune_cache_dir=$dir/xla-cache/autotune --xla_gpu_enable_llvm_module_compilation_parallelism=true --xla_gpu_kernel_cache_file=$dir/xla-cache/kernels"
attempt xla-cache1 "${RUN_TIMEOUT:-300}" env XLA_FLAGS="${CACHE_FLAGS:-$xla_caches}" "${on_xla[@]}" -rows 1,455
attempt xla-cache2 "${RUN_TIMEOUT:-300}" env XLA_FLAGS="${CACHE_FLAGS:-$xla_caches}" "${on_xla[@]}" -rows 1,455
# XLA runs a While's condition on the host between steps unless the loop is a CUDA graph.
attempt xla-cmdbuf "${RUN_TIMEOUT:-300}" env XLA_FLAGS="${CMDBUF_FLAGS:---xla_gpu_enable_command_buffer=FUSION,CUBLAS,CONDITIONAL,WHILE}" \
	"${on_xla[@]}" -rows 1,1,455
# Several executions at a time on the one GPU (-concurrent): XLA runs a loop's steps from the
# host, so one execution leaves the GPU idle between its small kernels.
attempt xla-conc "${RUN_TIMEOUT:-300}" "${on_xla[@]}" -concurrent "${CONCURRENT:-4}" -rows 4096,4096,32768
attempt go "${RUN_TIMEOUT:-300}" "${on_go[@]}" -rows "$rows_csv"
attempt peer-big "${BIG_TIMEOUT:-120}" "$python" "$peer" "${peer_args[@]}" --out "$dir/peer-big.json" --B "$big_rows"
# The same GPU on the step engine, to show what the loop engine changes there.
attempt xla-steps "${RUN_TIMEOUT:-300}" "${on_xla[@]}" -rows 1,1,455 -engine steps
attempt go-big "${BIG_TIMEOUT:-120}" bash "$here/gpu-check.sh" --streamed "$dir" go-big gopatched "$quce"

table "$dir"
