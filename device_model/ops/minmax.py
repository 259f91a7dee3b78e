"""Element functions of the min/max family (TMAX, TMIN, TMAXS, TMINS).

Facts from asl/tile/model/execution/elementwise.asl (TileIntegerMinMaxValue)
and asl/arch/features/minmax-profile.asl (HardwareNumericFloatingMinMax,
HardwareNumericMinMaxSpecial, HardwareNumericFloatingOrderKey), which both
profiles use (the hardware profile's ``min_max`` section says the same):

- integers: signed or unsigned order at the element width; the result is the
  chosen operand sign- (S types) or zero-extended (U types) to the Word;
- floating types: one NaN selects the other operand, two NaNs the canonical
  NaN; a signaling NaN operand raises NV; mixed zeros give +0 (max, the Word 0)
  or the -0 operand (min), two -0 the left one; otherwise the operand whose
  sign-magnitude order key is larger (max) or smaller (min), the left one on a
  tie. A chosen operand keeps its whole Word.
"""
from __future__ import annotations

import numpy as np

from ..numeric import FLAG_NV, ValueClass, classify
from ..numeric.words import normalize_integer

U64 = np.uint64
_C = ValueClass


def maximum(dtype, profile, left, right):
    return _minmax(True, dtype, left, right)


def minimum(dtype, profile, left, right):
    return _minmax(False, dtype, left, right)


def _minmax(maximum: bool, dtype, left, right):
    left, right = np.broadcast_arrays(np.asarray(left, dtype=U64), np.asarray(right, dtype=U64))
    if dtype.is_integer:
        left, right = normalize_integer(left, dtype), normalize_integer(right, dtype)
        a, b = (left.view(np.int64), right.view(np.int64)) if dtype.signed else (left, right)
        return np.where(a >= b if maximum else a <= b, left, right), 0
    return _floating(maximum, dtype, left, right)


def order_key(words, dtype) -> np.ndarray:
    """HardwareNumericFloatingOrderKey: sign-magnitude element bits as an increasing key."""
    low = words if dtype.bits == 64 else words & U64(dtype.mask)
    sign = U64(1 << (dtype.bits - 1))
    return np.where(low & sign, ~low & U64(dtype.mask), low | sign)


def _floating(maximum: bool, dtype, left, right):
    lc, rc = classify(left, dtype), classify(right, dtype)
    lnan, rnan = lc >= _C.QUIET_NAN, rc >= _C.QUIET_NAN
    invalid = (lc == _C.SIGNALING_NAN) | (rc == _C.SIGNALING_NAN)
    lk, rk = order_key(left, dtype), order_key(right, dtype)
    result = np.where(lk >= rk if maximum else lk <= rk, left, right)
    lzero = (lc == _C.POSITIVE_ZERO) | (lc == _C.NEGATIVE_ZERO)
    rzero = (rc == _C.POSITIVE_ZERO) | (rc == _C.NEGATIVE_ZERO)
    lneg, rneg = lc == _C.NEGATIVE_ZERO, rc == _C.NEGATIVE_ZERO
    if maximum:
        zero_tie = np.where(lneg & rneg, left, U64(0))
    else:
        zero_tie = np.where(lneg, left, np.where(rneg, right, U64(0)))
    result = np.where(lzero & rzero, zero_tie, result)
    result = np.where(lnan, np.where(rnan, U64(dtype.canonical_nan), right), np.where(rnan, left, result))
    return result, np.where(invalid, np.uint8(FLAG_NV), np.uint8(0))
