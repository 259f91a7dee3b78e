"""TORS: bitwise OR of each element with a GPR scalar (asl/tile/tile-scalar-and-
immediate/logical/TORS.asl)."""
from .bitwise import bitwise_or
from .elementwise import TileScalar
from .registry import register

register(TileScalar("TORS", bitwise_or, "TileVecScalarIntegerDataTypeSupported", carrier_logical=True))
