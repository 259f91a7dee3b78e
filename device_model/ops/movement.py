"""The tile-to-tile moves of the TLSU: Local TMOV and the Core4 peer move GMOV, two kinds over
one copy (asl/tile/model/memory/shared-movement.asl TMOV and GMOV: the destination takes the
source's whole payload and per-element definedness, padding included; no memory access, no
event, no NumericStatus flag).

- ``TileMove`` (TMOV, BSTART.TMOV Function 2; asl/tile/layout-and-rearrangement/layout/TMOV.asl,
  asl/block/execution/BSTART.TMOV.asl): the shared TEPL flow with the open schema
  (ExecuteBundleTileOperationLocally: binding completeness, B.DATR Layout only, one mask, the
  derived destination of ResolveBundleTileDestinations), then ExecuteTileInstruction's
  TileSourceContentsDefined and TileOperandsLegal_TMOV (TileShapeAndTypeMatch). The effective
  type is ResolveBundleEffectiveDataType's: a concrete B.DATR DataType, else the concrete BSTART
  type, else (BSTART DTYPE_NONE, code 31) the first bound source's when it is configured; none
  resolving is Fault_TileLegality before allocation. A block with a B.IOS binding takes the
  Shared TLSU path (asl/block/model/dispatch/shared-tlsu.asl), where Function 2 has no form:
  B.IOR schema (Fault_BundleControl), B.DATR, then Fault_TileLegality.
- ``PeerMove`` (GMOV, BSTART.GMOV Function 13; asl/tile/memory-and-data-movement/pe-movement/GMOV.asl,
  asl/block/model/dispatch/tlsu-gmov.asl ExecuteBundleGMOVOperation): a flow of its own, every
  failure Fault_TileLegality, in this order: no B.IOS, complete bindings (one destination, one
  source, terminated, B.IOR RegSrc0 only), exactly one B.IOT binding; B.DATR Layout only; the
  binding's source Core4-ready (legal, fully defined, allocated on all four PEs), the destination
  TSize the source's, the BSTART type carrier-or-packed-baseline and the source's, the source's
  layout the B.DATR one; no B.DIM; each PE's peer_tid (B.IOR RegSrc0 of that PE's own GPR file,
  0 without B.IOR) in 0..3; then the derived destination (Fault_TileAllocation) and
  TileOperandsLegal_GMOV. The one-level model holds the four peer fragments as one Core4
  snapshot, so the copy does not depend on peer_tid (which is only range-checked) or on a
  partial PE mask (which only selects the destination's allocation).

Neither takes a direct call on the spec device except TMOV (InstructionContractExecute_TMOV);
GMOV has no direct-call contract and runs as a block only.
"""
from __future__ import annotations

import numpy as np

from .. import block as blocks
from .. import memory
from ..faults import bundle_control, tile_legality
from ..state import MachineState, descriptor_configured, descriptor_legal, logical_shape_match, source_contents_defined
from .common import Publication
from .operation import Operation
from .tprefetch import carrier_or_packed_baseline
from .rearrange import OpenSchema

U64 = np.uint64


def copied(destination, source):
    """TMOV/GMOV: the destination descriptor with the source's payload and definedness."""
    return destination.with_contents(source.payload.copy(), source.defined.copy())


def shape_and_type_match(left, right, limit: int) -> bool:
    """TileShapeAndTypeMatch: TileLogicalShapeMatch, one storage kind, one DataType."""
    return (logical_shape_match(left, right, limit) and left.storage_kind == right.storage_kind
            and left.dtype.name == right.dtype.name)


class TransportRefused:
    """A TLSU move with a CUBE transport Layout (21..26): ExecuteBundleCubeTransportOperation
    decodes it but its attribute rule admits only TLOAD's and TSTORE's layouts."""

    TLSU = True

    def cube_transport(self, state, block, profile: str):
        raise tile_legality(f"{self.NAME}: B.DATR Layout {block.datr['Layout']} is a CUBE transport of "
                            f"TLOAD and TSTORE only")


