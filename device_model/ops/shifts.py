"""Element functions of the shift family (TSHL, TSHR, TSHLS, TSHRS): integer
types only, no status.

Facts from asl/tile/model/execution/elementwise.asl (TileIntegerBinaryValue,
TileIntegerShiftAmount): the count is the low log2(width) bits of the right
operand (so a count at or beyond the width wraps modulo the width); SHL shifts
the element left; SHR is arithmetic for signed types (the sign-extended value)
and logical for unsigned ones; the result is the element bits, zero-extended.
"""
from __future__ import annotations

import numpy as np

from ..numeric.words import normalize_integer
from .bitwise import element_bits

U64 = np.uint64


def shift_count(words, dtype) -> np.ndarray:
    """TileIntegerShiftAmount: bits 2:0, 3:0, 4:0 or 5:0 for 8-, 16-, 32-, 64-bit types."""
    return np.asarray(words, dtype=U64) & U64(dtype.bits - 1)


def shift_left(dtype, profile, left, right):
    return element_bits(np.left_shift(np.asarray(left, dtype=U64), shift_count(right, dtype)), dtype), 0


def shift_right(dtype, profile, left, right):
    count = shift_count(right, dtype)
    if dtype.signed:
        extended = normalize_integer(np.asarray(left, dtype=U64), dtype).view(np.int64)
        return element_bits(np.right_shift(extended, count.astype(np.int64)).view(U64), dtype), 0
    return element_bits(np.right_shift(element_bits(left, dtype), count), dtype), 0
