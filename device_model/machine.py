"""The public golden-model API: a tile machine that runs programs.

    from .machine import Machine
    m = Machine(profile="pto-v0")            # or "hw-ieee"; a machine at reset
    m.configure_tile(1, dtype="U8", capacity=128, cols=8, valid=(1, 2))
    m.write_tile(1, [[7, 9]])                # the valid region (or all rows x cols)
    result = m.run("BSTART.VEC TCVT, U8; B.DATR U16, ND2DN, Null; B.DIM LB0=2; "
                   "B.DIM LB2=8; B.IOT T1, mask=1111, <last>, ->T<2>; BSTOP")
    snap = m.snapshot()

Global memory (PTO_MODEL_MEMORY_BYTES, default 4096) is set up with ``set_memory_size`` and
``write_memory``, PE 1..3's GPR files with ``set_pe_gpr``, shared tile registers with
``configure_shared_tile``/``write_shared_tile``; the snapshot carries ``memory``, the captured
``events`` and ``shared_tiles``, and a data fault's ``RunResult.fault_address``.

``run`` takes a program: an assembly string or a list of items (assembly
strings, raw instruction words, direct-call dicts). Every item is checked
before anything executes: text that is not valid assembly, a word wider than
32 bits or a malformed direct call raises ``ValueError``. After that ``run``
never raises: each instruction either executes or raises an architectural
fault, which ends the program, abandons any open block and leaves the state as
it was before the faulting instruction or block. An instruction that is valid
but outside the modelled set (an operation the registry does not hold, another
BSTART kind, B.CATR, ...) stops the program without a fault: the outcome is
``not modelled`` (``RunResult.stopped`` says which instruction). A BSTART of
an operation that is not modelled still completes the open block first, as
any BSTART does, and the completed block's effects are kept.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache
from typing import Optional

import numpy as np

from . import dtypes
from .block import BlockState, Unmodelled, execute
from .encoding import assemble, decode, disassemble, raw_instruction
from .encoding.assembler import parse_tile
from .encoding.names import CMODE_NAMES, LAYOUT_CODES, ROUNDING_CODES
from .faults import Fault
from .feature_map import describe as describe_feature_map
from .layouts import (cube_geometry, derived_rows, generic_indexing_permitted, is_cube, layout_name,
                      location_name)
from .numeric import PROFILES
from .ops import installed  # noqa: F401  (every operation joins the registry)
from .ops import registry
from .padding import pad_name
from .memory import MAX_MEMORY_BYTES, MEMORY_AGENTS, MIN_MEMORY_BYTES, memory_size_legal
from .state import (GPR_COUNT, MAX_PREDICATE_ELEMENTS, MAX_TILE_CAPACITY, SHARED_TILE_COUNT, TILE_COUNT, WORD_MASK,
                    MachineState, allocation_bytes, capacity_legal, cube_shape_legal, logical_capacity,
                    mask_text, new_cube_tile, new_ordinary_tile, new_predicate_tile, parse_mask,
                    predicate_storage_bytes, shape_legal)


@dataclass
class RunResult:
    fault: Optional[str]  # a Fault_* class, or None
    encoding: list  # every instruction word the program assembles to
    detail: str = ""  # which item faulted or stopped, and why
    stopped: Optional[str] = None  # set when an unmodelled instruction stopped the run
    step: Optional[int] = None  # index of the faulting/stopping step (instructions and calls in order)
    fault_address: Optional[int] = None  # the faulting data address of Fault_DataAlignment/Fault_DataPage

    @property
    def outcome(self) -> str:
        """``fault``, ``not modelled`` (a valid instruction outside the model stopped the
        run; the state holds everything before it, a block it completed included) or
        ``completed``."""
        if self.fault is not None:
            return "fault"
        return "not modelled" if self.stopped is not None else "completed"


@dataclass
class TileView:
    dtype: str
    layout: str
    location: str
    rows: int
    cols: int
    valid: tuple
    capacity: int
    mask: str
    words: np.ndarray  # rows x cols uint64: the Word read at each logical coordinate
    defined: np.ndarray  # rows x cols bool
    storage: np.ndarray  # element bits by storage index (uint64)
    storage_kind: str = "numeric"  # or "predicate"
    bytes: Optional[np.ndarray] = None  # a predicate tile's packed payload bytes (uint8)


@dataclass
class Snapshot:
    flags: int
    tile_capacity_in_use: int
    tiles: dict = field(default_factory=dict)  # TileIndex -> TileView
    tile_capacity: int = 0
    gprs: tuple = ()
    memory: bytes = b""  # the whole memory image
    events: tuple = ()  # memory.MemoryEvent records captured since the program started
    events_overflowed: bool = False  # capture ran past the spec's bound (the first 16 are kept)
    shared_tiles: dict = field(default_factory=dict)  # SharedTileIndex -> TileView
    pe_gprs: tuple = ()  # the four GPR files, PE 0 first

    def differences(self, other: "Snapshot") -> list:
        """Human-readable differences between two snapshots (empty when equal)."""
        out = []
        for name in ("flags", "tile_capacity_in_use", "tile_capacity", "gprs"):
            if getattr(self, name) != getattr(other, name):
                out.append(f"{name}: {getattr(self, name)!r} != {getattr(other, name)!r}")
        for index in sorted(set(self.tiles) | set(other.tiles)):
            mine, theirs = self.tiles.get(index), other.tiles.get(index)
            if mine is None or theirs is None:
                out.append(f"tile {index}: allocated {mine is not None} != {theirs is not None}")
                continue
            for name in ("storage_kind", "dtype", "layout", "location", "rows", "cols", "valid", "capacity", "mask"):
                if getattr(mine, name) != getattr(theirs, name):
                    out.append(f"tile {index} {name}: {getattr(mine, name)!r} != {getattr(theirs, name)!r}")
            for name in ("words", "defined", "storage", "bytes"):
                if not np.array_equal(getattr(mine, name), getattr(theirs, name)):
                    out.append(f"tile {index} {name} differ")
        return out

    def same_as(self, other: "Snapshot") -> bool:
        return not self.differences(other)


@dataclass(frozen=True)
class _Step:
    """One prepared program item: an instruction word or a direct call."""

    text: str
    word: Optional[int] = None
    length: int = 32
    call: Optional[dict] = None


class Machine:
    def __init__(self, profile: str = "pto-v0"):
        if profile not in PROFILES:
            raise ValueError(f"unknown numeric profile {profile!r}; expected one of {', '.join(PROFILES)}")
        self.profile = profile
        self._state = MachineState()
        self._block = BlockState()

    # --- setup -------------------------------------------------------------
    def set_tile_capacity(self, capacity: int) -> None:
        """The core tile capacity system register (bytes; reset 262144)."""
        if not isinstance(capacity, int) or not 0 <= capacity <= MAX_TILE_CAPACITY:
            raise ValueError(f"tile capacity {capacity!r} must be an int 0..{MAX_TILE_CAPACITY}")
        self._state.tile_capacity = capacity

    def set_status(self, flags: int) -> None:
        """NumericStatus flags (NV=0x01 DZ=0x02 OF=0x04 UF=0x08 NX=0x10)."""
        if not isinstance(flags, int) or not 0 <= flags <= 0x1F:
            raise ValueError(f"numeric status {flags!r} must be a 5-bit int")
        self._state.status = flags

    def set_gpr(self, index: int, value: int) -> None:
        if not isinstance(index, int) or not 1 <= index < GPR_COUNT:
            raise ValueError(f"GPR index {index!r} must be 1..{GPR_COUNT - 1} (R0 reads zero)")
        self._state.gprs[index] = _word(value, f"GPR R{index} value")

    def set_pe_gpr(self, pe: int, index: int, value: int) -> None:
        """GPR ``index`` of PE ``pe``'s private file (PE 0's file is ``set_gpr``'s)."""
        if isinstance(pe, bool) or not isinstance(pe, int) or not 0 <= pe < MEMORY_AGENTS:
            raise ValueError(f"PE {pe!r} must be 0..{MEMORY_AGENTS - 1}")
        if pe == 0:
            self.set_gpr(index, value)
            return
        if not isinstance(index, int) or not 1 <= index < GPR_COUNT:
            raise ValueError(f"GPR index {index!r} must be 1..{GPR_COUNT - 1} (R0 reads zero)")
        files = list(self._state.peer_gprs)
        registers = list(files[pe - 1])
        registers[index] = _word(value, f"PE {pe} GPR R{index} value")
        files[pe - 1] = tuple(registers)
        self._state.peer_gprs = tuple(files)

    def set_memory_size(self, size: int) -> None:
        """PTO_MODEL_MEMORY_BYTES (256..65536; default 4096): memory becomes that many zero bytes."""
        if not memory_size_legal(size):
            raise ValueError(f"memory size {size!r} must be an int {MIN_MEMORY_BYTES}..{MAX_MEMORY_BYTES}")
        self._state.memory = bytes(size)

    def write_memory(self, address: int, data: bytes) -> None:
        """Set memory bytes from ``address`` on (set-up: no event, no fault; the bytes must fit)."""
        data = bytes(data)
        size = self._state.memory_size
        if isinstance(address, bool) or not isinstance(address, int) or address < 0 or address + len(data) > size:
            raise ValueError(f"memory region at {address!r} of {len(data)} bytes does not fit the {size}-byte memory")
        image = bytearray(self._state.memory)
        image[address:address + len(data)] = data
        self._state.memory = bytes(image)

    def configure_tile(self, index, dtype, capacity: int, cols: Optional[int] = None, valid=(1, 1),
                       layout: str = "RowMajor", location: Optional[str] = None, mask="1111") -> None:
        """Allocate tile ``index`` (every element undefined). Rows are derived from
        capacity, columns and type; CUBE layouts derive rows and columns from the
        valid region and need location Matrix."""
        index = _tile_index(index)
        limit = self._state.tile_capacity
        where = f"configure_tile({index})"
        tile = _configured_tile(where, dtype, capacity, cols, valid, layout, location, mask, limit)
        if self._state.capacity_in_use(excluding=index) + allocation_bytes(tile.mask, capacity) > limit:
            raise ValueError(f"{where}: the tile capacity {limit} would be exceeded")
        self._state.tiles[index] = tile

    def configure_shared_tile(self, index: int, dtype, capacity: int, cols: Optional[int] = None, valid=(1, 1),
                              layout: str = "RowMajor", location: Optional[str] = None, mask="1111") -> None:
        """Configure shared tile register S``index`` (0..255) with the descriptor rules of
        ``configure_tile`` (every element undefined); shared registers are not counted in
        the core tile capacity."""
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < SHARED_TILE_COUNT:
            raise ValueError(f"shared tile {index!r} must be a SharedTileIndex 0..{SHARED_TILE_COUNT - 1}")
        tile = _configured_tile(f"configure_shared_tile({index})", dtype, capacity, cols, valid, layout, location,
                                mask, MAX_TILE_CAPACITY)
        shared = list(self._state.shared_tiles)
        shared[index] = tile
        self._state.shared_tiles = tuple(shared)

    def write_shared_tile(self, index: int, words, defined=None) -> None:
        """``write_tile`` for shared tile register S``index``."""
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < SHARED_TILE_COUNT:
            raise ValueError(f"shared tile {index!r} must be a SharedTileIndex 0..{SHARED_TILE_COUNT - 1}")
        tile = self._state.shared_tiles[index]
        if tile is None:
            raise ValueError(f"write_shared_tile({index}): the shared tile is not configured")
        shared = list(self._state.shared_tiles)
        shared[index] = _written(tile, words, defined, f"write_shared_tile({index})")
        self._state.shared_tiles = tuple(shared)

    def configure_predicate_tile(self, index, capacity: int, rows: int, cols: int, valid=(1, 1),
                                 mask="1111") -> None:
        """Allocate ``index`` as a predicate tile (ConfigurePredicateTileForMask): U8
        RowMajor in Any, ``rows`` x ``cols`` one-bit elements packed low bit first into
        ``capacity`` bytes, every bit undefined. ``write_tile`` then writes bits (0/1)."""
        index = _tile_index(index)
        mask = parse_mask(mask)
        valid_rows, valid_cols = (int(v) for v in valid)
        limit = self._state.tile_capacity
        where = f"configure_predicate_tile({index})"
        _check_allocation(where, mask, capacity, limit)
        if not (0 < rows and 0 < cols and rows * cols <= MAX_PREDICATE_ELEMENTS):
            raise ValueError(f"{where}: {rows}x{cols} is not 1 to {MAX_PREDICATE_ELEMENTS} predicate elements")
        if predicate_storage_bytes(rows, cols) > capacity:
            raise ValueError(f"{where}: {capacity} bytes cannot hold {rows}x{cols} packed bits")
        if valid_rows > rows or valid_cols > cols:
            raise ValueError(f"{where}: valid {valid_rows}x{valid_cols} does not fit {rows}x{cols}")
        if self._state.capacity_in_use(excluding=index) + allocation_bytes(mask, capacity) > limit:
            raise ValueError(f"{where}: the tile capacity {limit} would be exceeded")
        self._state.tiles[index] = new_predicate_tile(capacity, rows, cols, valid_rows, valid_cols, mask)

    def write_tile(self, index, words, defined=None) -> None:
        """Write Words at logical coordinates: ``words`` covers either every
        rows x cols coordinate or just the valid region; ``defined`` (same shape,
        default all True) marks definedness. Packed tiles keep the element bits; a
        predicate tile takes bits 0/1 (WriteTilePredicateBit)."""
        index = _tile_index(index)
        tile = self._state.tiles[index]
        if tile is None:
            raise ValueError(f"write_tile({index}): the tile is not configured")
        self._state.tiles[index] = _written(tile, words, defined, f"write_tile({index})")

    def configure_feature_map(self, index, **fields) -> None:
        """Set tile ``index``'s feature-map descriptor (ConfigureTileFeatureMapDescriptor: the
        tile must be allocated; ``feature_map.describe`` gives the fields and their defaults).
        Reallocating the tile invalidates it."""
        index = _tile_index(index)
        tile = self._state.tiles[index]
        if tile is None:
            raise ValueError(f"configure_feature_map({index}): the tile is not configured")
        try:
            descriptor = describe_feature_map(fields)
        except ValueError as exc:
            raise ValueError(f"configure_feature_map({index}): {exc}") from None
        self._state.tiles[index] = tile.with_descriptor(feature_map=descriptor)

    # --- execution ---------------------------------------------------------
    def run(self, program) -> RunResult:
        steps = _prepare(program)
        encoding = [step.word for step in steps if step.call is None]
        for number, step in enumerate(steps):
            try:
                if step.call is not None:
                    publication = registry.find(step.call["call"]).direct(self._state, step.call, self.profile)
                    self._state = publication.apply(self._state)
                else:
                    decoded = _decoded(step.word, step.length)
                    self._state, self._block = execute(decoded, self._state, self._block, self.profile)
            except Fault as fault:
                self._block = BlockState()
                return RunResult(fault.kind, encoding, f"step {number} ({step.text}): {fault.reason}",
                                 step=number, fault_address=fault.address)
            except Unmodelled as stop:
                if stop.state is not None:  # the stopping BSTART completed the open block
                    self._state = stop.state
                self._block = BlockState()
                return RunResult(None, encoding, f"step {number} ({step.text}): {stop}", stopped=step.text,
                                 step=number)
        detail = "block still open at the end of the program" if self._block.active else ""
        return RunResult(None, encoding, detail)

    # --- observation -------------------------------------------------------
    def tile_shape(self, index, shared: bool = False) -> tuple:
        """(rows, cols) of configured tile ``index`` (shared: shared tile register S``index``),
        what ``snapshot()`` reports for it, without building the snapshot."""
        tile = self._state.shared_tiles[index] if shared else self._state.tiles[_tile_index(index)]
        if tile is None:
            raise ValueError(f"{'shared ' if shared else ''}tile {index!r} is not configured")
        return tile.rows, tile.cols

    def snapshot(self) -> Snapshot:
        state = self._state
        tiles = {index: _view(tile) for index, tile in enumerate(state.tiles) if tile is not None}
        shared = {index: _view(tile) for index, tile in state.configured_shared_tiles()}
        return Snapshot(state.status, state.capacity_in_use(), tiles, state.tile_capacity,
                        tuple(state.gprs), state.memory, state.memory_events, state.memory_log.overflowed,
                        shared, state.pe_gprs)


