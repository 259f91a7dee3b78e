"""THISTOGRAM: per source row, an inclusive 256-bin U32 prefix histogram of one byte of
each U16/U32 element that passes a byte filter.

Facts from asl/tile/irregular-and-complex/initialization/THISTOGRAM.asl,
asl/tile/model/execution/complex.asl (THISTOGRAM, ExtractWordByte),
asl/tile/model/legality/indexed-layout.asl (TileHistogramSourceDataTypeSupported,
TileHistogramSelectedByteSupported, TileHistogramPrefixDefined, TileHistogramInputsLegal,
TileOperandsLegal_THISTOGRAM), asl/block/model/dispatch/histogram-schema.asl
(SelectedBundleClosedHistogramSchemaLegal) and destination-shape.asl (source ValidRow x 256
in 256 columns, of the B.DATR type U32):

- B.DATR is mandatory with DataType U32; its PadValueOrByteId field is the ByteId; no
  B.DIM; the B.IOT names the source, then the U8 filter;
- U16: ByteId 0 counts the low byte of the elements whose high byte equals the filter's
  logical [row, 0]; ByteId 1 counts the high byte of every element (no filter read);
  ByteId 2 and 3 are illegal;
- U32: ByteId 2, 1, 0 count that byte of the elements whose one, two, three more
  significant bytes equal the filter's logical [0, 0], [1, 0], [2, 0] (a prefix shared by
  every row); ByteId 3 counts the top byte of every element;
- destination [row, bin] is the count of bins 0..bin (inclusive prefix); padding Null.

The counting is vectorized: one bincount over (row, bin) pairs, one cumulative sum.
"""
from __future__ import annotations

import sys

import numpy as np

from ..faults import tile_legality
from ..state import MachineState, descriptor_legal, source_contents_defined
from .common import Publication, result_tile
from .operation import OperationModule
from .registry import REQUIRED, register

NAME = "THISTOGRAM"
SOURCES = 2  # the source, then the filter
GPR_INPUTS = 0
DATR_ALLOWED = frozenset({"PadValue", "DataType"})  # PadValueOrByteId is the ByteId
DIRECT_ARGUMENTS = {"dst": REQUIRED, "src": REQUIRED, "src1": REQUIRED, "selected_byte": 0}
BINS = 256
SOURCE_TYPES = frozenset({"U16", "U32"})  # TileHistogramSourceDataTypeSupported
# source type -> ByteId -> the (filter row, source byte) pairs an element must match
FILTERS = {"U16": {0: ((None, 1),), 1: ()},
           "U32": {0: ((0, 3), (1, 2), (2, 1)), 1: ((0, 3), (1, 2)), 2: ((0, 3),), 3: ()}}


def byte_of(words: np.ndarray, index: int) -> np.ndarray:
    """ExtractWordByte: byte ``index`` of each Word."""
    return (words >> np.uint64(8 * index)) & np.uint64(0xFF)


def selected_byte_supported(dtype, selected_byte: int) -> bool:
    """TileHistogramSelectedByteSupported."""
    return selected_byte in FILTERS.get(dtype.name, {})


def filter_rows_needed(source, selected_byte: int) -> int:
    """The filter rows whose element [row, 0] must be defined: the source's valid rows
    (U16 ByteId 0), the prefix length (U32), or none (the unfiltered ByteIds)."""
    pairs = FILTERS[source.dtype.name][selected_byte]
    if not pairs:
        return 0
    return source.valid_rows if pairs[0][0] is None else len(pairs)


def inputs_legal(tiles, source_index: int, filter_index: int, selected_byte: int, limit: int) -> bool:
    """TileHistogramInputsLegal."""
    source, filter_tile = tiles[source_index], tiles[filter_index]
    if (not source_contents_defined(source, limit) or not descriptor_legal(filter_tile, limit)
            or source.predicate or filter_tile.predicate or source.layout != "RowMajor"
            or filter_tile.dtype.name != "U8" or not selected_byte_supported(source.dtype, selected_byte)):
        return False
    rows = filter_rows_needed(source, selected_byte)
    if rows == 0:
        return True
    if filter_tile.valid_rows < rows or filter_tile.valid_cols < 1:
        return False
    return bool(filter_tile.defined_grid()[:rows, 0].all())


