"""Throughput of hw-ieee ``convert`` (with per-element flags) against ml_dtypes / numpy
``astype`` (values only), before (the exact path) and after (the fast paths), in one run.

Run: ``.venv/bin/python tests/benchmarks/bench_numeric.py [--n N] [--repeat R]``.
Two input sets: seeded standard-normal values (scaled by 100 for the integer
destinations; and their BF16/FP16 roundings for 16-bit sources), where nearly every
element is a normal number in range, and uniformly random encodings (every class:
NaNs, infinities, subnormals, overflow), where more elements take exact paths.
Pairs: the narrowing kernel's (FP32 -> FP16, BF16, E4M3), the tables of 16-bit sources
(BF16 -> FP32, FP16 -> FP32, BF16 -> E4M3, FP16 -> S16 RTZ), FP32 -> FP64, FP32 -> S8
and S32 (RTZ), and BF16 -> E8M0. "before" is ``convert._hardware_exact`` (no table, no
shortcut of ``convert_fast``; the narrowing kernel stays), "after" is ``convert``;
both on one thread (``PTO_AVS_CONVERT_THREADS``: [numerics.md](../../docs/numerics.md)),
as is the peer. CPU time, best of R runs (before: one); results are checked equal to
the exact path, words and flags, before timing. Ratios are time / peer time.
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

from pto_avs.device_model import dtypes  # noqa: E402
from pto_avs.device_model.numeric import convert  # noqa: E402
from pto_avs.device_model.numeric.rounding import rounding_mode  # noqa: E402

conversion = importlib.import_module("pto_avs.device_model.numeric.convert")  # the module (the package exports the function)

PEER_TYPES = {"FP32": np.float32, "FP64": np.float64, "FP16": np.float16, "BF16": ml_dtypes.bfloat16,
              "E4M3": ml_dtypes.float8_e4m3fn, "E8M0": ml_dtypes.float8_e8m0fnu, "S8": np.int8, "S16": np.int16,
              "S32": np.int32}
WORD = {32: np.uint32, 16: np.uint16}
CASES = [("FP32", "FP16", "RNE"), ("FP32", "BF16", "RNE"), ("FP32", "E4M3", "RNE"), ("BF16", "FP32", "RNE"),
         ("FP16", "FP32", "RNE"), ("BF16", "E4M3", "RNE"), ("FP16", "S16", "RTZ"), ("FP32", "FP64", "RNE"),
         ("FP32", "S8", "RTZ"), ("FP32", "S32", "RTZ"), ("BF16", "E8M0", "RNE")]


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=4_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    n = args.n
    rng = np.random.default_rng(2024)
    conversion.use_workers(1)
    normal = rng.standard_normal(n)
    print(f"{n:,} elements, best of {args.repeat} (before: 1 run), one thread, CPU time; "
          f"pto-avs computes the five flags per element too")
    for title in ("standard normal", "random encodings"):
        print(f"\ninputs: {title}")
        print(f"{'conversion':<18} {'before ms':>10} {'after ms':>9} {'peer ms':>8} {'before/peer':>12} {'after/peer':>11}")
        for src, dst, mode in CASES:
            s, d = dtypes.dtype(src), dtypes.dtype(dst)
            word = WORD[s.bits]
            if title == "standard normal":
                scale = 100.0 if d.is_integer else 1.0
                values = (normal * scale).astype(PEER_TYPES[src])
            else:
                values = rng.integers(0, 1 << s.bits, n, dtype=np.uint64).astype(word).view(PEER_TYPES[src])
            bits = values.view(word)
            start = time.process_time()
            exact = conversion._hardware_exact(bits, s, d, rounding_mode(mode), False, False)
            before = time.process_time() - start
            words, flags = convert(bits, src, dst, mode, profile="hw-ieee")
            assert (words == exact[0]).all() and (flags == exact[1]).all(), f"{src}->{dst} differs from the exact path"
            after = best_of(lambda: convert(bits, src, dst, mode, profile="hw-ieee"), args.repeat)
            with np.errstate(all="ignore"):
                peer = best_of(lambda: values.astype(PEER_TYPES[dst]), args.repeat)
            label = f"{src} -> {dst}" + (f" {mode}" if mode != "RNE" else "")
            print(f"{label:<18} {before * 1e3:10.1f} {after * 1e3:9.1f} {peer * 1e3:8.1f} {before / peer:11.1f}x "
                  f"{after / peer:10.1f}x", flush=True)


if __name__ == "__main__":
    main()