def _view(tile) -> TileView:
    return TileView(tile.dtype.name, tile.layout, tile.location, tile.rows, tile.cols,
                    (tile.valid_rows, tile.valid_cols), tile.capacity, mask_text(tile.mask),
                    tile.words(), tile.defined_grid(),
                    tile.payload & np.uint64(tile.dtype.mask), tile.storage_kind,
                    tile.packed_bytes() if tile.predicate else None)


# ----------------------------------------------------------------------------
# Program preparation: every item is validated before anything executes.

def _word(value, what: str) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{what} {value!r} must be an integer")
    value = int(value)
    if not -(1 << 63) <= value <= WORD_MASK:
        raise ValueError(f"{what} {value:#x} does not fit 64 bits")
    return value & WORD_MASK


_TYPE_OF = np.frompyfunc(type, 1, 1)


def _words_array(words, what: str) -> np.ndarray:
    array = words if isinstance(words, np.ndarray) else np.asarray(words, dtype=object)
    if array.ndim != 2:
        raise ValueError(f"{what} must be a 2-D array (rows of Words)")
    if array.dtype.kind == "u":
        return array.astype(np.uint64)
    if array.dtype.kind == "i":
        return array.astype(np.int64).astype(np.uint64)
    if not array.size:
        return array.astype(np.uint64)
    if array.dtype == object and set(_TYPE_OF(array).ravel().tolist()) == {int} \
            and not (array < -(1 << 63)).any() and not (array > WORD_MASK).any():
        return (array & WORD_MASK).astype(np.uint64)  # plain ints that fit: what _word gives, whole tile at once
    return np.vectorize(lambda v: _word(v, what), otypes=[np.uint64])(array)  # names the first bad value


