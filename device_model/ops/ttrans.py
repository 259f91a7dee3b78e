"""TTRANS: source [r, c] lands at destination [c, r], its Word unchanged; the padding is
Null (asl/tile/layout-and-rearrangement/layout/TTRANS.asl; execution/rearrangement.asl
TTRANS, legality/layout-rearrangement.asl TileOperandsLegal_TTRANS)."""
from ..faults import tile_legality
from .rearrange import MOVE24_TYPES, TileRearrangement, encodings_legal, numeric, write_padding, write_valid
from .registry import register


class TileTranspose(TileRearrangement):
    HANDLER, LEGALITY = "TTRANS", "TileOperandsLegal_TTRANS"
    ARGUMENTS = ("destination0", "source0")

    def operands_check(self, tiles, dst, sources, scalar, limit, row_offset=0, column_offset=0):
        destination, source = tiles[dst], tiles[sources[0]]
        if not (encodings_legal(source, limit) and numeric(destination, source)
                and destination.dtype.name in MOVE24_TYPES and destination.dtype == source.dtype
                and (destination.valid_rows, destination.valid_cols) == (source.valid_cols, source.valid_rows)):
            raise tile_legality("TTRANS takes numeric tiles of one Move24 type, the destination's valid "
                                "region the source's transposed")

    def arrange(self, grid, defined, tiles, dst, sources, scalar, pad, row_offset, column_offset):
        write_valid(grid, defined, tiles[dst], self.transposed(tiles[sources[0]].valid_words()))
        write_padding(grid, defined, tiles[dst], "Null")

    @staticmethod
    def transposed(words):
        """valid_cols x valid_rows: row c holds the source's column c."""
        return words.T


register(TileTranspose("TTRANS"))
