"""The block (bundle) front end: header commands, bindings and the commit flow.

Facts from asl/block/model/** (dispatch/commands.asl, start.asl,
tile-execution.asl, tile-schema.asl, scalar-schema.asl, descriptor-legality.asl,
destination-shape.asl, operands/*, schema/*, state/descriptor-state.asl,
commit/validation.asl). A block opens at BSTART, collects B.DATR, B.FPATR,
B.DIM/C.B.DIMI, B.IOR, B.IOT and B.IOS, and commits at BSTOP/C.BSTOP or at the
next BSTART. The commit runs the block-level steps, then the selected
operation's own commit, found in ``ops.registry`` (this module names no
operation), and either raises a ``Fault`` (nothing published) or returns the
new machine state.
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

from . import dtypes
from .encoding.decoder import Decoded
from .encoding.names import BSTART_VARIANTS, FPATR_FIELDS, TEPL_BY_SELECTOR, transform_layouts
from .faults import bundle_control, illegal_instruction, tile_allocation, tile_legality
from .layouts import derived_rows
from .ops import registry
from .padding import PAD_NAMES
from .state import (PE_MASK_OF_MODE, SIZE_CODE_BYTES, MachineState, allocation_bytes,
                    descriptor_configured, logical_capacity, new_ordinary_tile, shape_legal)

# SPEC-CHOICE 15: the B.IOT contract says a fifth effective binding faults; the executable
# model holds PTO_BUNDLE_TILE_BINDING_COUNT = 16 bindings and rejects the 17th with
# Fault_TileLegality (digest §7.16). The executable bound is used.
BINDING_LIMIT = 16
SHARED_BINDING_LIMIT = 4


class Unmodelled(Exception):
    """A valid instruction outside the modelled set: execution stops without a fault.

    ``state`` is the machine state to keep: a BSTART completes the open block
    before its own operation turns out not to be modelled, so the completed
    block's publication survives the stop (None: nothing changed)."""

    def __init__(self, reason: str, state: Optional[MachineState] = None):
        super().__init__(reason)
        self.state = state


@dataclass(frozen=True)
class Binding:
    """One B.IOT: an optional destination (hand, size code) and up to two sources."""

    destination: bool
    hand: int
    size_code: int
    mask: int
    sources: tuple
    last: bool

    @property
    def size_bytes(self) -> int:
        return SIZE_CODE_BYTES[self.size_code] if self.destination else 0


