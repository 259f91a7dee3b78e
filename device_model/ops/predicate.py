"""Compare and select: the TEPL operations that write or read a packed predicate tile
(TCMP, TCMPS, TSEL, TSELS), each a declaration of a kind of ``ops.operation.Operation``
over its TEPL bundle flow.

Facts from asl/tile/model/execution/comparison.asl (type sets, TileCompareBoolean,
TileFloatingOrderKey, TileProfileFloatingCompare, TileCompareElement, Execute*),
asl/tile/model/legality/operand-schema.asl (TileOperandsLegal_ExecuteTileCompare*,
_ExecuteTileSelect*), asl/block/model/dispatch/comparison-schema.asl and
tile-scalar-schema.asl (the closed schemas), destination-shape.asl
(ResolveBundlePredicateDestination), asl/tile/model/definedness/elements.asl
(predicate bits and PredicateTileWithPadding) and the generated dispatch (every
source defined, then operand legality, both Fault_TileLegality). The hardware
profile's ``comparisons`` section states what pto-v0 executes (NaN unordered:
only NE true; +0 and -0 equal; a signaling NaN reports invalid); the profiles
differ only in floating equality of Words with bits above the element (see
``compare``). Selection copies raw carriers in both.
"""
from __future__ import annotations

import numpy as np

from ..encoding.names import CMODE_NAMES
from ..faults import tile_allocation, tile_legality
from ..numeric import FLAG_NV, ValueClass, classify
from ..numeric.words import normalize_integer
from ..state import (MAX_PREDICATE_ELEMENTS, MachineState, allocation_bytes, capacity_legal,
                     logical_capacity, logical_shape_match, new_predicate_tile, predicate_storage_bytes,
                     predicate_values_legal, source_contents_defined, source_encodings_valid)
from .common import Publication, encoding_valid, raw_element, result_tile
from .elementwise import TYPE_SETS, scalar_source_legal, shape_and_type_match
from .minmax import order_key
from .operation import Operation

U64 = np.uint64
_C = ValueClass
# TileCompareDataTypeSupported and TileSelectDataTypeSupported both return
# TileVecArithmeticDataTypeSupported (comparison.asl).
# SPEC-CHOICE 26: the TCMP/TCMPS documents list nine source types and the TSEL/TSELS
# documents seventeen (HiF8, E3M2, E2M3, E8M0 among them, FP64/S64/U64 excluded); the
# executable ASL and the spec's TYPES test points accept exactly the sixteen of
# TileVecArithmeticDataTypeSupported. The executable set is used.
TYPES = "TileVecArithmeticDataTypeSupported"


# ----------------------------------------------------------------------------
# Elements

def compare(dtype, profile: str, cmode: int, left, right):
    """TileCompareElement over arrays: (bits as bool array, NumericStatus bits as uint8 array).
    ``left``/``right`` are the Words read (a scalar is its raw element)."""
    left, right = np.broadcast_arrays(np.asarray(left, dtype=U64), np.asarray(right, dtype=U64))
    flags = np.zeros(left.shape, np.uint8)
    if dtype.is_integer:
        a, b = normalize_integer(left, dtype), normalize_integer(right, dtype)
        equal = a == b
        less = a.view(np.int64) < b.view(np.int64) if dtype.signed else a < b
        return _relation(cmode, less, equal), flags
    lc, rc = classify(left, dtype), classify(right, dtype)
    nan = (lc >= _C.QUIET_NAN) | (rc >= _C.QUIET_NAN)
    zero = ((lc == _C.POSITIVE_ZERO) | (lc == _C.NEGATIVE_ZERO)) & ((rc == _C.POSITIVE_ZERO) | (rc == _C.NEGATIVE_ZERO))
    # SPEC-CHOICE 27: TileProfileFloatingCompare decides equality on the whole 64-bit
    # Words, so bits above the element make equal elements unequal; pto-v0 follows it,
    # hw-ieee compares the values (the element bits).
    same = left == right if profile == "pto-v0" or dtype.bits == 64 else \
        (left & U64(dtype.mask)) == (right & U64(dtype.mask))
    equal = zero | same
    less = ~zero & (order_key(left, dtype) < order_key(right, dtype))
    bits = np.where(nan, cmode == CMODE_NAMES.index("NE"), _relation(cmode, less, equal))
    flags[(lc == _C.SIGNALING_NAN) | (rc == _C.SIGNALING_NAN)] = FLAG_NV
    return bits, flags


