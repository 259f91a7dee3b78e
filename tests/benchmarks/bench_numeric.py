"""Throughput of hw-ieee ``convert`` (RNE, with per-element flags) against
ml_dtypes ``astype`` (values only) at 4,000,000 elements.

Run: ``.venv/bin/python tests/benchmarks/bench_numeric.py [--repeat N]``.
Two input sets: seeded standard-normal FP32 values (and their BF16 rounding for
the E8M0 case), where nearly every element takes the fast path, and uniformly
random encodings (every class: half the FP32 values overflow FP16, NaNs,
subnormals), where more elements take the exact general path. pto-avs runs
with its worker threads (one per core, at most four) and again with one thread;
ml_dtypes ``astype`` runs on one thread. Each figure is the best of N runs.
"""
from __future__ import annotations

import argparse
import importlib
import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pto_avs.device_model.numeric import convert  # noqa: E402
conversion = importlib.import_module("pto_avs.device_model.numeric.convert")  # the module (the package exports the function)

N = 4_000_000


def best_of(fn, repeat):
    fn()  # warm-up
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    args = parser.parse_args()
    rng = np.random.default_rng(2024)
    normal32 = rng.standard_normal(N).astype(np.float32)
    random32 = rng.integers(0, 1 << 32, N, dtype=np.uint64).astype(np.uint32).view(np.float32)
    random16 = rng.integers(0, 1 << 16, N, dtype=np.uint64).astype(np.uint16).view(ml_dtypes.bfloat16)
    inputs = [
        ("standard normal", normal32, normal32.astype(ml_dtypes.bfloat16)),
        ("random encodings", random32, random16),
    ]
    threads = conversion.WORKERS
    print(f"{N:,} elements, RNE, best of {args.repeat}; pto-avs computes the five flags per element too; "
          f"pto-avs on {threads} thread(s) and on 1, ml_dtypes on 1")
    for title, fp32, bf16 in inputs:
        cases = [
            ("FP32 -> FP16", fp32, "FP32", "FP16", np.float16),
            ("FP32 -> BF16", fp32, "FP32", "BF16", ml_dtypes.bfloat16),
            ("FP32 -> E4M3", fp32, "FP32", "E4M3", ml_dtypes.float8_e4m3fn),
            ("BF16 -> E8M0", bf16, "BF16", "E8M0", ml_dtypes.float8_e8m0fnu),
        ]
        print(f"\ninputs: {title}")
        print(f"{'':<14} {'Melem/s':^36} {'slowdown vs ml_dtypes':^22}")
        print(f"{'conversion':<14} {f'pto-avs x{threads}':>12}{'pto-avs x1':>12}{'ml_dtypes':>12}"
              f" {f'x{threads}':>11}{'x1':>11}")
        for label, values, src, dst, mtype in cases:
            bits = values.view(np.uint32 if src == "FP32" else np.uint16)
            run = lambda: convert(bits, src, dst, "RNE", profile="hw-ieee")  # noqa: E731
            conversion.use_workers(threads)
            ours = best_of(run, args.repeat)
            conversion.use_workers(1)
            single = best_of(run, args.repeat)
            conversion.use_workers(threads)
            with np.errstate(all="ignore"):
                peer = best_of(lambda: values.astype(mtype), args.repeat)
            print(f"{label:<14} {N / ours / 1e6:>12.1f}{N / single / 1e6:>12.1f}{N / peer / 1e6:>12.1f}"
                  f" {ours / peer:>10.2f}x{single / peer:>10.2f}x")


if __name__ == "__main__":
    main()
