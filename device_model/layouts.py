"""Tile layouts: physical index formulas and CUBE cell geometry.

Facts from the PTO ISA specification (asl/tile/model/definedness/elements.asl,
packed-boundary.asl and shape/cube-cell.asl). Every index function returns a
whole-tile numpy array ``index[r, c]`` = storage index of logical coordinate
(r, c); arrays are cached and read-only.

Ordinary layouts (RowMajor, ColumnMajor, ZN, NZ) use the same formula for the
Word payload and the packed carrier, so one map serves both. CUBE layouts
group elements in 128-byte cells whose geometry depends on the element width.
"""
from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Optional

import numpy as np

ORDINARY_LAYOUTS = ("RowMajor", "ColumnMajor", "ZN", "NZ")
CUBE_LAYOUTS = ("CUBE_M16", "CUBE_M32", "CUBE_N8")
LAYOUTS = ORDINARY_LAYOUTS + CUBE_LAYOUTS
LOCATIONS = ("Vector", "Matrix", "Memory", "Any")

CELL_BYTES = 128
MODEL_TILE_ELEMENTS = 32768  # PTO_MODEL_TILE_ELEMENTS: Word payload slots per tile
FRACTAL_ROWS = 16


def layout_name(name: str) -> str:
    """Canonical spelling of a layout name (case-insensitive lookup)."""
    for layout in LAYOUTS:
        if layout.lower() == str(name).strip().lower():
            return layout
    raise ValueError(f"unknown tile layout {name!r}; expected one of {', '.join(LAYOUTS)}")


def location_name(name: str) -> str:
    for location in LOCATIONS:
        if location.lower() == str(name).strip().lower():
            return location
    raise ValueError(f"unknown tile location {name!r}; expected one of {', '.join(LOCATIONS)}")


def is_cube(layout: str) -> bool:
    return layout in CUBE_LAYOUTS


def fractal_inner(bits: int) -> int:
    """Columns of one ZN/NZ fractal: 16 rows by 32 bytes."""
    return 256 // bits


def is_power_of_two(value: int) -> bool:
    return 0 < value <= 65535 and value & (value - 1) == 0


def derived_rows(capacity: int, cols: int, bits: int) -> int:
    """DerivedTileRows: capacity*8 / (cols*bits) when exact, else 0."""
    if capacity <= 0 or not is_power_of_two(cols):
        return 0
    row_bits = cols * bits
    if (capacity * 8) % row_bits:
        return 0
    rows = capacity * 8 // row_bits
    return rows if 0 < rows <= 65535 else 0


def generic_indexing_permitted(layout: str, bits: int, rows: int, cols: int) -> bool:
    """Ordinary layout whose fractal shape (for ZN/NZ) is complete."""
    if layout in ("RowMajor", "ColumnMajor"):
        return True
    if layout in ("ZN", "NZ"):
        return rows % FRACTAL_ROWS == 0 and cols % fractal_inner(bits) == 0
    return False


def _frozen(array: np.ndarray) -> np.ndarray:
    array.flags.writeable = False
    return array


@lru_cache(maxsize=1024)
def ordinary_index_map(layout: str, bits: int, rows: int, cols: int) -> np.ndarray:
    """index[r, c] for RowMajor, ColumnMajor, ZN or NZ (TileLinearIndex)."""
    r = np.arange(rows, dtype=np.int64)[:, None]
    c = np.arange(cols, dtype=np.int64)[None, :]
    if layout == "RowMajor":
        index = r * cols + c
    elif layout == "ColumnMajor":
        index = c * rows + r
    else:
        if not generic_indexing_permitted(layout, bits, rows, cols):
            raise ValueError(f"{layout} needs rows % 16 == 0 and cols % {fractal_inner(bits)} == 0 "
                             f"for {bits}-bit elements (got {rows}x{cols})")
        inner = fractal_inner(bits)
        block_rows, block_cols = rows // FRACTAL_ROWS, cols // inner
        br, ir = r // FRACTAL_ROWS, r % FRACTAL_ROWS
        bc, ic = c // inner, c % inner
        block = FRACTAL_ROWS * inner
        if layout == "ZN":  # blocks row-major, column-major inside a block
            index = (br * block_cols + bc) * block + ic * FRACTAL_ROWS + ir
        else:  # NZ: blocks column-major, row-major inside a block
            index = (bc * block_rows + br) * block + ir * inner + ic
    return _frozen(np.ascontiguousarray(np.broadcast_to(index, (rows, cols))))


