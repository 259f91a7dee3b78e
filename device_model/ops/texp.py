"""TEXP: natural exponential of each element (asl/tile/
elementwise-tile-tile/transcendental/TEXP.asl)."""
from .sfu import exponential
from .elementwise import TileUnary
from .registry import register

register(TileUnary("TEXP", exponential, "TileFloatingElementwiseDataTypeSupported", closed=False))
