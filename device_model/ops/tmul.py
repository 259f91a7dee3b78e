"""TMUL: product of two tiles (asl/tile/elementwise-tile-tile/arithmetic/TMUL.asl)."""
from .arithmetic import multiply
from .elementwise import TileBinary
from .registry import register

register(TileBinary("TMUL", multiply, "TileVecArithmeticDataTypeSupported", closed=True))
