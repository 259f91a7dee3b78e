"""Element values of the arithmetic Tile operations in both numeric profiles.

Operands and results are Tile element words (uint64, as the tile payload holds
them). Facts from asl/tile/model/execution/elementwise.asl
(TileProfileBinaryWithFlags, TileIntegerBinaryValue, TileIntegerDivRemValue,
TileSignedModulo), fused-multiply-add.asl (TileFixedFusedMultiplyAddValue),
unary.asl (TileSFUUnarySpecialValue, TileUnaryValue) and the reference profile
(asl/arch/profile/reference-profile.asl).

- Integer types, both profiles (the ASL paths are not profile hooks): operands
  are sign- (S) or zero-extended (U) from the element width; ADD/SUB/MUL wrap
  and normalize to the width; DIV truncates (signed: ScalarDivideSigned on the
  extended values, returned unnormalized, so S8 -128 / -1 is the word 128);
  REM is unsigned remainder or TileSignedModulo (floor, the divisor's sign);
  FMA is ``l*r + a`` on zero-extended operands, zero-extended at the width for
  S and U types alike. No flags. A zero divisor is rejected by the operation
  before execution (here it gives 0).
- Floating types, pto-v0: raw carrier words. ADD/SUB/MUL are the 64-bit sum,
  difference and low product; DIV is unsigned word division and REM the
  unsigned remainder, both giving all ones for a zero divisor (DIV with DZ)
  where "zero" is ScalarFPCarrierIsZero: FP32 looks at the low 32 bits, every
  other type at the whole word as FP64 (so an FP16 -0, word 0x8000, is a
  nonzero divisor); FMA is ``l*r + a`` after the architectural invalid
  classification; the SFU unary operations take TileSFUUnarySpecialValue's
  special values, then SQRT/RSQRT/LOG return the word, EXP the word + 1 and
  RECIP all-ones divided by the word (unsigned), with no flags.
- Floating types, hw-ieee: ``ieee_float`` (one IEEE rounding, RNE: the
  operations use DefaultNumericExecutionControl) and, for EXP and LOG,
  ``transcendental`` (correctly rounded, the choice its docstring states); the SFU special values
  are those of pto-v0 (TileSFUUnarySpecialValue is not a profile hook).
"""
from __future__ import annotations

import numpy as np

from ..dtypes import DataType, dtype as _dtype
from . import ieee_float, transcendental
from .convert import resolve_profile
from .encode import infinity_code
from .flags import FLAG_DZ, FLAG_NV
from .formats import CLASS_CODES, decode_lanes
from .words import U64, as_words, lanes, normalize_integer

_ONES = U64(0xFFFFFFFFFFFFFFFF)
_C = CLASS_CODES
BINARY = ("ADD", "SUB", "MUL", "DIV", "REM")
UNARY = ("SQRT", "RSQRT", "RECIP", "EXP", "LOG")


def _words(*values):
    arrays = [as_words(v) for v in values]
    if any(a.shape != arrays[0].shape for a in arrays):  # equal shapes (the tile case) need no broadcast
        arrays = np.broadcast_arrays(*arrays)
    return arrays[0].shape, [a.reshape(-1) for a in arrays]


def _no_flags(shape):
    return np.zeros(shape, dtype=np.uint8)


# ----------------------------------------------------------------------------- integers


def _signed_quotient(a, b):
    """ScalarDivideSigned on 64-bit words (truncating, wraps for -2**63 / -1)."""
    na, nb = (a >> U64(63)) != 0, (b >> U64(63)) != 0
    q = np.where(na, U64(0) - a, a) // np.where(nb, U64(0) - b, b)
    return np.where(na != nb, U64(0) - q, q)


def _integer_binary(op, left, right, t: DataType):
    a, b = normalize_integer(left, t), normalize_integer(right, t)
    if op == "ADD":
        return normalize_integer(a + b, t)
    if op == "SUB":
        return normalize_integer(a - b, t)
    if op == "MUL":
        return normalize_integer(a * b, t)
    zero = b == 0
    b = np.where(zero, U64(1), b)
    if op == "DIV":
        q = _signed_quotient(a, b) if t.signed else a // b
        return np.where(zero, U64(0), q)
    if t.signed:  # TileSignedModulo
        r = a - _signed_quotient(a, b) * b
        keep = (r == 0) | ((r >> U64(63)) == (b >> U64(63)))
        r = np.where(keep, r, r + b)
    else:
        r = a % b
    return np.where(zero, U64(0), r)


def integer_divisor_zero(words, dtype) -> np.ndarray:
    """True where an integer divisor element is zero (TileIntegerOperandValue == 0)."""
    t = _dtype(dtype)
    return lanes(words, t.bits) == 0


