"""The memory flow: the kind of the regular TLSU operations (TLOAD, TSTORE, TPREFETCH),
and the flow the indexed ones (MGATHER.., MSCATTER..) join.

Facts from asl/block/model/dispatch/tile-execution.asl (the Local block order),
tile-schema.asl (BundleTileInstructionOperands: B.IOR RegSrc0 is the GM base, RegSrc1 the
row stride; an omitted B.IOR gives base zero and a dense stride), descriptor-legality.asl
(BundleOperationBindingsComplete), tlsu-prefetch.asl (ExecuteBundleTPREFETCHOperation),
asl/tile/model/memory/{stride,addressing,load-store,gather-scatter}.asl (the footprints
and their preflight) and asl/tile/model/legality/memory-schema.asl (TileOperandsLegal_*).

A declaration states its name, BSTART form, binding counts, and three hooks:

- ``memory_operands(state, block, index, tile) -> dict``: the operands read from the block
  (base address, row stride, the tile the footprint walks), after the bindings are checked
  and the destination (if any) is allocated;
- ``memory_footprint(state, operands) -> memory.Footprint``: every element access, in the
  spec's order; the flow probes it whole (``memory.probe``) before anything is read or
  written, so a data fault leaves tiles, memory and the event log as they were;
- ``transfer(state, block, operands, footprint, index) -> Publication``: the loads or
  stores, the tile it publishes, the new memory image and the events.

The flow raises a ``Fault`` (nothing published) or returns the Publication; it never
writes state itself. A block that binds a Shared register (B.IOS) takes the operation's
``shared_commit``: TLOAD into S<n> (``shared_load``) and TSTORE from it (``shared_store``);
any other operation's Shared form stops the run as ``not modelled``. A CUBE transport Layout (21..26) takes
``cube_transport`` instead (the block routes it there), whose ``cube_transfer`` TLOAD and TSTORE
give: the same footprint over the valid region, the tile in a CUBE layout.
"""
from __future__ import annotations

import numpy as np

from .. import block as blocks
from .. import dtypes, memory
from ..faults import bundle_control, tile_legality
from .common import Publication
from .operation import Operation

U64 = np.uint64
CUBE_LAYOUTS = {21: "CUBE_M32", 22: "CUBE_M16", 23: "CUBE_N8", 24: "CUBE_M32", 25: "CUBE_M16", 26: "CUBE_N8"}
ORDER = "Relaxed"  # the order an operation records; block.commit gives every event its block's B.CATR order


def element_bytes(dtype) -> int:
    """TileMemoryElementBytes: a 4-bit element is a one-byte containing access."""
    return 1 if dtype.bits == 4 else dtype.bits // 8


def dense_row_stride(columns: int, dtype) -> int:
    """TileDenseRowStrideBytes: ceil(columns * element_bits / 8)."""
    return (columns + 1) // 2 if dtype.bits == 4 else columns * (dtype.bits // 8)


