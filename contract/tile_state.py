"""The initial contents of a tile described by a loaded case's ``state.tiles[]`` entry.

Shared by device adapters (to write the tile) and the comparator (to check that a
tile stayed unchanged), so both read the state description the same way.
"""
from __future__ import annotations

import numpy as np

from ..device_model.dtypes import dtype as lookup_dtype

CUBE_LAYOUTS = ("CUBE_M16", "CUBE_M32", "CUBE_N8")


def parse_coordinate(key: str) -> tuple[int, int]:
    """``"r,c"`` -> ``(r, c)``."""
    row, col = key.split(",")
    return int(row), int(col)


def element_bits(dtype_name: str) -> int:
    """Width of one logical element (4 for the X2 types)."""
    return lookup_dtype(dtype_name).bits


def initial_arrays(tile: dict, rows: int, cols: int) -> tuple[np.ndarray, np.ndarray]:
    """Words and definedness (``rows`` x ``cols``, logical coordinates) a state tile starts with.

    Raises ValueError when the described values do not fit the tile's shape.
    """
    words = np.zeros((rows, cols), dtype=np.uint64)
    defined = np.zeros((rows, cols), dtype=bool)
    valid_rows, valid_cols = tile["valid"]
    if valid_rows > rows or valid_cols > cols:
        raise ValueError(f"valid region {valid_rows}x{valid_cols} exceeds the {rows}x{cols} tile")
    if "data" in tile:
        words[:valid_rows, :valid_cols] = np.array(tile["data"], dtype=np.uint64).reshape(valid_rows, valid_cols)
    elif "fill" in tile:
        words[:valid_rows, :valid_cols] = np.uint64(tile["fill"])
    for key, value in tile.get("elements", {}).items():
        row, col = parse_coordinate(key)
        if row >= rows or col >= cols:
            raise ValueError(f"element ({row},{col}) lies outside the {rows}x{cols} tile")
        words[row, col] = np.uint64(value)
    start = tile.get("defined", "valid")
    if start == "all":
        defined[:, :] = True
    elif start == "valid":
        defined[:valid_rows, :valid_cols] = True
    return words, defined
