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
import json
import statistics

import numpy as np
import torch

import gpu_step


def main():
    args = gpu_step.arguments(__doc__).parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("needs CUDA")
    dev = torch.device("cuda")
    timer = gpu_step.StepTimer(dev, args.matmul, args.iters, args.warmup)

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

    baseline = []
    for _ in range(args.repeats):
        baseline.append(timer.time(lambda: timer.acc))
    rows = []
    for (kind, n), (moved, on_dev) in cases.items():
        tm, td = [], []
        for _ in range(args.repeats):
            tm.append(timer.time(moved))
            td.append(timer.time(on_dev))
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
