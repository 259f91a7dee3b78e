"""Fast exact hw-ieee conversions for the pairs the narrowing kernel does not serve.

- Sources of at most 16 bits (FP16, BF16, the 8-bit floats, 8- and 16-bit integers
  into a floating type or from one): one table of every source encoding per
  (pair, mode, Sat, Canonicalize), computed once by the exact path itself
  (``convert._hardware_exact``), then a gather of words and flags. Arrays below
  ``TABLE_MIN`` elements run the exact path until the table exists (a table costs
  one exact run of 65,536 encodings).
- FP32 -> FP64: binary64 holds every FP32 value; the words are the binary64 bits
  (numpy's widening is exact); NaN and infinity lanes take the exact path's
  values (canonical NaN, NV for a signalling one unless Canonicalize; an infinity
  keeps its sign, or saturates with OF|NX under Sat).
- FP32 -> integers: the integral candidate is computed in binary32 itself, where
  every step is exact (``trunc``, ``floor``, ``ceil``, ``rint`` return
  representable integers; ``v - floor(v)`` is exact; parity of an integral value
  is exact), so no host float decides anything a rounding of the exact value would
  not: RTZ trunc, RTM floor, RTP ceil, RNE rint, RNA trunc plus one away from zero
  where ``|v - trunc(v)| >= 1/2``, RHB floor plus one where ``v - floor(v) >= 1/2``,
  RTO the odd one of floor and ceil. In range: the integer with NX iff it differs
  from ``v``; out of range (after rounding), NaN or infinite: the exact path's rule
  (indefinite or the nearer endpoint under Sat, NaN -> 0 under Sat; NV only).
"""
from __future__ import annotations

import numpy as np

from ..dtypes import DataType
from .flags import FLAG_NV
from .integers import indefinite_word, maximum_word, minimum_word
from .rounding import RoundingMode
from .words import U64

TABLE_MIN = 1 << 14
_TABLES: dict = {}


def table_applies(s: DataType, d: DataType) -> bool:
    return s.bits <= 16 and (s.is_float or d.is_float) and d.name != "E8M0"


def from_table(lane, s: DataType, d: DataType, mode, saturate, canonicalize, exact):
    """Words and flags by table lookup, or None where the array is small and the table
    does not exist yet. ``exact(lanes)`` is the exact path for the same pair and options."""
    key = (s.name, d.name, mode, saturate, canonicalize)
    table = _TABLES.get(key)
    if table is None:
        if lane.size < TABLE_MIN:
            return None
        codes = np.arange(1 << s.bits, dtype=np.uint64).astype(lane.dtype)
        words, flags = exact(codes)
        table = _TABLES[key] = (np.ascontiguousarray(words, dtype=U64), np.ascontiguousarray(flags, dtype=np.uint8))
    index = lane.astype(np.intp)  # np.take is slow on narrower index types
    if s.bits not in (8, 16):
        index &= (1 << s.bits) - 1
    return np.take(table[0], index), np.take(table[1], index)


def fp32_to_fp64_applies(s: DataType, d: DataType) -> bool:
    return s.name == "FP32" and d.name == "FP64"


def fp32_to_fp64(lane, exact):
    with np.errstate(invalid="ignore"):  # signalling NaNs: settled below
        words = lane.view(np.float32).astype(np.float64).view(U64)
    flags = np.zeros(lane.shape, dtype=np.uint8)
    special = np.flatnonzero((lane & np.uint32(0x7F800000)) == np.uint32(0x7F800000))
    if special.size:
        words[special], flags[special] = exact(lane[special])
    return words, flags


def float_to_integer_applies(s: DataType, d: DataType) -> bool:
    return s.name == "FP32" and d.is_integer


def _integral(v, mode: RoundingMode):
    """The integral binary32 value ``v`` rounds to under ``mode`` (exact steps only)."""
    if mode is RoundingMode.RTZ:
        return np.trunc(v)
    if mode is RoundingMode.RTM:
        return np.floor(v)
    if mode is RoundingMode.RTP:
        return np.ceil(v)
    if mode is RoundingMode.RNE:
        return np.rint(v)
    if mode is RoundingMode.RNA:
        t = np.trunc(v)
        away = np.abs(v - t) >= np.float32(0.5)
        return t + np.copysign(away.astype(np.float32), v)
    low = np.floor(v)
    if mode is RoundingMode.RHB:
        return low + (v - low >= np.float32(0.5))
    # RTO: floor if it is odd or v is integral, else floor + 1
    even = (low - np.float32(2) * np.floor(low * np.float32(0.5))) == 0
    return low + ((v != low) & even)


def float_to_integer(lane, d: DataType, mode: RoundingMode, saturate: bool, exact):
    """FP32 lanes to integer type ``d``: ``(words, flags)``."""
    with np.errstate(invalid="ignore"):
        v = lane.view(np.float32)
        r = _integral(v, mode).astype(np.float32, copy=False)
        low = np.float32(d.int_min)
        # int_max + 1 is a power of two (exact in binary32); an integral r fits iff r < it
        limit = np.float32(2.0 ** (d.bits - 1 if d.signed else d.bits))
        fits = (r >= low) & (r < limit)  # NaN fails both
        inexact = r != v
        if d.signed or d.bits < 64:
            words = r.astype(np.int64).view(U64)
        else:
            words = r.astype(np.uint64)
        flags = np.left_shift(inexact.view(np.uint8), np.uint8(4))
        if not fits.all():
            outside = ~fits
            if saturate:
                bad = np.where(np.signbit(v), minimum_word(d), maximum_word(d))
                bad = np.where(np.isnan(v), U64(0), bad)
            else:
                bad = np.full(v.shape, indefinite_word(d))
            words = np.where(outside, bad, words)
            flags = np.where(outside, np.uint8(FLAG_NV), flags)
    return words, flags
