"""TANDS: bitwise AND of each element with a GPR scalar (asl/tile/tile-scalar-and-
immediate/logical/TANDS.asl)."""
from .bitwise import bitwise_and
from .elementwise import TileScalar
from .registry import register

register(TileScalar("TANDS", bitwise_and, "TileVecScalarIntegerDataTypeSupported", carrier_logical=True))
