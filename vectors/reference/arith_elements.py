"""Independent element reference of the arithmetic Tile operations in both profiles.

TADD, TSUB, TMUL, TDIV, TREM, TFMA, TSQRT, TRSQRT, TRECIP, TEXP, TLOG and the
tile-scalar TADDS, TSUBS, TDIVS, TREMS, one element at a time, on Words (Python
ints 0 .. 2**64-1) as the Tile payload holds them. Written from the PTO ISA 0.58.3
specification, sharing no code with ``device_model/``:

- integer types, both profiles (asl/tile/model/execution/elementwise.asl,
  fused-multiply-add.asl): operands sign- (S) or zero-extended (U) from the
  element bits (TileIntegerOperandValue); ADD/SUB/MUL wrap and NormalizeTileInteger
  (sign- or zero-extend the low element bits); DIV is ScalarDivideSigned
  (asl/scalar/model/alu/semantics.asl: truncating, its 64-bit Word not normalized)
  or unsigned division; REM is TileSignedModulo (floor: a nonzero result has the
  divisor's sign) or the unsigned remainder; FMA is TileUnsignedElementValue of
  ``l*r + a`` on the zero-extended element bits, S and U alike. No status;
- floating types, pto-v0 (asl/arch/profile/reference-profile.asl): ADD, SUB, MUL
  are the 64-bit sum, difference and low product of the whole Words
  (ScalarFPBinaryProfile); DIV divides the Words unsigned, giving all ones and DZ
  for a divisor that ScalarFPCarrierIsZero calls zero (FP32, type code 1: the low
  32 bits as FP32; every other code: the whole Word as FP64); REM is
  TileProfileFloatingModulo (the unsigned remainder, all ones for such a zero, no
  status); FMA is TileFixedFusedMultiplyAddValue's invalid classification
  (canonical NaN, NV) else ``l*r + a`` on the Words (ScalarFPFusedProfile MADD);
  the SFU operations take TileSFUUnarySpecialValue (unary.asl) for NaNs, zeros,
  infinities, negative operands and LOG's one, else the reference hooks on the
  whole Word: SQRT, RSQRT and LOG return it, EXP adds one, RECIP divides all ones
  by it (TileSquareRoot ... TileExponential), with no status;
- floating types, hw-ieee: ``arithmetic.py`` (IEEE 754, RNE: the operations use
  DefaultNumericExecutionControl), whose special values are those of
  TileSFUUnarySpecialValue too; results are the element encodings.

A scalar operand is passed as the raw GPR value and reduced to its element bits
here (TileRawElementValue).
"""
from __future__ import annotations

from . import arithmetic as ieee
from .numeric import DZ, FORMATS, NV, canonical_nan, decode, infinity_code, zero_code

WORD = (1 << 64) - 1
FLOAT_TYPES = ("FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2")
INTEGER_TYPES = ("S64", "S32", "S16", "S8", "U64", "U32", "U16", "U8")
WIDTH = {t: FORMATS[t].width for t in FLOAT_TYPES + INTEGER_TYPES}  # numeric.FORMATS, the one table
ONE = {"FP64": 0x3FF0000000000000, "FP32": 0x3F800000, "TF32": 0x3F800000, "HF32": 0x3F800000,
       "FP16": 0x3C00, "BF16": 0x3F80, "E4M3": 0x38, "E5M2": 0x3C}  # TileFloatingUnaryOneEncoding

# operation -> (element operation, kind): "binary" (two tiles), "fma" (three tiles),
# "unary" (one tile), "scalar" (a tile and a GPR scalar)
OPERATIONS = {
    "TADD": ("ADD", "binary"), "TSUB": ("SUB", "binary"), "TMUL": ("MUL", "binary"),
    "TDIV": ("DIV", "binary"), "TREM": ("REM", "binary"), "TFMA": ("FMA", "fma"),
    "TSQRT": ("SQRT", "unary"), "TRSQRT": ("RSQRT", "unary"), "TRECIP": ("RECIP", "unary"),
    "TEXP": ("EXP", "unary"), "TLOG": ("LOG", "unary"),
    "TADDS": ("ADD", "scalar"), "TSUBS": ("SUB", "scalar"), "TDIVS": ("DIV", "scalar"),
    "TREMS": ("REM", "scalar"),
}
# TileVecArithmeticDataTypeSupported (binary, scalar, TFMA); TileFloatingElementwise-
# DataTypeSupported (the SFU unary operations): asl/tile/model/legality/dtype-layout.asl
LEGAL_TYPES = {op: FLOAT_TYPES if kind == "unary" else FLOAT_TYPES + INTEGER_TYPES
               for op, (_, kind) in OPERATIONS.items()}


