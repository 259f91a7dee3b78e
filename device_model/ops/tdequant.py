"""TDEQUANT: affine dequantization of S8/U8 to FP32, ``(q - zero point) * multiplier``
rounded once (the inverse of TQUANT).

Facts from asl/tile/irregular-and-complex/format-conversion/TDEQUANT.asl,
asl/tile/model/numeric/formats.asl (TDEQUANT), asl/arch/profile/reference-quantization.asl
(TileProfileDequantize), operand-schema.asl (TileOperandsLegal_TDEQUANT),
asl/block/model/dispatch/quantization-schema.asl (SelectedBundleClosedQuantizationSchemaLegal)
and scalar-schema.asl (a present B.IOR's multiplier and zero point, the zero point typed by
the BSTART type). Element values come from ``device_model.numeric.dequantize``; the B.IOR
reading and the scalar rules are TQUANT's (``ops.tquant.scalars``, ``ops.common``).
Padding is always Null.
"""
from __future__ import annotations

import sys

from ..block import BlockState
from ..faults import tile_legality
from ..numeric.dequantize import dequantize
from ..state import MachineState, descriptor_legal, source_encodings_valid
from .common import (Publication, quantization_scale_legal, quantization_zero_point_legal,
                     result_tile, rounding_name, status_bits)
from .operation import OperationModule
from .registry import REQUIRED, register
from .tquant import DEFAULT_MULTIPLIER, DEFAULT_ZERO_POINT, quantization_bindings_check, scalars

NAME = "TDEQUANT"
SOURCES = 1
GPR_INPUTS = 2  # multiplier (scalar0), zero point (scalar1)
DATR_ALLOWED = frozenset({"DataType", "RMode"})
SOURCE_TYPES = ("S8", "U8")
DIRECT_ARGUMENTS = {"dst": REQUIRED, "src": REQUIRED, "multiplier": DEFAULT_MULTIPLIER,
                    "zero_point": DEFAULT_ZERO_POINT, "rounding": "NONE", "sat": 0}


def gpr_values_check(state: MachineState, block: BlockState):
    """BundleOperationGPRBindingValuesLegal: only a present B.IOR is checked; the zero
    point is typed by the BSTART type (S8 or U8 here, else never legal)."""
    if block.ior is None:
        return
    multiplier, zero_point = scalars(state, block)
    if not quantization_scale_legal(multiplier):
        raise tile_legality(f"TDEQUANT multiplier {multiplier:#x} is not a positive finite nonzero FP32")
    if not quantization_zero_point_legal(zero_point, block.data_type):
        raise tile_legality(f"TDEQUANT zero point {zero_point:#x} is not a canonical value of the source type")


def closed_schema_check(state: MachineState, block: BlockState):
    """SelectedBundleClosedQuantizationSchemaLegal for TDEQUANT."""
    quantization_bindings_check(block, "TDEQUANT", ("CMode", "PadValue", "Canonicalize", "Layout", "Sat"))
    binding = block.bindings[0]
    if block.data_type.name not in SOURCE_TYPES or block.explicit_type().name != "FP32":
        raise tile_legality("TDEQUANT converts S8 or U8 to FP32")
    source = state.tiles[binding.sources[0]]
    if (not descriptor_legal(source, state.tile_capacity) or source.dtype != block.data_type
            or source.layout != "RowMajor" or not source_encodings_valid(source, state.tile_capacity)):
        raise tile_legality("TDEQUANT source must be a legal, defined, valid RowMajor tile of the BSTART type")
    if (source.valid_rows, source.valid_cols, source.cols) != block.shape():
        raise tile_legality("TDEQUANT source valid region / columns differ from LB1, LB0, LB2")


def operands_check(tiles, destination_index: int, source_index: int, multiplier: int, zero_point: int,
                   saturating: bool, limit: int):
    """TileOperandsLegal_TDEQUANT."""
    destination, source = tiles[destination_index], tiles[source_index]
    if (not descriptor_legal(destination, limit) or not descriptor_legal(source, limit)
            or destination.predicate or source.predicate
            or destination.dtype.name != "FP32" or source.dtype.name not in SOURCE_TYPES
            or destination.layout != "RowMajor" or source.layout != "RowMajor"
            or (destination.valid_rows, destination.valid_cols) != (source.valid_rows, source.valid_cols)
            or destination.valid_rows == 0 or destination.valid_cols == 0
            or not source_encodings_valid(source, limit)):
        raise tile_legality("TDEQUANT operands: RowMajor S8/U8 source and FP32 destination with equal, "
                            "nonzero valid regions; source defined and valid")
    if not quantization_scale_legal(multiplier) or saturating:
        raise tile_legality(f"TDEQUANT multiplier {multiplier:#x} is not a positive finite nonzero FP32, "
                            f"or Sat is set")
    if not quantization_zero_point_legal(zero_point, source.dtype):
        raise tile_legality(f"TDEQUANT zero point {zero_point:#x} is not canonical for {source.dtype.name}")


def dequantize_tiles(destination, source, multiplier: int, zero_point: int, rounding: int, profile: str):
    words, flags = dequantize(source.valid_words(), multiplier, zero_point, source.dtype.name,
                              rounding=rounding_name(rounding), profile=profile)
    return result_tile(destination, words, "Null", location="Any"), status_bits(flags)


def execute_bundle(state: MachineState, block: BlockState, index: int, destination, profile: str):
    source_index = block.bindings[0].sources[0]
    multiplier, zero_point = scalars(state, block)
    tiles = list(state.tiles)
    tiles[index] = destination
    operands_check(tiles, index, source_index, multiplier, zero_point, block.saturating(), state.tile_capacity)
    tile, flags = dequantize_tiles(destination, state.tiles[source_index], multiplier, zero_point,
                                   block.datr_field("RMode"), profile)
    return Publication({index: tile}, flags)


def direct(state: MachineState, call: dict, profile: str) -> Publication:
    operands_check(state.tiles, call["dst"], call["src"], call["multiplier"], call["zero_point"], call["sat"],
                   state.tile_capacity)
    tile, flags = dequantize_tiles(state.tiles[call["dst"]], state.tiles[call["src"]], call["multiplier"],
                                   call["zero_point"], call["rounding"], profile)
    return Publication({call["dst"]: tile}, flags)


register(OperationModule(sys.modules[__name__]))