@dataclass
class BlockState:
    active: bool = False
    operation: Optional[str] = None  # the registered operation the BSTART selected
    form: Optional[str] = None  # the BSTART form key (a variant such as BSTART.TSTORE.SPART names its function)
    matrix: bool = False  # CUBE (Matrix) operation class
    data_type: Optional[dtypes.DataType] = None  # the BSTART DataType (None: DTYPE_NONE)
    datr: Optional[dict] = None
    catr: Optional[dict] = None  # B.CATR: DR, trap, far, atom, aq, rl
    fpatr: Optional[dict] = None
    dims: list = field(default_factory=lambda: [None, None, None])
    ior: Optional[dict] = None
    bindings: list = field(default_factory=list)
    shared: list = field(default_factory=list)  # (SharedTID, SizeCode, mask)
    zero_participation: bool = False

    # --- B.DATR views (CurrentBundle* in the spec) ---
    def datr_field(self, name: str) -> int:
        return self.datr[name] if self.datr is not None else 0

    def pad(self) -> str:
        """CurrentBundlePadValue: an omitted B.DATR means Null."""
        return "Null" if self.datr is None else PAD_NAMES[self.datr["PadValue"]]

    def canonicalize(self) -> bool:
        return bool(self.datr_field("Canonicalize"))

    def saturating(self) -> bool:
        return bool(self.datr_field("Sat"))

    def explicit_type(self) -> Optional[dtypes.DataType]:
        """The concrete B.DATR DataType, or None when omitted or DTYPE_NONE."""
        if self.datr is None:
            return None
        return dtypes.BY_CODE.get(self.datr["DataType"])

    def effective_type(self) -> dtypes.DataType:
        """ResolveBundleEffectiveDataType: concrete B.DATR type, else the BSTART type."""
        return self.explicit_type() or self.data_type

    # --- dimensions ---
    def shape(self):
        """(valid_rows, valid_cols, cols) from LB1|1, LB0, LB2|LB0 (the closed TEPL
        schemas: ResolveBundleTileDestinationsForOperation's explicit shape)."""
        valid_cols = self.dims[0]
        valid_rows = self.dims[1] if self.dims[1] is not None else 1
        cols = self.dims[2] if self.dims[2] is not None else valid_cols
        return valid_rows, valid_cols, cols

    def derived_shape(self, state: MachineState):
        """ResolveBundleTileDestinations without an explicit shape (operations with no
        closed schema): each of LB1, LB0, LB2 that holds 1..65535, else the first
        bound source's valid rows, valid columns, columns when it is configured, else
        1, 1 and the valid columns."""
        source = next((state.tiles[s] for b in self.bindings for s in b.sources), None)
        configured = source is not None and descriptor_configured(source, state.tile_capacity)
        fallback = ((source.valid_rows, source.valid_cols, source.cols) if configured else (1, 1, None))
        valid_rows, valid_cols, cols = (value if value else default for value, default in
                                        zip((self.dims[1], self.dims[0], self.dims[2]), fallback))
        return valid_rows, valid_cols, cols if cols is not None else valid_cols

    def dims_legal(self) -> bool:
        """LB0 present and nonzero; any present LB1/LB2 nonzero."""
        return bool(self.dims[0]) and all(d is None or d >= 1 for d in self.dims[1:])

    # --- bindings ---
    def sources(self) -> list:
        return [s for b in self.bindings for s in b.sources]

    def destinations(self) -> list:
        return [b for b in self.bindings if b.destination]

    def stream_terminated(self) -> bool:
        return bool(self.bindings) and self.bindings[-1].last

    def masks_equal(self) -> bool:
        return len({b.mask for b in self.bindings}) <= 1

    def gpr_inputs(self, state: MachineState) -> list:
        """Values read through B.IOR RegSrc0..2 (empty when B.IOR is omitted)."""
        if self.ior is None:
            return []
        return [state.read_gpr(self.ior[f"RegSrc{slot}"]) for slot in range(3)]

    def scalar_schema_legal(self, inputs: int) -> bool:
        """BundleOperationScalarBindingSchemaLegal: selectors beyond the operation's
        GPR input count and RegDst must be zero."""
        if self.ior is None:
            return True
        return (all(self.ior[f"RegSrc{slot}"] == 0 for slot in range(inputs, 3))
                and self.ior["RegDst"] == 0)


# ----------------------------------------------------------------------------
# Commands

def execute(decoded: Decoded, state: MachineState, block: BlockState, profile: str):
    """Execute one decoded command. Returns (state, block); raises Fault or Unmodelled."""
    key = decoded.form.key
    f = decoded.fields
    if _typed_bstart(decoded.form):
        return _start(key, f, state, block, profile)
    if not decoded.form.modelled:
        if block.active and decoded.form.mnemonic.startswith(("BSTART", "C.BSTART")):
            raise Unmodelled(f"{decoded.form.mnemonic} is outside the modelled instructions; the open "
                             f"{block.operation} block was not completed (its BSTART descriptor and "
                             f"target checks, which come first, are not modelled)")
        raise Unmodelled(f"{decoded.form.mnemonic} is outside the modelled instructions")
    if key in ("BSTOP", "C.BSTOP"):
        if not block.active:
            raise bundle_control("BSTOP with no active block")
        return commit(state, block, profile), BlockState()
    if key == "B.CATR":
        if not block.active or block.catr is not None:
            raise bundle_control("B.CATR outside an active header or duplicated")
        if f["trap"]:
            raise Unmodelled("B.CATR trap=1 ends the block with Fault_BundlePostCommit after its effects, "
                             "which is outside the modelled faults")
        block.catr = dict(f)
        return state, block
    if key == "B.DATR":
        if not block.active or block.datr is not None:
            raise bundle_control("B.DATR outside an active header or duplicated")
        block.datr = dict(f)
        return state, block
    if key == "B.FPATR":
        if (not block.active or block.fpatr is not None or not block.matrix
                or block.ior is not None or block.bindings or block.shared):
            raise bundle_control("B.FPATR needs an open Matrix header before any B.IOR/B.IOT/B.IOS "
                                 "and at most once")
        check_fpatr_fields(f)
        block.fpatr = {name: f[name] for name in FPATR_FIELDS}
        return state, block
    if key.startswith("B.DIM") or key == "C.B.DIMI":
        if not block.active:
            raise bundle_control("B.DIM outside an active header")
        if key == "C.B.DIMI":
            index, value = f["LoopNest"], f["Imm"]
        else:
            index = int(key[-1])
            value = (state.read_gpr(f["RegSrc"]) + f["Imm"]) & 0xFFFF
        if block.dims[index] is not None:
            raise bundle_control(f"LB{index} written twice")
        block.dims[index] = value
        return state, block
    if key == "B.IOR":
        if not block.active or block.ior is not None:
            raise bundle_control("B.IOR outside an active header or duplicated")
        block.ior = dict(f)
        return state, block
    if key == "B.IOS":
        return state, _bind_shared(block, f)
    if key.startswith("B.IOT"):
        return state, _bind_tile(block, f, "DstTile" in f)
    raise AssertionError(key)  # every modelled form has a handler above


