"""MGATHER_MASK: MGATHER of the lanes whose predicate bit is one; the others take the pad
(asl/tile/memory-and-data-movement/irregular/MGATHER_MASK.asl; the kind: gather_scatter.py)."""
from .gather_scatter import DESTINATION, IndexedMemoryFlow
from .registry import register

register(IndexedMemoryFlow("MGATHER_MASK", "BSTART.MGATHER.MASK", [("indices", "mask", DESTINATION)]))
