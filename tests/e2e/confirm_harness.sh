#!/usr/bin/env bash
# End-to-end tests of the Python harness of `gpulint confirm` (runtime_check/harness/), run the
# way the orchestrator runs it (PYTHONPATH + GPULINT_HARNESS_* variables) but without the
# binary: clean stop after warmup + steps (exit 0, no traceback, workers gone), the JSON it
# writes, a script that ends first, loop-line mode, the user's own sitecustomize still running,
# and imports next to the original script.
# Usage: tests/e2e/confirm_harness.sh [PATH/TO/gpulint]   (run from the repository root by ctest;
# the binary is not used). PYTHON overrides the interpreter (default: Debian's /usr/bin/python3,
# which has python3-torch).
set -euo pipefail

PY="${PYTHON:-/usr/bin/python3}"
if ! "$PY" -c 'import torch, numpy' >/dev/null 2>&1; then
  echo "SKIP: no torch (or numpy) for $PY"
  exit 0
fi

REPO="$(pwd)"
HARNESS="$REPO/runtime_check/harness"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/gpulint-e2e-harness.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

# harness OUT WARMUP STEPS SCRIPT_DIR SCRIPT ARGS...: runs SCRIPT under the harness; sets rc.
harness() {
  local out="$1" warmup="$2" steps="$3" script_dir="$4"; shift 4
  rc=0
  env PYTHONPATH="$HARNESS${PYTHONPATH:+:$PYTHONPATH}" GPULINT_HARNESS_OUT="$out" \
      GPULINT_HARNESS_WARMUP="$warmup" GPULINT_HARNESS_STEPS="$steps" \
      GPULINT_HARNESS_SCRIPT_DIR="$script_dir" \
      "$PY" "$@" >"$WORK/stdout" 2>"$WORK/stderr" </dev/null || rc=$?
}
clean_exit() {  # clean_exit DESCRIPTION
  if [[ "$rc" == 0 ]]; then pass "$1: exit 0"; else fail "$1: exit $rc"; sed 's/^/  err: /' "$WORK/stderr" >&2; fi
  if grep -q Traceback "$WORK/stderr"; then fail "$1: traceback"; sed 's/^/  err: /' "$WORK/stderr" >&2
  else pass "$1: no traceback"; fi
}
# check JSON DESCRIPTION PYTHON-ASSERTIONS (d = the document, s = its steps)
check() {
  if "$PY" - "$1" "$3" <<'PY' 2>"$WORK/check.err"; then pass "$2"; else fail "$2"; sed 's/^/  | /' "$WORK/check.err" >&2; fi
import json, sys
d = json.load(open(sys.argv[1]))
s = d["steps"]
keys = {"schema", "completed", "reason", "warmup", "steps", "device", "gpu_name", "torch_version",
        "python", "pid", "source"}
assert set(d) == keys, sorted(d)
assert d["schema"] == 1 and isinstance(d["pid"], int) and d["device"] in ("cuda", "cpu", "mps")
for x in s:
    assert set(x) == {"step", "wall_s", "wait_s", "cuda_allocated", "cuda_max_allocated", "rss_bytes"}, x
exec(sys.argv[2])
PY
}

# 1. DL001 fixture, stopped after 2 + 5 batches.
harness "$WORK/dl001.json" 2 5 "$REPO/fixtures/confirm" fixtures/confirm/dl001_slow_items.py
clean_exit "dl001 stopped after warmup + steps"
check "$WORK/dl001.json" "dl001: completed, 5 timed steps, wait <= wall" '
assert d["completed"] is True and d["reason"] == "steps reached", d["reason"]
assert d["source"] == "dataloader" and d["warmup"] == 2 and len(s) == 5, (d["source"], len(s))
assert [x["step"] for x in s] == [2, 3, 4, 5, 6], [x["step"] for x in s]
assert all(x["wall_s"] > 0 and 0 <= x["wait_s"] <= x["wall_s"] for x in s), s
assert all(x["rss_bytes"] > 0 for x in s), s
assert d["torch_version"] and d["python"].count(".") == 2'
if grep -q "epoch 1 batch 0/" "$WORK/stdout"; then pass "dl001: the script ran"; else fail "dl001: no output"; fi

