#!/usr/bin/env bash
# End-to-end test of the CI output formats through the command line: each of json-lines,
# sarif, github, gitlab and junit parses with a real parser (Python's json / xml.etree), has
# one entry per diagnostic, carries no summary line on stdout, keeps the exit codes (1 with
# findings, 0 without, 0 with --exit-zero), and gitlab paths follow CI_PROJECT_DIR.
# Usage: tests/e2e/ci_formats.sh PATH/TO/gpulint   (run from the repository root by ctest)
set -euo pipefail

GPULINT="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/gpulint-e2e-ci.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

mkdir -p proj/src
cat > proj/src/train.py <<'PY'
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda")
loader = DataLoader(train_set, batch_size=64, shuffle=True)
model = Net().to(device)
for images, labels in loader:
    images, labels = images.to(device), labels.to(device)
    loss = criterion(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
PY
sed 's/shuffle=True)/num_workers=4, pin_memory=True)/' proj/src/train.py > proj/src/clean.py
cd proj

# check FORMAT: runs gpulint on src/train.py and src/clean.py, then the format's checker
# (a Python snippet reading the output from stdin, given the expected count) on each.
check() {
  local format="$1" checker="$2" rc
  for f in train clean; do
    local want=1 n=2
    [[ $f == clean ]] && want=0 n=0
    rc=0; "$GPULINT" check --output-format "$format" "src/$f.py" >"$WORK/$format.$f.out" 2>"$WORK/err" || rc=$?
    [[ $rc == "$want" ]] && pass "$format $f: exit $rc" || { fail "$format $f: exit $rc, expected $want"; sed 's/^/  err: /' "$WORK/err" >&2; }
    if grep -qE "^(Found [0-9]+ error|All checks passed)" "$WORK/$format.$f.out"; then fail "$format $f: summary line on stdout"; fi
    if python3 -c "$checker" "$n" <"$WORK/$format.$f.out"; then pass "$format $f: $n entries, parses"; else
      fail "$format $f: checker failed"; sed 's/^/  | /' "$WORK/$format.$f.out" >&2; fi
  done
}

check json-lines '
import json, sys
lines = [l for l in sys.stdin.read().splitlines()]
objs = [json.loads(l) for l in lines]
assert len(objs) == int(sys.argv[1]), len(objs)
assert all(o["filename"].endswith("/src/train.py") and o["location"]["row"] == 5 for o in objs)
assert {o["code"] for o in objs} <= {"DL001", "DL002"}
'
check sarif '
import json, sys
log = json.load(sys.stdin)
assert log["version"] == "2.1.0"
run = log["runs"][0]
res = run["results"]
assert len(res) == int(sys.argv[1]), len(res)
for r in res:
    loc = r["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"] == {"uri": "src/train.py", "uriBaseId": "%SRCROOT%"}, loc
    assert loc["region"]["startLine"] == 5 and loc["region"]["startColumn"] == 10
    assert run["tool"]["driver"]["rules"][r["ruleIndex"]]["id"] == r["ruleId"]
    assert r["fixes"][0]["artifactChanges"][0]["replacements"][0]["insertedContent"]["text"]
assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"].startswith("file:///")
'
check github '
import re, sys
lines = sys.stdin.read().splitlines()
assert len(lines) == int(sys.argv[1]), lines
pat = re.compile(r"^::warning title=gpulint \((DL00[12])\),file=/.*/src/train\.py,line=5,col=10,endLine=5,endColumn=20::src/train\.py:5:10: \1 .+$")
assert all(pat.match(l) for l in lines), lines
'
check gitlab '
import json, sys
arr = json.load(sys.stdin)
assert len(arr) == int(sys.argv[1]), arr
for i in arr:
    assert set(i) >= {"description", "check_name", "fingerprint", "severity", "location"}, i
    assert i["location"]["path"] == "src/train.py" and i["location"]["lines"]["begin"] == 5
    assert i["severity"] in ("info", "minor", "major", "critical", "blocker")
assert len({i["fingerprint"] for i in arr}) == len(arr)
'
check junit '
import sys, xml.etree.ElementTree as ET
root = ET.fromstring(sys.stdin.read())
n = int(sys.argv[1])
assert root.tag == "testsuites" and root.get("failures") == str(n)
cases = root.findall("./testsuite/testcase")
failures = [c for c in cases if c.find("failure") is not None]
assert len(failures) == n, len(failures)
if n:
    assert all(c.get("line") == "5" and c.get("classname") == "src/train" for c in cases)
else:
    assert [c.get("name") for c in cases] == ["No errors found"]
'

# Same fingerprints on a second run; CI_PROJECT_DIR moves gitlab paths.
"$GPULINT" check --output-format gitlab src/train.py > "$WORK/again.json" || true
cmp -s "$WORK/again.json" "$WORK/gitlab.train.out" && pass "gitlab output is reproducible" || fail "gitlab output differs between runs"
rc=0; (cd src && CI_PROJECT_DIR="$WORK" "$GPULINT" check --output-format gitlab train.py) >"$WORK/gl.json" || rc=$?
python3 -c 'import json,sys; a=json.load(open(sys.argv[1])); assert a[0]["location"]["path"] == "proj/src/train.py", a' "$WORK/gl.json" \
  && pass "gitlab paths relative to CI_PROJECT_DIR" || fail "gitlab CI_PROJECT_DIR"
rc=0; "$GPULINT" check --exit-zero --output-format sarif src/train.py >/dev/null || rc=$?
[[ $rc == 0 ]] && pass "--exit-zero with sarif" || fail "--exit-zero with sarif: exit $rc"

if [[ $failures -ne 0 ]]; then echo "$failures failure(s)" >&2; exit 1; fi
echo "all CI format end-to-end checks passed"
