"""TMRGSORT (asl/tile/irregular-and-complex/sorting/TMRGSORT.asl): two sorted single-row
streams merged stably, left first, into one new destination (``sorting.py``)."""
from .registry import register
from .sorting import TileMerge

register(TileMerge("TMRGSORT"))
