"""TROWEXPAND: copy of the broadcast element, row broadcast (asl/tile/reduce-and-expand/row-expansion/TROWEXPAND.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TROWEXPAND", "Row", "COPY"))
