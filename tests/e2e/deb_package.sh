#!/usr/bin/env bash
# End-to-end test of the Debian package (`make deb` = cpack -G DEB in the build directory):
# packs the build that produced the given binary into a temp directory (the binary is already
# built: cpack only installs and archives it), checks the file name and control fields with
# dpkg-deb, unpacks it into a temp root with `dpkg -x` (what dpkg installs: the package has no
# maintainer scripts, which is checked) and runs the unpacked /usr/bin/gpulint. Where apt-get
# can, its dependency resolution is checked with `apt-get install --simulate ./gpulint_*.deb`.
# Nothing on the host is modified.
# Usage: tests/e2e/deb_package.sh PATH/TO/gpulint   (run from the repository root by ctest)
set -euo pipefail

GPULINT="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
BUILD="$(dirname "$GPULINT")"
REPO="$(pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/gpulint-e2e-deb.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

[[ -f "$BUILD/CPackConfig.cmake" ]] || { echo "FAIL: no CPackConfig.cmake in $BUILD" >&2; exit 1; }
version=$("$GPULINT" --version | awk '{print $2}')
arch=$(dpkg --print-architecture)

# --- build the package ------------------------------------------------------------------------
if ! cpack -G DEB --config "$BUILD/CPackConfig.cmake" -B "$WORK/pkg" >"$WORK/cpack.log" 2>&1; then
  sed 's/^/  | /' "$WORK/cpack.log" >&2
  echo "FAIL: cpack -G DEB" >&2
  exit 1
fi
deb="$WORK/pkg/gpulint_${version}_${arch}.deb"
if [[ -f "$deb" ]]; then pass "cpack made $(basename "$deb")"; else
  fail "no $(basename "$deb"); made: $(ls "$WORK/pkg")"; exit 1; fi

# --- control fields and contents --------------------------------------------------------------
field() { dpkg-deb --field "$deb" "$1"; }
[[ "$(field Package)" == gpulint ]] && pass "Package: gpulint" || fail "Package: $(field Package)"
[[ "$(field Version)" == "$version" ]] && pass "Version: $version" || fail "Version: $(field Version)"
[[ "$(field Architecture)" == "$arch" ]] && pass "Architecture: $arch" || fail "Architecture: $(field Architecture)"
depends=$(field Depends)
if [[ "$depends" == *libc6* ]]; then pass "Depends (computed): $depends"; else fail "Depends lacks libc6: '$depends'"; fi
[[ -n "$(field Maintainer)" ]] && pass "Maintainer set" || fail "no Maintainer"
[[ -n "$(field Description)" ]] && pass "Description set" || fail "no Description"
dpkg-deb --contents "$deb" > "$WORK/contents"
grep -qE '^-rwxr-xr-x .* \./usr/bin/gpulint$' "$WORK/contents" && pass "contains ./usr/bin/gpulint (0755)" \
  || { fail "no executable ./usr/bin/gpulint"; sed 's/^/  | /' "$WORK/contents" >&2; }
grep -qF './usr/share/doc/gpulint/README.md' "$WORK/contents" && pass "contains the README" || fail "no README"
mkdir "$WORK/control"
dpkg-deb --control "$deb" "$WORK/control"
scripts=$(cd "$WORK/control" && ls | grep -E '^(pre|post)(inst|rm)$' || true)
[[ -z "$scripts" ]] && pass "no maintainer scripts" || fail "maintainer scripts: $scripts"

# --- install into a temp root and run it ------------------------------------------------------
dpkg -x "$deb" "$WORK/root"
installed="$WORK/root/usr/bin/gpulint"
out=$("$installed" --version)
[[ "$out" == "gpulint $version" ]] && pass "installed gpulint --version: $out" || fail "--version: '$out'"
rc=0; "$installed" check --output-format concise "$REPO/fixtures/python/DL001/pos_explicit_zero_cuda.py" \
  >"$WORK/check.out" 2>&1 || rc=$?
if [[ $rc -eq 1 ]] && grep -q ': DL001 ' "$WORK/check.out"; then pass "installed gpulint finds DL001"; else
  fail "installed gpulint check: exit $rc"; sed 's/^/  | /' "$WORK/check.out" >&2; fi
cmp -s <("$installed" rules) <("$GPULINT" rules) && pass "same rules as the build" || fail "rules differ"

# --- apt-get can install it here (dependency resolution only; changes nothing) ----------------
if command -v apt-get >/dev/null; then
  if apt-get install --simulate -qq "$deb" >"$WORK/apt.out" 2>&1; then
    if grep -qE '^Inst gpulint ' "$WORK/apt.out"; then pass "apt-get install --simulate ./$(basename "$deb")"; else
      fail "apt-get --simulate did not install gpulint"; sed 's/^/  | /' "$WORK/apt.out" >&2; fi
  elif grep -q "Could not get lock" "$WORK/apt.out"; then
    echo "note: apt-get --simulate skipped: another apt/dpkg holds the lock"
  else
    fail "apt-get install --simulate failed"; sed 's/^/  | /' "$WORK/apt.out" >&2
  fi
fi

if [[ $failures -ne 0 ]]; then echo "$failures failure(s)" >&2; exit 1; fi
echo "all Debian package tests passed"
