#!/usr/bin/env bash
# Time per LibTorch translation unit: gpulint (cached <torch/torch.h> PCH, matchers limited to
# the main file) against `clang++-16 -fsyntax-only` with the same flags, on the same TUs.
# Usage: bench/cpp_tu.sh [GPULINT] [RUNS]   (default build/gpulint, 3 runs; median reported)
# Writes bench/results/cpp-tu.json and bench/results/cpp-tu.md.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
GPULINT="$(realpath "${1:-$ROOT/build/gpulint}")"
RUNS="${2:-3}"
OUT="$ROOT/bench/results"
mkdir -p "$OUT"
CACHE="$(mktemp -d)"
trap 'rm -rf "$CACHE"' EXIT
export XDG_CACHE_HOME="$CACHE"
FLAGS=(-std=c++17 -isystem/usr/include/torch/csrc/api/include)
TUS=(fixtures/cpp/DL001/mnist_batch_size_only.cpp fixtures/cpp/DEV001/shared_ptr_model_never_moved.cpp
     fixtures/cpp/DEV002/batch_variables_unmoved.cpp fixtures/cpp/DEV003/zeros_then_to_device_in_loop.cpp
     fixtures/cpp/MEM001/losses_pushed_back.cpp fixtures/cpp/MEM001/evaluation_under_no_grad.cpp)
cd "$ROOT"
now() { date +%s.%N; }
sub() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.3f", a - b}'; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }

# The PCH is built once, by the first gpulint run (timed separately: a one-time cost).
t0=$(now); "$GPULINT" check --quiet --exit-zero "${TUS[0]}" >/dev/null 2>&1; t1=$(now)
first_run=$(sub "$t1" "$t0")
pch_bytes=$(du -cb "$CACHE"/gpulint/*.pch | tail -1 | cut -f1)

rows=()
json_rows=()
for tu in "${TUS[@]}"; do
  c=(); g=()
  for ((r = 0; r < RUNS; r++)); do
    t0=$(now); clang++-16 -fsyntax-only -w "${FLAGS[@]}" "$tu"; t1=$(now); c+=("$(sub "$t1" "$t0")")
    t0=$(now); "$GPULINT" check --quiet --exit-zero --threads 1 "$tu" >/dev/null 2>&1; t1=$(now); g+=("$(sub "$t1" "$t0")")
  done
  cm=$(printf '%s\n' "${c[@]}" | median); gm=$(printf '%s\n' "${g[@]}" | median)
  ratio=$(awk -v a="$gm" -v b="$cm" 'BEGIN {printf "%.3f", a / b}')
  rows+=("| \`$tu\` | $(printf %.2f "$cm") | $(printf %.2f "$gm") | $(awk -v r="$ratio" 'BEGIN {printf "%.0f", r * 100}')% |")
  json_rows+=("{\"tu\": \"$tu\", \"clang_fsyntax_only_s\": $cm, \"gpulint_s\": $gm, \"ratio\": $ratio}")
  echo "$tu clang=$cm gpulint=$gm ratio=$ratio"
done
load=$(cut -d' ' -f1-3 /proc/loadavg)
{
  echo "{"
  echo "  \"machine\": \"$(nproc) cores, load average $load\","
  echo "  \"runs_per_tu\": $RUNS,"
  echo "  \"first_run_with_pch_build_s\": $first_run,"
  echo "  \"pch_bytes\": $pch_bytes,"
  echo "  \"tus\": ["
  for i in "${!json_rows[@]}"; do
    sep=","; [ "$i" = $((${#json_rows[@]} - 1)) ] && sep=""
    echo "    ${json_rows[$i]}$sep"
  done
  echo "  ]"
  echo "}"
} > "$OUT/cpp-tu.json"
{
  echo "# gpulint per LibTorch translation unit vs clang++-16 -fsyntax-only"
  echo
  echo "Same TUs, same flags (\`${FLAGS[*]}\`), median of $RUNS runs each, one thread."
  echo "gpulint's time is the whole \`gpulint check FILE\` process with the cached PCH of"
  echo "<torch/torch.h> (built by the first run: ${first_run} s, $((pch_bytes / 1048576)) MiB) and the"
  echo "matchers limited to the main file. Machine: $(nproc) cores shared with other jobs, load average $load"
  echo "when the run ended (absolute times are inflated by the load; the ratio is what is compared)."
  echo
  echo "| TU | clang++-16 -fsyntax-only (s) | gpulint (s) | gpulint / clang |"
  echo "|---|---:|---:|---:|"
  printf '%s\n' "${rows[@]}"
  echo
  echo "Produced by \`bench/cpp_tu.sh\`."
} > "$OUT/cpp-tu.md"
cat "$OUT/cpp-tu.md"
