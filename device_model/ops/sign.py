"""Element functions of the unary sign family (TABS, TNEG, TRELU).

Facts from asl/tile/model/execution/unary.asl (TileIntegerUnaryValue,
TileFloatingUnaryValue, TileFloatingUnaryCarrier, TileFloatingUnarySignMask),
which both profiles use; the TABS and TNEG documents say floating values only
change the sign bit, NaN payloads included, without status, and TRELU's that
NaNs become the profile's quiet NaN with NV for a signaling NaN:

- integers: ABS of a negative signed value is 0 - value, NEG is 0 - value,
  RELU of a negative signed value is 0; results are the element bits,
  zero-extended (so S8 ABS of -128 is 0x80);
- floating types: ABS clears and NEG flips the sign bit of the element bits;
  RELU gives 0 for -0, +0 and every negative value, the element bits for
  positive values, and the canonical NaN for NaNs (NV for a signaling one).
"""
from __future__ import annotations

import numpy as np

from ..numeric import FLAG_NV, ValueClass, classify
from ..numeric.words import normalize_integer
from .bitwise import element_bits

U64 = np.uint64
_C = ValueClass


def _negative(value, dtype) -> np.ndarray:
    """Signed types: the element is negative (unsigned types never are)."""
    if not dtype.signed:
        return np.zeros(np.shape(value), dtype=bool)
    return normalize_integer(np.asarray(value, dtype=U64), dtype).view(np.int64) < 0


def _sign(dtype):
    return U64(1 << (dtype.bits - 1))


def absolute(dtype, profile, value):
    bits = element_bits(value, dtype)
    if dtype.is_float:
        return bits & ~_sign(dtype), 0
    return np.where(_negative(value, dtype), element_bits(U64(0) - bits, dtype), bits), 0


def negate(dtype, profile, value):
    bits = element_bits(value, dtype)
    if dtype.is_float:
        return bits ^ _sign(dtype), 0
    return element_bits(U64(0) - bits, dtype), 0


def relu(dtype, profile, value):
    bits = element_bits(value, dtype)
    if dtype.is_integer:
        return np.where(_negative(value, dtype), U64(0), bits), 0
    cls = classify(value, dtype)
    positive = (cls == _C.POSITIVE_SUBNORMAL) | (cls == _C.POSITIVE_NORMAL) | (cls == _C.POSITIVE_INFINITY)
    nan = cls >= _C.QUIET_NAN
    result = np.where(nan, U64(dtype.canonical_nan), np.where(positive, bits, U64(0)))
    return result, np.where(cls == _C.SIGNALING_NAN, np.uint8(FLAG_NV), np.uint8(0))
