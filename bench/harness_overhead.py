#!/usr/bin/env python3
"""What the `gpulint confirm` harness costs a training run.

Runs SCRIPT alternately as is and with the harness loaded (runtime_check/harness/sitecustomize.py
first on PYTHONPATH, recording every step and never stopping the run), RUNS times each, and
compares the step time the script reports itself: the last "<number> ms/step" it prints (its
last epoch, so start-up and warm-up are left out). Prints a table and writes JSON.

    bench/harness_overhead.py [--python PY] [--runs N] [--json OUT] SCRIPT [-- ARGS...]
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HARNESS = os.path.join(os.path.dirname(HERE), "runtime_check", "harness")
STEP_RE = re.compile(r"([0-9]+(?:\.[0-9]+)?) ms/step")


def one_run(python, script, args, harness, tmp):
    env = dict(os.environ)
    out = None
    if harness:
        out = os.path.join(tmp, "harness.json")
        env["PYTHONPATH"] = HARNESS + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
        env["GPULINT_HARNESS_OUT"] = out
        env["GPULINT_HARNESS_WARMUP"] = "0"
        env["GPULINT_HARNESS_STEPS"] = str(10**9)  # record every step, never end the run early
        env["GPULINT_HARNESS_SCRIPT_DIR"] = os.path.dirname(os.path.abspath(script))
    t0 = time.perf_counter()
    p = subprocess.run([python, script, *args], env=env, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if p.returncode != 0:
        sys.exit(f"{script} exited {p.returncode} ({'with' if harness else 'without'} the harness):\n"
                 + p.stderr[-2000:])
    found = STEP_RE.findall(p.stdout)
    if not found:
        sys.exit(f"{script} printed no '<n> ms/step' line")
    recorded = None
    if harness:
        if not os.path.exists(out):
            sys.exit("the harness wrote no JSON: it did not see the loop")
        with open(out) as f:
            recorded = len(json.load(f).get("steps", []))
        os.remove(out)
    return float(found[-1]), wall, recorded


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--python", default=sys.executable)
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--json")
    ap.add_argument("script")
    ap.add_argument("args", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    args = a.args[1:] if a.args[:1] == ["--"] else a.args
    plain, harnessed, recorded = [], [], []
    with tempfile.TemporaryDirectory(prefix="gpulint-overhead-") as tmp:
        for i in range(a.runs):  # alternate: slow drifts of the machine hit both alike
            for harness in ((False, True) if i % 2 == 0 else (True, False)):
                ms, wall, rec = one_run(a.python, a.script, args, harness, tmp)
                (harnessed if harness else plain).append(ms)
                if rec is not None:
                    recorded.append(rec)
    mp, mh = statistics.median(plain), statistics.median(harnessed)
    result = {
        "script": os.path.basename(a.script),
        "args": args,
        "runs": a.runs,
        "plain_ms_per_step": plain,
        "harness_ms_per_step": harnessed,
        "plain_median_ms": mp,
        "harness_median_ms": mh,
        "overhead": (mh - mp) / mp,
        "plain_spread": (max(plain) - min(plain)) / mp,
        "harness_spread": (max(harnessed) - min(harnessed)) / mh,
        "steps_recorded_per_run": recorded,
    }
    print(f"{result['script']}: plain {mp:.3f} ms/step (spread {100 * result['plain_spread']:.1f}%), "
          f"with harness {mh:.3f} ms/step (spread {100 * result['harness_spread']:.1f}%): "
          f"overhead {100 * result['overhead']:+.2f}%")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(result, f, indent=2)


if __name__ == "__main__":
    main()