# ----------------------------------------------------------------------------- binary


def _raw_zero(words, t: DataType):
    """ScalarFPCarrierIsZero with the TileDataType encoding: FP32 (code 1) tests the
    low 32 bits as FP32, every other code the whole word as FP64."""
    if t.name == "FP32":
        return (words & U64(0x7FFFFFFF)) == 0
    return (words & U64(0x7FFFFFFFFFFFFFFF)) == 0


def _raw_binary(op, a, b, t: DataType):
    flags = _no_flags(a.shape)
    if op == "ADD":
        return a + b, flags
    if op == "SUB":
        return a - b, flags
    if op == "MUL":
        return a * b, flags
    zero = _raw_zero(b, t)
    safe = np.where(zero, U64(1), b)
    value = a // safe if op == "DIV" else a % safe
    if op == "DIV":
        flags = np.where(zero, FLAG_DZ, 0).astype(np.uint8)
    return np.where(zero, _ONES, value), flags


def binary(op: str, left, right, dtype, profile="pto-v0"):
    """TileProfileBinaryWithFlags for ADD, SUB, MUL, DIV, REM. Returns ``(words, flags)``."""
    t = _dtype(dtype)
    prof = resolve_profile(profile)
    if op not in BINARY:
        raise ValueError(f"unknown arithmetic operation {op!r}; expected one of {', '.join(BINARY)}")
    shape, (a, b) = _words(left, right)
    if t.is_integer:
        words, flags = _integer_binary(op, a, b, t), _no_flags(a.shape)
    elif prof == "pto-v0":
        words, flags = _raw_binary(op, a, b, t)
    else:
        words, flags = ieee_float.BINARY[op](lanes(a, t.bits), lanes(b, t.bits), t)
    return words.reshape(shape), flags.reshape(shape)


def multiply(left, right, dtype, profile="pto-v0"):
    """``left * right`` as TileProfileBinaryWithFlags MUL: the one multiply of TMUL and
    TMULS (``numeric.multiply``; TMULS passes its scalar as the raw element it reads)."""
    return binary("MUL", left, right, dtype, profile)


# ----------------------------------------------------------------------------- fma


def fma(left, right, addend, dtype, profile="pto-v0"):
    """TileFixedFusedMultiplyAddValue: ``left * right + addend``. Returns ``(words, flags)``."""
    t = _dtype(dtype)
    prof = resolve_profile(profile)
    shape, (a, b, c) = _words(left, right, addend)
    if t.is_integer:  # TileUnsignedElementValue on the operands and the result
        mask = U64(t.mask) if t.bits < 64 else _ONES
        words, flags = ((a & mask) * (b & mask) + (c & mask)) & mask, _no_flags(a.shape)
    elif prof == "hw-ieee":
        words, flags = ieee_float.fma(lanes(a, t.bits), lanes(b, t.bits), lanes(c, t.bits), t)
    else:
        x, y, z = (decode_lanes(lanes(w, t.bits), t) for w in (a, b, c))
        signaling = (x.cls == _C.SIGNALING_NAN) | (y.cls == _C.SIGNALING_NAN) | (z.cls == _C.SIGNALING_NAN)
        zero_x, zero_y = _zero_class(x.cls), _zero_class(y.cls)
        zero_times_infinity = (zero_x & y.infinite) | (x.infinite & zero_y)
        p_infinite = x.infinite | y.infinite
        p_negative = _negative_class(x.cls) != _negative_class(y.cls)
        opposite = p_infinite & z.infinite & (p_negative != _negative_class(z.cls))
        invalid = signaling | zero_times_infinity | opposite
        words = np.where(invalid, U64(t.canonical_nan), a * b + c)
        flags = np.where(invalid, FLAG_NV, 0).astype(np.uint8)
    return words.reshape(shape), flags.reshape(shape)


def _zero_class(cls):
    return (cls == _C.POSITIVE_ZERO) | (cls == _C.NEGATIVE_ZERO)


def _negative_class(cls):
    """TileNumericClassIsNegative."""
    return ((cls == _C.NEGATIVE_ZERO) | (cls == _C.NEGATIVE_SUBNORMAL) | (cls == _C.NEGATIVE_NORMAL)
            | (cls == _C.NEGATIVE_INFINITY))


# ----------------------------------------------------------------------------- SFU unary


_ONE_ENCODING = {"FP64": 0x3FF0000000000000, "FP32": 0x3F800000, "TF32": 0x3F800000, "HF32": 0x3F800000,
                 "FP16": 0x3C00, "BF16": 0x3F80, "E4M3": 0x38, "E5M2": 0x3C}  # TileFloatingUnaryOneEncoding


