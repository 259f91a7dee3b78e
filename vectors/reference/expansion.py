"""Independent reference of the broadcasts and the partial operations, in both profiles.

TROWEXPAND, TCOLEXPAND, TROW/TCOLEXPAND{ADD, SUB, MUL, DIV, MAX, MIN, EXPDIF} and
TPARTADD, TPARTMUL, TPARTMAX, TPARTMIN, one element at a time over lists of rows of
Words (Python ints), written from the PTO ISA 0.58.3 specification and sharing no code
with ``device_model/``:

- asl/tile/model/execution/expansion.asl (ExecuteTileExpand): destination element
  (r, c) reads the full-shape source at (r, c) and the broadcast tile at (r, 0) on the
  row axis or (0, c) on the column axis; COPY is the broadcast Word bit for bit with no
  status; the others are TileProfileBinaryWithFlags on the destination type, whose
  flags ExecuteTileExpand records (RecordNumericStatusFlags of the OR over elements);
- EXPDIF (TileExpandValueWithTypesAndFlags): same-type pairs subtract, then take
  TileSFUUnarySpecialValue(EXP) when it handles the difference, else the profile's EXP,
  flags of both stages ORed; the mixed FP16/BF16 -> FP32 pairs first widen both
  operands exactly (ExactWidenFP16ToFP32 normalizes subnormals and canonicalizes NaNs,
  ExactWidenBF16ToFP32 shifts the bits up by 16), and pto-v0's TileProfileMixedExpdifFP32
  (asl/arch/profile/reference-profile.asl) answers the two widened pairs of
  HardwareNumericMixedExpdifDiscriminator (asl/arch/features/mx-formats.asl) with no
  status before its FP32 SUB/EXP;
- asl/tile/model/execution/complex.asl (ExecuteTilePartial): destination element (r, c)
  inside both sources' valid regions is TileProfileBinaryWithFlags of the two (flags
  recorded), inside one only that source's Word, unchanged.

The element operations are those of ``arith_elements`` (ADD, SUB, MUL, DIV, EXP in
both profiles, the hw-ieee values from the exact ``arithmetic`` module) and
``elementwise`` (MAX, MIN: HardwareNumericFloatingMinMax, both profiles).
"""
from __future__ import annotations

from . import arith_elements as arith
from . import elementwise

EXPAND_OPERATIONS = {  # mnemonic -> (axis, element operation)
    **{f"T{a}EXPAND": (axis, "COPY") for a, axis in (("ROW", "Row"), ("COL", "Column"))},
    **{f"T{a}EXPAND{op}": (axis, op) for a, axis in (("ROW", "Row"), ("COL", "Column"))
       for op in ("ADD", "SUB", "MUL", "DIV", "MAX", "MIN", "EXPDIF")},
}
PARTIAL_OPERATIONS = {"TPARTADD": "ADD", "TPARTMUL": "MUL", "TPARTMAX": "MAX", "TPARTMIN": "MIN"}

# TileVecArithmeticDataTypeSupported (asl/tile/model/legality/dtype-layout.asl)
VEC_ARITHMETIC_TYPES = ("FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2",
                        "S64", "S32", "S16", "S8", "U64", "U32", "U16", "U8")
# TileExpandExpdifTypePairLegal (asl/tile/model/legality/reduction-and-expansion.asl)
EXPDIF_PAIRS = (("FP16", "FP16"), ("BF16", "BF16"), ("FP32", "FP32"), ("FP16", "FP32"), ("BF16", "FP32"))
# TilePartialDataTypeSupported (asl/tile/model/legality/indexed-layout.asl)
PARTIAL_TYPES = ("FP32", "FP16", "BF16", "S32", "S16", "S8", "U32", "U16", "U8")


def legal_types(operation: str) -> tuple:
    """The BSTART (source) types the operation accepts."""
    if operation in PARTIAL_OPERATIONS:
        return PARTIAL_TYPES
    if EXPAND_OPERATIONS[operation][1] == "EXPDIF":
        return ("FP16", "BF16", "FP32")
    return VEC_ARITHMETIC_TYPES


def binary_with_flags(op: str, t: str, profile: str, left: int, right: int):
    """TileProfileBinaryWithFlags for ADD, SUB, MUL, DIV, MAX, MIN: (Word, flags)."""
    if op == "MAX":
        return elementwise.max_(t, left, right)
    if op == "MIN":
        return elementwise.min_(t, left, right)
    return arith.element_op(op, t, profile, left, right)


