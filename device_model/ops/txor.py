"""TXOR: bitwise XOR of two tiles (asl/tile/elementwise-tile-tile/logical/TXOR.asl)."""
from .bitwise import bitwise_xor
from .elementwise import TileBinary
from .registry import register

register(TileBinary("TXOR", bitwise_xor, "TileVecScalarIntegerDataTypeSupported", closed=False))