_WHERE = "\x00where\x00"  # stands for the caller's name in a refusal of the cached allocation


def _configured_tile(where: str, dtype, capacity: int, cols, valid, layout, location, mask, limit: int):
    """The tile ``configure_tile`` allocates (every element undefined), its descriptor checked
    against the tile rules (ValueError otherwise). One blank tile per descriptor is shared by
    every machine: its arrays are read-only (a write makes a copy, as ``_written`` does), and
    its derived members are computed once."""
    try:
        return _blank_configured_tile(dtype, capacity, cols, valid, layout, location, mask, limit)
    except ValueError as exc:
        raise ValueError(str(exc).replace(_WHERE, where)) from None
    except TypeError:  # an unhashable argument: checked uncached, for its own message
        return _checked_tile(where, dtype, capacity, cols, valid, layout, location, mask, limit)


@lru_cache(maxsize=4096, typed=True)  # typed: True, 1 and 1.0 are different arguments
def _blank_configured_tile(dtype, capacity, cols, valid, layout, location, mask, limit):
    tile = _checked_tile(_WHERE, dtype, capacity, cols, valid, layout, location, mask, limit)
    tile.payload.setflags(write=False)
    tile.defined.setflags(write=False)
    return tile


def _checked_tile(where: str, dtype, capacity: int, cols, valid, layout, location, mask, limit: int):
    t = dtypes.dtype(dtype)
    layout = layout_name(layout)
    location = location_name(location or ("Matrix" if is_cube(layout) else "Any"))
    mask = parse_mask(mask)
    valid_rows, valid_cols = (int(v) for v in valid)
    _check_allocation(where, mask, capacity, limit)
    if is_cube(layout):
        if location != "Matrix":
            raise ValueError(f"{where}: a {layout} tile has location Matrix")
        if not cube_shape_legal(capacity, valid_rows, valid_cols, t, layout, limit):
            raise ValueError(f"{where}: no legal {layout} {t.name} tile of valid {valid_rows}x{valid_cols} "
                             f"fits {capacity} bytes")
        geometry = cube_geometry(layout, t, valid_rows, valid_cols)
        if cols is not None and cols != geometry.cols:
            raise ValueError(f"{where}: {layout} columns are derived ({geometry.cols}), not {cols}")
        tile = new_cube_tile(t, layout, capacity, valid_rows, valid_cols, mask)
    else:
        if cols is None:
            raise ValueError(f"{where}: cols is required for layout {layout}")
        rows = derived_rows(capacity, cols, t.bits)
        if not shape_legal(capacity, cols, valid_rows, valid_cols, t) or \
                rows * cols > logical_capacity(capacity, t):
            raise ValueError(f"{where}: {capacity} bytes of {t.name} with {cols} columns (a power of two "
                             f"dividing the capacity) cannot hold valid {valid_rows}x{valid_cols}")
        if not generic_indexing_permitted(layout, t.bits, rows, cols):
            raise ValueError(f"{where}: {layout} needs rows % 16 == 0 and cols % {256 // t.bits} == 0 "
                             f"(got {rows}x{cols})")
        tile = new_ordinary_tile(t, layout, location, capacity, cols, valid_rows, valid_cols, mask)
    return tile


