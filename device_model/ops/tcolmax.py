"""TCOLMAX: the maximum of each valid column (asl/tile/reduce-and-expand/column-reduction/TCOLMAX.asl)."""
from .reduce_expand import TileReduction
from .registry import register

register(TileReduction("TCOLMAX", "MAX", "Column"))