def _typed_bstart(form) -> bool:
    """A BSTART whose descriptor is a DataType (and TEPL selector) with no branch
    target: its legality is settled by decoding, so the model can complete the open
    block at it whether or not it models the operation it opens."""
    typed = _TYPED_BSTART.get(form.index)
    if typed is None:
        typed = _TYPED_BSTART[form.index] = (form.mnemonic.startswith("BSTART") and "DataType" in form.fields
                                             and set(form.fields) <= {"DataType", "Mode", "Function"})
    return typed


_TYPED_BSTART: dict = {}  # Form.index -> _typed_bstart (a form is immutable: decided once)


def _start(key: str, f: dict, state: MachineState, block: BlockState, profile: str):
    """A decoded BSTART: name its operation (a reserved TEPL selector is
    Fault_IllegalInstruction), complete the open block (a commit fault is this
    BSTART's fault), then open the new block, or stop when the operation is not
    modelled, keeping the completed block's effects."""
    if key == "BSTART.TEPL":
        operation = TEPL_BY_SELECTOR.get((f["Mode"] << 5) | f["Function"])
        if operation is None:
            raise illegal_instruction(
                f"TEPL Mode {f['Mode']} Function {f['Function']} selects no Tile operation")
    else:  # an encoding variant (BSTART.TSTORE.SPART) opens its operation's block with its own form key
        operation = registry.operation_of_form(key) or BSTART_VARIANTS.get(key)
    if block.active:
        state = commit(state, block, profile)
    entry = registry.find(operation)
    if entry is None:
        raise Unmodelled(f"{operation or key} is outside the modelled operations", state)
    # BSTART.TMOV also decodes DTYPE_NONE (31): no concrete type (None), which TMOV resolves
    # from its source (ResolveBundleEffectiveDataType).
    return state, BlockState(active=True, operation=operation, form=key, matrix=entry.MATRIX,
                             data_type=dtypes.BY_CODE.get(f["DataType"]))


def check_fpatr_fields(f):
    """BundleFPATRFieldsLegal cross-field rules (field ranges are decode constraints)."""
    if f["RowMaxInit"] and not f["RowMaxEn"]:
        raise tile_legality("B.FPATR RowMaxInit requires RowMaxEn")
    if bool(f["GroupMaxEn"]) != bool(f["GroupNCode"]):
        raise tile_legality("B.FPATR GroupMaxEn and a nonzero GroupNCode go together")
    if f["MaxAbsEn"] and not (f["RowMaxEn"] or f["GroupMaxEn"]):
        raise tile_legality("B.FPATR MaxAbsEn requires RowMaxEn or GroupMaxEn")


def _mask_can_append(block: BlockState, mask: int) -> bool:
    return all(b.mask == mask for b in block.bindings)