def _written(tile, words, defined, where: str):
    """``tile`` with ``words`` written at logical coordinates (see ``Machine.write_tile``)."""
    values = _words_array(words, f"{where} words")
    region = values.shape
    if region not in ((tile.rows, tile.cols), (tile.valid_rows, tile.valid_cols)):
        raise ValueError(f"{where}: words shape {region} is neither rows x cols "
                         f"{(tile.rows, tile.cols)} nor the valid region {(tile.valid_rows, tile.valid_cols)}")
    if tile.predicate and (values > 1).any():
        raise ValueError(f"{where}: a predicate tile holds bits 0 and 1")
    flags = np.ones(region, dtype=bool) if defined is None else np.asarray(defined, dtype=bool)
    if flags.shape != region:
        raise ValueError(f"{where}: defined shape {flags.shape} differs from words {region}")
    target = tile.index_map[: region[0], : region[1]]
    payload, defined_array = tile.payload.copy(), tile.defined.copy()
    payload[target] = values & np.uint64(tile.element_mask)
    defined_array[target] = flags
    return tile.with_contents(payload, defined_array)


def _check_allocation(where: str, mask: int, capacity: int, limit: int) -> None:
    """What every configure_* call needs: a nonzero allocation mask and a legal capacity."""
    if mask == 0:
        raise ValueError(f"{where}: the allocation mask must be nonzero")
    if not capacity_legal(capacity, limit):
        raise ValueError(f"{where}: capacity {capacity} must be a multiple of 128 from 128 to 65536 "
                         f"and at most the tile capacity {limit}")


