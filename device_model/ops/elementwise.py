"""The elementwise TEPL operations: each is one declaration (name, operation
kind, type set, element function), a kind of ``ops.operation.Operation`` and
its TEPL bundle flow.

Facts from asl/tile/model/legality/dtype-layout.asl (type sets),
operand-schema.asl (TileOperandsLegal_*), asl/block/model/dispatch/
tile-schema.asl, tile-scalar-schema.asl and comparison-schema.asl (closed
schemas), destination-shape.asl (destination shape), asl/tile/model/dispatch
(the source-definedness check before operand legality) and
asl/tile/model/execution/elementwise.asl and unary.asl (execution, padding,
status). The operation kinds are the spec's semantic handlers; each states its
handler, legality handler and operand fields as the spec's operation catalog
names them (tests/model/test_model_elementwise.py compares them with
contract/spec_data/tile-operations.json).

An element function takes ``(dtype, profile, *operands)`` -- uint64 arrays of
the valid region's Words, a scalar as the raw element it is after
TileRawElementValue -- and returns ``(words, flags)`` (flags: an int or a
uint8 array of NumericStatus bits).
"""
from __future__ import annotations

import numpy as np

from ..faults import tile_legality
from ..numeric.tile_arithmetic import integer_divisor_zero
from ..state import MachineState, carrier_view, descriptor_legal, predicate_from_carriers, source_encodings_valid
from .common import Publication, encoding_valid, raw_element, result_tile
from .operation import Operation

# The type sets, each stated once under the ASL function that defines it
# (asl/tile/model/legality/dtype-layout.asl). An operation names the one its
# legality uses (TileBinaryDataTypeSupported, TileUnaryDataTypeSupported,
# TileCompareDataTypeSupported, TileSelectDataTypeSupported and
# TileFillPadDataTypeSupported each reduce to one of these for it).
TYPE_SETS = {
    "TileVecArithmeticDataTypeSupported": frozenset({
        "FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2",
        "S64", "S32", "S16", "S8", "U64", "U32", "U16", "U8"}),
    "TileVecScalarIntegerDataTypeSupported": frozenset({
        "S64", "S32", "S16", "S8", "U64", "U32", "U16", "U8"}),
    "TileFloatingElementwiseDataTypeSupported": frozenset({
        "FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2"}),
}


class Elementwise(Operation):
    """One elementwise TEPL operation of kind ``type(self)`` (a registry entry): the
    element function over the valid region, the result padded as PadValue says."""

    def __init__(self, name: str, element, types: str, closed: bool = True):
        super().__init__(name, element)
        self.types_name = types
        self.types = TYPE_SETS[types]
        self.closed = closed  # the operation has a closed bundle schema

    # --- the TEPL flow's hooks ---------------------------------------------
    def closed_schema_check(self, state: MachineState, block) -> None:
        if self.closed:
            super().closed_schema_check(state, block)

    def schema_summary(self) -> str:
        return (f"one B.IOT with L=1 naming {self.SOURCES} source(s) and a new destination, LB0 >= 1 and "
                f"present LB1/LB2 >= 1, a {self.types_name} BSTART type, operand rules")

    def destination_shape(self, state: MachineState, block):
        """Closed schemas take LB1|1, LB0, LB2|LB0; without one the destination takes
        the dimensions given, else the first source's (ResolveBundleTileDestinations)."""
        return block.shape() if self.closed else block.derived_shape(state)

    # --- shared by bundle and direct path ---------------------------------
    def run(self, tiles, dst: int, sources, scalar: int, pad: str, profile: str, limit: int) -> Publication:
        """Source definedness, then operand legality (Fault_TileLegality), then the
        elements; sources are read before the destination is written."""
        self.check_operands(tiles, dst, sources, scalar, limit)
        if tiles[dst].predicate:
            # The operand rules admit predicate tiles only all together (TileShapeAndTypeMatch
            # compares storage kinds; a predicate tile is U8), which a direct call can give.
            # The ASL then reads and writes each predicate tile's payload Words as U8 elements,
            # packed bytes first: the model does the same on carrier views.
            view = list(tiles)
            for index in {dst, *sources}:
                view[index] = carrier_view(tiles[index])
            tile, status = self.elements(view, dst, sources, scalar, pad, profile)
            return Publication({dst: predicate_from_carriers(tile)}, status)
        tile, status = self.elements(tiles, dst, sources, scalar, pad, profile)
        return Publication({dst: tile}, status)

    def elements(self, tiles, dst: int, sources, scalar: int, pad: str, profile: str):
        """The destination tile and NumericStatus of the element function over the valid region."""
        dtype = tiles[dst].dtype
        operands = [tiles[s].valid_words() for s in sources]
        if self.GPR_INPUTS:
            operands.append(np.uint64(raw_element(scalar, dtype)))
        words, flags = self.element(dtype, profile, *operands)
        words, shape = np.asarray(words, dtype=np.uint64), tiles[dst].valid_index.shape
        if words.shape != shape:  # a scalar or row operand's result: spread over the valid region
            words = np.broadcast_to(words, shape)
        return result_tile(tiles[dst], words, pad), self.status(flags, profile)


