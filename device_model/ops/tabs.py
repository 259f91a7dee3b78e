"""TABS: absolute value of each element (asl/tile/elementwise-tile-tile/logical/TABS.asl)."""
from .sign import absolute
from .elementwise import TileUnary
from .registry import register

register(TileUnary("TABS", absolute, "TileVecArithmeticDataTypeSupported"))
