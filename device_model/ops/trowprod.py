"""TROWPROD: the product of each valid row (asl/tile/reduce-and-expand/row-reduction/TROWPROD.asl)."""
from .reduce_expand import TileReduction
from .registry import register

register(TileReduction("TROWPROD", "PROD", "Row"))
