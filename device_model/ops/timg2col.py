"""TIMG2COL: the window at (posM, posK) of the image-to-column matrix of the source's
feature map, in standard Left matrix order (asl/tile/layout-and-rearrangement/layout/
TIMG2COL.asl; asl/tile/model/legality/image-to-column.asl TileOperandsLegal_TIMG2COL,
asl/tile/model/execution/image-to-column.asl TIMG2COL; the descriptor:
``device_model/feature_map.py``).

A rearrangement on the open schema (``rearrange.TileRearrangement``) whose operand rules
read the source's feature-map descriptor:

- both descriptors legal, the source's feature map structurally valid, the source type
  carrier-only and the destination's the same, both RowMajor in Matrix, a nonempty output
  image, the window inside N*D*outH*outW x C1*filterH*filterW*C0, and every source element
  the window references defined (not the whole valid region: TIMG2COL has no
  TileSourceContentsDefined step); all Fault_TileLegality;
- destination (r, c) is logical matrix row posM + r (batch, depth, output row, output
  column) and column posK + c (channel group, filter row, filter column, channel in
  group); the input coordinate is output * stride + filter * dilation - pad, and the
  element is source element ((((n*D + d)*C1 + c1)*H + h)*W + w)*C0 + c0 (a storage index of
  the RowMajor source, inside or outside its valid region) when the coordinate is inside
  the image and the channel below logical_channels, else the descriptor's padding value
  (its element bits); the padding around the valid region is Null.

SPEC-CHOICE 78: the operand rule takes every carrier-only type (TileCarrierOnlyDataTypeSupported)
though the contract and TileImg2ColDataTypeSupported name nine; pto-v0 follows the rule.
SPEC-CHOICE 79: a block allocates its destination in Any (ResolveBundleTileDestinations), and
the operand rule wants Matrix, so every TIMG2COL block that reaches it is Fault_TileLegality;
posM and posK are B.DIM LB0 and LB1 there (as TEXTRACT's offsets are), and B.IOR takes no field.
"""
from __future__ import annotations

import numpy as np

from ..faults import tile_legality
from ..state import descriptor_legal, logical_capacity
from .rearrange import TileRearrangement, carrier_only, write_padding, write_valid
from .registry import REQUIRED, register


def referenced(source, descriptor, rows: int, cols: int, row_offset: int, column_offset: int):
    """(storage index, inside) of the source element each destination coordinate of the
    rows x cols window at (row_offset, column_offset) takes: ``inside`` False where it takes
    the padding value."""
    out_h, out_w = descriptor.output_height, descriptor.output_width
    row = np.arange(rows, dtype=np.int64)[:, None] + row_offset
    col = np.arange(cols, dtype=np.int64)[None, :] + column_offset
    batch, rest = np.divmod(row, descriptor.depth * out_h * out_w)
    depth, rest = np.divmod(rest, out_h * out_w)
    out_row, out_col = np.divmod(rest, out_w)
    c0 = descriptor.channels_per_group
    group, rest = np.divmod(col, descriptor.filter_height * descriptor.filter_width * c0)
    filter_row, rest = np.divmod(rest, descriptor.filter_width * c0)
    filter_col, channel = np.divmod(rest, c0)
    in_row = out_row * descriptor.stride_height + filter_row * descriptor.dilation_height - descriptor.pad_top
    in_col = out_col * descriptor.stride_width + filter_col * descriptor.dilation_width - descriptor.pad_left
    inside = ((group * c0 + channel < descriptor.logical_channels)
              & (in_row >= 0) & (in_row < descriptor.height) & (in_col >= 0) & (in_col < descriptor.width))
    index = ((((batch * descriptor.depth + depth) * descriptor.channel_groups + group) * descriptor.height
              + in_row) * descriptor.width + in_col) * c0 + channel
    return np.where(inside, index, 0), inside


class TileImageToColumn(TileRearrangement):
    HANDLER, LEGALITY = "TIMG2COL", "TileOperandsLegal_TIMG2COL"
    ARGUMENTS = ("destination0", "source0", "natural0", "natural1")
    DATR_ALLOWED = frozenset()  # the catalog's datr_contract: no field, PadValue must be zero

    def __init__(self, name: str):
        super().__init__(name)
        # posM and posK are the direct call's row_offset and column_offset; there is no pad operand.
        self.DIRECT_ARGUMENTS = {"dst": REQUIRED, "src": REQUIRED, "row_offset": 0, "column_offset": 0}

    def direct(self, state, call: dict, profile: str):
        return self.run(state.tiles, call["dst"], [call["src"]], 0, "Null", profile, state.tile_capacity,
                        call["row_offset"], call["column_offset"])

    def check_operands(self, tiles, dst, sources, scalar, limit, row_offset=0, column_offset=0):
        """No whole-source definedness step: only the referenced elements must be defined."""
        self.operands_check(tiles, dst, sources, scalar, limit, row_offset, column_offset)

    def operands_check(self, tiles, dst, sources, scalar, limit, row_offset=0, column_offset=0):
        destination, source = tiles[dst], tiles[sources[0]]
        if not descriptor_legal(source, limit) or source.predicate or destination.predicate:
            raise tile_legality("TIMG2COL: the source descriptor is not legal")
        descriptor = source.feature_map
        if descriptor is None or not descriptor.structurally_valid(
                logical_capacity(source.capacity, source.dtype), source.rows * source.cols):
            raise tile_legality("TIMG2COL: the source has no structurally valid feature-map descriptor")
        # SPEC-CHOICE 78: carrier-only types, as TileOperandsLegal_TIMG2COL checks them.
        if not (carrier_only(source.dtype) and destination.dtype == source.dtype
                and destination.layout == source.layout == "RowMajor"
                and destination.location == source.location == "Matrix"):
            raise tile_legality("TIMG2COL takes RowMajor Matrix tiles of one carrier-only type")
        rows, cols = descriptor.matrix_shape
        if not rows or not cols:
            raise tile_legality("TIMG2COL: the filter does not fit the padded feature map")
        if row_offset + destination.valid_rows > rows or column_offset + destination.valid_cols > cols:
            raise tile_legality(f"TIMG2COL: the window at ({row_offset}, {column_offset}) leaves the "
                                f"{rows}x{cols} image-to-column matrix")
        index, inside = referenced(source, descriptor, destination.valid_rows, destination.valid_cols,
                                   row_offset, column_offset)
        capacity = logical_capacity(source.capacity, source.dtype)
        wanted = index[inside]
        if (wanted >= capacity).any() or (wanted >= source.defined.size).any() \
                or not source.defined[wanted].all():
            raise tile_legality("TIMG2COL: a referenced source element is not defined")

    def arrange(self, grid, defined, tiles, dst, sources, scalar, pad, row_offset, column_offset):
        destination, source = tiles[dst], tiles[sources[0]]
        descriptor = source.feature_map
        index, inside = referenced(source, descriptor, destination.valid_rows, destination.valid_cols,
                                   row_offset, column_offset)
        padding = np.uint64(descriptor.padding & source.dtype.mask)  # TileRawElementValue
        write_valid(grid, defined, destination, np.where(inside, source.payload[index], padding))
        write_padding(grid, defined, destination, "Null")  # TileWithPadding(result, TilePad_Null)


register(TileImageToColumn("TIMG2COL"))
