"""TROWEXPANDSUB: difference, row broadcast (asl/tile/reduce-and-expand/row-expansion/TROWEXPANDSUB.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TROWEXPANDSUB", "Row", "SUB"))
