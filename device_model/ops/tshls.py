"""TSHLS: each element shifted left by a GPR count (asl/tile/tile-scalar-and-
immediate/logical/TSHLS.asl)."""
from .shifts import shift_left
from .elementwise import TileScalar
from .registry import register

register(TileScalar("TSHLS", shift_left, "TileVecScalarIntegerDataTypeSupported"))