def _relation(cmode: int, less, equal):
    """TileCompareBoolean for CMode codes 0..5 (EQ NE LT GT LE GE)."""
    name = CMODE_NAMES[cmode]
    return {"EQ": equal, "NE": ~equal, "LT": less, "GT": ~less & ~equal, "LE": less | equal,
            "GE": ~less | equal}[name]


def select(bits, true_words, false_words):
    """The chosen carrier Words, unchanged (raw-carrier selection)."""
    return np.where(np.asarray(bits, dtype=bool), np.asarray(true_words, dtype=U64), np.asarray(false_words, dtype=U64))


# ----------------------------------------------------------------------------
# The operation kinds

class PredicateOperation(Operation):
    """One compare or select TEPL operation (a registry entry): a predicate tile is its
    destination (compare) or its mask source (select)."""

    BINDINGS = 1
    SCHEMA = ""  # the closed schema in words

    def __init__(self, name: str, element):
        super().__init__(name, element)
        self.types_name = TYPES
        self.types = TYPE_SETS[TYPES]

    # --- the TEPL flow's hooks ---------------------------------------------
    def schema_legal(self, state: MachineState, block) -> bool:
        return (self._bindings_legal(block) and block.data_type.name in self.types
                and self.schema_operands_legal(state, block))

    def schema_summary(self) -> str:
        return self.SCHEMA

    def _bindings_legal(self, block) -> bool:
        """The closed schema's binding shape, dimensions and CMode."""
        if len(block.bindings) != self.BINDINGS or block.shared or not block.dims_legal():
            return False
        if not self.GPR_INPUTS and block.ior is not None:
            return False
        if "CMode" in self.DATR_ALLOWED and block.datr_field("CMode") > 5:
            return False
        *inputs, result = block.bindings
        wanted = self.SOURCES - 2 * len(inputs)  # a first TSEL binding holds two sources
        return (all(not b.destination and len(b.sources) == 2 and not b.last for b in inputs)
                and result.destination and len(result.sources) == wanted and result.last)

    def shape_matches(self, tile, block) -> bool:
        """SelectedBundleComparisonShapeMatches."""
        return (tile.valid_rows, tile.valid_cols, tile.cols) == block.shape()

    # --- shared by bundle and direct path ---------------------------------
    def run(self, tiles, dst: int, sources, scalar: int, pad: str, profile: str, limit: int,
            cmode: int = 0) -> Publication:
        """Every source defined, then operand legality (both Fault_TileLegality), then
        the elements; every source is read before the destination is written."""
        self.check_operands(tiles, dst, sources, scalar, limit)
        return self.execute(tiles, dst, sources, scalar, cmode, pad, profile)


class _Compare(PredicateOperation):
    def resolve_destination(self, state: MachineState, block):
        """ResolveBundlePredicateDestination: a predicate tile of the source's rows,
        columns and valid region in the binding's TSize; a source whose shape exceeds
        its own capacity, a TSize short of the packed bits or of the core capacity, or
        a full hand is Fault_TileAllocation."""
        binding = block.destinations()[0]
        source = state.tiles[binding.sources[0]]
        size = binding.size_bytes
        if (source is None or source.predicate
                or source.rows * source.cols > logical_capacity(source.capacity, source.dtype)
                or predicate_storage_bytes(source.rows, source.cols) > size):
            raise tile_allocation(f"{self.NAME}: TSize {size} B cannot hold the source's packed predicate bits")
        if source.rows * source.cols > MAX_PREDICATE_ELEMENTS or not capacity_legal(size, state.tile_capacity):
            raise tile_allocation(f"{self.NAME}: a predicate tile holds at most {MAX_PREDICATE_ELEMENTS} elements "
                                  f"in a legal TSize")
        if state.core_capacity_in_use() + allocation_bytes(binding.mask, size) > state.tile_capacity:
            raise tile_allocation("tile capacity exceeded")
        hand = binding.hand
        index = next((i for i in range(hand * 16, hand * 16 + 16) if state.tiles[i] is None), None)
        if index is None:
            raise tile_allocation(f"no free TileIndex in hand {'TUMN'[hand]}")
        return index, new_predicate_tile(size, source.rows, source.cols, source.valid_rows, source.valid_cols,
                                         binding.mask)

    def compared(self, tiles, sources, scalar: int):
        raise NotImplementedError

    def execute(self, tiles, dst, sources, scalar, cmode, pad, profile) -> Publication:
        dtype = tiles[sources[0]].dtype
        bits, flags = self.element(dtype, profile, cmode, *self.compared(tiles, sources, scalar))
        # PredicateTileWithPadding: the U8 pad Words (Max 0xFF, Zero/Min 0) keep their low bit.
        tile = result_tile(tiles[dst], np.asarray(bits, dtype=U64), pad)
        return Publication({dst: tile}, self.status(flags, profile))


