"""TINSERT: the old destination (source0) with the insertion source's valid region
written at (row offset, column offset); every uncovered Word and its definedness, the
padding included, are the old destination's (asl/tile/layout-and-rearrangement/layout/
TINSERT.asl; execution/rearrangement.asl TINSERT, legality/layout-rearrangement.asl
TileOperandsLegal_TINSERT). In a bundle the offsets are B.DIM LB0 and LB1 (SPEC-CHOICE 47)."""
from ..faults import tile_legality
from .elementwise import shape_and_type_match
from .rearrange import MOVE24_TYPES, TileRearrangement, encodings_legal, numeric
from .registry import register


class TileInsert(TileRearrangement):
    HANDLER, LEGALITY = "TINSERT", "TileOperandsLegal_TINSERT"
    ARGUMENTS = ("destination0", "source0", "source1", "natural0", "natural1")

    def operands_check(self, tiles, dst, sources, scalar, limit, row_offset=0, column_offset=0):
        destination, old, source = tiles[dst], tiles[sources[0]], tiles[sources[1]]
        if not (encodings_legal(old, limit) and encodings_legal(source, limit)
                and numeric(destination, old, source) and destination.dtype.name in MOVE24_TYPES
                and shape_and_type_match(destination, old, limit) and destination.dtype == source.dtype
                and row_offset + source.valid_rows <= destination.valid_rows
                and column_offset + source.valid_cols <= destination.valid_cols):
            raise tile_legality("TINSERT takes numeric tiles of one Move24 type, an old destination of the "
                                "destination's shape and an insertion window inside its valid region")

    def initial_contents(self, tiles, dst, sources):
        """The old destination's payload and definedness (its shape is the destination's)."""
        old = tiles[sources[0]]
        return old.payload.copy(), old.defined.copy()

    def arrange(self, grid, defined, tiles, dst, sources, scalar, pad, row_offset, column_offset):
        destination, source = tiles[dst], tiles[sources[1]]
        rows, cols = source.valid_rows, source.valid_cols
        grid[row_offset:row_offset + rows, column_offset:column_offset + cols] = source.valid_words()
        defined[:destination.valid_rows, :destination.valid_cols] = True


register(TileInsert("TINSERT"))
