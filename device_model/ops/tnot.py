"""TNOT: bitwise NOT of a tile (asl/tile/elementwise-tile-tile/logical/TNOT.asl)."""
from .bitwise import bitwise_not
from .elementwise import TileUnary
from .registry import register

register(TileUnary("TNOT", bitwise_not, "TileVecScalarIntegerDataTypeSupported"))
