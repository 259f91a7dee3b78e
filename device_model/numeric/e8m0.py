"""TCVT to E8M0 (ReferenceFloatToE8M0, asl/arch/profile/e8m0-conversion.asl).

Bit-exact in both profiles. Only FP16, BF16 and FP32 sources exist
(HardwareTCVTTypePairSupported). A positive finite value ``sig * 2**exp`` has
floor exponent ``f = exp + h`` (``h`` the top set bit of ``sig``); a
non-power-of-two picks ``f`` or ``f + 1`` in the exponent domain:
RTM -> f; RTP -> f+1; RTZ -> toward exponent 0; RTO -> the odd exponent;
RNE/RNA/RHB -> nearest in log2, i.e. ``f + 1`` iff ``sig**2 > 2**(2h+1)``
(never a tie for an integer ``sig``, so the three modes agree).
"""
from __future__ import annotations

import math

import numpy as np

from ..dtypes import DataType
from .flags import FLAG_NV, FLAG_NX, FLAG_OF, FLAG_UF
from .formats import ValueClass, decode_lanes
from .rounding import NEAREST_MODES, RoundingMode
from .words import U64, bit_length

SOURCES = frozenset({"FP16", "BF16", "FP32"})
_NAN = 0xFF
_MAX = 0xFE

# Largest significand with top bit h whose square is below 2**(2h+1): the
# log2-nearest rounding goes up iff sig exceeds it. math.isqrt is exact.
_SQRT2_FLOOR = np.array([math.isqrt(1 << (2 * h + 1)) for h in range(64)], dtype=U64)


def _round_up(mode: RoundingMode, sig, hb, f, inexact):
    """Exponent-domain increment for inexact positive values."""
    if mode is RoundingMode.RTM:
        up = np.zeros(sig.shape, dtype=bool)
    elif mode is RoundingMode.RTP:
        up = np.ones(sig.shape, dtype=bool)
    elif mode is RoundingMode.RTZ:
        up = f < 0
    elif mode is RoundingMode.RTO:
        up = (f % 2) == 0
    else:
        assert mode in NEAREST_MODES
        up = sig > _SQRT2_FLOOR[hb]
    return up & inexact


def e8m0_from_lanes(lane, src: DataType, mode: RoundingMode, saturate: bool):
    """E8M0 codes and flags for FP16/BF16/FP32 lanes (generic path)."""
    return e8m0_from_decoded(decode_lanes(lane, src), mode, saturate)


def e8m0_from_decoded(d, mode: RoundingMode, saturate: bool):
    """ReferenceFloatToE8M0 on decoded values. Values beyond 2**127 (reachable
    only from wider sources than the spec allows) count as the finite overflow."""
    positive = (d.cls == ValueClass.POSITIVE_NORMAL) | (d.cls == ValueClass.POSITIVE_SUBNORMAL)
    sig = np.where(positive, d.sig, U64(1))
    hb = bit_length(sig) - 1
    f = np.where(positive, d.exp + hb, 0)
    inexact = sig != (U64(1) << hb.astype(U64))
    code = f + 127 + _round_up(mode, sig, hb, f, inexact)
    flags = np.where(inexact, FLAG_NX, 0)
    underflow = f < -127
    overflow = (f > 127) | ((f == 127) & inexact)
    code = np.where(underflow, 0 if saturate else _NAN, code)
    code = np.where(overflow, _MAX if saturate else _NAN, code)
    flags = np.where(underflow, FLAG_UF | FLAG_NX, np.where(overflow, FLAG_OF | FLAG_NX, flags))
    infinity = d.cls == ValueClass.POSITIVE_INFINITY
    code = np.where(infinity, _MAX if saturate else _NAN, code)
    flags = np.where(infinity, FLAG_OF | FLAG_NX, flags)
    invalid = ~positive & ~infinity  # invalid encodings, NaNs, zeros, negatives
    code = np.where(invalid, _NAN, code)
    flags = np.where(invalid, FLAG_NV, flags)
    return code.astype(U64), flags.astype(np.uint8)


def e8m0_fast(lane, words, flags, src: DataType, mode: RoundingMode):
    """Whole-array shortcut: fills ``words``/``flags`` for positive normals that
    stay in range and for zeros, negatives and NaNs (0xFF with NV).

    Returns the indices of elements left undecided, or None (positive subnormals,
    +infinity, the overflow band just below 2**128): they need
    :func:`e8m0_from_lanes`.
    """
    fmt = src.fmt
    m = fmt.frac_bits
    ct = lane.dtype.type
    top = (1 << fmt.exp_bits) - 1
    biased = lane >> ct(m)  # exponent field, plus 2**exp_bits when negative
    frac = lane & ct((1 << m) - 1)
    inexact = frac != 0
    if mode in NEAREST_MODES:
        up = frac > ct(int(_SQRT2_FLOOR[m]) - (1 << m))
    elif mode is RoundingMode.RTP:
        up = inexact
    elif mode is RoundingMode.RTM:
        up = None
    elif mode is RoundingMode.RTZ:  # toward exponent 0: up when f < 0
        up = inexact & (biased < ct(fmt.bias))
    else:  # RTO: up when f is even
        up = inexact & (((biased ^ ct(fmt.bias)) & ct(1)) == 0)
    code = biased + ct(127 - fmt.bias) if fmt.bias != 127 else biased.copy()
    if up is not None:
        code += up.view(np.uint8).astype(ct)
    handled = (biased - ct(1)) < ct(top - 1)  # positive normals
    if fmt.bias + 127 < top:  # f == 127 with a fraction overflows
        handled &= ~((biased == ct(fmt.bias + 127)) & inexact)
    # Zeros, negatives and NaNs: 0xFF with NV. Blended arithmetically: a
    # data-dependent mask assignment is far slower than a few more passes.
    invalid = biased > ct(top)
    invalid |= lane == 0
    invalid |= (lane & ct((1 << fmt.sign_bit) - 1)) > ct(top << m)
    invalid_bytes = invalid.view(np.uint8)
    code |= ct(0) - invalid_bytes.astype(ct)
    code &= ct(_NAN)
    inexact &= ~invalid
    np.multiply(inexact.view(np.uint8), np.uint8(FLAG_NX), out=flags)
    flags |= invalid_bytes  # FLAG_NV is 1
    words[...] = code
    handled |= invalid
    return None if handled.all() else np.flatnonzero(~handled)
