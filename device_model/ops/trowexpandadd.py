"""TROWEXPANDADD: sum, row broadcast (asl/tile/reduce-and-expand/row-expansion/TROWEXPANDADD.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TROWEXPANDADD", "Row", "ADD"))
