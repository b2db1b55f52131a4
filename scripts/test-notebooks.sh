#!/usr/bin/env bash
# Executes the notebooks headless with the GoNB kernel (nbconvert) and checks their outputs.
#
# Usage: bash scripts/test-notebooks.sh [--update] [--out DIR] [notebooks/NAME.ipynb ...]
#   default notebooks: every notebooks/*.ipynb, sorted.
#   --out DIR  where executed copies and logs go (default $NB_OUT_DIR or /tmp/quce-notebooks).
#   --update   also write the executed outputs back into the committed notebooks (only for
#              notebooks that passed; cells tagged `interactive` keep what they had).
#
# Each notebook runs in its own directory (so its setup cell finds the repository as $GONB_DIR/..)
# with GOMLX_BACKEND=gopatched, through a private kernelspec installed with `gonb --install --raw_error`
# under a temporary JUPYTER_DATA_DIR (compiler errors come out as plain text in the log). Cells
# tagged `interactive` (widgets: they need a browser and would hang) are removed first.
# A notebook fails on: nbconvert failure (compile error, panic, non-zero exit, timeout), an error
# output, `exit status N` in an output (a failed `!` shell line), or no image output at all (see
# check_nb.py); and when the committed notebook has a gonbext.Tune cell saved without its figures
# (check_nb.py --saved-widgets; scripts/test-browser.sh --update saves them). Run
# scripts/setup-notebooks.sh first.
set -uo pipefail

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPTS/.." && pwd)
OUT=${NB_OUT_DIR:-/tmp/quce-notebooks}
UPDATE=0
CELL_TIMEOUT=${NB_CELL_TIMEOUT:-900}   # seconds per cell; a cold first GoMLX compile takes 15-60 s
NBS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --update) UPDATE=1 ;;
    --out) OUT=$2; shift ;;
    --out=*) OUT=${1#--out=} ;;
    -h|--help) sed -n '2,18p' "$0"; exit 0 ;;
    -*) echo "test-notebooks: unknown option $1" >&2; exit 2 ;;
    *) NBS+=("$1") ;;
  esac
  shift
done
if [ ${#NBS[@]} -eq 0 ]; then
  mapfile -t NBS < <(find "$REPO/notebooks" -maxdepth 1 -name '*.ipynb' ! -name '*.nbconvert.ipynb' 2>/dev/null | LC_ALL=C sort)
fi
if [ ${#NBS[@]} -eq 0 ]; then
  echo "test-notebooks: no notebooks in $REPO/notebooks" >&2; exit 1
fi

export GOTOOLCHAIN=go1.27.3 GOMLX_BACKEND=gopatched PYDEVD_DISABLE_FILE_VALIDATION=1
GOBIN=$(go env GOBIN); [ -n "$GOBIN" ] || GOBIN=$(go env GOPATH)/bin
export PATH=$GOBIN:$PATH   # gonb, goimports, gopls
for tool in gonb goimports gopls /usr/bin/jupyter; do
  command -v "$tool" >/dev/null || { echo "test-notebooks: $tool not found: run scripts/setup-notebooks.sh" >&2; exit 1; }
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

# Private kernelspec: raw text errors, removed at exit. JUPYTER_DATA_DIR hides the user's kernels,
# so "gonb" below is this one.
JUPYTER_DATA_DIR=$(mktemp -d "${TMPDIR:-/tmp}/quce-nb-jupyter.XXXXXX")
export JUPYTER_DATA_DIR
trap 'rm -rf "$JUPYTER_DATA_DIR"' EXIT
gonb --install --raw_error >"$OUT/gonb-install.log" 2>&1 \
  || { cat "$OUT/gonb-install.log"; echo "test-notebooks: gonb --install failed" >&2; exit 1; }

echo "test-notebooks: ${#NBS[@]} notebook(s), executed copies and logs in $OUT"
fail=0
summary=()
T0=$(date +%s)
for nb in "${NBS[@]}"; do
  nb=$(cd "$(dirname "$nb")" && pwd)/$(basename "$nb")
  name=$(basename "$nb" .ipynb)
  rm -f "$OUT/$name.ipynb" "$OUT/$name.log" "$OUT/$name.check"
  start_ns=$(date +%s%N)
  # --allow-errors: always write the executed notebook (a CI artifact showing where it failed);
  # check_nb.py turns error outputs into a failure, and nbconvert's own exit code counts too.
  /usr/bin/jupyter nbconvert --to notebook --execute --allow-errors \
      --ExecutePreprocessor.kernel_name=gonb \
      --ExecutePreprocessor.timeout="$CELL_TIMEOUT" --ExecutePreprocessor.startup_timeout=120 \
      --TagRemovePreprocessor.enabled=True --TagRemovePreprocessor.remove_cell_tags=interactive \
      --output-dir "$OUT" --output "$name" "$nb" >"$OUT/$name.log" 2>&1
  rc=$?
  ms=$(( ($(date +%s%N) - start_ns) / 1000000 ))
  secs=$(printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100)))
  crc=1
  if [ -f "$OUT/$name.ipynb" ]; then
    /usr/bin/python3 "$SCRIPTS/check_nb.py" "$OUT/$name.ipynb" >"$OUT/$name.check" 2>&1
    crc=$?
  else
    echo "no executed notebook written" >"$OUT/$name.check"
  fi
  # The widget cells were dropped from the run: their saved outputs are checked in the committed file.
  /usr/bin/python3 "$SCRIPTS/check_nb.py" --saved-widgets "$nb" >>"$OUT/$name.check" 2>&1 || crc=1
  if [ $rc -eq 0 ] && [ $crc -eq 0 ]; then
    st=ok
    if [ $UPDATE = 1 ]; then
      if /usr/bin/python3 "$SCRIPTS/merge_nb_outputs.py" "$nb" "$OUT/$name.ipynb"; then
        st="ok (outputs saved to ${nb#$REPO/})"
      else
        st=FAIL; fail=1
      fi
    fi
  else
    st=FAIL; fail=1
  fi
  line=$(printf '%-6s %-32s %7ss  nbconvert_rc=%d' "${st%% *}" "$name" "$secs" "$rc")
  summary+=("$line")
  echo "$line ${st#ok}"
  sed 's/^/    /' "$OUT/$name.check"
  if [ "$st" = FAIL ] && [ $rc -ne 0 ]; then
    echo "    --- nbconvert log (last 40 lines of $OUT/$name.log):"
    tail -n 40 "$OUT/$name.log" | sed 's/^/    | /'
  fi
done

echo "test-notebooks: summary ($(( $(date +%s) - T0 ))s total)"
printf '  %s\n' "${summary[@]}"
if [ $fail -ne 0 ]; then
  echo "test-notebooks: FAILED" >&2
  exit 1
fi
echo "test-notebooks: all ${#NBS[@]} notebook(s) passed"
