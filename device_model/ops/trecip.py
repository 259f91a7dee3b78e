"""TRECIP: reciprocal of each element (asl/tile/elementwise-tile-tile/transcendental/TRECIP.asl)."""
from .sfu import reciprocal
from .elementwise import TileUnary
from .registry import register

register(TileUnary("TRECIP", reciprocal, "TileFloatingElementwiseDataTypeSupported", closed=False))
