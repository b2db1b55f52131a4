#!/usr/bin/env bash
# Rebuilds third_party/gobackend, the patched pure-Go backend that is a package of this module
# (third_party/README.md), from its upstream source and two series of changes:
#   1. github.com/gomlx/compute at $base (below) as the Go module proxy serves it, with
#      third_party/patches/*.patch applied in order with git am (the patches, each with its
#      reason, figures and test);
#   2. the relocation: that module's gobackend/ and internal/ (less internal/cmd, the code
#      generators) with its LICENSE, their imports of each other rewritten to this module's
#      path, gofmt'ed (the import lines move); nothing else changes;
#   3. third_party/port/*.patch applied in order to that: what building on the newer compute
#      (the version go.mod requires, whose public packages the copy uses) and Go 1.27 needs,
#      and the backend's own name.
# Modes:
#   (default, --check)  compare with third_party/gobackend; exit 1 and show the difference
#                       if they are not the same, file for file and byte for byte;
#   --write             replace third_party/gobackend with the rebuilt copy;
#   --git DIR           leave step 1's module in DIR (new) as a git repository with one commit
#                       per patch, to change that series there (git commit --fixup, rebase);
#   --git-port DIR      leave step 3's tree in DIR (new) as a git repository: the relocation
#                       as its first commit, then one commit per port patch;
#   --export DIR        replace third_party/patches (a --git repository) or third_party/port
#                       (a --git-port one) with its commits, one patch each, NN-subject.patch.
# Works offline once the module is in Go's module cache (go mod download).
# Usage: bash scripts/vendor-compute.sh [--check | --write | --git DIR | --git-port DIR | --export DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
module=github.com/gomlx/compute
base=v0.1.6 # the version the patch series applies to (third_party/README.md says why)
target="$root/third_party/gobackend"
patches="$root/third_party/patches"
port="$root/third_party/port"
ourpath=github.com/quce-go/quce/third_party/gobackend
relocated_subject="relocation: $module $base's gobackend and internal packages as $ourpath"

mode=check gitdir=
case "${1:-}" in
  "" | --check) ;;
  --write) mode=write ;;
  --git | --git-port)
    mode=${1#--} gitdir=${2:?$1 needs a directory}
    [ ! -e "$gitdir" ] || { echo "vendor-compute: $gitdir exists; name a new directory" >&2; exit 2; }
    ;;
  --export)
    src=${2:?--export needs the directory --git or --git-port made}
    first=$(git -C "$src" rev-list --max-parents=0 HEAD)
    if [ "$(git -C "$src" log -1 --format=%s "$first")" = "$relocated_subject" ]; then
      dest=$port
    else
      dest=$patches
    fi
    out=$(mktemp -d)
    git -C "$src" format-patch -q --zero-commit --no-signature --full-index -N --start-number=0 \
      --filename-max-length=90 -o "$out" "$first..HEAD"
    rm -f "$dest"/[0-9][0-9]-*.patch
    mkdir -p "$dest"
    for f in "$out"/*.patch; do
      name=${f##*/}
      mv "$f" "$dest/${name#00}" # 0003-subject.patch -> 03-subject.patch
    done
    rmdir "$out"
    echo "vendor-compute: ${dest#"$root"/} now holds the $(git -C "$src" rev-list --count "$first..HEAD") commits of $src"
    exit 0
    ;;
  *) echo "usage: bash scripts/vendor-compute.sh [--check | --write | --git DIR | --git-port DIR | --export DIR]" >&2; exit 2 ;;
esac

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Outside any module, so that GOFLAGS cannot ask for vendoring.
if ! json=$(cd "$tmp" && GOFLAGS= go mod download -json "$module@$base"); then
  echo "vendor-compute: go mod download $module@$base failed (offline, it needs the module in Go's module cache):" >&2
  printf '%s\n' "$json" >&2
  exit 1
fi
pristine=$(printf '%s\n' "$json" | sed -n 's|^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$|\1|p')
if [ -z "$pristine" ] || [ ! -d "$pristine" ]; then
  echo "vendor-compute: go mod download $module@$base gave no directory:" >&2
  printf '%s\n' "$json" >&2
  exit 1
fi

git_() { git -C "$1" -c user.name=vendor-compute -c user.email=vendor-compute@localhost \
  -c core.autocrlf=false -c commit.gpgsign=false "${@:2}"; }
shopt -s nullglob

# 1. The module (the cache is read-only; a fresh git repository, so that git am works on it
# whatever repository this script runs in) and the patch series.
work="$tmp/compute"
cp -R "$pristine" "$work"
chmod -R u+w "$work"
git_ "$work" init -q
git_ "$work" add -A -f
git_ "$work" commit -q -m "$module $base as the Go module proxy serves it"
series=("$patches"/[0-9][0-9]-*.patch)
[ ${#series[@]} -gt 0 ] || { echo "vendor-compute: no patches in $patches" >&2; exit 1; }
if ! git_ "$work" am -q --whitespace=nowarn "${series[@]}"; then
  echo "vendor-compute: the patches do not apply to $module@$base in order (above)" >&2
  exit 1
fi
if [ $mode = git ]; then
  cp -R "$work" "$gitdir"
  echo "vendor-compute: $gitdir holds $module@$base with one commit per patch"
  exit 0
fi

# 2. The relocation.
copy="$tmp/gobackend"
mkdir -p "$copy"
cp "$work/LICENSE" "$copy/"
cp -R "$work/gobackend/." "$copy/"
cp -R "$work/internal" "$copy/internal"
rm -rf "$copy/internal/cmd"
find "$copy" -type f -name '*.go' -exec sed -i \
  -e "s|\"$module/internal/|\"$ourpath/internal/|g" -e "s|\"$module/gobackend\"|\"$ourpath\"|g" {} +
gofmt -w "$copy"
git_ "$copy" init -q
git_ "$copy" add -A -f
git_ "$copy" commit -q -m "$relocated_subject"

# 3. The port.
ports=("$port"/[0-9][0-9]-*.patch)
if [ ${#ports[@]} -gt 0 ] && ! git_ "$copy" am -q --whitespace=nowarn "${ports[@]}"; then
  echo "vendor-compute: third_party/port does not apply to the relocated copy in order (above)" >&2
  exit 1
fi

case $mode in
  check)
    if ! diff -r -x .git "$copy" "$target" >"$tmp/diff"; then
      echo "vendor-compute: third_party/gobackend is not $module@$base plus third_party/patches, relocated, plus third_party/port:" >&2
      head -n 200 "$tmp/diff" >&2
      echo "(first 200 lines; a change to the copy belongs in a patch: third_party/README.md)" >&2
      exit 1
    fi
    echo "vendor-compute: third_party/gobackend is $module@$base plus the ${#series[@]} patches, relocated, plus the ${#ports[@]} port patches"
    ;;
  write)
    rm -rf "$target"
    mkdir -p "$target"
    (cd "$copy" && tar --exclude=./.git -cf - .) | (cd "$target" && tar -xf -)
    echo "vendor-compute: wrote third_party/gobackend ($module@$base plus the ${#series[@]} patches, relocated, plus the ${#ports[@]} port patches)"
    ;;
  git-port)
    cp -R "$copy" "$gitdir"
    echo "vendor-compute: $gitdir holds the relocated copy with one commit per port patch"
    ;;
esac
