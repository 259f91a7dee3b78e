"""GMOV: the Core4 peer copy of one resolved Local fragment
(asl/tile/memory-and-data-movement/pe-movement/GMOV.asl; BSTART.GMOV, TLSU Function 13; the
kind is ``movement.PeerMove``)."""
from .movement import PeerMove
from .registry import register

register(PeerMove("GMOV", "BSTART.GMOV"))
