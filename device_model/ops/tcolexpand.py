"""TCOLEXPAND: copy of the broadcast element, column broadcast (asl/tile/reduce-and-expand/column-expansion/TCOLEXPAND.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TCOLEXPAND", "Column", "COPY"))
