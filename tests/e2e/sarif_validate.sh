#!/usr/bin/env bash
# Validates `gpulint check --output-format sarif` with Microsoft's SARIF Multitool
# (@microsoft/sarif-multitool, pinned in package.json, installed by `npm ci --ignore-scripts`;
# it runs offline): JSON-schema validation against SARIF 2.1.0 plus the Multitool's SARIF rules.
# Asserts zero results of level "error" in the Multitool's own SARIF log (not just its exit
# code), on the fixtures (every rule, with fixes) and on a run with no findings.
# Usage: tests/e2e/sarif_validate.sh PATH/TO/gpulint   (run from the repository root by ctest)
set -euo pipefail

GPULINT="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
REPO="$(pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/gpulint-e2e-sarif.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# The npm package @microsoft/sarif-multitool resolves the platform package
# @microsoft/sarif-multitool-linux (an optional dependency) and spawns its self-contained .NET
# executable Sarif.Multitool. Its postinstall only sets the executable bit, which
# `npm ci --ignore-scripts` skips: scripts/ensure-deps.sh does that chmod.
MT="$REPO/node_modules/@microsoft/sarif-multitool-linux/Sarif.Multitool"
if [[ ! -f "$MT" ]]; then
  echo "FAIL: $MT missing: run \`make deps\` (npm ci --ignore-scripts)" >&2; exit 1
fi
if [[ ! -x "$MT" ]]; then
  echo "FAIL: $MT is not executable: run \`make deps\` (scripts/ensure-deps.sh sets the bit)" >&2; exit 1
fi
# .NET needs ICU unless told to run without culture data (the validator needs none).
export DOTNET_SYSTEM_GLOBALIZATION_INVARIANT=1 DOTNET_CLI_TELEMETRY_OPTOUT=1 HOME="$WORK"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

# validate NAME FILE: runs the Multitool, prints its findings; fails (1) on any error result,
# error notification or unsuccessful execution in its log.
validate() {
  local name="$1" file="$2" log="$WORK/$1.validation.sarif" rc=0
  rm -f "$log"
  "$MT" validate "$file" --output "$log" --level "Error;Warning;Note" \
    >"$WORK/$name.mt.out" 2>&1 || rc=$?
  if [[ ! -s "$log" ]]; then
    echo "$name: the Multitool wrote no log (exit $rc)" >&2; sed 's/^/  | /' "$WORK/$name.mt.out" >&2
    return 1
  fi
  python3 - "$log" "$name" <<'PY'
import json, sys
log, name = json.load(open(sys.argv[1])), sys.argv[2]
run = log["runs"][0]
results = run.get("results", [])
by_level = {}
for r in results:
    by_level.setdefault(r.get("level", "warning"), []).append(r)
for r in by_level.get("error", []) + by_level.get("warning", []):
    print(f"  {name}: {r.get('level', 'warning')} {r.get('ruleId')}: {r['message']}")
note_rules = {}
for r in by_level.get("note", []):
    note_rules[r.get("ruleId")] = note_rules.get(r.get("ruleId"), 0) + 1
if note_rules:
    print(f"  {name}: notes (advice, not errors): " + ", ".join(f"{k} x{v}" for k, v in sorted(note_rules.items())))
notes = [n for inv in run.get("invocations", [])
         for n in inv.get("toolExecutionNotifications", []) + inv.get("toolConfigurationNotifications", [])
         if n.get("level", "warning") == "error"]
ok = all(inv.get("executionSuccessful", False) for inv in run.get("invocations", [])) and run.get("invocations")
for n in notes:
    print(f"  {name}: tool error: {n['message'].get('text')}")
errors = len(by_level.get("error", []))
print(f"{'ok' if errors == 0 and not notes and ok else 'FAIL'}: {name}: {errors} error(s), "
      f"{len(by_level.get('warning', []))} warning(s), {len(by_level.get('note', []))} note(s)")
sys.exit(0 if errors == 0 and not notes and ok else 1)
PY
}

