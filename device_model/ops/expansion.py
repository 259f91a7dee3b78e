"""The row and column broadcasts (TROWEXPAND, TCOLEXPAND and the expand-op forms
TROW/TCOLEXPAND{ADD, SUB, MUL, DIV, MAX, MIN, EXPDIF}): one operation kind over the
shared TEPL flow; each operation module is one declaration (name, axis, element
operation).

Facts from asl/tile/model/execution/expansion.asl (ExecuteTileExpand,
TileExpandValueWithTypesAndFlags, ExactWidenFP16ToFP32/BF16ToFP32),
asl/tile/model/legality/reduction-and-expansion.asl (TileOperandsLegal_ExecuteTileExpand,
TileExpandExpdifTypePairLegal), asl/block/model/dispatch/expansion-schema.asl
(SelectedBundleClosedExpansionSchemaLegal), destination-shape.asl (the EXPDIF
destination type), asl/tile/model/legality/allocation-capacity.asl
(TileBroadcastPayloadNonzero) and asl/arch/profile/reference-profile.asl with
asl/arch/features/mx-formats.asl (pto-v0's TileProfileMixedExpdifFP32):

- every valid destination element (r, c) combines the full-shape source's (r, c) with
  the broadcast tile's (r, 0) (row axis) or (0, c) (column axis); COPY takes the
  broadcast element bit for bit (no status);
- the others are TileProfileBinaryWithFlags on the destination type, and unlike
  ExecuteTileBinary the expansion records every element's flags (both profiles);
- EXPDIF is SUB then the SFU EXP (its special values first), flags ORed; the mixed
  pairs (FP16|BF16 -> FP32) widen both sources exactly to FP32 first, and pto-v0
  answers two hard-coded widened operand pairs before its raw FP32 SUB/EXP;
- the broadcast tile has the destination's valid rows, one valid column and one
  physical column (row axis), or one valid row and the destination's valid and
  physical columns (column axis); the padding follows the bundle's PadValue.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import DTYPE_NONE
from ..faults import tile_legality
from ..state import MachineState, descriptor_legal, logical_shape_match, source_contents_defined, \
    source_encodings_valid
from . import minmax
from .arithmetic import add, divide, multiply, subtract
from .sfu import exponential
from .common import Publication, result_tile
from .elementwise import Elementwise, integer_divisor_zero, shape_and_type_match, single_binding

U64 = np.uint64

# TileExpandExpdifTypePairLegal: (source type, destination type)
EXPDIF_PAIRS = frozenset({("FP16", "FP16"), ("BF16", "BF16"), ("FP32", "FP32"), ("FP16", "FP32"),
                          ("BF16", "FP32")})
# HardwareNumericMixedExpdifDiscriminator: widened (left, broadcast) -> FP32 result
MIXED_EXPDIF_DISCRIMINATORS = {(0x3C000000, 0x33800000): 0x3F810100, (0x3F800000, 0x3B000000): 0x402DA16E}


# TileProfileBinaryWithFlags per element operation: (dtype, profile, left, right) -> (words, flags)
ELEMENT_OPERATIONS = {"ADD": add, "SUB": subtract, "MUL": multiply, "DIV": divide, "MAX": minmax.maximum,
                      "MIN": minmax.minimum}


def widen_to_fp32(words, source, profile) -> np.ndarray:
    """ExactWidenFP16ToFP32 / ExactWidenBF16ToFP32 of element Words (FP16 NaNs become
    the canonical FP32 NaN; BF16 keeps its bits).

    SPEC-CHOICE 32: for an FP16 subnormal the ASL writes the fraction bits below the
    normalized leading one at result[21:13] (``result[22:13] = ZeroExtend{10}(normalized[8:0])``),
    half their value; pto-v0 follows those bits, hw-ieee the hardware profile's
    value-preserving widening (bits 22:14)."""
    words = np.asarray(words, dtype=U64) & U64(0xFFFF)
    if source == "BF16":
        return words << U64(16)
    sign = (words >> U64(15)) << U64(31)
    exponent = (words >> U64(10)) & U64(0x1F)
    fraction = words & U64(0x3FF)
    normal = sign | ((exponent + U64(112)) << U64(23)) | (fraction << U64(13))
    # a subnormal f * 2**-24 with its leading one at bit k is 2**(k-24) * (1 + rest)
    lead = np.zeros(words.shape, dtype=U64)
    for bit in range(1, 10):
        lead = np.where(fraction >> U64(bit), U64(bit), lead)
    rest = (fraction & ~(U64(1) << lead)) << (U64(22 if profile == "pto-v0" else 23) - lead)
    subnormal = sign | ((lead + U64(103)) << U64(23)) | (rest & U64(0x7FFFFF))
    special = np.where(fraction != 0, U64(0x7FC00000), sign | U64(0x7F800000))
    return np.select([exponent == 0x1F, exponent != 0, fraction != 0], [special, normal, subnormal], sign)


def exponential_difference(source, destination, profile, left, broadcast):
    """TileExpandValueWithTypesAndFlags for EXPDIF: (Words, flags)."""
    if source.name != destination.name:
        left, broadcast = widen_to_fp32(left, source.name, profile), widen_to_fp32(broadcast, source.name, profile)
    difference, subtract_flags = subtract(destination, profile, left, broadcast)
    words, exp_flags = exponential(destination, profile, difference)
    flags = np.asarray(subtract_flags, dtype=np.uint8) | np.asarray(exp_flags, dtype=np.uint8)
    if source.name != destination.name and profile == "pto-v0":
        for (a, b), fixed in MIXED_EXPDIF_DISCRIMINATORS.items():
            hit = (left == U64(a)) & (broadcast == U64(b))
            words, flags = np.where(hit, U64(fixed), words), np.where(hit, np.uint8(0), flags)
    return words, flags


class TileExpand(Elementwise):
    """One broadcast of ``axis`` ("Row" or "Column") and element operation
    ``operation`` (COPY, ADD, SUB, MUL, DIV, MAX, MIN, EXPDIF)."""

    HANDLER, LEGALITY = "ExecuteTileExpand", "TileOperandsLegal_ExecuteTileExpand"

    def __init__(self, name: str, axis: str, operation: str):
        self.ARGUMENTS = ("destination0", "source0") + (() if operation == "COPY" else ("source1",))
        self.axis, self.operation = axis, operation
        if operation == "EXPDIF":
            self.DATR_ALLOWED = frozenset({"PadValue", "DataType"})
        super().__init__(name, ELEMENT_OPERATIONS.get(operation), "TileVecArithmeticDataTypeSupported")

    # --- bundle ------------------------------------------------------------
    def expdif_types(self, block):
        """SelectedBundleExpansionExponentialDifferenceTypes: (legal, source, destination)."""
        source = block.data_type
        if block.datr is None or block.datr["DataType"] == DTYPE_NONE:
            return (source.name, source.name) in EXPDIF_PAIRS, source, source
        destination = block.explicit_type()
        legal = destination is not None and (source.name, destination.name) in EXPDIF_PAIRS
        return legal, source, destination

    def schema_legal(self, state: MachineState, block) -> bool:
        if not single_binding(block, self.SOURCES) or block.ior is not None:
            return False
        source_type = destination_type = block.data_type
        if self.operation == "EXPDIF":
            legal, source_type, destination_type = self.expdif_types(block)
            if not legal:
                return False
        elif block.data_type.name not in self.types:
            return False
        *full, broadcast = block.bindings[0].sources
        valid_rows, valid_cols, cols = block.shape()
        if not (self._typed_source(state, broadcast, source_type)
                and self.broadcast_shape_legal(state.tiles[broadcast], valid_rows, valid_cols, cols)):
            return False
        if not full:
            return True
        source = state.tiles[full[0]]
        if not (self._typed_source(state, full[0], source_type)
                and (source.valid_rows, source.valid_cols, source.cols) == (valid_rows, valid_cols, cols)):
            return False
        return not self._zero_divisor(destination_type, state.tiles[broadcast])

    def _typed_source(self, state, index, dtype) -> bool:
        tile = state.tiles[index]
        return (source_encodings_valid(tile, state.tile_capacity) and not tile.predicate
                and tile.dtype == dtype and tile.layout == "RowMajor")

    # --- shared legality -----------------------------------------------------
    def broadcast_shape_legal(self, broadcast, valid_rows: int, valid_cols: int, cols: int) -> bool:
        if self.axis == "Row":
            return (broadcast.valid_rows, broadcast.valid_cols, broadcast.cols) == (valid_rows, 1, 1)
        return (broadcast.valid_rows, broadcast.valid_cols, broadcast.cols) == (1, valid_cols, cols)

    def _zero_divisor(self, dtype, broadcast) -> bool:
        # SPEC-CHOICE 25: TileBroadcastPayloadNonzero tests whole Words, but the integer DIV
        # divides element values; as for TDIV, the model rejects any broadcast element
        # whose element bits are zero (Fault_TileLegality).
        return (self.operation == "DIV" and dtype.is_integer
                and bool(integer_divisor_zero(broadcast.valid_words(), dtype).any()))

    def operands_check(self, tiles, dst: int, sources, scalar: int, limit: int) -> None:
        destination, broadcast = tiles[dst], tiles[sources[-1]]
        source = tiles[sources[0]]
        if not all(descriptor_legal(t, limit) for t in (destination, source, broadcast)):
            raise tile_legality(f"{self.NAME}: an operand descriptor is not legal")
        if self.operation == "EXPDIF":
            type_legal = (source.dtype.name, destination.dtype.name) in EXPDIF_PAIRS
        else:
            type_legal = destination.dtype.name in self.types
        if (destination.predicate or destination.layout != "RowMajor" or not type_legal
                or broadcast.predicate or broadcast.layout != "RowMajor"
                or broadcast.dtype != (source.dtype if self.operation == "EXPDIF" else destination.dtype)
                or not (source_contents_defined(broadcast, limit) if self.operation == "COPY"
                        else source_encodings_valid(broadcast, limit))):
            raise tile_legality(f"{self.NAME}: the destination or the broadcast tile is not a legal RowMajor "
                                f"tile of a legal type")
        if self.operation != "COPY":
            shape = (logical_shape_match(destination, source, limit) if self.operation == "EXPDIF"
                     else shape_and_type_match(destination, source, limit))
            if not shape or source.predicate or source.layout != "RowMajor" \
                    or not source_encodings_valid(source, limit):
                raise tile_legality(f"{self.NAME}: the source and the destination differ in shape, "
                                    f"layout or type, or the source is not fully defined and valid")
        if not self.broadcast_shape_legal(broadcast, destination.valid_rows, destination.valid_cols,
                                          destination.cols):
            raise tile_legality(f"{self.NAME}: the broadcast tile's shape does not fit the {self.axis.lower()} "
                                f"broadcast")
        if self._zero_divisor(destination.dtype, broadcast):
            raise tile_legality(f"{self.NAME}: an integer broadcast divisor element is zero")

    # --- execution -----------------------------------------------------------
    def broadcast_words(self, broadcast, destination) -> np.ndarray:
        """The broadcast element each valid destination element reads."""
        words = broadcast.valid_words()
        shape = (destination.valid_rows, destination.valid_cols)
        return np.broadcast_to(words[:, :1] if self.axis == "Row" else words[:1, :], shape)

    def elements(self, tiles, dst: int, sources, scalar: int, pad: str, profile: str):
        destination, broadcast = tiles[dst], tiles[sources[-1]]
        right = self.broadcast_words(broadcast, destination)
        if self.operation == "COPY":
            return result_tile(destination, right, pad), 0
        left = tiles[sources[0]].valid_words()
        if self.operation == "EXPDIF":
            words, flags = exponential_difference(tiles[sources[0]].dtype, destination.dtype, profile, left, right)
        else:
            words, flags = self.element(destination.dtype, profile, left, right)
        words = np.broadcast_to(np.asarray(words, dtype=np.uint64), right.shape)
        return result_tile(destination, words, pad), self.status(flags, profile)

    def run(self, tiles, dst: int, sources, scalar: int, pad: str, profile: str, limit: int) -> Publication:
        self.operands_check(tiles, dst, sources, scalar, limit)
        tile, status = self.elements(tiles, dst, sources, scalar, pad, profile)
        return Publication({dst: tile}, status)

    def direct(self, state: MachineState, call: dict, profile: str) -> Publication:
        sources = [call["src"]] + ([call["src1"]] if self.operation != "COPY" else [])
        return self.run(state.tiles, call["dst"], sources, 0, call["pad"], profile, state.tile_capacity)
