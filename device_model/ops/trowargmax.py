"""TROWARGMAX: the lowest column index of each row maximum (asl/tile/reduce-and-expand/row-reduction/TROWARGMAX.asl)."""
from .reduce_expand import TileReduction
from .registry import register

register(TileReduction("TROWARGMAX", "ARGMAX", "Row"))