class TileMove(TransportRefused, OpenSchema):
    """Local TMOV: the open-schema flow, the copy of ``copied``."""

    HANDLER, LEGALITY = "TMOV", "TileOperandsLegal_TMOV"
    ARGUMENTS = ("destination0", "source0")
    DATR_ALLOWED = frozenset({"Layout"})

    def __init__(self, name: str, bstart: str):
        super().__init__(name, None)
        self.BSTART = bstart
        self.DIRECT_ARGUMENTS = {"dst": self.DIRECT_ARGUMENTS["dst"], "src": self.DIRECT_ARGUMENTS["src"]}

    def commit_bundle(self, state: MachineState, block, profile: str) -> Publication:
        function = SHARED_FUNCTIONS.get(block.form, 2)
        if block.shared or function != 2:  # BundleSharedTLSUSelected: a B.IOS, or Function 9..12
            if len(block.shared) != 1:
                raise tile_legality(f"{self.NAME}: the Shared TLSU path binds exactly one B.IOS")
            if not block.scalar_schema_legal(0):
                raise bundle_control(f"{self.NAME}: B.IOR fields must be zero")
            blocks._check_datr_applicability(block, self)
            if function in (9, 10):
                return local_to_shared(state, block, publish=function == 10)
            if function in (11, 12):
                return shared_to_local(state, block, broadcast=function == 11)
            raise tile_legality(f"{self.NAME} (Function 2) is Local to Local: a B.IOS binding has no form here")
        return super().commit_bundle(state, block, profile)

    def resolve_destination(self, state: MachineState, block):
        return blocks.resolve_destination(state, block, self.destination_shape(state, block),
                                          self.effective_type(state, block))

    @staticmethod
    def effective_type(state: MachineState, block):
        """ResolveBundleEffectiveDataType with its TMOV branch (Fault_TileLegality when none)."""
        dtype = block.explicit_type() or block.data_type
        if dtype is None:
            source = next((state.tiles[s] for b in block.bindings for s in b.sources), None)
            if descriptor_configured(source, state.tile_capacity):
                dtype = source.dtype
        if dtype is None:
            raise tile_legality("TMOV: DTYPE_NONE and no configured source to take the type from")
        return dtype

    def execute_bundle(self, state: MachineState, block, index: int, destination, profile: str) -> Publication:
        source = state.tiles[block.sources()[0]]
        if not source_contents_defined(source, state.tile_capacity):  # ExecuteTileInstruction's TMOV entry
            raise tile_legality(f"{self.NAME}: the source is not a legal, fully defined tile")
        return self.move(destination, source, index, state.tile_capacity)

    def direct(self, state: MachineState, call: dict, profile: str) -> Publication:
        """InstructionContractExecute_TMOV: TileOperandsLegal_TMOV only. SPEC-CHOICE 71: the direct-call
        contract asks no source definedness (the spec's own test moves a partially defined tile),
        where ExecuteTileInstruction (a block) asks TileSourceContentsDefined first; each path
        follows its own ASL entry."""
        return self.move(state.tiles[call["dst"]], state.tiles[call["src"]], call["dst"], state.tile_capacity)

    def move(self, destination, source, index: int, limit: int) -> Publication:
        if not shape_and_type_match(destination, source, limit):  # TileOperandsLegal_TMOV
            raise tile_legality(f"{self.NAME}: destination and source differ in shape, layout, storage or type")
        return Publication({index: copied(destination, source)})


# ---------------------------------------------------------------------------------------
# The Shared forms of TMOV (asl/block/model/dispatch/shared-tlsu.asl ExecuteBundleSharedTLSUOperation,
# BundleSharedTMOVLocalSchemaLegal, BundleSharedTMOVDestinationSchemaLegal; shared-movement.asl
# TMOVLocalToShared, TMOVSharedToLocal; shared-registers.asl AtomicUpdateSharedTileWithPublication)

SHARED_FUNCTIONS = {"BSTART.TMOV.L2S.INSERT": 9, "BSTART.TMOV.L2S.PUBLISH": 10, "BSTART.TMOV.S2L.BROADCAST": 11,
                    "BSTART.TMOV.S2L.EXTRACT": 12}


