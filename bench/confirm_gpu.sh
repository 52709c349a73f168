#!/usr/bin/env bash
# Runs `gpulint confirm` on every fixtures/confirm/ script, passes FIRST..LAST, on the machine it
# is started on (the lent H100 for bench/results/confirm-h100.*), then, with OVERHEAD=1, the
# harness-overhead benchmark. Writes into OUT_DIR: confirm-<fixture>-pass<N>.json (+ .html for
# pass 1), harness-overhead.json and summary.json (bench/confirm_summary.py over OUT_DIR).
# Passes can be split over several calls (a lent machine runs one command for at most 10 min).
#
#   bench/confirm_gpu.sh GPULINT OUT_DIR [FIRST [LAST]]
# Env: PYTHON (default python3), REPEATS (2), WARMUP (5), STEPS (20), OVERHEAD (0).
set -euo pipefail
GPULINT=$(realpath "$1"); OUT=$(realpath -m "$2"); FIRST=${3:-1}; LAST=${4:-$FIRST}
PYTHON=${PYTHON:-python3}; REPEATS=${REPEATS:-2}; WARMUP=${WARMUP:-5}; STEPS=${STEPS:-20}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
mkdir -p "$OUT"
cd "$ROOT/fixtures/confirm"
# fixture  rule-it-confirms
CASES=(
  "dl001_slow_items.py DL001"
  "dl002_pageable_copy.py DL002"
  "dev001_model_on_cpu.py DEV001"
  "mem001_train_losses.py MEM001"
  "mem001_eval_no_grad.py MEM001"
  "neg_tensordataset_cheap_items.py DL001"
)
"$GPULINT" --version
for pass in $(seq "$FIRST" "$LAST"); do
  for c in "${CASES[@]}"; do
    set -- $c
    name=${1%.py}
    html=()
    [ "$pass" = 1 ] && html=(--html "$OUT/confirm-$name.html")
    echo "== pass $pass: $1 ($2)"
    # exit 1 is "a finding was not confirmed"; only 2 (a run failed) stops the batch's case.
    "$GPULINT" confirm "$1" --python "$PYTHON" --select "$2" --repeats "$REPEATS" \
      --warmup "$WARMUP" --steps "$STEPS" --timeout 120 --quiet --json "$OUT/confirm-$name-pass$pass.json" \
      "${html[@]}" || echo "(exit $?)"
  done
done
if [ "${OVERHEAD:-0}" = 1 ]; then
  "$PYTHON" "$ROOT/bench/harness_overhead.py" --python "$PYTHON" --runs 5 \
    --json "$OUT/harness-overhead.json" neg_tensordataset_cheap_items.py -- --epochs 3 || true
fi
"$PYTHON" "$ROOT/bench/confirm_summary.py" "$OUT" > "$OUT/summary.json"
