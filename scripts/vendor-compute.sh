#!/usr/bin/env bash
# Rebuilds the patched copy of GoMLX's compute backends from the module as the Go module proxy
# serves it (the version go.mod requires) and the patch series third_party/patches/*.patch,
# applied in order with git am (third_party/README.md):
#   (default, --check)  compare with third_party/gomlx-compute; exit 1 and show the difference
#                       if they are not the same, file for file and byte for byte;
#   --write             replace third_party/gomlx-compute with the rebuilt copy;
#   --git DIR           leave the rebuilt copy in DIR (new) as a git repository with one commit
#                       per patch, to change the series there (git commit --fixup, git rebase);
#   --export DIR        replace third_party/patches with the commits of such a repository, one
#                       patch each (git format-patch), named NN-subject.patch from 00.
# Works offline once the module is in Go's module cache (go mod download).
# Usage: bash scripts/vendor-compute.sh [--check | --write | --git DIR | --export DIR]
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
module=github.com/gomlx/compute
target="$root/third_party/gomlx-compute"
patches="$root/third_party/patches"

mode=check gitdir=
case "${1:-}" in
  "" | --check) ;;
  --write) mode=write ;;
  --git)
    mode=git gitdir=${2:?--git needs a directory}
    [ ! -e "$gitdir" ] || { echo "vendor-compute: $gitdir exists; name a new directory" >&2; exit 2; }
    ;;
  --export)
    src=${2:?--export needs the directory --git made}
    base=$(git -C "$src" rev-list --max-parents=0 HEAD)
    out=$(mktemp -d)
    git -C "$src" format-patch -q --zero-commit --no-signature --full-index -N --start-number=0 \
      --filename-max-length=90 \
      -o "$out" "$base..HEAD"
    rm -f "$patches"/[0-9][0-9]-*.patch
    for f in "$out"/*.patch; do
      name=${f##*/}
      mv "$f" "$patches/${name#00}" # 0003-subject.patch -> 03-subject.patch
    done
    rmdir "$out"
    echo "vendor-compute: third_party/patches now holds the $(git -C "$src" rev-list --count "$base..HEAD") commits of $src"
    exit 0
    ;;
  *) echo "usage: bash scripts/vendor-compute.sh [--check | --write | --git DIR | --export DIR]" >&2; exit 2 ;;
esac

version=$(sed -n "s|^[[:space:]]*$module \(v[^[:space:]]*\).*|\1|p" "$root/go.mod" | head -n 1)
[ -n "$version" ] || { echo "vendor-compute: go.mod does not require $module" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Outside any module, so that go.mod's replace does not apply and GOFLAGS cannot ask for vendoring.
if ! json=$(cd "$tmp" && GOFLAGS= go mod download -json "$module@$version"); then
  echo "vendor-compute: go mod download $module@$version failed (offline, it needs the module in Go's module cache):" >&2
  printf '%s\n' "$json" >&2
  exit 1
fi
pristine=$(printf '%s\n' "$json" | sed -n 's|^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$|\1|p')
if [ -z "$pristine" ] || [ ! -d "$pristine" ]; then
  echo "vendor-compute: go mod download $module@$version gave no directory:" >&2
  printf '%s\n' "$json" >&2
  exit 1
fi

# The module cache is read-only; the copy is a fresh git repository, so that git am works on it
# whatever repository this script runs in.
work="$tmp/compute"
cp -R "$pristine" "$work"
chmod -R u+w "$work"
git_() { git -C "$work" -c user.name=vendor-compute -c user.email=vendor-compute@localhost \
  -c core.autocrlf=false -c commit.gpgsign=false "$@"; }
git_ init -q
git_ add -A -f
git_ commit -q -m "$module $version as the Go module proxy serves it"
shopt -s nullglob
series=("$patches"/[0-9][0-9]-*.patch)
[ ${#series[@]} -gt 0 ] || { echo "vendor-compute: no patches in $patches" >&2; exit 1; }
if ! git_ am -q --whitespace=nowarn "${series[@]}"; then
  echo "vendor-compute: the patches do not apply to $module@$version in order (above)" >&2
  exit 1
fi

case $mode in
  check)
    if ! diff -r -x .git "$work" "$target" >"$tmp/diff"; then
      echo "vendor-compute: third_party/gomlx-compute is not $module@$version plus third_party/patches:" >&2
      head -n 200 "$tmp/diff" >&2
      echo "(first 200 lines; a change to the copy belongs in a patch: third_party/README.md)" >&2
      exit 1
    fi
    echo "vendor-compute: third_party/gomlx-compute is $module@$version plus the ${#series[@]} patches"
    ;;
  write)
    rm -rf "$target"
    mkdir -p "$target"
    (cd "$work" && tar --exclude=./.git -cf - .) | (cd "$target" && tar -xf -)
    echo "vendor-compute: wrote third_party/gomlx-compute ($module@$version plus the ${#series[@]} patches)"
    ;;
  git)
    cp -R "$work" "$gitdir"
    echo "vendor-compute: $gitdir holds $module@$version with one commit per patch"
    ;;
esac
