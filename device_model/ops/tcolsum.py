"""TCOLSUM: the sum of each valid column (asl/tile/reduce-and-expand/column-reduction/TCOLSUM.asl)."""
from .reduce_expand import TileReduction
from .registry import register

register(TileReduction("TCOLSUM", "SUM", "Column"))
