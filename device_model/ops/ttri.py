"""TTRI: an exact typed lower or upper triangular matrix in a new tile
(asl/tile/irregular-and-complex/initialization/TTRI.asl; the kind: ``ops.generation``)."""
from .generation import TileGenerate
from .registry import register

register(TileGenerate("TTRI", value="diagonal", flag="upper"))
