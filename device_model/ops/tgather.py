"""TGATHER: destination[r, c] = source[index[r, c], c], a bit copy of logical rows chosen
per element (asl/tile/irregular-and-complex/layout/TGATHER.asl; the kind: ``ops.indexed``)."""
from .indexed import TileIndexed
from .registry import register

register(TileIndexed("TGATHER", scatter=False))
