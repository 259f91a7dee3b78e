"""TAND: bitwise AND of two tiles (asl/tile/elementwise-tile-tile/logical/TAND.asl)."""
from .bitwise import bitwise_and
from .elementwise import TileBinary
from .registry import register

register(TileBinary("TAND", bitwise_and, "TileVecScalarIntegerDataTypeSupported", closed=False))
