"""TROWMIN: the minimum of each valid row (asl/tile/reduce-and-expand/row-reduction/TROWMIN.asl)."""
from .reduce_expand import TileReduction
from .registry import register

register(TileReduction("TROWMIN", "MIN", "Row"))