# ----------------------------------------------------------------------------
# Shared legality pieces

def single_binding(block, sources: int) -> bool:
    """One B.IOT naming a new destination and exactly ``sources`` sources, with L=1,
    no B.IOS, and LB0 >= 1 and any present LB1/LB2 >= 1."""
    if len(block.bindings) != 1 or block.shared or not block.dims_legal():
        return False
    binding = block.bindings[0]
    return binding.destination and len(binding.sources) == sources and binding.last


def shape_and_type_match(left, right, limit: int) -> bool:
    """TileShapeAndTypeMatch (the storage kinds equal too: a predicate tile never
    matches a numeric one)."""
    return (descriptor_legal(left, limit) and descriptor_legal(right, limit)
            and (left.rows, left.cols, left.valid_rows, left.valid_cols, left.layout, left.dtype,
                 left.storage_kind)
            == (right.rows, right.cols, right.valid_rows, right.valid_cols, right.layout, right.dtype,
                right.storage_kind))


def scalar_source_legal(state: MachineState, block, source: int) -> bool:
    """SelectedBundleTileScalarSourceLegal: a legal, defined, validly encoded RowMajor
    numeric tile of the BSTART type whose valid region and columns are LB1, LB0, LB2."""
    tile = state.tiles[source]
    return (source_encodings_valid(tile, state.tile_capacity) and not tile.predicate
            and tile.dtype == block.data_type
            and tile.layout == "RowMajor" and (tile.valid_rows, tile.valid_cols, tile.cols) == block.shape())


# ----------------------------------------------------------------------------
# Operation kinds

