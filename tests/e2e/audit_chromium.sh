#!/usr/bin/env bash
# End-to-end: `gpulint audit --html` opened in a real browser. Debian's headless Chromium,
# driven by playwright-core (root package.json devDependencies, installed by `npm ci`), loads
# the report of an audit of fixtures/ and checks it against the --json report of the same run
# (tests/e2e/audit_chromium.js): charts visible, table counts equal to the JSON's, no network.
# Artifacts, kept after the run: <build dir>/artifacts/audit_chromium/{report.html,report.json,
# report.md,screenshot.png} (the build dir is the directory of the gpulint binary).
# usage: bash tests/e2e/audit_chromium.sh /path/to/gpulint   (run from the repository root)
set -euo pipefail
GPULINT=$(realpath "$1")
ROOT=$(pwd)
ART="$(dirname "$GPULINT")/artifacts/audit_chromium"
rm -rf "$ART"
mkdir -p "$ART"
[[ -x /usr/bin/chromium || -n "${CHROMIUM:-}" ]] || { echo "FAIL: /usr/bin/chromium missing (deps/debian-packages.txt lists chromium)"; exit 1; }
[[ -d "$ROOT/node_modules/playwright-core" ]] || { echo "FAIL: node_modules/playwright-core missing (npm ci)"; exit 1; }

rc=0
"$GPULINT" audit fixtures --no-progress --html "$ART/report.html" --json "$ART/report.json" \
  --markdown "$ART/report.md" >"$ART/summary.txt" 2>"$ART/stderr.txt" || rc=$?
[[ $rc == 0 ]] || { echo "FAIL: audit exit $rc"; cat "$ART/stderr.txt"; exit 1; }
grep -q '^Findings: ' "$ART/summary.txt" || { echo "FAIL: no findings in the summary"; cat "$ART/summary.txt"; exit 1; }
# The fixtures have findings of every rule: the report must show a real chart.
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["rules"]))' "$ART/report.json")
[[ $n -ge 5 ]] || { echo "FAIL: only $n rules in the JSON report"; exit 1; }

timeout 120 node "$ROOT/tests/e2e/audit_chromium.js" "$ART/report.html" "$ART/report.json" "$ART/screenshot.png"
echo "screenshot: $ART/screenshot.png"