def local_to_shared(state: MachineState, block, publish: bool) -> Publication:
    """TMOV.L2S.INSERT (``publish`` False) and .PUBLISH: one source B.IOT (no destination, terminated,
    the B.IOS's mask) of a defined Local tile of the B.IOS SizeCode's capacity, one destination
    B.IOS (SizeCode 1..12) whose register can take it on the mask (SharedTileUpdateCompatible), all
    Fault_TileLegality; then the selected quarters of S<n> take the source's defined elements (a new
    register: the whole source, allocated on the mask). INSERT leaves a new register unpublished
    and an existing one as it was; PUBLISH publishes (every quarter is initialized where allocated,
    so its prospective completeness always holds)."""
    from ..state import SIZE_CODE_BYTES
    from .memory_flow import element_quarters, pe_selected, shared_update_compatible

    shared_id, size_code, mask = block.shared[0]
    binding = block.bindings[0] if len(block.bindings) == 1 else None
    source = state.tiles[binding.sources[0]] if binding is not None and len(binding.sources) == 1 else None
    if (binding is None or binding.destination or source is None or not binding.last or binding.mask != mask
            or not 1 <= size_code <= 12 or not source_contents_defined(source, state.tile_capacity)
            or source.capacity != SIZE_CODE_BYTES[size_code]):
        raise tile_legality("TMOV.L2S: one terminated source B.IOT of a defined tile of the destination B.IOS's "
                            "capacity, on the B.IOS's mask")
    candidate = source._copied({"location": "Any", "mask": mask})
    if not shared_update_compatible(state, shared_id, candidate, mask):
        raise tile_legality(f"TMOV.L2S: S{shared_id} cannot take this tile on PEs {mask:04b}")
    old = state.shared_tiles[shared_id]
    if old is None:
        defined = candidate.defined.copy()
        defined[candidate.valid_index] = True
        register = candidate.with_contents(candidate.payload.copy(), defined)
        published = publish
    else:
        elements = np.arange(candidate.payload.size)
        take = pe_selected(mask, element_quarters(elements, candidate.dtype, candidate.capacity)) & candidate.defined
        payload, defined = old.payload.copy(), old.defined.copy()
        payload[take], defined[take] = candidate.payload[take], True
        register = old.with_contents(payload, defined)
        published = shared_id not in state.unpublished_shared or publish
    unpublished = state.unpublished_shared - {shared_id} if published else state.unpublished_shared | {shared_id}
    return Publication(shared_tiles={shared_id: register}, unpublished=unpublished)


def read_schema_legal_at_capacity(register, valid_rows: int, valid_cols: int, cols: int, dtype, layout: str,
                                  capacity: int, limit: int) -> bool:
    """SharedTileReadSchemaLegalAtCapacity: a configured register at exactly its own capacity and
    columns, a valid region within its own, its type and layout; an unconfigured one at any legal
    Shared capacity that holds the shape."""
    from .. import shared as registers
    from ..state import derived_rows, logical_capacity, shape_legal

    if layout.startswith("CUBE"):
        return False
    if register is not None:
        return (registers.descriptor_legal(register, limit) and register.capacity == capacity
                and register.cols == cols and valid_rows <= register.valid_rows and valid_cols <= register.valid_cols
                and register.dtype == dtype and register.layout == layout)
    return (registers.capacity_legal(capacity, limit) and shape_legal(capacity, cols, valid_rows, valid_cols, dtype)
            and derived_rows(capacity, cols, dtype.bits) * cols <= logical_capacity(capacity, dtype))


def shared_to_local(state: MachineState, block, broadcast: bool) -> Publication:
    """TMOV.S2L.BROADCAST (``broadcast``) and .EXTRACT: one destination B.IOT (no source, terminated,
    SizeCode 1..10, the B.IOS's mask) and one source B.IOS (SizeCode 0); the shape LB1/LB0/LB2, else
    the register's own (a legal one), else 1, 1 and ValidCol; the register readable at the
    destination's capacity in the BSTART type and the B.DATR layout (BROADCAST: on all four PEs
    from a register allocated on all four and published), all Fault_TileLegality; then the
    renamed destination (Fault_TileAllocation), whose descriptor must equal the register's read
    one (Fault_TileLegality); then each selected quarter's element is ReadSharedTileWord of S<n>,
    and the destination is wholly defined only when all four PEs are selected."""
    from .. import shared as registers
    from ..state import SIZE_CODE_BYTES
    from .memory_flow import element_quarters, pe_selected, shared_words

    shared_id, size_code, mask = block.shared[0]
    register = state.shared_tiles[shared_id]
    binding = block.bindings[0] if len(block.bindings) == 1 else None
    legal = (binding is not None and binding.destination and not binding.sources and binding.last
             and 1 <= binding.size_code <= 10 and size_code == 0 and binding.mask == mask)
    if legal:
        own = register if registers.descriptor_legal(register, state.tile_capacity) else None
        valid_cols = block.dims[0] or (own.valid_cols if own else 1)
        valid_rows = block.dims[1] or (own.valid_rows if own else 1)
        cols = block.dims[2] or (own.cols if own else valid_cols)
        dtype = block.data_type
        layout = blocks.layout_transform(block.datr_field("Layout"))[1]
        capacity = SIZE_CODE_BYTES[binding.size_code]
        legal = (dtype is not None and 1 <= valid_cols <= cols and valid_rows >= 1
                 and read_schema_legal_at_capacity(register, valid_rows, valid_cols, cols, dtype, layout, capacity,
                                                   state.tile_capacity))
        if legal and broadcast:
            legal = (mask == 0b1111 and register is not None and register.mask == 0b1111
                     and shared_id not in state.unpublished_shared)
    if not legal:
        raise tile_legality("TMOV.S2L: one terminated destination B.IOT on the source B.IOS's mask, a register "
                            "readable in this shape" + (", allocated on all four PEs and published" if broadcast else ""))
    index, destination = blocks.resolve_destination(state, block, (valid_rows, valid_cols, cols), dtype)
    if (destination.dtype != dtype or destination.layout != layout or destination.cols != cols
            or (destination.valid_rows, destination.valid_cols) != (valid_rows, valid_cols)):
        raise tile_legality("TMOV.S2L: the destination's descriptor differs from the register's read descriptor")
    elements = np.arange(destination.rows * destination.cols)
    quarters = element_quarters(elements, dtype, capacity)
    take = pe_selected(mask, quarters)
    payload, defined = destination.payload.copy(), destination.defined.copy()
    payload[elements[take]] = shared_words(register, shared_id, elements[take], quarters[take]) & U64(
        destination.element_mask)
    defined[elements[take]] = True
    return Publication({index: destination.with_contents(payload, defined)})


