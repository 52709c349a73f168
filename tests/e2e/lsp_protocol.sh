#!/usr/bin/env bash
# `gpulint server` spawned as a client would, fed raw bytes: malformed headers, invalid JSON,
# truncated bodies, out-of-order messages, unknown methods, random garbage. Checks the JSON-RPC
# answers, the exit codes (0 after shutdown + exit, 1 otherwise) and that nothing crashes or
# hangs (every read has a deadline). Also checks that the diagnostics the server publishes are
# the ones `gpulint check --output-format json` reports for the same file.
# Usage: bash tests/e2e/lsp_protocol.sh path/to/gpulint
set -euo pipefail
GPULINT=$(realpath "${1:?usage: lsp_protocol.sh path/to/gpulint}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
exec python3 - "$GPULINT" "$ROOT" <<'PY'
import json, os, random, select, subprocess, sys, time

gpulint, root = sys.argv[1], sys.argv[2]
fixture = os.path.join(root, "fixtures/demo/mnist_train.py")
failures = []

def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)

def frame(obj_or_bytes):
    body = obj_or_bytes if isinstance(obj_or_bytes, bytes) else json.dumps(obj_or_bytes).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body

class Server:
    def __init__(self):
        self.p = subprocess.Popen([gpulint, "server"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, cwd=root)
        self.buf = b""
    def send(self, data):
        self.p.stdin.write(data if isinstance(data, bytes) else frame(data))
        self.p.stdin.flush()
    def read(self, timeout=10.0):
        """The next message, or None at the deadline / end of output."""
        deadline = time.time() + timeout
        while True:
            head, sep, rest = self.buf.partition(b"\r\n\r\n")
            if sep:
                n = int(head.split(b":")[1])
                if len(rest) >= n:
                    self.buf = rest[n:]
                    return json.loads(rest[:n])
            left = deadline - time.time()
            if left <= 0:
                return None
            r, _, _ = select.select([self.p.stdout], [], [], left)
            if not r:
                return None
            chunk = os.read(self.p.stdout.fileno(), 65536)
            if not chunk:
                return None
            self.buf += chunk
    def read_until(self, pred, timeout=10.0):
        deadline = time.time() + timeout
        while time.time() < deadline:
            m = self.read(deadline - time.time())
            if m is None:
                return None
            if pred(m):
                return m
        return None
    def close_and_wait(self, timeout=10.0):
        try:
            self.p.stdin.close()
        except BrokenPipeError:
            pass
        try:
            return self.p.wait(timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            self.p.wait()
            return "hang"

def request(i, method, params=None):
    m = {"jsonrpc": "2.0", "id": i, "method": method}
    if params is not None:
        m["params"] = params
    return m

def init_params():
    return {"processId": os.getpid(), "rootUri": "file://" + root, "capabilities": {}}

# 1. Malformed and out-of-order input before initialize, then a full session.
s = Server()
s.send(b"Content-Length: twelve\r\n\r\n")
m = s.read()
check(m is not None and m["error"]["code"] == -32700 and m["id"] is None, "bad Content-Length -> -32700, id null")
s.send(b"X-Nothing: 1\r\n\r\n")
m = s.read()
check(m is not None and m["error"]["code"] == -32700, "header block without Content-Length -> -32700")
s.send(frame(b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\": "))
m = s.read()
check(m is not None and m["error"]["code"] == -32700, "invalid JSON -> -32700")
s.send(frame(b"[]"))
m = s.read()
check(m is not None and m["error"]["code"] == -32600, "a JSON array (batch) -> -32600")
s.send(request(2, "textDocument/hover", {"textDocument": {"uri": "file:///x.py"}, "position": {"line": 0, "character": 0}}))
m = s.read()
check(m is not None and m.get("id") == 2 and m["error"]["code"] == -32002, "request before initialize -> -32002")
s.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": "file:///early.py", "languageId": "python", "version": 1, "text": "import torch\n"}}})
s.send(request(3, "initialize", init_params()))
m = s.read()
check(m is not None and m.get("id") == 3 and "result" in m, "notification before initialize dropped; initialize answered next")
check(m is not None and m["result"]["capabilities"]["textDocumentSync"]["change"] == 2, "incremental sync announced")
s.send({"jsonrpc": "2.0", "method": "initialized", "params": {}})
s.send({"jsonrpc": "2.0", "method": "custom/notification", "params": {}})
s.send(request(4, "custom/request", {}))
m = s.read()
check(m is not None and m.get("id") == 4 and m["error"]["code"] == -32601,
      "unknown notification ignored; unknown request -> -32601")
# Two messages in one write, a message split over several writes.
both = frame(request(5, "custom/a", {})) + frame(request(6, "custom/b", {}))
s.send(both[:7]); time.sleep(0.05); s.send(both[7:40]); time.sleep(0.05); s.send(both[40:])
a, b = s.read(), s.read()
check(a is not None and b is not None and (a["id"], b["id"]) == (5, 6), "split and coalesced frames are read exactly")

text = open(fixture, encoding="utf-8").read()
uri = "file://" + fixture
s.send({"jsonrpc": "2.0", "method": "textDocument/didOpen",
        "params": {"textDocument": {"uri": uri, "languageId": "python", "version": 1, "text": text}}})
pub = s.read_until(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri)
check(pub is not None, "diagnostics published after didOpen")
cli = subprocess.run([gpulint, "check", "--output-format", "json", fixture], capture_output=True, text=True, cwd=root)
want = sorted((d["code"], d["location"]["row"] - 1, d["location"]["column"] - 1) for d in json.loads(cli.stdout))
got = sorted((d["code"], d["range"]["start"]["line"], d["range"]["start"]["character"]) for d in pub["params"]["diagnostics"]) if pub else []
check(got == want and len(want) > 0, "published diagnostics == `gpulint check --output-format json` (%d)" % len(want))
# An incremental edit: `pin_memory=True` into the first loader removes one DL002.
line = next(i for i, l in enumerate(text.split("\n")) if "shuffle=True)" in l)
col = text.split("\n")[line].index("shuffle=True)") + len("shuffle=True")
s.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": uri, "version": 2},
                   "contentChanges": [{"range": {"start": {"line": line, "character": col}, "end": {"line": line, "character": col}},
                                       "text": ", pin_memory=True"}]}})
