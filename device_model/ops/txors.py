"""TXORS: bitwise XOR of each element with a GPR scalar (asl/tile/tile-scalar-and-
immediate/logical/TXORS.asl)."""
from .bitwise import bitwise_xor
from .elementwise import TileScalar
from .registry import register

register(TileScalar("TXORS", bitwise_xor, "TileVecScalarIntegerDataTypeSupported", carrier_logical=True))