def closed_schema_check(state: MachineState, block) -> None:
    """SelectedBundleClosedHistogramSchemaLegal."""
    if len(block.bindings) != 1 or block.shared:
        raise tile_legality("THISTOGRAM takes exactly one B.IOT and no B.IOS")
    binding = block.bindings[0]
    if not binding.destination or len(binding.sources) != 2 or not binding.last:
        raise tile_legality("THISTOGRAM's B.IOT names a source, a filter and a new destination with L=1")
    if any(d is not None for d in block.dims):
        raise tile_legality("THISTOGRAM takes no B.DIM")
    if block.datr is None or block.explicit_type() is None or block.explicit_type().name != "U32":
        raise tile_legality("THISTOGRAM needs a B.DATR whose DataType is U32")
    if block.data_type.name not in SOURCE_TYPES:
        raise tile_legality("THISTOGRAM's BSTART type is U16 or U32")
    if not inputs_legal(state.tiles, binding.sources[0], binding.sources[1], block.datr_field("PadValue"),
                        state.tile_capacity):
        raise tile_legality("THISTOGRAM: the source, filter or ByteId is not legal (TileHistogramInputsLegal)")


def destination_shape(state: MachineState, block):
    return state.tiles[block.sources()[0]].valid_rows, BINS, BINS


def operands_check(tiles, dst: int, source_index: int, filter_index: int, selected_byte: int, limit: int) -> None:
    """TileOperandsLegal_THISTOGRAM."""
    if (dst in (source_index, filter_index) or not descriptor_legal(tiles[dst], limit)
            or not inputs_legal(tiles, source_index, filter_index, selected_byte, limit)):
        raise tile_legality("THISTOGRAM: a legal destination other than the source and filter, and legal inputs")
    result, source = tiles[dst], tiles[source_index]
    if (result.predicate or result.dtype.name != "U32" or result.layout != "RowMajor"
            or result.valid_rows != source.valid_rows or result.valid_cols != BINS
            or result.rows < result.valid_rows or result.cols < BINS):
        raise tile_legality("THISTOGRAM writes a RowMajor U32 tile of the source's valid rows x 256")


def histogram(source, filter_tile, selected_byte: int) -> np.ndarray:
    """valid_rows x 256 inclusive prefix counts (Words)."""
    words = source.valid_words()
    selected = np.ones(words.shape, dtype=bool)
    filters = filter_tile.words() if filter_tile is not None else None
    for filter_row, source_byte in FILTERS[source.dtype.name][selected_byte]:
        wanted = (filters[:words.shape[0], 0][:, None] if filter_row is None
                  else filters[filter_row, 0]) & np.uint64(0xFF)
        selected &= byte_of(words, source_byte) == wanted
    rows = np.broadcast_to(np.arange(words.shape[0])[:, None], words.shape)
    bins = byte_of(words, selected_byte).astype(np.int64)
    counts = np.bincount((rows * BINS + bins)[selected], minlength=words.shape[0] * BINS)
    return np.cumsum(counts.reshape(words.shape[0], BINS), axis=1).astype(np.uint64)


def publish(tiles, dst: int, source_index: int, filter_index: int, selected_byte: int, limit: int) -> Publication:
    operands_check(tiles, dst, source_index, filter_index, selected_byte, limit)
    words = histogram(tiles[source_index], tiles[filter_index], selected_byte)
    return Publication({dst: result_tile(tiles[dst], words, "Null", location="Any")})


def execute_bundle(state: MachineState, block, index: int, destination, profile: str) -> Publication:
    tiles = list(state.tiles)
    tiles[index] = destination
    source_index, filter_index = block.bindings[0].sources
    return publish(tiles, index, source_index, filter_index, block.datr_field("PadValue"), state.tile_capacity)


def check_call(call: dict) -> None:
    if not 0 <= call["selected_byte"] <= 3:
        raise ValueError("direct THISTOGRAM: selected_byte must lie in 0..3")


def direct(state: MachineState, call: dict, profile: str) -> Publication:
    return publish(state.tiles, call["dst"], call["src"], call["src1"], call["selected_byte"], state.tile_capacity)


register(OperationModule(sys.modules[__name__]))
