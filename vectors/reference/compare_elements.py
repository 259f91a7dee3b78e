"""Independent element reference of TCMP, TCMPS, TSEL and TSELS (both profiles).

Written from the PTO ISA 0.58.3 specification, sharing no code with ``device_model/``.
Comparisons are decided on exact values: every element is decoded by
``vectors/reference/numeric.py`` (its own format table) to a signed integer, an exact
``Fraction``, an infinity or a NaN, and ordered as numbers, a method independent of the
ASL's order-key (``TileFloatingOrderKey``) construction. Sources:

- asl/tile/model/execution/comparison.asl: TileCompareDataTypeSupported and
  TileSelectDataTypeSupported (both TileVecArithmeticDataTypeSupported, the 16 types of
  ``LEGAL_TYPES``), TileCompareBoolean (the six relations), TileCompareElement (signed or
  unsigned integer order of the element bits), ExecuteTileCompareScalar and
  ExecuteTileSelectScalar (the scalar reduced by TileRawElementValue), ExecuteTileSelect;
- asl/arch/profile/reference-profile.asl TileProfileFloatingCompare (pto-v0): a NaN
  operand makes every relation but NE false and a signaling NaN records NV; two zeros
  are equal; otherwise ``equal`` is the equality of the whole carrier Words;
- spec/hardware-conformance-profile.json ``comparisons`` (hw-ieee): the same NaN table
  and NV for a signaling NaN, +0 == -0, IEEE order of values;
- asl/tile/model/definedness/elements.asl: logical element i = row * cols + col in bit
  i mod 8 of byte i div 8; PredicateTileWithPadding (Zero and Min write 0, Max writes 1,
  Null leaves padding undefined).

Words are Python ints 0 .. 2**64-1 as a Tile payload holds them; flags are NumericStatus
bits (NV = 1).
"""
from __future__ import annotations

from functools import lru_cache

from . import numeric

WORD = (1 << 64) - 1
NV = numeric.NV
OPERATIONS = ("TCMP", "TCMPS", "TSEL", "TSELS")
MODES = ("EQ", "NE", "LT", "GT", "LE", "GE")  # B.DATR CMode codes 0..5

# TileVecArithmeticDataTypeSupported (asl/tile/model/legality/dtype-layout.asl).
# SPEC-CHOICE 26: the TCMP/TCMPS documents list nine types and the TSELS document seventeen
# (with HiF8, E3M2, E2M3, E8M0, without FP64/S64/U64); the executable legality of all four
# operations is this set of sixteen, which the spec points TCMP-TYPES-001, TSEL-TYPES-001
# and TSELS-MASK-001 assert.
LEGAL_TYPES = ("FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2",
               "S64", "S32", "S16", "S8", "U64", "U32", "U16", "U8")
FLOAT_TYPES = LEGAL_TYPES[:8]
ALL_TYPES = tuple(numeric.FORMATS)


def width(t: str) -> int:
    return numeric.FORMATS[t].width


def mask(t: str) -> int:
    return (1 << width(t)) - 1


def code(t: str) -> int:
    return numeric.FORMATS[t].code


def element(word: int, t: str) -> int:
    """The element bits of a Word, zero-extended (TileRawElementValue for these types)."""
    return word & mask(t)


def encoding_valid(word: int, t: str) -> bool:
    """TileNumericEncodingValid: only TF32/HF32 discarded fraction bits can be invalid here."""
    return numeric.encoding_valid(t, element(word, t))


def _relation(mode: str, less: bool, equal: bool, greater: bool) -> bool:
    return {"EQ": equal, "NE": not equal, "LT": less, "GT": greater, "LE": less or equal,
            "GE": greater or equal}[mode]


def compare(mode: str, t: str, left: int, right: int, profile: str) -> tuple[int, int]:
    """(predicate bit, flags) of ``left <mode> right`` for element type ``t``."""
    a, b = _decode(t, element(left, t)), _decode(t, element(right, t))
    assert a.cls != "invalid" and b.cls != "invalid", "operand legality rejects invalid encodings"
    if a.cls == "nan" or b.cls == "nan":
        flags = NV if (a.cls == "nan" and a.signalling) or (b.cls == "nan" and b.signalling) else 0
        return int(mode == "NE"), flags
    x, y = _number(a), _number(b)
    equal = x == y
    if profile == "pto-v0" and not (a.is_zero and b.is_zero) and numeric.FORMATS[t].is_float:
        # SPEC-CHOICE 27: TileProfileFloatingCompare tests `left == right` on the
        # whole carrier Words, so element-equal operands whose Words differ above the element
        # are unequal (and then, being neither less, greater); TileNumericEncodingValid's
        # comment says bits above the element are ignored. pto-v0 follows the executable.
        equal = left == right
        return int(_relation(mode, x < y, equal, not equal and not x < y)), 0
    return int(_relation(mode, x < y, equal, x > y)), 0


@lru_cache(maxsize=1 << 16)
def _decode(t: str, bits: int) -> numeric.Value:
    return numeric.decode(t, bits)


def _number(v: numeric.Value):
    """An exact number for ordering: infinities as +-inf floats beside Fractions."""
    if v.cls == "inf":
        return float("-inf") if v.negative else float("inf")
    return v.exact


def scalar_operand(scalar: int, t: str) -> int:
    """TileRawElementValue: the GPR scalar's element bits, zero-extended to a Word."""
    return element(scalar, t)


def select(bit: int, true_word: int, false_word: int) -> int:
    """TSEL/TSELS: a one bit copies the true Word, a zero bit the false Word, bit for bit."""
    return true_word if bit else false_word


def pack(bits: list) -> list:
    """Payload bytes of a flat list of predicate bits, logical index i in bit i mod 8 of byte i div 8."""
    out = [0] * ((len(bits) + 7) // 8)
    for i, bit in enumerate(bits):
        out[i // 8] |= (bit & 1) << (i % 8)
    return out


PAD_BIT = {"Zero": 0, "Min": 0, "Max": 1, "Null": None}  # PredicateTileWithPadding
