"""hw-ieee floating arithmetic on encodings: add, sub, mul, div, fma, rem, sqrt, rsqrt, recip.

Each operation decodes its operands exactly (``formats.decode_lanes``), computes
the exact result -- or a significand of at least p+2 bits whose lowest bit is a
sticky bit, which rounds identically -- with integers only, and rounds once with
``encode.round_to_float`` under any of the seven modes (gradual underflow,
tininess after rounding, overflow per mode, OF/UF/NX). Special operands follow
IEEE 754-2019 and the hardware profile's ``arithmetic`` section: every NaN
result is the type's canonical NaN; NV for a signalling NaN operand (an invalid
encoding counts as one) and for the invalid operations; DZ for an infinite
result from finite operands (x/0, 1/0, 1/sqrt(0)).

Types: the floating members of TileVecArithmeticDataTypeSupported and
TileFloatingElementwiseDataTypeSupported (asl/tile/model/legality/dtype-layout.asl):
FP64, FP32, TF32, HF32, FP16, BF16, E4M3, E5M2. E4M3 has no infinity: an
infinite result is its NaN 0x7F (TileFloatingUnaryUnboundedResult, unary.asl;
decision 2 for overflow). Intermediates stay uint64 where they fit in 62 bits;
FP64 division, square root, fma and remainder, and rsqrt above 16 bits, use
Python ints (``wide``).

Decisions where IEEE 754 and the profile are silent (SPEC-CHOICE 19):
- exact cancellation (x + -x, +0 + -0, a*b + c) is +0 in every mode except RTM,
  which gives -0; RNA, RTO and RHB count as not rounding toward -infinity;
- ``rem`` is TREM's floor modulo (a nonzero result has the divisor's sign):
  x - y*floor(x/y) rounded once; a zero result has the divisor's sign; for an
  infinite divisor the result is x when x is zero or has the divisor's sign,
  otherwise the divisor itself (the limit; Python's and numpy's choice);
  rem(+-inf, y) and rem(x, +-0) are invalid;
- ``fma`` classifies invalid operands as TileFixedFusedMultiplyAddValue
  (fused-multiply-add.asl) does: a signalling NaN, 0*inf (also with a quiet NaN
  addend), or an infinite product meeting an opposite infinite addend, where a
  NaN multiplicand counts as positive (qNaN*(+inf) + -inf raises NV);
- ``rsqrt`` and ``recip`` are correctly rounded (one rounding of the exact
  value); their special values are TileSFUUnarySpecialValue's (unary.asl).

The exact kernels every rounding here starts from (``exact_product``,
``exact_sum``) and the operand class tests are shared with ``scaled_fma``.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import DataType, dtype as _dtype
from . import ieee_fast
from .encode import infinity_code, round_to_float
from .flags import FLAG_DZ, FLAG_NV
from .formats import CLASS_CODES, Decoded, decode_lanes
from .rounding import RoundingMode, rounding_mode
from .wide import FIT, bits, isqrt, shift_left, signed_sum, to_u64, widen, with_sticky
from .words import U64, as_words, bit_length, lanes

FLOAT_TYPES = ("FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2")


# ----------------------------------------------------------------------------- exact kernels

_M32 = U64(0xFFFFFFFF)
_FRAME = 62  # top bit of the aligned addition frame


def exact_product(a, b):
    """Exact product of two uint64 significands below 2**53 as ``(sig, exp)``:
    the product is ``sig * 2**exp`` up to a sticky bit OR-ed into bit 0 of
    ``sig`` when it needed more than 64 bits (enough for any rounding to at
    most 60 significant bits)."""
    a0, a1 = a & _M32, a >> U64(32)
    b0, b1 = b & _M32, b >> U64(32)
    p00, p01, p10, p11 = a0 * b0, a0 * b1, a1 * b0, a1 * b1
    mid = (p00 >> U64(32)) + (p01 & _M32) + (p10 & _M32)
    lo = (p00 & _M32) | (mid << U64(32))
    hi = p11 + (p01 >> U64(32)) + (p10 >> U64(32)) + (mid >> U64(32))
    k = bit_length(hi).astype(U64)  # bits that do not fit in one word
    sticky = (lo & ((U64(1) << k) - U64(1))) != 0
    sig = np.where(k > 0, (hi << (U64(64) - k)) | (lo >> k) | sticky.astype(U64), lo)
    return sig, k.astype(np.int64)


def exact_sum(n1, s1, e1, n2, s2, e2):
    """Exact sum of two signed values ``s * 2**e`` (significands below 2**62)
    as ``(negative, sig, exp)``, with a sticky bit jammed into bit 0 when the
    smaller term reaches below the 63-bit frame (a rounding to FP32 stays
    exact). An exact zero sum is +0 unless both terms are -0 (RNE)."""
    z1, z2 = s1 == 0, s2 == 0
    top1 = np.where(z1, np.iinfo(np.int64).min // 2, e1 + bit_length(s1) - 1)
    top2 = np.where(z2, np.iinfo(np.int64).min // 2, e2 + bit_length(s2) - 1)
    first = top1 >= top2  # term 1 has the larger (or equal) binade
    bn, bs, be = np.where(first, n1, n2), np.where(first, s1, s2), np.where(first, e1, e2)
    sn, ss, se = np.where(first, n2, n1), np.where(first, s2, s1), np.where(first, e2, e1)
    big_zero = bs == 0  # both zero
    lift = np.where(big_zero, 0, _FRAME - (bit_length(bs) - 1))
    frame_exp = be - lift
    big = bs << lift.astype(U64)
    d = frame_exp - se  # right shift of the smaller term into the frame
    right = np.clip(d, 0, 64).astype(U64)
    left = np.clip(-d, 0, 63).astype(U64)
    lost = (d > 0) & ((ss & ((U64(1) << right) - U64(1))) != 0) | ((d >= 64) & (ss != 0))
    small = np.where(d >= 0, ss >> right, ss << left) | lost.astype(U64)
    same = bn == sn
    total = np.where(same, big + small, np.where(big >= small, big - small, small - big))
    negative = np.where(same, bn, np.where(big >= small, bn, sn))
    zero = total == 0
    negative = np.where(zero, bn & sn & same, negative)
    return negative, total, np.where(big_zero, 0, frame_exp)


def not_a_number(d: Decoded):
    return d.nan | (d.cls == CLASS_CODES.INVALID_ENCODING)


def signals_invalid(d: Decoded):
    return (d.cls == CLASS_CODES.SIGNALING_NAN) | (d.cls == CLASS_CODES.INVALID_ENCODING)


def is_zero(d: Decoded):
    return (d.cls == CLASS_CODES.POSITIVE_ZERO) | (d.cls == CLASS_CODES.NEGATIVE_ZERO)


# ----------------------------------------------------------------------------- operands and results


def _resolve(dtype, rounding):
    t = _dtype(dtype)
    if t.name not in FLOAT_TYPES:
        raise ValueError(f"hw-ieee arithmetic is defined for {', '.join(FLOAT_TYPES)}, not {t.name}")
    return t, rounding_mode(rounding)


def _precision(t: DataType) -> int:
    return t.fmt.frac_bits + 1


def _infinite_words(t: DataType, negative):
    """+-infinity, or E4M3's NaN where the format has no infinity."""
    if not t.fmt.has_inf:
        return np.full(np.shape(negative), U64(t.canonical_nan))
    return U64(infinity_code(t)) | (np.asarray(negative).astype(U64) << U64(t.fmt.sign_bit))


