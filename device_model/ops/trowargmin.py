"""TROWARGMIN: the lowest column index of each row minimum (asl/tile/reduce-and-expand/row-reduction/TROWARGMIN.asl)."""
from .reduce_expand import TileReduction
from .registry import register

register(TileReduction("TROWARGMIN", "ARGMIN", "Row"))
