"""TQUANT: affine quantization of FP32 to S8/U8 (x * multiplier + zero point).

Facts from asl/tile/irregular-and-complex/format-conversion/TQUANT.asl,
asl/tile/model/numeric/formats.asl (TQUANT), operand-schema.asl
(TileOperandsLegal_TQUANT), asl/block/model/dispatch/quantization-schema.asl and
scalar-schema.asl (GPR value legality). Element values come from
``device_model.numeric.quantize``. Padding is always Null.
"""
from __future__ import annotations

import sys

from ..block import BlockState
from ..faults import tile_legality
from ..numeric import quantize
from ..state import MachineState, descriptor_legal, source_encodings_valid
from .common import (Publication, quantization_scale_legal, quantization_zero_point_legal,
                     result_tile, rounding_name, status_bits)
from .registry import REQUIRED, register
from .operation import OperationModule

NAME = "TQUANT"
SOURCES = 1
GPR_INPUTS = 2  # multiplier (scalar0), zero point (scalar1)
DATR_ALLOWED = frozenset({"Sat", "DataType", "RMode"})
DEFAULT_MULTIPLIER = 0x3F800000  # omitted B.IOR: 1.0
DEFAULT_ZERO_POINT = 0
DIRECT_ARGUMENTS = {"dst": REQUIRED, "src": REQUIRED, "multiplier": DEFAULT_MULTIPLIER,
                    "zero_point": DEFAULT_ZERO_POINT, "rounding": "NONE", "sat": 0}


def scalars(state: MachineState, block: BlockState):
    """(multiplier, zero point): from B.IOR RegSrc0/RegSrc1, or 1.0 and 0 when omitted.
    A present B.IOR reads its selectors, so an all-zero B.IOR gives multiplier 0."""
    values = block.gpr_inputs(state)
    return (values[0], values[1]) if values else (DEFAULT_MULTIPLIER, DEFAULT_ZERO_POINT)


def gpr_values_check(state: MachineState, block: BlockState):
    """BundleOperationGPRBindingValuesLegal: only a present B.IOR is checked; the
    zero point is typed by a concrete B.DATR DataType, else FP64 (never legal)."""
    if block.ior is None:
        return
    multiplier, zero_point = scalars(state, block)
    if not quantization_scale_legal(multiplier):
        raise tile_legality(f"TQUANT multiplier {multiplier:#x} is not a positive finite nonzero FP32")
    if not quantization_zero_point_legal(zero_point, block.explicit_type()):
        raise tile_legality(f"TQUANT zero point {zero_point:#x} is not a canonical value of the "
                            f"destination type")


def quantization_bindings_check(block: BlockState, name: str, zero_fields: tuple) -> None:
    """The part of SelectedBundleClosedQuantizationSchemaLegal TQUANT and TDEQUANT share: one
    B.IOT (one source, a new destination, L=1), no B.IOS, legal LB dims, and a B.DATR with a
    concrete DataType whose ``zero_fields`` are zero (Fault_TileLegality)."""
    if len(block.bindings) != 1 or block.shared:
        raise tile_legality(f"{name} takes exactly one B.IOT and no B.IOS")
    binding = block.bindings[0]
    if not binding.destination or len(binding.sources) != 1 or not binding.last:
        raise tile_legality(f"{name}'s B.IOT must name one source and a new destination with L=1")
    if not block.dims_legal():
        raise tile_legality(f"{name} needs LB0 >= 1 and any present LB1/LB2 >= 1")
    datr = block.datr
    if datr is None or block.explicit_type() is None or any(datr[field] for field in zero_fields):
        raise tile_legality(f"{name} needs B.DATR with a concrete DataType and zero "
                            + ", ".join(zero_fields))


def closed_schema_check(state: MachineState, block: BlockState):
    """SelectedBundleClosedQuantizationSchemaLegal."""
    quantization_bindings_check(block, "TQUANT", ("CMode", "PadValue", "Canonicalize", "Layout"))
    binding = block.bindings[0]
    if block.data_type.name != "FP32" or block.explicit_type().name not in ("S8", "U8"):
        raise tile_legality("TQUANT converts FP32 to S8 or U8")
    source = state.tiles[binding.sources[0]]
    if (not descriptor_legal(source, state.tile_capacity) or source.dtype.name != "FP32"
            or source.layout != "RowMajor" or not source_encodings_valid(source, state.tile_capacity)):
        raise tile_legality("TQUANT source must be a legal, defined, valid RowMajor FP32 tile")
    if (source.valid_rows, source.valid_cols, source.cols) != block.shape():
        raise tile_legality("TQUANT source valid region / columns differ from LB1, LB0, LB2")


def operands_check(tiles, destination_index: int, source_index: int, multiplier: int,
                   zero_point: int, limit: int):
    """TileOperandsLegal_TQUANT."""
    destination, source = tiles[destination_index], tiles[source_index]
    if (not descriptor_legal(destination, limit) or not descriptor_legal(source, limit)
            or destination.predicate or source.predicate
            or destination.dtype.name not in ("S8", "U8") or source.dtype.name != "FP32"
            or destination.layout != "RowMajor" or source.layout != "RowMajor"
            or (destination.valid_rows, destination.valid_cols) != (source.valid_rows, source.valid_cols)
            or destination.valid_rows == 0 or destination.valid_cols == 0
            or not source_encodings_valid(source, limit)):
        raise tile_legality("TQUANT operands: RowMajor FP32 source and S8/U8 destination with equal, "
                            "nonzero valid regions; source defined and valid")
    if not quantization_scale_legal(multiplier):
        raise tile_legality(f"TQUANT multiplier {multiplier:#x} is not a positive finite nonzero FP32")
    if not quantization_zero_point_legal(zero_point, destination.dtype):
        raise tile_legality(f"TQUANT zero point {zero_point:#x} is not canonical for {destination.dtype.name}")


def quantize_tiles(destination, source, multiplier: int, zero_point: int, rounding: int,
                   saturate: bool, profile: str):
    words, flags = quantize(source.valid_words(), multiplier, zero_point, destination.dtype.name,
                            rounding=rounding_name(rounding), saturate=saturate, profile=profile)
    return result_tile(destination, words, "Null", location="Any"), status_bits(flags)


def execute_bundle(state: MachineState, block: BlockState, index: int, destination, profile: str):
    source_index = block.bindings[0].sources[0]
    multiplier, zero_point = scalars(state, block)
    tiles = list(state.tiles)
    tiles[index] = destination
    operands_check(tiles, index, source_index, multiplier, zero_point, state.tile_capacity)
    tile, flags = quantize_tiles(destination, state.tiles[source_index], multiplier, zero_point,
                                 block.datr_field("RMode"), block.saturating(), profile)
    return Publication({index: tile}, flags)


def direct(state: MachineState, call: dict, profile: str) -> Publication:
    operands_check(state.tiles, call["dst"], call["src"], call["multiplier"], call["zero_point"],
                   state.tile_capacity)
    tile, flags = quantize_tiles(state.tiles[call["dst"]], state.tiles[call["src"]], call["multiplier"],
                                 call["zero_point"], call["rounding"], call["sat"], profile)
    return Publication({call["dst"]: tile}, flags)


register(OperationModule(sys.modules[__name__]))
