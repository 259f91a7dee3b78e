"""TFMA: left * right + addend, rounded once (asl/tile/
elementwise-tile-tile/arithmetic/TFMA.asl)."""
from .arithmetic import fused_multiply_add
from .elementwise import TileFusedMultiplyAdd
from .registry import register

register(TileFusedMultiplyAdd("TFMA", fused_multiply_add, "TileVecArithmeticDataTypeSupported"))
