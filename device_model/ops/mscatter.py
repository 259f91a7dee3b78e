"""MSCATTER: store each source element at base + its index lane's byte displacement
(asl/tile/memory-and-data-movement/irregular/MSCATTER.asl; the kind: gather_scatter.py)."""
from .gather_scatter import IndexedMemoryFlow
from .registry import register

register(IndexedMemoryFlow("MSCATTER", "BSTART.MSCATTER", [("source", "indices")]))
