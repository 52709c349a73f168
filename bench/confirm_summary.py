#!/usr/bin/env python3
"""Summarises the confirm-<fixture>-pass<N>.json files of bench/confirm_gpu.sh into one JSON:
per fixture and finding, the verdict of every pass (are they the same?), the speedups or the
memory growth per step, and the baseline/fixed medians. Usage: confirm_summary.py DIR > OUT"""
import glob
import json
import os
import re
import sys


def main():
    d = sys.argv[1]
    fixtures = {}
    meta = None
    for path in sorted(glob.glob(os.path.join(d, "confirm-*-pass*.json"))):
        m = re.match(r"confirm-(.+)-pass(\d+)\.json$", os.path.basename(path))
        name, n = m.group(1), int(m.group(2))
        with open(path) as f:
            r = json.load(f)
        if meta is None or (meta["device"].get("device") != "cuda" and r["device"].get("device") == "cuda"):
            meta = {"gpulint": r["tool"]["version"], "device": r["device"],
                    "gpus": r["gpu_sampling"]["gpus"], "nvml": r["gpu_sampling"]["nvml"],
                    "machine": r["machine"], "options": r["options"]}
        variants = {v["name"]: v.get("stats", {}) for v in r["variants"]}
        fx = fixtures.setdefault(name, {"script": r["script"], "findings": {}})
        for f in r["findings"]:
            key = f"{f['code']}:{f['line']}"
            entry = fx["findings"].setdefault(key, {"passes": []})
            fixed = variants.get(f["variant"], {}) if f["variant"] else {}
            base = variants.get("baseline", {})
            entry["passes"].append({
                "pass": n,
                "verdict": f["verdict"],
                "reason": (f["judgement"] or {}).get("reason") or f["skipped"],
                "speedup": (f["judgement"] or {}).get("speedup"),
                "baseline_median_step_s": base.get("median_step_s"),
                "fixed_median_step_s": fixed.get("median_step_s"),
                "baseline_data_wait_share": base.get("data_wait_share"),
                "fixed_data_wait_share": fixed.get("data_wait_share"),
                "baseline_gpu_util_median": base.get("gpu_util_median"),
                "fixed_gpu_util_median": fixed.get("gpu_util_median"),
                "baseline_memory_growth": base.get("memory_growth_bytes_per_step"),
                "fixed_memory_growth": fixed.get("memory_growth_bytes_per_step"),
                "baseline_host_memory_growth": base.get("host_memory_growth_bytes_per_step"),
                "fixed_host_memory_growth": fixed.get("host_memory_growth_bytes_per_step"),
                "memory_source": base.get("memory_source"),
                "errors": r["errors"],
            })
    for fx in fixtures.values():
        for e in fx["findings"].values():
            e["passes"].sort(key=lambda p: p["pass"])
            verdicts = [p["verdict"] for p in e["passes"]]
            e["verdicts"] = verdicts
            e["stable"] = len(set(verdicts)) == 1
            speedups = [p["speedup"] for p in e["passes"] if p["speedup"] is not None]
            if speedups:
                e["speedup_min"], e["speedup_max"] = min(speedups), max(speedups)
    overhead = None
    op = os.path.join(d, "harness-overhead.json")
    if os.path.exists(op):
        with open(op) as f:
            overhead = json.load(f)
    json.dump({"meta": meta, "fixtures": fixtures, "harness_overhead": overhead}, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main()
