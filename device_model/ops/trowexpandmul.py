"""TROWEXPANDMUL: product, row broadcast (asl/tile/reduce-and-expand/row-expansion/TROWEXPANDMUL.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TROWEXPANDMUL", "Row", "MUL"))
