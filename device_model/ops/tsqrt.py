"""TSQRT: square root of each element (asl/tile/elementwise-tile-tile/transcendental/TSQRT.asl)."""
from .sfu import square_root
from .elementwise import TileUnary
from .registry import register

register(TileUnary("TSQRT", square_root, "TileFloatingElementwiseDataTypeSupported", closed=False))