def _unbounded(t: DataType, negative):
    """TileFloatingUnaryUnboundedResult: signed infinity, or E4M3's NaN."""
    if not t.fmt.has_inf:
        return np.full(np.shape(negative), U64(t.canonical_nan))
    return U64(infinity_code(t)) | (np.asarray(negative).astype(U64) << U64(t.fmt.sign_bit))


def sfu_special(op: str, value, t: DataType):
    """TileSFUUnarySpecialValue: ``(handled, words, flags)`` from the element carrier."""
    carrier = lanes(value, t.bits).astype(U64)
    cls = decode_lanes(carrier, t).cls
    shape = carrier.shape
    handled = np.zeros(shape, dtype=bool)
    words = np.zeros(shape, dtype=U64)
    flags = np.zeros(shape, dtype=np.uint8)

    def take(where, result, flag=0):
        nonlocal words, flags
        where = where & ~handled
        words = np.where(where, result, words)
        flags = np.where(where, flag, flags).astype(np.uint8)
        handled[...] |= where

    nan = (cls == _C.QUIET_NAN) | (cls == _C.SIGNALING_NAN)
    take(nan, U64(t.canonical_nan), np.where(cls == _C.SIGNALING_NAN, FLAG_NV, 0))
    zero, negative = _zero_class(cls), _negative_class(cls)
    positive_infinity = cls == _C.POSITIVE_INFINITY
    negative_zero = cls == _C.NEGATIVE_ZERO
    if op == "EXP":
        take(zero, U64(_ONE_ENCODING[t.name]))
        take(positive_infinity, carrier)
        take(cls == _C.NEGATIVE_INFINITY, U64(0))
    elif op == "LOG":
        take(carrier == U64(_ONE_ENCODING[t.name]), U64(0))
        take(zero, _unbounded(t, True), FLAG_DZ)
        take(positive_infinity, carrier)
        take(negative, U64(t.canonical_nan), FLAG_NV)
    elif op == "RECIP":
        take(zero, _unbounded(t, negative_zero), FLAG_DZ)
        take(cls == _C.NEGATIVE_INFINITY, U64(1) << U64(t.fmt.sign_bit))
        take(positive_infinity, U64(0))
    elif op == "SQRT":
        take(zero | positive_infinity, carrier)
        take(negative, U64(t.canonical_nan), FLAG_NV)
    else:  # RSQRT
        take(zero, _unbounded(t, negative_zero), FLAG_DZ)
        take(positive_infinity, U64(0))
        take(negative, U64(t.canonical_nan), FLAG_NV)
    return handled, words, flags


def _raw_unary(op, w):
    if op == "EXP":
        return w + U64(1)
    if op == "RECIP":
        return _ONES // np.where(w == 0, U64(1), w)
    return w.copy()  # SQRT, RSQRT, LOG: the reference profile returns the word


_IEEE_UNARY = {**ieee_float.UNARY, "EXP": transcendental.exp_finite, "LOG": transcendental.log_finite}


# Types on which the IEEE square root (``ieee_float.sqrt``) gives TileSFUUnarySpecialValue's
# SQRT answer on every special class itself (NaN: the canonical NaN, NV when signalling; a
# zero or +inf: itself; a negative value: the canonical NaN, NV), in every rounding mode:
# there the special pass adds nothing and hw-ieee SQRT skips it (checked in
# tests/numeric/test_numeric_tile_arithmetic.py against the exact kernel: every 8- and 16-bit
# encoding, and FP32's special classes).
SQRT_SETTLES_SPECIALS = frozenset({"FP32", "FP16", "BF16", "E4M3", "E5M2"})


def sqrt_settles_specials(op: str, t: DataType, profile: str) -> bool:
    return op == "SQRT" and profile == "hw-ieee" and t.name in SQRT_SETTLES_SPECIALS


def unary(op: str, value, dtype, profile="pto-v0"):
    """The SFU unary operations: special values, then the profile on the other
    elements. Returns ``(words, flags)``."""
    t = _dtype(dtype)
    prof = resolve_profile(profile)
    if op not in UNARY:
        raise ValueError(f"unknown SFU unary operation {op!r}; expected one of {', '.join(UNARY)}")
    shape, (w,) = _words(value)
    if sqrt_settles_specials(op, t, prof):
        words, flags = ieee_float.sqrt(lanes(w, t.bits), t)
        return words.reshape(shape), flags.reshape(shape)
    handled, words, flags = sfu_special(op, w, t)
    rest = np.flatnonzero(~handled)
    if rest.size:
        if prof == "pto-v0":
            words[rest], flags[rest] = _raw_unary(op, w[rest]), 0
        else:
            words[rest], flags[rest] = _IEEE_UNARY[op](lanes(w[rest], t.bits), t)
    return words.reshape(shape), flags.reshape(shape)
