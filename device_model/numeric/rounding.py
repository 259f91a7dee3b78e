"""Rounding modes and the one-quantum increment decision shared by every rounder.

A rounder reduces an exact magnitude to ``N`` whole quanta plus a remainder,
summarised by ``half`` (the remainder is at least half a quantum) and
``sticky`` (anything below that half bit is nonzero). The helpers here decide,
from integers only, whether the rounded magnitude is ``N`` or ``N + 1``.
"""
from __future__ import annotations

import enum

import numpy as np


class RoundingMode(enum.Enum):
    """The seven semantic rounding modes (asl/arch/data-types/rounding.asl)."""

    RNE = "RNE"  # nearest, ties to even
    RTM = "RTM"  # toward -infinity (B.DATR name RDN)
    RTP = "RTP"  # toward +infinity (B.DATR name RUP)
    RTZ = "RTZ"  # toward zero
    RNA = "RNA"  # nearest, ties away from zero
    RTO = "RTO"  # round to odd: an inexact result takes the candidate with LSB 1
    RHB = "RHB"  # nearest, an exact tie takes the numerically greater candidate


_ALIASES = {"RDN": RoundingMode.RTM, "RUP": RoundingMode.RTP}
NEAREST_MODES = frozenset({RoundingMode.RNE, RoundingMode.RNA, RoundingMode.RHB})


def rounding_mode(name) -> RoundingMode:
    """Resolve a mode name (case-insensitive; RDN/RUP are RTM/RTP) or a RoundingMode."""
    if isinstance(name, RoundingMode):
        return name
    key = str(name).strip().upper()
    if key in _ALIASES:
        return _ALIASES[key]
    try:
        return RoundingMode(key)
    except ValueError:
        raise ValueError(
            f"unknown rounding mode {name!r}; expected one of RNE RTZ RTM RTP RNA RTO RHB (RDN, RUP aliases)"
        ) from None


def magnitude_increment(mode: RoundingMode, negative, odd, half, sticky):
    """True where the magnitude ``N`` (with LSB ``odd``) must become ``N + 1``.

    All arguments are boolean arrays (or scalars) of one shape; ``negative`` is
    the sign of the exact value, ``half``/``sticky`` describe the remainder.
    """
    if mode is RoundingMode.RNE:
        return half & (sticky | odd)
    if mode is RoundingMode.RNA:
        return half
    if mode is RoundingMode.RTZ:
        return np.zeros_like(half)
    if mode is RoundingMode.RTP:
        return (half | sticky) & ~negative
    if mode is RoundingMode.RTM:
        return (half | sticky) & negative
    if mode is RoundingMode.RTO:
        return (half | sticky) & ~odd
    # RHB: a positive tie goes up in magnitude, a negative tie stays (greater value).
    return half & (sticky | ~negative)


def floor_increment(mode: RoundingMode, floor_negative, odd, half, sticky):
    """True where a value with integer floor ``L`` rounds to ``L + 1``.

    FloatingToInteger (asl/scalar/model/fsu/arithmetic.asl, with the reference
    profile's ties-to-even RNE): ``half``/``sticky`` describe ``value - L`` and
    ``floor_negative`` is ``L < 0`` (the sign of the value itself).
    """
    inexact = half | sticky
    if mode is RoundingMode.RNE:
        return half & (sticky | odd)
    if mode is RoundingMode.RTP:
        return inexact
    if mode is RoundingMode.RTM:
        return np.zeros_like(half)
    if mode is RoundingMode.RTZ:
        return inexact & floor_negative
    if mode is RoundingMode.RNA:
        return half & (sticky | ~floor_negative)
    if mode is RoundingMode.RTO:
        return inexact & ~odd
    return half  # RHB: a fraction of one half or more goes up
