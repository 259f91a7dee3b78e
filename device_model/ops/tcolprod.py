"""TCOLPROD: the product of each valid column (asl/tile/reduce-and-expand/column-reduction/TCOLPROD.asl)."""
from .reduce_expand import TileReduction
from .registry import register

register(TileReduction("TCOLPROD", "PROD", "Column"))
