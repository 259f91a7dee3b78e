"""TCOLEXPANDDIV: quotient, column broadcast (asl/tile/reduce-and-expand/column-expansion/TCOLEXPANDDIV.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TCOLEXPANDDIV", "Column", "DIV"))
