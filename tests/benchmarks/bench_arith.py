"""Throughput of hw-ieee add, sub, mul, div and sqrt (TADD ... TSQRT element values) on FP32,
FP16, BF16, E4M3 and E5M2: the exact integer kernel (before, ``ieee_float.exact_*``) and the
fast exact path (after: the public ``arith("add", a, b, dtype=..., rounding=...,
profile="hw-ieee")``, which runs ``ieee_float.add`` ... and its fast paths in ``ieee_fast`` and
``ieee_fast32``) in all seven rounding modes, beside the numpy / ml_dtypes peer, in one run.

Run: ``.venv/bin/python tests/benchmarks/bench_arith.py [--n N] [--repeat R] [--types FP32,FP16] [--ops ADD,SQRT]``.
Two input sets: seeded standard-normal values (sqrt: their magnitudes), nearly all
normal with normal results; and uniformly random encodings (every class: NaNs,
infinities, subnormals, overflow, underflow). The peer computes values only, RNE:
FP32 and FP16 natively in numpy (float32, float16 arrays); BF16, E4M3, E5M2 through
float32 and an ml_dtypes ``astype`` (one more rounding); FMA (FP32, FP16, BF16), which
numpy lacks, as binary64 ``a*b + c`` rounded to the type (a double rounding: a speed
peer only, its words are not compared). pto-avs returns the five
flags per element too. Each figure is the best of R runs on one thread (the exact
kernel: one run), CPU time of this process (the machine may be shared); before timing,
the fast RNE result is checked equal to the exact kernel's, words and flags, on every
element (the other modes on the first 65,536), and to the peer's words wherever the peer
is not NaN. The ratios are time / peer time.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import ml_dtypes
import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pto_avs.device_model.numeric import arith, ieee_float  # noqa: E402

MODES = ("RNE", "RTZ", "RTP", "RTM", "RNA", "RTO", "RHB")
TYPES = {"FP32": (np.uint32, np.float32), "FP16": (np.uint16, np.float16), "BF16": (np.uint16, ml_dtypes.bfloat16),
         "E4M3": (np.uint8, ml_dtypes.float8_e4m3fn), "E5M2": (np.uint8, ml_dtypes.float8_e5m2)}
CHECKED = 1 << 16  # elements of the non-RNE runs checked against the exact kernel
OPS = {"ADD": np.add, "SUB": np.subtract, "MUL": np.multiply, "DIV": np.divide, "SQRT": np.sqrt, "FMA": None}
FMA_TYPES = ("FP32", "FP16", "BF16")


def best_of(fn, repeat):
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def peer_function(op, numpy_type):
    if op == "FMA":  # numpy has no fused multiply-add: binary64 a*b + c, rounded to the type
        return lambda a, b, c: (a.astype(np.float64) * b.astype(np.float64) + c.astype(np.float64)).astype(numpy_type)
    ufunc = OPS[op]
    if numpy_type in (np.float32, np.float16):
        return lambda *xs: ufunc(*xs)
    return lambda *xs: ufunc(*(x.astype(np.float32) for x in xs)).astype(numpy_type)


def public(op):
    """The operation through the public entry point, called as the exact kernels are."""
    name = op.lower()
    return lambda *args: arith(name, *args[:-2], dtype=args[-2], rounding=args[-1], profile="hw-ieee")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 20)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--types", default=",".join(TYPES))
    parser.add_argument("--ops", default=",".join(OPS), help="operations to run (default: all)")
    args = parser.parse_args()
    n = args.n
    rng = np.random.default_rng(2024)
    print(f"{n:,} elements per run, best of {args.repeat} (exact kernel: 1 run), one thread; ms, and x the peer's time")
    header = f"{'inputs':<8} {'type':<5} {'op':<5} {'peer':>8} {'exact RNE':>16} " + " ".join(f"{m:>13}" for m in MODES)
    print(header)
    worst = {}
    for type_name in args.types.split(","):
        word, numpy_type = TYPES[type_name]
        normal = [rng.standard_normal(n).astype(numpy_type) for _ in range(2)]
        encodings = [rng.integers(0, np.iinfo(word).max + 1, n, dtype=np.uint64).astype(word).view(numpy_type)
                     for _ in range(2)]
        for title, (x, y) in (("normal", normal), ("random", encodings)):
            for op in args.ops.split(","):
                if op == "FMA" and type_name not in FMA_TYPES:
                    continue
                operands = (np.abs(x),) if (op == "SQRT" and title == "normal") else ((x,) if op == "SQRT" else (x, y))
                if op == "FMA":
                    operands = (x, y, y[::-1].copy())
                bits = [v.view(word) for v in operands]
                peer = peer_function(op, numpy_type)
                with np.errstate(all="ignore"):
                    peer_words = peer(*operands).view(word)
                    t_peer = best_of(lambda: peer(*operands), args.repeat)
                exact = ieee_float.EXACT[op]
                fast = public(op)
                start = time.process_time()
                exact_words, exact_flags = exact(*bits, type_name, "RNE")
                t_exact = time.process_time() - start
                cells = []
                for mode in MODES:
                    words, flags = fast(*bits, type_name, mode)
                    if mode == "RNE":
                        assert (words == exact_words).all() and (flags == exact_flags).all(), f"{type_name} {op} RNE"
                    else:  # the other modes: checked on a prefix (the tests check them in full)
                        prefix = [v[:CHECKED] for v in bits]
                        reference = exact(*prefix, type_name, mode)
                        assert (words[:CHECKED] == reference[0]).all() and (flags[:CHECKED] == reference[1]).all(), \
                            f"{type_name} {op} {mode}"
                    if mode == "RNE" and op != "FMA":  # the FMA peer rounds twice: no equality expected
                        with np.errstate(all="ignore"):
                            peer_nan = np.isnan(peer_words.view(numpy_type).astype(np.float32))
                        assert ((words == peer_words) | peer_nan).all(), f"{type_name} {op}: peer differs"
                    t = best_of(lambda: fast(*bits, type_name, mode), args.repeat)
                    cells.append(f"{t * 1e3:7.1f}{t / t_peer:5.1f}x")
                    key = (title, type_name, op)
                    worst[key] = max(worst.get(key, 0), t / t_peer)
                print(f"{title:<8} {type_name:<5} {op:<5} {t_peer * 1e3:8.2f} {t_exact * 1e3:9.1f}{t_exact / t_peer:6.0f}x "
                      + " ".join(cells), flush=True)
    over = {k: v for k, v in worst.items() if v > 10}
    print(f"\nworst fast/peer ratio over the modes: {max(worst.values()):.1f}x; "
          f"{len(over)} of {len(worst)} (inputs, type, op) rows above 10x in some mode"
          + (": " + ", ".join(f"{' '.join(k)} {v:.1f}x" for k, v in sorted(over.items())) if over else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
