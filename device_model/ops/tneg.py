"""TNEG: negation of each element (asl/tile/elementwise-tile-tile/logical/TNEG.asl)."""
from .sign import negate
from .elementwise import TileUnary
from .registry import register

register(TileUnary("TNEG", negate, "TileVecArithmeticDataTypeSupported"))
