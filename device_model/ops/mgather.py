"""MGATHER: load one element per index lane at base + byte displacement into a new tile
(asl/tile/memory-and-data-movement/irregular/MGATHER.asl; the kind: gather_scatter.py)."""
from .gather_scatter import DESTINATION, IndexedMemoryFlow
from .registry import register

register(IndexedMemoryFlow("MGATHER", "BSTART.MGATHER", [("indices", DESTINATION)]))