class PeerMove(TransportRefused, Operation):
    """GMOV: ExecuteBundleGMOVOperation (see the module docstring for the order)."""

    HANDLER, LEGALITY = "GMOV", "TileOperandsLegal_GMOV"
    SOURCES = 1
    GPR_INPUTS = 1  # scalar0: peer_tid
    DATR_ALLOWED = frozenset({"Layout"})

    def __init__(self, name: str, bstart: str):
        self.NAME = name
        self.BSTART = bstart

    def commit_bundle(self, state: MachineState, block, profile: str) -> Publication:
        limit = state.tile_capacity
        if (block.shared or len(block.destinations()) != 1 or len(block.sources()) != 1
                or not block.stream_terminated() or not block.scalar_schema_legal(self.GPR_INPUTS)
                or len(block.bindings) != 1):
            raise tile_legality(f"{self.NAME} needs one terminated B.IOT of one source and one destination, "
                                f"no B.IOS, and B.IOR RegSrc0 (peer_tid) only")
        blocks._check_datr_applicability(block, self)
        binding = block.bindings[0]
        source = state.tiles[binding.sources[0]]
        layout = blocks.layout_transform(block.datr_field("Layout"))[1]
        if (len(binding.sources) != 1 or not source_contents_defined(source, limit) or source.mask != 0b1111
                or binding.size_bytes != source.capacity or not carrier_or_packed_baseline(block.data_type)
                or source.dtype.name != block.data_type.name or source.layout != layout):
            raise tile_legality(f"{self.NAME}: the source must be a fully defined {block.data_type.name} {layout} "
                                f"tile on all four PEs, and the destination TSize its capacity")
        if any(d is not None for d in block.dims):
            raise tile_legality(f"{self.NAME} takes no B.DIM")
        for pe, peer in enumerate(self.peer_tids(state, block)):
            if peer >= memory.MEMORY_AGENTS:
                raise tile_legality(f"{self.NAME}: PE {pe}'s peer_tid {peer} is outside 0..3")
        # SPEC-CHOICE 72: a present B.DATR (Layout) makes the effective type FP64 (its DataType field 0), so
        # the destination is FP64 and TileOperandsLegal_GMOV rejects it; the executable reading is used.
        index, destination = blocks.resolve_destination(state, block, block.derived_shape(state))
        if not self.operands_legal(destination, source, limit):
            raise tile_legality(f"{self.NAME}: destination and source differ in shape, type, layout or location")
        return Publication({index: copied(destination, source)})

    @staticmethod
    def peer_tids(state: MachineState, block) -> list:
        """Each PE's peer_tid: B.IOR RegSrc0 of its own GPR file (ReadPEAbsoluteGPROperand), 0 without B.IOR."""
        if block.ior is None:
            return [0] * memory.MEMORY_AGENTS
        return [state.read_pe_gpr(pe, block.ior["RegSrc0"]) for pe in range(memory.MEMORY_AGENTS)]

    @staticmethod
    def operands_legal(destination, source, limit: int) -> bool:
        """TileOperandsLegal_GMOV (peer_tid zero, as the dispatcher passes it)."""
        elsewhere = ("Memory", "Matrix")
        return (descriptor_legal(destination, limit) and source_contents_defined(source, limit)
                and logical_shape_match(destination, source, limit) and carrier_or_packed_baseline(source.dtype)
                and destination.dtype.name == source.dtype.name and destination.layout == source.layout
                and destination.location not in elsewhere and source.location not in elsewhere)

    def check_call(self, call: dict) -> None:
        raise ValueError(f"{self.NAME} runs through its block (BSTART.GMOV): the spec has no direct-call contract")

