#!/usr/bin/env bash
# End-to-end bad input: binary and invalid UTF-8 files (error, exit 2, other files still
# reported), a 50 MB file (analysed in under 300 s: linear, not quadratic), 10,000-deep nesting, Python 2
# syntax (one syntax warning, no crash), CRLF + BOM through --fix.
# Usage: tests/e2e/bad_input.sh PATH/TO/gpulint
set -euo pipefail

GPULINT="$(cd "$(dirname "$1")" && pwd)/$(basename "$1")"
WORK="$(mktemp -d "${TMPDIR:-/tmp}/gpulint-e2e-bad.XXXXXX")"
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"

failures=0
fail() { echo "FAIL: $*" >&2; failures=$((failures + 1)); }
pass() { echo "ok: $*"; }

cat > train.py <<'PY'
import torch
from torch.utils.data import DataLoader

loader = DataLoader(train_set, batch_size=64, shuffle=True)
for images, labels in loader:
    images, labels = images.cuda(), labels.cuda()
    loss = criterion(model(images), labels)
    loss.backward()
PY

# --- binary and invalid UTF-8 next to a normal file ------------------------------------------
mkdir mixed
cp train.py mixed/a_train.py
printf '\x7fELF\x02\x01\x01\x00\x00\x00\x00\x00import torch\n' > mixed/b_binary.py
printf '# -*- coding: latin-1 -*-\nimport torch\nname = "caf\xe9"\n' > mixed/c_latin1.py
cp train.py mixed/d_train.py
rc=0; timeout 60 "$GPULINT" check --output-format concise mixed >out 2>err || rc=$?
[[ $rc == 2 ]] && pass "bad files exit 2" || fail "bad files: exit $rc"
grep -q '^error: mixed/b_binary.py: binary file' err && pass "binary file error" || { fail "binary file error"; cat err >&2; }
grep -q '^error: mixed/c_latin1.py: invalid UTF-8 at line 3' err && pass "invalid UTF-8 error" || { fail "UTF-8 error"; cat err >&2; }
grep -q '^mixed/a_train.py:4:10: DL001' out && grep -q '^mixed/d_train.py:4:10: DL001' out \
  && pass "the other files are still reported" || { fail "other files not reported"; cat out >&2; }

# --- a 50 MB file --------------------------------------------------------------------------------
python3 - <<'PY'
chunk = '''import torch
from torch.utils.data import DataLoader


def train_epoch_{i}(model, dataset, optimizer, device):
    loader = DataLoader(dataset, batch_size=64, num_workers=4, pin_memory=True)
    model.train()
    total = 0.0
    for step, (x, y) in enumerate(loader):
        x, y = x.to(device), y.to(device)
        optimizer.zero_grad()
        loss = torch.nn.functional.cross_entropy(model(x), y)
        loss.backward()
        optimizer.step()
        total += loss.item()
    return total / max(1, step)

'''
parts, size, i = [], 0, 0
while size < 50 * 1024 * 1024:
    c = chunk.replace('{i}', str(i)); parts.append(c); size += len(c); i += 1
parts.append('bad_loader = DataLoader(dataset, batch_size=64)\n')
open('big.py', 'w').write(''.join(parts))
PY
start=$(date +%s%N)
# tree-sitter alone parses this content at ~2 MB/s on one core; the analysis is linear on top.
# The bound catches anything quadratic (which took > 10 min here) without tying the test to
# the CI machine's speed.
rc=0; timeout 300 "$GPULINT" check --threads 2 --output-format concise big.py >out 2>err || rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "50 MB file: exit $rc in ${ms} ms"
[[ $rc == 1 ]] && pass "50 MB file analysed" || { fail "50 MB file: exit $rc"; head -5 err >&2; }
grep -q '^big.py:[0-9]*:14: DL001' out && pass "finding at the end of the 50 MB file" || fail "50 MB finding missing"
(( ms < 300000 )) && pass "50 MB file in ${ms} ms (linear: under 300 s)" || fail "50 MB file took ${ms} ms (limit 300000)"

# --- 10,000-deep nesting -----------------------------------------------------------------------
python3 -c "print('import torch'); print('x = ' + '(' * 10000 + '1' + ')' * 10000)" > deep_parens.py
python3 -c "print('import torch'); print('x = ' + '[' * 10000 + '1' + ']' * 10000)" > deep_lists.py
python3 -c "print('import torch'); print('x = ' + 'f(' * 5000 + '1' + ')' * 5000)" > deep_calls.py
for f in deep_parens.py deep_lists.py deep_calls.py; do
  rc=0; timeout 60 "$GPULINT" check "$f" >out 2>err || rc=$?
  (( rc <= 1 )) && pass "$f: no crash (exit $rc)" || { fail "$f: exit $rc"; tail -3 err >&2; }
done

# --- Python 2 ------------------------------------------------------------------------------------
cat > py2_train.py <<'PY'
import sys
import torch
from torch.autograd import Variable
from torch.utils.data import DataLoader

loader = DataLoader(train_set, batch_size=64, shuffle=True)
for epoch in xrange(10):
    for i, (x, y) in enumerate(loader):
        x, y = Variable(x.cuda()), Variable(y.cuda())
        loss = criterion(model(x), y)
        loss.backward()
        if i % 100 == 0:
            print >>sys.stderr, "epoch %d loss %.3f" % (epoch, loss.data[0]),
    try:
        torch.save(model.state_dict(), "ckpt_%d.pt" % epoch)
    except IOError, e:
        print "could not save:", e
PY
rc=0; timeout 60 "$GPULINT" check py2_train.py >out 2>err || rc=$?
(( rc <= 1 )) && pass "Python 2 file: no crash (exit $rc)" || fail "Python 2 file: exit $rc"
[[ "$(grep -c 'syntax error; analysed the code that parses' err)" == 1 ]] \
  && pass "one syntax warning" || { fail "expected one syntax warning"; cat err >&2; }
grep -q '^warning: py2_train.py:[0-9]*:[0-9]*: syntax error' err && pass "warning names the file" || fail "warning format"

# --- CRLF and BOM through --fix ------------------------------------------------------------------
printf '\xef\xbb\xbfimport torch\r\nfrom torch.utils.data import DataLoader\r\nloader = DataLoader(ds, batch_size=64)\r\nfor x in loader:\r\n    x = x.cuda()\r\n' > crlf.py
rc=0; "$GPULINT" check --fix crlf.py >out 2>err || rc=$?
head -c 3 crlf.py | od -An -tx1 | grep -q 'ef bb bf' && pass "BOM kept" || fail "BOM lost"
grep -q 'pin_memory=True)'$'\r''$' crlf.py && pass "CRLF kept on the fixed line" || { fail "CRLF lost"; od -c crlf.py | head >&2; }
[[ "$(grep -c $'\r$' crlf.py)" == 5 ]] && pass "every line still CRLF" || fail "line endings changed"

if (( failures > 0 )); then echo "$failures failure(s)" >&2; exit 1; fi
echo "all bad-input end-to-end checks passed"