def _zero_words(t: DataType, negative):
    return np.asarray(negative).astype(U64) << U64(t.fmt.sign_bit)


def _put(words, flags, where, value, flag):
    """Overlay ``value`` with flags ``flag`` on the lanes ``where``."""
    if not np.any(where):
        return words, flags
    return np.where(where, value, words), np.where(where, flag, flags)


def _nan_results(t: DataType, words, flags, operands, invalid):
    """Canonical NaN where an operand is not a number or the operation is invalid;
    NV where an operand signals or the operation is invalid."""
    nan = invalid.copy()
    signals = invalid.copy()
    for d in operands:
        nan |= not_a_number(d)
        signals |= signals_invalid(d)
    words, flags = _put(words, flags, nan, U64(t.canonical_nan), np.where(signals, FLAG_NV, 0))
    return words.astype(U64), flags.astype(np.uint8)


def _cancellation_sign(negative, sig, opposite, mode: RoundingMode):
    """IEEE: an exact zero sum of opposite-signed terms is -0 only under RTM."""
    return np.where((sig == 0) & opposite, mode is RoundingMode.RTM, negative)


CHUNK = 1 << 15  # elements per step: a few dozen 64-bit temporaries stay in cache


def _flat_lanes(t: DataType, values):
    """The broadcast shape and the operands as flat contiguous lane arrays."""
    arrays = [v if isinstance(v, np.ndarray) and v.dtype.kind == "u" else as_words(v) for v in values]
    if any(a.shape != arrays[0].shape for a in arrays):  # equal shapes (the tile case) need no broadcast
        arrays = np.broadcast_arrays(*arrays)
    return arrays[0].shape, [lanes(np.ascontiguousarray(a).reshape(-1), t.bits) for a in arrays]


