"""TSUBS: each element minus a GPR scalar (asl/tile/
tile-scalar-and-immediate/arithmetic/TSUBS.asl)."""
from .arithmetic import subtract
from .elementwise import TileScalar
from .registry import register

register(TileScalar("TSUBS", subtract, "TileVecArithmeticDataTypeSupported"))
