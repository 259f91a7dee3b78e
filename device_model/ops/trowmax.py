"""TROWMAX: the maximum of each valid row (asl/tile/reduce-and-expand/row-reduction/TROWMAX.asl)."""
from .reduce_expand import TileReduction
from .registry import register

register(TileReduction("TROWMAX", "MAX", "Row"))
