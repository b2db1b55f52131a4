#!/usr/bin/env bash
# Sets up and runs every test of the project, as CI does:
#   1. installs the notebook toolchain (Jupyter, GoNB, Chromium, playwright-core) if missing;
#   2. gofmt and go vet must be clean;
#   3. go test ./... (unit, integration and example tests, on the patched pure-Go backend with
#      its SIMD kernels: GOEXPERIMENT=simd on amd64 unless GOEXPERIMENT is already set; its own
#      tests in third_party/gobackend, its kernels and ops against references, are among them;
#      backend's tests check that third_party/gobackend is upstream plus the patches, with
#      scripts/vendor-compute.sh); then the race detector (go test -race) on the tests that
#      run work at the same time (quce's sharded and streamed searches, pipeline's two models
#      trained at once, cmd/quce's parallel row formatting and -shard runs); go test again on
#      the optional ONNX Runtime backend (its library fetched from npm by
#      scripts/get-onnxruntime.sh; what does not apply there is skipped), then every test once
#      more in a build without the SIMD kernels (the fallback);
#   4. the fixes in third_party/upstream applied to the compute go.mod requires, their tests
#      (scripts/check-upstream-fixes.sh), and a module outside the repository that requires this one through a local module proxy
#      (scripts/test-dependent.sh): go install of cmd/quce and a program of its own, their
#      results byte for byte the in-repository build's;
#   5. every notebook executed headless with the GoNB kernel (scripts/test-notebooks.sh), and a
#      notebook outside the repository that gets the module with go get (test-dependent.sh);
#   6. the λ-slider test in a real Jupyter server and Chromium (scripts/test-browser.sh).
# Usage: bash scripts/test.sh [--no-notebooks]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export GOTOOLCHAIN=go1.27.3 GOFLAGS=-buildvcs=false
export GOMLX_BACKEND="${GOMLX_BACKEND:-gopatched}"
# Trained models for the tests are cached here (ignored by git), so reruns skip training.
export QUCE_CACHE="${QUCE_CACHE:-$PWD/.quce-cache}"

NOTEBOOKS=1
[ "${1:-}" = "--no-notebooks" ] && NOTEBOOKS=0

if [ $NOTEBOOKS = 1 ]; then
  bash scripts/setup-notebooks.sh
fi

# The pure-Go backend's AVX2/AVX-512 matrix kernels are compiled only with GOEXPERIMENT=simd
# (Go 1.27, amd64); without it everything works, about 2x slower (docs/SPEED.md).
if [ -z "${GOEXPERIMENT+set}" ] && [ "$(go env GOARCH)" = amd64 ]; then
  export GOEXPERIMENT=simd
fi
echo "== GOEXPERIMENT=${GOEXPERIMENT:-} (the first simd build compiles the standard library again, about a minute)"

echo "== gofmt and go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './scripts/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
# The patched backend's kernels address memory through uintptr arithmetic, as upstream's do,
# which vet's unsafeptr check flags at every conversion (third_party/README.md): every other
# check runs on them, and every check on the rest.
go vet $(go list ./... | grep -v /third_party/)
go vet -unsafeptr=false ./third_party/...

echo "== go test ./..."
go test -count=1 -timeout 40m ./...

echo "== the race detector (go test -race) on the tests that run work at the same time"
# The goroutines are quce's (a search's shards, on one device or several, and the chunks
# ExplainStream emits while the next is explained), pipeline's (the classifier and the VAE
# trained at once) and cmd/quce's (the rows formatted in parallel, a command stopped while
# it prepares); eval and gonb_ext run quce's, and population none of their own. Race
# instrumentation makes the searches many times slower, so only the tests that exercise
# those goroutines run here. The patched backend's kernels address memory through uintptr
# arithmetic, as upstream's do (third_party/README.md), which -race's pointer checks reject,
# so its packages are built without them (-d=checkptr=0); the race detector still watches
# their memory. Without PGO, which would build every package a second time for cmd/quce.
go test -race -pgo=off -gcflags='github.com/quce-go/quce/third_party/...=-d=checkptr=0' -count=1 -timeout 20m \
  -run '^(TestRowsSplitAcrossDevices|TestCancelStopsEveryPhase|TestExecsBounded|TestExplainStreamEqualsOneCall|TestExplainStreamStops|TestModelsTrainedTogetherAsAlone|TestShardsMergedEqualOneRun|TestExplainStreamsCSV|TestRowWriterKeepsOrder)$' \
  ./quce ./pipeline ./cmd/quce

echo "== the optional ONNX Runtime backend (-tags onnx, the library fetched by scripts/get-onnxruntime.sh): the tests that apply there (docs/METHOD.md)"
# Not the patched backend's own tests (third_party/), which test that backend whatever
# GOMLX_BACKEND says.
(ort_env=$(bash scripts/get-onnxruntime.sh -q) && eval "$ort_env" && go test -tags onnx -count=1 -timeout 30m $(go list ./... | grep -v /third_party/))

echo "== the fallback: every test in a build without GOEXPERIMENT=simd (the generic kernels)"
GOEXPERIMENT= go test -count=1 -timeout 40m ./...

echo "== the fixes ready to send upstream (third_party/upstream): they apply to the required compute and their tests pass"
bash scripts/check-upstream-fixes.sh

echo "== a dependent: this module through a local module proxy, from outside the repository (scripts/test-dependent.sh)"
if [ $NOTEBOOKS = 1 ]; then
  bash scripts/test-dependent.sh
else
  bash scripts/test-dependent.sh --no-notebook
fi

if [ $NOTEBOOKS = 1 ]; then
  echo "== notebooks (headless, GoNB kernel)"
  bash scripts/test-notebooks.sh
  echo "== browser (Jupyter + Chromium, λ slider)"
  bash scripts/test-browser.sh notebooks/02_tuning_lambda.ipynb
fi
echo "== all tests passed"
