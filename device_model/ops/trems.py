"""TREMS: remainder of each element by a GPR scalar (asl/tile/
tile-scalar-and-immediate/arithmetic/TREMS.asl)."""
from .arithmetic import remainder
from .elementwise import TileScalar
from .registry import register

register(TileScalar("TREMS", remainder, "TileVecArithmeticDataTypeSupported", divides=True))
