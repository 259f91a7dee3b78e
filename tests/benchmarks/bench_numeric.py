"""Throughput of hw-ieee ``convert`` (RNE, with per-element flags) against
ml_dtypes ``astype`` (values only) at 4,000,000 elements.

Run: ``.venv/bin/python tests/benchmarks/bench_numeric.py [--repeat N]``.
Inputs: seeded standard-normal FP32 values (and their BF16 rounding for the
E8M0 case). Each figure is the best of N runs (the machine is shared).
pto-avs splits arrays of several blocks over worker threads (one per core, at
most four; numpy releases the GIL inside each operation); ml_dtypes ``astype``
runs on one thread. The header line prints the worker count.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from device_model.numeric import convert  # noqa: E402
from device_model.numeric.convert import WORKERS  # noqa: E402

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
    fp32 = rng.standard_normal(N).astype(np.float32)
    bf16 = fp32.astype(ml_dtypes.bfloat16)
    cases = [
        ("FP32 -> FP16", fp32.view(np.uint32), "FP32", "FP16", fp32, np.float16),
        ("FP32 -> BF16", fp32.view(np.uint32), "FP32", "BF16", fp32, ml_dtypes.bfloat16),
        ("FP32 -> E4M3", fp32.view(np.uint32), "FP32", "E4M3", fp32, ml_dtypes.float8_e4m3fn),
        ("BF16 -> E8M0", bf16.view(np.uint16), "BF16", "E8M0", bf16, ml_dtypes.float8_e8m0fnu),
    ]
    print(f"{N:,} elements, RNE, best of {args.repeat}; pto-avs computes the five flags per element too "
          f"({WORKERS} worker thread{'s' if WORKERS > 1 else ''}; ml_dtypes 1)")
    print(f"{'conversion':<14} {'pto-avs Melem/s':>16} {'ml_dtypes Melem/s':>18} {'slowdown':>9}")
    for label, bits, src, dst, values, mtype in cases:
        ours = best_of(lambda: convert(bits, src, dst, "RNE", profile="hw-ieee"), args.repeat)
        peer = best_of(lambda: values.astype(mtype), args.repeat)
        print(f"{label:<14} {N / ours / 1e6:>16.1f} {N / peer / 1e6:>18.1f} {ours / peer:>8.2f}x")


if __name__ == "__main__":
    main()
