#!/usr/bin/env bash
# bench/eval/score.py in repository mode on a two-repository corpus: labels by path relative to
# the corpus (both repositories hold a `train.cpp`, so matching by base name would be wrong),
# one compilation database per repository — acme__trainer's own CMake project configured
# against Debian's libtorch-dev ("configured"; its CXX_STANDARD 11 records -std=gnu++11, which
# LibTorch's headers refuse and gpulint raises to gnu++14); lab__vision's needs a package no
# machine has (GpulintAbsentPackage: not OpenCV, which a developer may well have), so its entry is
# written with the repository's header directories ("written"), nearest to the file first
# (a/include/trainer.h and b/include/trainer.h declare different classes; b/src/train.cpp
# needs b's). Each finding is in an out-of-line member function of a class declared in the
# project's header, which clang only keeps when the header is found.
# Usage: bash tests/e2e/eval_repo_mode.sh /path/to/gpulint
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
C="$WORK/corpus"

# acme__trainer: a CMake project that configures with find_package(Torch).
mkdir -p "$C/acme__trainer/include" "$C/acme__trainer/src"
cat > "$C/acme__trainer/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(trainer CXX)
find_package(Torch REQUIRED)
add_executable(train src/train.cpp)
target_include_directories(train PRIVATE include)
target_link_libraries(train PRIVATE ${TORCH_LIBRARIES})
# As older LibTorch projects say it; LibTorch 1.13's headers need C++14 (gpulint raises it).
set_property(TARGET train PROPERTY CXX_STANDARD 11)
CMAKE
cat > "$C/acme__trainer/include/trainer.h" <<'CPP'
#pragma once
#include <torch/torch.h>

class Trainer {
 public:
  Trainer();
  double train(int epochs);

 private:
  torch::nn::Linear model{10, 2};
  torch::optim::Adam adam;
};
CPP
cat > "$C/acme__trainer/src/train.cpp" <<'CPP'
#include "trainer.h"

Trainer::Trainer() : adam(model->parameters()) {}

double Trainer::train(int epochs) {
  torch::nn::CrossEntropyLoss criterion;
  torch::Tensor running = torch::zeros({});
  double total = 0;
  for (int epoch = 0; epoch < epochs; ++epoch) {
    adam.zero_grad();
    auto loss = criterion(model(torch::randn({8, 10})), torch::randint(0, 2, {8}));
    loss.backward();
    adam.step();
    running += loss;
    total += loss.item<double>();
  }
  return running.item<double>() + total;
}

int main() { return Trainer().train(3) > 0 ? 0 : 1; }
CPP

# lab__vision: needs a package no machine has, two sub-projects with a header of the same name.
mkdir -p "$C/lab__vision/a/include" "$C/lab__vision/b/include" "$C/lab__vision/b/src"
cat > "$C/lab__vision/CMakeLists.txt" <<'CMAKE'
cmake_minimum_required(VERSION 3.18)
project(vision CXX)
find_package(Torch REQUIRED)
find_package(GpulintAbsentPackage REQUIRED)
add_subdirectory(b)
CMAKE
cat > "$C/lab__vision/a/include/trainer.h" <<'CPP'
#pragma once
struct Trainer {
  void train(int epochs);
};
CPP
cat > "$C/lab__vision/b/include/trainer.h" <<'CPP'
#pragma once
#include <torch/torch.h>
struct Trainer {
  torch::nn::Linear model{4, 1};
  double fit(int epochs);
};
CPP
cat > "$C/lab__vision/b/src/train.cpp" <<'CPP'
#include "trainer.h"

double Trainer::fit(int epochs) {
  torch::optim::SGD sgd(model->parameters(), 0.1);
  torch::Tensor epoch_loss = torch::zeros({});
  for (int i = 0; i < epochs; ++i) {
    sgd.zero_grad();
    auto loss = model(torch::randn({2, 4})).pow(2).mean();
    loss.backward();
    sgd.step();
    epoch_loss += loss;
  }
  return epoch_loss.item<double>();
}

int main() { Trainer t; return t.fit(2) > 0 ? 0 : 1; }
CPP

cat > "$WORK/labels.json" <<'JSON'
{"files": [
  {"file": "acme__trainer/src/train.cpp", "labels": [{"line": 14, "code": "MEM001"}]},
  {"file": "lab__vision/b/src/train.cpp", "labels": [{"line": 11, "code": "MEM001"}]}
]}
JSON

# The build root must be outside the corpus.
set +e
python3 "$ROOT/bench/eval/score.py" --gpulint "$GPULINT" --corpus "$C" --labels "$WORK/labels.json" \
  --build-root "$C/build" >"$WORK/out0" 2>&1; rc=$?
set -e
[ "$rc" != 0 ] || fail "a build root inside the corpus was accepted"
grep -q "outside the corpus" "$WORK/out0" || { cat "$WORK/out0"; fail "no reason given for the refused build root"; }

python3 "$ROOT/bench/eval/score.py" --gpulint "$GPULINT" --corpus "$C" --labels "$WORK/labels.json" \
  --build-root "$WORK/build" --json "$WORK/score.json" -v | tee "$WORK/out"
python3 - "$WORK/score.json" "$WORK/build" <<'PY' || fail "unexpected repository-mode score"
import json, sys
d = json.load(open(sys.argv[1]))
m = d["scores"]["MEM001"]
assert (m["tp"], m["fp"], m["fn"]) == (2, 0, 0), m
for g in ("DL001", "DEV"):
    assert d["scores"][g]["fp"] == 0, d["scores"][g]
acme = d["repos"]["acme__trainer"]["acme__trainer/src/train.cpp"]
assert acme["database"].startswith("configured (./CMakeLists.txt)"), acme
lab = d["repos"]["lab__vision"]["lab__vision/b/src/train.cpp"]
assert lab["database"].startswith("written") and "GpulintAbsentPackage" in lab["database"], lab
# Both parse without a compiler error: the written entry's LibTorch include directories leave
# out the compiler's own (/usr/include), and acme's CXX_STANDARD 11 is raised to LibTorch's C++14.
assert acme["parse"] == "clean" and lab["parse"] == "clean", (acme, lab)
db = json.load(open(sys.argv[2] + "/lab__vision/compile_commands.json"))
inc = [a for a in db[0]["arguments"] if a.startswith("-I")]
assert inc[0].endswith("lab__vision/b/include"), inc
assert any(a.startswith("-isystem") and "torch" in a for a in db[0]["arguments"]), db[0]
PY
echo "OK"
