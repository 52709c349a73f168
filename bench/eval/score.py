#!/usr/bin/env python3
"""Precision and recall of gpulint on real public training scripts, against hand labels.

The scripts themselves are not in this repository (their licences are their authors'):
labels.json names each one by repository, path and commit, and gives the expected
(line, code) findings. Put the files in a directory (CORPUS) under the names labels.json uses,
then run:

    bench/eval/score.py --gpulint build/gpulint --corpus CORPUS [--labels bench/eval/labels.json]

A diagnostic matches a label with the same file, code and line. Rule groups are scored as the
issue defines them: DL001, DL002, DEV (DEV001-DEV003 together) and MEM001.
"""
import argparse
import collections
import json
import os
import subprocess
import sys

GROUPS = {"DL001": "DL001", "DL002": "DL002", "DEV001": "DEV", "DEV002": "DEV", "DEV003": "DEV",
          "MEM001": "MEM001"}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--gpulint", default="build/gpulint")
    ap.add_argument("--corpus", required=True)
    ap.add_argument("--labels", default=os.path.join(os.path.dirname(__file__), "labels.json"))
    ap.add_argument("--json", help="write the scores here")
    ap.add_argument("-v", "--verbose", action="store_true", help="list every false positive and negative")
    args = ap.parse_args()

    labels = json.load(open(args.labels))["files"]
    files = [os.path.join(args.corpus, f["file"]) for f in labels if os.path.exists(os.path.join(args.corpus, f["file"]))]
    missing = [f["file"] for f in labels if not os.path.exists(os.path.join(args.corpus, f["file"]))]
    if missing:
        print(f"warning: {len(missing)} labelled files are not in {args.corpus}", file=sys.stderr)
    out = subprocess.run([args.gpulint, "check", "--output-format", "json", "--exit-zero", "--select",
                          ",".join(GROUPS), *files], capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stderr, file=sys.stderr)
        sys.exit(2)
    got = set()
    for d in json.loads(out.stdout or "[]"):
        got.add((os.path.basename(d["filename"]), d["location"]["row"], d["code"]))
    want = set()
    for f in labels:
        if f["file"] in missing:
            continue
        for l in f["labels"]:
            want.add((f["file"], l["line"], l["code"]))

    tp = collections.Counter(); fp = collections.Counter(); fn = collections.Counter()
    for g in got:
        (tp if g in want else fp)[GROUPS[g[2]]] += 1
    for w in want:
        if w not in got:
            fn[GROUPS[w[2]]] += 1
    scores = {}
    print(f"{len(files)} files, {len(want)} labels, {len(got)} diagnostics")
    print(f"{'group':8} {'TP':>4} {'FP':>4} {'FN':>4} {'precision':>10} {'recall':>8}")
    for g in ["DL001", "DL002", "DEV", "MEM001"]:
        p = tp[g] / (tp[g] + fp[g]) if tp[g] + fp[g] else None
        r = tp[g] / (tp[g] + fn[g]) if tp[g] + fn[g] else None
        scores[g] = {"tp": tp[g], "fp": fp[g], "fn": fn[g], "precision": p, "recall": r}
        fmt = lambda x: "n/a" if x is None else f"{x:.3f}"
        print(f"{g:8} {tp[g]:4} {fp[g]:4} {fn[g]:4} {fmt(p):>10} {fmt(r):>8}")
    if args.verbose:
        for g in sorted(got - want):
            print("FP", *g)
        for w in sorted(want - got):
            print("FN", *w)
    if args.json:
        json.dump({"files": len(files), "labels": len(want), "scores": scores}, open(args.json, "w"), indent=2)


if __name__ == "__main__":
    main()
