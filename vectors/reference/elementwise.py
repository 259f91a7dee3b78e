"""Independent element reference of the exact elementwise Tile operations.

Written from the PTO ISA 0.58.3 specification, sharing no code with ``device_model/``:
one plain Python function per element, integers only, read from

- asl/tile/model/execution/elementwise.asl: TileIntegerOperandValue (sign- or
  zero-extension), TileUnsignedElementValue, TileIntegerShiftAmount,
  TileIntegerBinaryValue (AND, OR, XOR, SHL, SHR, MAX, MIN), TileRawElementValue
  (a scalar keeps its element bits), ExecuteTileFillScalar;
- asl/tile/model/execution/unary.asl: TileIntegerUnaryValue, TileFloatingUnaryValue
  (ABS, NEG, RELU), TileFloatingUnaryCarrier;
- asl/arch/features/minmax-profile.asl: HardwareNumericMinMaxSpecial and
  HardwareNumericFloatingOrderKey (floating MAX/MIN);
- asl/arch/data-types/formats/*.asl: the value classes (Classify*) and canonical NaNs
  of FP64, FP32, TF32, HF32, FP16, BF16, E4M3 and E5M2.

Every function takes and returns Words (Python ints 0 .. 2**64-1) as the Tile
payload holds them; ``flags`` results are NumericStatus bits (NV = 1).
"""
from __future__ import annotations

from .numeric import FORMATS, canonical_nan

WORD = (1 << 64) - 1
NV = 0x01

# name -> (element bits, kind); kind "S" / "U" / "F"; read from the reference's one DataType
# table (numeric.FORMATS).
_NAMES = ("FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2",
          "S64", "S32", "S16", "S8", "U64", "U32", "U16", "U8")
TYPES = {name: (FORMATS[name].width, "F" if FORMATS[name].is_float else FORMATS[name].kind[0].upper())
         for name in _NAMES}
# Floating formats: (exponent bits, stored fraction bits, fraction's lowest bit,
# NaN rule, canonical NaN). "ieee": all-ones exponent with a nonzero fraction, the
# fraction's top bit set for a quiet NaN; "e4m3": only S.1111.111, always quiet.
FLOATS = {name: (FORMATS[name].exp_bits, FORMATS[name].frac_bits, FORMATS[name].frac_lsb, FORMATS[name].nan,
                 canonical_nan(name)) for name in _NAMES if TYPES[name][1] == "F"}


def bits(t: str) -> int:
    return TYPES[t][0]


def mask(t: str) -> int:
    return (1 << bits(t)) - 1


def element(word: int, t: str) -> int:
    """TileUnsignedElementValue / TileRawElementValue: the element bits, zero-extended."""
    return word & mask(t)


def signed_value(word: int, t: str) -> int:
    """The element as a Python integer: two's complement for S types."""
    value = element(word, t)
    if TYPES[t][1] == "S" and value >> (bits(t) - 1):
        value -= 1 << bits(t)
    return value


def extended(word: int, t: str) -> int:
    """TileIntegerOperandValue: the element sign- (S) or zero-extended (U) to a Word."""
    return signed_value(word, t) & WORD


def float_class(word: int, t: str) -> str:
    """zero / subnormal / normal / inf (with a sign prefix '+'/'-'), qnan, snan."""
    exp_bits, frac_bits, shift, rule, _ = FLOATS[t]
    value = element(word, t)
    negative = value >> (bits(t) - 1)
    exponent = (value >> (shift + frac_bits)) & ((1 << exp_bits) - 1)
    fraction = (value >> shift) & ((1 << frac_bits) - 1)
    top = (1 << exp_bits) - 1
    if rule == "e4m3":
        if exponent == top and fraction == (1 << frac_bits) - 1:
            return "qnan"
    elif exponent == top:
        if fraction == 0:
            return "-inf" if negative else "+inf"
        return "qnan" if fraction >> (frac_bits - 1) else "snan"
    kind = "zero" if exponent == 0 and fraction == 0 else "subnormal" if exponent == 0 else "normal"
    return ("-" if negative else "+") + kind


def is_nan(word: int, t: str) -> bool:
    return float_class(word, t) in ("qnan", "snan")


# ---------------------------------------------------------------------------
# bitwise and shifts (integer types)

def and_(t, left, right):
    return element(left & right, t), 0


def or_(t, left, right):
    return element(left | right, t), 0


def xor(t, left, right):
    return element(left ^ right, t), 0


