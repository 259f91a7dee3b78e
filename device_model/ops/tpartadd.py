"""TPARTADD: sum on the overlap of two origin-anchored sources, bit copy elsewhere
(asl/tile/irregular-and-complex/union/TPARTADD.asl)."""
from .partial import TilePartial
from .registry import register

register(TilePartial("TPARTADD", "ADD"))
