"""TFILLPAD: copy the source's valid rectangle and write the fill scalar at every other
physical destination coordinate, all of it defined
(asl/tile/layout-and-rearrangement/initialization/TFILLPAD.asl; execution/generation.asl
TFILLPAD, legality/layout-rearrangement.asl TileOperandsLegal_TFILLPAD).

The fill is TileRawElementValue of B.IOR RegSrc0 (its low element bits). SPEC-CHOICE 48:
the contract's data-type rule (TileFillPadDataTypeSupported) and the operand rule
(TileCarrierOnlyDataTypeSupported) name different sets; the operand rule decides.
"""
from ..faults import tile_legality
from .common import raw_element
from .rearrange import CARRIER_ONLY_TYPES, TileRearrangement, encodings_legal, numeric
from .registry import register


class TileFillPad(TileRearrangement):
    HANDLER, LEGALITY = "TFILLPAD", "TileOperandsLegal_TFILLPAD"
    ARGUMENTS = ("destination0", "source0", "scalar0")

    def operands_check(self, tiles, dst, sources, scalar, limit, row_offset=0, column_offset=0):
        destination, source = tiles[dst], tiles[sources[0]]
        if not (encodings_legal(source, limit) and numeric(destination, source)
                and destination.dtype.name in CARRIER_ONLY_TYPES and destination.dtype == source.dtype
                and destination.rows >= source.rows and destination.cols >= source.cols
                and destination.valid_rows >= source.valid_rows and destination.valid_cols >= source.valid_cols):
            raise tile_legality("TFILLPAD takes a numeric source and destination of one carrier-only type "
                                "(at most 32 bits, not 4-bit) whose every dimension covers the source's")

    def arrange(self, grid, defined, tiles, dst, sources, scalar, pad, row_offset, column_offset):
        source = tiles[sources[0]]
        grid[:] = raw_element(scalar, tiles[dst].dtype)
        grid[:source.valid_rows, :source.valid_cols] = source.valid_words()
        defined[:] = True


register(TileFillPad("TFILLPAD"))
