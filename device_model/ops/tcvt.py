"""TCVT: element format conversion with layout transform and padding.

Facts from asl/tile/elementwise-tile-tile/format-conversion/TCVT.asl,
asl/tile/model/numeric/formats.asl (TCVT, TileConvertValue),
asl/tile/model/legality/operand-schema.asl (TileOperandsLegal_TCVT),
asl/block/model/dispatch/tcvt-schema.asl and numeric-control.asl.
The per-element values come from ``device_model.numeric.convert``.
"""
from __future__ import annotations

import sys

from ..block import BlockState, Unmodelled, layout_transform
from ..faults import tile_legality
from ..numeric import UnsupportedConversion, convert
from ..state import MachineState, descriptor_legal, source_encodings_valid
from .common import Publication, result_tile, rounding_name, status_bits
from .registry import REQUIRED, register
from .operation import OperationModule

NAME = "TCVT"
SOURCES = 1
GPR_INPUTS = 0
DATR_ALLOWED = frozenset({"PadValue", "Sat", "Canonicalize", "DataType", "RMode", "Layout"})
E8M0_SOURCES = frozenset({"FP16", "BF16", "FP32"})
# direct call: dst must already be configured; dtype is the B.DATR DataType it states
DIRECT_ARGUMENTS = {"dst": REQUIRED, "src": REQUIRED, "dtype": None, "rounding": "NONE", "sat": 0,
                    "canonicalize": 0, "layout": "NORM", "pad": "Null"}


def gpr_values_check(state: MachineState, block: BlockState):
    """TCVT consumes no GPR (a present B.IOR fails its closed schema)."""


def pair_supported(source, destination) -> bool:
    """HardwareTCVTTypePairSupported: E8M0 only from FP16, BF16 or FP32.
    SPEC-CHOICE 14: the TCVT contract states the restriction "under the named
    hardware profile", but the executable spec enforces it unconditionally, so
    both profiles reject other sources (digest §7.13)."""
    return destination.name != "E8M0" or source.name in E8M0_SOURCES


def closed_schema_check(state: MachineState, block: BlockState):
    """SelectedBundleClosedTCVTSchemaLegal (before allocation)."""
    if len(block.bindings) != 1 or block.shared or block.ior is not None:
        raise tile_legality("TCVT takes exactly one B.IOT and no B.IOR/B.IOS")
    binding = block.bindings[0]
    if not binding.destination or len(binding.sources) != 1 or not binding.last:
        raise tile_legality("TCVT's B.IOT must name one source and a new destination with L=1")
    if not block.dims_legal():
        raise tile_legality("TCVT needs LB0 >= 1 and any present LB1/LB2 >= 1")
    source = state.tiles[binding.sources[0]]
    if not source_encodings_valid(source, state.tile_capacity):
        raise tile_legality("TCVT source is not a legal, fully defined tile with valid encodings")
    if source.dtype != block.data_type:
        raise tile_legality(f"TCVT source type {source.dtype.name} differs from BSTART type "
                            f"{block.data_type.name}")
    if not pair_supported(source.dtype, block.effective_type()):
        raise tile_legality(f"TCVT {source.dtype.name} -> {block.effective_type().name} is not a "
                            f"supported pair (E8M0 only from FP16/BF16/FP32)")
    _check_layouts(source, None, block.canonicalize(), block.datr_field("Layout"))


def _check_layouts(source, destination, canonicalize: bool, layout_code: int):
    """The private-source (Canonicalize) and layout-transform rules."""
    private = source.location == "Matrix"
    if private != canonicalize:
        raise tile_legality("TCVT Canonicalize must be set exactly for a private (Matrix) source")
    if private:
        if layout_code != 0 or source.layout != "RowMajor" or (
                destination is not None and destination.layout != "RowMajor"):
            raise tile_legality("a private TCVT source needs Layout NORM and RowMajor tiles")
        return
    layouts = layout_transform(layout_code)
    if source.layout != layouts[0] or (destination is not None and destination.layout != layouts[1]):
        raise tile_legality(f"TCVT layout transform {layouts[0]}->{layouts[1]} does not match the tiles")


def operands_check(tiles, destination_index: int, source_index: int, canonicalize: bool,
                   layout_code: int, limit: int):
    """TileOperandsLegal_TCVT.

    SPEC-CHOICE 8: the TCVT documentation says shape/capacity mismatches fault with
    Fault_TileLegality before destination allocation; the executable spec checks
    LB0/LB1/LB2 and the TSize-derived rows against the source only here, after
    allocation (rolled back), and a TSize or Col that cannot form a descriptor is
    Fault_TileAllocation (digest §7.8). The executable behaviour is used."""
    destination, source = tiles[destination_index], tiles[source_index]
    if not descriptor_legal(destination, limit) or not source_encodings_valid(source, limit) \
            or destination.predicate or source.predicate:
        raise tile_legality("TCVT destination descriptor illegal, or source undefined/invalid, or a "
                            "predicate tile among them")
    if not pair_supported(source.dtype, destination.dtype):
        raise tile_legality(f"TCVT {source.dtype.name} -> {destination.dtype.name} is not a supported pair")
    if (destination.rows, destination.cols, destination.valid_rows, destination.valid_cols) != \
            (source.rows, source.cols, source.valid_rows, source.valid_cols):
        raise tile_legality("TCVT destination and source differ in rows, columns or valid region")
    _check_layouts(source, destination, canonicalize, layout_code)


def convert_tiles(destination, source, rounding: int, saturate: bool, canonicalize: bool,
                  pad: str, profile: str):
    """TCVT execution: convert the source's valid region (snapshotted first, so
    aliasing reads the old values), pad, publish location Any."""
    try:
        words, flags = convert(source.valid_words(), source.dtype.name, destination.dtype.name,
                               rounding=rounding_name(rounding), saturate=saturate,
                               profile=profile, canonicalize=canonicalize)
    except UnsupportedConversion as exc:
        raise Unmodelled(f"TCVT {source.dtype.name} -> {destination.dtype.name}: {exc}") from None
    return result_tile(destination, words, pad, location="Any"), status_bits(flags)


def execute_bundle(state: MachineState, block: BlockState, index: int, destination, profile: str):
    source_index = block.bindings[0].sources[0]
    tiles = list(state.tiles)
    tiles[index] = destination
    operands_check(tiles, index, source_index, block.canonicalize(), block.datr_field("Layout"),
                   state.tile_capacity)
    tile, flags = convert_tiles(destination, state.tiles[source_index], block.datr_field("RMode"),
                                block.saturating(), block.canonicalize(), block.pad(), profile)
    return Publication({index: tile}, flags)


def direct(state: MachineState, call: dict, profile: str) -> Publication:
    """Direct TCVT(dst, src): dst must already be configured; dst == src is allowed."""
    operands_check(state.tiles, call["dst"], call["src"], call["canonicalize"], call["layout"],
                   state.tile_capacity)
    tile, flags = convert_tiles(state.tiles[call["dst"]], state.tiles[call["src"]], call["rounding"],
                                call["sat"], call["canonicalize"], call["pad"], profile)
    return Publication({call["dst"]: tile}, flags)


register(OperationModule(sys.modules[__name__]))