def _bind_tile(block: BlockState, f: dict, destination: bool) -> BlockState:
    mask = PE_MASK_OF_MODE[f["PEMode"]]
    if mask == 0:
        # Strict no-op: only the zero-participation marker of an open header.
        if block.active:
            block.zero_participation = True
        return block
    if not block.active or (block.bindings and block.bindings[-1].last):
        raise bundle_control("B.IOT outside an active header or after the binding with L=1")
    if not _mask_can_append(block, mask):
        raise tile_legality("B.IOT mask differs from an earlier binding's mask")
    if len(block.bindings) >= BINDING_LIMIT:
        raise tile_legality(f"more than {BINDING_LIMIT} B.IOT bindings")
    sources = tuple(f[name] for name in ("SrcTile0", "SrcTile1") if name in f)
    block.bindings.append(Binding(destination, f.get("DstTile", 0), f.get("SizeCode", 0), mask,
                                  sources, bool(f["L"])))
    return block


def _bind_shared(block: BlockState, f: dict) -> BlockState:
    mask = PE_MASK_OF_MODE[f["PEMode"]]
    if mask == 0:
        if block.active:
            block.zero_participation = True
        return block
    if not block.active:
        raise bundle_control("B.IOS outside an active header")
    if not _mask_can_append(block, mask) or any(m != mask for _, _, m in block.shared):
        raise tile_legality("B.IOS mask differs from an earlier binding's mask")
    if any(tid == f["SharedTID"] for tid, _, _ in block.shared):
        raise bundle_control(f"Shared register S{f['SharedTID']} bound twice")
    if len(block.shared) >= SHARED_BINDING_LIMIT:
        raise bundle_control(f"more than {SHARED_BINDING_LIMIT} B.IOS bindings")
    block.shared.append((f["SharedTID"], f["SizeCode"], mask))
    return block


# ----------------------------------------------------------------------------
# Commit

def memory_order(block: BlockState) -> str:
    """CurrentBundleMemoryOrder: B.CATR aq and rl (both: AcquireRelease); Relaxed without them."""
    catr = block.catr or {}
    return {(1, 1): "AcquireRelease", (1, 0): "Acquire", (0, 1): "Release"}.get(
        (catr.get("aq", 0), catr.get("rl", 0)), "Relaxed")


def commit(state: MachineState, block: BlockState, profile: str) -> MachineState:
    """Complete the block (CompleteBundleAt: B.CATR DR only on a VEC, SFU or TLSU block, else
    Fault_BundleControl before any effect; then ExecuteBundleTileOperationLocally: the
    block-level steps, then the selected operation's own commit). Every memory event the
    commit records carries the block's memory order (``memory_order``); B.CATR far executes
    as a local block (ExecuteFarBundleTileOperation) and atom has no other effect in the ASL."""
    if block.catr is not None and block.catr["DR"] and block.matrix:
        raise bundle_control("B.CATR DR=1 applies to VEC, SFU and TLSU blocks only, not a CUBE block")
    publication = _committed(state, block, profile)
    if publication is None:
        return state
    order = memory_order(block)
    if publication.events and order != "Relaxed":
        publication.events = tuple(replace(event, order=order) for event in publication.events)
    return publication.apply(state)


def _committed(state: MachineState, block: BlockState, profile: str):
    """The Publication of the block's commit (None: a strict no-op)."""
    if block.zero_participation and not block.bindings and not block.shared:
        return None  # zero PE mask: strict no-op before any check
    if block.datr is not None and 21 <= block.datr["Layout"] <= 26:
        # BundleCubeTransportSelected: a present B.DATR with a CUBE transport Layout
        # (ND2M32 .. N82ND) routes every block to the TLSU transport path, which decodes
        # the operation's code in the TLSU family: a TLSU operation (``TLSU``) takes its
        # ``cube_transport``; any other operation's code decodes to no TLSU operation.
        entry = registry.find(block.operation)
        if getattr(entry, "TLSU", False):
            return entry.cube_transport(state, block, profile)
        raise illegal_instruction(f"Layout {block.datr['Layout']} selects the CUBE transport path, "
                                  f"where {block.operation} decodes to no TLSU operation")
    return registry.find(block.operation).commit_bundle(state, block, profile)