def mask(t: str) -> int:
    return (1 << WIDTH[t]) - 1


def element(word: int, t: str) -> int:
    return word & mask(t)


def signed(t: str) -> bool:
    return t.startswith("S")


def extended(word: int, t: str) -> int:
    """TileIntegerOperandValue as a Python int: the element value, signed or not."""
    v = element(word, t)
    return v - (1 << WIDTH[t]) if signed(t) and v >> (WIDTH[t] - 1) else v


def normalized(value: int, t: str) -> int:
    """NormalizeTileInteger of a Word."""
    return extended(value, t) & WORD


def _sint(word: int) -> int:
    return word - (1 << 64) if word >> 63 else word


def _signed_quotient(a: int, b: int) -> int:
    """ScalarDivideSigned on Words: truncating, the Word of the quotient."""
    q = abs(_sint(a)) // abs(_sint(b))
    return (-q if (_sint(a) < 0) != (_sint(b) < 0) else q) & WORD


def _integer(op: str, t: str, a: int, b: int, c: int = 0) -> int:
    if op == "FMA":
        m = mask(t)
        return ((a & m) * (b & m) + (c & m)) & m
    x, y = extended(a, t) & WORD, extended(b, t) & WORD
    if op == "ADD":
        return normalized(x + y, t)
    if op == "SUB":
        return normalized(x - y, t)
    if op == "MUL":
        return normalized(x * y, t)
    assert y != 0, "a zero integer divisor is rejected before execution"
    if op == "DIV":
        return _signed_quotient(x, y) if signed(t) else x // y
    if not signed(t):
        return x % y
    r = (x - _signed_quotient(x, y) * y) & WORD  # TileSignedModulo
    return r if r == 0 or (r >> 63) == (y >> 63) else (r + y) & WORD


def _carrier_zero(word: int, t: str) -> bool:
    """ScalarFPCarrierIsZero(TileDataTypeToEncoding(t)): FP32 (code 1) looks at the
    low 32 bits, every other type at the whole Word as FP64."""
    return (word & 0x7FFFFFFF) == 0 if t == "FP32" else (word & (WORD >> 1)) == 0


def _negative_class(v) -> bool:
    """TileNumericClassIsNegative: a negative zero, subnormal, normal or infinity."""
    return v.negative and v.cls in ("finite", "inf")


def fma_invalid(t: str, a: int, b: int, c: int) -> bool:
    """TileFixedFusedMultiplyAddValue's invalid cases: a signaling NaN, zero times
    infinity, or an infinite product meeting an opposite infinite addend."""
    x, y, z = (decode(t, element(w, t)) for w in (a, b, c))
    signaling = any(v.cls == "nan" and v.signalling for v in (x, y, z))
    zero_inf = (x.is_zero and y.cls == "inf") or (x.cls == "inf" and y.is_zero)
    opposite = ((x.cls == "inf" or y.cls == "inf") and z.cls == "inf"
                and (_negative_class(x) != _negative_class(y)) != _negative_class(z))
    return signaling or zero_inf or opposite


def _unbounded(t: str, negative: bool) -> int:
    """TileFloatingUnaryUnboundedResult: signed infinity, E4M3's canonical NaN."""
    return infinity_code(t, negative) if t != "E4M3" else canonical_nan(t)


