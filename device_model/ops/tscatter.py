"""TSCATTER: a zero-filled destination with destination[index[r, c], c] = source[r, c];
a duplicate target is illegal (asl/tile/irregular-and-complex/layout/TSCATTER.asl; the
kind: ``ops.indexed``)."""
from .indexed import TileIndexed
from .registry import register

register(TileIndexed("TSCATTER", scatter=True))
