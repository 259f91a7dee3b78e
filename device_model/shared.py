"""Reads of the shared tile registers S0..S255 through a block's B.IOS source bindings.

Facts from asl/tile/model/state/shared-registers.asl (SharedTileDescriptorLegal,
SharedTileCooperativeMatrixReady, SharedTileReadSchemaLegal[AtCapacity],
ReadSharedTileWord, UndefinedSharedTileWord), asl/tile/model/state/descriptors.asl
(SharedTileCapacityIsLegal) and asl/block/model/operands/shared-bindings.asl (the binding
stream: SharedTID, SizeCode 0 = source, mask).

The model holds a shared register as a ``Tile`` (its ``mask`` is the allocation mask) or None
(descriptor not valid). An initial register is installed whole (SPEC-CHOICE 66: the initial
state's shared tiles), and TLOAD and TMOV.L2S update one as AtomicUpdateSharedTileWithPublication
does: a new register is allocated and initialized on the same mask, an existing one only on PEs
it is allocated on, so its initialized mask is always its allocation mask and "initialized"
reduces to "configured". Publication is the one flag left: TMOV.L2S.INSERT leaves a new register
unpublished (``MachineState.unpublished_shared``); every other update publishes.
"""
from __future__ import annotations

from typing import Optional

import numpy as np

from .layouts import CELL_BYTES, derived_rows, generic_indexing_permitted
from .state import MAX_TILE_CAPACITY, Tile, logical_capacity, shape_legal

ALL_PES = 0b1111
U64 = np.uint64


def capacity_legal(capacity: int, limit: int) -> bool:
    """SharedTileCapacityIsLegal: whole cells, at most 256 KiB and the core capacity."""
    return capacity >= CELL_BYTES and capacity % CELL_BYTES == 0 and capacity <= min(MAX_TILE_CAPACITY, limit)


def descriptor_legal(tile: Optional[Tile], limit: int) -> bool:
    """SharedTileDescriptorLegal."""
    if tile is None or tile.predicate or tile.cube or tile.mask == 0:
        return False
    return (capacity_legal(tile.capacity, limit)
            and tile.rows == derived_rows(tile.capacity, tile.cols, tile.dtype.bits) != 0
            and tile.valid_rows <= tile.rows and tile.valid_cols <= tile.cols
            and tile.rows * tile.cols <= logical_capacity(tile.capacity, tile.dtype)
            and generic_indexing_permitted(tile.layout, tile.dtype.bits, tile.rows, tile.cols))


def cooperative_matrix_ready(tile: Optional[Tile], limit: int, published: bool) -> bool:
    """SharedTileCooperativeMatrixReady: a legal register allocated (and initialized) on all
    four PEs, published (``published``: not left unpublished by a TMOV.L2S.INSERT), its
    contents defined."""
    return descriptor_legal(tile, limit) and tile.mask == ALL_PES and published and tile.contents_defined()


def read_schema_legal(tile: Optional[Tile], valid_rows: int, valid_cols: int, cols: int, dtype,
                      layout: str, limit: int) -> bool:
    """SharedTileReadSchemaLegal: a configured register is read at its own capacity with exactly
    ``cols`` columns, a valid region within its own, its type and layout; an unconfigured one
    at the least capacity that holds the shape."""
    if layout.startswith("CUBE"):
        return False
    if tile is not None:
        return (descriptor_legal(tile, limit) and tile.cols == cols and valid_rows <= tile.valid_rows
                and valid_cols <= tile.valid_cols and tile.dtype == dtype and tile.layout == layout)
    return any(shape_legal(size, cols, valid_rows, valid_cols, dtype)
               for size in (CELL_BYTES << code for code in range(12)) if capacity_legal(size, limit))


def undefined_word(shared_id: int, element) -> np.ndarray:
    """UndefinedSharedTileWord: the deterministic pto-v0 value of an unconfigured register's
    logical element (not a portable value)."""
    return U64(shared_id) ^ np.asarray(element, dtype=U64)


def read_block(tile: Optional[Tile], shared_id: int, rows: int, cols: int) -> np.ndarray:
    """ReadSharedTileWord over the top-left ``rows`` x ``cols`` logical elements of S``shared_id``
    (the register's own row stride): their Words, or the undefined-register values when it is
    not configured."""
    if tile is None:
        r, c = np.indices((rows, cols))
        return undefined_word(shared_id, r * cols + c)
    return tile.words()[:rows, :cols].astype(U64)
