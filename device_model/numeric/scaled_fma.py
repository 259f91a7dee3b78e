"""One hardware-profile MX accumulation step of TGEMV_MX_ACC (JSON ``matrix.mx``):
``acc + (a * 2**(sa-127)) * (b * 2**(sb-127))`` rounded once to FP32 with RNE, from
``ieee_float``'s exact product and sum (no rounded intermediate).
"""
from __future__ import annotations

import numpy as np

from ..dtypes import BY_NAME, dtype as _dtype
from .encode import round_to_float
from .flags import FLAG_NV
from .formats import decode_lanes
from .ieee_float import exact_product, exact_sum, is_zero, not_a_number, signals_invalid
from .rounding import RoundingMode
from .words import U64, as_words, lanes

_FP32 = BY_NAME["FP32"]
_FP32_NAN = U64(0x7FC00000)


def _scaled_term(bits, type_name, scale, shape):
    """Decoded MX operand lanes with the E8M0 scale folded into the exponent,
    and a mask of lanes whose scale is the E8M0 NaN 0xFF."""
    t = _dtype(type_name)
    d = decode_lanes(lanes(np.broadcast_to(as_words(bits), shape).reshape(-1), t.bits), t)
    if scale is None:
        return d, np.zeros(d.cls.shape, dtype=bool)
    code = np.broadcast_to(as_words(scale), shape).reshape(-1) & U64(0xFF)
    nan_scale = code == U64(0xFF)
    d.exp = d.exp + np.where(nan_scale, 0, code.astype(np.int64) - 127)
    return d, nan_scale


def scaled_fma_fp32(acc_bits, a_bits, atype, a_scale, b_bits, btype, b_scale):
    """One hw-ieee MX step per lane: ``acc + (a*2**(sa-127)) * (b*2**(sb-127))``,
    rounded once to FP32 with RNE. Returns ``(acc words uint64, flags uint8)``.

    ``a_scale``/``b_scale``: E8M0 codes (broadcast) or None for an unscaled
    side. A 0xFF scale makes the lane the canonical NaN 0x7FC00000 (a quiet
    NaN: NV only if an operand signals). Other specials follow IEEE fma:
    NaN -> canonical NaN (NV for a signalling operand), inf*0 and inf-inf -> NV.
    """
    shape = np.broadcast_shapes(np.shape(as_words(acc_bits)), np.shape(as_words(a_bits)), np.shape(as_words(b_bits)),
                                np.shape(as_words(a_scale)) if a_scale is not None else (),
                                np.shape(as_words(b_scale)) if b_scale is not None else ())
    c = decode_lanes(lanes(np.broadcast_to(as_words(acc_bits), shape).reshape(-1), 32), _FP32)
    x, x_nan_scale = _scaled_term(a_bits, atype, a_scale, shape)
    y, y_nan_scale = _scaled_term(b_bits, btype, b_scale, shape)

    p_negative = x.negative ^ y.negative
    p_sig, extra = exact_product(x.sig, y.sig)
    p_exp = x.exp + y.exp + extra
    negative, sig, exp = exact_sum(p_negative, p_sig, p_exp, c.negative, c.sig, c.exp)
    words, flags = round_to_float(negative, sig, exp, _FP32, RoundingMode.RNE, False)

    # A NaN operand (or a NaN scale, which makes its term a quiet NaN) gives the
    # canonical NaN, NV only for a signalling operand; IEEE leaves inf*0 + qNaN
    # implementation-defined and this takes the quiet choice.
    nan = not_a_number(c) | not_a_number(x) | not_a_number(y) | x_nan_scale | y_nan_scale
    signals = signals_invalid(c) | signals_invalid(x) | signals_invalid(y)
    inf_times_zero = ~nan & ((x.infinite & is_zero(y)) | (y.infinite & is_zero(x)))
    p_inf = ~nan & (x.infinite | y.infinite) & ~inf_times_zero
    opposite_infs = p_inf & c.infinite & (p_negative != c.negative)
    infinite = ~nan & (p_inf | c.infinite) & ~opposite_infs
    inf_negative = np.where(p_inf, p_negative, c.negative)
    words = np.where(infinite, U64(0x7F800000) | (inf_negative.astype(U64) << U64(31)), words)
    flags = np.where(infinite, 0, flags)
    invalid = inf_times_zero | opposite_infs
    words = np.where(nan | invalid, _FP32_NAN, words)
    flags = np.where(nan, np.where(signals, FLAG_NV, 0), np.where(invalid, FLAG_NV, flags))
    return words.astype(U64).reshape(shape), flags.astype(np.uint8).reshape(shape)
