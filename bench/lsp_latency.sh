#!/usr/bin/env bash
# LSP latency benchmark: builds gpulint and gpulint_lsp_latency in a Release build directory and
# measures didChange -> publishDiagnostics of `gpulint server` on a generated 5,000-line training
# script over 1,000 incremental edits; writes bench/results/lsp-latency.{json,md}.
#   env: BUILD=build-bench RESULTS=bench/results LINES=5000 EDITS=1000
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-build-bench}
RESULTS=${RESULTS:-bench/results}
LINES=${LINES:-5000}
EDITS=${EDITS:-1000}
case "$BUILD" in /*) ;; *) BUILD="$root/$BUILD" ;; esac
case "$RESULTS" in /*) ;; *) RESULTS="$root/$RESULTS" ;; esac
[ -f "$BUILD/CMakeCache.txt" ] || cmake -S "$root" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DGPULINT_BUILD_TESTS=OFF
cmake --build "$BUILD" --target gpulint gpulint_lsp_latency -j "$(nproc)"
mkdir -p "$RESULTS"
"$BUILD/bench/gpulint_lsp_latency" "$BUILD/gpulint" --lines "$LINES" --edits "$EDITS" \
  --json "$RESULTS/lsp-latency.json" --md "$RESULTS/lsp-latency.md"
