"""Independent reference of the twelve row and column reductions, one fold step at a time.

TROWSUM, TROWPROD, TROWMAX, TROWMIN, TROWARGMAX, TROWARGMIN and the TCOL* six, on
Words (Python ints 0 .. 2**64-1) as the Tile payload holds them. Written from the PTO
ISA 0.58.3 specification, sharing no code with ``device_model/``:

- asl/tile/model/execution/reduction.asl (ExecuteTileReduction,
  TileReductionInitialValue, TileReductionOneEncoding, TileReductionStepWithFlags):
  for each valid row (TROW*) or column (TCOL*) a left fold in increasing column (row)
  index, never reassociated. SUM starts from the Word 0 and folds every element, PROD
  from the type's one encoding; MAX, MIN, ARGMAX and ARGMIN start from the first
  element's Word and fold the rest. Each step is TileProfileBinaryWithFlags of ADD,
  MUL, MAX or MIN (``arith_elements.element_op`` for ADD/MUL: integer wrap at the
  element width, pto-v0 raw 64-bit Words, hw-ieee one IEEE rounding under RNE;
  ``elementwise.max_``/``min_`` for MAX/MIN in both profiles: a NaN yields the other
  operand, two NaNs the canonical NaN, a signaling NaN raises NV). The flags of every
  step are ORed and recorded, in both profiles.
- A step *selects* the new element when ``result == value and result != accumulator``;
  ARGMAX/ARGMIN keep the index of the last selecting step (0 when none does), so equal
  values keep the lowest index. pto-v0 compares whole Words, as the ASL does: an integer
  MAX/MIN returns its operand sign- or zero-extended to the Word, so a negative S8/S16/S32
  element written as its element bits never equals the result and is never selected.
  SPEC-CHOICE 33: hw-ieee compares the element bits of the three Words instead, so the index
  is the one the operation documents and the hardware profile (``reductions.arg_tie``:
  "lowest original logical index") describe (vectors/SPEC-CHOICES.md).
- SPEC-CHOICE 35: under hw-ieee a one-element MAX/MIN line holding a NaN gives the
  canonical NaN (NV for a signaling one), as the hardware profile's
  ``reductions.max_min_nan`` says of an all-NaN input; the ASL takes no step and returns
  the NaN itself, which pto-v0 keeps.
- The index is written as a Word (NaturalToWord); the destination type is U32 in a
  bundle, S32 or U32 through a direct call (TileOperandsLegal_ExecuteTileReduction).
"""
from __future__ import annotations

from . import arith_elements as arith
from . import elementwise as minmax

WORD = (1 << 64) - 1

# operation -> (reduction, axis)
OPERATIONS = {
    "TROWSUM": ("SUM", "row"), "TROWPROD": ("PROD", "row"), "TROWMAX": ("MAX", "row"),
    "TROWMIN": ("MIN", "row"), "TROWARGMAX": ("ARGMAX", "row"), "TROWARGMIN": ("ARGMIN", "row"),
    "TCOLSUM": ("SUM", "column"), "TCOLPROD": ("PROD", "column"), "TCOLMAX": ("MAX", "column"),
    "TCOLMIN": ("MIN", "column"), "TCOLARGMAX": ("ARGMAX", "column"), "TCOLARGMIN": ("ARGMIN", "column"),
}
FLOAT_TYPES = ("FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2")
INTEGER_TYPES = ("S64", "S32", "S16", "S8", "U64", "U32", "U16", "U8")
# asl/tile/model/legality/dtype-layout.asl: TileVecArithmeticDataTypeSupported (the closed
# schema's BSTART type set and the value reductions' source set) and
# TileArgReductionSourceDataTypeSupported (TileA9DataTypeSupported: the index reductions' sources)
VEC_ARITHMETIC_TYPES = FLOAT_TYPES + INTEGER_TYPES
ARG_SOURCE_TYPES = ("S32", "U32", "FP32", "S16", "U16", "FP16", "BF16", "S8", "U8")
INDEX_TYPES = ("S32", "U32")
# TileReductionOneEncoding
ONE = {"FP64": 0x3FF0000000000000, "FP32": 0x3F800000, "TF32": 0x3F800000, "HF32": 0x3F800000,
       "FP16": 0x3C00, "BF16": 0x3F80, "E4M3": 0x38, "E5M2": 0x3C, **{t: 1 for t in INTEGER_TYPES}}


