"""The row-indexed rearrangements TGATHER and TSCATTER: a value tile and a row-index
tile of the same column positions; one operation kind, each operation module one
declaration.

Facts from asl/tile/irregular-and-complex/layout/TGATHER.asl and TSCATTER.asl,
asl/tile/model/execution/indexed-rearrangement.asl (TGATHER, TSCATTER),
asl/tile/model/legality/indexed-rearrangement.asl (the value and index type sets,
TileIndexedRowIsNegative, TileIndexedRowValue, TileGatherReferencesLegal,
TileScatterReferencesLegal, TileOperandsLegal_TGATHER/TSCATTER),
asl/tile/model/definedness/elements.asl (IndexedTLSUTransferDataTypeLegal: every type
but the four-bit ones):

- an index element selects a logical row at its own column, from its low 16, 32 or 64
  bits (the index type's width); a signed index must be nonnegative, every index below
  the source's (TGATHER) or destination's (TSCATTER) valid rows, and TSCATTER's
  (index, column) targets pairwise distinct; every check precedes any write;
- TGATHER: destination[r, c] = source[index[r, c], c], the whole carrier Word; padding Null;
- TSCATTER: every physical destination coordinate starts as a defined zero, then
  destination[index[r, c], c] = source[r, c]; no Null padding;
- SPEC-CHOICE 45: the contracts ask the consumed value elements to be validly
  encoded, but the operand rules check the encodings of the index tile only and the
  execution moves raw carrier Words (as both NDF statements say); the model follows
  the ASL and moves an invalid value encoding as it is;
- neither has a closed schema: the destination's shape is the open path's
  (``BlockState.derived_shape``: LB dimensions, else the value source's) and its type
  the block's effective type. SPEC-CHOICE 44: the optional B.DATR (Layout) encodes
  DataType 0, FP64, which becomes the destination's type, so a B.DATR block moves only
  FP64 values; the model follows the ASL.
"""
from __future__ import annotations

import numpy as np

from ..faults import tile_legality
from ..state import MachineState, descriptor_legal, source_contents_defined, source_encodings_valid
from .common import Publication, result_tile
from .rearrange import OpenSchema
from .registry import REQUIRED

U64 = np.uint64
INDEX_TYPES = frozenset({"S16", "U16", "S32", "U32", "S64", "U64"})


def value_type_legal(dtype) -> bool:
    """IndexedTLSUTransferDataTypeLegal: every type but the four-bit (X2) ones."""
    return dtype.bits != 4


def index_rows(index_tile):
    """(row selected by each valid index element as int64-safe uint64, negative mask)."""
    words = index_tile.valid_words()
    bits = index_tile.dtype.bits
    low = words & U64((1 << bits) - 1) if bits < 64 else words
    negative = (low >> U64(bits - 1)) & U64(1) == 1 if index_tile.dtype.signed else np.zeros(low.shape, bool)
    return low, negative


class TileIndexed(OpenSchema):
    """TGATHER (``scatter`` False) or TSCATTER (True)."""

    SOURCES = 2  # the values, then the row indices
    GPR_INPUTS = 0
    DATR_ALLOWED = frozenset({"Layout"})
    DIRECT_ARGUMENTS = {"dst": REQUIRED, "src": REQUIRED, "src1": REQUIRED}

    def __init__(self, name: str, scatter: bool):
        self.NAME, self.HANDLER, self.LEGALITY = name, name, f"TileOperandsLegal_{name}"
        self.scatter = scatter

    # --- bundle: the open path (OpenSchema) ---------------------------------------
    def execute_bundle(self, state: MachineState, block, index: int, destination, profile: str) -> Publication:
        tiles = list(state.tiles)
        tiles[index] = destination
        source, indices = block.sources()
        return self.publish(tiles, index, source, indices, state.tile_capacity)

    def direct(self, state: MachineState, call: dict, profile: str) -> Publication:
        return self.publish(state.tiles, call["dst"], call["src"], call["src1"], state.tile_capacity)

    # --- operand legality ----------------------------------------------------------
    def operands_check(self, tiles, dst: int, source_index: int, index_index: int, limit: int):
        """TileOperandsLegal_TGATHER / TSCATTER, the reference checks last."""
        destination, source, indices = tiles[dst], tiles[source_index], tiles[index_index]
        if not all(descriptor_legal(t, limit) for t in (destination, source, indices)):
            raise tile_legality(f"{self.NAME}: every operand descriptor must be legal")
        if (destination.predicate or source.predicate or indices.predicate or destination.dtype != source.dtype
                or not value_type_legal(source.dtype) or indices.dtype.name not in INDEX_TYPES):
            raise tile_legality(f"{self.NAME}: numeric value tiles of one non-four-bit type and an index tile "
                                f"of {sorted(INDEX_TYPES)}")
        index_shape = (indices.valid_rows, indices.valid_cols)
        if self.scatter:
            shapes = ((source.valid_rows, source.valid_cols) == index_shape and source.valid_rows > 0
                      and source.valid_cols > 0 and destination.valid_rows > 0
                      and destination.valid_cols == source.valid_cols
                      and source_contents_defined(source, limit))
        else:
            shapes = ((destination.valid_rows, destination.valid_cols) == index_shape
                      and destination.valid_rows > 0 and destination.valid_cols > 0
                      and source.valid_cols >= destination.valid_cols)
        if not shapes or not source_encodings_valid(indices, limit):
            raise tile_legality(f"{self.NAME}: the valid shapes do not match, or a consumed source is undefined")
        rows, negative = index_rows(indices)
        limit_rows = destination.valid_rows if self.scatter else source.valid_rows
        if negative.any() or not self.rows_in_range(rows, limit_rows):
            raise tile_legality(f"{self.NAME}: an index is negative or not below {limit_rows}")
        columns = np.broadcast_to(np.arange(rows.shape[1], dtype=U64)[None, :], rows.shape)
        if self.scatter:
            if not self.targets_distinct(destination.index_map[rows.astype(np.int64), columns.astype(np.int64)]):
                raise tile_legality("TSCATTER: two source elements select the same destination coordinate")
        elif not source.defined_grid()[rows.astype(np.int64), columns.astype(np.int64)].all():
            raise tile_legality("TGATHER: a selected source element is undefined")
        return rows.astype(np.int64), columns.astype(np.int64)

    @staticmethod
    def rows_in_range(rows: np.ndarray, limit_rows: int) -> bool:
        """Every selected row lies below ``limit_rows`` (the source's or destination's valid rows)."""
        return not (rows >= U64(limit_rows)).any()

    @staticmethod
    def targets_distinct(targets: np.ndarray) -> bool:
        """TileScatterReferencesLegal's duplicate rule: no storage element is written twice."""
        return np.unique(targets).size == targets.size

    # --- execution -------------------------------------------------------------------
    def publish(self, tiles, dst: int, source_index: int, index_index: int, limit: int) -> Publication:
        rows, columns = self.operands_check(tiles, dst, source_index, index_index, limit)
        destination, source = tiles[dst], tiles[source_index]
        if not self.scatter:
            words = source.words()[rows, columns]
            return Publication({dst: result_tile(destination, words, "Null")})
        payload = np.zeros(destination.payload.shape, dtype=U64)
        payload[destination.index_map[rows, columns]] = source.valid_words() & U64(destination.element_mask)
        return Publication({dst: destination.with_contents(payload, np.ones(destination.defined.shape, bool))})
