"""TCOLEXPANDSUB: difference, column broadcast (asl/tile/reduce-and-expand/column-expansion/TCOLEXPANDSUB.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TCOLEXPANDSUB", "Column", "SUB"))
