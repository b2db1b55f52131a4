#!/usr/bin/env bash
# Sets up and runs every test of the project, as CI does:
#   1. installs the notebook toolchain (Jupyter, GoNB, Chromium, playwright-core) if missing;
#   2. gofmt and go vet must be clean;
#   3. go test ./... (unit, integration and example tests, on the pure-Go backend with its SIMD
#      kernels: GOEXPERIMENT=simd on amd64 unless GOEXPERIMENT is already set; backend's tests
#      check that third_party/gomlx-compute is upstream plus third_party/patches, with
#      scripts/vendor-compute.sh), the same on the optional ONNX Runtime backend (its library
#      fetched from npm by scripts/get-onnxruntime.sh; what does not apply there is skipped),
#      the matrix kernels and ops of the patched backend copy in
#      third_party/ against references, then every test once more in a build without the SIMD
#      kernels (the fallback);
#   4. every notebook executed headless with the GoNB kernel (scripts/test-notebooks.sh);
#   5. the λ-slider test in a real Jupyter server and Chromium (scripts/test-browser.sh).
# Usage: bash scripts/test.sh [--no-notebooks]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
export GOTOOLCHAIN=local GOFLAGS=-buildvcs=false
export GOMLX_BACKEND="${GOMLX_BACKEND:-go}"
# Trained models for the tests are cached here (ignored by git), so reruns skip training.
export QUCE_CACHE="${QUCE_CACHE:-$PWD/.quce-cache}"

NOTEBOOKS=1
[ "${1:-}" = "--no-notebooks" ] && NOTEBOOKS=0

if [ $NOTEBOOKS = 1 ]; then
  bash scripts/setup-notebooks.sh
fi

# The pure-Go backend's AVX2/AVX-512 matrix kernels are compiled only with GOEXPERIMENT=simd
# (Go 1.26, amd64); without it everything works, about 2x slower (docs/SPEED.md).
if [ -z "${GOEXPERIMENT+set}" ] && [ "$(go env GOARCH)" = amd64 ]; then
  export GOEXPERIMENT=simd
fi
echo "== GOEXPERIMENT=${GOEXPERIMENT:-} (the first simd build compiles the standard library again, about a minute)"

echo "== gofmt and go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './scripts/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...

echo "== go test ./..."
go test -count=1 -timeout 40m ./...

echo "== the optional ONNX Runtime backend (-tags onnx, the library fetched by scripts/get-onnxruntime.sh): the tests that apply there (docs/METHOD.md)"
(ort_env=$(bash scripts/get-onnxruntime.sh -q) && eval "$ort_env" && go test -tags onnx -count=1 -timeout 30m ./...)

echo "== the patched pure-Go backend (third_party/README.md): its patched kernels and ops against references, its worker pool, the kernel choice"
(cd third_party/gomlx-compute && go test -count=1 ./internal/gobackend/...)

echo "== the fallback: every test in a build without GOEXPERIMENT=simd (the generic kernels)"
GOEXPERIMENT= go test -count=1 -timeout 40m ./...

if [ $NOTEBOOKS = 1 ]; then
  echo "== notebooks (headless, GoNB kernel)"
  bash scripts/test-notebooks.sh
  echo "== browser (Jupyter + Chromium, λ slider)"
  bash scripts/test-browser.sh notebooks/02_tuning_lambda.ipynb
fi
echo "== all tests passed"
