"""Exhaustive binary campaigns on the golden model's element arithmetic.

    pto-avs exhaustive [--campaign fp16|bf16|fp8 ...] [--limit N] [--out DIR] [--reproducers K]

- ``fp16``, ``bf16``: every FP16 x FP16 and BF16 x BF16 operand pair (2**32 each) of
  add and mul under RNE, the golden model (``numeric.arith``, hw-ieee) against
  numpy's own float16 arithmetic and float32 arithmetic rounded once more by
  ml_dtypes (BF16): exact, as 24 >= 2p + 2 (p = 11, 8) excludes a double
  rounding. Compared per element: the word (any NaN for any NaN: the peer keeps
  payloads, the profile gives its canonical NaN), NV and OF, and NX where binary64
  holds the exact result (FP16 add and mul, BF16 mul); UF is not compared here.
- ``fp8``: every E4M3 and E5M2 operand pair of add, sub, mul and div, and every
  operand of sqrt, under each of the seven rounding modes, against the independent
  element reference ``vectors/reference/arithmetic.py`` (exact rationals, no code
  shared with the model), words and all five flags.

The first ``--reproducers`` disagreements of each campaign and operation become
reproducer vectors in ``--out`` (default ``exhaustive-out/``) exactly as
``pto-avs fuzz`` writes them (``avs.campaigns.reproducer``): the disagreeing pairs in
one tile operation, expectations the golden model's, labelled so (a tile operation
rounds under RNE: a disagreement under another mode is named, with both results, in
the reproducer's description and on stdout). ``--limit N``
checks N pairs per campaign, operation and mode (an even sample of the first
operands), for a quick run. Prints, per campaign and operation, the pairs checked,
the disagreements and the CPU seconds; exit 0 without disagreement, 1 with.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

DESCRIPTION = ("exhaustive element campaigns: every FP16/BF16 pair of add and mul (RNE) against numpy/ml_dtypes, "
               "every FP8 pair in seven modes against the independent reference; reproducers")
DEFAULT_OUT = Path("exhaustive-out")
CAMPAIGNS = ("fp16", "bf16", "fp8")
MODES = ("RNE", "RTZ", "RTP", "RTM", "RNA", "RTO", "RHB")
ROWS = 64  # first operands per block of the 16-bit campaigns (64 x 65,536 pairs)
TILE_OPERATION = {"add": "TADD", "sub": "TSUB", "mul": "TMUL", "div": "TDIV", "sqrt": "TSQRT"}
FLAG_NV, FLAG_OF, FLAG_NX = 0x01, 0x04, 0x10


def golden(op, dtype, mode, *operands):
    """The golden model's element values: the public ``arith`` (hw-ieee)."""
    from ...device_model.numeric import arith

    return arith(op, *operands, dtype=dtype, rounding=mode, profile="hw-ieee")


# ----------------------------------------------------------------------------- 16-bit campaigns


def _peer_16(op, dtype, a, b):
    """numpy / ml_dtypes words and the flags they determine (mask of compared flags)."""
    import ml_dtypes

    numpy_type = np.float16 if dtype == "FP16" else ml_dtypes.bfloat16
    x, y = a.view(numpy_type), b.view(numpy_type)
    with np.errstate(all="ignore"):
        if dtype == "FP16":
            value = (x + y) if op == "add" else (x * y)
        else:
            wide = (x.astype(np.float32) + y.astype(np.float32)) if op == "add" else (
                x.astype(np.float32) * y.astype(np.float32))
            value = wide.astype(numpy_type)
        x64, y64 = x.astype(np.float64), y.astype(np.float64)
        exact = (x64 + y64) if op == "add" else (x64 * y64)
        result = value.astype(np.float64)
    operand_nan = np.isnan(x64) | np.isnan(y64)
    fraction = 0x3FF if dtype == "FP16" else 0x7F
    quiet = 0x200 if dtype == "FP16" else 0x40
    exponent = 0x7C00 if dtype == "FP16" else 0x7F80

    def signalling(w):
        return ((w & exponent) == exponent) & ((w & fraction) != 0) & ((w & quiet) == 0)

    nan = np.isnan(result)
    nv = (nan & ~operand_nan) | signalling(a) | signalling(b)
    of = np.isinf(result) & np.isfinite(x64) & np.isfinite(y64)
    flags = np.where(nv, FLAG_NV, 0) | np.where(of, FLAG_OF | FLAG_NX, 0)
    compared = FLAG_NV | FLAG_OF
    if dtype == "FP16" or op == "mul":  # binary64 holds the exact result
        flags |= np.where(np.isfinite(exact) & (result != exact), FLAG_NX, 0)
        compared |= FLAG_NX
    return value.view(np.uint16).astype(np.uint64), flags.astype(np.uint8), compared, nan


