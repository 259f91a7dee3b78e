"""TCOLARGMIN: the lowest row index of each column minimum (asl/tile/reduce-and-expand/column-reduction/TCOLARGMIN.asl)."""
from .reduce_expand import TileReduction
from .registry import register

register(TileReduction("TCOLARGMIN", "ARGMIN", "Column"))
