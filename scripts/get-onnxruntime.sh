#!/usr/bin/env bash
# Fetch the ONNX Runtime shared library used by the optional ONNX backend (build tag "onnx").
#
# The library is not packaged by Debian; the npm package onnxruntime-node ships a CPU build for
# linux/x64. This script downloads that package's tarball with `npm pack` (npm checks the
# registry's integrity hash; no install, no postinstall script), extracts only
# package/bin/napi-v6/linux/x64/libonnxruntime.so.1 into $QUCE_ORT_DIR (default
# ~/.cache/quce/onnxruntime, outside the repository), checks its sha256 against the pinned value
# and prints the environment to use it. Running it again is a no-op once the library is in place.
#
# Usage: scripts/get-onnxruntime.sh            # then: eval "$(scripts/get-onnxruntime.sh -q)"
#        scripts/get-onnxruntime.sh -q         # print only the export lines
set -euo pipefail

ORT_NPM_PACKAGE="onnxruntime-node@1.30.0"
ORT_MEMBER="package/bin/napi-v6/linux/x64/libonnxruntime.so.1"
# sha256 of $ORT_MEMBER in onnxruntime-node-1.30.0.tgz.
ORT_SHA256="ffb75a925ba05e47b235bb66e3e3911714a80b328a9c9425539feb204aa32a23"

DEST="${QUCE_ORT_DIR:-$HOME/.cache/quce/onnxruntime}"
LIB="$DEST/libonnxruntime.so.1"

quiet=0
[[ "${1:-}" == "-q" ]] && quiet=1
say() { if [[ $quiet == 0 ]]; then echo "$@" >&2; fi; }
die() { echo "get-onnxruntime: $*" >&2; exit 1; }

if [[ "$(uname -s)" != "Linux" || "$(uname -m)" != "x86_64" ]]; then
	die "only linux/x86_64 is handled (this is $(uname -s)/$(uname -m)); fix: point GOMLX_BACKEND=onnx:<path> at a libonnxruntime for your platform"
fi

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

if [[ -f "$LIB" && "$(sha256_of "$LIB")" == "$ORT_SHA256" ]]; then
	say "already present: $LIB"
else
	command -v npm >/dev/null || die "npm not found; fix: install Node.js/npm (apt-get install npm), or fetch $ORT_NPM_PACKAGE's tarball by hand and extract $ORT_MEMBER to $LIB"
	tmp="$(mktemp -d)"
	trap 'rm -rf "$tmp"' EXIT
	say "downloading $ORT_NPM_PACKAGE (about 113 MB) with npm pack ..."
	(cd "$tmp" && npm pack --ignore-scripts --silent "$ORT_NPM_PACKAGE" >/dev/null 2>"$tmp/npm.log") ||
		{ cat "$tmp/npm.log" >&2; die "npm pack $ORT_NPM_PACKAGE failed"; }
	tgz="$(ls "$tmp"/*.tgz 2>/dev/null | head -n1)"
	[[ -n "$tgz" ]] || die "npm pack produced no tarball"
	tar -xzf "$tgz" -C "$tmp" "$ORT_MEMBER" || die "$ORT_MEMBER not found in $(basename "$tgz")"
	got="$(sha256_of "$tmp/$ORT_MEMBER")"
	[[ "$got" == "$ORT_SHA256" ]] || die "sha256 mismatch for $ORT_MEMBER: got $got, want $ORT_SHA256"
	mkdir -p "$DEST"
	cp "$tmp/$ORT_MEMBER" "$LIB.tmp.$$"
	chmod 0644 "$LIB.tmp.$$"
	mv -f "$LIB.tmp.$$" "$LIB"
	say "installed: $LIB"
fi

say "sha256: $(sha256_of "$LIB")"
say "Use it with a binary built with -tags onnx (needs cgo), e.g.:"
say "  go build -tags onnx -o /tmp/quce-onnx ./cmd/quce"
echo "export GOMLX_NO_AUTO_INSTALL=1"
echo "export GOMLX_BACKEND=onnx:$LIB"
