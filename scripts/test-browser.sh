#!/usr/bin/env bash
# Browser test of a notebook's interactive widget: starts a private Jupyter Notebook server on a copy
# of the notebook, drives it in headless Chromium (scripts/browser/slider_test.js, playwright-core),
# moves the slider and fails unless the Go-rendered SVG in the widget cell's output changes. When the
# widget cell has a "Done" button (gonbext.Tune), it then clicks it, checks that the cell ends with a
# static copy of its figures, and saves the notebook through the page (<name>_saved.ipynb in --out).
#
# Usage: bash scripts/test-browser.sh [--update] [--out DIR] [NOTEBOOK]
#   NOTEBOOK  default notebooks/02_tuning_lambda.ipynb (relative to the repository or the cwd).
#   --update  after a pass, copy the widget cell's saved outputs (its last figures) into the
#             committed NOTEBOOK (scripts/merge_widget_outputs.py); test-notebooks.sh fails while
#             a gonbext.Tune cell has none.
#   --out DIR screenshots (<name>_before.png, <name>_after.png, <name>_done.png,
#             <name>_failure.png), the SVGs before/after, the saved notebook and the Jupyter
#             server log; default $OUT_DIR or /tmp/quce-browser.
# Environment: BROWSER_TIMEOUT (s, default 900) for the cells before the widget to finish;
#              SLIDER_ATTEMPTS (default 3) tries of the widget cell (GoNB's comm_open race).
#
# The server serves a scratch directory whose entries are symlinks to the repository's top level,
# except notebooks/, which is a copy: the setup cell still finds the repository as $GONB_DIR/..,
# and the committed notebook is modified only by --update. The server (and its kernels) is killed at
# exit.
# Run scripts/setup-notebooks.sh first.
set -euo pipefail

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$SCRIPTS/.." && pwd)
OUT=${OUT_DIR:-/tmp/quce-browser}
NB=
UPDATE=0
while [ $# -gt 0 ]; do
  case "$1" in
    --update) UPDATE=1 ;;
    --out) OUT=$2; shift ;;
    --out=*) OUT=${1#--out=} ;;
    -h|--help) sed -n '2,23p' "$0"; exit 0 ;;
    -*) echo "test-browser: unknown option $1" >&2; exit 2 ;;
    *) [ -z "$NB" ] || { echo "test-browser: one notebook at a time" >&2; exit 2; }; NB=$1 ;;
  esac
  shift
done
NB=${NB:-notebooks/02_tuning_lambda.ipynb}
if [ -f "$NB" ]; then NB=$(cd "$(dirname "$NB")" && pwd)/$(basename "$NB")
elif [ -f "$REPO/$NB" ]; then NB=$REPO/$NB
else echo "test-browser: notebook $NB not found" >&2; exit 1
fi
NAME=$(basename "$NB")

export GOTOOLCHAIN=go1.27.3 GOMLX_BACKEND=gopatched PYDEVD_DISABLE_FILE_VALIDATION=1
GOBIN=$(go env GOBIN); [ -n "$GOBIN" ] || GOBIN=$(go env GOPATH)/bin
export PATH=$GOBIN:$PATH
for f in "$GOBIN/gonb" "$GOBIN/goimports" "$GOBIN/gopls" /usr/bin/jupyter /usr/bin/chromium \
         "$SCRIPTS/browser/node_modules/playwright-core/package.json"; do
  [ -e "$f" ] || { echo "test-browser: $f missing: run scripts/setup-notebooks.sh" >&2; exit 1; }
done
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)