def _tile_index(value) -> int:
    if isinstance(value, str):
        return parse_tile(value)
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool) and 0 <= value < TILE_COUNT:
        return int(value)
    raise ValueError(f"tile {value!r} must be a TileIndex 0..63 or a name like T1/U0")


@lru_cache(maxsize=8192)
def _assembled(text: str) -> tuple:
    """The steps of one assembly-text item (pure; a cases' programs repeat their texts, so
    each is assembled once; text that does not assemble raises every time, as it is not cached)."""
    return tuple(_Step(ins.text, ins.word, ins.length) for ins in assemble(text))


@lru_cache(maxsize=8192)
def _decoded(word: int, length: int):
    """``decode``, once per word (pure; an illegal word raises its Fault every time, uncached).
    The executor reads a decoded command's fields and never writes them."""
    return decode(word, length)


def _prepare(program) -> list:
    items = [program] if isinstance(program, str) else list(program)
    steps = []
    for number, item in enumerate(items):
        if isinstance(item, str):
            steps.extend(_assembled(item))
        elif isinstance(item, (int, np.integer)) and not isinstance(item, bool):
            ins = raw_instruction(int(item))
            steps.append(_Step(disassemble(ins.word, ins.length), ins.word, ins.length))
        elif isinstance(item, dict):
            try:
                call = _direct_call(item)
            except ValueError as exc:
                raise ValueError(f"program item {number}: {exc}") from None
            steps.append(_Step(f"direct {call['call']}", call=call))
        else:
            raise ValueError(f"program item {number} ({item!r}) is not assembly text, a word or a direct call")
    return steps


