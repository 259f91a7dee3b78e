"""TSORT (asl/tile/irregular-and-complex/sorting/TSORT.asl): row groups sorted stably,
values and original within-group U32 indices in two new destinations (``sorting.py``)."""
from .registry import register
from .sorting import TileSort

register(TileSort("TSORT"))
