"""TREM: remainder of two tiles (floor modulo for signed and floating types) (asl/tile/
elementwise-tile-tile/transcendental/TREM.asl)."""
from .arithmetic import remainder
from .elementwise import TileBinary
from .registry import register

register(TileBinary("TREM", remainder, "TileVecArithmeticDataTypeSupported", closed=True, divides=True))
