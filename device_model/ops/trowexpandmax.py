"""TROWEXPANDMAX: maximum, row broadcast (asl/tile/reduce-and-expand/row-expansion/TROWEXPANDMAX.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TROWEXPANDMAX", "Row", "MAX"))