def not_(t, value):
    return element(~value, t), 0


def shift_count(word: int, t: str) -> int:
    """TileIntegerShiftAmount: bits 2:0 / 3:0 / 4:0 / 5:0 of the count by width."""
    return word & (bits(t) - 1)


def shl(t, left, right):
    return element(element(left, t) << shift_count(right, t), t), 0


def shr(t, left, right):
    return element(signed_value(left, t) >> shift_count(right, t), t), 0


# ---------------------------------------------------------------------------
# max / min

def _order_key(word: int, t: str) -> int:
    value = element(word, t)
    sign = 1 << (bits(t) - 1)
    return (~value & mask(t)) if value & sign else value | sign


def _minmax(maximum: bool, t, left, right):
    if TYPES[t][1] != "F":
        a, b = signed_value(left, t), signed_value(right, t)
        pick_left = a >= b if maximum else a <= b
        return extended(left if pick_left else right, t), 0
    lc, rc = float_class(left, t), float_class(right, t)
    flags = NV if "snan" in (lc, rc) else 0
    if is_nan(left, t) and is_nan(right, t):
        return FLOATS[t][4], flags
    if is_nan(left, t):
        return right, flags
    if is_nan(right, t):
        return left, flags
    if lc.endswith("zero") and rc.endswith("zero"):
        if maximum:
            return (left if lc == rc == "-zero" else 0), 0
        return (left if lc == "-zero" else right if rc == "-zero" else 0), 0
    lk, rk = _order_key(left, t), _order_key(right, t)
    return (left if (lk >= rk if maximum else lk <= rk) else right), 0


def max_(t, left, right):
    return _minmax(True, t, left, right)


def min_(t, left, right):
    return _minmax(False, t, left, right)


# ---------------------------------------------------------------------------
# unary sign operations

def abs_(t, value):
    if TYPES[t][1] == "F":
        return element(value, t) & ~(1 << (bits(t) - 1)), 0
    v = signed_value(value, t)
    return element(-v if v < 0 else v, t), 0


def neg(t, value):
    if TYPES[t][1] == "F":
        return element(value, t) ^ (1 << (bits(t) - 1)), 0
    return element(-element(value, t), t), 0


def relu(t, value):
    if TYPES[t][1] != "F":
        return (0 if signed_value(value, t) < 0 else element(value, t)), 0
    cls = float_class(value, t)
    if cls in ("qnan", "snan"):
        return FLOATS[t][4], NV if cls == "snan" else 0
    return (element(value, t) if cls.startswith("+") and cls != "+zero" else 0), 0


def fill(t, scalar):
    return element(scalar, t), 0


# operation -> (element function, kind); kind: tile-tile "binary", "unary",
# tile-scalar "scalar", "fill"
OPERATIONS = {
    "TAND": (and_, "binary"), "TOR": (or_, "binary"), "TXOR": (xor, "binary"),
    "TSHL": (shl, "binary"), "TSHR": (shr, "binary"), "TMAX": (max_, "binary"), "TMIN": (min_, "binary"),
    "TNOT": (not_, "unary"), "TABS": (abs_, "unary"), "TNEG": (neg, "unary"), "TRELU": (relu, "unary"),
    "TANDS": (and_, "scalar"), "TORS": (or_, "scalar"), "TXORS": (xor, "scalar"), "TSHLS": (shl, "scalar"),
    "TSHRS": (shr, "scalar"), "TMAXS": (max_, "scalar"), "TMINS": (min_, "scalar"),
    "TEXPANDS": (fill, "fill"),
}
INTEGER_TYPES = ("S64", "S32", "S16", "S8", "U64", "U32", "U16", "U8")
ARITHMETIC_TYPES = ("FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2") + INTEGER_TYPES
LEGAL_TYPES = {  # dtype-layout.asl: TileVecScalarIntegerDataTypeSupported / TileVecArithmetic...
    name: INTEGER_TYPES if name in ("TAND", "TOR", "TXOR", "TSHL", "TSHR", "TNOT", "TANDS", "TORS",
                                    "TXORS", "TSHLS", "TSHRS") else ARITHMETIC_TYPES
    for name in OPERATIONS
}


def evaluate(operation: str, t: str, *operands: int):
    """(result Word, flags) of one element; a scalar operand is the raw GPR value."""
    function, kind = OPERATIONS[operation]
    if kind in ("scalar", "fill"):
        operands = operands[:-1] + (element(operands[-1], t),)  # TileRawElementValue
    return function(t, *operands)
