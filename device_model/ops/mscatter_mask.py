"""MSCATTER_MASK: MSCATTER of the lanes whose predicate bit is one
(asl/tile/memory-and-data-movement/irregular/MSCATTER_MASK.asl; the kind: gather_scatter.py)."""
from .gather_scatter import IndexedMemoryFlow
from .registry import register

register(IndexedMemoryFlow("MSCATTER_MASK", "BSTART.MSCATTER.MASK", [("source", "indices"), ("mask",)]))
