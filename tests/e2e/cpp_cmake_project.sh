#!/usr/bin/env bash
# `gpulint check -p build src/` on a small CMake LibTorch project (find_package(Torch) from
# Debian's libtorch-dev, CMAKE_EXPORT_COMPILE_COMMANDS=ON, g++-only compile options), then the C++ bad-input cases
# through the CLI: a malformed compile_commands.json (exit 2, file named), a missing header
# (analysed anyway, the include named), a file that is not C++; then a header-only trainer
# class in src/trainer.hpp (reported once, at the header; NOLINT there suppresses it).
# Usage: bash tests/e2e/cpp_cmake_project.sh /path/to/gpulint
set -euo pipefail
GPULINT="$(realpath "$1")"
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
if ! "$GPULINT" check --help | grep -q -- "--build-path"; then
  echo "gpulint built without the C++ front end: skipped"; exit 0
fi
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
export XDG_CACHE_HOME="${XDG_CACHE_HOME:-$HOME/.cache}"
fail() { echo "FAIL: $*"; exit 1; }

mkdir -p "$WORK/proj/src"
cat > "$WORK/proj/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(mnist_cpp CXX)
find_package(Torch REQUIRED)
add_executable(mnist src/mnist.cpp)
target_link_libraries(mnist PRIVATE ${TORCH_LIBRARIES})
set_property(TARGET mnist PROPERTY CXX_STANDARD 17)
# g++-only flags, as projects built with g++ record them: clang 16 rejects these, gpulint
# leaves them out (analyzer/cpp/compile_flags.h) instead of failing the translation unit.
target_compile_options(mnist PRIVATE -fconcepts-diagnostics-depth=3 -fipa-pta -mno-direct-extern-access)
CMAKE
cp "$ROOT/fixtures/cpp/DL001/mnist_batch_size_only.cpp" "$WORK/proj/src/mnist.cpp"
cmake -S "$WORK/proj" -B "$WORK/proj/build" -DCMAKE_EXPORT_COMPILE_COMMANDS=ON >/dev/null
test -f "$WORK/proj/build/compile_commands.json" || fail "no compile_commands.json"

cd "$WORK/proj"
set +e
out="$("$GPULINT" check -p build src/ --output-format concise 2>"$WORK/err")"; rc=$?
set -e
echo "$out"; cat "$WORK/err"
[ "$rc" = 1 ] || fail "expected exit 1 (findings), got $rc"
echo "$out" | grep -q "src/mnist.cpp:27:.*DL001" || fail "DL001 not reported at src/mnist.cpp:27"
grep -q "no compile_commands.json" "$WORK/err" && fail "fell back to default flags despite -p"
[ "$(echo "$out" | grep -c 'DL001')" = 1 ] || fail "expected exactly one DL001"
grep -q "could not\|unknown argument" "$WORK/err" && fail "the g++-only flags broke the parse"
grep -q "left out.*-fconcepts-diagnostics-depth=3" "$WORK/err" || fail "the left-out g++ flags are not named"

# `gpulint audit` analyses the project's C++ through the same front end (its build/
# compile_commands.json names the translation units).
set +e
"$GPULINT" audit . --json "$WORK/audit.json" --no-progress >"$WORK/audit.out" 2>"$WORK/audit.err"; rc=$?
set -e
[ "$rc" = 0 ] || { cat "$WORK/audit.out" "$WORK/audit.err"; fail "audit: expected exit 0, got $rc"; }
grep -q "not analysed" "$WORK/audit.out" && { cat "$WORK/audit.out"; fail "audit did not analyse the C++ file"; }
python3 - "$WORK/audit.json" <<'PY' || fail "audit JSON: expected one DL001 in src/mnist.cpp"
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["findings"] if x["code"] == "DL001"]
assert len(f) == 1 and f[0]["path"].endswith("src/mnist.cpp") and f[0]["line"] == 27, f
PY

# The database is also found upward from the file when -p is not given (here: build/ is
# not above src/, so copy it to the project root as many projects symlink it).
cp build/compile_commands.json .
set +e
"$GPULINT" check src/mnist.cpp --output-format concise >"$WORK/out2" 2>"$WORK/err2"; rc=$?
set -e
[ "$rc" = 1 ] || { cat "$WORK/out2" "$WORK/err2"; fail "upward discovery: expected exit 1, got $rc"; }
grep -q "no compile_commands.json" "$WORK/err2" && fail "upward discovery fell back to default flags"
rm compile_commands.json

# --fix --unsafe-fixes writes `.workers(4)` and the file still compiles with the project's flags.
cp src/mnist.cpp "$WORK/mnist.orig"
"$GPULINT" check -p build src/ --fix --unsafe-fixes --quiet >/dev/null 2>&1 || true
grep -q "DataLoaderOptions(64).workers(4)" src/mnist.cpp || fail "--fix did not add workers"
set +e
"$GPULINT" check -p build src/ --quiet >/dev/null 2>&1; rc=$?
set -e
[ "$rc" = 0 ] || fail "after --fix: expected exit 0, got $rc"
cp "$WORK/mnist.orig" src/mnist.cpp

