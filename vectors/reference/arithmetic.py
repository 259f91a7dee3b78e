"""Independent exact reference for hw-ieee floating arithmetic, one element at a time.

add, sub, mul, div, fma, rem (TREM's floor modulo), sqrt, rsqrt, recip, exp and log on
encodings of FP64, FP32, TF32, HF32, FP16, BF16, E4M3 and E5M2 (the floating
types the ASL accepts for these operations), under all seven rounding modes.
Written from IEEE 754-2019, the hardware profile's ``arithmetic`` section and
the operations' ASL (fused-multiply-add.asl, unary.asl), sharing no code with
``device_model``: values are ``fractions.Fraction``; rounding is
``numeric.encode_value`` (tininess after rounding, UF only when inexact).

Square roots are rounded from a bracket: ``t = floor(sqrt(v) * 2**k)`` with
``2**-k`` at least eight times finer than the result's half quantum; an inexact
root is then represented by ``(t + 1/2) * 2**-k``, which lies strictly inside
the same rounding interval as the true root (every rounding boundary is a
multiple of ``2**-k``). exp and log (SPEC-CHOICE 20: correctly rounded) are
evaluated with mpmath at a precision far above the result's and rounded by
``encode_value`` once both ends of the error interval agree.
"""
from __future__ import annotations

import math
from fractions import Fraction

import mpmath

from .numeric import (DZ, FORMATS, NV, NX, Value, canonical_nan, decode, encode_value, floor_log2,
                      infinity_code, pow2, zero_code)
from .numeric import max_finite as refmax


def refmin(name: str) -> Fraction:
    """The smallest positive (subnormal) value."""
    f = FORMATS[name]
    return pow2(1 - f.bias - f.frac_bits)

ARITHMETIC_TYPES = ("FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2")


def _check(name: str) -> None:
    if name not in ARITHMETIC_TYPES:
        raise ValueError(f"no hw-ieee arithmetic for {name}")


def _not_number(v: Value) -> bool:
    return v.cls in ("nan", "invalid")


def _signals(v: Value) -> bool:
    # An invalid encoding (TF32/HF32 low bits) is an invalid operand, like a signalling NaN.
    return v.cls == "invalid" or (v.cls == "nan" and v.signalling)


def _nan(name: str, *values: Value, invalid: bool = False) -> tuple[int, int]:
    return canonical_nan(name), (NV if invalid or any(_signals(v) for v in values) else 0)


def _infinity(name: str, negative: bool) -> int:
    # E4M3 has no infinity: its NaN stands for an infinite result (unary.asl,
    # TileFloatingUnaryUnboundedResult; decision 2).
    if FORMATS[name].has_inf:
        return infinity_code(name, negative)
    return canonical_nan(name)


def _round(name: str, x: Fraction, mode: str, zero_negative: bool) -> tuple[int, int]:
    if x == 0:
        return zero_code(name, zero_negative), 0
    return encode_value(name, x < 0, abs(x), mode, False)


def _zero_sign(left_negative: bool, right_negative: bool, mode: str) -> bool:
    """Sign of an exact zero sum: the common sign of two like-signed zeros, else -0
    only toward -infinity (IEEE 754-2019 6.3; RNA, RTO, RHB give +0)."""
    return left_negative if left_negative == right_negative else mode == "RTM"


def _sum(name: str, a: Value, b: Value, mode: str) -> tuple[int, int]:
    if _not_number(a) or _not_number(b):
        return _nan(name, a, b)
    if a.cls == "inf" and b.cls == "inf":
        if a.negative != b.negative:
            return _nan(name, a, b, invalid=True)
        return _infinity(name, a.negative), 0
    if a.cls == "inf" or b.cls == "inf":
        return _infinity(name, (a if a.cls == "inf" else b).negative), 0
    return _round(name, a.exact + b.exact, mode, _zero_sign(a.negative, b.negative, mode))


def _negated(v: Value) -> Value:
    return Value(v.cls, not v.negative, v.magnitude, v.signalling)


def add(name: str, a: int, b: int, mode: str = "RNE") -> tuple[int, int]:
    _check(name)
    return _sum(name, decode(name, a), decode(name, b), mode)


def sub(name: str, a: int, b: int, mode: str = "RNE") -> tuple[int, int]:
    _check(name)
    return _sum(name, decode(name, a), _negated(decode(name, b)), mode)


