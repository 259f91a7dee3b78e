"""TCMPS: compare a tile with a GPR scalar into a packed predicate tile
(asl/tile/tile-scalar-and-immediate/logical/TCMPS.asl)."""
from .predicate import TileCompareScalar, compare
from .registry import register

register(TileCompareScalar("TCMPS", compare))
