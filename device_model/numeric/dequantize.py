"""TDEQUANT arithmetic: S8/U8 ``(q - zero_point) * multiplier`` rounded once to FP32.

The value is exact before its one rounding: ``q - zp`` is an integer of at most nine
bits and the FP32 multiplier ``m = sm * 2**em`` has a 24-bit significand, so the
product ``|q - zp| * sm`` (below 2**33) is an exact significand at exponent ``em``,
rounded once by the shared floating rounder (``encode.round_to_float``).

pto-v0 (TileProfileDequantize and ReferenceFP32FiniteEncoding,
asl/arch/profile/reference-quantization.asl): a zero difference is +0 with no flag;
finite results round under the mode (NX when inexact); a result beyond the FP32
range is the signed infinity with OF|NX whatever the rounding mode. SPEC-CHOICE 46:
the contract's "round once using RMode" reads as IEEE rounding, whose directed modes
overflow to the largest finite value; the executable encoder returns infinity for
every mode, and pto-v0 follows it. Underflow cannot happen: a subnormal multiplier
times an integer is a multiple of 2**-149, exact while below 2**-126.

hw-ieee: the same exact value rounded by the hardware profile's IEEE rules (directed
modes overflow to the largest finite value, OF|NX).
"""
from __future__ import annotations

import numpy as np

from ..dtypes import BY_NAME
from .convert import resolve_profile
from .encode import infinity_code, round_to_float
from .flags import FLAG_NX, FLAG_OF
from .quantize import _multiplier
from .rounding import RoundingMode, rounding_mode
from .words import U64, as_words, normalize_integer

_FP32 = BY_NAME["FP32"]
_SIGN = U64(0x80000000)


def integer_values(words, source: str) -> np.ndarray:
    """The S8/U8 values of element Words (their low 8 bits, sign-extended for S8) as int64."""
    t = BY_NAME[source]
    normalized = normalize_integer(as_words(words), t)
    return normalized.view(np.int64) if t.signed else normalized.astype(np.int64)


def dequantize(q_words, multiplier_bits, zero_point, source="S8", rounding="RNE", profile="pto-v0"):
    """Dequantize S8/U8 element Words. Returns ``(FP32 words uint64, flags uint8)`` shaped
    like ``q_words``. ``zero_point``: a Word read as the source type (its low 8 bits,
    sign-extended for S8); ``rounding`` NONE means RNE (the operation default)."""
    if source not in ("S8", "U8"):
        raise ValueError(f"TDEQUANT source must be S8 or U8, not {source}")
    prof = resolve_profile(profile)
    mode = RoundingMode.RNE if str(rounding).strip().upper() == "NONE" else rounding_mode(rounding)
    _, m_sig, m_exp = _multiplier(multiplier_bits)
    q = integer_values(q_words, source)
    shape = q.shape
    difference = q.reshape(-1) - integer_values(as_words(zero_point).reshape(-1)[:1], source)[0]
    negative = difference < 0
    significand = np.abs(difference).astype(U64) * U64(m_sig)
    words, flags = round_to_float(negative, significand, np.full(difference.shape, m_exp, dtype=np.int64),
                                  _FP32, mode, False)
    if prof == "pto-v0":
        overflow = (flags & FLAG_OF) != 0
        words = np.where(overflow, U64(infinity_code(_FP32)) | np.where(negative, _SIGN, U64(0)), words)
        flags = np.where(overflow, FLAG_OF | FLAG_NX, flags)
    return words.astype(U64).reshape(shape), flags.astype(np.uint8).reshape(shape)