def mul(name: str, a: int, b: int, mode: str = "RNE") -> tuple[int, int]:
    _check(name)
    x, y = decode(name, a), decode(name, b)
    if _not_number(x) or _not_number(y):
        return _nan(name, x, y)
    negative = x.negative != y.negative
    if x.cls == "inf" or y.cls == "inf":
        if x.is_zero or y.is_zero:
            return _nan(name, x, y, invalid=True)
        return _infinity(name, negative), 0
    return _round(name, x.magnitude * y.magnitude * (-1 if negative else 1), mode, negative)


def _quotient(name: str, x: Value, y: Value, mode: str) -> tuple[int, int]:
    if _not_number(x) or _not_number(y):
        return _nan(name, x, y)
    negative = x.negative != y.negative
    if x.cls == "inf":
        if y.cls == "inf":
            return _nan(name, x, y, invalid=True)
        return _infinity(name, negative), 0
    if y.cls == "inf":
        return zero_code(name, negative), 0
    if y.is_zero:
        if x.is_zero:
            return _nan(name, x, y, invalid=True)
        return _infinity(name, negative), DZ
    return _round(name, x.magnitude / y.magnitude * (-1 if negative else 1), mode, negative)


def div(name: str, a: int, b: int, mode: str = "RNE") -> tuple[int, int]:
    _check(name)
    return _quotient(name, decode(name, a), decode(name, b), mode)


def recip(name: str, a: int, mode: str = "RNE") -> tuple[int, int]:
    _check(name)
    return _quotient(name, Value("finite", False, Fraction(1)), decode(name, a), mode)


def fma(name: str, a: int, b: int, c: int, mode: str = "RNE") -> tuple[int, int]:
    """a*b + c rounded once. Invalid as TileFixedFusedMultiplyAddValue classifies it:
    a signalling NaN, 0*inf, or an infinite product against an opposite infinite addend,
    a NaN multiplicand counting as positive."""
    _check(name)
    x, y, z = decode(name, a), decode(name, b), decode(name, c)

    def negative_class(v: Value) -> bool:
        return v.negative and not _not_number(v)

    zero_times_infinity = (x.is_zero and y.cls == "inf") or (x.cls == "inf" and y.is_zero)
    product_infinite = x.cls == "inf" or y.cls == "inf"
    opposite = (product_infinite and z.cls == "inf"
                and (negative_class(x) != negative_class(y)) != z.negative)
    if zero_times_infinity or opposite:
        return _nan(name, x, y, z, invalid=True)
    if _not_number(x) or _not_number(y) or _not_number(z):
        return _nan(name, x, y, z)
    p_negative = x.negative != y.negative
    if product_infinite:
        return _infinity(name, p_negative), 0
    if z.cls == "inf":
        return _infinity(name, z.negative), 0
    product = x.magnitude * y.magnitude * (-1 if p_negative else 1)
    return _round(name, product + z.exact, mode, _zero_sign(p_negative, z.negative, mode))


def rem(name: str, a: int, b: int, mode: str = "RNE") -> tuple[int, int]:
    """TREM floor modulo: a - b*floor(a/b), rounded once; a zero result has b's sign.
    SPEC-CHOICE 19: b = +-inf gives a when a is zero or has b's sign, else b; a = +-inf or
    b = +-0 is invalid."""
    _check(name)
    x, y = decode(name, a), decode(name, b)
    if _not_number(x) or _not_number(y):
        return _nan(name, x, y)
    if x.cls == "inf" or y.is_zero:
        return _nan(name, x, y, invalid=True)
    if y.cls == "inf":
        if x.is_zero:
            return zero_code(name, y.negative), 0
        if x.negative == y.negative:
            return _round(name, x.exact, mode, x.negative)
        return _infinity(name, y.negative), 0
    q = math.floor(x.exact / y.exact)
    return _round(name, x.exact - y.exact * q, mode, y.negative)


def _precision(name: str) -> int:
    return FORMATS[name].frac_bits + 1


