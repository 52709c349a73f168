#!/usr/bin/env bash
# Debian's neovim (0.7) as the LSP client: editors/nvim's setup starts `gpulint server` on a
# copy of a fixture, the diagnostics must be those of `gpulint check`, a quick fix is requested
# and applied, hover shows the rule's documentation, the buffer is written, and the file must be
# the fixture with exactly that one fix (the same edit `gpulint check --fix` makes on that line).
# Usage: bash tests/e2e/nvim_lsp.sh path/to/gpulint
set -euo pipefail
GPULINT=$(realpath "${1:?usage: nvim_lsp.sh path/to/gpulint}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
if ! command -v nvim >/dev/null; then
  echo "SKIP: neovim is not installed (deps/debian-packages.txt lists it)"
  exit 0
fi
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
mkdir -p "$WORK/project"
touch "$WORK/project/pyproject.toml"
FILE="$WORK/project/train.py"
cp "$ROOT/fixtures/demo/mnist_train.py" "$FILE"
cp "$FILE" "$WORK/original.py"

# What `gpulint check` reports: "CODE:LINE:COL" (1-based), sorted.
"$GPULINT" check --exit-zero --output-format json "$WORK/original.py" | python3 -c '
import json, sys
for d in sorted(json.load(sys.stdin), key=lambda d: (d["location"]["row"], d["location"]["column"], d["code"])):
    print("%s:%d:%d" % (d["code"], d["location"]["row"], d["location"]["column"]))
' > "$WORK/expected-diagnostics.txt"

export GPULINT ROOT FILE OUT="$WORK"
# Neovim's state (lsp.log, shada) goes to the throw-away directory, whatever $HOME is.
export XDG_CONFIG_HOME="$WORK/xdg/config" XDG_DATA_HOME="$WORK/xdg/data" \
  XDG_STATE_HOME="$WORK/xdg/state" XDG_CACHE_HOME="$WORK/xdg/cache"
mkdir -p "$XDG_CONFIG_HOME" "$XDG_DATA_HOME" "$XDG_STATE_HOME" "$XDG_CACHE_HOME"
timeout 120 nvim --headless --clean -c "luafile $ROOT/tests/e2e/nvim_lsp_client.lua" \
  > "$WORK/nvim.log" 2>&1 || { echo "FAIL: nvim exited with $?"; cat "$WORK/nvim.log"; exit 1; }
cat "$WORK/nvim.log"; echo
[ -f "$WORK/done" ] || { echo "FAIL: the Lua client did not finish"; exit 1; }

status=0
if ! diff -u "$WORK/expected-diagnostics.txt" "$WORK/diagnostics.txt"; then
  echo "FAIL: neovim's diagnostics differ from gpulint check's"; status=1
fi
# Expected file: the original with the DL002 fix of line $LINE as `gpulint check --fix` makes it.
LINE=$(cat "$WORK/fixed-line.txt")
cp "$WORK/original.py" "$WORK/cli-fixed.py"
"$GPULINT" check --fix --select DL002 "$WORK/cli-fixed.py" > /dev/null || true
python3 - "$WORK/original.py" "$WORK/cli-fixed.py" "$LINE" > "$WORK/expected.py" <<'PY'
import sys
orig = open(sys.argv[1], encoding="utf-8").read().split("\n")
fixed = open(sys.argv[2], encoding="utf-8").read().split("\n")
n = int(sys.argv[3]) - 1
assert len(orig) == len(fixed) and orig[n] != fixed[n], "the CLI fix must change line %d" % (n + 1)
orig[n] = fixed[n]
sys.stdout.write("\n".join(orig))
PY
if ! diff -u "$WORK/expected.py" "$FILE"; then
  echo "FAIL: the file written by neovim is not the fixture with the quick fix applied"; status=1
fi
grep -q "pin_memory=True" "$FILE" || { echo "FAIL: no pin_memory=True in the file"; status=1; }
[ $status -eq 0 ] && echo "nvim LSP test passed"
exit $status
