#!/usr/bin/env python3
"""The advice DEV003 gives for conversions of host data, measured: "keep the data on the GPU".

An off-policy update samples a batch from a replay buffer every step. Three ways to get it to the
GPU, timed inside a loop that also queues GPU work (a chain of matrix products, as the update's
forward/backward does), so a host-device sync shows up as lost overlap:

  host:    idx = np.random.randint(...); torch.tensor(buf[idx]).to(dev)      (what DEV003 reports)
  pinned:  the same gather into a pinned staging tensor, then .to(dev, non_blocking=True)
  gpu:     the buffer lives on the GPU; idx = torch.randint(..., device=dev); gpu_buf[idx]

for a vector observation (8 floats, batch 256) and an image one (4x84x84 uint8, batch 32). Each
variant's time per iteration is the wall time of `--iters` iterations after `--warmup`,
synchronised once at the end; median over `--repeats` rounds, variants interleaved.

Usage: python3 bench/dev003_replay_cost.py [--json OUT] [--iters 300] [--repeats 5]
Needs CUDA.
"""
import json
import statistics

import numpy as np
import torch

import gpu_step


def main():
    ap = gpu_step.arguments(__doc__)
    ap.add_argument("--capacity", type=int, default=100_000)
    args = ap.parse_args()
    if not torch.cuda.is_available():
        raise SystemExit("needs CUDA")
    dev = torch.device("cuda")
    timer = gpu_step.StepTimer(dev, args.matmul, args.iters, args.warmup)
    rng = np.random.default_rng(0)

    cases = {}
    for name, shape, dtype, batch in (("vector obs 8 x float32", (8,), np.float32, 256),
                                      ("image obs 4x84x84 x uint8", (4, 84, 84), np.uint8, 32)):
        cap = args.capacity if dtype == np.float32 else 20_000
        host = (rng.random((cap,) + shape) * 255).astype(dtype)
        pinned_stage = torch.empty((batch,) + shape, dtype=torch.from_numpy(host[:1]).dtype).pin_memory()
        host_t = torch.from_numpy(host)
        gpu_buf = torch.from_numpy(host).to(dev)

        def host_variant(host=host, cap=cap, batch=batch):
            idx = rng.integers(0, cap, batch)
            return torch.tensor(host[idx]).to(dev)

        def pinned_variant(host_t=host_t, stage=pinned_stage, cap=cap, batch=batch):
            idx = torch.from_numpy(rng.integers(0, cap, batch))
            torch.index_select(host_t, 0, idx, out=stage)
            return stage.to(dev, non_blocking=True)

        def gpu_variant(gpu_buf=gpu_buf, cap=cap, batch=batch):
            idx = torch.randint(0, cap, (batch,), device=dev)
            return gpu_buf[idx]

        cases[name] = {"host": host_variant, "pinned": pinned_variant, "gpu": gpu_variant}

    zero = torch.zeros((), device=dev)
    results = {"gpu work alone": statistics.median(timer.time(lambda: zero) for _ in range(args.repeats))}
    rows = []
    for name, variants in cases.items():
        samples = {k: [] for k in variants}
        for _ in range(args.repeats):
            for k, fn in variants.items():
                samples[k].append(timer.time(fn))
        med = {k: statistics.median(v) for k, v in samples.items()}
        rows.append({"case": name, **{f"{k}_ms": round(v, 4) for k, v in med.items()}})
        print(f"{name}: " + ", ".join(f"{k} {v:.3f} ms/iter" for k, v in med.items()), flush=True)
    out = {"device": torch.cuda.get_device_name(0), "torch": torch.__version__, "cuda": torch.version.cuda,
           "iters": args.iters, "repeats": args.repeats, "matmul": args.matmul,
           "gpu_work_alone_ms": round(results["gpu work alone"], 4), "rows": rows}
    print(json.dumps(out, indent=1))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)


if __name__ == "__main__":
    main()
