"""TCI: an ascending or descending typed integer sequence in a new single-row tile
(asl/tile/irregular-and-complex/initialization/TCI.asl; the kind: ``ops.generation``)."""
from .generation import TileGenerate
from .registry import register

register(TileGenerate("TCI", value="start", flag="descending"))
