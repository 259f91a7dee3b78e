"""TMINS: minimum of each element and a GPR scalar (asl/tile/tile-scalar-and-
immediate/arithmetic/TMINS.asl)."""
from .minmax import minimum
from .elementwise import TileScalar
from .registry import register

register(TileScalar("TMINS", minimum, "TileVecArithmeticDataTypeSupported"))
