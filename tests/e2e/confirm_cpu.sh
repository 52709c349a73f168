#!/usr/bin/env bash
# `gpulint confirm` end to end on the CPU path, with Debian's python3-torch (DESIGN.md, "Runtime
# confirmation" 7): the DL001 fixture's items cost CPU time, so worker processes speed it up on
# the CPU too and the finding must come out *confirmed* (or, on a machine too noisy for any
# verdict, inconclusive with a measured speedup above 1.15x; never "not confirmed"), with the
# numbers, the JSON and the HTML report; the user's script is untouched, the temp dir is removed, no process is left behind.
# Usage: tests/e2e/confirm_cpu.sh PATH/TO/gpulint   (from the repository root; PYTHON overrides
# the interpreter, default /usr/bin/python3)
set -uo pipefail
GPULINT="$(realpath "$1")"
PY="${PYTHON:-/usr/bin/python3}"
if ! "$PY" -c 'import torch, numpy' >/dev/null 2>&1; then
  echo "SKIP: no torch (or numpy) for $PY"
  exit 0
fi
WORK="$(mktemp -d "${TMPDIR:-/tmp}/gpulint-e2e-confirm.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

cp fixtures/confirm/dl001_slow_items.py "$WORK/train.py"
before="$(sha256sum "$WORK/train.py")"
mkdir "$WORK/tmp"
run_confirm() {
  (cd "$WORK" && TMPDIR="$WORK/tmp" "$GPULINT" confirm train.py --python "$PY" --select DL001 \
     --repeats 3 --warmup 10 --steps 40 --json "$WORK/report.json" --html "$WORK/report.html" \
     -- --item-rounds 4 >"$WORK/out" 2>"$WORK/err")
  rc=$?
}
run_confirm
# A 2-core machine shared with other work can hide the workers' gain in one attempt: one retry.
if ! grep -q "DL001 confirmed" "$WORK/out"; then
  echo "(not confirmed on the first attempt:)"; cat "$WORK/out"; echo "(retrying)"; run_confirm
fi
cat "$WORK/out"
if [[ $rc == 0 ]]; then pass "exit 0"; else fail "exit $rc"; sed 's/^/  err: /' "$WORK/err" >&2; fi
# A shared 2-core VM can be too noisy for any verdict (run medians 40% apart): then the
# verdict must say so (inconclusive, never "not confirmed") and the measured speedup must
# still show the workers' gain (checked in the JSON below).
if grep -q "DL001 confirmed" "$WORK/out"; then pass "DL001 confirmed on the CPU"
elif grep -q "DL001 inconclusive" "$WORK/out"; then pass "DL001 inconclusive (this machine is too noisy for a verdict)"
else fail "DL001 not confirmed"; fi
grep -q "device: cpu" "$WORK/out" && pass "says it ran on the CPU" || fail "no 'device: cpu' line"
if "$PY" - "$WORK/report.json" <<'PY'; then pass "JSON report"; else fail "JSON report"; fi
import json, sys
d = json.load(open(sys.argv[1]))
assert d["device"]["device"] == "cpu", d["device"]
f = [x for x in d["findings"] if x["code"] == "DL001"]
assert len(f) == 1 and f[0]["verdict"] in ("confirmed", "inconclusive"), f
assert f[0]["judgement"]["speedup"] > 1.15, f[0]["judgement"]
names = [v["name"] for v in d["variants"]]
assert names[0] == "baseline" and len(names) == 2, names
for v in d["variants"]:
    assert len(v["runs"]) == 3, v["name"]
    for r in v["runs"]:
        assert r["measured_steps"] == 40, r["measured_steps"]
        assert 0 <= r["data_wait_share"] <= 1
base, fixed = (v["stats"] for v in d["variants"])
assert base["data_wait_share"] > fixed["data_wait_share"], (base["data_wait_share"], fixed["data_wait_share"])
PY
grep -q "<svg" "$WORK/report.html" && pass "HTML report with SVG" || fail "HTML report"
[[ "$(sha256sum "$WORK/train.py")" == "$before" ]] && pass "script untouched" || fail "script modified"
[[ -z "$(ls -A "$WORK/tmp")" ]] && pass "temp dir removed" || fail "left in TMPDIR: $(ls -A "$WORK/tmp")"
if left="$(pgrep -f "$WORK/")"; then fail "processes left behind: $left"; kill $left 2>/dev/null
else pass "no process left behind"; fi
[[ $failures == 0 ]] || { echo "$failures failure(s)"; exit 1; }
