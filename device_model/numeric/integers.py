"""Integer destinations: exact real-to-integer rounding and integer-to-integer conversion."""
from __future__ import annotations

import numpy as np

from ..dtypes import DataType
from .flags import FLAG_NV, FLAG_NX
from .rounding import RoundingMode, magnitude_increment
from .words import U64, bit_length, normalize_integer, split_shift


def minimum_word(t: DataType):
    """The integer minimum as a (sign-extended) 64-bit word."""
    return U64(t.int_min & ((1 << 64) - 1))


def maximum_word(t: DataType):
    return U64(t.int_max)


def indefinite_word(t: DataType):
    """conversion.float_to_integer_invalid, Sat=0: signed lane minimum, unsigned lane maximum."""
    return minimum_word(t) if t.signed else maximum_word(t)


def integer_word(negative, magnitude, t: DataType):
    """Word of an in-range integer ``(-1)**negative * magnitude`` (sign-extended for S types)."""
    value = np.where(negative, U64(0) - magnitude, magnitude)
    return normalize_integer(value, t)


def round_to_integer_parts(negative, sig, exp, mode: RoundingMode):
    """Round exact values to integers: ``(magnitude, inexact, huge)``.

    ``huge`` marks magnitudes of 2**64 or more, whose ``magnitude`` is meaningless.
    """
    sig = np.asarray(sig, dtype=U64)
    exp = np.asarray(exp, dtype=np.int64)
    huge = (sig != 0) & (exp + bit_length(sig) > 64)
    whole, half, sticky = split_shift(sig, np.where(huge, 0, -exp))
    up = magnitude_increment(mode, negative, (whole & U64(1)) != 0, half, sticky)
    return whole + up.astype(U64), half | sticky, huge


def in_range(negative, magnitude, huge, t: DataType):
    """Whether ``(-1)**negative * magnitude`` fits integer type ``t``."""
    limit = np.where(negative, U64(-t.int_min), U64(t.int_max))
    return ~huge & (magnitude <= limit)


def round_to_integer(negative, sig, exp, t: DataType, mode: RoundingMode, saturate: bool):
    """Hardware-profile float->integer for finite values. Returns ``(words, flags)``.

    Round once under ``mode``, then range-check the rounded integer
    (rounding_before_saturation). Out of range: Sat=0 -> the indefinite value,
    Sat=1 -> the nearer endpoint; both raise NV only (IEEE 754-2019 7.2: an
    unrepresentable integer result is an invalid operation, which suppresses
    inexact). In range: NX iff inexact.
    """
    negative = np.asarray(negative, dtype=bool)
    magnitude, inexact, huge = round_to_integer_parts(negative, sig, exp, mode)
    ok = in_range(negative, magnitude, huge, t)
    if saturate:
        bad = np.where(negative, minimum_word(t), maximum_word(t))
    else:
        bad = np.full(negative.shape, indefinite_word(t))
    words = np.where(ok, integer_word(negative & ok, np.where(ok, magnitude, U64(0)), t), bad)
    flags = np.where(ok, np.where(inexact, FLAG_NX, 0), FLAG_NV).astype(np.uint8)
    return words, flags


def convert_integer(words, src: DataType, dst: DataType, saturate: bool):
    """TileConvertIntegerValue (asl/tile/model/numeric/formats.asl); flags are always 0.

    Sat=0: reinterpret at the source width, then wrap to the destination width.
    Sat=1: clamp the source value to the destination range.
    """
    value = normalize_integer(np.asarray(words, dtype=U64), src)
    if not saturate:
        return normalize_integer(value, dst)
    if src.signed:
        negative = (value >> U64(63)) != 0
        magnitude = np.where(negative, U64(0) - value, value)
    else:
        negative = np.zeros(value.shape, dtype=bool)
        magnitude = value
    fits = in_range(negative, magnitude, np.zeros(value.shape, dtype=bool), dst)
    clamp = np.where(negative, minimum_word(dst), maximum_word(dst))
    return np.where(fits, normalize_integer(value, dst), clamp)
