"""TROWEXPANDMIN: minimum, row broadcast (asl/tile/reduce-and-expand/row-expansion/TROWEXPANDMIN.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TROWEXPANDMIN", "Row", "MIN"))
