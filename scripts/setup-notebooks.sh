#!/usr/bin/env bash
# Installs everything the notebook tests need, skipping what is already there (a second run takes
# about a second). Safe to run repeatedly; exits non-zero on the first failure.
#
#   - Debian packages: jupyter-notebook, jupyter-nbconvert, python3-ipykernel (classic Notebook 6,
#     nbconvert 6; used as /usr/bin/jupyter with /usr/bin/python3) and chromium (browser test).
#   - goimports v0.52.0 and gopls v0.23.0 (GoNB needs both; they build with Go 1.27 too).
#   - GoNB v0.11.5, built from the pinned tools module in scripts/tools/gonb (a plain
#     `go install github.com/janpfeifer/gonb@v0.11.5` fails: the proxy refuses gonb's version list).
#   - The "gonb" Jupyter kernel (`gonb --install`, into $JUPYTER_DATA_DIR or ~/.local/share/jupyter).
#   - playwright-core (pinned by scripts/browser/package-lock.json; `npm ci`). It drives Debian's
#     chromium; no browser is downloaded.
#
# Usage: bash scripts/setup-notebooks.sh [--no-browser]   (--no-browser: skip chromium and npm)
# Needs: Go (GOTOOLCHAIN=go1.27.3 fetches 1.27.3), gcc, Node/npm, Debian apt (runs apt-get through sudo when not root).
set -Eeuo pipefail

GONB_VERSION=v0.11.5
X_TOOLS_VERSION=v0.52.0   # golang.org/x/tools (goimports)
GOPLS_VERSION=v0.23.0     # golang.org/x/tools/gopls (v0.24+ needs Go 1.27)

WITH_BROWSER=1
for a in "$@"; do
  case "$a" in
    --no-browser) WITH_BROWSER=0 ;;
    -h|--help) sed -n '2,17p' "$0"; exit 0 ;;
    *) echo "setup-notebooks: unknown argument $a" >&2; exit 2 ;;
  esac
done

SCRIPTS=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export GOTOOLCHAIN=go1.27.3 GOFLAGS=-buildvcs=false
GOBIN=$(go env GOBIN); [ -n "$GOBIN" ] || GOBIN=$(go env GOPATH)/bin
export GOBIN PATH=$GOBIN:$PATH
T0=$(date +%s)
step() { echo "setup-notebooks: $*"; }
# timed CMD...: runs CMD and prints how long it took.
timed() { local t=$SECONDS; "$@"; step "  ... $(( SECONDS - t ))s"; }
trap 'echo "setup-notebooks: FAILED (line $LINENO)" >&2' ERR

SUDO=
if [ "$(id -u)" != 0 ]; then SUDO=sudo; fi

# --- 1. Debian packages -------------------------------------------------------------------------
APT_PKGS=(jupyter-notebook jupyter-nbconvert python3-ipykernel)
[ $WITH_BROWSER = 1 ] && APT_PKGS+=(chromium)
missing=()
for p in "${APT_PKGS[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  step "apt-get update && apt-get install ${missing[*]} (~1.5 min)"
  t=$SECONDS
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq "${missing[@]}" >/dev/null
  step "  ... $(( SECONDS - t ))s"
else
  step "apt packages already installed: ${APT_PKGS[*]}"
fi
[ -x /usr/bin/jupyter ] || { echo "setup-notebooks: /usr/bin/jupyter missing after apt" >&2; exit 1; }
[ $WITH_BROWSER = 0 ] || [ -x /usr/bin/chromium ] || { echo "setup-notebooks: /usr/bin/chromium missing after apt" >&2; exit 1; }

# --- 2. goimports, gopls, gonb ------------------------------------------------------------------
# has_mod BINARY MODULE VERSION: the installed binary was built with MODULE at VERSION.
has_mod() {
  [ -x "$GOBIN/$1" ] && go version -m "$GOBIN/$1" 2>/dev/null | grep -qE "^[[:space:]]+(mod|dep)[[:space:]]+$2[[:space:]]+$3([[:space:]]|$)"
}
if has_mod goimports golang.org/x/tools "$X_TOOLS_VERSION"; then
  step "goimports $X_TOOLS_VERSION already installed"