# Malformed compile_commands.json: exit 2, the file and the reason.
mkdir -p "$WORK/bad"
printf '[{"directory": "/tmp", "file": ' > "$WORK/bad/compile_commands.json"
set +e
"$GPULINT" check -p "$WORK/bad" src/ 2>"$WORK/err3" >/dev/null; rc=$?
set -e
[ "$rc" = 2 ] || fail "malformed compile_commands.json: expected exit 2, got $rc"
grep -q "$WORK/bad/compile_commands.json" "$WORK/err3" || { cat "$WORK/err3"; fail "error does not name the file"; }
set +e
"$GPULINT" check -p "$WORK/nonexistent" src/ 2>"$WORK/err4" >/dev/null; rc=$?
set -e
[ "$rc" = 2 ] || fail "missing build dir: expected exit 2, got $rc"

# A missing header: analysed anyway, the include named in one warning.
mkdir -p "$WORK/loose"
sed 's|#include <cstdio>|#include "helpers/missing.h"|' "$ROOT/fixtures/cpp/DL001/mnist_batch_size_only.cpp" > "$WORK/loose/train.cpp"
set +e
"$GPULINT" check "$WORK/loose/train.cpp" --output-format concise >"$WORK/out5" 2>"$WORK/err5"; rc=$?
set -e
cat "$WORK/out5" "$WORK/err5"
[ "$rc" = 1 ] || fail "missing header: expected exit 1 (the DL001 still found), got $rc"
grep -q "helpers/missing.h" "$WORK/err5" || fail "the failed include is not named"
grep -q "no compile_commands.json" "$WORK/err5" || fail "the fallback flags are not announced"

# Not C++: a warning, no crash, no findings.
printf 'import torch\nprint(torch.zeros(3))\n' > "$WORK/loose/script.cpp"
set +e
"$GPULINT" check "$WORK/loose/script.cpp" >"$WORK/out6" 2>"$WORK/err6"; rc=$?
set -e
[ "$rc" = 0 ] || { cat "$WORK/out6" "$WORK/err6"; fail "not C++: expected exit 0, got $rc"; }
grep -q "warning: .*script.cpp" "$WORK/err6" || fail "no warning for a file that is not C++"
# A header-only trainer class (src/trainer.hpp, in no compile command) included by
# src/main.cpp: `check` analyses the header as its own main file with the command clang
# interpolates from the database, and reports its loader once, at the header's path (the
# .cpp's analysis stays in the .cpp). A NOLINT in the header suppresses it.
cat > src/trainer.hpp <<'HPP'
#pragma once
#include <torch/torch.h>
#include <utility>

class Trainer {
 public:
  void fit() {
    auto ds = torch::data::datasets::MNIST("./data").map(torch::data::transforms::Stack<>());
    auto loader = torch::data::make_data_loader(std::move(ds), 32);
    for (auto& batch : *loader) (void)batch;
  }
};
HPP
printf '#include <torch/torch.h>\n#include "trainer.hpp"\nint main() { Trainer t; t.fit(); }\n' > src/main.cpp
cat >> CMakeLists.txt <<'CMAKE'
add_executable(trainer src/main.cpp)
target_link_libraries(trainer PRIVATE ${TORCH_LIBRARIES})
set_property(TARGET trainer PROPERTY CXX_STANDARD 17)
CMAKE
cmake -S . -B build >/dev/null
grep -q trainer.hpp build/compile_commands.json && fail "the header should not be in the database"
set +e
out="$("$GPULINT" check -p build src/ --output-format concise 2>"$WORK/err7")"; rc=$?
set -e
echo "$out"; cat "$WORK/err7"
[ "$rc" = 1 ] || fail "header: expected exit 1, got $rc"
[ "$(echo "$out" | grep -c 'src/trainer.hpp:9:.*DL001')" = 1 ] || fail "the header's DL001 is not reported once at src/trainer.hpp:9"
echo "$out" | grep -q "src/main.cpp" && fail "the header's finding is also reported for src/main.cpp"
[ "$(echo "$out" | grep -c 'DL001')" = 2 ] || fail "expected two DL001 (mnist.cpp, trainer.hpp)"
grep -qi "syntax\|could not" "$WORK/err7" && fail "the header did not parse cleanly"
# Named explicitly, the header is analysed too (as C++, not as Python).
set +e
out="$("$GPULINT" check -p build src/trainer.hpp --output-format concise 2>&1)"; rc=$?
set -e
[ "$rc" = 1 ] && echo "$out" | grep -q "src/trainer.hpp:9:.*DL001" || { echo "$out"; fail "a header named on the command line is not analysed"; }
# audit takes the database's translation units and the headers under its roots.
"$GPULINT" audit . --json "$WORK/audit2.json" --no-progress >/dev/null 2>&1 || fail "audit with a header: failed"
python3 - "$WORK/audit2.json" <<'PY' || fail "audit JSON: expected DL001 in src/trainer.hpp:9 and src/mnist.cpp:27"
import json, sys
d = json.load(open(sys.argv[1]))
f = sorted((x["path"].split("/")[-1], x["line"]) for x in d["findings"] if x["code"] == "DL001")
assert f == [("mnist.cpp", 27), ("trainer.hpp", 9)], f
PY
sed -i 's|std::move(ds), 32);|std::move(ds), 32);  // NOLINT(DL001)|' src/trainer.hpp
set +e
out="$("$GPULINT" check -p build src/ --output-format concise 2>&1)"; rc=$?
set -e
echo "$out" | grep -q "trainer.hpp" && { echo "$out"; fail "NOLINT in the header did not suppress its DL001"; }
[ "$(echo "$out" | grep -c 'DL001')" = 1 ] || { echo "$out"; fail "expected only mnist.cpp's DL001 after the NOLINT"; }

echo "OK"