def is_index(operation: str) -> bool:
    return OPERATIONS[operation][0] in ("ARGMAX", "ARGMIN")


def legal_source_types(operation: str) -> tuple:
    return ARG_SOURCE_TYPES if is_index(operation) else VEC_ARITHMETIC_TYPES


def initial(reduction: str, t: str, first: int) -> int:
    """TileReductionInitialValue."""
    if reduction == "SUM":
        return 0
    if reduction == "PROD":
        return ONE[t]
    return first


def step(reduction: str, t: str, profile: str, accumulator: int, value: int):
    """TileReductionStepWithFlags: (result Word, selected, flags)."""
    if reduction == "SUM":
        result, flags = arith.element_op("ADD", t, profile, accumulator, value)
    elif reduction == "PROD":
        result, flags = arith.element_op("MUL", t, profile, accumulator, value)
    elif reduction in ("MAX", "ARGMAX"):
        result, flags = minmax.max_(t, accumulator, value)
    else:
        result, flags = minmax.min_(t, accumulator, value)
    if profile == "pto-v0":
        selected = result == value and result != accumulator
    else:  # SPEC-CHOICE 33: the element bits decide
        r, v, a = (minmax.element(w, t) for w in (result, value, accumulator))
        selected = r == v and r != a
    return result, selected, flags


def fold(reduction: str, t: str, profile: str, line: list):
    """One row's (or column's) fold: (result Word, flags); the result is the index for
    ARGMAX/ARGMIN. ``line``: the Words in increasing index order."""
    accumulator = initial(reduction, t, line[0])
    first = 0 if reduction in ("SUM", "PROD") else 1
    index, flags = 0, 0
    for position in range(first, len(line)):
        accumulator, selected, step_flags = step(reduction, t, profile, accumulator, line[position])
        flags |= step_flags
        if selected:
            index = position
    if (profile == "hw-ieee" and reduction in ("MAX", "MIN") and len(line) == 1 and t in FLOAT_TYPES
            and minmax.is_nan(line[0], t)):
        # SPEC-CHOICE 35: the hardware profile's "all-NaN input returns canonical NaN"
        # (reductions.max_min_nan) where the ASL's fold takes no step over one element
        flags |= minmax.NV if minmax.float_class(line[0], t) == "snan" else 0
        accumulator = minmax.FLOATS[t][4]
    return (index if reduction in ("ARGMAX", "ARGMIN") else accumulator), flags


def reduce_rows(operation: str, t: str, profile: str, rows: list):
    """The destination's valid region (rows of Words: valid_rows x 1 for TROW*, 1 x
    valid_cols for TCOL*) and the ORed flags, from the source's valid region ``rows``."""
    reduction, axis = OPERATIONS[operation]
    lines = rows if axis == "row" else [list(column) for column in zip(*rows)]
    results, flags = [], 0
    for line in lines:
        result, line_flags = fold(reduction, t, profile, line)
        results.append(result)
        flags |= line_flags
    return ([[r] for r in results] if axis == "row" else [results]), flags


def fold_reassociated(reduction: str, t: str, profile: str, line: list):
    """A pairwise (tree) fold of SUM/PROD, which the ASL forbids: the vectors use it only to
    show that a case tells the two orders apart."""
    op = "ADD" if reduction == "SUM" else "MUL"
    level, flags = list(line), 0
    while len(level) > 1:
        paired = []
        for i in range(0, len(level) - 1, 2):
            value, step_flags = arith.element_op(op, t, profile, level[i], level[i + 1])
            paired.append(value)
            flags |= step_flags
        if len(level) % 2:
            paired.append(level[-1])
        level = paired
    value, step_flags = arith.element_op(op, t, profile, initial(reduction, t, 0), level[0])
    return value, flags | step_flags