class TileCompare(_Compare):
    """TCMP: two numeric tiles -> a new predicate tile."""

    HANDLER, LEGALITY = "ExecuteTileCompare", "TileOperandsLegal_ExecuteTileCompare"
    ARGUMENTS = ("destination0", "source0", "source1", "comparison")
    SCHEMA = "one B.IOT with L=1 naming two sources and a new destination, no B.IOR, LB0 >= 1, CMode 0..5, " \
             "matching defined and validly encoded RowMajor sources of the BSTART type and LB shape"

    def schema_operands_legal(self, state: MachineState, block) -> bool:
        """SelectedBundleClosedTCMPSchemaLegal's source rules."""
        limit = state.tile_capacity
        left, right = (state.tiles[s] for s in block.bindings[0].sources)
        return (shape_and_type_match(left, right, limit) and not left.predicate
                and left.dtype == block.data_type and left.layout == "RowMajor"
                and source_encodings_valid(left, limit) and source_encodings_valid(right, limit)
                and self.shape_matches(left, block))

    def operands_check(self, tiles, dst, sources, scalar, limit) -> None:
        left, right = (tiles[s] for s in sources)
        if not (shape_and_type_match(left, right, limit) and not left.predicate and left.layout == "RowMajor"
                and left.dtype.name in self.types and source_encodings_valid(left, limit)
                and source_encodings_valid(right, limit)):
            raise tile_legality(f"{self.NAME}: the sources must be matching, defined, validly encoded RowMajor "
                                f"numeric {self.types_name} tiles")
        if not (logical_shape_match(tiles[dst], left, limit) and tiles[dst].predicate):
            raise tile_legality(f"{self.NAME}: the destination must be a legal predicate tile of the sources' shape")

    def compared(self, tiles, sources, scalar):
        return tiles[sources[0]].valid_words(), tiles[sources[1]].valid_words()


class TileCompareScalar(_Compare):
    """TCMPS: a numeric tile and a GPR scalar -> a new predicate tile."""

    HANDLER, LEGALITY = "ExecuteTileCompareScalar", "TileOperandsLegal_ExecuteTileCompareScalar"
    ARGUMENTS = ("destination0", "source0", "scalar0", "comparison")
    SCHEMA = "one B.IOT with L=1 naming one source and a new destination, LB0 >= 1, CMode 0..5, a defined and " \
             "validly encoded RowMajor source of the BSTART type and LB shape, a valid scalar encoding"

    def schema_operands_legal(self, state: MachineState, block) -> bool:
        """SelectedBundleClosedTCMPSSchemaLegal's source and scalar rules."""
        scalar = block.gpr_inputs(state)[0] if block.ior is not None else 0
        source = state.tiles[block.bindings[0].sources[0]]
        return (source is not None and scalar_source_legal(state, block, block.bindings[0].sources[0])
                and encoding_valid(raw_element(scalar, block.data_type), block.data_type))

    def operands_check(self, tiles, dst, sources, scalar, limit) -> None:
        source = tiles[sources[0]]
        if not (not source.predicate and source.layout == "RowMajor" and source.dtype.name in self.types
                and source_encodings_valid(source, limit)
                and encoding_valid(raw_element(scalar, source.dtype), source.dtype)):
            raise tile_legality(f"{self.NAME}: the source and the scalar must be a defined, validly encoded "
                                f"RowMajor numeric {self.types_name} tile and element")
        if not (logical_shape_match(tiles[dst], source, limit) and tiles[dst].predicate):
            raise tile_legality(f"{self.NAME}: the destination must be a legal predicate tile of the source's shape")

    def compared(self, tiles, sources, scalar):
        source = tiles[sources[0]]
        return source.valid_words(), U64(raw_element(scalar, source.dtype))


class _Select(PredicateOperation):
    """Raw-carrier selection under a predicate mask into a new numeric tile."""

    def execute(self, tiles, dst, sources, scalar, cmode, pad, profile) -> Publication:
        mask, true_tile = tiles[sources[0]], tiles[sources[1]]
        false_words = self.false_words(tiles, sources, scalar, true_tile.dtype)
        words = self.element(mask.valid_words(), true_tile.valid_words(), false_words)
        return Publication({dst: result_tile(tiles[dst], words, pad)}, 0)

    def mask_legal(self, mask, true_tile, limit) -> bool:
        """TilePredicateValuesLegal(mask) and TileLogicalShapeMatch(mask, source_true)."""
        return predicate_values_legal(mask, limit) and logical_shape_match(mask, true_tile, limit)