# 2. The same with worker processes (as its fix would run it): the workers are shut down.
sed 's/shuffle=True, pin_memory=use_cuda)/shuffle=True, pin_memory=use_cuda, num_workers=2, persistent_workers=True)/' \
  fixtures/confirm/dl001_slow_items.py >"$WORK/dl001_workers.py"
grep -q "num_workers=2" "$WORK/dl001_workers.py" || fail "could not make the workers variant"
harness "$WORK/workers.json" 2 5 "$REPO/fixtures/confirm" "$WORK/dl001_workers.py"
clean_exit "dl001 with workers stopped"
check "$WORK/workers.json" "dl001 with workers: completed, 5 steps" '
assert d["completed"] is True and len(s) == 5
assert all(x["wall_s"] > 0 and 0 <= x["wait_s"] <= x["wall_s"] for x in s), s'
# Workers are forks: their command line is the script's. None may outlive the run.
if left="$(pgrep -f "$WORK/dl001_workers.py")"; then
  fail "worker processes left behind: $left"; kill $left 2>/dev/null || true
else pass "no worker processes left"; fi

# 3. The script ends before warmup + steps: completed=false, the steps it saw.
harness "$WORK/short.json" 2 100000 "$REPO/fixtures/confirm" fixtures/confirm/dl001_slow_items.py \
  --epochs 1 --samples 256
clean_exit "script that ends first"
check "$WORK/short.json" "script ended: completed=false, 8 batches - 2 warmup" '
assert d["completed"] is False and d["reason"] == "script ended", (d["completed"], d["reason"])
assert len(s) == 6, len(s)'

# 4. Loop-line mode (no DataLoader), the user's sitecustomize still runs, and a module next to
#    the original script is importable from the temp copy.
mkdir -p "$WORK/orig" "$WORK/copy" "$WORK/usersite"
cat >"$WORK/orig/helper_mod.py" <<'PY'
VALUE = 41
PY
cat >"$WORK/copy/loop.py" <<'PY'
import time
from helper_mod import VALUE


def train(n):
    acc = 0
    for i in range(n):
        time.sleep(0.002)
        acc += VALUE
    return acc


print("total", train(20))
PY
echo 'print("user sitecustomize ran")' >"$WORK/usersite/sitecustomize.py"
rc=0
env PYTHONPATH="$HARNESS:$WORK/usersite" GPULINT_HARNESS_OUT="$WORK/loop.json" GPULINT_HARNESS_WARMUP=1 \
    GPULINT_HARNESS_STEPS=4 GPULINT_HARNESS_SCRIPT_DIR="$WORK/orig" GPULINT_HARNESS_LOOP_LINE=7 \
    "$PY" "$WORK/copy/loop.py" >"$WORK/stdout" 2>"$WORK/stderr" </dev/null || rc=$?
clean_exit "loop-line mode"
check "$WORK/loop.json" "loop line: 4 steps of ~2 ms, no wait" '
assert d["completed"] is True and d["source"] == "loop_line" and len(s) == 4, (d["source"], len(s))
assert all(0.0015 < x["wall_s"] < 0.5 and x["wait_s"] is None for x in s), s'
if grep -q "user sitecustomize ran" "$WORK/stdout"; then pass "the shadowed sitecustomize ran"
else fail "the shadowed sitecustomize did not run"; fi

# 5. No loop at all: completed=false, "no loop found"; without GPULINT_HARNESS_OUT nothing happens.
echo 'print("hello")' >"$WORK/copy/noloop.py"
harness "$WORK/noloop.json" 1 4 "$WORK/orig" "$WORK/copy/noloop.py"
clean_exit "script without a loop"
check "$WORK/noloop.json" "no loop found" 'assert d["completed"] is False and d["reason"] == "no loop found" and s == []'
rc=0
PYTHONPATH="$HARNESS" "$PY" -c 'import sys, sitecustomize; assert getattr(sitecustomize, "_state", None) is None' \
  2>"$WORK/stderr" || rc=$?
if [[ "$rc" == 0 ]]; then pass "inactive without GPULINT_HARNESS_OUT"; else fail "active without GPULINT_HARNESS_OUT"; fi

if ((failures)); then echo "$failures failure(s)" >&2; exit 1; fi
echo "all passed"
