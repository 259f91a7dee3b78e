"""TRSQRT: 1 / sqrt of each element, one rounding (asl/tile/
elementwise-tile-tile/transcendental/TRSQRT.asl)."""
from .sfu import reciprocal_square_root
from .elementwise import TileUnary
from .registry import register

register(TileUnary("TRSQRT", reciprocal_square_root,
                   "TileFloatingElementwiseDataTypeSupported", closed=False))
