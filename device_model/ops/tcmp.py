"""TCMP: compare two tiles into a packed predicate tile (asl/tile/elementwise-tile-tile/logical/TCMP.asl)."""
from .predicate import TileCompare, compare
from .registry import register

register(TileCompare("TCMP", compare))
