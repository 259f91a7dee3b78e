"""TPARTMAX: maximum on the overlap of two origin-anchored sources, bit copy elsewhere
(asl/tile/irregular-and-complex/union/TPARTMAX.asl)."""
from .partial import TilePartial
from .registry import register

register(TilePartial("TPARTMAX", "MAX"))
