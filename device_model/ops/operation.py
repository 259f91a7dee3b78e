"""The one operation protocol: every registry entry is an ``Operation``.

An entry comes in one of two shapes, both of this one class:

- a *declaration*: an instance of a kind (a subclass: ``elementwise.TileBinary``,
  ``predicate.TileCompare``, ...) made with a name and an element function, e.g.
  ``register(TileBinary("TADD", add, "TileVecArithmeticDataTypeSupported", closed=True))``;
- a *module*: an operation module (TCVT, TQUANT) wrapped by
  ``OperationModule``; every protocol member the module defines is read from the
  module at call time (so a mutant can replace one module function), the rest are
  this class's defaults.

What an operation declares (class constants, or module globals):

- ``NAME``: the spec mnemonic; ``BSTART``: the decoded BSTART form key that opens its
  block (``BSTART.TEPL``, whose Mode/Function selector names the operation, or a form
  of its own such as ``BSTART.TGEMVMX.ACC``); ``MATRIX``: a Matrix (CUBE) block
- ``SOURCES``, ``GPR_INPUTS``: its Local source and B.IOR input counts; ``DESTINATIONS``:
  its new Local destinations (1; TSORT's values and U32 indices: 2)
- ``DATR_ALLOWED``: the B.DATR fields that may be nonzero (SelectedBundleTileDataAttributesLegal)
- ``DIRECT_ARGUMENTS``: direct-call argument -> default (``registry.REQUIRED`` when the
  call must give it)
- a declaration's kind states instead ``ARGUMENTS``, the spec's operand fields in
  catalog order (``destination0``, ``source0``.., ``scalar0``, ``comparison``): the
  constructor derives ``SOURCES``, ``GPR_INPUTS``, ``DIRECT_ARGUMENTS`` and the
  B.DATR operand fields (CMode) from them, so a new declared operation states only
  its name, kind, type set and element function.

What the TEPL bundle flow (``commit_bundle``; ExecuteBundleTileOperationLocally after
the block-level steps: asl/block/model/dispatch/tile-execution.asl for the order,
descriptor-legality.asl, scalar-schema.asl, tile-schema.asl) does, in order, and the
hook each step calls:

1. no B.IOS; exactly ``DESTINATIONS`` destinations, ``SOURCES`` sources, a terminated
   B.IOT stream and no surplus B.IOR field (Fault_BundleControl)
2. ``gpr_values_check(state, block)``: BundleOperationGPRBindingValuesLegal (default: none)
3. the B.DATR fields outside ``DATR_ALLOWED`` are zero (``block._check_datr_applicability``)
4. ``closed_schema_check(state, block)``: its SelectedBundleClosed*SchemaLegal; a kind
   usually gives ``schema_legal(state, block) -> bool`` and ``schema_summary()`` instead
5. one PE mask across the bindings
6. ``resolve_destination(state, block) -> (index, tile)``: the renamed, allocated,
   not yet published destination; the default asks ``destination_shape(state, block)``
   for (valid_rows, valid_cols, cols) (default: LB1|1, LB0, LB2|LB0) and lets the block
   allocate it; a destination of its own kind (a predicate tile) overrides this.
   ``resolve_destinations(state, block) -> [(index, tile)]`` is the step itself: every
   destination, renamed in binding order (``block.resolve_destinations``: the indices
   first, none taken twice, then the capacity of all, then every shape, nothing
   published); its default is ``[resolve_destination(...)]``, and an operation of two
   destinations (TSORT) overrides it
7. ``execute_destinations(state, block, destinations, profile) -> Publication`` with
   that list; its default hands the one destination to ``execute_bundle(state, block,
   index, destination, profile)``: operand legality and execution against the allocated
   destination; a declaration's default reads its operands (sources, the B.IOR scalar,
   PadValue, B.DATR operand fields) and calls ``run``. An operation of two destinations
   overrides ``execute_destinations``; its ``Publication`` holds both tiles, and the
   numeric status with them, so both are published at once or neither is

A direct call: ``direct(state, call, profile) -> Publication`` (a declaration's default
reads the same operands from the call and calls ``run``); ``check_call(call)`` may refuse
a normalized call (``ValueError``; default: accept). A declaration's ``run(tiles, dst,
sources, scalar, pad, profile, limit, **datr_operands)`` starts with
``check_operands`` (every source defined, then the kind's ``operands_check``, both
Fault_TileLegality) and ends in a ``Publication``; ``status(flags, profile)`` turns its
element flags into the NumericStatus bits it records.

The CUBE operations (TMATMUL, TGEMV and their BIAS, ACC and MX forms) are declarations of
the kind ``cube.CubeOperation``: name, BSTART form and CUBE function number; its
``commit_bundle`` is the one CUBE flow (ExecuteBundleTMATMULOperation: mandatory B.FPATR,
M/N/K from LB0-2, binding order, the C/D rule, allocation, post-processing) and its
``direct`` the TileOperandsLegal_* rules; it adds no hook to this class.

Where the coming families' hooks go (added here, to this class, when an operation
needs them; none exists before its first user):

- two destinations (TSORT: values and U32 indices): ``DESTINATIONS``, step 6's
  ``resolve_destinations`` and step 7's ``execute_destinations`` (``ops/sorting.py``)
- a destination-only block (TCI, TTRI: ``generation.TileGenerate``): ``SOURCES = 0`` passes
  step 1 (TEXPANDS is one too); its B.IOR value rules are ``gpr_values_check`` (step 2), its
  shape the default LB shape of ``destination_shape``; THISTOGRAM and TDEQUANT
  (``thistogram.py``, ``tdequant.py``) are operation modules over the same flow, and the
  row-indexed TGATHER/TSCATTER (``indexed.TileIndexed``) take the open path below
- reductions and broadcasts with ValidRow x 1 or 1 x ValidCol destinations:
  ``destination_shape``; the padding they write is the kind's ``run``
- a memory footprint (TLOAD, TSTORE, TPREFETCH; MGATHER.. join it): the kind
  ``memory_flow.MemoryFlow`` has a flow of its own (``commit_bundle``: bindings, B.IOR
  values, B.DATR, masks, destination, then ``memory_operands(state, block, index, tile)``,
  ``memory_footprint(state, operands) -> memory.Footprint``, probed whole by
  ``memory.probe`` before anything is read or written, and ``transfer(...)``); its
  ``Publication`` carries the new memory image and the events. A TLSU entry (``TLSU``)
  also answers a CUBE transport Layout through ``cube_transport(state, block, profile)``
- a per-tile feature-map descriptor (TIMG2COL): read by the kind's operand checks from
  the state, which owns it
- the open schema (no SelectedBundleClosed*SchemaLegal: TFILLPAD, TCONCAT, TEXTRACT,
  TINSERT, TTRANS, ``rearrange.TileRearrangement``): ``closed_schema_check`` does nothing and
  ``destination_shape`` is ``block.derived_shape``; the B.DIM operand fields ``natural0`` and
  ``natural1`` are the direct-call arguments ``row_offset`` and ``column_offset``
- a result that starts from an old destination's contents (TINSERT: the old destination
  is source0, whose uncovered payload and definedness the result keeps): the kind's
  ``initial_contents`` hook, never a branch in the flow
"""
from __future__ import annotations

