"""TSEL: select each element's carrier from two tiles under a predicate tile
(asl/tile/elementwise-tile-tile/logical/TSEL.asl)."""
from .predicate import TileSelect, select
from .registry import register

register(TileSelect("TSEL", select))
