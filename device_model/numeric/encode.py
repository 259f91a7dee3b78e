"""Exact rounding of ``(-1)**s * sig * 2**exp`` into a floating DataType (hw-ieee rules).

The rounder works binade by binade: a value with ``e = floor(log2 |x|)`` is
cut into whole quanta of ``2**q(e)`` where ``q(e) = max(e, q_floor) - m(e)``
and ``m(e)`` is the number of fraction bits the format keeps in that binade
(constant for binary formats, tapered for HiF8). Everything is integer
arithmetic on uint64 significands; no host float is involved.

Hardware-profile rules applied here (spec/hardware-conformance-profile.json,
IEEE 754-2019):
- gradual underflow; tininess is detected after rounding, i.e. on the value
  rounded to the precision of the smallest normal binade with an unbounded
  exponent range; UF is raised only when tiny and inexact.
- overflow (the rounded value exceeds the largest finite value, or the value
  lies beyond the top binade): Sat=1 -> signed max finite; Sat=0 -> the IEEE
  choice per mode (nearest modes -> infinity, RTZ/RTO -> max finite, RTP/RTM ->
  infinity on their own side). Where infinity is wanted but missing: E4M3
  gives its canonical NaN 0x7F; E3M2/E2M3/X2 (no infinity, no NaN) give the
  signed max finite -- a project choice, the profile is silent. OF|NX always.
- HiF8 ties to even and round-to-odd use the parity of the candidate's code
  (as the spec's own HiF8 rounding in matrix-quantization.asl does);
- the X2 lane formats detect tininess like the other binary formats, against
  ``2**(1 - bias)`` (1.0) with their full precision, as OCP MX does for E2M1,
  although the ASL classifies their exponent-0 lanes Normal and marks their
  tininess rule not applicable (project choice, shared with the vector
  reference).
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

import numpy as np

from ..dtypes import BY_NAME, DataType
from .flags import FLAG_NX, FLAG_OF, FLAG_UF
from .formats import decode_lanes
from .rounding import NEAREST_MODES, RoundingMode, magnitude_increment
from .words import U64, bit_length, split_shift

_HIF8_FLOOR = -22  # smallest HiF8 binade (denormal 2**-22)
_HIF8_TOP = 15  # exponent of the HiF8 max finite 2**15


def _hif8_fraction_bits(e):
    """Fraction bits HiF8 keeps in binade ``e`` (extended beyond its range)."""
    a = np.abs(e)
    bits = np.where(a <= 3, 3, np.where(a <= 7, 2, 1))
    return np.where(e <= -16, 0, bits)


@dataclass(frozen=True)
class Geometry:
    """How a floating destination quantizes values, derived from its DataType."""

    t: DataType
    q_floor: int  # smallest binade with its own quantum
    emax: int  # binade of the max finite value
    max_code: int  # magnitude code of the max finite value (binary formats)
    tiny_exp: int  # values below 2**tiny_exp are tiny
    tiny_bits: int  # fraction bits used to round for the tininess test

    @property
    def hif8(self) -> bool:
        return self.t.fmt.kind == "hif8"

    def fraction_bits(self, ec):
        if self.hif8:
            return _hif8_fraction_bits(ec)
        return self.t.fmt.frac_bits


@lru_cache(maxsize=None)
def geometry(t: DataType) -> Geometry:
    f = t.fmt
    if f.kind == "hif8":
        return Geometry(t, _HIF8_FLOOR, _HIF8_TOP, 0, -15, 1)
    if f.kind != "binary":
        raise ValueError(f"{t.name} is not a rounding destination")
    emin = 1 - f.bias
    max_code = (t.max_finite & ~(1 << f.sign_bit)) >> f.frac_shift
    emax = (max_code >> f.frac_bits) - f.bias
    return Geometry(t, emin, emax, max_code, emin, f.frac_bits)


@lru_cache(maxsize=None)
def _hif8_code_table():
    """Positive HiF8 code by ``(e + 22) * 8 + fraction`` (fraction left-aligned to 3 bits)."""
    table = np.zeros((_HIF8_TOP - _HIF8_FLOOR + 1) * 8, dtype=U64)
    codes = np.array([c for c in range(1, 0x80) if c != 0x6F], dtype=U64)  # positive finite
    d = decode_lanes(codes, BY_NAME["HiF8"])
    hb = bit_length(d.sig) - 1
    e = d.exp + hb
    frac = (d.sig - (U64(1) << hb.astype(U64))) << (3 - hb).astype(U64)
    table[(e - _HIF8_FLOOR) * 8 + frac.astype(np.int64)] = codes
    return table


def infinity_code(t: DataType) -> int:
    """Encoding of +infinity (formats with ``has_inf``); the sign bit makes -infinity."""
    f = t.fmt
    return 0x6F if f.kind == "hif8" else ((1 << f.exp_bits) - 1) << (f.frac_bits + f.frac_shift)


def overflow_result(negative, t: DataType, mode: RoundingMode, saturate: bool):
    """Encodings for overflowed values of sign ``negative`` (flags are OF|NX)."""
    f = t.fmt
    sign = negative.astype(U64) << U64(f.sign_bit)
    max_word = U64(t.max_finite) | sign
    if saturate:
        return max_word
    if mode in NEAREST_MODES:
        to_inf = np.ones(negative.shape, dtype=bool)
    elif mode is RoundingMode.RTP:
        to_inf = ~negative
    elif mode is RoundingMode.RTM:
        to_inf = negative.copy()
    else:
        to_inf = np.zeros(negative.shape, dtype=bool)
    if f.has_inf:
        return np.where(to_inf, U64(infinity_code(t)) | sign, max_word)
    if t.canonical_nan is not None:  # E4M3: its only NaN stands in for infinity
        return np.where(to_inf, U64(t.canonical_nan), max_word)
    return max_word


def round_to_float(negative, sig, exp, t: DataType, mode: RoundingMode, saturate: bool):
    """Round exact values into floating type ``t`` (not E8M0). Returns ``(words, flags)``.

    ``sig`` may be 0 (a signed zero, exact). Arrays are 1-D of equal length.
    """
    g = geometry(t)
    f = t.fmt
    negative = np.asarray(negative, dtype=bool)
    sig = np.asarray(sig, dtype=U64)
    exp = np.asarray(exp, dtype=np.int64)
    nonzero = sig != 0
    hb = bit_length(sig) - 1
    e = exp + hb
    beyond = nonzero & (e > g.emax)  # at least 2**(emax+1): overflow whatever the mode
    ec = np.where(nonzero, np.minimum(np.maximum(e, g.q_floor), g.emax), g.q_floor)
    m = g.fraction_bits(ec)
    qe = ec - m
    shift = np.where(nonzero, qe - exp, 0)
    whole, half, sticky = split_shift(sig, shift)
    odd = (whole & U64(1)) != 0
    if g.hif8:
        # "Even" is the parity of the candidate's code, as in the spec's HiF8
        # nearest search (ReferenceNearestFP8CandidateBetter,
        # matrix-quantization.asl). It differs from the quantum count only for
        # the power-of-two denormals 2**k (code k + 23), k in -22..-17.
        denormal = (ec <= -17) & (whole == U64(1))
        odd = np.where(denormal, ((ec + 23) & 1) != 0, odd)
    n = whole + magnitude_increment(mode, negative, odd, half, sticky).astype(U64)
    inexact = half | sticky

    if g.hif8:
        carry = n == (U64(1) << (m + 1).astype(U64))
        er = np.where(carry, ec + 1, ec)
        frac = np.where(carry | (n == 0), U64(0), n - (U64(1) << m.astype(U64)))
        overflow = beyond | (er > g.emax) | ((er == g.emax) & (frac > 0))
        index = (np.minimum(er, g.emax) - g.q_floor) * 8 + (frac << (3 - m).astype(U64)).astype(np.int64)
        index = np.where(overflow | (n == 0), 0, index)
        code = np.where(n == 0, U64(0), _hif8_code_table()[index])
        sign = (negative & (n != 0)).astype(U64) << U64(7)  # HiF8 has a single zero
        words = code | sign
    else:
        code = ((ec - g.q_floor).astype(U64) << U64(f.frac_bits)) + n
        overflow = beyond | (code > U64(g.max_code))
        words = (code << U64(f.frac_shift)) | (negative.astype(U64) << U64(f.sign_bit))

    # Tininess after rounding: round at the smallest normal binade's precision.
    at_edge = nonzero & (e == g.tiny_exp - 1)
    w2, h2, s2 = split_shift(sig, np.where(at_edge, hb - g.tiny_bits, 0))
    up2 = magnitude_increment(mode, negative, (w2 & U64(1)) != 0, h2, s2)
    reaches_normal = (w2 + up2.astype(U64)) == (U64(1) << U64(g.tiny_bits + 1))
    tiny = nonzero & ((e < g.tiny_exp - 1) | (at_edge & ~reaches_normal))

    flags = np.where(inexact, FLAG_NX, 0) | np.where(tiny & inexact, FLAG_UF, 0)
    if overflow.any():
        words = np.where(overflow, overflow_result(negative, t, mode, saturate), words)
        flags = np.where(overflow, FLAG_OF | FLAG_NX, flags)
    return words.astype(U64), flags.astype(np.uint8)
