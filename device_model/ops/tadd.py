"""TADD: sum of two tiles (asl/tile/elementwise-tile-tile/arithmetic/TADD.asl)."""
from .arithmetic import add
from .elementwise import TileBinary
from .registry import register

register(TileBinary("TADD", add, "TileVecArithmeticDataTypeSupported", closed=True))
