"""TSHRS: each element shifted right (arithmetic for signed types) by a GPR count (asl/tile/tile-
scalar-and-immediate/logical/TSHRS.asl)."""
from .shifts import shift_right
from .elementwise import TileScalar
from .registry import register

register(TileScalar("TSHRS", shift_right, "TileVecScalarIntegerDataTypeSupported"))
