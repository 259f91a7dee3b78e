"""TDIVS: each element divided by a GPR scalar (asl/tile/
tile-scalar-and-immediate/arithmetic/TDIVS.asl)."""
from .arithmetic import divide
from .elementwise import TileScalar
from .registry import register

register(TileScalar("TDIVS", divide, "TileVecArithmeticDataTypeSupported", divides=True))
