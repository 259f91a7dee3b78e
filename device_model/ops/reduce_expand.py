"""The row and column reductions (TROWSUM ... TROWARGMIN, TCOLSUM ... TCOLARGMIN): one
operation kind over the shared TEPL flow; each operation module is one declaration
(name, reduction, axis).

Facts from asl/tile/model/execution/reduction.asl (ExecuteTileReduction,
TileReductionInitialValue, TileReductionOneEncoding, TileReductionStepWithFlags),
asl/tile/model/legality/reduction-and-expansion.asl (TileOperandsLegal_ExecuteTileReduction),
dtype-layout.asl (TileVecArithmeticDataTypeSupported, TileArgReductionSourceDataTypeSupported),
asl/block/model/dispatch/reduction-schema.asl (SelectedBundleClosedReductionSchemaLegal) and
destination-shape.asl (the destination's shape and type):

- each valid row (TROW*) or column (TCOL*) is a left fold in increasing index, never
  reassociated: SUM from the Word 0 over every element, PROD from the type's one encoding,
  MAX/MIN/ARGMAX/ARGMIN from the first element's Word over the rest; each step is
  TileProfileBinaryWithFlags of ADD, MUL, MAX or MIN (the element functions of
  ``ops.arithmetic`` and ``ops.minmax``) and its flags are ORed and recorded in both
  profiles (unlike ExecuteTileBinary);
- a step selects the element when its result equals the element and differs from the
  accumulator; ARGMAX/ARGMIN write the index of the last selecting step (ties keep the
  lowest). pto-v0 compares whole Words as the ASL does (an integer MAX/MIN result is the
  operand sign- or zero-extended to the Word, so a negative signed element written as its
  element bits is never selected); SPEC-CHOICE 33: hw-ieee compares the element bits, so the
  index is the documented lowest winning index;
- SPEC-CHOICE 35: under hw-ieee a one-element MAX/MIN line holding a NaN gives the
  canonical NaN (the hardware profile's all-NaN rule), where the ASL returns the NaN;
- the destination is valid_rows x 1 in one column (row axis) or 1 x valid_cols in the
  source's columns (column axis); its type is the source's, or the index type: U32 in a
  bundle, S32 or U32 through a direct call, and a pad-only B.DATR never changes it (the
  ASL names the type, unlike the effective type of the other TEPL blocks: SPEC-CHOICES
  row 34 does not reach the reductions); the padding follows the bundle's PadValue.

The fold is vectorized over the rows (columns) being reduced: one array step per index.
"""
from __future__ import annotations

import numpy as np

from .. import block as blocks
from ..dtypes import dtype as data_type
from ..faults import tile_legality
from ..numeric import FLAG_NV, ValueClass, classify
from ..state import MachineState, descriptor_legal, source_encodings_valid
from . import arithmetic, minmax
from .common import result_tile
from .elementwise import Elementwise, scalar_source_legal, single_binding

U64 = np.uint64

# TileReductionOneEncoding of the floating types (every integer type: 1)
ONE_ENCODING = {"FP64": 0x3FF0000000000000, "FP32": 0x3F800000, "TF32": 0x3F800000, "HF32": 0x3F800000,
                "FP16": 0x3C00, "BF16": 0x3F80, "E4M3": 0x38, "E5M2": 0x3C}
# TileArgReductionSourceDataTypeSupported (TileA9DataTypeSupported)
ARG_SOURCE_TYPES = frozenset({"S32", "U32", "FP32", "S16", "U16", "FP16", "BF16", "S8", "U8"})
INDEX_TYPES = frozenset({"S32", "U32"})
BUNDLE_INDEX_TYPE = "U32"


# reduction -> (the element function of its step's TileBinaryOperation, folds from an identity)
STEPS = {"SUM": (arithmetic.add, True), "PROD": (arithmetic.multiply, True), "MAX": (minmax.maximum, False),
         "MIN": (minmax.minimum, False), "ARGMAX": (minmax.maximum, False), "ARGMIN": (minmax.minimum, False)}


def initial_words(reduction: str, dtype, first) -> np.ndarray:
    """TileReductionInitialValue for every line, given the lines' first Words."""
    if reduction == "SUM":
        return np.zeros_like(first)
    if reduction == "PROD":
        return np.full_like(first, U64(ONE_ENCODING.get(dtype.name, 1)))
    return first.copy()


