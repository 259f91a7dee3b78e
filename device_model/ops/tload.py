"""TLOAD: load one Local rectangle from global memory
(asl/tile/memory-and-data-movement/regular/TLOAD.asl; TLOAD in asl/tile/model/memory/load-store.asl).

The destination is allocated from the block's B.IOT (LB0 ValidCol, LB1 ValidRow, LB2 Col);
each valid element (row, col) is read at base + row * stride + col * element_bytes (a 4-bit
element's containing byte at base + row * stride + col // 2, its nibble by the column's
parity) after the whole footprint is probed; every access records a Load event; the valid
region becomes defined, the rest of the new tile stays undefined."""
import numpy as np

from ..faults import tile_allocation, tile_legality
from ..state import allocation_bytes, cube_shape_legal, descriptor_legal, new_cube_tile
from .common import Publication, result_tile
from .memory_flow import RegularTransfer, shared_load, strided_footprint
from .registry import register


class TileLoad(RegularTransfer):
    DESTINATIONS = 1
    CUBE_LAYOUT_CODES = frozenset({21, 22, 23})  # ND2M32, ND2M16, ND2N8

    def cube_transfer(self, state, block, dtype, layout, valid_rows, valid_cols, base, stride):
        """ResolveBundleCubeTransportDestination (shape or capacity: Fault_TileAllocation), then TLOAD
        into CUBE storage and the encoded PadValue over the physical tail (TileWithPadding)."""
        binding = block.bindings[0]
        size = binding.size_bytes
        if (not cube_shape_legal(size, valid_rows, valid_cols, dtype, layout, state.tile_capacity)
                or state.core_capacity_in_use() + allocation_bytes(binding.mask, size) > state.tile_capacity):
            raise tile_allocation(f"{self.NAME}: TSize {size} B cannot hold a {layout} {dtype.name} tile of valid "
                                  f"{valid_rows}x{valid_cols} within the tile capacity")
        hand = binding.hand
        index = next((i for i in range(hand * 16, hand * 16 + 16) if state.tiles[i] is None), None)
        if index is None:
            raise tile_allocation(f"no free TileIndex in hand {'TUMN'[hand]}")
        tile = new_cube_tile(dtype, layout, size, valid_rows, valid_cols, binding.mask)
        footprint = self.probed(strided_footprint(base, stride, valid_rows, valid_cols, dtype, write=False), state)
        values, events = self.loaded(state, footprint, dtype, valid_rows, valid_cols)
        return Publication(tiles={index: result_tile(tile, values, block.pad())}, events=events)

    def shared_commit(self, state, block, profile: str):
        """A Shared destination (B.IOS ->S<n><SizeCode>): ``memory_flow.shared_load``."""
        return shared_load(self, state, block)

    def memory_operands(self, state, block, index, tile) -> dict:
        base, stride = self.base_and_stride(state, block, tile.cols)
        if not descriptor_legal(tile, state.tile_capacity):  # TileOperandsLegal_TLOAD
            raise tile_legality(f"{self.NAME}: the destination descriptor is not legal")
        return {"tile": tile, "base": base, "stride": stride}

    def transfer(self, state, block, operands, footprint, index):
        tile = operands["tile"]
        values, events = self.loaded(state, footprint, tile.dtype, tile.valid_rows, tile.valid_cols)
        payload, defined = tile.payload.copy(), tile.defined.copy()
        payload[tile.valid_index] = values & np.uint64(tile.element_mask)
        defined[tile.valid_index] = True
        return Publication(tiles={index: tile.with_contents(payload, defined)}, events=events)


register(TileLoad("TLOAD", "BSTART.TLOAD"))