def _chunked(kernel, t: DataType, *values):
    """Decode the broadcast operands and run ``kernel(*decoded)`` block by block.
    Returns ``(words, flags)`` in the broadcast shape."""
    shape, flat = _flat_lanes(t, values)
    size = flat[0].size
    words = np.empty(size, dtype=U64)
    flags = np.empty(size, dtype=np.uint8)
    for first in range(0, size, CHUNK):
        block = slice(first, first + CHUNK)
        words[block], flags[block] = kernel(*[decode_lanes(f[block], t) for f in flat])
    return words.reshape(shape), flags.reshape(shape)


def _fast(op: str, t: DataType, mode: RoundingMode, kernel, *values):
    """``ieee_fast`` where it serves ``(op, t)`` (it hands back to ``kernel`` the lanes
    it cannot decide), else the exact kernel alone."""
    if not ieee_fast.applies(op, t):
        return _chunked(kernel, t, *values)
    shape, flat = _flat_lanes(t, values)
    words, flags = ieee_fast.run(op, t, mode, flat, lambda *operands: _chunked(kernel, t, *operands))
    return words.reshape(shape), flags.reshape(shape)


# ----------------------------------------------------------------------------- add, sub


def _add(x: Decoded, y: Decoded, y_negative, t: DataType, mode: RoundingMode):
    n, s, e = exact_sum(x.negative, x.sig, x.exp, y_negative, y.sig, y.exp)
    n = _cancellation_sign(n, s, x.negative != y_negative, mode)
    words, flags = round_to_float(n, s, e, t, mode, False)
    invalid = x.infinite & y.infinite & (x.negative != y_negative)
    infinite = (x.infinite | y.infinite) & ~invalid
    words, flags = _put(words, flags, infinite, _infinite_words(t, np.where(x.infinite, x.negative, y_negative)), 0)
    return _nan_results(t, words, flags, (x, y), invalid)


def add(a, b, dtype, rounding="RNE"):
    """``a + b`` per element. Returns ``(words uint64, flags uint8)`` of the broadcast shape.
    FP32, FP16, BF16, E4M3 and E5M2 run through ``ieee_fast`` (the same words and flags).
    """
    t, mode = _resolve(dtype, rounding)
    return _fast("ADD", t, mode, lambda x, y: _add(x, y, y.negative, t, mode), a, b)


def exact_add(a, b, dtype, rounding="RNE"):
    """``a + b`` per element. Returns ``(words uint64, flags uint8)`` of the broadcast shape.
    The exact integer kernel alone: the reference ``ieee_fast`` is checked against.
    """
    t, mode = _resolve(dtype, rounding)
    return _chunked(lambda x, y: _add(x, y, y.negative, t, mode), t, a, b)


def sub(a, b, dtype, rounding="RNE"):
    """``a - b`` per element (``a + (-b)``).
    FP32, FP16, BF16, E4M3 and E5M2 run through ``ieee_fast`` (the same words and flags).
    """
    t, mode = _resolve(dtype, rounding)
    return _fast("SUB", t, mode, lambda x, y: _add(x, y, ~y.negative, t, mode), a, b)


def exact_sub(a, b, dtype, rounding="RNE"):
    """``a - b`` per element (``a + (-b)``).
    The exact integer kernel alone: the reference ``ieee_fast`` is checked against.
    """
    t, mode = _resolve(dtype, rounding)
    return _chunked(lambda x, y: _add(x, y, ~y.negative, t, mode), t, a, b)


