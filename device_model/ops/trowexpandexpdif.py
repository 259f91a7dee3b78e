"""TROWEXPANDEXPDIF: exponential of the difference, row broadcast (asl/tile/reduce-and-expand/row-expansion/TROWEXPANDEXPDIF.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TROWEXPANDEXPDIF", "Row", "EXPDIF"))
