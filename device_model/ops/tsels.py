"""TSELS: select each element's carrier from a tile or a GPR scalar under a predicate
tile (asl/tile/tile-scalar-and-immediate/logical/TSELS.asl)."""
from .predicate import TileSelectScalar, select
from .registry import register

register(TileSelectScalar("TSELS", select))
