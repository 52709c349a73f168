"""The timing harness the DEV003 cost benchmarks share (bench/dev003_creation_cost.py,
bench/dev003_replay_cost.py): a stand-in for a training step's GPU work, and a loop that times
one way of making a tensor beside it.

A host-device sync in the measured code shows up as lost overlap with the queued GPU work, which
is what DEV003 is about.
"""
import argparse
import time

import torch


def arguments(doc):
    """The options every DEV003 cost benchmark takes: --json OUT, --iters, --warmup, --repeats,
    --matmul (the side of the queued matrix products)."""
    ap = argparse.ArgumentParser(description=doc)
    ap.add_argument("--json")
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--warmup", type=int, default=30)
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--matmul", type=int, default=2048, help="side of the queued matrix products")
    return ap


class StepTimer:
    """Times `make()` beside a training step's worth of queued GPU work: four side x side matrix
    products with a normalisation each. `time(make)` gives milliseconds per iteration: the wall
    time of `iters` iterations after `warmup`, synchronised once at the end; each iteration queues
    the GPU work, calls `make()` and consumes its tensor on the GPU (its sum added to an accumulator)."""

    def __init__(self, dev, side, iters, warmup):
        self.a = torch.randn(side, side, device=dev)
        self.acc = torch.zeros((), device=dev)
        self.iters, self.warmup = iters, warmup

    def gpu_work(self):
        y = self.a
        for _ in range(4):
            y = y @ self.a
            y = y / y.norm()
        return y

    def time(self, make):
        for _ in range(self.warmup):
            self.gpu_work()
            self.acc = self.acc + make().sum()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(self.iters):
            self.gpu_work()
            self.acc = self.acc + make().sum()
        torch.cuda.synchronize()
        return (time.perf_counter() - t0) / self.iters * 1e3