WORK=$(mktemp -d "${TMPDIR:-/tmp}/quce-browser-work.XXXXXX")
SERVER_PID=
NODE_PID=
cleanup() {
  rc=$?
  if [ -n "$NODE_PID" ]; then
    kill -TERM "$NODE_PID" 2>/dev/null || true  # playwright closes its Chromium when node exits
    wait "$NODE_PID" 2>/dev/null || true
  fi
  if [ -n "$SERVER_PID" ]; then
    # The server runs in its own session/process group (setsid): that takes its kernels and the
    # cell programs they started with it.
    kill -TERM -- "-$SERVER_PID" 2>/dev/null || kill -TERM "$SERVER_PID" 2>/dev/null || true
    for _ in 1 2 3 4 5 6 7 8 9 10; do kill -0 "$SERVER_PID" 2>/dev/null || break; sleep 0.5; done
    kill -KILL -- "-$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
  fi
  rm -rf "$WORK"
  exit $rc
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Scratch "repository": symlinks to the real top level, a private copy of notebooks/.
ROOT=$WORK/repo
mkdir -p "$ROOT/notebooks"
for e in "$REPO"/* "$REPO"/.[!.]*; do
  [ -e "$e" ] || continue
  case "$(basename "$e")" in notebooks|.git) continue ;; esac
  ln -s "$e" "$ROOT/$(basename "$e")"
done
if [ -d "$REPO/notebooks" ]; then
  find "$REPO/notebooks" -mindepth 1 -maxdepth 1 ! -name '.ipynb_checkpoints' -exec cp -r {} "$ROOT/notebooks/" \;
fi
cp "$NB" "$ROOT/notebooks/$NAME"

# Private Jupyter dirs (no user config, a fresh gonb kernelspec), random token, free port.
export JUPYTER_DATA_DIR=$WORK/jupyter-data JUPYTER_CONFIG_DIR=$WORK/jupyter-config JUPYTER_RUNTIME_DIR=$WORK/jupyter-runtime
mkdir -p "$JUPYTER_CONFIG_DIR" "$JUPYTER_RUNTIME_DIR"
gonb --install >"$WORK/gonb-install.log" 2>&1 || { cat "$WORK/gonb-install.log"; exit 1; }
TOKEN=$(/usr/bin/python3 -c 'import secrets; print(secrets.token_hex(24))')
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')

echo "test-browser: notebook $NAME (copy in $ROOT/notebooks), Jupyter on 127.0.0.1:$PORT, output in $OUT"
(cd "$ROOT" && exec setsid /usr/bin/jupyter notebook --no-browser --ip=127.0.0.1 --port="$PORT" \
   --port-retries=0 --allow-root --notebook-dir="$ROOT" --NotebookApp.token="$TOKEN" \
   --NotebookApp.password='' --NotebookApp.open_browser=False) >"$OUT/jupyter.log" 2>&1 &
SERVER_PID=$!
/usr/bin/python3 - "$PORT" "$TOKEN" "$SERVER_PID" <<'PY' || { echo "test-browser: Jupyter did not start:"; tail -n 30 "$OUT/jupyter.log"; exit 1; }
import os, sys, time, urllib.request
port, token, pid = sys.argv[1], sys.argv[2], int(sys.argv[3])
deadline = time.time() + 60
while time.time() < deadline:
    try:
        os.kill(pid, 0)
    except OSError:
        sys.exit(1)
    try:
        urllib.request.urlopen("http://127.0.0.1:%s/api/status?token=%s" % (port, token), timeout=2).read()
        sys.exit(0)
    except Exception:
        time.sleep(0.3)
sys.exit(1)
PY

# In the background + wait, so that a signal to this script is handled at once (cleanup kills it).
JUPYTER_PORT=$PORT JUPYTER_TOKEN=$TOKEN NB_PATH="notebooks/$NAME" OUT_DIR="$OUT" WORK_DIR="$WORK" \
  node "$SCRIPTS/browser/slider_test.js" &
NODE_PID=$!
rc=0
wait "$NODE_PID" || rc=$?
NODE_PID=
if [ $rc -ne 0 ]; then
  echo "test-browser: FAILED ($NAME, rc=$rc); Jupyter log: $OUT/jupyter.log, screenshots in $OUT" >&2
  exit 1
fi
echo "test-browser: passed ($NAME); screenshots in $OUT"
if [ $UPDATE = 1 ]; then
  SAVED=$OUT/${NAME%.ipynb}_saved.ipynb
  [ -f "$SAVED" ] || { echo "test-browser: --update: no saved notebook $SAVED (the widget cell has no \"Done\" button?)" >&2; exit 1; }
  /usr/bin/python3 "$SCRIPTS/merge_widget_outputs.py" "$NB" "$SAVED" \
    || { echo "test-browser: --update: could not save the widget cell's outputs into $NB" >&2; exit 1; }
fi