def cube_cell_shape(layout: str, bits: int) -> tuple[int, int]:
    """(cell rows, cell columns) of one 128-byte CUBE cell; (0, 0) if unsupported."""
    if layout not in CUBE_LAYOUTS or bits == 64:
        return (0, 0)
    elements = CELL_BYTES * 8 // bits
    if layout == "CUBE_M16":
        return (16, elements // 16)
    if layout == "CUBE_M32":
        return (32, elements // 32)
    return (elements // 8, 8)  # CUBE_N8


@dataclass(frozen=True)
class CubeGeometry:
    rows: int
    cols: int
    k_repeat: int
    n_repeat: int
    cells: int
    required_bytes: int


def _aligned(value: int, quantum: int) -> int:
    aligned = -(-value // quantum) * quantum if value else 0
    return aligned if aligned <= 65535 else 0


def cube_geometry(layout: str, dtype, valid_rows: int, valid_cols: int) -> Optional[CubeGeometry]:
    """Storage shape of a CUBE tile with the given valid region, or None when no
    legal geometry exists (unsupported type, M over the cell rows, zero extent,
    more than 32768 elements)."""
    if layout not in CUBE_LAYOUTS or dtype.name == "HiF4X2" or valid_rows <= 0 or valid_cols <= 0:
        return None
    cell_rows, cell_cols = cube_cell_shape(layout, dtype.bits)
    if not cell_rows:
        return None
    if layout == "CUBE_N8":
        rows = _aligned(valid_rows, cell_rows)
    else:
        rows = cell_rows if valid_rows <= cell_rows else 0
    cols = _aligned(valid_cols, cell_cols)
    if not rows or not cols:
        return None
    if layout == "CUBE_N8":
        k_repeat, n_repeat = rows // cell_rows, cols // 8
    else:
        k_repeat, n_repeat = cols // cell_cols, 1
    cells = k_repeat * n_repeat
    if cells > 16384 or cells * cell_rows * cell_cols > MODEL_TILE_ELEMENTS:
        return None
    return CubeGeometry(rows, cols, k_repeat, n_repeat, cells, cells * CELL_BYTES)


@lru_cache(maxsize=1024)
def cube_index_map(layout: str, bits: int, rows: int, cols: int) -> np.ndarray:
    """index[r, c] for CUBE_M16/M32/N8 (TileCubePayloadIndex); rows and cols are
    the storage shape from ``cube_geometry``."""
    cell_rows, cell_cols = cube_cell_shape(layout, bits)
    k_repeat = rows // cell_rows
    r = np.arange(rows, dtype=np.int64)[:, None]
    c = np.arange(cols, dtype=np.int64)[None, :]
    if layout == "CUBE_N8":
        cell = (c // cell_cols) * k_repeat + r // cell_rows
        local = (c % cell_cols) * cell_rows + r % cell_rows  # column-major inside the cell
    else:
        cell = c // cell_cols
        inner = c % cell_cols
        if layout == "CUBE_M16" and bits == 4:
            # 4-bit M16 cells swap inner columns 4..7 with 8..11.
            inner = np.where((inner >= 4) & (inner < 8), inner + 4,
                             np.where((inner >= 8) & (inner < 12), inner - 4, inner))
        local = r * cell_cols + inner
    index = cell * (cell_rows * cell_cols) + local
    return _frozen(np.ascontiguousarray(np.broadcast_to(index, (rows, cols))))