_TILE_ARGUMENTS = frozenset({"dst", "dst1", "src", "src1", "src2", "acc", "a", "a_scale", "b", "b_scale", "bias"})
_TYPE_ARGUMENTS = frozenset({"dtype", "atype", "btype"})
_FLAG_ARGUMENTS = frozenset({"sat", "canonicalize", "descending", "upper"})
_COUNT_ARGUMENTS = frozenset({"sort_width"})  # small integers an operation bounds in its check_call
_WORD_ARGUMENTS = frozenset({"scalar", "multiplier", "zero_point", "quant_param", "relu_param", "start", "diagonal",
                             "selected_byte"})
_NATURAL_ARGUMENTS = frozenset({"row_offset", "column_offset"})  # integer {0..65535} operand fields


def _direct_call(item: dict) -> dict:
    """Normalize a direct-call dict (see vectors/FORMAT.md "program") by the
    arguments its registered operation declares (``DIRECT_ARGUMENTS``)."""
    name = str(item.get("call", "")).upper()
    entry = registry.find(name)
    if entry is None:
        raise ValueError(f"direct call {item.get('call')!r}: expected one of {', '.join(registry.names())}")
    arguments = entry.DIRECT_ARGUMENTS
    unknown = set(item) - set(arguments) - {"call"}
    if unknown:
        raise ValueError(f"direct {name}: unknown argument(s) {', '.join(sorted(unknown))}")
    missing = [key for key, default in arguments.items() if default is registry.REQUIRED and item.get(key) is None]
    if missing:
        raise ValueError(f"direct {name}: missing {', '.join(missing)}")
    call = {"call": name}
    for key, default in arguments.items():
        value = item.get(key)
        call[key] = _direct_argument(name, key, default if value is None else value)
    entry.check_call(call)
    return call


