"""64-bit carrier words and exact integer helpers (vectorized, integers only)."""
from __future__ import annotations

import numpy as np

from ..dtypes import DataType

U64 = np.uint64
MASK64 = (1 << 64) - 1
_ONE = U64(1)


def as_words(bits) -> np.ndarray:
    """Raw encodings (int, int sequence or integer array) as a uint64 array.

    Negative Python or signed-array integers are read as two's-complement words.
    """
    if isinstance(bits, np.ndarray) and bits.dtype.kind in "ui":
        if bits.dtype.kind == "i":
            bits = bits.view(bits.dtype.str.replace("i", "u"))
        return bits.astype(U64, copy=False)
    if isinstance(bits, (int, np.integer)):
        return np.array([int(bits) & MASK64], dtype=U64).reshape(())
    array = bits if isinstance(bits, np.ndarray) else np.array(bits, dtype=object)
    if array.dtype.kind in "ui":
        return as_words(array)
    if array.dtype == object:
        flat = array.reshape(-1)
        if not all(isinstance(v, (int, np.integer)) for v in flat):
            raise TypeError("expected integer encodings (ints), got non-integer elements")
        return np.array([int(v) & MASK64 for v in flat], dtype=U64).reshape(array.shape)
    raise TypeError(f"expected integer encodings, got an array of {array.dtype}")


def container(width: int):
    """Smallest unsigned numpy dtype holding ``width`` bits."""
    if width <= 8:
        return np.uint8
    if width <= 16:
        return np.uint16
    if width <= 32:
        return np.uint32
    return np.uint64


def lanes(bits, width: int) -> np.ndarray:
    """The low ``width`` bits of every element (higher carrier bits are ignored).

    Unsigned numpy input of a suitable width is used without widening.
    """
    ctype = container(width)
    if isinstance(bits, np.ndarray) and bits.dtype.kind == "u":
        out = bits.astype(ctype, copy=False)
    elif isinstance(bits, np.ndarray) and bits.dtype.kind == "i":
        out = bits.view(bits.dtype.str.replace("i", "u")).astype(ctype, copy=False)
    else:
        out = as_words(bits).astype(ctype)
    if width not in (8, 16, 32, 64):
        out = out & ctype((1 << width) - 1)
    return out


def bit_length(x: np.ndarray) -> np.ndarray:
    """Bit length of each uint64 (0 for 0), as int64.

    The binary64 exponent of ``x`` is its bit length, or one more where ``x``
    rounds up to a power of two; the integer shift test below takes that back.
    """
    x = np.asarray(x, dtype=U64)
    n = np.frexp(x.astype(np.float64))[1].astype(np.int64)
    rounded_up = (n > 0) & ((x >> np.maximum(n - 1, 0).astype(U64)) == 0)
    return n - rounded_up


def split_shift(sig: np.ndarray, shift: np.ndarray):
    """Divide ``sig`` by ``2**shift`` (any int64 shift, negative = exact multiply).

    Returns ``(whole, half, sticky)``: the integer quotient, whether the
    remainder is at least half of the divisor, and whether anything below that
    half bit is nonzero. A negative shift must not lose bits (caller's duty).
    """
    sig = sig.astype(U64, copy=False)
    shift = np.asarray(shift, dtype=np.int64)
    right = np.minimum(np.maximum(shift, 0), 65).astype(U64)
    left = np.minimum(np.maximum(-shift, 0), 64).astype(U64)
    whole = np.where(shift >= 0, sig >> right, sig << left)
    below = right - _ONE  # wraps for right == 0; shifts of 64+ give 0 in numpy
    has_remainder = right > 0
    half = has_remainder & (((sig >> below) & _ONE) != 0)
    sticky = has_remainder & ((sig & ((_ONE << below) - _ONE)) != 0)
    return whole, half, sticky


def sign_extend(value: np.ndarray, width: int) -> np.ndarray:
    """Sign-extend the low ``width`` bits of each uint64 to 64 bits."""
    if width >= 64:
        return value.astype(U64, copy=False)
    top = U64(1 << (width - 1))
    low = value.astype(U64, copy=False) & U64((1 << width) - 1)
    return (low ^ top) - top


def normalize_integer(value: np.ndarray, t: DataType) -> np.ndarray:
    """NormalizeTileInteger: sign-extend S types, zero-extend U types, from the lane width."""
    value = value.astype(U64, copy=False)
    if t.signed:
        return sign_extend(value, t.bits)
    if t.bits >= 64:
        return value
    return value & U64(t.mask)


def integer_value(words: np.ndarray, t: DataType):
    """Exact value of integer encodings as ``(negative, magnitude)`` (magnitude uint64)."""
    value = normalize_integer(words, t)
    if not t.signed:
        return np.zeros(value.shape, dtype=bool), value
    negative = (value >> U64(63)) != 0
    magnitude = np.where(negative, U64(0) - value, value)
    return negative, magnitude
