"""The binary32 fast path for FP32 add, sub, mul, div and sqrt (``ieee_fast32``, behind
``ieee_float.add`` ...) gives the words and flags of the exact integer kernels
(``ieee_float.exact_*``) in all seven modes.

Beside the crafted pairs of test_numeric_ieee_fast.py, the inputs here aim at what
this path decides itself: TwoSum whose intermediates overflow (operands near max
finite of opposite signs), exact ties of sums and products, quotients in the tiny
band (the only quotient ties), x/inf and x/0, overflow past 2**128 and the
max-finite band, results at the smallest normal, exact cancellations under RTM,
NaN payloads and signalling NaNs, subnormal operands; plus uniformly random
encodings. 2**12 of each kind per operation and mode in the fast tier; 2**20 (slow)
pairs per operation and mode, every class mixed.
"""
import numpy as np
import pytest

from numeric_support import MODES, check_against_exact
from pto_avs.device_model.numeric import ieee_fast32, ieee_float

OPS = ("ADD", "SUB", "MUL", "DIV", "SQRT")
SIGN = np.uint32(0x80000000)


def _check(op, mode, a, b):
    return check_against_exact(op, "FP32", mode, *((a,) if op == "SQRT" else (a, b)))


def _words(rng, n, exp_low, exp_high):
    """Random sign and fraction, biased exponent in [exp_low, exp_high]."""
    e = rng.integers(exp_low, exp_high + 1, n).astype(np.uint32)
    frac = rng.integers(0, 1 << 23, n, dtype=np.uint32)
    sign = rng.integers(0, 2, n).astype(np.uint32) << np.uint32(31)
    return sign | (e << np.uint32(23)) | frac


def edge_pairs(op, n, seed):
    """``n`` operand pairs of each kind the binary32 path separates, concatenated."""
    rng = np.random.default_rng(seed)
    kinds = []
    random = lambda: rng.integers(0, 1 << 32, n, dtype=np.uint64).astype(np.uint32)  # noqa: E731
    kinds.append((random(), random()))
    # near max finite, opposite signs (TwoSum intermediates overflow), and same signs (sums overflow)
    a, b = _words(rng, n, 252, 254), _words(rng, n, 252, 254)
    kinds.append((a, b))
    kinds.append((a, (b & ~SIGN) | (~a & SIGN)))
    # sums that are exact ties: b is half an ulp of a times an odd number, 0..2 binades lower
    a = _words(rng, n, 30, 220)
    ea = (a >> np.uint32(23)) & np.uint32(0xFF)
    down = rng.integers(0, 3, n).astype(np.uint32)
    b = ((ea - np.uint32(24) - down) << np.uint32(23)) | rng.integers(0, 4, n).astype(np.uint32)
    kinds.append((a, b | (rng.integers(0, 2, n).astype(np.uint32) << np.uint32(31))))
    # products that are ties: short significands (few fraction bits set) multiply to 25 bits
    short = lambda: _words(rng, n, 100, 150) & np.uint32(0xFF80FFFF)  # noqa: E731
    kinds.append((short(), short()))
    # products and quotients at and below the smallest normal, subnormal operands
    kinds.append((_words(rng, n, 0, 40), _words(rng, n, 100, 140)))
    kinds.append((_words(rng, n, 60, 70), _words(rng, n, 60, 70)))
    kinds.append((_words(rng, n, 1, 3), _words(rng, n, 150, 160)))
    # quotients of powers of two and short significands (tiny-band ties), by small and large divisors
    kinds.append((_words(rng, n, 1, 30) & np.uint32(0xFFF00000), _words(rng, n, 127, 160) & np.uint32(0xFF800000)))
    # overflow past 2**128 and the max-finite band
    kinds.append((_words(rng, n, 190, 254), _words(rng, n, 60, 140)))
    # cancellations: b = -a give or take a few ulps
    a = random()
    kinds.append((a, ((a.astype(np.int64) + rng.integers(-3, 4, n)) & 0xFFFFFFFF).astype(np.uint32) ^ SIGN))
    # specials against anything: zeros, infinities, quiet and signalling NaNs with payloads, the band codes
    specials = np.array([0, 1, 0x007FFFFF, 0x00800000, 0x00800001, 0x3F800000, 0x7F7FFFFF, 0x7F800000, 0x7F800001,
                         0x7FBFFFFF, 0x7FC00000, 0x7FC00001, 0x7FFFFFFF], dtype=np.uint32)
    specials = np.concatenate([specials, specials | SIGN])
    kinds.append((specials[rng.integers(0, specials.size, n)], random()))
    kinds.append((random(), specials[rng.integers(0, specials.size, n)]))
    a = np.concatenate([k[0] for k in kinds])
    b = np.concatenate([k[1] for k in kinds])
    if op == "SQRT":  # the same encodings, and every binade of positive values
        a = np.concatenate([a, b, _words(rng, 16 * n, 0, 255) & ~SIGN])
    return a, b


def test_the_binary32_path_serves_fp32_only():
    assert set(ieee_fast32.OPS) == set(OPS)


@pytest.mark.parametrize("op", OPS)
@pytest.mark.parametrize("mode", MODES)
def test_edge_kinds(op, mode):
    a, b = edge_pairs(op, 1 << 12, seed=len(op) * 131 + MODES.index(mode))
    assert _check(op, mode, a, b) == a.size


@pytest.mark.parametrize("op", ["ADD", "SUB", "MUL", "DIV"])
def test_blocks_of_every_size(op):
    """Blocks shorter than a chunk, a chunk plus one, and single lanes take the same path."""
    a, b = edge_pairs(op, 1 << 9, seed=7)
    for mode in ("RNE", "RTP", "RHB"):
        for size in (1, 3, 257, ieee_fast32.CHUNK + 1):
            _check(op, mode, np.resize(a, size), np.resize(b, size))


def test_a_flush_to_zero_host_takes_the_exact_kernel(monkeypatch):
    assert ieee_fast32.gradual_underflow()
    a, b = edge_pairs("MUL", 1 << 6, seed=3)
    calls = []
    monkeypatch.setattr(ieee_fast32, "gradual_underflow", lambda: calls.append(1) or False)
    monkeypatch.setattr(ieee_fast32, "block", None)  # never reached
    for op in OPS:
        _check(op, "RTP", a, b)
    assert len(calls) == len(OPS)


def test_threads_have_their_own_scratch():
    from concurrent.futures import ThreadPoolExecutor

    a, b = edge_pairs("ADD", 1 << 12, seed=11)
    expected = ieee_float.exact_add(a, b, "FP32", "RTZ")
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: ieee_float.add(a, b, "FP32", "RTZ"), range(8)))
    for words, flags in results:
        assert (words == expected[0]).all() and (flags == expected[1]).all()


def test_twosum_intermediate_overflow():
    """a - b with a = -1.32e38 and b = -max: c is finite, TwoSum's a - c overflows."""
    a, b = np.array([0xFEC624B7], dtype=np.uint32), np.array([0xFF7FFFFF], dtype=np.uint32)
    for mode in MODES:
        _check("SUB", mode, a, b)
        _check("ADD", mode, a, b ^ SIGN)


@pytest.mark.slow
@pytest.mark.parametrize("op", OPS)
def test_a_million_pairs_per_mode(op):
    a, b = edge_pairs(op, (1 << 20) // 13 + 1, seed=1000 + len(op))
    a, b = a[:1 << 20], b[:1 << 20]
    for mode in MODES:
        assert _check(op, mode, a, b) == 1 << 20
