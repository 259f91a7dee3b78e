"""The bit-copy rearrangements TFILLPAD, TCONCAT, TEXTRACT, TINSERT, TTRANS: one operation
kind over the shared TEPL flow, with the open bundle schema; each operation module
(``tfillpad.py`` ...) is a small subclass stating its operand fields, its operand rules
and where each destination element comes from.

Facts from asl/tile/model/execution/rearrangement.asl (TEXTRACT, TINSERT, TTRANS,
TCONCAT), generation.asl (TFILLPAD), asl/tile/model/legality/layout-rearrangement.asl
(TileOperandsLegal_*), dtype-layout.asl (TileCarrierOnlyDataTypeSupported,
TileMove24DataTypeSupported) and asl/block/model/dispatch/tile-schema.asl
(BundleTileInstructionOperands), destination-shape.asl (ResolveBundleTileDestinations):

- none of the five has a closed schema: a bundle's destination takes each of LB1, LB0,
  LB2 that is nonzero, else the first bound source's valid rows, valid columns and
  columns (``BlockState.derived_shape``);
- the operand fields ``natural0`` and ``natural1`` (TEXTRACT's and TINSERT's row and
  column offsets) are B.DIM LB0 and LB1 as given (0 when omitted), so in a bundle a
  nonzero offset also sizes the destination (SPEC-CHOICE 47); ``scalar0`` (TFILLPAD's fill)
  is B.IOR RegSrc0 (0 when B.IOR is omitted);
- B.DATR may set Layout only (PadValue must be zero, so a bundle's CurrentBundlePadValue
  is Null without B.DATR and Zero with one: SPEC-CHOICE 49);
- every element is copied as the Word the source holds (TileReadLogicalElement; a packed
  carrier keeps the element bits), no value is computed, and no NumericStatus flag is
  raised.

Where a destination element comes from is each operation's ``arrange``; the contents the
result starts from are ``initial_contents`` (the allocated destination's; TINSERT's old
destination, source0, whose uncovered payload and definedness the result keeps).
"""
from __future__ import annotations

import numpy as np

from ..faults import tile_legality
from ..padding import pad_defines, pad_word
from ..state import MachineState, Tile, descriptor_legal, source_contents_defined, source_encodings_valid
from .common import Publication
from .operation import Operation

U64 = np.uint64

# TileMove24DataTypeSupported (TileCarrierOrMove24BaselineDataTypeSupported): every assigned type but HiF4X2.
MOVE24_TYPES = frozenset({
    "FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "HiF8", "E4M3", "E5M2", "E3M2", "E2M3", "E2M1X2",
    "E1M2X2", "E8M0", "S64", "S32", "S16", "S8", "S4X2", "U64", "U32", "U16", "U8", "U4X2"})


def carrier_only(dtype) -> bool:
    """TileCarrierOnlyDataTypeSupported: not a 4-bit type and at most 4 bytes."""
    return dtype.bits != 4 and dtype.bits <= 32


# TileCarrierOnlyDataTypeSupported as a set (TFILLPAD's operand rule).
CARRIER_ONLY_TYPES = frozenset(name for name in MOVE24_TYPES if not name.endswith("X2") and not name.endswith("64"))


def numeric(*tiles) -> bool:
    return all(not t.predicate for t in tiles)


def encodings_legal(tile: Tile, limit: int) -> bool:
    """A source passes unless its type is not carrier-only and it holds an invalid encoding."""
    return carrier_only(tile.dtype) or source_encodings_valid(tile, limit)


class OpenSchema(Operation):
    """The open bundle schema (no SelectedBundleClosed*SchemaLegal): the operand rules
    decide, and the destination takes ``BlockState.derived_shape``. The rearrangements
    and the row-indexed kind (``indexed.TileIndexed``) take it."""

    def closed_schema_check(self, state: MachineState, block) -> None:
        """No closed schema: the operand rules decide."""

    def destination_shape(self, state: MachineState, block):
        return block.derived_shape(state)