pub2 = s.read_until(lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"].get("version") == 2)
codes2 = sorted(d["code"] for d in pub2["params"]["diagnostics"]) if pub2 else None
codes1 = sorted(d["code"] for d in pub["params"]["diagnostics"]) if pub else []
check(pub2 is not None and codes2.count("DL002") == codes1.count("DL002") - 1, "didChange re-lints: one DL002 fewer")
# A change with a bad range type: ignored (logged), the server goes on.
s.send({"jsonrpc": "2.0", "method": "textDocument/didChange",
        "params": {"textDocument": {"uri": uri, "version": 3}, "contentChanges": [{"range": "nope", "text": "x"}]}})
s.send(request(7, "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": "a", "character": 0}}))
m = s.read_until(lambda m: m.get("id") == 7)
check(m is not None and m["error"]["code"] == -32602, "bad params -> -32602")
s.send(request(8, "shutdown"))
m = s.read_until(lambda m: m.get("id") == 8)
check(m is not None and "result" in m and m["result"] is None, "shutdown -> null")
s.send(request(9, "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}))
m = s.read_until(lambda m: m.get("id") == 9)
check(m is not None and m["error"]["code"] == -32600, "request after shutdown -> -32600")
s.send({"jsonrpc": "2.0", "method": "exit"})
try:
    rc = s.p.wait(10)
except subprocess.TimeoutExpired:
    s.p.kill(); rc = "hang"
check(rc == 0, "exit after shutdown -> exit code 0 (got %s)" % rc)

# 2. exit without shutdown -> 1; end of input without shutdown -> 1.
s = Server(); s.send(request(1, "initialize", init_params())); s.read(); s.send({"jsonrpc": "2.0", "method": "exit"})
try:
    rc = s.p.wait(10)
except subprocess.TimeoutExpired:
    s.p.kill(); rc = "hang"
check(rc == 1, "exit without shutdown -> exit code 1 (got %s)" % rc)
s = Server(); s.send(request(1, "initialize", init_params())); s.read()
check(s.close_and_wait() == 1, "end of input without shutdown -> exit code 1")

# 3. A truncated body, and a huge announced length, then the end of input: no hang.
s = Server(); s.send(b"Content-Length: 100\r\n\r\n{\"jsonrpc\":")
check(s.close_and_wait() == 1, "truncated body then end of input -> exit 1, no hang")
s = Server(); s.send(b"Content-Length: 99999999999\r\n\r\n{}")
rc = s.close_and_wait()
check(rc in (0, 1), "huge Content-Length then end of input -> clean exit (got %s)" % rc)

# 4. Random garbage and random JSON: the server stays up and still answers.
rng = random.Random(7)
s = Server()
s.send(request(1, "initialize", init_params())); s.read()
pieces = []
for i in range(300):
    kind = rng.randrange(5)
    if kind == 0:
        pieces.append(bytes(rng.randrange(256) for _ in range(rng.randrange(1, 40))) + b"\r\n\r\n")
    elif kind == 1:
        pieces.append(frame(bytes(rng.randrange(256) for _ in range(rng.randrange(0, 60)))))
    elif kind == 2:
        val = rng.choice([None, 1, "x", [], {}, {"line": -1}, {"uri": 3}, [{"text": 1}]])
        method = rng.choice(["textDocument/didOpen", "textDocument/didChange", "textDocument/codeAction",
                             "textDocument/hover", "textDocument/diagnostic", "workspace/didChangeConfiguration",
                             "textDocument/didClose", "initialize", "$/cancelRequest"])
        msg = {"jsonrpc": "2.0", "method": method, "params": {"textDocument": val, "range": val, "position": val,
                                                             "contentChanges": val, "settings": val}}
        if rng.randrange(2):
            msg["id"] = 1000 + i
        pieces.append(frame(msg))
    elif kind == 3:
        pieces.append(frame({"jsonrpc": "2.0", "method": "textDocument/didOpen",
                             "params": {"textDocument": {"uri": "file:///tmp/r%d.py" % i, "languageId": "python", "version": 1,
                                                         "text": "import torch\n" + "".join(chr(rng.randrange(32, 0x2FFF)) for _ in range(50))}}}))
    else:
        pieces.append(frame({"jsonrpc": "2.0", "method": "textDocument/didChange",
                             "params": {"textDocument": {"uri": "file:///tmp/r%d.py" % (i - 1), "version": 2},
                                        "contentChanges": [{"range": {"start": {"line": rng.randrange(3), "character": rng.randrange(80)},
                                                                      "end": {"line": rng.randrange(3), "character": rng.randrange(80)}},
                                                            "text": rng.choice(["", "x", "\n", "😀", "é"])}]}}))
data = b"".join(pieces)
# Keep the frames in step after the garbage: a blank line resynchronises the header reader.
s.send(data + b"\r\n\r\n")
s.send(request(99999, "shutdown"))
m = s.read_until(lambda m: m.get("id") == 99999, timeout=60)
check(m is not None and "result" in m, "after %d random messages the server still answers shutdown" % len(pieces))
s.send({"jsonrpc": "2.0", "method": "exit"})
try:
    rc = s.p.wait(10)
except subprocess.TimeoutExpired:
    s.p.kill(); rc = "hang"
check(rc == 0, "random-input session exits 0 (got %s)" % rc)

if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("all LSP protocol checks passed")
PY
