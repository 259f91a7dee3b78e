"""TCOLEXPANDMIN: minimum, column broadcast (asl/tile/reduce-and-expand/column-expansion/TCOLEXPANDMIN.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TCOLEXPANDMIN", "Column", "MIN"))