# ----------------------------------------------------------------------------- mul


def _mul(x: Decoded, y: Decoded, t: DataType, mode: RoundingMode):
    negative = x.negative ^ y.negative
    sig, extra = exact_product(x.sig, y.sig)
    words, flags = round_to_float(negative, sig, x.exp + y.exp + extra, t, mode, False)
    invalid = (x.infinite & is_zero(y)) | (y.infinite & is_zero(x))
    infinite = (x.infinite | y.infinite) & ~invalid
    words, flags = _put(words, flags, infinite, _infinite_words(t, negative), 0)
    return _nan_results(t, words, flags, (x, y), invalid)


def mul(a, b, dtype, rounding="RNE"):
    """``a * b`` per element.
    FP32, FP16, BF16, E4M3 and E5M2 run through ``ieee_fast`` (the same words and flags).
    """
    t, mode = _resolve(dtype, rounding)
    return _fast("MUL", t, mode, lambda x, y: _mul(x, y, t, mode), a, b)


def exact_mul(a, b, dtype, rounding="RNE"):
    """``a * b`` per element.
    The exact integer kernel alone: the reference ``ieee_fast`` is checked against.
    """
    t, mode = _resolve(dtype, rounding)
    return _chunked(lambda x, y: _mul(x, y, t, mode), t, a, b)


# ----------------------------------------------------------------------------- div, recip


def _div(x: Decoded, y: Decoded, t: DataType, mode: RoundingMode):
    p = _precision(t)
    wide = 2 * p + 4 > FIT
    a = widen(x.sig, wide)
    b = widen(np.where(y.sig == 0, U64(1), y.sig), wide)
    # Numerator shifted so that the quotient has p+3 or p+4 bits, plus a sticky bit.
    shift = p + 3 + bits(b) - bits(a)
    numerator = shift_left(a, shift)
    quotient = numerator // b
    sig = with_sticky(quotient, numerator - quotient * b != 0)
    sig, exp = to_u64(sig, x.exp - y.exp - shift - 1)
    negative = x.negative ^ y.negative
    words, flags = round_to_float(negative, sig, exp, t, mode, False)
    x_zero, y_zero = is_zero(x), is_zero(y)
    invalid = (x_zero & y_zero) | (x.infinite & y.infinite)
    by_zero = y_zero & x.finite & ~x_zero
    words, flags = _put(words, flags, by_zero, _infinite_words(t, negative), FLAG_DZ)
    words, flags = _put(words, flags, x.infinite & ~y.infinite, _infinite_words(t, negative), 0)
    words, flags = _put(words, flags, y.infinite & x.finite, _zero_words(t, negative), 0)
    return _nan_results(t, words, flags, (x, y), invalid)


def div(a, b, dtype, rounding="RNE"):
    """``a / b`` per element.
    FP32, FP16, BF16, E4M3 and E5M2 run through ``ieee_fast`` (the same words and flags).
    """
    t, mode = _resolve(dtype, rounding)
    return _fast("DIV", t, mode, lambda x, y: _div(x, y, t, mode), a, b)


def exact_div(a, b, dtype, rounding="RNE"):
    """``a / b`` per element.
    The exact integer kernel alone: the reference ``ieee_fast`` is checked against.
    """
    t, mode = _resolve(dtype, rounding)
    return _chunked(lambda x, y: _div(x, y, t, mode), t, a, b)


def _one(shape) -> Decoded:
    return Decoded(np.full(shape, CLASS_CODES.POSITIVE_NORMAL, dtype=np.uint8), np.zeros(shape, dtype=bool),
                   np.ones(shape, dtype=U64), np.zeros(shape, dtype=np.int64))


def recip(a, dtype, rounding="RNE"):
    """``1 / a`` per element, rounded once."""
    t, mode = _resolve(dtype, rounding)
    return _chunked(lambda x: _div(_one(x.cls.shape), x, t, mode), t, a)


# ----------------------------------------------------------------------------- fma


def _negative_class(d: Decoded):
    """TileNumericClassIsNegative: a NaN is never negative."""
    return d.negative & ~not_a_number(d)