class TileBinary(Elementwise):
    """Tile-tile binary operations (TAND ... TMIN). Only TADD .. TMIN have a closed
    bundle schema (SelectedBundleClosedBinarySchemaLegal); TAND, TOR, TXOR, TSHL
    and TSHR have none and size their destination from the first source."""

    HANDLER, LEGALITY = "ExecuteTileBinary", "TileOperandsLegal_ExecuteTileBinary"
    ARGUMENTS = ("destination0", "source0", "source1")

    def __init__(self, name: str, element, types: str, closed: bool, checks_encodings: bool = False,
                 divides: bool = False):
        super().__init__(name, element, types, closed)
        self.checks_encodings = checks_encodings  # MAX/MIN: floating encodings must be valid
        self.divides = divides  # DIV/REM: no integer divisor element may be zero

    def schema_legal(self, state: MachineState, block) -> bool:
        return single_binding(block, 2) and block.data_type.name in self.types

    def operands_check(self, tiles, dst: int, sources, scalar: int, limit: int) -> None:
        left, right = (tiles[s] for s in sources)
        if not (shape_and_type_match(left, right, limit) and shape_and_type_match(tiles[dst], left, limit)):
            raise tile_legality(f"{self.NAME}: destination and sources differ in shape, layout or type")
        if left.dtype.name not in self.types or left.layout != "RowMajor":
            raise tile_legality(f"{self.NAME} takes RowMajor {self.types_name} tiles, not {left.layout} "
                                f"{left.dtype.name}")
        if self.checks_encodings and left.dtype.is_float and not (
                source_encodings_valid(left, limit) and source_encodings_valid(right, limit)):
            raise tile_legality(f"{self.NAME}: a source holds an invalid {left.dtype.name} encoding")
        # SPEC-CHOICE 25: TilePayloadNonzero tests whole Words, but TileIntegerDivRemValue
        # divides the element values and asserts a nonzero divisor, so a Word with zero
        # element bits and nonzero upper bits passes legality and then stops the ASL. The
        # model rejects any zero divisor element (Fault_TileLegality), as TDIVS does.
        if self.divides and left.dtype.is_integer and integer_divisor_zero(right.valid_words(), right.dtype).any():
            raise tile_legality(f"{self.NAME}: an integer divisor element is zero")

    def status(self, flags, profile: str) -> int:
        # SPEC-CHOICE 22: the TMAX/TMIN documents say a signaling NaN reports invalid, but
        # ExecuteTileBinary evaluates TileProfileBinary, which drops the flags of
        # TileProfileBinaryWithFlags (the tile-scalar forms record them). pto-v0
        # follows the executable ASL (no status); hw-ieee reports NV as the documents
        # and the profile's exception model say.
        # SPEC-CHOICE 23: TADD, TSUB, TMUL, TDIV and TREM lose their NumericStatus the
        # same way; pto-v0 records none, hw-ieee records all five IEEE flags (the
        # hardware profile's exception model).
        return super().status(flags, profile) if profile == "hw-ieee" else 0


class TileUnary(Elementwise):
    """Tile unary operations with the closed unary schema (TABS, TNOT, TNEG, TRELU)."""

    HANDLER, LEGALITY = "ExecuteTileUnary", "TileOperandsLegal_ExecuteTileUnary"
    ARGUMENTS = ("destination0", "source0")

    def schema_legal(self, state: MachineState, block) -> bool:
        return single_binding(block, 1) and block.data_type.name in self.types

    def operands_check(self, tiles, dst: int, sources, scalar: int, limit: int) -> None:
        source = tiles[sources[0]]
        if not shape_and_type_match(tiles[dst], source, limit):
            raise tile_legality(f"{self.NAME}: destination and source differ in shape, layout or type")
        if source.dtype.name not in self.types or source.layout != "RowMajor":
            raise tile_legality(f"{self.NAME} takes RowMajor {self.types_name} tiles, not {source.layout} "
                                f"{source.dtype.name}")
        if source.dtype.is_float and not source_encodings_valid(source, limit):
            raise tile_legality(f"{self.NAME}: the source holds an invalid {source.dtype.name} encoding")


