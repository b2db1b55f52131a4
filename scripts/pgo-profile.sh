#!/usr/bin/env bash
# pgo-profile.sh: writes cmd/quce/default.pgo, the CPU profile that go build and go run use to
# optimise the quce command (profile-guided optimisation: the compiler inlines and
# devirtualises the calls the profile shows hot, here the pure-Go backend's per-operation
# executor). The profile comes from quce bench on the pure-Go backend, with a binary built
# without a profile, over what the command spends its time on: training both models, one-row
# searches at the default K = 10 (as many as take the time of one batch of 455; the replay
# engine), batches of 100 (replay) and 455 rows (the loop engine), the work unit (455 rows,
# K = 3), the loop engine, and the step engine (-samples, backends without While loops).
#
#   bash scripts/pgo-profile.sh     rewrite cmd/quce/default.pgo (about a minute)
#
# The profile changes the command's speed, not its results (docs/SPEED.md, "Profile-guided
# optimisation"); a stale one still builds and helps, so rerun this after changes to the
# engine or the backend, then measure with quce bench (its JSON says "pgo").
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
export GOTOOLCHAIN=go1.27.3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

GOEXPERIMENT=simd go build -pgo=off -o "$tmp/quce" ./cmd/quce
export GOMLX_BACKEND=gopatched # the profile is of the pure-Go backend, whatever this machine has
bench() {
	name=$1
	shift
	echo "pgo-profile: quce bench $*" >&2
	"$tmp/quce" bench -q -cpuprofile "$tmp/$name.prof" "$@" >/dev/null
}
# Forty single rows: the notebook's slider, where the per-operation executor is most of the
# time; at 455 rows the matrix kernels take more of it.
bench k10 -rows "$(printf '1,%.0s' {1..40})100,455"
bench k3 -rows 455 -k 3
bench loop -rows 1,455 -k 3 -engine loop
# The step engine: what -samples and backends without While loops run.
bench steps -rows 100 -k 3 -engine steps
go tool pprof -proto "$tmp"/*.prof >"$tmp/default.pgo" 2>/dev/null
mv "$tmp/default.pgo" cmd/quce/default.pgo
echo "pgo-profile: wrote cmd/quce/default.pgo" >&2
