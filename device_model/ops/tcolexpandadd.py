"""TCOLEXPANDADD: sum, column broadcast (asl/tile/reduce-and-expand/column-expansion/TCOLEXPANDADD.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TCOLEXPANDADD", "Column", "ADD"))
