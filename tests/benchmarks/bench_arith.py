"""Throughput of the hw-ieee FP32 add, multiply and divide kernels (TADD/TMUL/TDIV
element values) against numpy float32 arithmetic at 4,000,000 elements.

Run: ``.venv/bin/python tests/benchmarks/bench_arith.py [--repeat N] [--n N]``.
Two input sets: seeded standard-normal FP32 values (nearly all normal, results
normal) and uniformly random encodings (every class: NaNs, infinities,
subnormals, overflow and underflow). pto-avs rounds with exact integers and
returns the five flags per element as well; numpy returns values only (RNE, its
status is one sticky register for the whole array). Each figure is the best of N
runs on one thread; the results are checked equal (NaN for NaN) before timing.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pto_avs.device_model.numeric import ieee_float  # noqa: E402


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
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--n", type=int, default=4_000_000)
    args = parser.parse_args()
    n = args.n
    rng = np.random.default_rng(2024)
    inputs = [
        ("standard normal", rng.standard_normal(n).astype(np.float32), rng.standard_normal(n).astype(np.float32)),
        ("random encodings", rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32),
         rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32).view(np.float32)),
    ]
    operations = (("TADD", ieee_float.add, np.add), ("TMUL", ieee_float.mul, np.multiply),
                  ("TDIV", ieee_float.div, np.divide))
    print(f"{n:,} FP32 elements, RNE, best of {args.repeat}, one thread; "
          f"pto-avs computes the five flags per element too")
    print(f"{'inputs':<17} {'op':<5} {'pto-avs':>10} {'numpy':>10} {'pto-avs Melem/s':>16} {'numpy Melem/s':>14} {'ratio':>7}")
    with np.errstate(all="ignore"):
        for title, a, b in inputs:
            a_bits, b_bits = a.view(np.uint32), b.view(np.uint32)
            for name, ours, theirs in operations:
                words, _ = ours(a_bits, b_bits, "FP32")
                peer = theirs(a, b)
                same = (words.astype(np.uint32) == peer.view(np.uint32)) | (np.isnan(peer) & np.isnan(
                    words.astype(np.uint32).view(np.float32)))
                assert same.all(), f"{name} on {title}: {int((~same).sum())} results differ from numpy"
                t_ours = best_of(lambda: ours(a_bits, b_bits, "FP32"), args.repeat)
                t_numpy = best_of(lambda: theirs(a, b), args.repeat)
                print(f"{title:<17} {name:<5} {t_ours:>9.3f}s {t_numpy:>9.4f}s {n / t_ours / 1e6:>16.2f} "
                      f"{n / t_numpy / 1e6:>14.1f} {t_ours / t_numpy:>6.0f}x")


if __name__ == "__main__":
    main()
