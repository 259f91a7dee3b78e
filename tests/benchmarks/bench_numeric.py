"""Throughput of hw-ieee ``convert`` (with per-element flags) against ml_dtypes / numpy
``astype`` (values only), before (the exact path) and after (the fast paths), in one run.

Run: ``.venv/bin/python tests/benchmarks/bench_numeric.py [--n N] [--repeat R] [--all [--source T]]``.
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

``--all`` times every pair hw-ieee accepts (25 x 25 types, less the E8M0 destinations of
other sources: 603 pairs, integer pairs included) under the TCVT default mode (RTZ into an
integer, else RNE), Sat=0, on both input sets, against ``astype`` between the peer types. Types
without a peer in numpy or ml_dtypes are timed against a stand-in of their width, marked ``~``
(their normal set is FP32's for TF32 and HF32, random encodings for the others):
TF32 and HF32 against float32, HiF8 against float8_e4m3fn, E1M2X2 and HiF4X2 against
float4_e2m1fn. Sources with constrained bits (TF32, HF32, E3M2, E2M3) get valid encodings
only: TCVT legality rejects the others before execution. Each result is checked equal to ``convert._hardware_exact`` (words and flags)
first. Goals (issue 27): 2x on normal inputs, 4x on random encodings; the summary counts the
pairs above them.
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


ALL_PEERS = {"FP64": np.float64, "FP32": np.float32, "FP16": np.float16, "BF16": ml_dtypes.bfloat16,
             "E4M3": ml_dtypes.float8_e4m3fn, "E5M2": ml_dtypes.float8_e5m2, "E3M2": ml_dtypes.float6_e3m2fn,
             "E2M3": ml_dtypes.float6_e2m3fn, "E2M1X2": ml_dtypes.float4_e2m1fn, "E8M0": ml_dtypes.float8_e8m0fnu,
             "S64": np.int64, "S32": np.int32, "S16": np.int16, "S8": np.int8, "S4X2": ml_dtypes.int4,
             "U64": np.uint64, "U32": np.uint32, "U16": np.uint16, "U8": np.uint8, "U4X2": ml_dtypes.uint4}
PEER_TYPES = ALL_PEERS  # the default table's peers
STAND_INS = {"TF32": np.float32, "HF32": np.float32, "HiF8": ml_dtypes.float8_e4m3fn,
             "E1M2X2": ml_dtypes.float4_e2m1fn, "HiF4X2": ml_dtypes.float4_e2m1fn}
GOALS = {"standard normal": 2.0, "random encodings": 4.0}


def peer_type(name):
    return ALL_PEERS.get(name) or STAND_INS[name]


def every_pair(source=None):
    for s in dtypes.ALL:
        if source and s.name != source:
            continue
        for d in dtypes.ALL:
            try:
                conversion.check_pair(s, d, "hw-ieee")
            except conversion.UnsupportedConversion:
                continue
            yield s, d


def carrier_lanes(codes, bits):
    """Encodings as the narrowest unsigned array that holds them (the peer's storage width)."""
    return codes.astype({64: np.uint64, 32: np.uint32, 16: np.uint16}.get(bits, np.uint8))


def all_pairs(args) -> None:
    n = args.n
    rng = np.random.default_rng(2024)
    conversion.use_workers(1)
    normal = rng.standard_normal(n)
    pairs = list(every_pair(args.source))
    print(f"every hw-ieee pair ({len(pairs)}), TCVT default mode, Sat=0; {n:,} elements, best of {args.repeat}, "
          f"one thread, CPU time; ~ marks a stand-in peer type")
    print(f"{'conversion':<24} {'normal ms':>9} {'peer':>6} {'ratio':>6}   {'random ms':>9} {'peer':>6} {'ratio':>6}")
    worst = {title: (0.0, "") for title in GOALS}
    over = {title: [] for title in GOALS}
    checked = 0
    for s, d in pairs:
        mode = "RTZ" if s.is_float and d.is_integer else "RNE"
        cells = []
        for title, goal in GOALS.items():
            src_peer = peer_type(s.name)
            if title == "standard normal" and (s.name in ALL_PEERS or s.name in ("TF32", "HF32")):
                scale = 100.0 if d.is_integer or s.is_integer else 1.0
                with np.errstate(all="ignore"):
                    values = (normal * scale).astype(src_peer)
                bits = carrier_lanes(values.view(f"u{values.dtype.itemsize}"), s.bits)
                if s.must_be_zero:  # TF32/HF32: the FP32 values with the constrained bits cleared
                    bits &= bits.dtype.type(~s.must_be_zero & s.mask)
                    values = bits.view(src_peer)
            else:  # random encodings (and the normal set of a type without a peer: its random encodings)
                bits = carrier_lanes(rng.integers(0, 1 << s.bits, n, dtype=np.uint64), s.bits)
                if s.must_be_zero:  # valid encodings: legality rejects the others before a TCVT runs
                    bits &= bits.dtype.type(~s.must_be_zero & s.mask)
                values = bits.astype(f"u{np.dtype(src_peer).itemsize}").view(src_peer)
            exact = conversion._hardware_exact(conversion.lanes(bits, s.bits), s, d, rounding_mode(mode), False, False) \
                if not (s.is_integer and d.is_integer) else None
            words, flags = convert(bits, s.name, d.name, mode, profile="hw-ieee")
            if exact is not None:
                assert (words == exact[0]).all() and (flags == exact[1]).all(), \
                    f"{s.name}->{d.name} {title}: differs from the exact path"
                checked += n
            ours = best_of(lambda: convert(bits, s.name, d.name, mode, profile="hw-ieee"), args.repeat)
            with np.errstate(all="ignore"):
                peer = best_of(lambda: values.astype(peer_type(d.name)), args.repeat)
            ratio = ours / peer
            if ratio > worst[title][0]:
                worst[title] = (ratio, f"{s.name} -> {d.name}")
            if ratio > goal:
                over[title].append(f"{s.name}->{d.name} {ratio:.1f}x")
            cells.append(f"{ours * 1e3:9.2f} {peer * 1e3:6.2f} {ratio:5.1f}x")
        stand_in = "~" if s.name in STAND_INS or d.name in STAND_INS else " "
        print(f"{s.name + ' -> ' + d.name + ' ' + mode:<23}{stand_in} {cells[0]}   {cells[1]}", flush=True)
    print(f"\n{checked:,} element results checked equal to the exact path (words and flags)")
    for title, goal in GOALS.items():
        ratio, pair = worst[title]
        print(f"{title}: worst {ratio:.1f}x ({pair}); {len(over[title])} of {len(pairs)} pairs above {goal:.0f}x"
              + (": " + ", ".join(over[title]) if over[title] else ""))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=None, help="elements (default 4,000,000; --all: 1,048,576)")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--all", action="store_true", help="every pair hw-ieee accepts")
    parser.add_argument("--source", help="with --all: only the pairs from this source type")
    args = parser.parse_args()
    if args.all:
        args.n = args.n or 1 << 20
        return all_pairs(args)
    n = args.n = args.n or 4_000_000
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
