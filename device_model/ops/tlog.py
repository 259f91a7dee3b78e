"""TLOG: natural logarithm of each element (asl/tile/
elementwise-tile-tile/transcendental/TLOG.asl)."""
from .sfu import logarithm
from .elementwise import TileUnary
from .registry import register

register(TileUnary("TLOG", logarithm, "TileFloatingElementwiseDataTypeSupported", closed=False))
