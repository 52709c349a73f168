#!/usr/bin/env bash
# End-to-end: `gpulint audit` draws its progress bar only on a terminal. Under `script` (a
# pseudo-terminal, util-linux's bsdutils) the output has the bar ("\r[###… N/N files … files/s
# … s") and clears it before the summary; with stdout redirected to a file there is none.
# usage: bash tests/e2e/audit_tty.sh /path/to/gpulint   (run from the repository root)
set -euo pipefail
GPULINT=$(realpath "$1")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
pass() { echo "ok: $1"; }
fail() { echo "FAIL: $1"; failures=$((failures + 1)); }

command -v script >/dev/null || { echo "FAIL: script (bsdutils) missing"; exit 1; }
# Python and notebook fixtures only: the C++ ones would make this a test of the Clang front end.
dirs="fixtures/python fixtures/notebooks"
script -qec "'$GPULINT' audit $dirs" /dev/null >"$work/tty.out" 2>&1 || { fail "audit under a terminal exited $?"; }
n=$(find $dirs -name '*.py' -o -name '*.pyi' -o -name '*.ipynb' | wc -l)
grep -aq $'\r\\[#* *\\] [0-9,]*/'"$n"' files  [0-9,]* files/s  [0-9.]* s' "$work/tty.out" \
  && pass "progress bar drawn on a terminal ($n files)" || { fail "no progress bar on a terminal"; head -c 600 "$work/tty.out" | od -c | head -20; }
grep -aq $'\r\033\\[Kgpulint audit: ' "$work/tty.out" \
  && pass "bar cleared before the summary" || fail "bar not cleared before the summary"
grep -aq '^Findings: ' <(tr -d '\r' <"$work/tty.out") && pass "summary after the bar" || fail "no summary under a terminal"

"$GPULINT" audit $dirs >"$work/pipe.out" 2>&1
if grep -aq $'\r' "$work/pipe.out" || grep -aq 'files/s' "$work/pipe.out"; then fail "progress output when stdout is not a terminal"; else pass "no progress output when stdout is a file"; fi
grep -q '^gpulint audit: ' "$work/pipe.out" && pass "summary when stdout is a file" || fail "no summary in the file"

[[ $failures == 0 ]] || { echo "$failures failure(s)"; exit 1; }