def strided_footprint(base: int, stride: int, valid_rows: int, valid_cols: int, dtype, write: bool) -> memory.Footprint:
    """TileMemoryStridedByteAddress over the valid region, row-major: base + row * stride +
    column * element_bytes (4-bit: + column // 2, the nibble from the column's parity), in
    Word arithmetic (mod 2**64)."""
    rows = np.arange(valid_rows, dtype=np.uint64)[:, None]
    cols = np.arange(valid_cols, dtype=np.uint64)[None, :]
    row_base = U64(base) + rows * U64(stride)
    if dtype.bits == 4:
        addresses = row_base + (cols >> U64(1))
        nibble = np.broadcast_to(cols & U64(1), (valid_rows, valid_cols)).astype(np.uint8).ravel()
    else:
        addresses = row_base + cols * U64(dtype.bits // 8)
        nibble = None
    return memory.Footprint(addresses.ravel(), element_bytes(dtype), write, nibble=nibble)


def decode_loaded(raw: np.ndarray, dtype, nibble) -> np.ndarray:
    """DecodeTileMemoryElementRaw: a nibble zero-extended, a signed integer sign-extended to
    the Word, every other type its bytes zero-extended."""
    if dtype.bits == 4:
        return np.where(nibble.astype(bool), raw >> U64(4), raw) & U64(0xF)
    if dtype.name in ("S8", "S16", "S32"):
        shift = U64(64 - dtype.bits)
        return ((raw << shift).view(np.int64) >> np.int64(64 - dtype.bits)).view(np.uint64)
    return raw


class MemoryFlow(Operation):
    """A regular TLSU block: a Shared binding takes ``shared_commit``, else ``DESTINATIONS`` and ``SOURCES``
    Local bindings, B.IOR RegSrc0/RegSrc1 (base, row stride), only B.DATR Layout."""

    DESTINATIONS = 0
    GPR_INPUTS = 2
    TLSU = True  # a TLSU operation: a CUBE transport B.DATR Layout (21..26) takes the transport path
    CUBE_LAYOUT_CODES = frozenset()  # the B.DATR Layout codes of its CUBE conversions
    DATR_ALLOWED = frozenset({"Layout"})  # PadValue belongs to the CUBE conversion forms (not modelled)

    def __init__(self, name: str, bstart: str):
        self.NAME = name
        self.BSTART = bstart

    def commit_bundle(self, state, block, profile: str):
        """ExecuteBundleTileOperationLocally for a memory flow; each step raises its fault. A block
        with a B.IOS binding takes the Shared TLSU path instead (``shared_commit``)."""
        if block.shared:
            return self.shared_commit(state, block, profile)
        self.bindings_check(state, block)
        self.gpr_values_check(state, block)
        blocks._check_datr_applicability(block, self)
        if not block.masks_equal():
            raise tile_legality("bindings use different PE masks")
        index, tile = self.resolve_destination(state, block) if self.DESTINATIONS else (None, None)
        operands = self.memory_operands(state, block, index, tile)
        footprint = self.probed(self.memory_footprint(state, operands), state)
        return self.transfer(state, block, operands, footprint, index)

    def shared_commit(self, state, block, profile: str):
        """ExecuteBundleSharedTLSUOperation (asl/block/model/dispatch/shared-tlsu.asl) for this
        operation's Shared form; a form the model does not hold stops the run."""
        raise blocks.Unmodelled(f"the Shared (B.IOS) form of {self.NAME} is outside the modelled forms")

    def bindings_check(self, state, block) -> None:
        """BundleOperationBindingsComplete: the destination and source counts, a terminated
        B.IOT stream, and no B.IOR field past RegSrc1 (Fault_BundleControl)."""
        if (len(block.destinations()) != self.DESTINATIONS or len(block.sources()) != self.SOURCES
                or (block.bindings and not block.stream_terminated())
                or not block.scalar_schema_legal(self.GPR_INPUTS)):
            raise bundle_control(f"{self.NAME} needs {self.DESTINATIONS} destination(s) and {self.SOURCES} "
                                 f"source(s) in one terminated B.IOT stream, and B.IOR RegSrc2/RegDst zero")

    def resolve_destination(self, state, block):
        """ResolveBundleTileDestinationsForOperation: the destination's type is the effective one
        (ResolveBundleEffectiveDataType). SPEC-CHOICE 60: a present B.DATR's DataType field must be
        zero on TLOAD (applicability), and code 0 is the concrete FP64, so an ordinary TLOAD with a
        B.DATR (its Layout) gets an FP64 destination whatever its BSTART type; the executable
        reading is used."""
        return blocks.resolve_destination(state, block, block.derived_shape(state))

    def base_and_stride(self, state, block, columns: int) -> tuple:
        """B.IOR RegSrc0 and RegSrc1 of PE 0's file when B.IOR is present, else base 0 and the
        dense byte stride of ``columns`` of the BSTART DataType (an encoded R0 reads zero)."""
        if block.ior is not None:
            base, stride, _ = block.gpr_inputs(state)
            return base, stride
        return 0, dense_row_stride(columns, block.data_type)

    def cube_transport(self, state, block, profile: str):
        """ExecuteBundleCubeTransportOperation (a B.DATR Layout 21..26; tlsu-layout-conversion.asl):
        the dimensions (LB0, LB1 present and nonzero, no LB2), the data attributes (DataType
        DTYPE_NONE, CMode/RMode/Sat/Canonicalize zero, a load Layout ND2M32/ND2M16/ND2N8 for TLOAD,
        a store Layout M322ND/M162ND/N82ND for TSTORE; any other TLSU operation fails here) and the
        one terminated binding, all Fault_TileLegality, then the effective type (a CUBE type), then
        ``cube_transfer``. Only TLOAD and TSTORE give one."""
        datr = block.datr
        dims_legal = block.dims[0] and block.dims[1] and block.dims[2] is None
        attributes_legal = (datr["DataType"] == dtypes.DTYPE_NONE and not datr["CMode"] and not datr["RMode"]
                            and not datr["Sat"] and not datr["Canonicalize"]
                            and datr["Layout"] in self.CUBE_LAYOUT_CODES)
        if not (dims_legal and attributes_legal) or block.shared or len(block.bindings) != 1:
            raise tile_legality(f"{self.NAME}: B.DATR Layout {datr['Layout']} needs LB0 and LB1 (no LB2), DataType "
                                f"NONE, zero CMode/RMode/Sat/Canonicalize and one of this operation's CUBE layouts")
        binding = block.bindings[0]
        if (len(block.destinations()) != self.DESTINATIONS or len(block.sources()) != self.SOURCES
                or not binding.last or not block.scalar_schema_legal(self.GPR_INPUTS)):
            raise tile_legality(f"{self.NAME}: a CUBE transport block has one terminated binding of its kind")
        dtype = block.effective_type()
        if dtype.bits == 64 or dtype.name == "HiF4X2":  # TileCubeDataTypeSupported
            raise tile_legality(f"{self.NAME}: {dtype.name} has no CUBE layout")
        valid_rows, valid_cols = block.dims[1], block.dims[0]
        if block.ior is not None:
            base, stride, _ = block.gpr_inputs(state)
        else:
            base, stride = 0, dense_row_stride(valid_cols, dtype)
        return self.cube_transfer(state, block, dtype, CUBE_LAYOUTS[datr["Layout"]], valid_rows, valid_cols,
                                  base, stride)

    def cube_transfer(self, state, block, dtype, layout, valid_rows, valid_cols, base, stride):
        raise tile_legality(f"Layout {block.datr['Layout']} is a CUBE transport, which {self.NAME} does not have")

    def check_call(self, call: dict) -> None:
        raise ValueError(f"{self.NAME} runs through its block ({self.BSTART}), not a direct call")

    @staticmethod
    def event_room(state) -> int:
        """How many more events the log takes (the spec's bound of 16)."""
        return memory.MEMORY_EVENT_LIMIT - len(state.memory_events)

    @staticmethod
    def probed(footprint: memory.Footprint, state) -> memory.Footprint:
        """The footprint, after ``memory.probe`` found no fault in it (else its fault is raised)."""
        fault = memory.probe(footprint, state.memory_size)
        if fault is not None:
            raise fault
        return footprint

    def memory_operands(self, state, block, index, tile) -> dict:
        raise NotImplementedError(f"{self.NAME} states no operands")

    def memory_footprint(self, state, operands) -> memory.Footprint:
        raise NotImplementedError(f"{self.NAME} states no footprint")

    def transfer(self, state, block, operands, footprint, index):
        raise NotImplementedError(f"{self.NAME} states no transfer")



class RegularTransfer(MemoryFlow):
    """TLOAD and TSTORE (asl/tile/model/memory/load-store.asl): one tile's valid region over the
    strided footprint (``strided_footprint``), read (``WRITE`` False) or written; a declaration
    states its operands (``memory_operands``: the tile, base, stride), its ``transfer`` and its
    CUBE conversion (``cube_transfer``)."""

    WRITE = False

    def memory_footprint(self, state, operands) -> memory.Footprint:
        tile = operands["tile"]
        return strided_footprint(operands["base"], operands["stride"], tile.valid_rows, tile.valid_cols,
                                 tile.dtype, write=self.WRITE)

    def loaded(self, state, footprint, dtype, rows: int, cols: int) -> tuple:
        """(rows x cols loaded Words, the Load events) of a probed read footprint."""
        raw = memory.read(state.memory, footprint)
        values = decode_loaded(raw, dtype, footprint.nibble).reshape(rows, cols)
        return values, tuple(memory.load_events(footprint, raw, ORDER, self.event_room(state)))

# ---------------------------------------------------------------------------------------
# The Shared source forms of TSTORE (Function 1, PE mask 1111) and TSTORE.SPART (Function 14,
# any nonzero PE subset): ExecuteBundleSharedTLSUOperation and TSTOREShared
# (asl/tile/model/memory/shared-movement.asl), reading S<n> through device_model/shared.py.

def shared_store_shape(block, register) -> tuple:
    """(valid_rows, valid_cols, cols): each present LB (LB1, LB0, LB2), else the register's
    own when its descriptor is valid, else 1, 1 and the valid columns
    (BundleSharedStoreValidRows/ValidColumns/Columns)."""
    valid_cols = block.dims[0] if block.dims[0] is not None else (register.valid_cols if register else 1)
    valid_rows = block.dims[1] if block.dims[1] is not None else (register.valid_rows if register else 1)
    cols = block.dims[2] if block.dims[2] is not None else (register.cols if register else valid_cols)
    return valid_rows, valid_cols, cols


def element_quarters(elements: np.ndarray, dtype, capacity: int) -> np.ndarray:
    """SharedTileElementRegion: the quarter (the PE) of the register's bytes that holds each
    logical element: (element * bits div 8) * 4 div capacity."""
    return ((elements.astype(np.int64) * dtype.bits // 8) * 4 // capacity).astype(np.uint8)


def minimum_capacity(valid_rows: int, valid_cols: int, cols: int, dtype) -> int:
    """MinimumTileCapacityBytesForShape: the least of 128 B .. 256 KiB that holds the shape (0: none)."""
    from ..state import shape_legal
    return next((128 << k for k in range(12) if shape_legal(128 << k, cols, valid_rows, valid_cols, dtype)), 0)


def shared_words(register, shared_id: int, elements: np.ndarray, quarters: np.ndarray) -> np.ndarray:
    """ReadSharedTileWord of each logical element: the register's Word (its element bits when
    packed) where its descriptor is valid and the element's quarter is initialized (the model
    holds a register whole: initialized where allocated, SPEC-CHOICE 66), else the
    undefined-register value shared_id XOR element."""
    undefined = U64(shared_id) ^ elements.astype(U64)
    if register is None:
        return undefined
    held = pe_selected(register.mask, quarters)
    return np.where(held, register.payload[elements], undefined)


def pe_selected(mask: int, pes: np.ndarray) -> np.ndarray:
    """PE p's bit of a PE mask b3b2b1b0 is bit 3 - p (PTOPEMaskBitOfPEIdentity)."""
    return ((mask >> (3 - pes.astype(np.int64))) & 1).astype(bool)


def _the_shared_binding(op, block) -> tuple:
    """The one B.IOS of a Shared TSTORE or TLOAD (SharedId, SizeCode, PE mask), after the checks
    both forms make first in the spec's order: exactly one B.IOS (Fault_TileLegality), the B.IOR
    schema (Fault_BundleControl), the B.DATR fields the operation takes."""
    if len(block.shared) != 1:
        raise tile_legality(f"{op.NAME}: a Shared form binds exactly one B.IOS")
    if not block.scalar_schema_legal(op.GPR_INPUTS):
        raise bundle_control(f"{op.NAME}: B.IOR RegSrc2 and RegDst must be zero")
    blocks._check_datr_applicability(block, op)
    return block.shared[0]


def shared_store(op, state, block, function: int):
    """One Shared-source TSTORE: the checks in the spec's order (each Fault_TileLegality but the
    B.IOR schema, Fault_BundleControl), every selected element's store probed, then stored."""
    from .. import shared as registers  # the Shared register reads (device_model/shared.py)
    from ..state import new_ordinary_tile

    shared_id, size_code, mask = _the_shared_binding(op, block)
    dtype = block.data_type
    if (function == 1 and mask != 0b1111) or size_code != 0 or block.bindings:  # SharedStorePEMaskLegal
        raise tile_legality(f"{op.NAME}: Function {function} reads one Shared source (SizeCode 0)"
                            + (" on all four PEs" if function == 1 else "") + " and binds no B.IOT")
    register = state.shared_tiles[shared_id]
    valid_rows, valid_cols, cols = shared_store_shape(block, register)
    layout = blocks.layout_transform(block.datr_field("Layout"))[1]
    if (not (valid_rows >= 1 and valid_cols >= 1 and cols >= 1 and valid_cols <= cols)
            or not registers.read_schema_legal(register, valid_rows, valid_cols, cols, dtype, layout,
                                               state.tile_capacity)):
        raise tile_legality(f"{op.NAME}: S{shared_id} cannot be read as {valid_rows}x{valid_cols} of {cols} "
                            f"{dtype.name} {layout} columns")
    capacity = register.capacity if register is not None else minimum_capacity(valid_rows, valid_cols, cols, dtype)
    tile = new_ordinary_tile(dtype, layout, "Any", capacity, cols, valid_rows, valid_cols, 0b1111)
    elements, quarters, footprint = _shared_transfer(state, block, tile, mask, write=True)
    values = shared_words(register, shared_id, elements, quarters)
    room = memory.MEMORY_EVENT_LIMIT - len(state.memory_events)
    return Publication(memory=memory.write(state.memory, footprint, values),
                       events=tuple(memory.store_events(state.memory, footprint, values, ORDER, room)))


# ---------------------------------------------------------------------------------------
# The Shared destination form of TLOAD (Function 0 with a destination B.IOS):
# ExecuteBundleSharedTLSUOperation and TLOADShared (asl/tile/model/memory/shared-movement.asl),
# the register updated as AtomicUpdateSharedTile (shared-registers.asl) does.

def _shared_transfer(state, block, tile, mask: int, write: bool) -> tuple:
    """The valid elements of ``tile`` in the quarters of the PEs of ``mask`` (storage index and
    quarter, in element order) and their memory footprint from each PE's base and stride,
    probed: a data fault is raised before anything is read or written."""
    elements = tile.valid_index.ravel()
    quarters = element_quarters(elements, tile.dtype, tile.capacity)
    selected = pe_selected(mask, quarters)
    elements, quarters = elements[selected], quarters[selected]
    rows_, cols_ = (grid.ravel()[selected] for grid in np.indices((tile.valid_rows, tile.valid_cols)))
    bases, strides = per_pe_bases_and_strides(state, block, tile.cols, tile.dtype)
    footprint = pe_footprint(bases, strides, quarters, rows_, cols_, tile.dtype, write=write)
    fault = memory.probe(footprint, state.memory_size)
    if fault is not None:
        raise fault
    return elements, quarters, footprint


def shared_update_compatible(state, shared_id: int, tile, mask: int) -> bool:
    """SharedTileUpdateCompatible: a legal Shared shape; an existing register takes only PEs it is
    allocated on and the same descriptor; a new one must fit the core capacity beside every
    Local tile and Shared register (TileCapacityInUse + SharedTileCapacityInUse)."""
    from .. import shared as registers
    from ..state import allocation_bytes

    if (tile.layout.startswith("CUBE") or not registers.capacity_legal(tile.capacity, state.tile_capacity)
            or tile.valid_rows > tile.rows or tile.valid_cols > tile.cols
            or tile.rows * tile.cols > tile.capacity * 8 // tile.dtype.bits):
        return False
    old = state.shared_tiles[shared_id]
    if old is not None:
        return (mask & ~old.mask) == 0 and (old.capacity, old.rows, old.cols, old.valid_rows, old.valid_cols,
                                            old.dtype, old.layout, old.location) == (
            tile.capacity, tile.rows, tile.cols, tile.valid_rows, tile.valid_cols, tile.dtype, tile.layout,
            tile.location)
    return state.core_capacity_in_use() + allocation_bytes(mask, tile.capacity) <= state.tile_capacity


def shared_updated(state, shared_id: int, elements: np.ndarray, values: np.ndarray, tile, mask: int):
    """AtomicUpdateSharedTile (publish): a new register is ``tile`` allocated (and initialized) on
    ``mask``, its valid region defined; an existing one takes ``values`` at ``elements`` (the
    selected quarters' defined elements) and keeps the rest."""
    old = state.shared_tiles[shared_id]
    base = tile if old is None else old
    payload, defined = base.payload.copy(), base.defined.copy()
    payload[elements] = values
    if old is None:
        defined[tile.valid_index] = True  # contents_defined: every valid element
        return tile.with_contents(payload, defined)._copied({"mask": mask})
    defined[elements] = True
    return old.with_contents(payload, defined)


def shared_load(op, state, block):
    """TLOAD into S<n> (Function 0, one destination B.IOS): the checks in the spec's order (each
    Fault_TileLegality but the B.IOR schema, Fault_BundleControl), then every element of a
    selected quarter probed (row-major, that quarter's PE as the agent, its own base and row
    stride), then loaded with its Load event, then the register updated whole."""
    from ..layouts import generic_indexing_permitted
    from ..state import SIZE_CODE_BYTES, derived_rows, logical_capacity, new_ordinary_tile, shape_legal

    shared_id, size_code, mask = _the_shared_binding(op, block)
    dtype = block.data_type
    if not 1 <= size_code <= 12 or block.bindings:  # BundleSharedBindingIsDestination, TileSizeCodeIsLegal
        raise tile_legality(f"{op.NAME}: the Shared form loads one destination B.IOS (SizeCode 1..12) and binds "
                            "no B.IOT")
    valid_cols, valid_rows, cols = (d or 0 for d in block.dims)  # an absent LB reads its reset zero
    if not (1 <= valid_cols <= cols and valid_rows >= 1):
        raise tile_legality(f"{op.NAME}: the Shared form needs LB0, LB1 and LB2 nonzero, LB0 <= LB2")
    capacity = SIZE_CODE_BYTES[size_code]
    rows = derived_rows(capacity, cols, dtype.bits)
    layout = blocks.layout_transform(block.datr_field("Layout"))[1]
    if (not shape_legal(capacity, cols, valid_rows, valid_cols, dtype) or rows * cols > logical_capacity(capacity, dtype)
            or not generic_indexing_permitted(layout, dtype.bits, rows, cols)):
        raise tile_legality(f"{op.NAME}: {capacity} B cannot hold {valid_rows}x{valid_cols} of {cols} {dtype.name} "
                            f"{layout} columns")
    tile = new_ordinary_tile(dtype, layout, "Any", capacity, cols, valid_rows, valid_cols, mask)
    if not shared_update_compatible(state, shared_id, tile, mask):
        raise tile_legality(f"{op.NAME}: S{shared_id} cannot take a {capacity} B {dtype.name} tile on PEs {mask:04b}")
    elements, quarters, footprint = _shared_transfer(state, block, tile, mask, write=False)
    raw = memory.read(state.memory, footprint)
    values = decode_loaded(raw, dtype, footprint.nibble) & U64(tile.element_mask)
    room = memory.MEMORY_EVENT_LIMIT - len(state.memory_events)
    return Publication(shared_tiles={shared_id: shared_updated(state, shared_id, elements, values, tile, mask)},
                       events=tuple(memory.load_events(footprint, raw, ORDER, room)),
                       unpublished=state.unpublished_shared - {shared_id})  # AtomicUpdateSharedTile publishes


def per_pe_bases_and_strides(state, block, cols: int, dtype) -> tuple:
    """Each PE's B.IOR RegSrc0/RegSrc1 from its own GPR file, else base 0 and the dense stride of
    ``cols`` (CorePEWords of ExecuteBundleSharedTLSUOperation)."""
    agents = range(memory.MEMORY_AGENTS)
    if block.ior is not None:
        bases = np.array([state.read_pe_gpr(pe, block.ior["RegSrc0"]) for pe in agents], dtype=U64)
        strides = np.array([state.read_pe_gpr(pe, block.ior["RegSrc1"]) for pe in agents], dtype=U64)
    else:
        bases = np.zeros(memory.MEMORY_AGENTS, dtype=U64)
        strides = np.full(memory.MEMORY_AGENTS, dense_row_stride(cols, dtype), dtype=U64)
    return bases, strides


def pe_footprint(bases, strides, quarters, rows_, cols_, dtype, write: bool) -> memory.Footprint:
    """TileMemoryStridedByteAddress of each (row, col) from its quarter's PE base and stride, that
    PE the agent (a 4-bit column: its containing byte and nibble)."""
    row_base = bases[quarters] + rows_.astype(U64) * strides[quarters]
    if dtype.bits == 4:
        addresses, nibble = row_base + (cols_.astype(U64) >> U64(1)), (cols_ & 1).astype(np.uint8)
    else:
        addresses, nibble = row_base + cols_.astype(U64) * U64(dtype.bits // 8), None
    return memory.Footprint(addresses, element_bytes(dtype), write, agents=quarters, nibble=nibble)