class TileScalar(Elementwise):
    """Tile-scalar binary operations (TANDS ... TMINS, TMULS): the closed tile-scalar
    schema; the scalar is B.IOR RegSrc0's GPR (0 when B.IOR is omitted)."""

    HANDLER, LEGALITY = "ExecuteTileScalar", "TileOperandsLegal_ExecuteTileScalar"
    ARGUMENTS = ("destination0", "source0", "scalar0")

    def __init__(self, name: str, element, types: str, carrier_logical: bool = False, divides: bool = False):
        super().__init__(name, element, types)
        self.carrier_logical = carrier_logical  # AND/OR/XOR on integer types skip encoding checks
        self.divides = divides  # DIV/REM: an integer scalar must not be zero

    def _zero_divisor(self, scalar: int, dtype) -> bool:
        return self.divides and dtype.is_integer and bool(integer_divisor_zero(raw_element(scalar, dtype), dtype))

    def schema_legal(self, state: MachineState, block) -> bool:
        scalar = block.gpr_inputs(state)[0] if block.ior is not None else 0
        return (single_binding(block, 1) and block.data_type.name in self.types
                and scalar_source_legal(state, block, block.bindings[0].sources[0])
                and encoding_valid(raw_element(scalar, block.data_type), block.data_type)
                and not self._zero_divisor(scalar, block.data_type))

    def operands_check(self, tiles, dst: int, sources, scalar: int, limit: int) -> None:
        source = tiles[sources[0]]
        if not shape_and_type_match(tiles[dst], source, limit) or source.layout != "RowMajor" \
                or source.predicate or source.dtype.name not in self.types:
            raise tile_legality(f"{self.NAME}: destination and source must be matching RowMajor "
                                f"{self.types_name} tiles")
        if not self.carrier_logical and not (source_encodings_valid(source, limit)
                                             and encoding_valid(raw_element(scalar, source.dtype), source.dtype)):
            raise tile_legality(f"{self.NAME}: the source or the scalar is not a valid "
                                f"{source.dtype.name} encoding")
        if self._zero_divisor(scalar, source.dtype):
            raise tile_legality(f"{self.NAME}: the integer scalar divisor is zero")


class TileFusedMultiplyAdd(Elementwise):
    """TFMA: ``left * right + addend`` (SelectedBundleClosedTFMASchemaLegal: a first
    B.IOT with the two multiplicands, no destination and L=0, a second with the
    addend, a new destination and L=1; no B.IOR, no B.IOS)."""

    HANDLER, LEGALITY = "TFMA", "TileOperandsLegal_TFMA"
    ARGUMENTS = ("destination0", "source0", "source1", "source2")

    def schema_legal(self, state: MachineState, block) -> bool:
        if len(block.bindings) != 2 or block.shared or block.ior is not None or not block.dims_legal():
            return False
        multiplicands, result = block.bindings
        return (not multiplicands.destination and len(multiplicands.sources) == 2 and not multiplicands.last
                and result.destination and len(result.sources) == 1 and result.last
                and block.data_type.name in self.types)

    def operands_check(self, tiles, dst: int, sources, scalar: int, limit: int) -> None:
        destination = tiles[dst]
        if not all(shape_and_type_match(destination, tiles[s], limit) for s in sources):
            raise tile_legality(f"{self.NAME}: destination and sources differ in shape, layout or type")
        if destination.dtype.name not in self.types or destination.layout != "RowMajor":
            raise tile_legality(f"{self.NAME} takes RowMajor {self.types_name} tiles, not "
                                f"{destination.layout} {destination.dtype.name}")
        if destination.dtype.is_float and not all(source_encodings_valid(tiles[s], limit) for s in sources):
            raise tile_legality(f"{self.NAME}: a source holds an invalid {destination.dtype.name} encoding")


class TileFill(Elementwise):
    """TEXPANDS: every valid element of a new tile is the scalar's raw element."""

    HANDLER, LEGALITY = "ExecuteTileFillScalar", "TileOperandsLegal_ExecuteTileFillScalar"
    ARGUMENTS = ("destination0", "scalar0")

    def schema_legal(self, state: MachineState, block) -> bool:
        return single_binding(block, 0) and block.data_type.name in self.types

    def operands_check(self, tiles, dst: int, sources, scalar: int, limit: int) -> None:
        tile = tiles[dst]
        if not descriptor_legal(tile, limit) or tile.predicate or tile.layout != "RowMajor" \
                or tile.dtype.name not in self.types:
            raise tile_legality(f"{self.NAME}: the destination must be a legal RowMajor "
                                f"{self.types_name} tile")
