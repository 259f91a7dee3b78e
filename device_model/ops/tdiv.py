"""TDIV: quotient of two tiles (numerator / denominator) (asl/tile/
elementwise-tile-tile/transcendental/TDIV.asl)."""
from .arithmetic import divide
from .elementwise import TileBinary
from .registry import register

register(TileBinary("TDIV", divide, "TileVecArithmeticDataTypeSupported", closed=True, divides=True))
