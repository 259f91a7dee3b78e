"""The least work a result of the API's shape needs, beside the peer the goals of issue 27
are stated against, and beside pto-avs, in one run.

Run: ``.venv/bin/python tests/benchmarks/bench_floor.py [--n N] [--repeat R]``.
``convert`` and ``arith`` return a uint64 word and a uint8 flag byte per element; the
peers (numpy, ml_dtypes ``astype`` and float32 arithmetic) return one value of the
destination's width and no flags. Whatever computes the words, it has to write them, and
a flag that depends on the data costs at least one pass that reads it. The ``floor``
rows time only those steps, with numpy on arrays made once (no allocation inside the
loop): a floor above a goal means no numpy implementation of this API can meet it.

- float -> integer (goal 2x): the 64-bit words alone (``astype(int64)``, which is also the
  conversion itself for values in range), then those words plus NX (``trunc`` and one
  compare), the range checks and the NV flag left out;
- FP32 add, RNE (goal 10x): the sum, TwoSum's five further operations for the residual,
  NX from it, and the words, in blocks of 2**15 lanes as ``ieee_fast32`` runs them; OF,
  NV, UF, the other modes and the special lanes left out.

Each figure is the best of R runs, CPU time, one thread (``PTO_AVS_CONVERT_THREADS=1``).
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

os.environ.setdefault("PTO_AVS_CONVERT_THREADS", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import numpy as np  # noqa: E402

from bench_numeric import best_of  # noqa: E402  (this script's folder is on sys.path)
from pto_avs.device_model.numeric import arith, convert  # noqa: E402  (imports the allocator tuning too)

BLOCK = 1 << 15
INTEGERS = {"S32": np.int32, "S16": np.int16, "S8": np.int8, "U32": np.uint32, "U16": np.uint16, "U8": np.uint8}


def row(name, peer, floor, ours, goal):
    print(f"{name:<28} {peer * 1e3:8.3f} {floor * 1e3:8.3f} {floor / peer:6.1f}x {ours * 1e3:8.3f} {ours / peer:6.1f}x {goal:5.0f}x")


def float_to_integer(n, repeat, rng):
    v = (rng.standard_normal(n) * 100).astype(np.float32)
    bits = v.view(np.uint32)
    words, whole = np.empty(n, np.int64), np.empty(n, np.float32)
    nx = np.empty(n, bool)

    def words_and_nx():
        np.copyto(words, v, casting="unsafe")
        np.trunc(v, out=whole)
        np.not_equal(whole, v, out=nx)

    with np.errstate(all="ignore"):
        for name, peer_type in INTEGERS.items():
            peer = best_of(lambda: v.astype(peer_type), repeat)
            alone = best_of(lambda: np.copyto(words, v, casting="unsafe"), repeat)
            floor = best_of(words_and_nx, repeat)
            ours = best_of(lambda: convert(bits, "FP32", name, rounding="RTZ", profile="hw-ieee"), repeat)
            row(f"FP32 -> {name} RTZ, words", peer, alone, ours, 2)
            row(f"FP32 -> {name} RTZ, words+NX", peer, floor, ours, 2)


def fp32_add(n, repeat, rng):
    a, b = (rng.standard_normal(n).astype(np.float32) for _ in range(2))
    c, t, r = (np.empty(BLOCK, np.float32) for _ in range(3))
    words, nx = np.empty(n, np.uint64), np.empty(n, bool)

    def floor():
        for first in range(0, n, BLOCK):
            x, y = a[first:first + BLOCK], b[first:first + BLOCK]
            k = x.size
            cc, tt, rr = c[:k], t[:k], r[:k]
            np.add(x, y, out=cc)
            np.subtract(cc, x, out=tt)
            np.subtract(cc, tt, out=rr)
            np.subtract(x, rr, out=rr)
            np.subtract(y, tt, out=tt)
            np.add(rr, tt, out=rr)
            np.not_equal(rr, 0, out=nx[first:first + k])
            np.copyto(words[first:first + k], cc.view(np.uint32))

    peer = best_of(lambda: a + b, repeat)
    wa, wb = a.view(np.uint32), b.view(np.uint32)
    ours = best_of(lambda: arith("add", wa, wb, dtype="FP32", rounding="RNE", profile="hw-ieee"), repeat)
    row("FP32 add RNE", peer, best_of(floor, repeat), ours, 10)


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=1 << 18, help="elements (default 262144)")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    rng = np.random.default_rng(2026)
    print(f"{args.n:,} standard-normal elements (x100 for the integer pairs), best of {args.repeat}, CPU time, one thread; ms")
    print(f"{'':<28} {'peer':>8} {'floor':>8} {'':>7} {'pto-avs':>8} {'':>7} {'goal':>6}")
    float_to_integer(args.n, args.repeat, rng)
    fp32_add(args.n * 4, args.repeat, rng)


if __name__ == "__main__":
    main()
