#!/usr/bin/env bash
# End-to-end test of the pre-commit hook (.pre-commit-hooks.yaml) with Debian's `pre-commit`:
# a throw-away git repository uses the hook from a throw-away clone holding this checkout's
# .pre-commit-hooks.yaml; a commit with a bad training script is blocked and shows the
# diagnostics, a clean one passes, a file excluded by gpulint.toml is skipped (--force-exclude).
# No network: pre-commit clones the local hook repository, `language: system` installs nothing.
# Usage: tests/e2e/precommit.sh PATH/TO/gpulint   (run from the repository root by ctest)
set -euo pipefail

GPULINT="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
REPO="$(pwd)"
command -v pre-commit >/dev/null || { echo "FAIL: pre-commit is not installed (deps/debian-packages.txt)" >&2; exit 1; }
WORK="$(mktemp -d "${TMPDIR:-/tmp}/gpulint-e2e-precommit.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT

# Nothing from the user's environment: own HOME, pre-commit cache, git identity; gpulint on PATH
# as `language: system` expects.
export HOME="$WORK/home" PRE_COMMIT_HOME="$WORK/pre-commit-cache" XDG_CACHE_HOME="$WORK/cache"
export GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_NAME=test GIT_AUTHOR_EMAIL=test@example.com
export GIT_COMMITTER_NAME=test GIT_COMMITTER_EMAIL=test@example.com
mkdir -p "$HOME" "$WORK/bin"
ln -s "$GPULINT" "$WORK/bin/gpulint"
export PATH="$WORK/bin:$PATH"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

# --- the hook repository: this checkout's hooks file, committed (pre-commit clones `rev`) -----
hooks="$WORK/hooks-repo"
mkdir "$hooks"
cp "$REPO/.pre-commit-hooks.yaml" "$hooks/"
git -C "$hooks" init -q
git -C "$hooks" add .pre-commit-hooks.yaml
git -C "$hooks" commit -q -m "gpulint hooks"
rev=$(git -C "$hooks" rev-parse HEAD)

# --- the project using it ---------------------------------------------------------------------
proj="$WORK/project"
mkdir "$proj"
cd "$proj"
git init -q
cat > .pre-commit-config.yaml <<YAML
repos:
  - repo: $hooks
    rev: $rev
    hooks:
      - id: gpulint
YAML
printf 'extend-exclude = ["legacy/**"]\n' > gpulint.toml
git add .pre-commit-config.yaml gpulint.toml
git commit -q -m "config"   # no hook installed yet
pre-commit install >/dev/null
[[ -x .git/hooks/pre-commit ]] && pass "pre-commit install" || fail "pre-commit install wrote no hook"

cat > train.py <<'PY'
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

# 1. A bad file: the commit is blocked and the output shows the diagnostics.
git add train.py
rc=0; git commit -m "bad" >"$WORK/out" 2>&1 || rc=$?
if [[ $rc -ne 0 ]]; then pass "bad commit blocked (exit $rc)"; else fail "bad commit was accepted"; fi
for want in "train.py:5:10: DL001" "train.py:5:10: DL002" "Failed" "Found 2 errors."; do
  if grep -qF -- "$want" "$WORK/out"; then pass "hook output shows '$want'"; else fail "'$want' missing"; fi
done
if git rev-parse -q --verify HEAD~1 >/dev/null; then fail "a commit was made"; else pass "HEAD unchanged"; fi
[[ $failures -eq 0 ]] || sed 's/^/  | /' "$WORK/out" >&2

# 2. The fixed file: the commit passes.
sed -i 's/shuffle=True)/shuffle=True, num_workers=4, pin_memory=True)/' train.py
git add train.py
rc=0; git commit -m "clean" >"$WORK/out" 2>&1 || rc=$?
if [[ $rc -eq 0 ]]; then pass "clean commit accepted"; else fail "clean commit blocked (exit $rc)"; sed 's/^/  | /' "$WORK/out" >&2; fi
grep -qE "^gpulint\.+Passed" "$WORK/out" && pass "hook reported Passed" || fail "no 'gpulint...Passed' line"
[[ "$(git log --format=%s -1)" == clean ]] && pass "commit made" || fail "commit not made"

# 3. --force-exclude: a staged file under an excluded directory is skipped although pre-commit
#    names it explicitly.
mkdir legacy
cp train.py legacy/old_train.py
sed -i 's/, num_workers=4, pin_memory=True)/)/' legacy/old_train.py
"$GPULINT" check legacy/old_train.py >/dev/null 2>&1 && fail "legacy/old_train.py should have findings"
git add legacy/old_train.py
rc=0; git commit -m "legacy" >"$WORK/out" 2>&1 || rc=$?
if [[ $rc -eq 0 ]]; then pass "excluded file does not block the commit"; else
  fail "excluded file blocked the commit"; sed 's/^/  | /' "$WORK/out" >&2; fi
grep -qE "^gpulint\.+Passed" "$WORK/out" && pass "the hook ran on it (Passed)" || fail "the hook did not run"

if [[ $failures -ne 0 ]]; then echo "$failures failure(s)" >&2; exit 1; fi
echo "all pre-commit tests passed"
