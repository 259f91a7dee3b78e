"""TMULS: every valid element times one GPR scalar.

Facts from asl/tile/tile-scalar-and-immediate/arithmetic/TMULS.asl,
asl/tile/model/execution/elementwise.asl (ExecuteTileScalar,
TileProfileBinaryWithFlags), operand-schema.asl
(TileOperandsLegal_ExecuteTileScalar) and
asl/block/model/dispatch/tile-scalar-schema.asl. Products come from
``device_model.numeric.multiply`` (integers wrap at the element width; pto-v0
floating types multiply the raw 64-bit carriers; hw-ieee multiplies IEEE values).
"""
from __future__ import annotations

import sys

import numpy as np

from ..block import BlockState
from ..faults import tile_legality
from ..numeric import multiply
from ..state import MachineState, descriptor_legal, source_encodings_valid
from .common import Publication, encoding_valid, raw_element, result_tile
from .registry import REQUIRED, register
from .tepl import TeplModule

NAME = "TMULS"
SOURCES = 1
GPR_INPUTS = 1  # scalar0
# SPEC-CHOICE: only PadValue may be nonzero in a TMULS B.DATR, but a present B.DATR
# always carries DataType and 0 encodes FP64, which ResolveBundleEffectiveDataType
# makes the destination type; so a PadValue-carrying TMULS bundle completes only for
# an FP64 source (digest §7.4, likely a spec bug). The executable rule is followed:
# other sources fail the destination/source type match after allocation
# (Fault_TileLegality, rolled back); DTYPE_NONE (31) counts as a nonzero DataType.
DATR_ALLOWED = frozenset({"PadValue"})
DIRECT_ARGUMENTS = {"dst": REQUIRED, "src": REQUIRED, "scalar": 0, "pad": "Null"}

# SPEC-CHOICE: the TMULS contract text and seed say the type set is exactly
# S32, U32, FP32, S16, U16, FP16, BF16 (TileA7DataTypeSupported), but the
# executable spec checks TileBinaryDataTypeSupported(MUL), i.e. the 16 types of
# TileVecArithmeticDataTypeSupported, and the spec test TMULS-TYPES-001 asserts
# U8 legal (digest §7.3). The executable 16-type set is used.
SUPPORTED_TYPES = frozenset({"FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2",
                             "S64", "S32", "S16", "S8", "U64", "U32", "U16", "U8"})


def gpr_values_check(state: MachineState, block: BlockState):
    """TMULS has no GPR value rule (only DIV/REM reject a zero integer scalar)."""


def scalar(state: MachineState, block: BlockState) -> int:
    """B.IOR RegSrc0's GPR, or 0 when B.IOR is omitted."""
    values = block.gpr_inputs(state)
    return values[0] if values else 0


def closed_schema_check(state: MachineState, block: BlockState):
    """SelectedBundleClosedTileScalarBinarySchemaLegal for MUL."""
    if len(block.bindings) != 1 or block.shared or not block.dims_legal():
        raise tile_legality("TMULS takes exactly one B.IOT, no B.IOS, LB0 >= 1 and present LB1/LB2 >= 1")
    binding = block.bindings[0]
    if not binding.destination or len(binding.sources) != 1 or not binding.last:
        raise tile_legality("TMULS's B.IOT must name one source and a new destination with L=1")
    dtype = block.data_type
    # The destination layout is RowMajor: B.DATR Layout must be NORM (checked by
    # the field-applicability rule before this schema).
    if dtype.name not in SUPPORTED_TYPES:
        raise tile_legality(f"TMULS does not support {dtype.name}")
    source = state.tiles[binding.sources[0]]
    if (not descriptor_legal(source, state.tile_capacity) or source.dtype != dtype
            or source.layout != "RowMajor" or not source_encodings_valid(source, state.tile_capacity)
            or (source.valid_rows, source.valid_cols, source.cols) != block.shape()):
        raise tile_legality("TMULS source must be a legal, defined, valid RowMajor tile of the BSTART "
                            "type whose valid region and columns match LB1, LB0, LB2")
    if not encoding_valid(raw_element(scalar(state, block), dtype), dtype):
        raise tile_legality(f"TMULS scalar is not a valid {dtype.name} encoding")


def operands_check(tiles, destination_index: int, source_index: int, scalar_value: int, limit: int):
    """TileOperandsLegal_ExecuteTileScalar for MUL: destination and source match
    in shape, layout and type (TileShapeAndTypeMatch)."""
    destination, source = tiles[destination_index], tiles[source_index]
    if not (descriptor_legal(destination, limit) and descriptor_legal(source, limit)) or \
            (destination.rows, destination.cols, destination.valid_rows, destination.valid_cols,
             destination.layout, destination.dtype) != \
            (source.rows, source.cols, source.valid_rows, source.valid_cols, source.layout, source.dtype):
        raise tile_legality("TMULS destination and source differ in shape, layout or type")
    if (source.layout != "RowMajor" or source.dtype.name not in SUPPORTED_TYPES
            or not source_encodings_valid(source, limit)):
        raise tile_legality("TMULS source must be a defined, valid RowMajor tile of a supported type")
    if not encoding_valid(raw_element(scalar_value, source.dtype), source.dtype):
        raise tile_legality(f"TMULS scalar is not a valid {source.dtype.name} encoding")


def multiply_tiles(destination, source, scalar_value: int, pad: str, profile: str):
    """ExecuteTileScalar(MUL): the source is read before the destination is
    written, so aliasing observes the old values; the location is kept."""
    words, flags = multiply(source.valid_words(), raw_element(scalar_value, source.dtype),
                            source.dtype.name, profile=profile)
    return result_tile(destination, words, pad), int(np.bitwise_or.reduce(flags, axis=None))


def execute_bundle(state: MachineState, block: BlockState, index: int, destination, profile: str):
    source_index = block.bindings[0].sources[0]
    value = scalar(state, block)
    tiles = list(state.tiles)
    tiles[index] = destination
    operands_check(tiles, index, source_index, value, state.tile_capacity)
    tile, flags = multiply_tiles(destination, state.tiles[source_index], value, block.pad(), profile)
    return Publication({index: tile}, flags)


def direct(state: MachineState, call: dict, profile: str) -> Publication:
    operands_check(state.tiles, call["dst"], call["src"], call["scalar"], state.tile_capacity)
    tile, flags = multiply_tiles(state.tiles[call["dst"]], state.tiles[call["src"]], call["scalar"],
                                 call["pad"], profile)
    return Publication({call["dst"]: tile}, flags)


register(TeplModule(sys.modules[__name__]))
