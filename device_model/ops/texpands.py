"""TEXPANDS: a new tile whose valid elements all hold a GPR scalar's raw element
(asl/tile/tile-scalar-and-immediate/initialization/TEXPANDS.asl; no encoding
check: ExecuteTileFillScalar writes TileRawElementValue as it is)."""
from .elementwise import TileFill
from .registry import register


def fill(dtype, profile, scalar):
    return scalar, 0


register(TileFill("TEXPANDS", fill, "TileVecArithmeticDataTypeSupported"))
