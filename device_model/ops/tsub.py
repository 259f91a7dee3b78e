"""TSUB: difference of two tiles (left - right) (asl/tile/
elementwise-tile-tile/arithmetic/TSUB.asl)."""
from .arithmetic import subtract
from .elementwise import TileBinary
from .registry import register

register(TileBinary("TSUB", subtract, "TileVecArithmeticDataTypeSupported", closed=True))
