"""TOR: bitwise OR of two tiles (asl/tile/elementwise-tile-tile/logical/TOR.asl)."""
from .bitwise import bitwise_or
from .elementwise import TileBinary
from .registry import register

register(TileBinary("TOR", bitwise_or, "TileVecScalarIntegerDataTypeSupported", closed=False))
