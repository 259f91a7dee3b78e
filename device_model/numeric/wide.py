"""Exact non-negative integers of any width as numpy arrays.

An operation whose exact intermediate fits in 62 bits keeps it in uint64
arrays; a wider one (FP64 division, square root, fused multiply-add,
remainder) holds Python ints in object arrays. The helpers here take and
return either representation with the same code, so an algorithm is written
once; ``to_u64`` brings a wide result back to a uint64 significand that
``encode.round_to_float`` rounds exactly.
"""
from __future__ import annotations

import math

import numpy as np

from .words import U64, bit_length

FIT = 62  # widest intermediate kept in uint64 (leaves room for one carry and a sticky bit)
_BIT_LENGTH = np.frompyfunc(int.bit_length, 1, 1)
_ISQRT = np.frompyfunc(math.isqrt, 1, 1)


def widen(x, wide: bool):
    """``x`` (unsigned or non-negative integers) as Python ints when ``wide``, else uint64."""
    return np.asarray(x).astype(object) if wide else np.asarray(x).astype(U64, copy=False)


def _amount(x, n):
    """A non-negative shift amount in the representation of ``x``."""
    n = np.asarray(n, dtype=np.int64)
    return n.astype(object) if x.dtype == object else n.astype(U64)


def shift_left(x, n):
    return x << _amount(x, n)


def shift_right(x, n):
    return x >> _amount(x, n)


def bits(x) -> np.ndarray:
    """Bit length of each element (0 for 0), as int64."""
    if x.dtype == object:
        return _BIT_LENGTH(x).astype(np.int64)
    return bit_length(x)


def isqrt(x):
    """``floor(sqrt(x))`` exactly. uint64 elements must be below ``2**FIT``."""
    if x.dtype == object:
        return _ISQRT(x)
    # A binary64 estimate is within one of the root (x < 2**62: the relative error
    # of the estimate is below 2**-52, i.e. below 2**-21 absolute); the integer
    # comparisons below decide.
    r = np.floor(np.sqrt(x.astype(np.float64))).astype(U64)
    r = np.where(r * r > x, r - U64(1), r)
    return np.where((r + U64(1)) * (r + U64(1)) <= x, r + U64(1), r)


def with_sticky(value, inexact):
    """``2*value + inexact``: one more bit that records an inexact remainder."""
    one = np.asarray(inexact, dtype=bool)
    one = one.astype(object) if value.dtype == object else one.astype(U64)
    return shift_left(value, np.ones(value.shape, dtype=np.int64)) | one


def to_u64(sig, exp):
    """``(sig, exp)`` as a uint64 significand of at most ``FIT`` bits and its exponent.

    Bits dropped from a wider significand are OR-ed into its lowest bit (a
    sticky bit): every rounding to fewer than ``FIT - 2`` significant bits
    gives the same result as on the exact value.
    """
    exp = np.asarray(exp, dtype=np.int64)
    if sig.dtype != object:
        return sig.astype(U64, copy=False), exp
    drop = np.maximum(bits(sig) - FIT, 0)
    low = sig & (shift_left(np.ones(sig.shape, dtype=object), drop) - 1)
    kept = shift_right(sig, drop) | (low != 0).astype(object)
    return kept.astype(U64), exp + drop


def signed_sum(n1, s1, e1, n2, s2, e2, frame: int):
    """Exact sum of two signed values ``(-1)**n * s * 2**e`` (Python-int ``s``) as
    ``(negative, magnitude, exponent)``, the magnitude in Python ints.

    A term whose lowest bit lies more than ``frame`` bits below the larger top is
    cut at that floor with a sticky bit; with ``frame`` at least two bits wider
    than either significand plus the result precision plus two, no cut term can
    cancel and every cut lies below the rounding position. A zero sum is negative
    only when both terms are negative (the caller decides exact cancellation).
    """
    minimum = np.iinfo(np.int64).min // 4
    t1 = np.where(s1 == 0, minimum, e1 + bits(s1))
    t2 = np.where(s2 == 0, minimum, e2 + bits(s2))
    floor = np.maximum(t1, t2) - frame

    def place(s, e):
        e = np.where(s == 0, floor, e)
        up = np.maximum(e - floor, 0)
        down = np.maximum(floor - e, 0)
        low = s & (shift_left(np.ones(s.shape, dtype=object), down) - 1)
        return np.where(down > 0, shift_right(s, down) | (low != 0).astype(object), shift_left(s, up))

    v1, v2 = place(s1, e1), place(s2, e2)
    total = np.where(n1, -v1, v1) + np.where(n2, -v2, v2)
    zero = total == 0
    negative = np.where(zero, n1 & n2, total < 0).astype(bool)
    return negative, np.abs(total), floor