def sfu_special(op: str, t: str, word: int):
    """TileSFUUnarySpecialValue: (result, flags) for a special operand, else None."""
    carrier = element(word, t)
    v = decode(t, carrier)
    if v.cls == "nan":
        return canonical_nan(t), NV if v.signalling else 0
    negative = _negative_class(v)
    if op == "EXP":
        if v.is_zero:
            return ONE[t], 0
        if v.cls == "inf":
            return (carrier, 0) if not v.negative else (zero_code(t, False), 0)
    elif op == "LOG":
        if carrier == ONE[t]:
            return zero_code(t, False), 0
        if v.is_zero:
            return _unbounded(t, True), DZ
        if v.cls == "inf" and not v.negative:
            return carrier, 0
        if negative:
            return canonical_nan(t), NV
    elif op == "RECIP":
        if v.is_zero:
            return _unbounded(t, v.negative), DZ
        if v.cls == "inf":
            return zero_code(t, v.negative), 0
    elif op == "SQRT":
        if v.is_zero or (v.cls == "inf" and not v.negative):
            return carrier, 0
        if negative:
            return canonical_nan(t), NV
    else:  # RSQRT
        if v.is_zero:
            return _unbounded(t, v.negative), DZ
        if v.cls == "inf" and not v.negative:
            return zero_code(t, False), 0
        if negative:
            return canonical_nan(t), NV
    return None


def _raw(op: str, t: str, a: int, b: int = 0, c: int = 0):
    """pto-v0 floating types: the reference profile on whole Words."""
    if op == "ADD":
        return (a + b) & WORD, 0
    if op == "SUB":
        return (a - b) & WORD, 0
    if op == "MUL":
        return (a * b) & WORD, 0
    if op in ("DIV", "REM"):
        if _carrier_zero(b, t):
            return WORD, DZ if op == "DIV" else 0
        return (a // b, 0) if op == "DIV" else (a % b, 0)
    if op == "FMA":
        return (canonical_nan(t), NV) if fma_invalid(t, a, b, c) else ((a * b + c) & WORD, 0)
    special = sfu_special(op, t, a)
    if special is not None:
        return special
    return {"EXP": (a + 1) & WORD, "RECIP": WORD // a}.get(op, a), 0


def _ieee(op: str, t: str, a: int, b: int = 0, c: int = 0):
    x, y, z = element(a, t), element(b, t), element(c, t)
    if op == "FMA":
        return ieee.fma(t, x, y, z)
    if op in ieee.BINARY:
        return ieee.BINARY[op](t, x, y)
    special = sfu_special(op, t, a)  # the same fixed special values in both profiles
    return special if special is not None else ieee.UNARY[op](t, x)


def element_op(op: str, t: str, profile: str, *operands: int):
    """(result Word, flags) of element operation ``op`` ("ADD" ... "LOG") on Words."""
    if t in INTEGER_TYPES:
        return _integer(op, t, *operands), 0
    return (_raw if profile == "pto-v0" else _ieee)(op, t, *operands)


def evaluate(operation: str, t: str, profile: str, *operands: int):
    """(result Word, flags) of one element of ``operation`` (TADD ... TREMS); a
    scalar operand is the raw GPR value."""
    op, kind = OPERATIONS[operation]
    if kind == "scalar":
        operands = operands[:-1] + (element(operands[-1], t),)  # TileRawElementValue
    return element_op(op, t, profile, *operands)


def zero_divisor(operation: str, t: str, divisor: int) -> bool:
    """An integer DIV/REM divisor whose element value is zero: the operation faults."""
    return OPERATIONS[operation][0] in ("DIV", "REM") and t in INTEGER_TYPES and element(divisor, t) == 0


def recorded_status(operation: str, profile: str, flags: int) -> int:
    """The NumericStatus an operation records from its elements' flags. ExecuteTileBinary
    evaluates TileProfileBinary, which drops the flags, so the tile-tile TADD, TSUB,
    TMUL, TDIV and TREM record none under pto-v0; SPEC-CHOICE 23: hw-ieee records the IEEE
    flags (the hardware profile's exception model). Every other operation records them."""
    return 0 if OPERATIONS[operation][1] == "binary" and profile == "pto-v0" else flags
