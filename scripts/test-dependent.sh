#!/usr/bin/env bash
# Tests what a dependent gets: this module as another module on another machine sees it,
# through a module proxy, with no replace directive anywhere.
#   1. a local file module proxy (GOPROXY=file://...) holding this module's zip at a
#      pseudo-version of HEAD (the working tree's files that git tracks or does not ignore,
#      as `go mod download` would unpack them; nested modules left out, as Go does);
#   2. `go install github.com/quce-go/quce/cmd/quce@VERSION` in a directory outside the
#      repository: its `explain` (text and JSON, less the versions it reports) must be the
#      in-repository build's byte for byte;
#   3. a module of its own in a temporary directory that requires this one with `go get`
#      and runs testdata/dependent (pipeline and quce): what it prints must be what the same
#      program prints inside the repository;
#   4. unless --no-notebook: a GoNB notebook in a temporary directory that gets the module
#      with `go get` through that proxy and runs gonbext.Prepare, Explain and
#      ShowExplanation, executed headless by scripts/test-notebooks.sh (run
#      scripts/setup-notebooks.sh first).
# Usage: bash scripts/test-dependent.sh [--no-notebook] [--keep DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"
export GOTOOLCHAIN=go1.27.3 GOFLAGS=-buildvcs=false
if [ -z "${GOEXPERIMENT+set}" ] && [ "$(go env GOARCH)" = amd64 ]; then
  export GOEXPERIMENT=simd
fi
unset GOMLX_BACKEND # a dependent gets backend.Default's choice
module=github.com/quce-go/quce

notebook=1 keep=
while [ $# -gt 0 ]; do
  case "$1" in
    --no-notebook) notebook=0 ;;
    --keep) keep=$2; shift ;;
    *) echo "usage: bash scripts/test-dependent.sh [--no-notebook] [--keep DIR]" >&2; exit 2 ;;
  esac
  shift
done
if [ -n "$keep" ]; then
  rm -rf "$keep"; mkdir -p "$keep"; tmp=$(cd "$keep" && pwd)
else
  tmp=$(mktemp -d "${TMPDIR:-/tmp}/quce-dependent.XXXXXX")
  trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
fi
say() { echo "test-dependent: $*"; }
fail() { echo "test-dependent: FAIL: $*" >&2; exit 1; }

# 1. The proxy.
if stamp=$(TZ=UTC git log -1 --format=%cd --date=format-local:%Y%m%d%H%M%S 2>/dev/null) &&
  rev=$(git rev-parse --short=12 HEAD 2>/dev/null); then
  version=v0.0.0-$stamp-$rev
else
  version=v0.0.0-20260101000000-000000000000
fi
proxy=$tmp/proxy
python3 - "$proxy" "$module" "$version" <<'EOF'
import json, os, subprocess, sys, zipfile
proxy, module, version = sys.argv[1:]
files = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                       check=True, capture_output=True).stdout.decode().split("\0")
files = sorted(f for f in files if f and os.path.isfile(f))
# Go leaves out of a module's zip every folder that holds a go.mod of its own (a nested module).
nested = {os.path.dirname(f) + "/" for f in files if os.path.basename(f) == "go.mod" and "/" in f}
files = [f for f in files if not any(f.startswith(n) for n in nested)]
d = os.path.join(proxy, module, "@v")
os.makedirs(d, exist_ok=True)
with zipfile.ZipFile(os.path.join(d, version + ".zip"), "w", zipfile.ZIP_DEFLATED) as z:
    for f in files:
        z.write(f, module + "@" + version + "/" + f)
with open("go.mod", "rb") as src, open(os.path.join(d, version + ".mod"), "wb") as dst:
    dst.write(src.read())
with open(os.path.join(d, version + ".info"), "w") as f:
    json.dump({"Version": version}, f)
with open(os.path.join(d, "list"), "w") as f:
    f.write(version + "\n")
print(f"{len(files)} files")
EOF
export GOPROXY="file://$proxy,$(go env GOPROXY)" GONOSUMDB=$module
say "module $module@$version in the proxy $proxy"

# The in-repository builds to compare with.
mkdir -p "$tmp/repo"
go build -o "$tmp/repo/quce" ./cmd/quce
go run ./testdata/dependent >"$tmp/repo/program.txt"

