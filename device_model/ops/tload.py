"""TLOAD: load one Local rectangle from global memory
(asl/tile/memory-and-data-movement/regular/TLOAD.asl; TLOAD in asl/tile/model/memory/load-store.asl).

The destination is allocated from the block's B.IOT (LB0 ValidCol, LB1 ValidRow, LB2 Col);
each valid element (row, col) is read at base + row * stride + col * element_bytes (a 4-bit
element's containing byte at base + row * stride + col // 2, its nibble by the column's
parity) after the whole footprint is probed; every access records a Load event; the valid
region becomes defined, the rest of the new tile stays undefined."""
import numpy as np

from .. import memory
from ..faults import tile_legality
from ..state import descriptor_legal
from .common import Publication
from .memory_flow import ORDER, MemoryFlow, decode_loaded, strided_footprint
from .registry import register


class TileLoad(MemoryFlow):
    DESTINATIONS = 1

    def memory_operands(self, state, block, index, tile) -> dict:
        base, stride = self.base_and_stride(state, block, tile.cols)
        if not descriptor_legal(tile, state.tile_capacity):  # TileOperandsLegal_TLOAD
            raise tile_legality(f"{self.NAME}: the destination descriptor is not legal")
        return {"tile": tile, "base": base, "stride": stride}

    def memory_footprint(self, state, operands) -> memory.Footprint:
        tile = operands["tile"]
        return strided_footprint(operands["base"], operands["stride"], tile.valid_rows, tile.valid_cols,
                                 tile.dtype, write=False)

    def transfer(self, state, block, operands, footprint, index):
        tile = operands["tile"]
        raw = memory.read(state.memory, footprint)
        values = decode_loaded(raw, tile.dtype, footprint.nibble).reshape(tile.valid_rows, tile.valid_cols)
        payload, defined = tile.payload.copy(), tile.defined.copy()
        payload[tile.valid_index] = values & np.uint64(tile.element_mask)
        defined[tile.valid_index] = True
        room = memory.MEMORY_EVENT_LIMIT - len(state.memory_events)
        return Publication(tiles={index: tile.with_contents(payload, defined)},
                           events=tuple(memory.load_events(footprint, raw, ORDER, room)))


register(TileLoad("TLOAD", "BSTART.TLOAD"))