def _direct_argument(name: str, key: str, value):
    """One direct-call argument in the form the operations read (None stays None)."""
    if value is None or key == "fpatr":
        return value
    if key in _TILE_ARGUMENTS:
        return _tile_index(value)
    if key in _TYPE_ARGUMENTS:
        return dtypes.dtype(value)
    if key in _FLAG_ARGUMENTS:
        if value not in (0, 1, True, False):
            raise ValueError(f"direct {name}: {key} must be 0 or 1")
        return bool(value)
    if key in _WORD_ARGUMENTS:
        return _word(value, f"direct {name} {key}")
    if key in _COUNT_ARGUMENTS:
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
            raise ValueError(f"direct {name}: {key} must be an integer")
        return int(value)
    if key in _NATURAL_ARGUMENTS:
        if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 65535:
            raise ValueError(f"direct {name}: {key} must be an integer 0..65535")
        return value
    if key == "pad":
        return pad_name(value)
    if key == "rounding":
        code = value if isinstance(value, int) and 0 <= value <= 7 else ROUNDING_CODES.get(str(value).upper())
        if code is None:
            raise ValueError(f"direct {name}: unknown rounding {value!r}")
        return code
    if key == "layout":
        code = value if isinstance(value, int) else LAYOUT_CODES.get(str(value).upper())
        if code is None or not 0 <= code <= 31:
            raise ValueError(f"direct {name}: unknown layout transform {value!r}")
        return code
    if key == "cmode":
        code = value if isinstance(value, int) and 0 <= value <= 5 else \
            (CMODE_NAMES.index(str(value).upper()) if str(value).upper() in CMODE_NAMES else None)
        if code is None:
            raise ValueError(f"direct {name}: unknown comparison {value!r}")
        return code
    raise AssertionError(f"{name} declares direct argument {key!r} of no known kind")
