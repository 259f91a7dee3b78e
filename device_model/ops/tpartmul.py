"""TPARTMUL: product on the overlap of two origin-anchored sources, bit copy elsewhere
(asl/tile/irregular-and-complex/union/TPARTMUL.asl)."""
from .partial import TilePartial
from .registry import register

register(TilePartial("TPARTMUL", "MUL"))
