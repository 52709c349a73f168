#!/usr/bin/env bash
# End-to-end tests of the gpulint command line: exit codes, stdin, config errors, --fix and
# --diff on real files, and the stale-docs check (docs/rules.md).
# Usage: tests/e2e/cli.sh PATH/TO/gpulint   (run from the repository root by ctest)
set -euo pipefail

GPULINT="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
REPO="$(pwd)"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/gpulint-e2e-cli.XXXXXX")"
trap 'chmod -R u+rwx "$WORK" 2>/dev/null; rm -rf "$WORK"' EXIT
cd "$WORK"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

# run EXPECTED_EXIT DESCRIPTION -- ARGS...: runs gpulint, keeps stdout/stderr in out/err.
run() {
  local want="$1" what="$2"; shift 3
  local rc=0
  "$GPULINT" "$@" >out 2>err </dev/null || rc=$?
  if [[ "$rc" == "$want" ]]; then pass "$what (exit $rc)"; else
    fail "$what: exit $rc, expected $want"; sed 's/^/  out: /' out >&2; sed 's/^/  err: /' err >&2
  fi
}
contains() {  # contains FILE TEXT DESCRIPTION
  if grep -qF -- "$2" "$1"; then pass "$3"; else fail "$3: '$2' not in $1"; sed 's/^/  | /' "$1" >&2; fi
}

cat > train.py <<'PY'
import torch
from torch.utils.data import DataLoader

device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
loader = DataLoader(train_set, batch_size=64, shuffle=True)
model = Net().to(device)
for images, labels in loader:
    images, labels = images.to(device), labels.to(device)
    loss = criterion(model(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
PY
mkdir clean
sed 's/shuffle=True)/num_workers=4, pin_memory=True)/' train.py > clean/train.py

# --- exit codes -------------------------------------------------------------------------------
run 0 "clean code" -- check clean
contains out "All checks passed!" "clean summary"
run 1 "findings" -- check train.py
contains out "train.py:5:10: DL001" "DL001 reported"
contains out "Found 2 errors." "summary line"
run 0 "--exit-zero" -- check --exit-zero train.py
run 2 "unknown flag" -- check --frobnicate train.py
run 2 "bad --output-format" -- check --output-format yaml train.py
run 2 "unknown selector" -- check --select XYZ123 train.py
run 2 "missing path" -- check does_not_exist.py
run 0 "--version" -- --version
run 2 "unknown rule" -- rule NOPE001
run 0 "rule doc" -- rule DL001

# --- stdin -------------------------------------------------------------------------------------
rc=0; "$GPULINT" check - --output-format concise <train.py >out 2>err || rc=$?
[[ $rc == 1 ]] && pass "stdin findings (exit 1)" || fail "stdin: exit $rc"
contains out "-:5:10: DL001" "stdin path is -"
rc=0; "$GPULINT" check --stdin-filename src/train.py --output-format concise <train.py >out 2>err || rc=$?
[[ $rc == 1 ]] && pass "--stdin-filename (exit 1)" || fail "--stdin-filename: exit $rc"
contains out "src/train.py:5:10: DL002" "--stdin-filename names the file"
rc=0; "$GPULINT" check - <clean/train.py >out 2>err || rc=$?
[[ $rc == 0 ]] && pass "clean stdin (exit 0)" || fail "clean stdin: exit $rc"
rc=0; "$GPULINT" check - --fix --unsafe-fixes <train.py >out 2>err || rc=$?
[[ $rc == 0 ]] && pass "stdin --fix (exit 0)" || fail "stdin --fix: exit $rc"
contains out "pin_memory=True" "stdin --fix prints the fixed source"

# --- config ------------------------------------------------------------------------------------
mkdir -p cfg && cp train.py cfg/
printf '[project]\nname = "trainer"\n\n[tool.gpulint]\nselect = ["DL"]\nignore = ["DL999"]\n' > cfg/pyproject.toml
run 2 "unknown code in config" -- check cfg
contains err "cfg/pyproject.toml:6: key \`ignore\`: unknown rule selector \`DL999\`" "config error names file, line, key"
printf 'select = ["DL001"\nignore = []\n' > cfg/gpulint.toml
run 2 "malformed TOML" -- check cfg/train.py
contains err "cfg/gpulint.toml:" "TOML error names the file"
contains err "invalid TOML" "TOML error says so"
printf 'ignore = ["DL001"]\n' > cfg/gpulint.toml
run 1 "gpulint.toml beats pyproject.toml" -- check --output-format concise cfg
grep -q DL001 out && fail "DL001 should be ignored by cfg/gpulint.toml" || pass "closest config applied"
run 1 "--config overrides discovery" -- check --config cfg/gpulint.toml --output-format concise train.py
grep -q DL001 out && fail "--config not applied" || pass "--config applied"

# --- gitignore and skipped directories --------------------------------------------------------
mkdir -p repo/.venv/lib repo/node_modules/x repo/build repo/gen repo/src
cp train.py repo/src/ && cp train.py repo/.venv/lib/ && cp train.py repo/node_modules/x/
cp train.py repo/build/ && cp train.py repo/gen/ && cp train.py repo/src/model_pb2.py
printf 'gen/\n*_pb2.py\n' > repo/.gitignore
(cd repo && "$GPULINT" check --output-format concise >../out 2>../err) || true
[[ "$(cut -d: -f1 out | grep -v '^Found\|^\[\*\]\|^No fixes' | sort -u)" == "src/train.py" ]] \
  && pass "only src/train.py is checked in repo/" || { fail "discovery in repo/"; cat out >&2; }

# --- --diff and --fix on disk ------------------------------------------------------------------
cp train.py fixme.py
chmod 0640 fixme.py
run 1 "--diff" -- check --diff --unsafe-fixes fixme.py
contains out "+++ fixme.py" "diff printed"
cmp -s fixme.py train.py && pass "--diff wrote nothing" || fail "--diff modified the file"
run 0 "--fix --unsafe-fixes" -- check --fix --unsafe-fixes fixme.py
[[ "$(stat -c %a fixme.py)" == 640 ]] && pass "--fix keeps the mode" || fail "mode changed: $(stat -c %a fixme.py)"
run 0 "--fix is idempotent" -- check --diff --unsafe-fixes fixme.py
[[ ! -s out ]] && pass "nothing left to fix" || fail "second --diff not empty"
ls -a | grep -q 'gpulint-' && fail "temporary files left behind" || pass "no temporary files"

# --- stale docs --------------------------------------------------------------------------------
if [[ -f "$REPO/docs/rules.md" ]]; then
  "$GPULINT" rules --format markdown > rules.md
  if cmp -s rules.md "$REPO/docs/rules.md"; then pass "docs/rules.md is up to date"; else
    fail "docs/rules.md is stale: run \`make docs\`"; diff -u "$REPO/docs/rules.md" rules.md | head -20 >&2
  fi
else
  fail "docs/rules.md is missing: run \`make docs\`"
fi

if (( failures > 0 )); then echo "$failures failure(s)" >&2; exit 1; fi
echo "all CLI end-to-end checks passed"
