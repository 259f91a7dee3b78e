"""TRELU: max(element, 0), NaNs to the canonical NaN (asl/tile/elementwise-tile-
tile/logical/TRELU.asl)."""
from .sign import relu
from .elementwise import TileUnary
from .registry import register

register(TileUnary("TRELU", relu, "TileVecArithmeticDataTypeSupported"))
