"""TADDS: each element plus a GPR scalar (asl/tile/
tile-scalar-and-immediate/arithmetic/TADDS.asl)."""
from .arithmetic import add
from .elementwise import TileScalar
from .registry import register

register(TileScalar("TADDS", add, "TileVecArithmeticDataTypeSupported"))
