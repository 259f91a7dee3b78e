"""TSTORE: store one Local rectangle to global memory
(asl/tile/memory-and-data-movement/regular/TSTORE.asl; TSTORE in asl/tile/model/memory/load-store.asl).

The source (one B.IOT source binding) must be a legal, fully defined tile; its valid region
is written at the strided addresses of TLOAD after the whole footprint is probed (a later
element at the same address wins; a 4-bit element writes its nibble of the containing
byte). Each access records a Store event with the value it stores. The source and every
tile stay as they were; padding is never stored."""
from .. import memory
from ..faults import tile_legality
from ..state import descriptor_configured, source_contents_defined
from .common import Publication
from .memory_flow import ORDER, MemoryFlow, strided_footprint
from .registry import register


class TileStore(MemoryFlow):
    SOURCES = 1

    def memory_operands(self, state, block, index, tile) -> dict:
        source = state.tiles[block.sources()[0]]
        # BundleDestinationPhysicalColumns(source): LB2, else the configured source's columns, else LB0, else 1
        columns = block.dims[2] or (source.cols if descriptor_configured(source, state.tile_capacity)
                                    else block.dims[0] or 1)
        base, stride = self.base_and_stride(state, block, columns)
        if not source_contents_defined(source, state.tile_capacity):  # TileSourceContentsDefined, TileOperandsLegal_TSTORE
            raise tile_legality(f"{self.NAME}: the source is not a legal, fully defined tile")
        return {"tile": source, "base": base, "stride": stride}

    def memory_footprint(self, state, operands) -> memory.Footprint:
        tile = operands["tile"]
        return strided_footprint(operands["base"], operands["stride"], tile.valid_rows, tile.valid_cols,
                                 tile.dtype, write=True)

    def transfer(self, state, block, operands, footprint, index):
        values = operands["tile"].valid_words().ravel()
        room = memory.MEMORY_EVENT_LIMIT - len(state.memory_events)
        return Publication(memory=memory.write(state.memory, footprint, values),
                           events=tuple(memory.store_events(state.memory, footprint, values, ORDER, room)))


register(TileStore("TSTORE", "BSTART.TSTORE"))
