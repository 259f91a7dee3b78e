"""hw-ieee natural exponential and logarithm, correctly rounded (a project choice).

SPEC-CHOICE 20: the hardware profile says only that TEXP/TLOG compute "the selected
profile's same-type natural exponential/logarithm" with IEEE special values and
status (TileSFUUnarySpecialValue fixes the special operands); it pins no
accuracy. The golden model returns the correctly rounded result (IEEE 754-2019
9.2 recommends exactly that), under any of the seven modes, with OF/UF/NX from
that one rounding; a device is judged by a per-vector ULP tolerance, never by
this choice alone. Two FP32 exponentials the profile does fix
(HardwareNumericMixedExpdifDiscriminator, mx-formats.asl) are correctly rounded
values and are checked in the tests.

Method (Ziv): evaluate with mpmath (arbitrary precision, pure Python, BSD
licence, maintained since 2007) at p + 40 bits, bound the error by 8 units of
the working precision, and accept when the whole error interval lies strictly
between two adjacent multiples of ``q = 2**(e - p - 2)`` (``e`` the binade of
its lower end): every rounding boundary of the p-bit result -- midpoints,
representable values, the overflow and tininess thresholds -- is such a
multiple, so the true value rounds like the interval's midpoint cell, passed
to ``round_to_float`` as ``(2N + 1) * q/2``. Otherwise the precision doubles.
exp(x) and log(x) are transcendental for the rational x reaching this path
(x != 0, x != 1), so the loop ends. Brackets are cached per (function, type, input); one
vectorized rounding per call applies the mode.
"""
from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import mpmath
import numpy as np

from ..dtypes import DataType, dtype as _dtype
from .encode import geometry, round_to_float
from .formats import decode_lanes
from .ieee_float import FLOAT_TYPES
from .rounding import rounding_mode
from .words import U64, as_words, lanes

_GUARD = 40
_ERROR_UNITS = 3  # the error bound is 2**_ERROR_UNITS units in the last working bit
_LN2_ABOVE = Fraction(7, 10)  # > ln 2


def _exact_input(negative: bool, sig: int, exp: int):
    return mpmath.mpf(-sig if negative else sig) * mpmath.mpf(2) ** exp


def _clamped_exp_argument(x: Fraction, t: DataType) -> Fraction:
    """An argument whose exp rounds like exp(x) but stays small: beyond 2**(emax+2)
    everything overflows alike, below 2**(lowest quantum - 3) everything is a
    tiny positive value alike (exp(k * 0.7) lies beyond 2**k for either sign of k)."""
    g = geometry(t)
    high = (g.emax + 2) * _LN2_ABOVE
    low = (g.q_floor - t.fmt.frac_bits - 3) * _LN2_ABOVE
    return min(max(x, low), high)


def _bracket(function: str, negative: bool, sig: int, exp: int, t: DataType):
    """``(negative, N2p1, exponent)``: the result lies strictly inside
    ``(N * 2**k, (N + 1) * 2**k)`` with ``N2p1 = 2N + 1``, exponent ``k - 1``."""
    p = t.fmt.frac_bits + 1
    x = Fraction(-sig if negative else sig) * Fraction(2) ** exp
    if function == "EXP":
        x = _clamped_exp_argument(x, t)
    work = p + _GUARD
    while True:
        with mpmath.workprec(work + 8):
            arg = mpmath.mpf(x.numerator) / x.denominator if x.denominator != 1 else mpmath.mpf(x.numerator)
            with mpmath.workprec(work):
                y = mpmath.exp(arg) if function == "EXP" else mpmath.log(arg)
        man, e = abs(int(y.man)), int(y.exp)
        result_negative = bool(y < 0)
        top = e + man.bit_length() - 1
        err_exp = top - work + _ERROR_UNITS
        # Interval [man*2**e - 2**err_exp, man*2**e + 2**err_exp] at scale 2**base
        base = min(e, err_exp)
        centre = man << (e - base)
        err = 1 << (err_exp - base)
        low, high = centre - err, centre + err
        if low > 0:
            q_exp = (low.bit_length() - 1 + base) - p - 2
            shift = q_exp - base
            if shift > 0:
                n_low, rest = low >> shift, low & ((1 << shift) - 1)
                if n_low == high >> shift and rest != 0:
                    return result_negative, 2 * n_low + 1, q_exp - 1
        work *= 2


@lru_cache(maxsize=1 << 17)
def _cached_bracket(function: str, type_name: str, negative: bool, sig: int, exp: int):
    return _bracket(function, negative, sig, exp, _dtype(type_name))


def _evaluate(function: str, bits, dtype, rounding):
    t = _dtype(dtype)
    if t.name not in FLOAT_TYPES:
        raise ValueError(f"hw-ieee {function} is defined for {', '.join(FLOAT_TYPES)}, not {t.name}")
    mode = rounding_mode(rounding)
    words_in = as_words(bits)
    shape = words_in.shape
    d = decode_lanes(lanes(words_in.reshape(-1), t.bits), t)
    words = np.zeros(d.cls.shape, dtype=U64)
    flags = np.zeros(d.cls.shape, dtype=np.uint8)
    todo = np.flatnonzero(d.finite & (d.sig != 0))
    if todo.size:
        brackets = [_cached_bracket(function, t.name, bool(n), int(s), int(e))
                    for n, s, e in zip(d.negative[todo], d.sig[todo], d.exp[todo])]
        n, s, e = (np.array(column) for column in zip(*brackets))
        words[todo], flags[todo] = round_to_float(n.astype(bool), s.astype(U64), e.astype(np.int64), t, mode, False)
    return words.reshape(shape), flags.reshape(shape)


def exp_finite(bits, dtype, rounding="RNE"):
    """Correctly rounded exp of nonzero finite operands (other lanes give 0, no flag:
    the SFU special-value path owns zeros, infinities and NaNs)."""
    return _evaluate("EXP", bits, dtype, rounding)


def log_finite(bits, dtype, rounding="RNE"):
    """Correctly rounded log of positive finite operands other than 1 (other lanes
    give 0: the special-value path owns them; a negative operand must not reach here)."""
    return _evaluate("LOG", bits, dtype, rounding)


def ulp_distance(expected, observed, dtype) -> np.ndarray:
    """How many representable values lie between two finite encodings of ``dtype``
    (0 for equal values, +0 and -0 equal), as int64; -1 where either is not finite."""
    t = _dtype(dtype)
    a, b = (decode_lanes(lanes(as_words(w), t.bits), t) for w in (expected, observed))
    shift = t.fmt.frac_shift

    def ordinal(d, w):
        magnitude = (lanes(as_words(w), t.bits).astype(np.int64) & ((1 << t.fmt.sign_bit) - 1)) >> shift
        return np.where(d.negative, -magnitude, magnitude)

    distance = np.abs(ordinal(a, expected) - ordinal(b, observed))
    return np.where(a.finite & b.finite, distance, -1)
