"""TQUANT arithmetic: FP32 ``x * multiplier + zero_point`` rounded once to S8/U8.

The affine value is exact: with ``x = sx * 2**ex`` and ``m = sm * 2**em`` the
product ``sx * sm`` has at most 48 bits, so ``a = (-1)**s * P * 2**E + zp`` is
split into its integer floor and a half/sticky fraction with integer shifts.

pto-v0 (TileProfileQuantize, asl/arch/profile/reference-quantization.asl):
NaN -> 0 with NV and +-Inf -> the endpoint with OF|NX, whatever Sat; finite
values round under the mode, NX iff inexact, then Sat=1 clamps and Sat=0 wraps
modulo 2**8, neither raising a further flag.

hw-ieee (SPEC-CHOICE 12, digest 7.11; project choice shared with the vector
reference): the same single rounding and the same wrap/clamp of finite results
(the operation's Sat contract, no NV or OF), but NaN and infinities are an invalid
float-to-integer conversion (conversion.float_to_integer_invalid): Sat=0 ->
the indefinite value (S8 0x80, U8 0xFF), Sat=1 -> 0 for NaN and the endpoint
for an infinity, NV only. So the profiles differ only for NaN (pto-v0 gives 0
even with Sat=0) and infinities (pto-v0 gives the endpoint with OF|NX).
"""
from __future__ import annotations

import numpy as np

from ..dtypes import BY_NAME, dtype as _dtype
from .convert import resolve_profile
from .flags import FLAG_NV, FLAG_NX, FLAG_OF
from .formats import decode_lanes
from .integers import indefinite_word, maximum_word, minimum_word
from .rounding import RoundingMode, floor_increment, rounding_mode
from .words import U64, as_words, bit_length, lanes, normalize_integer, split_shift

_FP32 = BY_NAME["FP32"]
_BIG = 40  # magnitudes of 2**40 or more are out of range of every 8-bit result


def _multiplier(multiplier_bits):
    """Exact FP32 multiplier from the low 32 bits of a word (bits 63:32 are ignored).
    NaN, infinities and +-0 are rejected, as TileProfileQuantize asserts."""
    word = as_words(multiplier_bits).reshape(-1)
    if word.size != 1:
        raise ValueError("quantize takes one scalar multiplier word")
    d = decode_lanes(lanes(word, 32), _FP32)
    if not d.finite[0] or d.sig[0] == 0:
        what = "zero" if d.finite[0] else "not a finite FP32 value"
        raise ValueError(
            f"multiplier 0x{int(word[0]) & 0xFFFFFFFF:08X} is {what}; "
            "TQUANT rejects it before execution")
    return bool(d.negative[0]), d.sig[0], int(d.exp[0])


def quantize(x_bits, multiplier_bits, zero_point, dst="S8", rounding="RNE", saturate=False, profile="pto-v0"):
    """Quantize FP32 encodings. Returns ``(words uint64, flags uint8)`` shaped like ``x_bits``.

    ``zero_point``: an int or 64-bit word read as the destination type (its low
    8 bits, sign-extended for S8). ``rounding`` NONE means RNE (TQUANT default).
    """
    t = _dtype(dst)
    if t.name not in ("S8", "U8"):
        raise ValueError(f"TQUANT destination must be S8 or U8, not {t.name}")
    prof = resolve_profile(profile)
    mode = RoundingMode.RNE if str(rounding).strip().upper() == "NONE" else rounding_mode(rounding)
    m_negative, m_sig, m_exp = _multiplier(multiplier_bits)
    zp_word = normalize_integer(as_words(zero_point).reshape(-1)[:1], t)[0]
    zp = int(zp_word) - (1 << 64) if t.signed and int(zp_word) >> 63 else int(zp_word)

    x = lanes(x_bits, 32)
    shape = np.shape(x)
    d = decode_lanes(x.reshape(-1), _FP32)
    negative = d.negative ^ m_negative
    product = d.sig * m_sig  # < 2**48: exact in uint64
    exp = d.exp + m_exp

    # |x*m| = whole + fraction; whole exact below 2**40, "big" above.
    top = exp + bit_length(product)
    big = (product != 0) & (exp >= 0) & (top > _BIG)
    whole, half, sticky = split_shift(product, np.where(big, 0, -exp))
    fraction = half | sticky
    # floor(a) and the fraction of a for a = +-(whole + fraction) + zp
    signed_whole = np.where(negative, -whole.astype(np.int64), whole.astype(np.int64))
    floor = signed_whole + zp - (negative & fraction)
    frac_half = np.where(negative & fraction, ~(half & sticky), half)
    up = floor_increment(mode, floor < 0, (floor & 1) != 0, frac_half, sticky)
    n = floor + up
    inexact = fraction & ~big

    lo, hi = t.int_min, t.int_max
    fits = ~big & (n >= lo) & (n <= hi)
    above = np.where(big, ~negative, n > hi)
    endpoint = np.where(above, maximum_word(t), minimum_word(t))
    # Wrapped value modulo 2**64: exact for big values too (their low bits are P << exp).
    big_low = np.where(exp >= 64, U64(0), product << np.clip(exp, 0, 63).astype(U64))
    wrapped = np.where(big, np.where(negative, U64(0) - big_low, big_low) + U64(zp & ((1 << 64) - 1)),
                       n.astype(U64))
    words = normalize_integer(wrapped, t)
    if saturate:
        words = np.where(fits, words, endpoint)
    flags = np.where(inexact, FLAG_NX, 0)
    nan, infinite = d.nan, d.infinite
    inf_word = np.where(d.negative, minimum_word(t), maximum_word(t))
    if prof == "pto-v0":
        words = np.where(infinite, inf_word, np.where(nan, U64(0), words))
        flags = np.where(infinite, FLAG_OF | FLAG_NX, np.where(nan, FLAG_NV, flags))
    else:
        if saturate:
            words = np.where(infinite, inf_word, np.where(nan, U64(0), words))
        else:
            words = np.where(infinite | nan, indefinite_word(t), words)
        flags = np.where(infinite | nan, FLAG_NV, flags)
    return words.astype(U64).reshape(shape), flags.astype(np.uint8).reshape(shape)