from .. import block as blocks
from ..faults import bundle_control, tile_legality
from ..state import MachineState, source_contents_defined
from .common import Publication, status_bits
from .registry import REQUIRED

# The spec operand field -> the direct-call argument that gives it.
ARGUMENT_KEYS = {"source0": "src", "source1": "src1", "source2": "src2", "scalar0": "scalar", "comparison": "cmode",
                 "natural0": "row_offset", "natural1": "column_offset"}
# The spec operand fields a bundle reads from B.DATR -> the field.
DATR_OPERANDS = {"comparison": "CMode"}
# Operand fields a direct call may omit (0: the zero scalar, CMode EQ, a zero offset).
OPTIONAL_OPERANDS = frozenset({"scalar0", "comparison", "natural0", "natural1"})


class Operation:
    """One modelled operation: the registry protocol (see the module docstring), the TEPL
    bundle flow and the defaults of its hooks."""

    NAME = ""
    BSTART = "BSTART.TEPL"
    MATRIX = False
    SOURCES = 0
    GPR_INPUTS = 0
    DESTINATIONS = 1
    DATR_ALLOWED = frozenset({"PadValue"})  # PadValueOrByteId
    DIRECT_ARGUMENTS: dict = {}
    HANDLER = LEGALITY = ""  # a declaration's semantic and legality handler names (the spec catalog's)
    ARGUMENTS = ()  # a declaration's spec operand fields, in catalog order

    def __init__(self, name: str, element):
        """A declaration: ``name`` and its element function; the counts, the direct-call
        arguments and the B.DATR operand fields follow from the kind's ``ARGUMENTS``."""
        self.NAME = name
        self.element = element
        self.sources = tuple(a for a in self.ARGUMENTS if a.startswith("source"))
        self.SOURCES = len(self.sources)
        self.GPR_INPUTS = sum(a.startswith("scalar") for a in self.ARGUMENTS)
        self.datr_operands = tuple(a for a in self.ARGUMENTS if a in DATR_OPERANDS)
        self.DATR_ALLOWED = self.DATR_ALLOWED | {DATR_OPERANDS[a] for a in self.datr_operands}
        self.DIRECT_ARGUMENTS = {"dst": REQUIRED, **{ARGUMENT_KEYS[a]: 0 if a in OPTIONAL_OPERANDS else REQUIRED
                                                     for a in self.ARGUMENTS[1:]}, "pad": "Null"}

    # --- the TEPL bundle flow ----------------------------------------------
    def commit_bundle(self, state: MachineState, block, profile: str) -> Publication:
        """The whole commit of the block after the block-level steps (steps 1-7 above)."""
        if block.shared:
            raise tile_legality("TEPL operations take no Shared (B.IOS) binding")
        # SPEC-CHOICE 9: the operation documents list a bad B.IOR among the closed-schema
        # (Fault_TileLegality) failures; the executable order checks binding completeness
        # first, so a nonzero surplus B.IOR field (or a wrong binding count) is
        # Fault_BundleControl (digest §7.8). The executable order is used.
        if (len(block.destinations()) != self.DESTINATIONS or len(block.sources()) != self.SOURCES
                or not block.stream_terminated() or not block.scalar_schema_legal(self.GPR_INPUTS)):
            raise bundle_control(f"{self.NAME} needs exactly {self.DESTINATIONS} destination(s) and "
                                 f"{self.SOURCES} source(s) in one terminated B.IOT stream, and no surplus "
                                 f"B.IOR field")
        self.gpr_values_check(state, block)
        blocks._check_datr_applicability(block, self)
        self.closed_schema_check(state, block)
        if not block.masks_equal():
            raise tile_legality("bindings use different PE masks")
        return self.execute_destinations(state, block, self.resolve_destinations(state, block), profile)

    def gpr_values_check(self, state: MachineState, block) -> None:
        """BundleOperationGPRBindingValuesLegal: no GPR value rule unless the operation has one."""

    def closed_schema_check(self, state: MachineState, block) -> None:
        """The operation's SelectedBundleClosed*SchemaLegal (Fault_TileLegality)."""
        if not self.schema_legal(state, block):
            raise tile_legality(f"{self.NAME}: the block does not meet its closed schema ({self.schema_summary()})")

    def schema_legal(self, state: MachineState, block) -> bool:
        raise NotImplementedError(f"{self.NAME} states no closed schema")

    def schema_summary(self) -> str:
        """The closed schema in words, for the fault's detail."""
        return "see the operation's SelectedBundleClosed*SchemaLegal"

    def resolve_destination(self, state: MachineState, block):
        """ResolveBundleTileDestinationsForOperation: (index, tile) of the new destination."""
        return blocks.resolve_destination(state, block, self.destination_shape(state, block))

    def resolve_destinations(self, state: MachineState, block) -> list:
        """Every new destination as (index, tile), renamed in binding order (step 6)."""
        return [self.resolve_destination(state, block)]

    def execute_destinations(self, state: MachineState, block, destinations: list, profile: str) -> Publication:
        """Step 7 with every resolved destination: the one destination to ``execute_bundle``."""
        (index, destination), = destinations
        return self.execute_bundle(state, block, index, destination, profile)

    def destination_shape(self, state: MachineState, block):
        """(valid_rows, valid_cols, cols) of the new destination: the closed schemas' LB shape."""
        return block.shape()

    def execute_bundle(self, state: MachineState, block, index: int, destination, profile: str) -> Publication:
        """A declaration's operands read from the block, then ``run`` against the allocated destination."""
        tiles = list(state.tiles)
        tiles[index] = destination
        datr = {ARGUMENT_KEYS[a]: block.datr_field(DATR_OPERANDS[a]) for a in self.datr_operands}
        return self.run(tiles, index, block.sources(), self.bundle_scalar(state, block), block.pad(), profile,
                        state.tile_capacity, **datr)

    def bundle_scalar(self, state: MachineState, block) -> int:
        """The B.IOR RegSrc0 GPR of an operation with a scalar (0 when B.IOR is omitted)."""
        return block.gpr_inputs(state)[0] if self.GPR_INPUTS and block.ior is not None else 0

    # --- direct calls -------------------------------------------------------
    def direct(self, state: MachineState, call: dict, profile: str) -> Publication:
        """A declaration's operands read from the call, then ``run`` (the destination exists)."""
        sources = [call[ARGUMENT_KEYS[a]] for a in self.sources]
        datr = {ARGUMENT_KEYS[a]: call.get(ARGUMENT_KEYS[a], 0) for a in self.datr_operands}
        return self.run(state.tiles, call["dst"], sources, call.get("scalar", 0), call["pad"], profile,
                        state.tile_capacity, **datr)

    def check_call(self, call: dict) -> None:
        """A direct call needs nothing beyond its arguments unless the operation says so."""

    # --- shared by the bundle and the direct path of a declaration ---------
    def run(self, tiles, dst: int, sources, scalar: int, pad: str, profile: str, limit: int,
            **datr_operands) -> Publication:
        raise NotImplementedError(f"{self.NAME} states no execution")

    def check_operands(self, tiles, dst: int, sources, scalar: int, limit: int) -> None:
        """Every source defined, then the kind's operand legality (both Fault_TileLegality);
        nothing is written yet."""
        if not all(source_contents_defined(tiles[s], limit) for s in sources):
            raise tile_legality(f"{self.NAME}: a source is not a legal, fully defined tile")
        self.operands_check(tiles, dst, sources, scalar, limit)

    def operands_check(self, tiles, dst: int, sources, scalar: int, limit: int) -> None:
        raise NotImplementedError(f"{self.NAME} states no operand legality")

    def status(self, flags, profile: str) -> int:
        """The NumericStatus bits the operation records: the OR of its element flags."""
        return status_bits(flags)


# The protocol members an operation module may define (each overrides the default).
PROTOCOL = frozenset({"NAME", "BSTART", "MATRIX", "SOURCES", "GPR_INPUTS", "DESTINATIONS", "DATR_ALLOWED",
                      "DIRECT_ARGUMENTS", "commit_bundle", "gpr_values_check", "closed_schema_check",
                      "resolve_destination", "resolve_destinations", "destination_shape", "execute_destinations",
                      "execute_bundle", "direct", "check_call"})


_ABSENT = object()


class OperationModule(Operation):
    """An operation written as a module: a protocol member the module defines is read
    from the module at call time, every other member is ``Operation``'s; any other name
    (a module's own helper or constant) is the module's."""

    def __init__(self, module):
        self._module = module

    def __getattribute__(self, name):
        if name in PROTOCOL:
            # the module's namespace read at call time (a mutant may have replaced a member)
            found = object.__getattribute__(self, "_module").__dict__.get(name, _ABSENT)
            if found is not _ABSENT:
                return found
        return object.__getattribute__(self, name)

    def __getattr__(self, name):
        return getattr(object.__getattribute__(self, "_module"), name)