def _check_datr_applicability(block: BlockState, op):
    """SelectedBundleTileDataAttributesLegal: an explicit B.DATR field may be
    nonzero only when the operation allows it (DataType counts when code != 0)."""
    if block.datr is None:
        return
    for name, value in block.datr.items():
        if value and name not in op.DATR_ALLOWED:
            raise tile_legality(f"B.DATR {name}={value} does not apply to {block.operation}")


def layout_transform(code: int):
    """(source layout, destination layout) of a B.DATR Layout transform code."""
    layouts = transform_layouts(code)
    if layouts is None:
        # SPEC-CHOICE 7: in a bundle, Layout codes 21..26 never get here (commit routes
        # them to the CUBE transport path first: Fault_IllegalInstruction). A direct TCVT
        # call with such a code reaches the spec's layout mapping, which is `unreachable`
        # for them (TileDataLayoutSourceLayout, digest §7.7); the model rejects the call
        # as Fault_TileLegality instead of crashing.
        raise tile_legality(f"Layout {code} has no TEPL layout meaning")
    return layouts


def resolve_destination(state: MachineState, block: BlockState, shape=None, dtype=None):
    """ResolveBundleTileDestinationsWithShape (WithShapeAndType, given ``dtype``) for the
    single TEPL destination: rename to the first free index of the hand, check capacity
    and shape, and build the new descriptor (not yet published). ``shape`` is (valid_rows,
    valid_cols, cols); None takes the closed schemas' LB shape; ``dtype`` None takes the
    block's effective type."""
    return resolve_destinations(state, block, [(shape, dtype)])[0]


def rename_destinations(state: MachineState, block: BlockState) -> list:
    """Every destination binding renamed, in binding order, to the first free TileIndex of
    its hand not taken by an earlier one, then the capacity of all together checked
    (Fault_TileAllocation); returns the indices, nothing allocated."""
    reserved, indices = set(), []
    for binding in block.destinations():
        hand = binding.hand
        index = next((i for i in range(hand * 16, hand * 16 + 16)
                      if state.tiles[i] is None and i not in reserved), None)
        if index is None:
            raise tile_allocation(f"no free TileIndex in hand {'TUMN'[hand]}")
        reserved.add(index)
        indices.append(index)
    required = sum(allocation_bytes(b.mask, b.size_bytes) for b in block.destinations())
    if state.core_capacity_in_use() + required > state.tile_capacity:
        raise tile_allocation("tile capacity exceeded")
    return indices


def resolve_destinations(state: MachineState, block: BlockState, specs):
    """ResolveBundleTileDestinationsWithShapeAndType for every destination binding, in
    binding order: ``specs`` holds one (shape, dtype) per destination (None as in
    ``resolve_destination``). Each is renamed to the first free index of its hand not
    taken by an earlier one, then the capacity of all together is checked, then every
    shape, before any descriptor is built; returns [(index, tile)], nothing published."""
    bindings = block.destinations()
    indices = rename_destinations(state, block)
    shapes = []
    for binding, (shape, dtype) in zip(bindings, specs):
        dtype = dtype or block.effective_type()
        size = binding.size_bytes
        valid_rows, valid_cols, cols = shape or block.shape()
        rows = derived_rows(size, cols, dtype.bits)
        if not shape_legal(size, cols, valid_rows, valid_cols, dtype) or \
                rows * cols > logical_capacity(size, dtype):
            raise tile_allocation(f"TSize {size} B cannot hold a {dtype.name} tile of {cols} columns "
                                  f"with valid region {valid_rows}x{valid_cols}")
        shapes.append((dtype, size, cols, valid_rows, valid_cols))
    layout = layout_transform(block.datr_field("Layout"))[1]
    return [(index, new_ordinary_tile(dtype, layout, "Any", size, cols, valid_rows, valid_cols, binding.mask))
            for index, binding, (dtype, size, cols, valid_rows, valid_cols) in zip(indices, bindings, shapes)]