# 1. Every rule's fixtures (with fixes) and the notebooks (cell positions, no region), run
#    from the repository root: relative URIs.
rc=0
(cd "$REPO" && "$GPULINT" check --output-format sarif --select ALL fixtures/python fixtures/notebooks) \
  >"$WORK/fixtures.sarif" 2>"$WORK/fixtures.err" || rc=$?
[[ $rc -eq 1 ]] && pass "gpulint found diagnostics in fixtures/python (exit 1)" || fail "gpulint exit $rc"
count=$(python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["runs"][0]["results"]; print(len(r), len({x["ruleId"] for x in r}), sum(1 for x in r if "fixes" in x))' "$WORK/fixtures.sarif")
read -r nres nrules nfix <<<"$count"
if (( nres > 50 && nrules >= 6 && nfix > 10 )); then pass "fixtures: $nres results, $nrules rules, $nfix with fixes"; else
  fail "fixtures SARIF too small: $count"; fi
validate fixtures "$WORK/fixtures.sarif" || fail "fixtures: SARIF validation"

# 2. Files outside the working directory (absolute file:// URIs), non-ASCII path.
mkdir -p "$WORK/élan run"
cp "$REPO/fixtures/python/DL001/pos_tutorial_cifar_no_workers.py" "$WORK/élan run/train.py"
rc=0; (cd "$REPO" && "$GPULINT" check --output-format sarif "$WORK/élan run/train.py") >"$WORK/abs.sarif" 2>/dev/null || rc=$?
[[ $rc -eq 1 ]] || fail "absolute path run: exit $rc"
grep -q '"uri": "file:///.*%C3%A9lan%20run/train.py"' "$WORK/abs.sarif" && pass "absolute, percent-encoded URI" \
  || fail "no encoded absolute URI"
validate absolute "$WORK/abs.sarif" || fail "absolute: SARIF validation"

# 3. No findings: an empty results array is still a valid log.
rc=0; (cd "$REPO" && "$GPULINT" check --output-format sarif fixtures/python/DL001/neg_argparse_default_four.py) \
  >"$WORK/empty.sarif" 2>/dev/null || rc=$?
[[ $rc -eq 0 ]] || fail "clean run: exit $rc"
validate empty "$WORK/empty.sarif" || fail "empty: SARIF validation"

# 4. Standard input (the artifact's URI is "-").
rc=0; (cd "$REPO" && "$GPULINT" check --output-format sarif - <fixtures/python/DL002/pos_multiline_call.py) \
  >"$WORK/stdin.sarif" 2>/dev/null || rc=$?
[[ $rc -eq 1 ]] || fail "stdin run: exit $rc"
validate stdin "$WORK/stdin.sarif" || fail "stdin: SARIF validation"

# 5. The validator does catch errors (the test can fail): a broken log must be rejected.
python3 - "$WORK/fixtures.sarif" "$WORK/broken.sarif" <<'PY'
import json, sys
log = json.load(open(sys.argv[1]))
r = next(x for x in log["runs"][0]["results"] if "region" in x["locations"][0]["physicalLocation"])
r["locations"][0]["physicalLocation"]["region"]["startLine"] = 0   # schema: minimum 1
del r["message"]                                                   # required
json.dump(log, open(sys.argv[2], "w"))
PY
if validate broken "$WORK/broken.sarif" >"$WORK/broken.out" 2>&1; then fail "a broken log passed validation"
elif grep -qE '^  broken: error ' "$WORK/broken.out"; then pass "a broken log is rejected with error results"
else fail "a broken log failed without error results"; sed 's/^/  | /' "$WORK/broken.out" >&2; fi
grep -E '^  broken: error ' "$WORK/broken.out" | head -3

if [[ $failures -ne 0 ]]; then echo "$failures failure(s)" >&2; exit 1; fi
echo "all SARIF validation tests passed"
