"""TMOV: the Local copy of one tile's payload and definedness into a renamed destination
(asl/tile/layout-and-rearrangement/layout/TMOV.asl; BSTART.TMOV Function 2; the kind is
``movement.TileMove``)."""
from .movement import TileMove
from .registry import register

register(TileMove("TMOV", "BSTART.TMOV"))