class TileRearrangement(OpenSchema):
    """One rearrangement (a registry entry): the open-schema TEPL flow, the operands read
    from the block or the call, then the operation's ``operands_check`` and ``arrange``."""

    # SPEC-CHOICE 50: TFILLPAD's contract text allows PadValueOrByteId too; the catalog record and
    # TileOperationDATRFieldApplicable allow Layout alone, PadValue must be zero (TileDATRPadUnion_MustZero).
    DATR_ALLOWED = frozenset({"Layout"})
    NATURALS = ("natural0", "natural1")

    def __init__(self, name: str):
        super().__init__(name, None)
        self.naturals = tuple(a for a in self.ARGUMENTS if a in self.NATURALS)

    # --- the TEPL flow's hooks ---------------------------------------------
    def execute_bundle(self, state: MachineState, block, index: int, destination, profile: str) -> Publication:
        tiles = list(state.tiles)
        tiles[index] = destination
        offsets = {key: block.dims[slot] or 0 for slot, key in enumerate(("row_offset", "column_offset"))
                   if self.NATURALS[slot] in self.naturals}
        return self.run(tiles, index, block.sources(), self.bundle_scalar(state, block), block.pad(), profile,
                        state.tile_capacity, **offsets)

    def direct(self, state: MachineState, call: dict, profile: str) -> Publication:
        sources = [call[key] for key in ("src", "src1")[:self.SOURCES]]
        offsets = {key: call[key] for key in ("row_offset", "column_offset") if key in call}
        return self.run(state.tiles, call["dst"], sources, call.get("scalar", 0), call["pad"], profile,
                        state.tile_capacity, **offsets)

    # --- shared by the bundle and the direct path -----------------------------
    def run(self, tiles, dst: int, sources, scalar: int, pad: str, profile: str, limit: int,
            row_offset: int = 0, column_offset: int = 0) -> Publication:
        """The destination descriptor legal, every source defined, then the operation's rules
        (all Fault_TileLegality, nothing written), then the new destination."""
        if not descriptor_legal(tiles[dst], limit):
            raise tile_legality(f"{self.NAME}: the destination descriptor is not legal")
        self.check_operands(tiles, dst, sources, scalar, limit, row_offset, column_offset)
        destination = tiles[dst]
        payload, defined = self.initial_contents(tiles, dst, sources)
        grid = payload[destination.index_map]
        grid_defined = defined[destination.index_map]
        self.arrange(grid, grid_defined, tiles, dst, sources, scalar, pad, row_offset, column_offset)
        payload = np.empty_like(payload)
        payload[destination.index_map] = grid & U64(destination.element_mask)
        defined = np.empty_like(defined)
        defined[destination.index_map] = grid_defined
        return Publication({dst: destination.with_contents(payload, defined)}, 0)

    def check_operands(self, tiles, dst: int, sources, scalar: int, limit: int, row_offset: int = 0,
                       column_offset: int = 0) -> None:
        if not all(source_contents_defined(tiles[s], limit) for s in sources):
            raise tile_legality(f"{self.NAME}: a source is not a legal, fully defined tile")
        self.operands_check(tiles, dst, sources, scalar, limit, row_offset, column_offset)

    def initial_contents(self, tiles, dst: int, sources):
        """(payload, definedness) the result starts from: the destination's own."""
        return tiles[dst].payload.copy(), tiles[dst].defined.copy()

    def arrange(self, grid, defined, tiles, dst: int, sources, scalar: int, pad: str, row_offset: int,
                column_offset: int) -> None:
        """Write the destination's rows x cols logical Words ``grid`` and their definedness in place."""
        raise NotImplementedError(f"{self.NAME} states no arrangement")


def write_valid(grid, defined, destination: Tile, words) -> None:
    """The valid region of ``grid`` holds ``words`` (valid_rows x valid_cols), defined
    (TileWithValidRegionDefined)."""
    grid[:destination.valid_rows, :destination.valid_cols] = words
    defined[:destination.valid_rows, :destination.valid_cols] = True


def write_padding(grid, defined, destination: Tile, pad: str) -> None:
    """TileWithPadding: every coordinate outside the valid region holds the pad Word
    (defined unless the pad is Null)."""
    outside = ~destination.valid_region
    grid[outside] = U64(pad_word(pad, destination.dtype))
    defined[outside] = pad_defines(pad)
