"""TPREFETCH: request one typed, strided rectangle for all four PEs, with no destination
(asl/tile/memory-and-data-movement/regular/TPREFETCH.asl; ExecuteBundleTPREFETCHOperation in
asl/block/model/dispatch/tlsu-prefetch.asl; TPREFETCHCore in asl/tile/model/memory/gather-scatter.asl).

The block binds no tile (implicit participation 1111). LB0 ValidCol and LB1 ValidRow default
to 1, LB2 Col to ValidCol; an encoded zero is illegal. Each PE p reads B.IOR RegSrc0 (base)
and RegSrc1 (row stride in *elements*) from its own GPR file; without B.IOR the base is 0 and
the stride Col. Element (row, col) of PE p is at base_p + (row * stride_p + col) *
element_bytes (4-bit: + index // 2). Every access of every PE is probed before the first
event; then PE 0's loads, PE 1's, ... record Load events of their agent. No tile changes."""
import numpy as np

from .. import memory
from ..faults import tile_legality
from ..layouts import MODEL_TILE_ELEMENTS
from .common import Publication
from .memory_flow import ORDER, MemoryFlow, element_bytes
from .registry import register

U64 = np.uint64


def carrier_or_packed_baseline(dtype) -> bool:
    """TileCarrierOrPackedBaselineDataTypeSupported: a 4-bit type, or a non-packed type of at most 4 bytes."""
    return dtype.bits <= 32


class TilePrefetch(MemoryFlow):
    def commit_bundle(self, state, block, profile: str):
        if not carrier_or_packed_baseline(block.data_type):
            raise tile_legality(f"{self.NAME}: {block.data_type.name} is not a carrier or packed baseline type")
        return super().commit_bundle(state, block, profile)

    def bindings_check(self, state, block) -> None:
        """No B.IOT or B.IOS, B.IOR RegSrc2/RegDst zero, legal dimensions: else Fault_TileLegality."""
        if block.bindings or block.shared or not block.scalar_schema_legal(self.GPR_INPUTS):
            raise tile_legality(f"{self.NAME} takes no tile binding and B.IOR RegSrc0/RegSrc1 only")
        if any(d == 0 for d in block.dims if d is not None):
            raise tile_legality(f"{self.NAME}: an encoded zero dimension is illegal")
        valid_cols, valid_rows, cols = self._shape(block)
        if not (valid_cols <= cols and cols & (cols - 1) == 0 and valid_rows * valid_cols <= MODEL_TILE_ELEMENTS):
            raise tile_legality(f"{self.NAME}: ValidCol {valid_cols} x ValidRow {valid_rows} within Col {cols} "
                                f"(a power of two) and at most {MODEL_TILE_ELEMENTS} elements")

    @staticmethod
    def _shape(block) -> tuple:
        valid_cols = block.dims[0] or 1
        valid_rows = block.dims[1] or 1
        return valid_cols, valid_rows, block.dims[2] or valid_cols

    def memory_operands(self, state, block, index, tile) -> dict:
        valid_cols, valid_rows, cols = self._shape(block)
        if block.ior is not None:
            bases = [state.read_pe_gpr(pe, block.ior["RegSrc0"]) for pe in range(memory.MEMORY_AGENTS)]
            strides = [state.read_pe_gpr(pe, block.ior["RegSrc1"]) for pe in range(memory.MEMORY_AGENTS)]
        else:
            bases, strides = [0] * memory.MEMORY_AGENTS, [cols] * memory.MEMORY_AGENTS
        return {"bases": bases, "strides": strides, "valid_rows": valid_rows, "valid_cols": valid_cols,
                "dtype": block.data_type}

    def memory_footprint(self, state, operands) -> memory.Footprint:
        """TileMemoryStridedIndex then TileMemoryIndexedAddress, PE-major then row-major."""
        dtype, rows, cols = operands["dtype"], operands["valid_rows"], operands["valid_cols"]
        bases = np.array(operands["bases"], dtype=np.uint64)[:, None, None]
        strides = np.array(operands["strides"], dtype=np.uint64)[:, None, None]
        index = np.arange(rows, dtype=np.uint64)[None, :, None] * strides + np.arange(cols, dtype=np.uint64)[None, None, :]
        if dtype.bits == 4:
            addresses = bases + (index >> U64(1))
        else:
            addresses = bases + index * U64(dtype.bits // 8)
        agents = np.repeat(np.arange(memory.MEMORY_AGENTS, dtype=np.uint8), rows * cols)
        return memory.Footprint(addresses.ravel(), element_bytes(dtype), False, agents=agents)

    def transfer(self, state, block, operands, footprint, index):
        raw = memory.read(state.memory, footprint)
        room = memory.MEMORY_EVENT_LIMIT - len(state.memory_events)
        return Publication(events=tuple(memory.load_events(footprint, raw, ORDER, room)))


register(TilePrefetch("TPREFETCH", "BSTART.TPREFETCH"))
