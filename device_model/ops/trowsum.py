"""TROWSUM: the sum of each valid row (asl/tile/reduce-and-expand/row-reduction/TROWSUM.asl)."""
from .reduce_expand import TileReduction
from .registry import register

register(TileReduction("TROWSUM", "SUM", "Row"))
