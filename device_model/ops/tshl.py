"""TSHL: each element shifted left by the other tile's count (asl/tile/elementwise-tile-
tile/logical/TSHL.asl)."""
from .shifts import shift_left
from .elementwise import TileBinary
from .registry import register

register(TileBinary("TSHL", shift_left, "TileVecScalarIntegerDataTypeSupported", closed=False))