def _fma(x: Decoded, y: Decoded, z: Decoded, t: DataType, mode: RoundingMode):
    p_negative = x.negative ^ y.negative
    p_exp = x.exp + y.exp
    if 2 * _precision(t) + 2 <= FIT:  # the product is exact in uint64 and fits the sum's frame
        n, s, e = exact_sum(p_negative, x.sig * y.sig, p_exp, z.negative, z.sig, z.exp)
    else:
        frame = 2 * (2 * _precision(t)) + 8
        n, s, e = signed_sum(p_negative, widen(x.sig, True) * widen(y.sig, True), p_exp,
                             z.negative, widen(z.sig, True), z.exp, frame)
        s, e = to_u64(s, e)
    n = _cancellation_sign(n, s, p_negative != z.negative, mode)
    words, flags = round_to_float(n, s, e, t, mode, False)

    zero_times_infinity = (is_zero(x) & y.infinite) | (x.infinite & is_zero(y))
    p_infinite = x.infinite | y.infinite
    p_class_negative = _negative_class(x) != _negative_class(y)
    opposite = p_infinite & z.infinite & (p_class_negative != z.negative)
    invalid = zero_times_infinity | opposite
    words, flags = _put(words, flags, p_infinite & ~invalid, _infinite_words(t, p_negative), 0)
    words, flags = _put(words, flags, z.infinite & ~p_infinite, _infinite_words(t, z.negative), 0)
    return _nan_results(t, words, flags, (x, y, z), invalid)


def fma(a, b, c, dtype, rounding="RNE"):
    """``a * b + c`` per element, rounded once (no rounded intermediate product).
    FP32, FP16 and BF16 run through ``ieee_fast`` (the same words and flags).
    """
    t, mode = _resolve(dtype, rounding)
    return _fast("FMA", t, mode, lambda x, y, z: _fma(x, y, z, t, mode), a, b, c)


def exact_fma(a, b, c, dtype, rounding="RNE"):
    """``a * b + c`` per element, rounded once (no rounded intermediate product).
    The exact integer kernel alone: the reference ``ieee_fast`` is checked against.
    """
    t, mode = _resolve(dtype, rounding)
    return _chunked(lambda x, y, z: _fma(x, y, z, t, mode), t, a, b, c)


# ----------------------------------------------------------------------------- rem


def _pow2_mod(d, m):
    """``2**d mod m`` per element (square and multiply); ``m >= 1``."""
    one = widen(np.ones(m.shape, dtype=U64), m.dtype == object)
    result = one % m
    base = (one + one) % m
    d = np.asarray(d, dtype=np.int64)
    for bit in range(int(d.max(initial=0)).bit_length()):
        result = np.where(((d >> bit) & 1) != 0, (result * base) % m, result)
        base = (base * base) % m
    return result


def _rem(x: Decoded, y: Decoded, t: DataType, mode: RoundingMode):
    wide = 2 * _precision(t) > FIT
    xs = widen(x.sig, wide)
    ys = widen(np.where(y.sig == 0, U64(1), y.sig), wide)
    d = x.exp - y.exp
    # Truncated remainder R * 2**r_exp (exact, below |b|).
    # x not below y's exponent: (X * 2**d) mod Y, at y's exponent.
    above = (xs % ys) * _pow2_mod(np.maximum(d, 0), ys) % ys
    # x below y's exponent: X mod (Y * 2**-d) when that divisor fits X's width, else X.
    fits = (d < 0) & (bits(ys) - d <= bits(xs))
    below = np.where(fits, xs % shift_left(ys, np.where(fits, -d, 0)), xs)
    r = np.where(d >= 0, above, below)
    r = np.where(y.infinite, xs, r)
    r_exp = np.where((d >= 0) & ~y.infinite, y.exp, x.exp)
    r = r.astype(U64)
    # Floor: a nonzero remainder of the opposite sign becomes |b| - R with b's sign.
    adjust = (x.negative != y.negative) & (r != 0)
    n, s, e = exact_sum(np.where(adjust, y.negative, x.negative), np.where(adjust, y.sig, r),
                        np.where(adjust, y.exp, r_exp), ~y.negative, np.where(adjust, r, U64(0)),
                        np.where(adjust, r_exp, 0))
    n = np.where(r == 0, y.negative, n)  # a zero remainder has the divisor's sign
    words, flags = round_to_float(n, s, e, t, mode, False)
    words, flags = _put(words, flags, y.infinite & adjust, _infinite_words(t, y.negative), 0)
    invalid = (x.infinite | is_zero(y)) & ~not_a_number(x) & ~not_a_number(y)
    return _nan_results(t, words, flags, (x, y), invalid)