class TileSelect(_Select):
    """TSEL: predicate, true tile, false tile -> a new numeric tile."""

    HANDLER, LEGALITY = "ExecuteTileSelect", "TileOperandsLegal_ExecuteTileSelect"
    ARGUMENTS = ("destination0", "source0", "source1", "source2")
    BINDINGS = 2
    SCHEMA = "a first B.IOT with the predicate and the true source, no destination and L=0, a second with " \
             "the false source, a new destination and L=1; no B.IOR; LB0 >= 1; a legal predicate and matching " \
             "defined RowMajor data sources of the BSTART type and LB shape"

    def schema_operands_legal(self, state: MachineState, block) -> bool:
        """SelectedBundleClosedTSELSchemaLegal's operand rules."""
        limit = state.tile_capacity
        mask, true_tile, false_tile = (state.tiles[s] for s in block.sources())
        return (predicate_values_legal(mask, limit) and shape_and_type_match(true_tile, false_tile, limit)
                and not true_tile.predicate and true_tile.dtype == block.data_type
                and source_contents_defined(true_tile, limit) and source_contents_defined(false_tile, limit)
                and true_tile.layout == "RowMajor" and logical_shape_match(mask, true_tile, limit)
                and self.shape_matches(true_tile, block))

    def operands_check(self, tiles, dst, sources, scalar, limit) -> None:
        mask, true_tile, false_tile = (tiles[s] for s in sources)
        if not (shape_and_type_match(true_tile, false_tile, limit) and not true_tile.predicate
                and true_tile.layout == "RowMajor" and true_tile.dtype.name in self.types):
            raise tile_legality(f"{self.NAME}: the data sources must be matching, defined RowMajor numeric "
                                f"{self.types_name} tiles")
        if not self.mask_legal(mask, true_tile, limit):
            raise tile_legality(f"{self.NAME}: the mask must be a legal, defined predicate tile of the data shape")
        if not (shape_and_type_match(tiles[dst], true_tile, limit) and not tiles[dst].predicate):
            raise tile_legality(f"{self.NAME}: the destination must match the data sources")

    def false_words(self, tiles, sources, scalar, dtype):
        return tiles[sources[2]].valid_words()


class TileSelectScalar(_Select):
    """TSELS: predicate, true tile, GPR scalar -> a new numeric tile."""

    HANDLER, LEGALITY = "ExecuteTileSelectScalar", "TileOperandsLegal_ExecuteTileSelectScalar"
    ARGUMENTS = ("destination0", "source0", "source1", "scalar0")
    SCHEMA = "one B.IOT with L=1 naming the predicate, the true source and a new destination, LB0 >= 1, a legal " \
             "predicate and a defined, validly encoded RowMajor true source of the BSTART type and LB shape"

    def schema_operands_legal(self, state: MachineState, block) -> bool:
        """SelectedBundleClosedTSELSSchemaLegal's operand rules.
        SPEC-CHOICE 29: the TSELS document says selected payloads need no valid encoding, but
        the executable closed schema checks the true source with
        SelectedBundleTileScalarSourceLegal, which includes TileSourceEncodingsValid; a
        bundle rejects an invalid true-source encoding (a direct call does not)."""
        mask_index, true_index = block.bindings[0].sources
        mask, true_tile = state.tiles[mask_index], state.tiles[true_index]
        return (true_tile is not None and predicate_values_legal(mask, state.tile_capacity)
                and scalar_source_legal(state, block, true_index)
                and logical_shape_match(mask, true_tile, state.tile_capacity))

    def operands_check(self, tiles, dst, sources, scalar, limit) -> None:
        mask, true_tile = (tiles[s] for s in sources)
        if true_tile.predicate or true_tile.layout != "RowMajor" or true_tile.dtype.name not in self.types:
            raise tile_legality(f"{self.NAME}: the true source must be a defined RowMajor numeric "
                                f"{self.types_name} tile")
        if not self.mask_legal(mask, true_tile, limit):
            raise tile_legality(f"{self.NAME}: the mask must be a legal, defined predicate tile of the data shape")
        if not (shape_and_type_match(tiles[dst], true_tile, limit) and not tiles[dst].predicate):
            raise tile_legality(f"{self.NAME}: the destination must match the true source")

    def false_words(self, tiles, sources, scalar, dtype):
        return U64(raw_element(scalar, dtype))
