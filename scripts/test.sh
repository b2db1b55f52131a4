#!/usr/bin/env bash
# Sets up and runs every test of the project, as CI does:
#   1. installs the notebook toolchain (Jupyter, GoNB, Chromium, playwright-core) if missing;
#   2. gofmt and go vet must be clean;
#   3. go test ./... (unit, integration and example tests, on the pure-Go backend);
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

echo "== gofmt and go vet"
unformatted=$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './scripts/*'))
if [ -n "$unformatted" ]; then
  echo "gofmt would change:"; echo "$unformatted"; exit 1
fi
go vet ./...

echo "== go test ./..."
go test -count=1 -timeout 40m ./...

if [ $NOTEBOOKS = 1 ]; then
  echo "== notebooks (headless, GoNB kernel)"
  bash scripts/test-notebooks.sh
  echo "== browser (Jupyter + Chromium, λ slider)"
  bash scripts/test-browser.sh notebooks/02_tuning_lambda.ipynb
fi
echo "== all tests passed"
