#!/usr/bin/env bash
# `gpulint confirm` on the C++ LibTorch fixture (fixtures/confirm/cpp/, DL001) on the machine it
# is started on: the lent H100 (PyTorch wheel with LibTorch's CMake config, nvcc, cmake, no
# network, no clang), or any machine with a LibTorch (no GPU: confirm runs on the CPU and says
# so). The gpulint given may be the `make dist` one, without the C++ front end: the findings
# come from DIAGNOSTICS, the JSON of `gpulint check --output-format json` made where clang is
# (bench/results/confirm-cpp-diagnostics.json; see bench/results/confirm-cpp.md for the command).
#
#   bench/confirm_cpp_gpu.sh GPULINT OUT_DIR [FIRST [LAST]]
# Writes into OUT_DIR: environment.txt, confirm-cpp-pass<N>.{txt,json} (+ .html for pass FIRST).
# Passes can be split over several calls (a lent machine runs one command for at most 10 min).
# Env: DIAGNOSTICS (default bench/results/confirm-cpp-diagnostics.json), STEPS (batches per run,
# default 600), REPEATS (3), WARMUP_RUNS (1), TIMEOUT (per run, 300 s), JOBS (build jobs,
# nproc), PYTHON (python3, asked for torch.utils.cmake_prefix_path), TORCH_PREFIX (skips that).
set -euo pipefail
if [ $# -lt 2 ]; then
  sed -n '2,16p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
GPULINT=$(realpath "$1"); OUT=$(realpath -m "$2"); FIRST=${3:-1}; LAST=${4:-$FIRST}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DIAGNOSTICS=$(realpath "${DIAGNOSTICS:-$ROOT/bench/results/confirm-cpp-diagnostics.json}")
STEPS=${STEPS:-600}; REPEATS=${REPEATS:-3}; WARMUP_RUNS=${WARMUP_RUNS:-1}; TIMEOUT=${TIMEOUT:-300}
JOBS=${JOBS:-$(nproc)}; PYTHON=${PYTHON:-python3}

die() { echo "confirm_cpp_gpu.sh: $*" >&2; exit 2; }
[ -x "$GPULINT" ] || die "$1 is not an executable gpulint"
[ -f "$DIAGNOSTICS" ] || die "no diagnostics report at $DIAGNOSTICS (DIAGNOSTICS=...)"
command -v cmake >/dev/null || die "no cmake on PATH: the fixture is a CMake project (pip install cmake, or apt-get install cmake)"
command -v c++ >/dev/null || die "no C++ compiler (c++) on PATH"
if [ -z "${TORCH_PREFIX:-}" ]; then
  TORCH_PREFIX=$("$PYTHON" -c 'import torch; print(torch.utils.cmake_prefix_path)' 2>/dev/null) \
    || die "$PYTHON cannot import torch: set TORCH_PREFIX to the directory holding Torch/TorchConfig.cmake's parent (a LibTorch's share/cmake)"
fi
[ -f "$TORCH_PREFIX/Torch/TorchConfig.cmake" ] || die "no Torch/TorchConfig.cmake under TORCH_PREFIX=$TORCH_PREFIX"
# The CUDA wheel's Caffe2 config looks for the CUDA toolkit (nvcc) when it is there.
if ! command -v nvcc >/dev/null && [ -x /usr/local/cuda/bin/nvcc ]; then export PATH="/usr/local/cuda/bin:$PATH"; fi

mkdir -p "$OUT"
{
  echo "date: $(date -u +%FT%TZ)"; echo "host: $(hostname) ($(nproc) CPUs)"
  "$GPULINT" --version
  cmake --version | head -1; c++ --version | head -1
  command -v nvcc >/dev/null && nvcc --version | tail -2 | head -1 || echo "nvcc: none"
  nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader 2>/dev/null || echo "GPU: none (nvidia-smi absent or no driver)"
  "$PYTHON" -c 'import torch; print("torch", torch.__version__, "cuda", torch.version.cuda, "cxx11 abi", torch.compiled_with_cxx11_abi())' 2>/dev/null || true
  echo "TORCH_PREFIX: $TORCH_PREFIX"
  echo "STEPS=$STEPS REPEATS=$REPEATS WARMUP_RUNS=$WARMUP_RUNS JOBS=$JOBS"
} | tee "$OUT/environment.txt"

WORK=$(mktemp -d "${TMPDIR:-/tmp}/gpulint-confirm-cpp.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
# The fixture at the same relative place as in the repository: the report's filename
# (.../fixtures/confirm/cpp/train.cpp, made on another machine) ends in the file's path inside
# the CMake project (train.cpp), which confirm accepts for a report made in another checkout.
mkdir -p "$WORK/fixtures/confirm"
cp -r "$ROOT/fixtures/confirm/cpp" "$WORK/fixtures/confirm/cpp"
rm -rf "$WORK/fixtures/confirm/cpp/build"
cd "$WORK/fixtures/confirm/cpp"
# TorchConfig sets TORCH_CXX_FLAGS (-D_GLIBCXX_USE_CXX11_ABI=0/1), which the fixture's
# CMakeLists.txt applies: the wheel's ABI is matched whatever it is.
BUILD="cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH='$TORCH_PREFIX' && cmake --build build -j $JOBS"
RUN="./build/train $STEPS"
rc_all=0
for pass in $(seq "$FIRST" "$LAST"); do
  html=()
  [ "$pass" = "$FIRST" ] && html=(--html "$OUT/confirm-cpp-pass$pass.html")
  echo "== pass $pass"
  set +e
  "$GPULINT" confirm train.cpp --diagnostics "$DIAGNOSTICS" --build "$BUILD" --run "$RUN" \
    --repeats "$REPEATS" --warmup-runs "$WARMUP_RUNS" --timeout "$TIMEOUT" \
    --json "$OUT/confirm-cpp-pass$pass.json" "${html[@]}" 2>"$OUT/confirm-cpp-pass$pass.err" \
    | tee "$OUT/confirm-cpp-pass$pass.txt"
  rc=${PIPESTATUS[0]}
  set -e
  if [ "$rc" != 0 ]; then
    echo "(gpulint confirm exited $rc; its stderr:)"; tail -40 "$OUT/confirm-cpp-pass$pass.err"
    rc_all=$rc
  fi
done
exit "$rc_all"