class TileReduction(Elementwise):
    """One reduction ``reduction`` (SUM, PROD, MAX, MIN, ARGMAX, ARGMIN) along ``axis``
    ("Row": each valid row to one element, "Column": each valid column)."""

    HANDLER, LEGALITY = "ExecuteTileReduction", "TileOperandsLegal_ExecuteTileReduction"
    ARGUMENTS = ("destination0", "source0")

    def __init__(self, name: str, reduction: str, axis: str):
        self.reduction, self.axis = reduction, axis
        self.index = reduction in ("ARGMAX", "ARGMIN")
        super().__init__(name, STEPS[reduction][0], "TileVecArithmeticDataTypeSupported")
        self.schema_types = self.types  # the closed schema's BSTART types, for every reduction
        if self.index:  # the source types the operand rules accept
            self.types_name, self.types = "TileArgReductionSourceDataTypeSupported", ARG_SOURCE_TYPES

    # --- bundle --------------------------------------------------------------
    def schema_legal(self, state: MachineState, block) -> bool:
        """SelectedBundleClosedReductionSchemaLegal: one terminating B.IOT with a new
        destination and one source, no B.IOR, LB dimensions legal, a BSTART type of
        TileVecArithmeticDataTypeSupported, and a defined, validly encoded RowMajor
        numeric source of that type whose shape is the LB shape."""
        return (single_binding(block, 1) and block.ior is None and block.data_type.name in self.schema_types
                and scalar_source_legal(state, block, block.bindings[0].sources[0]))

    def destination_shape(self, state: MachineState, block):
        source = state.tiles[block.sources()[0]]
        if self.axis == "Row":
            return source.valid_rows, 1, 1
        return 1, source.valid_cols, source.cols

    def resolve_destination(self, state: MachineState, block):
        """ResolveBundleTileDestinationsWithShapeAndType with the type named explicitly: U32
        for the index reductions, else the source's. Unlike the effective type of other
        TEPL blocks, a B.DATR (whose omitted DataType encodes FP64) never changes it."""
        source = state.tiles[block.sources()[0]]
        dtype = data_type(BUNDLE_INDEX_TYPE) if self.index else source.dtype
        return blocks.resolve_destination(state, block, self.destination_shape(state, block), dtype)

    # --- operand legality (bundle and direct call) ---------------------------
    def operands_check(self, tiles, dst: int, sources, scalar: int, limit: int) -> None:
        destination, source = tiles[dst], tiles[sources[0]]
        if dst == sources[0] or not descriptor_legal(destination, limit):
            raise tile_legality(f"{self.NAME}: the destination must be a legal tile other than the source")
        if (destination.predicate or source.predicate or destination.layout != "RowMajor"
                or source.layout != "RowMajor" or source.dtype.name not in self.types
                or not source_encodings_valid(source, limit)):
            raise tile_legality(f"{self.NAME} reduces a RowMajor numeric tile of {self.types_name} with valid "
                                f"encodings into a RowMajor numeric tile")
        wanted = INDEX_TYPES if self.index else {source.dtype.name}
        if destination.dtype.name not in wanted:
            raise tile_legality(f"{self.NAME}: the destination type must be {' or '.join(sorted(wanted))}, "
                                f"not {destination.dtype.name}")
        if self.axis == "Row":
            shape_legal = (destination.rows >= source.valid_rows and destination.cols == 1
                           and (destination.valid_rows, destination.valid_cols) == (source.valid_rows, 1))
        else:
            shape_legal = (destination.cols == source.cols
                           and (destination.valid_rows, destination.valid_cols) == (1, source.valid_cols))
        if not shape_legal:
            raise tile_legality(f"{self.NAME}: the destination's shape does not hold one result per valid "
                                f"{self.axis.lower()} of the source")

    # --- execution -----------------------------------------------------------
    def lines(self, source) -> np.ndarray:
        """The valid region as lines to fold (lines x positions): rows, or columns."""
        return source.valid_words() if self.axis == "Row" else source.valid_words().T

    def initial(self, dtype, first: np.ndarray) -> np.ndarray:
        """TileReductionInitialValue for every line, given the lines' first Words."""
        return initial_words(self.reduction, dtype, first)

    def step(self, dtype, profile: str, accumulator: np.ndarray, value: np.ndarray):
        """TileProfileBinaryWithFlags of the step's operation: (result Words, flags)."""
        result, flags = self.element(dtype, profile, accumulator, value)
        return np.asarray(result, dtype=U64), flags

    def selected(self, dtype, profile: str, result, value, accumulator) -> np.ndarray:
        """Where a step selects the element: its result equals the element and differs
        from the accumulator (whole Words in pto-v0; SPEC-CHOICE 33: element bits in hw-ieee)."""
        if profile != "pto-v0":
            keep = U64(dtype.mask) if dtype.bits < 64 else U64(0xFFFFFFFFFFFFFFFF)
            result, value, accumulator = result & keep, value & keep, accumulator & keep
        return (result == value) & (result != accumulator)

    def fold(self, source, profile: str):
        """(one result Word per line, ORed flags): the left fold of every valid row (column),
        one array step per position across all lines."""
        dtype = source.dtype
        lines = self.lines(source)
        accumulator = self.initial(dtype, lines[:, 0])
        index = np.zeros(lines.shape[0], dtype=U64)
        flags = 0
        for position in range(0 if STEPS[self.reduction][1] else 1, lines.shape[1]):
            value = lines[:, position]
            result, step_flags = self.step(dtype, profile, accumulator, value)
            index = np.where(self.selected(dtype, profile, result, value, accumulator), U64(position), index)
            flags |= int(np.bitwise_or.reduce(np.asarray(step_flags, dtype=np.uint8).ravel(), initial=0))
            accumulator = result
        if profile == "hw-ieee" and self.reduction in ("MAX", "MIN") and lines.shape[1] == 1 and dtype.is_float:
            accumulator, flags = self.lone_nan_canonical(dtype, accumulator, flags)
        return (index if self.index else accumulator), flags

    @staticmethod
    def lone_nan_canonical(dtype, words: np.ndarray, flags: int):
        """SPEC-CHOICE 35: the hardware profile returns the canonical NaN for an all-NaN
        MAX/MIN input; the ASL's fold takes no step over a one-element line and returns its
        NaN as it is. hw-ieee follows the profile (NV for a signaling NaN, as a step would)."""
        value_class = classify(words, dtype)
        nan = value_class >= ValueClass.QUIET_NAN
        if (value_class == ValueClass.SIGNALING_NAN).any():
            flags |= FLAG_NV
        return np.where(nan, U64(dtype.canonical_nan), words), flags

    def elements(self, tiles, dst: int, sources, scalar: int, pad: str, profile: str):
        words, flags = self.fold(tiles[sources[0]], profile)
        words = words[:, None] if self.axis == "Row" else words[None, :]
        return result_tile(tiles[dst], words, pad), flags
