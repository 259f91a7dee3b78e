"""TCOLARGMAX: the lowest row index of each column maximum (asl/tile/reduce-and-expand/column-reduction/TCOLARGMAX.asl)."""
from .reduce_expand import TileReduction
from .registry import register

register(TileReduction("TCOLARGMAX", "ARGMAX", "Column"))
