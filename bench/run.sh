#!/usr/bin/env bash
# The whole-process benchmark: `gpulint check` against the tree-sitter parse-only limit,
# pyflakes and flake8, side by side in one run, on one file list, with 2 threads each.
#
#   bench/run.sh [TREE]          (default TREE: /usr/lib/python3.11, on every Debian 12 machine)
#   env: RUNS=5 THREADS=2 BUILD=build RESULTS=bench/results MICRO=1 (0 skips the micro-benchmark)
#
# The file list is made once, by gpulint's own discovery (gpulint_parse_only --list-files:
# *.py/*.pyi, default excludes such as venv/ and build/, .gitignore), and every tool is given
# exactly those files as arguments, from a neutral working directory (no project config).
# Every tool runs once untimed (warm page cache, checks it works), then RUNS rounds; each
# round runs every tool once, in turn, so load changes on the machine touch them alike.
# The median wall time of the RUNS is reported (bash's `time`: real, and user+sys CPU).
#
# Writes $RESULTS/check-vs-peers.json and $RESULTS/check-vs-peers.md (and, unless MICRO=0,
# $RESULTS/analyze-bench.json from the Google Benchmark micro-benchmark).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
TREE=${1:-/usr/lib/python3.11}
RUNS=${RUNS:-5}
THREADS=${THREADS:-2}
BUILD=${BUILD:-build}
RESULTS=${RESULTS:-bench/results}
MICRO=${MICRO:-1}
case "$BUILD" in /*) ;; *) BUILD="$root/$BUILD" ;; esac
case "$RESULTS" in /*) ;; *) RESULTS="$root/$RESULTS" ;; esac

for cmd in python3 pyflakes3 flake8; do
  command -v "$cmd" >/dev/null || { echo "bench: $cmd is missing (make deps installs it)" >&2; exit 2; }
done
[[ -d "$TREE" ]] || { echo "bench: $TREE is not a directory" >&2; exit 2; }

echo "== building gpulint, gpulint_parse_only, gpulint_analyze_bench in $BUILD"
cmake --build "$BUILD" --target gpulint gpulint_parse_only gpulint_analyze_bench -j "$(nproc)" >/dev/null
GPULINT="$BUILD/gpulint"
PARSE="$BUILD/bench/gpulint_parse_only"

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

# --- one file list for every tool ---------------------------------------------------------
"$PARSE" --list-files "$TREE" >files.txt
nfiles=$(wc -l <files.txt)
((nfiles > 0)) || { echo "bench: no Python files under $TREE" >&2; exit 2; }
# Two halves of equal size for the two parallel pyflakes processes: largest file first,
# each file to the lighter half.
python3 - <<'EOF'
import os
files = [l.rstrip("\n") for l in open("files.txt")]
sized = sorted(((os.path.getsize(f), f) for f in files), reverse=True)
halves, weight = ([], []), [0, 0]
for size, f in sized:
    i = 0 if weight[0] <= weight[1] else 1
    halves[i].append(f); weight[i] += size
for i in (0, 1):
    open(f"half{i}.txt", "w").write("".join(f + "\n" for f in sorted(halves[i])))
open("bytes.txt", "w").write(str(sum(s for s, _ in sized)))
EOF
bytes=$(<bytes.txt)
echo "== $nfiles files, $bytes bytes under $TREE; $THREADS threads; $RUNS runs each"

# Each tool is a small script reading the list (the same few ms of bash for all of them).
cat >gpulint.sh <<EOF
mapfile -t f <files.txt; exec "$GPULINT" check --threads $THREADS --exit-zero "\${f[@]}"
EOF
cat >parse-only.sh <<EOF
mapfile -t f <files.txt; exec "$PARSE" --threads $THREADS "\${f[@]}"
EOF
cat >pyflakes-2proc.sh <<'EOF'
mapfile -t a <half0.txt; mapfile -t b <half1.txt
pyflakes3 "${a[@]}" >out0.txt & p0=$!
pyflakes3 "${b[@]}" >out1.txt & p1=$!
wait $p0; r0=$?; wait $p1; r1=$?; cat out0.txt out1.txt; exit $((r0 > r1 ? r0 : r1))
EOF
cat >pyflakes-1proc.sh <<'EOF'
mapfile -t f <files.txt; exec pyflakes3 "${f[@]}"
EOF
cat >flake8.sh <<EOF
mapfile -t f <files.txt; exec flake8 -j $THREADS "\${f[@]}"
EOF
tools=(gpulint parse-only pyflakes-2proc pyflakes-1proc flake8)
declare -A okcodes=([gpulint]="0" [parse-only]="0" [pyflakes-2proc]="0 1" [pyflakes-1proc]="0 1" [flake8]="0 1")

run_tool() {  # run_tool NAME -> appends "wall cpu" to NAME.times; output lines to NAME.lines
  local name=$1 rc=0 t
  TIMEFORMAT='%3R %3U %3S'
  { time bash "$name.sh" >"$name.out" 2>"$name.err" || rc=$?; } 2>"$name.t"
  if [[ " ${okcodes[$name]} " != *" $rc "* ]]; then
    echo "bench: $name exited $rc:" >&2; tail -5 "$name.err" >&2; exit 2
  fi
  read -r real user sys <"$name.t"
  echo "$real $(python3 -c "print(round($user + $sys, 3))")" >>"$name.times"
  wc -l <"$name.out" >"$name.lines"
}

uptime_before=$(cut -d' ' -f1-3 /proc/loadavg)
echo "== warm-up (load average $uptime_before)"
for t in "${tools[@]}"; do run_tool "$t"; : >"$t.times"; done
for ((r = 1; r <= RUNS; r++)); do
  echo "== round $r/$RUNS (load $(cut -d' ' -f1 /proc/loadavg))"
  cut -d' ' -f1 /proc/loadavg >>loads.txt
  for t in "${tools[@]}"; do run_tool "$t"; echo "   $t: $(tail -1 "$t.times" | cut -d' ' -f1) s"; done
done
uptime_after=$(cut -d' ' -f1-3 /proc/loadavg)

micro_json=""
if [[ "$MICRO" != 0 ]]; then
  echo "== micro-benchmark: analyze_python vs Tree::parse on the fixtures"
  micro_json="$RESULTS/analyze-bench.json"
  mkdir -p "$RESULTS"
  GPULINT_BENCH_ROOT="$root" "$BUILD/bench/gpulint_analyze_bench" --benchmark_min_time=0.2 \
    --benchmark_out="$micro_json" --benchmark_out_format=json >/dev/null
fi

# --- the machine and the versions ----------------------------------------------------------
cpu=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//')
mem_kb=$(grep -m1 '^MemTotal' /proc/meminfo | awk '{print $2}')
os=$(. /etc/os-release && echo "$PRETTY_NAME")
gpulint_version=$("$GPULINT" --version)
pyflakes_version=$(pyflakes3 --version | tr '\n' ' ' | sed 's/ *$//')
flake8_version=$(flake8 --version | tr '\n' ' ' | sed 's/ *$//')
cxx=$(grep -m1 '^CMAKE_CXX_COMPILER:' "$BUILD/CMakeCache.txt" | cut -d= -f2)
cxx_version=$("$cxx" --version | head -1)
build_type=$(grep -m1 '^CMAKE_BUILD_TYPE:' "$BUILD/CMakeCache.txt" | cut -d= -f2)
ts_versions=$(python3 -c "import json;p=json.load(open('$root/package-lock.json'))['packages'];print('tree-sitter ' + p['node_modules/tree-sitter']['version'] + ', tree-sitter-python ' + p['node_modules/tree-sitter-python']['version'])")
git_rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
if [[ -n $(git -C "$root" status --porcelain 2>/dev/null) ]]; then git_rev="$git_rev+uncommitted"; fi

mkdir -p "$RESULTS"
export TREE RUNS THREADS nfiles bytes cpu mem_kb os gpulint_version pyflakes_version \
  flake8_version cxx_version build_type ts_versions git_rev uptime_before uptime_after RESULTS \
  GPULINT PARSE micro_json
python3 - <<'EOF'
import json, os, platform, statistics, datetime
e = os.environ
nfiles, nbytes = int(e["nfiles"]), int(e["bytes"])
threads = int(e["THREADS"])
commands = {
    "gpulint": f"gpulint check --threads {threads} --exit-zero FILES",
    "parse-only": f"gpulint_parse_only --threads {threads} FILES",
    "pyflakes-2proc": "pyflakes3 HALF1 & pyflakes3 HALF2 & wait  (2 processes, halves of equal bytes)",
    "pyflakes-1proc": "pyflakes3 FILES  (one process: pyflakes has no threads option)",
    "flake8": f"flake8 -j {threads} FILES",
}
tools = {}
for name in commands:
    runs = [tuple(map(float, l.split())) for l in open(f"{name}.times")]
    walls = [w for w, _ in runs]
    cpus = [c for _, c in runs]
    med = statistics.median(walls)
    tools[name] = {
        "command": commands[name],
        "wall_s": walls, "cpu_s": cpus,
        "median_wall_s": med, "min_wall_s": min(walls), "max_wall_s": max(walls),
        "median_cpu_s": statistics.median(cpus),
        "mb_per_s": nbytes / 1e6 / med, "files_per_s": nfiles / med,
        "output_lines": int(open(f"{name}.lines").read()),
    }
g = tools["gpulint"]["median_wall_s"]
ratios = {
    "gpulint_vs_parse_only_throughput": tools["parse-only"]["median_wall_s"] / g,
    "gpulint_vs_pyflakes_2proc_speedup": tools["pyflakes-2proc"]["median_wall_s"] / g,
    "gpulint_vs_pyflakes_1proc_speedup": tools["pyflakes-1proc"]["median_wall_s"] / g,
    "gpulint_vs_flake8_speedup": tools["flake8"]["median_wall_s"] / g,
}
gc = tools["gpulint"]["median_cpu_s"]
cpu_ratios = {
    "gpulint_vs_parse_only_throughput": tools["parse-only"]["median_cpu_s"] / gc,
    "gpulint_vs_pyflakes_2proc_speedup": tools["pyflakes-2proc"]["median_cpu_s"] / gc,
    "gpulint_vs_pyflakes_1proc_speedup": tools["pyflakes-1proc"]["median_cpu_s"] / gc,
    "gpulint_vs_flake8_speedup": tools["flake8"]["median_cpu_s"] / gc,
}
targets = {
    "gpulint_vs_parse_only_throughput": 0.8,
    "gpulint_vs_pyflakes_2proc_speedup": 15.0,
}
machine = {
    "nproc": os.cpu_count(), "cpu": e["cpu"], "mem_gib": round(int(e["mem_kb"]) / 1048576, 1),
    "os": e["os"], "kernel": platform.release(),
    "loadavg_before": e["uptime_before"], "loadavg_after": e["uptime_after"],
    "loadavg_1min_at_each_round": [float(x) for x in open("loads.txt").read().split()],
}
versions = {
    "gpulint": e["gpulint_version"] + " (" + e["git_rev"] + ", " + e["build_type"] + ", " + e["cxx_version"] + ")",
    "tree-sitter": e["ts_versions"],
    "pyflakes": e["pyflakes_version"], "flake8": e["flake8_version"],
}
doc = {
    "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    "tree": e["TREE"], "files": nfiles, "bytes": nbytes, "threads": threads,
    "runs": int(e["RUNS"]), "statistic": "median of the runs, whole-process wall time",
    "machine": machine, "versions": versions, "tools": tools, "ratios": ratios,
    "ratios_by_cpu_time": cpu_ratios,
    "targets": targets,
    "meets_targets": {k: ratios[k] >= v for k, v in targets.items()},
}
out = e["RESULTS"]
json.dump(doc, open(f"{out}/check-vs-peers.json", "w"), indent=2)
open(f"{out}/check-vs-peers.json", "a").write("\n")

L = []
L.append("# gpulint check vs the parse-only limit, pyflakes and flake8")
L.append("")
L.append(f"Generated by `make bench` (bench/run.sh) on {doc['date']}. Tree: `{doc['tree']}`, "
         f"{nfiles} files, {nbytes/1e6:.2f} MB (the files gpulint's discovery picks; every tool "
         f"is given this same list). {threads} threads for every tool. Median of {doc['runs']} "
         f"runs after one warm-up; each round runs every tool once, in turn. Wall time of the whole "
         f"process; CPU is user+sys.")
L.append("")
L.append("| tool | command | median wall s (min–max) | CPU s | MB/s | files/s | gpulint is × faster |")
L.append("| --- | --- | --- | --- | --- | --- | --- |")
for name, t in tools.items():
    speed = g and t["median_wall_s"] / g
    L.append(f"| {name} | `{t['command']}` | {t['median_wall_s']:.3f} ({t['min_wall_s']:.3f}–{t['max_wall_s']:.3f}) "
             f"| {t['median_cpu_s']:.2f} | {t['mb_per_s']:.1f} | {t['files_per_s']:.0f} | {speed:.2f} |")
L.append("")
L.append("| ratio (medians) | by wall time | target | | by CPU time (user+sys) |")
L.append("| --- | --- | --- | --- | --- |")
names = {
    "gpulint_vs_parse_only_throughput": "gpulint throughput / parse-only throughput",
    "gpulint_vs_pyflakes_2proc_speedup": "gpulint vs pyflakes, 2 processes (× faster)",
    "gpulint_vs_pyflakes_1proc_speedup": "gpulint vs pyflakes, 1 process as users run it (× faster)",
    "gpulint_vs_flake8_speedup": "gpulint vs flake8 -j 2 (× faster)",
}
for k, label in names.items():
    tgt = targets.get(k)
    ok = "" if tgt is None else ("met" if ratios[k] >= tgt else "**not met**")
    L.append(f"| {label} | {ratios[k]:.2f} | {'≥ %g' % tgt if tgt else ''} | {ok} | {cpu_ratios[k]:.2f} |")
L.append("")
L.append("pyflakes has no threads option; the 2-process row splits the list into two halves of "
         "equal bytes run in parallel (what the ratio target uses), the 1-process row is how a "
         "user runs it. flake8 runs with its default checks (pycodestyle, pyflakes, mccabe). "
         "gpulint runs every rule. Files whose bytes name no torch-family module (torch, "
         "lightning, transformers, accelerate, timm) cannot import one, so gpulint does not parse "
         "them; on a tree without torch code this measures that pre-check (the common case in a "
         "mixed repository), and for files that do import torch the parse-only row is the limit.")
L.append("")
L.append("Output lines per tool (sanity check): " +
         ", ".join(f"{n} {t['output_lines']}" for n, t in tools.items()) + ".")
L.append("")
L.append("## Machine")
L.append("")
L.append(f"- nproc: {machine['nproc']}; CPU: {machine['cpu']}; RAM: {machine['mem_gib']} GiB")
L.append(f"- OS: {machine['os']}, kernel {machine['kernel']}")
L.append(f"- load average (1, 5, 15 min) before: {machine['loadavg_before']}; after: {machine['loadavg_after']}; "
         f"1-min load at the start of each round: {', '.join(str(x) for x in machine['loadavg_1min_at_each_round'])} "
         f"(it counts this benchmark's own processes, up to 2, as well as other work on the machine; when other work shares the cores, the CPU-time ratios are the steadier ones)")
L.append("")
L.append("## Versions")
L.append("")
for k, v in versions.items():
    L.append(f"- {k}: {v}")
if e.get("micro_json"):
    m = json.load(open(e["micro_json"]))
    rows = {}
    for b in m["benchmarks"]:
        kind, _, inp = b["name"].partition("/")
        rows.setdefault(inp, {})[kind] = b
    L.append("")
    L.append("## Micro-benchmark: analyze_python vs Tree::parse (bench/analyze_bench.cpp)")
    L.append("")
    L.append("One thread, every rule enabled, in-memory text, CPU time per pass over the input "
             "(analyze-bench.json has the raw numbers). These files import torch, so the whole "
             "analysis runs: this is the cost the stdlib run above mostly does not see.")
    L.append("")
    L.append("| input | files | KB | analyze µs | parse µs | analyze MB/s | parse MB/s | parse / analyze |")
    L.append("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for inp, r in rows.items():
        a, p = r.get("Analyze"), r.get("Parse")
        if not a or not p: continue
        def us(b):
            t = b["cpu_time"]; u = b.get("time_unit", "ns")
            return t * {"ns": 1e-3, "us": 1, "ms": 1e3, "s": 1e6}[u]
        L.append(f"| {inp} | {int(a['files'])} | {a['bytes'] / 1024:.1f} | {us(a):.0f} | {us(p):.0f} "
                 f"| {a['bytes'] / us(a):.2f} | {p['bytes'] / us(p):.2f} | {us(p)/us(a):.2f} |")
    doc["micro"] = {inp: {k: {"cpu_time": b["cpu_time"], "time_unit": b.get("time_unit"),
                              "bytes": b["bytes"], "files": b["files"]} for k, b in r.items()}
                    for inp, r in rows.items()}
    json.dump(doc, open(f"{out}/check-vs-peers.json", "w"), indent=2)
    open(f"{out}/check-vs-peers.json", "a").write("\n")
open(f"{out}/check-vs-peers.md", "w").write("\n".join(L) + "\n")
print("\n".join(L))
EOF

