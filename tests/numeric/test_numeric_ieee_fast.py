"""The fast hw-ieee paths (``ieee_fast``, behind ``ieee_float.add`` ... ``sqrt``) give the
words and flags of the exact integer kernels (``ieee_float.exact_*``), which stay the
reference (they are checked against the spec, the independent reference and peers
elsewhere).

- every E4M3 and E5M2 operand pair, every operation and mode (the table path);
- every FP16 and BF16 source under sqrt and, against zero, the smallest subnormal and
  normal, 1 + ulp and the max finite of both signs, under the binary operations in
  both operand orders, every mode (slow);
- FP32, FP16, BF16: inputs built to hit every band the fast path separates -- random
  encodings, normals, exact ties, residual-decided near-ties, cancellations, the
  overflow and underflow boundaries, subnormals, zeros, infinities, both NaN kinds --
  2**14 per operation and mode in the fast tier, 2**20 (FP32) in the slow one;
- FMA on FP32, FP16, BF16: the same factors with addends that cancel the product or sit
  far below it (sums a hair off a midpoint), 2**14 triples per mode, 2**20 in the slow tier.
"""
import numpy as np
import pytest

from pto_avs.device_model import dtypes
from numeric_support import MODES, check_against_exact
from pto_avs.device_model.numeric import ieee_fast, ieee_float

OPS = ("ADD", "SUB", "MUL", "DIV", "SQRT")
LANE = {32: np.uint32, 16: np.uint16, 8: np.uint8}
_check = check_against_exact


