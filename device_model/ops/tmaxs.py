"""TMAXS: maximum of each element and a GPR scalar (asl/tile/tile-scalar-and-
immediate/arithmetic/TMAXS.asl)."""
from .minmax import maximum
from .elementwise import TileScalar
from .registry import register

register(TileScalar("TMAXS", maximum, "TileVecArithmeticDataTypeSupported"))
