#!/usr/bin/env bash
# Builds and runs the libFuzzer target (tests/fuzz/fuzz_analyze.cpp) for SECONDS seconds.
#
#   scripts/fuzz.sh [SECONDS]      (default 60; `make test` runs 30, `make fuzz` 300)
#   env: FUZZ_BUILD=build-fuzz  FUZZ_JOBS=$(nproc) (build parallelism)
#        FUZZ_KEEP_CORPUS=1: keep growing $FUZZ_BUILD/corpus across runs (default: start each
#        run from the seeds, so that a short run spends its time mutating, not re-reading
#        what earlier runs found)
#
# Configures $FUZZ_BUILD with clang-16 and GPULINT_FUZZ=ON (library compiled with
# -fsanitize=address,undefined -fsanitize=fuzzer-no-link, no tests or benchmarks), builds
# gpulint_fuzz, replays tests/fuzz/regressions/* (every input that once crashed it), seeds
# $FUZZ_BUILD/corpus from fixtures/**/*.py, then fuzzes. Exits non-zero on a crash, a leak, a
# timeout or an out-of-memory, and prints the reproducer's path; copy it to
# tests/fuzz/regressions/ so it is replayed from then on.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
seconds=${1:-60}
build=${FUZZ_BUILD:-build-fuzz}
jobs=${FUZZ_JOBS:-$(nproc)}

for tool in clang-16 clang++-16 cmake; do
  command -v "$tool" >/dev/null || { echo "fuzz: $tool is missing (make deps installs it)" >&2; exit 2; }
done

t0=$(date +%s)
if [[ ! -f "$build/CMakeCache.txt" ]]; then
  CC=clang-16 CXX=clang++-16 cmake -S . -B "$build" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    -DCMAKE_C_COMPILER=clang-16 -DCMAKE_CXX_COMPILER=clang++-16 \
    -DGPULINT_FUZZ=ON -DGPULINT_CPP=OFF -DGPULINT_BUILD_TESTS=OFF -DGPULINT_BUILD_BENCH=OFF >/dev/null
fi
cmake --build "$build" --target gpulint_fuzz -j "$jobs"
echo "fuzz: gpulint_fuzz built in $(($(date +%s) - t0)) s"

fuzzer="$build/gpulint_fuzz"
corpus="$build/corpus"
artifacts="$build/artifacts"
[[ "${FUZZ_KEEP_CORPUS:-0}" == 1 ]] || rm -rf "$corpus"
mkdir -p "$corpus" "$artifacts"

export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0:symbolize=1}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}

# Regressions: every saved reproducer must now run cleanly.
shopt -s nullglob
regressions=(tests/fuzz/regressions/*)
if ((${#regressions[@]})); then
  echo "fuzz: replaying ${#regressions[@]} regression inputs from tests/fuzz/regressions/"
  if ! "$fuzzer" -timeout=10 -rss_limit_mb=2048 "${regressions[@]}" >"$build/regressions.log" 2>&1; then
    cat "$build/regressions.log" >&2
    echo "fuzz: a regression input in tests/fuzz/regressions/ fails again (log above)" >&2
    exit 1
  fi
fi

# Seed corpus: the fixtures (content-addressed, so re-seeding adds nothing twice).
while IFS= read -r -d '' f; do
  cp -n "$f" "$corpus/seed-$(sha1sum "$f" | cut -c1-16)"
done < <(find fixtures -type f \( -name '*.py' -o -name '*.py.fixed' -o -name '*.fixed' \) -print0)
for f in "${regressions[@]}"; do cp -n "$f" "$corpus/regression-$(basename "$f")"; done
# And the shapes of issue 2's bad inputs that mutation reaches slowly (all under -max_len):
# deep nesting of calls, brackets, binary operators and blocks, unclosed brackets, CRLF + BOM,
# Python 2 syntax.
python3 - "$corpus" <<'EOF'
import os, sys
d = sys.argv[1]
head = "import torch\nfrom torch.utils.data import DataLoader\n"
seeds = {
    "deep-call": head + "x = " + "f(" * 3000 + "1" + ")" * 3000 + "\n",
    "deep-paren": head + "x = " + "(" * 10000 + "torch.zeros(1)" + ")" * 10000 + "\n",
    "deep-list": head + "x = " + "[" * 10000 + "]" * 10000 + "\n",
    "deep-binop": head + "loss = " + " + ".join(["torch.zeros(1).cuda()"] * 1500) +
                  "\nlosses = []\nlosses.append(loss)\n",
    "deep-attr": head + "x = torch" + ".a" * 8000 + "\n",
    "deep-if": head + "".join(" " * i + "if x:\n" for i in range(200)) + " " * 200 +
               "loader = DataLoader(ds, batch_size=8)\n",
    "unclosed": head + "x = DataLoader(" + "(" * 20000,
    "crlf-bom": "\ufeff" + (head + "loader = DataLoader(ds)\nfor x, y in loader:\n"
                            "    model(x).backward()\n").replace("\n", "\r\n"),
    "python2": head + "print 'loss', loss\nexec code in ns\nraise E, 'x'\nx = 0777L\n",
}
for name, text in seeds.items():
    with open(os.path.join(d, "synthetic-" + name), "wb") as f:
        f.write(text.encode("utf-8"))
EOF

echo "fuzz: running for $seconds s ($(ls "$corpus" | wc -l) corpus inputs in $corpus)"
before=$(mktemp)
ls "$artifacts" >"$before"
rc=0
"$fuzzer" "$corpus" -max_total_time="$seconds" -max_len=65536 -timeout=10 -rss_limit_mb=2048 \
  -artifact_prefix="$artifacts/" -print_final_stats=1 >"$build/fuzz.log" 2>&1 || rc=$?
new=$(ls "$artifacts" | grep -vxF -f "$before" | grep -v '^slow-unit-' || true)
rm -f "$before"
if ((rc != 0)) || [[ -n "$new" ]]; then
  tail -n 80 "$build/fuzz.log" >&2
  echo "fuzz: FAILED (exit $rc); full log: $build/fuzz.log" >&2
  for a in $new; do echo "fuzz: reproducer: $artifacts/$a  (replay: $fuzzer $artifacts/$a)" >&2; done
  exit 1
fi
grep -E '^stat::|^Done|DONE' "$build/fuzz.log" | tr '\n' ' ' | sed 's/ $/\n/' || true
echo "fuzz: no crash in $seconds s"