def edge_operands(dtype):
    """Encodings at every band edge of ``ieee_fast`` and beside it, both signs."""
    t = dtypes.dtype(dtype)
    f = t.fmt
    one = f.bias << f.frac_bits
    smallest_normal = 1 << f.frac_bits
    inf = ((1 << f.exp_bits) - 1) << f.frac_bits
    centres = [0, 1, 2, 3, smallest_normal - 1, smallest_normal, smallest_normal + 1, one - 1, one, one + 1,
               one + (1 << (f.frac_bits - 1)), t.max_finite - 1, t.max_finite, inf, inf + 1,
               inf | (1 << (f.frac_bits - 1)), (f.bias // 2) << f.frac_bits, (f.bias + f.bias // 2) << f.frac_bits]
    magnitudes = sorted({c for c in centres if 0 <= c < 1 << f.sign_bit})
    return np.array(magnitudes + [m | 1 << f.sign_bit for m in magnitudes], dtype=LANE[t.bits])


def crafted_pairs(dtype, count, seed):
    """``count`` operand pairs of ``dtype`` covering each band and boundary."""
    t = dtypes.dtype(dtype)
    f, ct = t.fmt, LANE[t.bits]
    rng = np.random.default_rng(seed)
    part = count // 8
    sign = ct(1 << f.sign_bit)

    def random_words(n):
        return rng.integers(0, 1 << t.bits, n, dtype=np.uint64).astype(ct)

    def with_exponents(n, low, high):  # biased exponents in [low, high], random fraction and sign
        e = rng.integers(low, high + 1, n).astype(np.uint64)
        frac = rng.integers(0, 1 << f.frac_bits, n, dtype=np.uint64)
        s = rng.integers(0, 2, n).astype(np.uint64)
        return ((s << np.uint64(f.sign_bit)) | (e << np.uint64(f.frac_bits)) | frac).astype(ct)

    top = (1 << f.exp_bits) - 2
    a_parts, b_parts = [], []
    # uniformly random encodings (every class)
    a_parts.append(random_words(part))
    b_parts.append(random_words(part))
    # normals of nearby binades
    mid = f.bias
    a_parts.append(with_exponents(part, mid - 8, mid + 8))
    b_parts.append(with_exponents(part, mid - 8, mid + 8))
    # sums that are exact ties or a residual away from one: b is a's half ulp times a small odd number,
    # shifted further down by 0..3 binades (the shifts below the tie are decided by the residual alone)
    a = with_exponents(part, f.frac_bits + 2, top - 2)
    exp_a = (a.astype(np.int64) >> f.frac_bits) & ((1 << f.exp_bits) - 1)
    down = rng.integers(0, 4, part)
    b_exp = np.clip(exp_a - f.frac_bits - 1 - down, 1, top)
    b = ((b_exp.astype(np.uint64) << np.uint64(f.frac_bits)) | rng.integers(0, 4, part).astype(np.uint64)).astype(ct)
    b ^= (rng.integers(0, 2, part).astype(ct) * sign)
    a_parts.append(a)
    b_parts.append(b)
    # cancellations: b = -a give or take a few ulps
    a = random_words(part)
    b = ((a.astype(np.int64) + rng.integers(-3, 4, part)) & ((1 << t.bits) - 1)).astype(ct) ^ sign
    a_parts.append(a)
    b_parts.append(b)
    # near overflow: large operands (products and sums at max finite, quotients by small ones)
    a_parts.append(with_exponents(part, top - 3, top))
    b_parts.append(with_exponents(part, mid - 2, mid + 2))
    # underflow: products and quotients landing in and below the subnormal range, subnormal operands
    a_parts.append(with_exponents(part, 0, f.frac_bits + 3))
    b_parts.append(with_exponents(part, mid - f.frac_bits - 3, mid + 1))
    a_parts.append(with_exponents(part, 1, mid // 2 + 2))
    b_parts.append(with_exponents(part, 1, mid // 2 + 2))
    # edge operands against random ones
    rest = count - 7 * part
    edges = edge_operands(dtype)
    a_parts.append(edges[rng.integers(0, edges.size, rest)])
    b_parts.append(random_words(rest))
    a, b = np.concatenate(a_parts), np.concatenate(b_parts)
    swap = rng.integers(0, 2, a.size).astype(bool)
    return np.where(swap, b, a), np.where(swap, a, b)


def test_the_fast_paths_serve_the_five_operations_and_types():
    for name in ("FP32", "FP16", "BF16", "E4M3", "E5M2"):
        for op in OPS:
            assert ieee_fast.applies(op, dtypes.dtype(name))
        assert ieee_fast.applies("FMA", dtypes.dtype(name)) == (name in ("FP32", "FP16", "BF16"))
    assert not ieee_fast.applies("ADD", dtypes.dtype("FP64")) and not ieee_fast.applies("REM", dtypes.dtype("FP32"))


def crafted_triples(dtype, count, seed):
    """FMA operands: the crafted pairs as factors, and addends that are random, the
    negated rounded product give or take a few ulps (cancellation), or far below the
    product (sums a hair off a midpoint: the double-rounding case), or edge operands."""
    t = dtypes.dtype(dtype)
    ct = LANE[t.bits]
    a, b = crafted_pairs(dtype, count, seed)
    rng = np.random.default_rng(seed + 1)
    product, _ = ieee_float.exact_mul(a, b, dtype, "RNE")
    product = product.astype(ct)
    sign = ct(1 << t.fmt.sign_bit)
    part = count // 4
    random = rng.integers(0, 1 << t.bits, count, dtype=np.uint64).astype(ct)
    near = ((product.astype(np.int64) + rng.integers(-2, 3, count)) & ((1 << t.bits) - 1)).astype(ct) ^ sign
    magnitude = product & ct((1 << t.fmt.sign_bit) - 1)
    shift = ct(t.fmt.frac_bits + 2) << ct(t.fmt.frac_bits)
    far = np.where(magnitude > shift, product - shift, random).astype(ct) ^ (rng.integers(0, 2, count).astype(ct) * sign)
    edges = edge_operands(dtype)[rng.integers(0, edge_operands(dtype).size, count)]
    c = np.concatenate([random[:part], near[part:2 * part], far[2 * part:3 * part], edges[3 * part:]])
    return a, b, c


@pytest.mark.parametrize("dtype", ["E4M3", "E5M2"])
def test_every_fp8_pair_every_mode(dtype):
    codes = np.arange(1 << 16, dtype=np.uint32)
    a, b = (codes >> 8).astype(np.uint8), (codes & 0xFF).astype(np.uint8)
    checked = 0
    for mode in MODES:
        for op in ("ADD", "SUB", "MUL", "DIV"):
            checked += _check(op, dtype, mode, a, b)
        checked += _check("SQRT", dtype, mode, np.arange(256, dtype=np.uint8))
    assert checked == 7 * (4 * 65536 + 256)


@pytest.mark.parametrize("dtype", ["FP32", "FP16", "BF16"])
@pytest.mark.parametrize("op", OPS)
def test_crafted_operands_every_mode(dtype, op):
    a, b = crafted_pairs(dtype, 1 << 14, seed=hash((dtype, op)) & 0xFFFF)
    for mode in MODES:
        _check(op, dtype, mode, a) if op == "SQRT" else _check(op, dtype, mode, a, b)


@pytest.mark.parametrize("dtype", ["FP32", "FP16", "BF16"])
@pytest.mark.parametrize("op", ["ADD", "SUB"])
def test_sums_of_small_blocks_take_twosum_unasked(dtype, op, monkeypatch):
    """A block of at most SMALL_BLOCK lanes takes TwoSum without the exactness test: the
    crafted pairs through that path (every block counted small), and in pieces of that size."""
    a, b = crafted_pairs(dtype, 1 << 14, seed=hash((dtype, op, "small")) & 0xFFFF)
    piece = ieee_fast.SMALL_BLOCK
    for mode in MODES[:3]:
        assert sum(_check(op, dtype, mode, a[i:i + piece], b[i:i + piece]) for i in range(0, a.size, piece)) == a.size
    monkeypatch.setattr(ieee_fast, "SMALL_BLOCK", 1 << 30)
    for mode in MODES:
        _check(op, dtype, mode, a, b)


@pytest.mark.parametrize("dtype", ["FP32", "FP16", "BF16"])
def test_fma_crafted_operands_every_mode(dtype):
    a, b, c = crafted_triples(dtype, 1 << 14, seed=len(dtype) * 7)
    for mode in MODES:
        _check("FMA", dtype, mode, a, b, c)


def test_small_arrays_and_scalars_take_the_same_path():
    assert [int(v) for v in ieee_float.add(np.uint32(0x3F800000), np.uint32(0x33800000), "FP32", "RTP")] == [0x3F800001, 0x10]
    words, flags = ieee_float.mul([[0x3C00, 0x7BFF]], [[0x4000], [0x3800]], "FP16", "RTZ")
    assert words.shape == (2, 2) and [int(w) for w in words.ravel()] == [0x4000, 0x7BFF, 0x3800, 0x77FF]
    assert [int(f) for f in flags.ravel()] == [0, 0x14, 0, 0]


@pytest.mark.slow
@pytest.mark.parametrize("op", OPS)
def test_fp32_a_million_pairs_per_mode(op):
    a, b = crafted_pairs("FP32", 1 << 20, seed=ord(op[0]) * 31 + len(op))
    for mode in MODES:
        assert (_check(op, "FP32", mode, a) if op == "SQRT" else _check(op, "FP32", mode, a, b)) == 1 << 20


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["FP32", "FP16", "BF16"])
def test_fma_a_million_triples_per_mode(dtype):
    a, b, c = crafted_triples(dtype, 1 << 20, seed=99)
    for mode in MODES:
        assert _check("FMA", dtype, mode, a, b, c) == 1 << 20


@pytest.mark.slow
@pytest.mark.parametrize("dtype", ["FP16", "BF16"])
def test_every_16_bit_source(dtype):
    every = np.arange(1 << 16, dtype=np.uint16)
    t = dtypes.dtype(dtype)
    magnitudes = [0, 1, 1 << t.fmt.frac_bits, (t.fmt.bias << t.fmt.frac_bits) + 1, t.max_finite]
    edges = np.array(magnitudes + [m | 1 << t.fmt.sign_bit for m in magnitudes], dtype=np.uint16)
    a = np.repeat(every, edges.size)
    b = np.tile(edges, every.size)
    for mode in MODES:
        _check("SQRT", dtype, mode, every)
        for op in ("ADD", "SUB", "MUL", "DIV"):
            _check(op, dtype, mode, a, b)
            _check(op, dtype, mode, b, a)
