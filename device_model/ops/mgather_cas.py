"""MGATHER_CAS: one atomic compare-and-swap per index lane; the destination observes the old
values (asl/tile/memory-and-data-movement/irregular/MGATHER_CAS.asl; the kind: gather_scatter.py)."""
from .gather_scatter import DESTINATION, IndexedMemoryFlow
from .registry import register

register(IndexedMemoryFlow("MGATHER_CAS", "BSTART.MGATHER.CAS", [("indices", "expected"), ("replacement", DESTINATION)]))
