"""Element arithmetic for TMULS and TGEMV_MX_ACC.

``multiply``: integer types wrap at the element width after sign/zero
extension (TileIntegerBinaryValue, both profiles). Floating types under
pto-v0 are the raw 64-bit integer product of the two encodings
(ScalarFPBinaryProfile MUL: MultiplyWord, flags 0); under hw-ieee an IEEE
754 multiply rounded once with RNE, canonical NaN and the five flags.

``scaled_fma_fp32``: one hardware-profile MX step (JSON ``matrix.mx``):
``acc + (a * 2**(sa-127)) * (b * 2**(sb-127))`` rounded once to FP32 with RNE.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import BY_NAME, DataType, dtype as _dtype
from .convert import resolve_profile
from .encode import infinity_code, round_to_float
from .flags import FLAG_NV
from .formats import Decoded, ValueClass, decode_lanes
from .rounding import RoundingMode
from .words import U64, as_words, bit_length, lanes, normalize_integer

_M32 = U64(0xFFFFFFFF)
_FP32 = BY_NAME["FP32"]
_FP32_NAN = U64(0x7FC00000)
_FRAME = 62  # top bit of the aligned addition frame
# The floating TMULS types (TileVecArithmeticDataTypeSupported, dtype-layout.asl)
IEEE_MULTIPLY_TYPES = ("FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2")


def _broadcast_words(*values):
    arrays = [as_words(v) for v in values]
    return np.broadcast_arrays(*arrays)


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


def multiply(a_bits, scalar_bits, dtype, profile="pto-v0"):
    """Elementwise ``a * scalar`` of type ``dtype``. Returns ``(words uint64, flags uint8)``.

    ``scalar_bits`` broadcasts against ``a_bits``. Callers pass the scalar as
    the operation reads it (TMULS normalizes the GPR to the element width).
    """
    t = _dtype(dtype)
    prof = resolve_profile(profile)
    a, s = _broadcast_words(a_bits, scalar_bits)
    shape = a.shape
    a, s = a.reshape(-1), s.reshape(-1)
    if t.is_integer:
        product = normalize_integer(a, t) * normalize_integer(s, t)  # wraps mod 2**64
        return normalize_integer(product, t).reshape(shape), np.zeros(shape, dtype=np.uint8)
    if prof == "pto-v0":
        return (a * s).reshape(shape), np.zeros(shape, dtype=np.uint8)
    if t.name not in IEEE_MULTIPLY_TYPES:
        raise ValueError(f"hw-ieee multiply is defined for {', '.join(IEEE_MULTIPLY_TYPES)}, not {t.name}")
    words, flags = _ieee_multiply(decode_lanes(lanes(a, t.bits), t), decode_lanes(lanes(s, t.bits), t), t)
    return words.reshape(shape), flags.reshape(shape)


def not_a_number(d: Decoded):
    return d.nan | (d.cls == ValueClass.INVALID_ENCODING)


def signals_invalid(d: Decoded):
    return (d.cls == ValueClass.SIGNALING_NAN) | (d.cls == ValueClass.INVALID_ENCODING)


def is_zero(d: Decoded):
    return (d.cls == ValueClass.POSITIVE_ZERO) | (d.cls == ValueClass.NEGATIVE_ZERO)


def _ieee_multiply(x: Decoded, y: Decoded, t: DataType):
    negative = x.negative ^ y.negative
    sig, extra = exact_product(x.sig, y.sig)
    words, flags = round_to_float(negative, sig, x.exp + y.exp + extra, t, RoundingMode.RNE, False)
    inf_times_zero = (x.infinite & is_zero(y)) | (y.infinite & is_zero(x))
    infinite = (x.infinite | y.infinite) & ~inf_times_zero
    if infinite.any():  # only formats with infinities get here
        words = np.where(infinite, U64(infinity_code(t)) | (negative.astype(U64) << U64(t.fmt.sign_bit)), words)
        flags = np.where(infinite, 0, flags)
    nan = not_a_number(x) | not_a_number(y) | inf_times_zero
    if nan.any():
        canonical = U64(t.canonical_nan) if t.canonical_nan is not None else U64(0)
        words = np.where(nan, canonical, words)
        invalid = signals_invalid(x) | signals_invalid(y) | inf_times_zero
        flags = np.where(nan, np.where(invalid | (t.canonical_nan is None), FLAG_NV, 0), flags)
    return words.astype(U64), flags.astype(np.uint8)


def _scaled_term(bits, type_name, scale, shape):
    """Decoded MX operand lanes with the E8M0 scale folded into the exponent,
    and a mask of lanes whose scale is the E8M0 NaN 0xFF."""
    t = _dtype(type_name)
    d = decode_lanes(lanes(np.broadcast_to(as_words(bits), shape).reshape(-1), t.bits), t)
    if scale is None:
        return d, np.zeros(d.cls.shape, dtype=bool)
    code = np.broadcast_to(as_words(scale), shape).reshape(-1) & U64(0xFF)
    nan_scale = code == U64(0xFF)
    d.exp = d.exp + np.where(nan_scale, 0, code.astype(np.int64) - 127)
    return d, nan_scale


def scaled_fma_fp32(acc_bits, a_bits, atype, a_scale, b_bits, btype, b_scale):
    """One hw-ieee MX step per lane: ``acc + (a*2**(sa-127)) * (b*2**(sb-127))``,
    rounded once to FP32 with RNE. Returns ``(acc words uint64, flags uint8)``.

    ``a_scale``/``b_scale``: E8M0 codes (broadcast) or None for an unscaled
    side. A 0xFF scale makes the lane the canonical NaN 0x7FC00000 (a quiet
    NaN: NV only if an operand signals). Other specials follow IEEE fma:
    NaN -> canonical NaN (NV for a signalling operand), inf*0 and inf-inf -> NV.
    """
    shape = np.broadcast_shapes(np.shape(as_words(acc_bits)), np.shape(as_words(a_bits)), np.shape(as_words(b_bits)),
                                np.shape(as_words(a_scale)) if a_scale is not None else (),
                                np.shape(as_words(b_scale)) if b_scale is not None else ())
    c = decode_lanes(lanes(np.broadcast_to(as_words(acc_bits), shape).reshape(-1), 32), _FP32)
    x, x_nan_scale = _scaled_term(a_bits, atype, a_scale, shape)
    y, y_nan_scale = _scaled_term(b_bits, btype, b_scale, shape)

    p_negative = x.negative ^ y.negative
    p_sig, extra = exact_product(x.sig, y.sig)
    p_exp = x.exp + y.exp + extra
    negative, sig, exp = exact_sum(p_negative, p_sig, p_exp, c.negative, c.sig, c.exp)
    words, flags = round_to_float(negative, sig, exp, _FP32, RoundingMode.RNE, False)

    # A NaN operand (or a NaN scale, which makes its term a quiet NaN) gives the
    # canonical NaN, NV only for a signalling operand; IEEE leaves inf*0 + qNaN
    # implementation-defined and this takes the quiet choice.
    nan = not_a_number(c) | not_a_number(x) | not_a_number(y) | x_nan_scale | y_nan_scale
    signals = signals_invalid(c) | signals_invalid(x) | signals_invalid(y)
    inf_times_zero = ~nan & ((x.infinite & is_zero(y)) | (y.infinite & is_zero(x)))
    p_inf = ~nan & (x.infinite | y.infinite) & ~inf_times_zero
    opposite_infs = p_inf & c.infinite & (p_negative != c.negative)
    infinite = ~nan & (p_inf | c.infinite) & ~opposite_infs
    inf_negative = np.where(p_inf, p_negative, c.negative)
    words = np.where(infinite, U64(0x7F800000) | (inf_negative.astype(U64) << U64(31)), words)
    flags = np.where(infinite, 0, flags)
    invalid = inf_times_zero | opposite_infs
    words = np.where(nan | invalid, _FP32_NAN, words)
    flags = np.where(nan, np.where(signals, FLAG_NV, 0), np.where(invalid, FLAG_NV, flags))
    return words.astype(U64).reshape(shape), flags.astype(np.uint8).reshape(shape)


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