else
  step "go install golang.org/x/tools/cmd/goimports@$X_TOOLS_VERSION (~40 s)"
  timed go install "golang.org/x/tools/cmd/goimports@$X_TOOLS_VERSION"
fi
if has_mod gopls golang.org/x/tools/gopls "$GOPLS_VERSION"; then
  step "gopls $GOPLS_VERSION already installed"
else
  step "go install golang.org/x/tools/gopls@$GOPLS_VERSION (~1-2 min)"
  timed go install "golang.org/x/tools/gopls@$GOPLS_VERSION"
fi
if has_mod gonb github.com/janpfeifer/gonb "$GONB_VERSION"; then
  step "gonb $GONB_VERSION already installed"
else
  step "building gonb $GONB_VERSION from scripts/tools/gonb (~30 s)"
  grep -q "github.com/janpfeifer/gonb $GONB_VERSION" "$SCRIPTS/tools/gonb/go.mod" \
    || { echo "setup-notebooks: scripts/tools/gonb/go.mod does not pin gonb $GONB_VERSION" >&2; exit 1; }
  (cd "$SCRIPTS/tools/gonb" && timed go install github.com/janpfeifer/gonb)
fi

# --- 3. Register the kernel ---------------------------------------------------------------------
# kernel.json gets "env": {"PATH": "$GOBIN:${PATH}"} (Jupyter expands ${PATH} at kernel start), so
# the kernel finds goimports/gopls even when Jupyter is started from a shell without $GOBIN on PATH.
KDIR=${JUPYTER_DATA_DIR:-$HOME/.local/share/jupyter}/kernels/gonb
if [ -f "$KDIR/kernel.json" ] && grep -q "\"$GOBIN/gonb\"" "$KDIR/kernel.json" \
   && grep -qF "\"PATH\": \"$GOBIN:\${PATH}\"" "$KDIR/kernel.json"; then
  step "gonb kernel already registered in $KDIR"
else
  step "gonb --install (kernel spec in $KDIR)"
  gonb --install
  /usr/bin/python3 - "$KDIR/kernel.json" "$GOBIN" <<'PY'
import json, sys
path, gobin = sys.argv[1], sys.argv[2]
with open(path) as f:
    spec = json.load(f)
spec.setdefault("env", {})["PATH"] = gobin + ":${PATH}"
with open(path, "w") as f:
    json.dump(spec, f, indent=1)
    f.write("\n")
PY
fi
# (`jupyter kernelspec` lives in Debian's jupyter-client package, which we do not need: ask Python.)
/usr/bin/python3 -c 'import sys; from jupyter_client.kernelspec import KernelSpecManager as K; sys.exit("gonb" not in K().find_kernel_specs())' \
  || { echo "setup-notebooks: jupyter does not find the gonb kernel" >&2; exit 1; }

# --- 4. playwright-core -------------------------------------------------------------------------
if [ $WITH_BROWSER = 1 ]; then
  BR=$SCRIPTS/browser
  want=$(node -e 'console.log(require(process.argv[1]).packages["node_modules/playwright-core"].version)' "$BR/package-lock.json")
  have=$(node -e 'try{console.log(require(process.argv[1]).version)}catch(e){console.log("none")}' "$BR/node_modules/playwright-core/package.json")
  if [ "$have" = "$want" ]; then
    step "playwright-core $want already installed in scripts/browser/node_modules"
  else
    step "npm ci in scripts/browser (playwright-core $want)"
    (cd "$BR" && timed npm ci --no-audit --no-fund --loglevel=error)
  fi
fi

# `sed -n 1p`, not `head -1`: head can exit before gonb has written everything, and under
# pipefail gonb's SIGPIPE set off the ERR trap, printing FAILED after a good setup.
step "versions: $(go version | cut -d' ' -f3), gonb $(gonb --version 2>&1 | sed -n 1p | tr -s ' ' | cut -c1-60)," \
  "jupyter-notebook $(dpkg-query -W -f='${Version}' jupyter-notebook)," \
  "nbconvert $(dpkg-query -W -f='${Version}' jupyter-nbconvert)$( [ $WITH_BROWSER = 1 ] && echo ", chromium $(dpkg-query -W -f='${Version}' chromium)")"
step "done in $(( $(date +%s) - T0 ))s (add $GOBIN to PATH to use gonb/goimports/gopls outside these scripts)"
