"""TCOLEXPANDMAX: maximum, column broadcast (asl/tile/reduce-and-expand/column-expansion/TCOLEXPANDMAX.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TCOLEXPANDMAX", "Column", "MAX"))