def _campaign_16(dtype, op, limit, found):
    every = np.arange(1 << 16, dtype=np.uint16)
    firsts = every if limit is None else every[:: max(1, (1 << 16) // max(1, -(-limit // (1 << 16))))]
    checked = 0
    for start in range(0, firsts.size, ROWS):
        rows = firsts[start:start + ROWS]
        a = np.repeat(rows, every.size)
        b = np.tile(every, rows.size)
        if limit is not None and checked + a.size > limit:
            a, b = a[:limit - checked], b[:limit - checked]
        words, flags = golden(op, dtype, "RNE", a, b)
        peer_words, peer_flags, compared, peer_nan = _peer_16(op, dtype, a, b)
        ours_nan = np.isnan(_as_float(words, dtype))
        wrong = ~((words == peer_words) | (ours_nan & peer_nan)) | ((flags & compared) != (peer_flags & compared))
        for i in np.flatnonzero(wrong)[:8]:
            found.append(((int(a[i]), int(b[i])), int(words[i]), int(flags[i]),
                          f"peer {int(peer_words[i]):#06x} flags {int(peer_flags[i]) & compared:#04x} "
                          f"(compared {compared:#04x})"))
        checked += a.size
        if limit is not None and checked >= limit:
            break
    return checked


def _as_float(words, dtype):
    import ml_dtypes

    if dtype == "FP16":
        return words.astype(np.uint16).view(np.float16).astype(np.float32)
    return words.astype(np.uint16).view(ml_dtypes.bfloat16).astype(np.float32)


# ----------------------------------------------------------------------------- FP8


def _campaign_fp8(dtype, op, mode, limit, found):
    from ...vectors.reference import arithmetic as reference

    if op == "sqrt":
        operands = (np.arange(256, dtype=np.uint8),)
    else:
        codes = np.arange(1 << 16, dtype=np.uint32)
        operands = ((codes >> 8).astype(np.uint8), (codes & 0xFF).astype(np.uint8))
    if limit is not None:
        operands = tuple(o[:limit] for o in operands)
    words, flags = golden(op, dtype, mode, *operands)
    function = getattr(reference, op)
    for i, pair in enumerate(zip(*(o.tolist() for o in operands))):
        expected = function(dtype, *pair, mode)
        if (int(words[i]), int(flags[i])) != expected:
            found.append((pair, int(words[i]), int(flags[i]), f"reference {expected[0]:#04x} flags {expected[1]:#04x}"))
    return operands[0].size


# ----------------------------------------------------------------------------- reproducers


def reproducer_case(op, dtype, pairs):
    """A tile operation over the disagreeing operands (one row), as ``pto-avs fuzz`` runs one."""
    from ...contract.case import Case
    from .scenarios import RESET_CAPACITY

    operation = TILE_OPERATION[op]
    k = len(pairs)
    cols = 1 << max(k - 1, 0).bit_length()
    bits = 8 if dtype in ("E4M3", "E5M2") else 16
    capacity = max(128, cols * bits // 8)
    tiles = []
    for index in range(len(pairs[0])):
        tiles.append({"index": index, "dtype": dtype, "capacity": capacity, "cols": cols, "valid": [1, k],
                      "layout": "RowMajor", "location": "Any", "mask": "1111", "defined": "valid",
                      "data": [[p[index] for p in pairs]]})
    sources = ", ".join(f"T{i}" for i in range(len(tiles)))
    size_code = capacity.bit_length() - 1 - 6
    program = (f"BSTART.VEC {operation}, {dtype}", f"B.DIM LB0={k}",
               f"B.IOT {sources}, mask=1111, <last>, ->T<{size_code}>", "BSTOP")
    state = {"tile_capacity": RESET_CAPACITY, "status": 0, "gprs": {}, "tiles": tiles}
    return Case(vector_id="PTO-AVS-X-FUZZ", name="exhaustive", operation=operation, kind="execution",
                profiles=("hw-ieee",), adrs=(), requirements=(), state=state, program=program, expect={})


def write_reproducers(out: Path, op, dtype, mode, found, command: str) -> list:
    """One reproducer vector for the disagreements of one campaign and operation (RNE;
    other modes are named in the description: a tile operation runs under RNE)."""
    from ...plugins.golden import open_device
    from .reproducer import expectation, judged_case, write_reproducer

    pairs = [pair for pair, _, _, _ in found]
    case = reproducer_case(op, dtype, pairs)
    observation = open_device("hw-ieee").execute(case)
    if observation.error is not None:
        return []
    expect = expectation(observation)
    details = "; ".join(f"({', '.join(f'{v:#x}' for v in pair)}): golden {w:#x} flags {f:#04x}, {peer}"
                        for pair, w, f, peer in found)
    path = write_reproducer(out, judged_case(case, expect), expect, device=f"peer ({mode})", profile="hw-ieee",
                            command=command, disagreement=f"{op} {dtype} {mode}: {details}")
    return [path]


# ----------------------------------------------------------------------------- command


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--campaign", action="append", choices=CAMPAIGNS,
                        help="fp16, bf16 (add and mul, RNE, against numpy/ml_dtypes) or fp8 (add, sub, mul, div, "
                             "sqrt, seven modes, against the independent reference); repeatable; default all three")
    parser.add_argument("--limit", type=int, default=None,
                        help="pairs per campaign, operation and mode (default: every pair)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT,
                        help=f"directory for the reproducer vectors (default {DEFAULT_OUT}/)")
    parser.add_argument("--reproducers", type=int, default=4,
                        help="disagreeing pairs per campaign and operation written into its reproducer (default 4)")


def run(args) -> int:
    if args.limit is not None and args.limit < 1:
        print("pto-avs exhaustive: --limit must be at least 1", file=sys.stderr)
        return 2
    command = "pto-avs exhaustive " + " ".join(sys.argv[2:]) if len(sys.argv) > 2 else "pto-avs exhaustive"
    campaigns = args.campaign or list(CAMPAIGNS)
    total_pairs, total_bad, written = 0, 0, []
    started = time.process_time()
    for campaign in campaigns:
        if campaign in ("fp16", "bf16"):
            plan = [(campaign.upper(), op, "RNE") for op in ("add", "mul")]
        else:
            plan = [(dtype, op, mode) for dtype in ("E4M3", "E5M2") for op in ("add", "sub", "mul", "div", "sqrt")
                    for mode in MODES]
        for dtype, op, mode in plan:
            found: list = []
            clock = time.process_time()
            if campaign == "fp8":
                pairs = _campaign_fp8(dtype, op, mode, args.limit, found)
            else:
                pairs = _campaign_16(dtype, op, args.limit, found)
            seconds = time.process_time() - clock
            total_pairs += pairs
            total_bad += len(found)
            print(f"{campaign:4} {dtype:4} {op:4} {mode}: {pairs:>13,} {'operands' if op == 'sqrt' else 'pairs'}, "
                  f"{len(found)} disagreement(s), {seconds:8.2f} s CPU", flush=True)
            if found and args.reproducers > 0:
                written += write_reproducers(args.out, op, dtype, mode, found[:args.reproducers], command)
    minutes = (time.process_time() - started) / 60
    print(f"total: {total_pairs:,} element results checked, {total_bad} disagreement(s), {minutes:.1f} min CPU")
    for path in written:
        print(f"reproducer: {path}")
    return 1 if total_bad else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="pto-avs exhaustive", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
