"""TMAX: elementwise maximum of two tiles (asl/tile/elementwise-tile-tile/arithmetic/TMAX.asl)."""
from .minmax import maximum
from .elementwise import TileBinary
from .registry import register

register(TileBinary("TMAX", maximum,
                    "TileVecArithmeticDataTypeSupported", closed=True, checks_encodings=True))
