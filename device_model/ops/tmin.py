"""TMIN: elementwise minimum of two tiles (asl/tile/elementwise-tile-tile/arithmetic/TMIN.asl)."""
from .minmax import minimum
from .elementwise import TileBinary
from .registry import register

register(TileBinary("TMIN", minimum,
                    "TileVecArithmeticDataTypeSupported", closed=True, checks_encodings=True))
