"""TSHR: each element shifted right (arithmetic for signed types) by the other tile's count
(asl/tile/elementwise-tile-tile/logical/TSHR.asl)."""
from .shifts import shift_right
from .elementwise import TileBinary
from .registry import register

register(TileBinary("TSHR", shift_right, "TileVecScalarIntegerDataTypeSupported", closed=False))
