"""TCOLMIN: the minimum of each valid column (asl/tile/reduce-and-expand/column-reduction/TCOLMIN.asl)."""
from .reduce_expand import TileReduction
from .registry import register

register(TileReduction("TCOLMIN", "MIN", "Column"))