def widen_fp16(word: int, profile: str) -> int:
    """ExactWidenFP16ToFP32, field by field as the ASL writes it. For a subnormal the ASL
    places the 9 fraction bits below the normalized leading one at result[21:13]
    (``result[22:13] = ZeroExtend{10}(normalized[8:0])``), which halves the fraction
    (FP16 0x0003, 3 * 2**-24, widens to 1.25 * 2**-23); SPEC-CHOICE 32: pto-v0 follows the
    ASL's bits, hw-ieee the hardware profile's "value-preserving widening to the unique
    FP32 encoding" (the bits at result[22:14])."""
    raw = word & 0xFFFF
    sign, exponent, fraction = raw >> 15, (raw >> 10) & 0x1F, raw & 0x3FF
    result = sign << 31
    if exponent == 0x1F:
        result |= 0xFF << 23
        if fraction:
            result = 0x7FC00000  # the canonical FP32 NaN (sign cleared)
    elif exponent:
        result |= (exponent + 112) << 23 | fraction << 13
    elif fraction:
        shifts = 0
        while not fraction & 0x200:  # normalize until bit 9 is set
            fraction <<= 1
            shifts += 1
        result |= (112 - shifts) << 23 | (fraction & 0x1FF) << (13 if profile == "pto-v0" else 14)
    return result


def widen_bf16(word: int, profile: str) -> int:
    """ExactWidenBF16ToFP32: the 16 bits moved up to bits 31:16."""
    return (word & 0xFFFF) << 16


# HardwareNumericMixedExpdifDiscriminator: widened (left, broadcast) -> result
DISCRIMINATORS = {(0x3C000000, 0x33800000): 0x3F810100, (0x3F800000, 0x3B000000): 0x402DA16E}


def exp_with_flags(t: str, profile: str, word: int):
    """TileSFUUnarySpecialValue(EXP) when it handles the operand, else TileProfileUnary(EXP)."""
    return arith.element_op("EXP", t, profile, word)


def expdif(source: str, destination: str, profile: str, left: int, broadcast: int):
    """One EXPDIF element: (Word, flags)."""
    if source != destination:
        widen = widen_fp16 if source == "FP16" else widen_bf16
        left, broadcast = widen(left, profile), widen(broadcast, profile)
        if profile == "pto-v0" and (left, broadcast) in DISCRIMINATORS:
            return DISCRIMINATORS[(left, broadcast)], 0
    difference, sub_flags = arith.element_op("SUB", destination, profile, left, broadcast)
    result, exp_flags = exp_with_flags(destination, profile, difference)
    return result, sub_flags | exp_flags


def expand(operation: str, profile: str, source_type: str, destination_type: str, valid, source, broadcast):
    """(rows of destination Words over ``valid``, recorded flags) of a broadcast. ``source``:
    rows of the full-shape source's Words (None for COPY); ``broadcast``: rows of the broadcast
    tile's Words (valid_rows x 1 on the row axis, 1 x valid_cols on the column axis)."""
    axis, op = EXPAND_OPERATIONS[operation]
    rows, flags = [], 0
    for r in range(valid[0]):
        row = []
        for c in range(valid[1]):
            b = broadcast[r][0] if axis == "Row" else broadcast[0][c]
            if op == "COPY":
                word, f = b, 0
            elif op == "EXPDIF":
                word, f = expdif(source_type, destination_type, profile, source[r][c], b)
            else:
                word, f = binary_with_flags(op, destination_type, profile, source[r][c], b)
            row.append(word)
            flags |= f
        rows.append(row)
    return rows, flags


def partial(operation: str, profile: str, t: str, valid, left, right):
    """(rows of destination Words over ``valid``, recorded flags) of a partial operation;
    ``left``/``right``: each source's valid rows (their lengths give their valid regions)."""
    op = PARTIAL_OPERATIONS[operation]
    rows, flags = [], 0
    for r in range(valid[0]):
        row = []
        for c in range(valid[1]):
            in_left = r < len(left) and c < len(left[0])
            in_right = r < len(right) and c < len(right[0])
            if in_left and in_right:
                word, f = binary_with_flags(op, t, profile, left[r][c], right[r][c])
                flags |= f
            elif in_left:
                word = left[r][c]
            else:
                assert in_right, "every destination element lies in one source at least"
                word = right[r][c]
            row.append(word)
        rows.append(row)
    return rows, flags


def integer_zero_divisor(t: str, words) -> bool:
    """An integer DIV broadcast holding an element whose bits are zero: the operation faults."""
    return t in arith.INTEGER_TYPES and any(arith.element(w, t) == 0 for row in words for w in row)
