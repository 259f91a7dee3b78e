"""TEXTRACT: the source window at (row offset, column offset) of the destination's valid
shape; the padding is CurrentBundlePadValue (asl/tile/layout-and-rearrangement/layout/
TEXTRACT.asl; execution/rearrangement.asl TEXTRACT, legality/layout-rearrangement.asl
TileOperandsLegal_TEXTRACT). In a bundle the offsets are B.DIM LB0 and LB1 (SPEC-CHOICE 47)."""
from ..faults import tile_legality
from .rearrange import MOVE24_TYPES, TileRearrangement, encodings_legal, numeric, write_padding, write_valid
from .registry import register


class TileExtract(TileRearrangement):
    HANDLER, LEGALITY = "TEXTRACT", "TileOperandsLegal_TEXTRACT"
    ARGUMENTS = ("destination0", "source0", "natural0", "natural1")

    def operands_check(self, tiles, dst, sources, scalar, limit, row_offset=0, column_offset=0):
        destination, source = tiles[dst], tiles[sources[0]]
        if not (encodings_legal(source, limit) and numeric(destination, source)
                and destination.dtype.name in MOVE24_TYPES and destination.dtype == source.dtype
                and row_offset + destination.valid_rows <= source.valid_rows
                and column_offset + destination.valid_cols <= source.valid_cols):
            raise tile_legality("TEXTRACT takes numeric tiles of one Move24 type and a window inside the "
                                "source's valid region")

    def arrange(self, grid, defined, tiles, dst, sources, scalar, pad, row_offset, column_offset):
        destination = tiles[dst]
        window = self.window(tiles[sources[0]].words(), row_offset, column_offset,
                             destination.valid_rows, destination.valid_cols)
        write_valid(grid, defined, destination, window)
        write_padding(grid, defined, destination, pad)

    @staticmethod
    def window(words, row_offset: int, column_offset: int, rows: int, cols: int):
        """The rows x cols Words of ``words`` from (row_offset, column_offset)."""
        return words[row_offset:row_offset + rows, column_offset:column_offset + cols]


register(TileExtract("TEXTRACT"))