# 2. go install from outside the repository.
mkdir -p "$tmp/elsewhere" "$tmp/bin"
(cd "$tmp/elsewhere" && GOBIN="$tmp/bin" GOFLAGS=-mod=mod go install "$module/cmd/quce@$version") ||
  fail "go install $module/cmd/quce@$version"
say "go install $module/cmd/quce@$version: built"
explain() { # explain BIN DIR
  mkdir -p "$2"
  QUCE_CACHE="$2/cache" "$1" explain -n 5 -json "$2/explain.json" >"$2/explain.txt" 2>"$2/explain.err" ||
    { cat "$2/explain.err" >&2; fail "$1 explain"; }
  python3 - "$2/explain.json" >"$2/explain.cmp.json" <<'EOF'
import json, sys
doc = json.load(open(sys.argv[1]))
doc.pop("versions")  # the module's own version and how it was built: (devel) in the repository
print(json.dumps(doc, indent=1, sort_keys=True))
EOF
}
explain "$tmp/repo/quce" "$tmp/repo/explain"
explain "$tmp/bin/quce" "$tmp/elsewhere/explain"
cmp "$tmp/repo/explain/explain.txt" "$tmp/elsewhere/explain/explain.txt" || fail "explain's text differs from the in-repository build's"
cmp "$tmp/repo/explain/explain.cmp.json" "$tmp/elsewhere/explain/explain.cmp.json" || fail "explain's JSON differs from the in-repository build's"
grep -q '"backend": "gopatched"' "$tmp/elsewhere/explain/explain.cmp.json" || fail "the installed command did not run on the patched backend"
say "the installed quce explains as the in-repository build does (text and JSON byte for byte)"

# 3. A module of one's own.
mine=$tmp/mine
mkdir -p "$mine"
cp testdata/dependent/main.go "$mine/"
(
  cd "$mine"
  go mod init example.com/mine >/dev/null 2>&1
  GOFLAGS=-mod=mod go get "$module@$version" >/dev/null 2>&1 || GOFLAGS=-mod=mod go get "$module@$version"
  GOFLAGS=-mod=mod go mod tidy
  ! grep -q '^replace' go.mod || { echo "a replace directive in the dependent's go.mod" >&2; exit 1; }
  go run . >"$tmp/mine.txt"
) || fail "the module of one's own did not build and run"
cmp "$tmp/repo/program.txt" "$tmp/mine.txt" || fail "the dependent program's results differ from the in-repository run's"
say "a module of one's own that requires $module gets the same results byte for byte ($(wc -l <"$tmp/mine.txt") lines)"

# 4. A notebook of one's own.
if [ $notebook = 1 ]; then
  nbdir=$tmp/notebook
  mkdir -p "$nbdir"
  python3 - "$nbdir/mine.ipynb" "$module" "$version" <<'EOF'
import json, sys
path, module, version = sys.argv[1:]
def code(src):
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": src}
cells = [
    code(f"!*go get {module}@{version}"),
    code('import (\n\t"github.com/janpfeifer/gonb/gonbui"\n\n\t"github.com/quce-go/quce/gonb_ext"\n'
         '\t"github.com/quce-go/quce/pipeline"\n\t"github.com/quce-go/quce/quce"\n)'),
    code("%%\ndefer gonbui.Sync()\ns := gonbext.Must(gonbext.Prepare(pipeline.Options{SplitSeed: 1}))\n"
         "ex := gonbext.Must(gonbext.Explain(s, quce.DefaultConfig(), s.XTest[:2]))\n"
         "gonbext.Check(gonbext.ShowExplanation(s, ex[0]))"),
]
nb = {"cells": cells, "metadata": {"kernelspec": {"display_name": "Go (gonb)", "language": "go", "name": "gonb"}},
      "nbformat": 4, "nbformat_minor": 5}
json.dump(nb, open(path, "w"), indent=1)
EOF
  QUCE_CACHE="$tmp/notebook-cache" bash scripts/test-notebooks.sh --out "$tmp/notebook-out" "$nbdir/mine.ipynb" ||
    fail "the notebook outside the repository (executed copy and log in $tmp/notebook-out)"
  grep -q 'gopatched' "$tmp/notebook-out/mine.ipynb" || fail "the notebook did not run on the patched backend"
  say "a notebook outside the repository got the module with go get and ran Prepare, Explain and ShowExplanation"
fi
say "passed"
