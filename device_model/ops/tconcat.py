"""TCONCAT: the left source's valid rows followed, along columns, by the right source's;
the padding is Null (asl/tile/layout-and-rearrangement/layout/TCONCAT.asl; execution/
rearrangement.asl TCONCAT, legality/layout-rearrangement.asl TileOperandsLegal_TCONCAT)."""
import numpy as np

from ..faults import tile_legality
from .rearrange import MOVE24_TYPES, TileRearrangement, encodings_legal, numeric, write_padding, write_valid
from .registry import register


class TileConcatenate(TileRearrangement):
    HANDLER, LEGALITY = "TCONCAT", "TileOperandsLegal_TCONCAT"
    ARGUMENTS = ("destination0", "source0", "source1")

    def operands_check(self, tiles, dst, sources, scalar, limit, row_offset=0, column_offset=0):
        destination, left, right = tiles[dst], tiles[sources[0]], tiles[sources[1]]
        if not (destination.dtype == left.dtype == right.dtype
                and (encodings_legal(left, limit) and encodings_legal(right, limit))
                and numeric(destination, left, right) and destination.dtype.name in MOVE24_TYPES
                and left.valid_rows > 0 and left.valid_rows == right.valid_rows == destination.valid_rows
                and destination.valid_cols == left.valid_cols + right.valid_cols):
            raise tile_legality("TCONCAT takes numeric tiles of one Move24 type, sources of the destination's "
                                "valid rows whose valid columns add up to the destination's")

    def arrange(self, grid, defined, tiles, dst, sources, scalar, pad, row_offset, column_offset):
        left, right = tiles[sources[0]], tiles[sources[1]]
        write_valid(grid, defined, tiles[dst], np.hstack([left.valid_words(), right.valid_words()]))
        write_padding(grid, defined, tiles[dst], "Null")


register(TileConcatenate("TCONCAT"))
