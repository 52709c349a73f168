#!/usr/bin/env python3
"""DEV003's premise, measured: what does `device=` save over creating a tensor on the host and
moving it, per kind of creation?

For each creation, two spellings are timed inside a loop that also queues GPU work (a chain of
matrix products, as a training step does), so a host-device sync shows up as lost overlap:

  moved:   torch.zeros(n).cuda()             torch.tensor(data).to(dev)
  device=: torch.zeros(n, device=dev)        torch.tensor(data, device=dev)

Each iteration: queue the GPU work, create the tensor, consume it on the GPU (x.sum() added to an
accumulator). The time per iteration is the wall time of `--iters` iterations after `--warmup`,
synchronised once at the end; median over `--repeats` rounds, variants interleaved.

Usage: python3 bench/dev003_creation_cost.py [--json OUT] [--iters 300] [--repeats 5]
Needs CUDA; prints one table row per (creation, size, spelling).
"""
import argparse
import json
import statistics
import time

import numpy as np
import torch


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--json")
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--matmul", type=int, default=2048, help="side of the queued matrix products")
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("needs CUDA")
    dev = torch.device("cuda")
    a = torch.randn(args.matmul, args.matmul, device=dev)
    acc = torch.zeros((), device=dev)

    def gpu_work():
        y = a
        for _ in range(4):
            y = y @ a
            y = y / y.norm()
        return y

    cases = {}
    for n in (64, 1 << 20):
        data_list = [float(i % 7) for i in range(n)] if n <= 4096 else None
        data_np = (np.arange(n, dtype=np.float32) % 7)
        cases[("zeros", n)] = (lambda n=n: torch.zeros(n).cuda(), lambda n=n: torch.zeros(n, device=dev))
        cases[("randn", n)] = (lambda n=n: torch.randn(n).to(dev), lambda n=n: torch.randn(n, device=dev))
        cases[("arange", n)] = (lambda n=n: torch.arange(n).to(dev), lambda n=n: torch.arange(n, device=dev))
        cases[("tensor(numpy)", n)] = (lambda d=data_np: torch.tensor(d).to(dev),
                                       lambda d=data_np: torch.tensor(d, device=dev))
        cases[("FloatTensor(numpy) vs tensor(numpy, device=)", n)] = (
            lambda d=data_np: torch.FloatTensor(d).cuda(), lambda d=data_np: torch.tensor(d, device=dev))
        if data_list is not None:
            cases[("tensor(list)", n)] = (lambda d=data_list: torch.tensor(d).to(dev),
                                          lambda d=data_list: torch.tensor(d, device=dev))

    def run(make):
        nonlocal acc
        for _ in range(args.warmup):
            gpu_work()
            acc = acc + make().sum()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(args.iters):
            gpu_work()
            acc = acc + make().sum()
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) / args.iters * 1e3

    baseline = []
    for _ in range(args.repeats):
        baseline.append(run(lambda: acc))
    rows = []
    for (kind, n), (moved, on_dev) in cases.items():
        tm, td = [], []
        for _ in range(args.repeats):
            tm.append(run(moved))
            td.append(run(on_dev))
        m, d = statistics.median(tm), statistics.median(td)
        rows.append({"creation": kind, "elements": n, "moved_ms": m, "device_ms": d,
                     "moved_spread_ms": max(tm) - min(tm), "device_spread_ms": max(td) - min(td),
                     "saved_ms": m - d, "speedup": m / d})
        print(f"{kind:46s} n={n:>8d}  moved {m:8.3f} ms  device= {d:8.3f} ms  saved {m - d:+8.3f} ms  x{m / d:5.2f}",
              flush=True)
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
           "iters": args.iters, "repeats": args.repeats, "matmul": args.matmul,
           "gpu_work_only_ms": statistics.median(baseline), "rows": rows}
    print(f"GPU work alone: {out['gpu_work_only_ms']:.3f} ms/iteration")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
