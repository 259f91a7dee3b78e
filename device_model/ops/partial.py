"""The partial operations TPARTADD, TPARTMUL, TPARTMAX, TPARTMIN: one operation kind
over the shared TEPL flow; each operation module is one declaration.

Facts from asl/tile/model/execution/complex.asl (ExecuteTilePartial,
TileProfilePartialValueWithFlags), asl/tile/model/legality/indexed-layout.asl
(TilePartialDataTypeSupported, TileOperandsLegal_ExecuteTilePartial),
allocation-capacity.asl (TilePartialCoverageLegal) and
asl/block/model/dispatch/partial-schema.asl (SelectedBundleClosedPartialSchemaLegal):

- both sources are anchored at the origin; a valid destination element that both
  sources cover is TileProfileBinaryWithFlags of the two (flags recorded in both
  profiles), one that only one covers is that source's Word bit for bit;
- a direct call needs every destination element covered by one source at least; a
  bundle needs one source to cover the whole B.DIM region, no B.DATR and no B.IOR;
- the destination's padding is Null whatever a call names, its location Any.
"""
from __future__ import annotations

import numpy as np

from ..faults import tile_legality
from ..state import MachineState, descriptor_legal, source_contents_defined, source_encodings_valid
from .common import Publication, result_tile
from .elementwise import Elementwise
from .expansion import ELEMENT_OPERATIONS

PARTIAL_TYPES = frozenset({"FP32", "FP16", "BF16", "S32", "S16", "S8", "U32", "U16", "U8"})


class TilePartial(Elementwise):
    """One partial operation of element operation ``operation`` (ADD, MUL, MAX, MIN).

    SPEC-CHOICE 31: the TPARTMUL document lists seven types (no S8, U8); the executable
    TilePartialDataTypeSupported accepts nine for all four operations, as
    PTO-AVS-TILE-TPARTMUL-DTYPE-001 asserts. The executable set is used."""

    HANDLER, LEGALITY = "ExecuteTilePartial", "TileOperandsLegal_ExecuteTilePartial"
    ARGUMENTS = ("destination0", "source0", "source1")
    DATR_ALLOWED = frozenset()  # must-zero: no B.DATR field applies

    def __init__(self, name: str, operation: str):
        super().__init__(name, ELEMENT_OPERATIONS[operation], "TileVecArithmeticDataTypeSupported")
        self.types_name, self.types = "TilePartialDataTypeSupported", PARTIAL_TYPES
        self.operation = operation

    # --- bundle ------------------------------------------------------------
    def schema_legal(self, state: MachineState, block) -> bool:
        if block.datr is not None or block.ior is not None or not block.dims_legal():
            return False
        if any(b.destination and b is not block.bindings[-1] for b in block.bindings):
            return False
        valid_rows, valid_cols, cols = block.shape()
        dtype = block.data_type
        if cols < valid_cols or dtype.name not in self.types:
            return False
        left, right = (state.tiles[s] for s in block.sources())
        for tile in (left, right):
            if not (source_contents_defined(tile, state.tile_capacity) and not tile.predicate
                    and tile.dtype == dtype and tile.layout == "RowMajor"
                    and 1 <= tile.valid_rows <= valid_rows and 1 <= tile.valid_cols <= valid_cols):
                return False
        if not any((t.valid_rows, t.valid_cols) == (valid_rows, valid_cols) for t in (left, right)):
            return False
        return not dtype.is_float or all(source_encodings_valid(t, state.tile_capacity) for t in (left, right))

    # --- shared --------------------------------------------------------------
    def operands_check(self, tiles, dst: int, sources, scalar: int, limit: int) -> None:
        destination, left, right = tiles[dst], tiles[sources[0]], tiles[sources[1]]
        if not all(descriptor_legal(t, limit) for t in (destination, left, right)):
            raise tile_legality(f"{self.NAME}: an operand descriptor is not legal")
        rows, cols = destination.valid_rows, destination.valid_cols
        if any(t.valid_rows > rows or t.valid_cols > cols for t in (left, right)):
            raise tile_legality(f"{self.NAME}: a source's valid region exceeds the destination's")
        if not self._covered(left, right, rows, cols):
            raise tile_legality(f"{self.NAME}: a destination element lies outside both sources")
        if (destination.dtype.name not in self.types or left.dtype != destination.dtype
                or right.dtype != destination.dtype
                or any(t.layout != "RowMajor" or t.predicate for t in (destination, left, right))
                or not all(source_contents_defined(t, limit) for t in (left, right))):
            raise tile_legality(f"{self.NAME} takes RowMajor {self.types_name} tiles of one type with "
                                f"fully defined sources")
        if destination.dtype.is_float and not all(source_encodings_valid(t, limit) for t in (left, right)):
            raise tile_legality(f"{self.NAME}: a source holds an invalid {destination.dtype.name} encoding")

    @staticmethod
    def _covered(left, right, rows: int, cols: int) -> bool:
        """TilePartialCoverageLegal's loop: every (r, c) lies in the left or the right region."""
        grid_r, grid_c = np.ogrid[:rows, :cols]
        return bool(((grid_r < left.valid_rows) & (grid_c < left.valid_cols)
                     | (grid_r < right.valid_rows) & (grid_c < right.valid_cols)).all())

    def elements(self, tiles, dst: int, sources, scalar: int, pad: str, profile: str):
        destination, left, right = tiles[dst], tiles[sources[0]], tiles[sources[1]]
        shape = (destination.valid_rows, destination.valid_cols)
        left_words, right_words = np.zeros(shape, dtype=np.uint64), np.zeros(shape, dtype=np.uint64)
        left_words[:left.valid_rows, :left.valid_cols] = left.valid_words()
        right_words[:right.valid_rows, :right.valid_cols] = right.valid_words()
        grid_r, grid_c = np.ogrid[:shape[0], :shape[1]]
        in_left = (grid_r < left.valid_rows) & (grid_c < left.valid_cols)
        in_right = (grid_r < right.valid_rows) & (grid_c < right.valid_cols)
        both = in_left & in_right
        combined, flags = self.element(destination.dtype, profile, left_words, right_words)
        combined = np.broadcast_to(np.asarray(combined, dtype=np.uint64), shape)
        words = np.where(both, combined, np.where(in_left, left_words, right_words))
        flags = np.where(both, np.broadcast_to(np.asarray(flags, dtype=np.uint8), shape), np.uint8(0))
        return result_tile(destination, words, "Null", location="Any"), self.status(flags, profile)

    def run(self, tiles, dst: int, sources, scalar: int, pad: str, profile: str, limit: int) -> Publication:
        self.operands_check(tiles, dst, sources, scalar, limit)
        tile, status = self.elements(tiles, dst, sources, scalar, pad, profile)
        return Publication({dst: tile}, status)