def rem(a, b, dtype, rounding="RNE"):
    """TREM floor modulo ``a - b*floor(a/b)`` per element, rounded once."""
    t, mode = _resolve(dtype, rounding)
    return _chunked(lambda x, y: _rem(x, y, t, mode), t, a, b)


# ----------------------------------------------------------------------------- sqrt, rsqrt


def _even_exponent(x: Decoded, wide: bool):
    """``(A, e)`` with ``A * 2**e`` the magnitude of ``x`` and ``e`` even."""
    odd = (x.exp & 1).astype(np.int64)
    return shift_left(widen(x.sig, wide), odd), x.exp - odd


def _sqrt(x: Decoded, t: DataType, mode: RoundingMode):
    p = _precision(t)
    wide = 2 * p + 6 > FIT
    m, e = _even_exponent(x, wide)
    k = np.maximum((2 * p + 6 - bits(m)) // 2, 0)  # the root gets at least p+2 bits
    m = shift_left(m, 2 * k)
    root = isqrt(m)
    sig, exp = to_u64(with_sticky(root, root * root != m), (e - 2 * k) // 2 - 1)
    words, flags = round_to_float(x.negative, sig, exp, t, mode, False)
    invalid = x.negative & ~is_zero(x) & ~not_a_number(x)
    words, flags = _put(words, flags, x.infinite & ~x.negative, _infinite_words(t, False), 0)
    return _nan_results(t, words, flags, (x,), invalid)


def sqrt(a, dtype, rounding="RNE"):
    """Square root per element; sqrt(-0) = -0.
    FP32, FP16, BF16, E4M3 and E5M2 run through ``ieee_fast`` (the same words and flags).
    """
    t, mode = _resolve(dtype, rounding)
    return _fast("SQRT", t, mode, lambda x: _sqrt(x, t, mode), a)


def exact_sqrt(a, dtype, rounding="RNE"):
    """Square root per element; sqrt(-0) = -0.
    The exact integer kernel alone: the reference ``ieee_fast`` is checked against.
    """
    t, mode = _resolve(dtype, rounding)
    return _chunked(lambda x: _sqrt(x, t, mode), t, a)


def _rsqrt(x: Decoded, t: DataType, mode: RoundingMode):
    p = _precision(t)
    k = 2 * p + 6
    wide = 2 * k + 1 > FIT
    m, e = _even_exponent(x, wide)
    m = np.where(m == 0, widen(np.ones(m.shape, U64), wide), m)
    scale = shift_left(widen(np.ones(m.shape, U64), wide), np.full(m.shape, 2 * k))
    # floor(2**k / sqrt(m)) == isqrt(floor(2**(2k) / m)); exact iff root**2 * m == 2**(2k)
    root = isqrt(scale // m)
    sig, exp = to_u64(with_sticky(root, root * root * m != scale), -k - e // 2 - 1)
    words, flags = round_to_float(np.zeros(x.cls.shape, dtype=bool), sig, exp, t, mode, False)
    zero = is_zero(x)
    words, flags = _put(words, flags, zero, _infinite_words(t, x.negative), FLAG_DZ)
    words, flags = _put(words, flags, x.infinite & ~x.negative, U64(0), 0)
    invalid = x.negative & ~zero & ~not_a_number(x)
    return _nan_results(t, words, flags, (x,), invalid)


def rsqrt(a, dtype, rounding="RNE"):
    """``1 / sqrt(a)`` per element, rounded once."""
    t, mode = _resolve(dtype, rounding)
    return _chunked(lambda x: _rsqrt(x, t, mode), t, a)


BINARY = {"ADD": add, "SUB": sub, "MUL": mul, "DIV": div, "REM": rem}
EXACT = {"ADD": exact_add, "SUB": exact_sub, "MUL": exact_mul, "DIV": exact_div, "SQRT": exact_sqrt, "FMA": exact_fma}
UNARY = {"SQRT": sqrt, "RSQRT": rsqrt, "RECIP": recip}
