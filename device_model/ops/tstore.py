"""TSTORE: store one Local rectangle to global memory
(asl/tile/memory-and-data-movement/regular/TSTORE.asl; TSTORE in asl/tile/model/memory/load-store.asl).

The source (one B.IOT source binding) must be a legal, fully defined tile; its valid region
is written at the strided addresses of TLOAD after the whole footprint is probed (a later
element at the same address wins; a 4-bit element writes its nibble of the containing
byte). Each access records a Store event with the value it stores. The source and every
tile stay as they were; padding is never stored."""
from .. import memory
from ..faults import tile_legality
from ..state import cube_descriptor_legal, descriptor_configured, source_contents_defined
from .common import Publication
from .memory_flow import ORDER, RegularTransfer, shared_store
from .registry import register


class TileStore(RegularTransfer):
    WRITE = True
    SOURCES = 1
    CUBE_LAYOUT_CODES = frozenset({24, 25, 26})  # M322ND, M162ND, N82ND

    def cube_transfer(self, state, block, dtype, layout, valid_rows, valid_cols, base, stride):
        """The source must be an exact, defined CUBE descriptor of the block's type, layout and
        valid shape whose allocation mask holds the binding's (Fault_TileLegality); only its
        valid elements are stored, through CUBE storage indices."""
        binding = block.bindings[0]
        source = state.tiles[binding.sources[0]]
        if (not cube_descriptor_legal(source, state.tile_capacity) or not source.contents_defined()
                or source.dtype.name != dtype.name or source.layout != layout
                or (source.valid_rows, source.valid_cols) != (valid_rows, valid_cols)
                or source.mask & binding.mask != binding.mask):
            raise tile_legality(f"{self.NAME}: the source is not a defined {layout} {dtype.name} tile of valid "
                                f"{valid_rows}x{valid_cols} allocated on the binding's PEs")
        operands = {"tile": source, "base": base, "stride": stride}
        return self.transfer(state, block, operands, self.probed(self.memory_footprint(state, operands), state), None)

    def shared_commit(self, state, block, profile: str):
        """A Shared source (B.IOS): Function 1 on all four PEs, or TSTORE.SPART (Function 14) on any
        nonzero subset (``memory_flow.shared_store``)."""
        return shared_store(self, state, block, 14 if block.form == "BSTART.TSTORE.SPART" else 1)

    def memory_operands(self, state, block, index, tile) -> dict:
        source = state.tiles[block.sources()[0]]
        # BundleDestinationPhysicalColumns(source): LB2, else the configured source's columns, else LB0, else 1
        columns = block.dims[2] or (source.cols if descriptor_configured(source, state.tile_capacity)
                                    else block.dims[0] or 1)
        base, stride = self.base_and_stride(state, block, columns)
        if not source_contents_defined(source, state.tile_capacity):  # TileSourceContentsDefined, TileOperandsLegal_TSTORE
            raise tile_legality(f"{self.NAME}: the source is not a legal, fully defined tile")
        return {"tile": source, "base": base, "stride": stride}

    def transfer(self, state, block, operands, footprint, index):
        values = operands["tile"].valid_words().ravel()
        return Publication(memory=memory.write(state.memory, footprint, values),
                           events=tuple(memory.store_events(state.memory, footprint, values, ORDER,
                                                            self.event_room(state))))


register(TileStore("TSTORE", "BSTART.TSTORE"))
