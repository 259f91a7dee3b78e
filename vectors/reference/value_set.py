"""Vectorized value-set rounding for the small binary formats (FP16, BF16, E5M2, E4M3).

An oracle for exhaustive checks, independent of ``device_model`` and of the
classic significand/exponent method in ``numeric.encode_value``: a format's
non-negative finite values, scaled by ``2**scale`` to integers, are listed in
code order (they increase with the code), followed by the unbounded-exponent
successor of the largest value. An exact magnitude (uint64, same scale) is
rounded by finding its neighbours in that list with ``searchsorted`` and choosing
between them by exact integer comparison of the two distances.

Rules (hw-ieee, ``numeric``'s decisions 1, 2, 10-12): overflow iff the choice is
the successor of the largest value (or the magnitude is at least that
successor), giving +-inf or +-max per mode with OF|NX; tininess after rounding:
a magnitude below the smallest normal ``N`` is tiny unless, rounded among
``{N * (1 - 2**-p), N}`` (the p-bit neighbours with an unbounded exponent), it
picks ``N``; UF iff tiny and inexact; a zero keeps its sign.
"""
from __future__ import annotations

import numpy as np

from .numeric import FORMATS, MODES, canonical_nan, infinity_code, max_finite_code

U64 = np.uint64
NV, DZ, OF, UF, NX = 0x01, 0x02, 0x04, 0x08, 0x10


def choose_upper(mode: str, negative, lower_odd, below, above):
    """True where the upper neighbour wins. ``below``/``above``: distances from
    the lower/to the upper neighbour (uint64), ``lower_odd``: the lower code's LSB."""
    inexact = below != 0
    if mode == "RTZ":
        return np.zeros(np.shape(below), dtype=bool)
    if mode == "RTP":
        return inexact & ~negative
    if mode == "RTM":
        return inexact & negative
    if mode == "RTO":
        return inexact & ~lower_odd
    tie = below == above
    if mode == "RNE":
        up_on_tie = lower_odd
    elif mode == "RNA":
        up_on_tie = np.ones(np.shape(below), dtype=bool)
    elif mode == "RHB":
        up_on_tie = ~negative
    else:
        raise ValueError(f"unknown rounding mode {mode!r}; expected one of {MODES}")
    return inexact & ((below > above) | (tie & up_on_tie))


class ValueSet:
    """The non-negative finite values of ``name`` scaled by ``2**scale`` (uint64)."""

    def __init__(self, name: str, scale: int):
        f = FORMATS[name]
        if f.kind != "binary" or f.frac_lsb or f.width > 16:
            raise ValueError(f"{name}: the value-set oracle takes binary formats of at most 16 bits")
        self.name, self.format, self.scale = name, f, scale
        self.max_code = max_finite_code(name)
        # Code c (exponent field E, fraction F) is F * 2**(1 - bias - m) for E = 0 and
        # (2**m + F) * 2**(E - bias - m) otherwise: an integer at 2**-scale when
        # scale >= bias + m - 1. Code max_code + 1 read the same way is the max's
        # successor with an unbounded exponent (E4M3: 480, others: 2**(emax + 1)).
        m, low = f.frac_bits, f.bias + f.frac_bits - 1
        if scale < low:
            raise ValueError(f"{name}: scale {scale} leaves subnormals fractional (at least {low})")
        scaled = []
        for c in range(self.max_code + 2):
            e, frac = c >> m, c & ((1 << m) - 1)
            scaled.append((frac << (scale - low)) if e == 0 else ((1 << m) + frac) << (e - 1 + scale - low))
        if scaled[-1] >= 1 << 63:
            raise ValueError(f"{name}: scale {scale} puts the largest values beyond 63 bits")
        self.values = np.array(scaled, dtype=U64)
        self.first_normal = 1 << f.frac_bits  # code of the smallest normal

    def round(self, negative, magnitude, mode: str):
        """Round exact magnitudes (uint64 at this scale) with signs ``negative``.
        Returns ``(codes uint64, flags uint8)``."""
        f, v = self.format, self.values
        negative = np.asarray(negative, dtype=bool)
        m = np.asarray(magnitude, dtype=U64)
        last = v.size - 1
        low = np.minimum(np.searchsorted(v, m, side="right") - 1, last)
        high = np.minimum(low + 1, last)
        below, above = m - v[low], v[high] - m
        up = choose_upper(mode, negative, (low & 1) != 0, below, above) & (low < last)
        code = (low + up).astype(np.int64)
        inexact = below != 0
        overflow = code >= last

        # Tininess after rounding, between N*(1 - 2**-p) and N, at 2**(p+1) times the scale.
        p = f.frac_bits + 1
        n = int(v[self.first_normal])
        small = m < U64(n)
        mx = np.where(small, m, U64(0)) << U64(p + 1)
        lower = U64((2 ** (p + 1) - 2) * n)
        upper = U64(n << (p + 1))
        edge = small & (mx > lower)
        picks_normal = edge & choose_upper(mode, negative, np.ones(m.shape, dtype=bool),
                                           np.where(edge, mx - lower, U64(0)), np.where(edge, upper - mx, U64(0)))
        tiny = small & ~picks_normal

        sign = negative.astype(U64) << U64(f.sign_bit)
        codes = code.astype(U64) | sign
        flags = np.where(inexact, NX, 0) | np.where(inexact & tiny, UF, 0)
        to_infinity = {"RNE": True, "RNA": True, "RHB": True, "RTZ": False, "RTO": False,
                       "RTP": ~negative, "RTM": negative}[mode]
        to_infinity = np.broadcast_to(np.asarray(to_infinity, dtype=bool), m.shape)
        if f.has_inf:
            infinite = np.array([infinity_code(self.name, False), infinity_code(self.name, True)], dtype=U64)
        else:
            infinite = np.full(2, canonical_nan(self.name), dtype=U64)
        big = np.where(to_infinity, infinite[negative.astype(np.intp)], U64(self.max_code) | sign)
        codes = np.where(overflow, big, codes)
        flags = np.where(overflow, OF | NX, flags)
        return codes.astype(U64), flags.astype(np.uint8)
