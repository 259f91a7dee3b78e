"""TCOLEXPANDMUL: product, column broadcast (asl/tile/reduce-and-expand/column-expansion/TCOLEXPANDMUL.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TCOLEXPANDMUL", "Column", "MUL"))
