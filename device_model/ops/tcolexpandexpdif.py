"""TCOLEXPANDEXPDIF: exponential of the difference, column broadcast (asl/tile/reduce-and-expand/column-expansion/TCOLEXPANDEXPDIF.asl)."""
from .expansion import TileExpand
from .registry import register

register(TileExpand("TCOLEXPANDEXPDIF", "Column", "EXPDIF"))
