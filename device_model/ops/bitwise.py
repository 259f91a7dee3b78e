"""Element functions of the bitwise family (TAND, TOR, TXOR, TNOT and the
tile-scalar TANDS, TORS, TXORS): integer types only, no status.

Facts from asl/tile/model/execution/elementwise.asl (TileIntegerBinaryValue,
TileCarrierBinaryValue) and unary.asl (TileIntegerUnaryValue): the result is
the operation on the element bits, zero-extended from the element width
(TileUnsignedElementValue) for signed and unsigned types alike.
"""
from __future__ import annotations

import numpy as np

U64 = np.uint64


def element_bits(words, dtype) -> np.ndarray:
    """TileUnsignedElementValue: the low element bits, zero-extended."""
    words = np.asarray(words, dtype=U64)
    return words if dtype.bits == 64 else words & U64(dtype.mask)


def bitwise_and(dtype, profile, left, right):
    return element_bits(left & right, dtype), 0


def bitwise_or(dtype, profile, left, right):
    return element_bits(left | right, dtype), 0


def bitwise_xor(dtype, profile, left, right):
    return element_bits(left ^ right, dtype), 0


def bitwise_not(dtype, profile, value):
    return element_bits(~value, dtype), 0