def _round_root(name: str, v: Fraction, mode: str) -> tuple[int, int]:
    """Round sqrt(v), v > 0 rational, once (see the module docstring)."""
    e = floor_log2(v) // 2  # floor(log2(sqrt(v)))
    k = _precision(name) + 3 - e  # 2**-k is 2**(e - p - 3)
    scaled = v * pow2(2 * k)
    t = math.isqrt(scaled.numerator // scaled.denominator)
    root = Fraction(t) if t * t == scaled else t + Fraction(1, 2)
    return encode_value(name, False, root * pow2(-k), mode, False)


def sqrt(name: str, a: int, mode: str = "RNE") -> tuple[int, int]:
    _check(name)
    x = decode(name, a)
    if _not_number(x):
        return _nan(name, x)
    if x.is_zero:
        return zero_code(name, x.negative), 0
    if x.negative:
        return _nan(name, x, invalid=True)
    if x.cls == "inf":
        return _infinity(name, False), 0
    return _round_root(name, x.magnitude, mode)


def rsqrt(name: str, a: int, mode: str = "RNE") -> tuple[int, int]:
    _check(name)
    x = decode(name, a)
    if _not_number(x):
        return _nan(name, x)
    if x.is_zero:
        return _infinity(name, x.negative), DZ
    if x.negative:
        return _nan(name, x, invalid=True)
    if x.cls == "inf":
        return zero_code(name, False), 0
    return _round_root(name, 1 / x.magnitude, mode)


_ONE = {"FP64": 0x3FF0000000000000, "FP32": 0x3F800000, "TF32": 0x3F800000, "HF32": 0x3F800000,
        "FP16": 0x3C00, "BF16": 0x3F80, "E4M3": 0x38, "E5M2": 0x3C}


def _round_transcendental(name: str, function, x: Fraction, mode: str) -> tuple[int, int]:
    """Round f(x) once, for f = exp or log and rational x where f(x) is irrational:
    evaluate at a generous precision, then accept when both ends of a 16-ulp error
    interval round alike (the true value lies between them); else double the precision."""
    precision = 4 * _precision(name) + 64
    while True:
        with mpmath.workprec(precision):
            y = Fraction(*function(mpmath.mpf(x.numerator) / x.denominator).as_integer_ratio())
        error = abs(y) / 2 ** (precision - 4)
        low = _round(name, y - error, mode, False)
        high = _round(name, y + error, mode, False)
        if low[0] == high[0] and low[1] | NX == high[1] | NX:
            return low[0], low[1] | NX
        precision *= 2


def exp(name: str, a: int, mode: str = "RNE") -> tuple[int, int]:
    """SPEC-CHOICE 20: correctly rounded; special values of TileSFUUnarySpecialValue."""
    _check(name)
    x = decode(name, a)
    if _not_number(x):
        return _nan(name, x)
    if x.is_zero:
        return _ONE[name], 0
    if x.cls == "inf":
        return (zero_code(name, False) if x.negative else _infinity(name, False)), 0
    # Far arguments (e > 2, so e**k > 2**k for k > 0 and e**-k < 2**-k): beyond 2**(E+2)
    # everything overflows alike, below an eighth of the smallest subnormal everything is
    # a tiny positive value that rounds alike; stand-ins keep the numbers small.
    top = floor_log2(refmax(name)) + 2
    bottom = floor_log2(refmin(name)) - 3
    if x.exact > top:
        return _round(name, Fraction(2) ** top, mode, False)
    if x.exact < bottom:
        return _round(name, Fraction(2) ** (bottom - 1), mode, False)
    return _round_transcendental(name, mpmath.exp, x.exact, mode)


def log(name: str, a: int, mode: str = "RNE") -> tuple[int, int]:
    """SPEC-CHOICE 20: correctly rounded; special values of TileSFUUnarySpecialValue."""
    _check(name)
    x = decode(name, a)
    if _not_number(x):
        return _nan(name, x)
    if a == _ONE[name]:
        return zero_code(name, False), 0
    if x.is_zero:
        return _infinity(name, True), DZ
    if x.negative:
        return _nan(name, x, invalid=True)
    if x.cls == "inf":
        return _infinity(name, False), 0
    return _round_transcendental(name, mpmath.log, x.exact, mode)


BINARY = {"ADD": add, "SUB": sub, "MUL": mul, "DIV": div, "REM": rem}
UNARY = {"SQRT": sqrt, "RSQRT": rsqrt, "RECIP": recip, "EXP": exp, "LOG": log}
