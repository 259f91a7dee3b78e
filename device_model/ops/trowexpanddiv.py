"""TROWEXPANDDIV: quotient, row broadcast (asl/tile/reduce-and-expand/row-expansion/TROWEXPANDDIV.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TROWEXPANDDIV", "Row", "DIV"))
