#!/usr/bin/env bash
# Checks the fixes in third_party/upstream, ready to send to GoMLX: they apply with git am, in
# order, to github.com/gomlx/compute at the version go.mod requires (from Go's module cache,
# so it works offline once `go mod download` has run), and the tests they add pass, with
# GOEXPERIMENT=simd and without (third_party/upstream/README.md lists them, with what they
# gave without the fixes).
# Usage: bash scripts/check-upstream-fixes.sh
set -euo pipefail
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
export GOTOOLCHAIN=go1.27.3 GOFLAGS=-mod=mod
unset GOMLX_BACKEND # the tests choose upstream's own backend ("go"), as upstream runs them
module=github.com/gomlx/compute
version=$(sed -n "s|^[[:space:]]*$module \(v[^[:space:]]*\).*|\1|p" "$root/go.mod" | head -n 1)
[ -n "$version" ] || { echo "check-upstream-fixes: go.mod does not require $module" >&2; exit 1; }
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
dir=$(cd "$tmp" && GOFLAGS= go mod download -json "$module@$version" | sed -n 's|^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$|\1|p')
[ -d "$dir" ] || { echo "check-upstream-fixes: go mod download $module@$version gave no directory" >&2; exit 1; }
work=$tmp/compute
cp -R "$dir" "$work"
chmod -R u+w "$work"
git_() { git -C "$work" -c user.name=check -c user.email=check@localhost -c commit.gpgsign=false "$@"; }
git_ init -q
git_ add -A -f
git_ commit -q -m "$module $version"
git_ am -q "$root"/third_party/upstream/[0-9][0-9][0-9][0-9]-*.patch ||
  { echo "check-upstream-fixes: third_party/upstream does not apply to $module@$version" >&2; exit 1; }
cd "$work"
run='TestImplicitBroadcastFusionInsideWhileBody|TestWhileWithUnusedOutputs|TestExpLogisticTanhNonFinite|TestActivationsNonFinite|TestNonFinite|TestExpTanhNonFinite'
pkgs=(./internal/gobackend/ ./internal/gobackend/passes/ ./internal/gobackend/ops/ ./internal/gobackend/activations/...
  ./support/simdmath/)
for exp in simd ""; do
  GOEXPERIMENT=$exp go test -count=1 -run "$run" "${pkgs[@]}"
done
echo "check-upstream-fixes: the $(ls "$root"/third_party/upstream/[0-9][0-9][0-9][0-9]-*.patch | wc -l) fixes apply to $module@$version and their tests pass"
