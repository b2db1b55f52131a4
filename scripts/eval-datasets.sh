#!/usr/bin/env bash
# Compares automatic λ (quce-auto) with fixed QUCE, AGI, Wachter and DiCE-random on seven
# numeric datasets, over three seeds: W-BC (embedded), Iris and German credit's numeric
# columns (testdata/), and four written by scripts/eval_datasets.py from scikit-learn's
# bundled data (wine, diabetes binarised at its median, digits 3 against 8 pooled to 4×4)
# and a make_classification set; then W-BC through the saturating tanh model of testdata.
# Deterministic. Needs Debian's python3-sklearn
# (apt-get install -y python3-sklearn); nothing in the tests or CI does.
#
# Usage: scripts/eval-datasets.sh [OUTDIR] [extra quce eval flags...]
#   OUTDIR (default /tmp/quce-eval-datasets) receives the CSVs, one JSON report per dataset
#   and table.md; QUCE (default: go run ./cmd/quce) is the binary to run.
set -euo pipefail
cd "$(dirname "$0")/.."
export GOTOOLCHAIN=go1.27.3
out=${1:-/tmp/quce-eval-datasets}
shift || true
quce=${QUCE:-"go run ./cmd/quce"}
mkdir -p "$out/data"
/usr/bin/python3 scripts/eval_datasets.py "$out/data"
methods=quce,quce-auto,agi,wachter,dice-random
declare -A files=(
  [wbc]=wbc [iris]=testdata/iris.csv [german_numeric]=testdata/german_numeric.csv
  [wine]=$out/data/wine.csv [diabetes]=$out/data/diabetes.csv
  [digits38]=$out/data/digits38.csv [synthetic]=$out/data/synthetic.csv
)
# wbc_tanh: W-BC explained through a saturating model (a tanh hidden layer, exported from
# PyTorch with a sigmoid; testdata/models), whose gradient vanishes far from its boundary.
files[wbc_tanh]=wbc
declare -A model=([wbc_tanh]="-model testdata/models/wbc_tanh.onnx -model-output probability")
names=(wbc iris german_numeric wine diabetes digits38 synthetic wbc_tanh)
for name in "${names[@]}"; do
  echo "== $name" >&2
  # shellcheck disable=SC2086 # the model's flags are words
  $quce eval -q -force -data "${files[$name]}" ${model[$name]:-} -n 40 -splits test -methods "$methods" \
    -seeds 1,2,3 -json "$out/$name.json" "$@" >"$out/$name.txt"
done
/usr/bin/python3 scripts/eval_table.py "$out" "${names[@]}" | tee "$out/table.md"
