"""Exact decoding and classification of every Tile DataType encoding.

Each finite floating encoding decomposes, with integers only, into
``(negative, significand, exponent)`` whose value is
``(-1)**negative * significand * 2**exponent`` -- exactly the triple of
``TileNumericFiniteDecomposition`` (asl/arch/data-types/numeric-formats.asl):
zeros give ``(sign, 0, 0)``; non-finite, invalid and integer encodings are
unavailable. Classification follows ``TileNumericValueClass``
(asl/arch/features/mx-formats.asl), including the X2 rule that exponent-0
lanes are never reported subnormal.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..dtypes import DataType, dtype as _dtype
from .words import U64, lanes


class ValueClass(enum.IntEnum):
    """NumericValueClass, in the ASL enumeration order."""

    INVALID_ENCODING = 0
    POSITIVE_ZERO = 1
    NEGATIVE_ZERO = 2
    POSITIVE_SUBNORMAL = 3
    NEGATIVE_SUBNORMAL = 4
    POSITIVE_NORMAL = 5
    NEGATIVE_NORMAL = 6
    POSITIVE_INFINITY = 7
    NEGATIVE_INFINITY = 8
    QUIET_NAN = 9
    SIGNALING_NAN = 10



class CLASS_CODES:
    """The ValueClass codes as numpy uint8 scalars, for whole-array expressions: numpy probes
    an IntEnum operand's class for its array protocols, through the slow failing lookups of
    ``EnumType.__getattr__``, a few microseconds per operation."""


for _member in ValueClass:
    setattr(CLASS_CODES, _member.name, np.uint8(_member.value))

_C = CLASS_CODES


@dataclass
class Decoded:
    """Per-element class, sign, significand (uint64) and exponent (int64).

    ``negative`` is kept for infinities too; ``significand``/``exponent`` are 0
    for zeros and non-finite classes.
    """

    cls: np.ndarray
    negative: np.ndarray
    sig: np.ndarray
    exp: np.ndarray

    @property
    def finite(self):
        return (self.cls >= _C.POSITIVE_ZERO) & (self.cls <= _C.NEGATIVE_NORMAL)

    @property
    def nan(self):
        return self.cls >= _C.QUIET_NAN

    @property
    def infinite(self):
        return (self.cls == _C.POSITIVE_INFINITY) | (self.cls == _C.NEGATIVE_INFINITY)


def _finite_class(negative, zero, subnormal):
    cls = np.where(zero, _C.POSITIVE_ZERO, np.where(subnormal, _C.POSITIVE_SUBNORMAL, _C.POSITIVE_NORMAL))
    return (cls + negative).astype(np.uint8)


def _decode_binary(lane, t: DataType) -> Decoded:
    f = t.fmt
    lane = lane.astype(U64)
    m, eb = f.frac_bits, f.exp_bits
    frac = (lane >> U64(f.frac_shift)) & U64((1 << m) - 1)
    expf = (lane >> U64(f.frac_shift + m)) & U64((1 << eb) - 1)
    negative = ((lane >> U64(f.sign_bit)) & U64(1)) != 0
    top = U64((1 << eb) - 1)
    if f.nan == "ieee":
        special = expf == top
    elif f.nan == "allones":
        special = (expf == top) & (frac == U64((1 << m) - 1))
    else:
        special = np.zeros(lane.shape, dtype=bool)
    zero = (expf == 0) & (frac == 0)
    subnormal = (expf == 0) & ~zero
    cls = _finite_class(negative, zero, subnormal & f.has_subnormal)
    if f.nan == "ieee":
        quiet = ((frac >> U64(m - 1)) & U64(1)) != 0
        nan_cls = np.where(quiet, _C.QUIET_NAN, _C.SIGNALING_NAN)
        inf_cls = np.where(negative, _C.NEGATIVE_INFINITY, _C.POSITIVE_INFINITY)
        cls = np.where(special, np.where(frac == 0, inf_cls, nan_cls), cls).astype(np.uint8)
    elif f.nan == "allones":
        cls = np.where(special, np.uint8(_C.QUIET_NAN), cls)
    if t.must_be_zero:
        cls = np.where((lane & U64(t.must_be_zero)) != 0, np.uint8(_C.INVALID_ENCODING), cls)
    finite = (cls >= _C.POSITIVE_ZERO) & (cls <= _C.NEGATIVE_NORMAL)
    sig = np.where(expf == 0, frac, frac + U64(1 << m))
    exp = np.where(expf == 0, 1 - f.bias - m, expf.astype(np.int64) - (f.bias + m))
    exp = np.where(zero, 0, exp)
    sig = np.where(finite, sig, U64(0))
    exp = np.where(finite, exp, 0).astype(np.int64)
    return Decoded(cls.astype(np.uint8), negative, sig, exp)


def _hif8_entry(code: int):
    """(class, negative, significand, exponent) of one HiF8 byte (hif8.asl)."""
    negative = bool(code & 0x80)
    body = code & 0x7F
    if code == 0x80:
        return _C.QUIET_NAN, False, 0, 0
    if body == 0x6F:
        return (_C.NEGATIVE_INFINITY if negative else _C.POSITIVE_INFINITY), negative, 0, 0
    if body == 0:
        return _C.POSITIVE_ZERO, False, 0, 0
    if body <= 7:  # denormal: 2**(M - 23)
        return (_C.NEGATIVE_SUBNORMAL if negative else _C.POSITIVE_SUBNORMAL), negative, 1, body - 23
    if body <= 15:  # D0: exponent 0, three mantissa bits
        magnitude, mant_bits, mant = 0, 3, body & 7
    elif body <= 31:  # D1: exponent +-1
        magnitude, mant_bits, mant = 1, 3, body & 7
    elif body <= 63:  # D2: +-(2 + bit3)
        magnitude, mant_bits, mant = 2 + ((body >> 3) & 1), 3, body & 7
    elif body <= 95:  # D3: +-(4 + bits 3:2)
        magnitude, mant_bits, mant = 4 + ((body >> 2) & 3), 2, body & 3
    else:  # D4: +-(8 + bits 3:1)
        magnitude, mant_bits, mant = 8 + ((body >> 1) & 7), 1, body & 1
    exponent_negative = (body >> 3) & 1 if body <= 31 else (body >> 4) & 1
    actual = -magnitude if exponent_negative else magnitude
    cls = _C.NEGATIVE_NORMAL if negative else _C.POSITIVE_NORMAL
    return cls, negative, (1 << mant_bits) + mant, actual - mant_bits


@lru_cache(maxsize=None)
def _hif8_tables():
    rows = [_hif8_entry(c) for c in range(256)]
    cls = np.array([r[0] for r in rows], dtype=np.uint8)
    neg = np.array([r[1] for r in rows], dtype=bool)
    sig = np.array([r[2] for r in rows], dtype=U64)
    exp = np.array([r[3] for r in rows], dtype=np.int64)
    return cls, neg, sig, exp


def _decode_hif8(lane) -> Decoded:
    cls, neg, sig, exp = _hif8_tables()
    index = lane.astype(np.intp)
    return Decoded(cls[index], neg[index], sig[index], exp[index])


def _decode_e8m0(lane) -> Decoded:
    lane = lane.astype(np.int64)
    nan = lane == 0xFF
    cls = np.where(nan, np.uint8(_C.QUIET_NAN), np.uint8(_C.POSITIVE_NORMAL))
    sig = np.where(nan, U64(0), U64(1))
    exp = np.where(nan, 0, lane - 127)
    return Decoded(cls, np.zeros(lane.shape, dtype=bool), sig, exp)


def _decode_integer(lane, t: DataType) -> Decoded:
    from .words import integer_value  # local: words imports nothing from here

    negative, magnitude = integer_value(lane.astype(U64), t)
    cls = np.where(magnitude == 0, _C.POSITIVE_ZERO, np.where(negative, _C.NEGATIVE_NORMAL, _C.POSITIVE_NORMAL))
    return Decoded(cls.astype(np.uint8), negative, magnitude, np.zeros(lane.shape, dtype=np.int64))


def decode_lanes(lane: np.ndarray, t: DataType) -> Decoded:
    """Decode lane values (already reduced to the element width) of type ``t``.

    Integer types decode to their exact value (magnitude as significand,
    exponent 0) with the ASL integer classes (zero, positive/negative normal).
    """
    if t.is_integer:
        return _decode_integer(lane, t)
    kind = t.fmt.kind
    if kind == "hif8":
        return _decode_hif8(lane)
    if kind == "e8m0":
        return _decode_e8m0(lane)
    return _decode_binary(lane, t)


def decode(bits, dtype) -> Decoded:
    """Decode raw encodings (bits above the element width are ignored)."""
    t = _dtype(dtype)
    return decode_lanes(lanes(bits, t.bits), t)


def classify(bits, dtype) -> np.ndarray:
    """TileNumericValueClass of every encoding, as ValueClass codes (uint8)."""
    return decode(bits, dtype).cls


def decompose(bits, dtype):
    """TileNumericFiniteDecomposition: ``(available, negative, significand, exponent)``.

    Unavailable (non-finite, invalid, integer types) gives ``(False, False, 0, 0)``.
    """
    t = _dtype(dtype)
    if t.is_integer:
        shape = np.shape(lanes(bits, t.bits))
        return (np.zeros(shape, bool), np.zeros(shape, bool), np.zeros(shape, U64), np.zeros(shape, np.int64))
    d = decode(bits, t)
    available = d.finite
    return available, d.negative & available, d.sig, d.exp


def canonical_nan(dtype):
    """The canonical NaN encoding, or None for formats without NaN."""
    return _dtype(dtype).canonical_nan


def max_finite(dtype):
    """Encoding of the largest finite value (floats) or the integer maximum (as a word)."""
    t = _dtype(dtype)
    return t.max_finite if t.is_float else t.int_max
