"""Architectural tile-machine state: tiles, descriptors, definedness, GPRs,
numeric status and the core tile capacity.

Facts from asl/tile/model/state/*, shape/*, definedness/*, capacity/local.asl
and legality/{descriptor-shape,dtype-layout,pe-mask}.asl.

A ``Tile`` is immutable: operations build new tiles and the machine publishes
them all at once, so a rejected operation never leaves a partial update.
Payload and definedness are numpy arrays indexed by storage index (the layout's
physical index). A non-packed tile keeps the whole 64-bit Word written at each
index; a packed-carrier tile (4-bit type in an ordinary layout, or more than
32768 elements) keeps only the element bits, and reads zero-extend them.

A predicate tile (TileStorage_Predicate, asl/tile/model/state/allocation.asl
ConfigurePredicateTileForMask) is a U8 RowMajor tile of explicit rows x cols
one-bit elements: its payload holds 0 or 1 per logical index row*cols+col and
``packed_bytes`` gives the spec's storage, bit i mod 8 of byte floor(i/8).
"""
from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Optional

import numpy as np

from . import dtypes as dt
from .layouts import (CELL_BYTES, MODEL_TILE_ELEMENTS, cube_geometry, cube_index_map,
                      derived_rows, generic_indexing_permitted, is_cube, ordinary_index_map)
from .memory import DEFAULT_MEMORY_BYTES, MEMORY_AGENTS, EventLog

TILE_COUNT = 64
SHARED_TILE_COUNT = 256  # PTO_SHARED_TILE_COUNT: S0..S255
HANDS = "TUMN"  # hand index = TileIndex // 16
GPR_COUNT = 24  # absolute GPRs R0..R23; R0 reads zero
RESET_TILE_CAPACITY = 262144
MAX_TILE_CAPACITY = 262144
MAX_LOCAL_ALLOCATION = 65536
WORD_MASK = (1 << 64) - 1

# B.IOT PEMode -> allocation mask (b3b2b1b0 = PE0 PE1 PE2 PE3).
PE_MASK_OF_MODE = (0b0000, 0b1000, 0b0100, 0b0010, 0b0001, 0b1100, 0b1110, 0b1111)
PE_MODE_OF_MASK = {mask: mode for mode, mask in enumerate(PE_MASK_OF_MODE)}
SIZE_CODE_BYTES = {code: 64 << code for code in range(1, 13)}  # 1: 128 B ... 10: 64 KiB
NUMERIC, PREDICATE = "numeric", "predicate"  # TileStorageKind
# SPEC-CHOICE 30: TilePredicateLogicalIndex ranges over {0..16383}, so the executable spec cannot
# address a predicate element past 16383 (ConfigurePredicateTileForMask itself allows up to
# PTO_MODEL_TILE_ELEMENTS). The model holds predicate tiles of at most 16384 elements; a
# predicate destination of more is Fault_TileAllocation.
MAX_PREDICATE_ELEMENTS = 16384


def mask_text(mask: int) -> str:
    return format(mask, "04b")


def parse_mask(mask) -> int:
    """A 4-bit allocation mask from "1111" / 0b1111."""
    if isinstance(mask, str):
        text = mask.strip()
        if len(text) != 4 or set(text) - {"0", "1"}:
            raise ValueError(f"PE mask {mask!r} must be four binary digits b3b2b1b0")
        return int(text, 2)
    if isinstance(mask, int) and 0 <= mask <= 15:
        return mask
    raise ValueError(f"PE mask {mask!r} must be four binary digits or an int 0..15")


def tile_name(index: int) -> str:
    """Project spelling of a TileIndex: hand letter and index within the hand (T0..N15)."""
    return f"{HANDS[index // 16]}{index % 16}"


def capacity_legal(capacity: int, limit: int) -> bool:
    """TileCapacityIsLegal for Local tiles."""
    return (capacity >= CELL_BYTES and capacity % CELL_BYTES == 0
            and capacity <= MAX_LOCAL_ALLOCATION and capacity <= limit)


def logical_capacity(capacity: int, dtype) -> int:
    return capacity * 8 // dtype.bits


def predicate_storage_bytes(rows: int, cols: int) -> int:
    """PredicateTileStorageBytes: one bit per logical element, rounded up to bytes."""
    return (rows * cols + 7) // 8


def shape_legal(capacity: int, cols: int, valid_rows: int, valid_cols: int, dtype) -> bool:
    """TileDescriptorShapeLegal."""
    rows = derived_rows(capacity, cols, dtype.bits)
    return (rows != 0 and valid_rows <= rows and valid_cols <= cols
            and valid_rows * valid_cols <= logical_capacity(capacity, dtype))


def cube_shape_legal(capacity: int, valid_rows: int, valid_cols: int, dtype, layout: str,
                     limit: int) -> bool:
    """TileCubeDescriptorShapeLegal."""
    if not capacity_legal(capacity, limit):
        return False
    geometry = cube_geometry(layout, dtype, valid_rows, valid_cols)
    return geometry is not None and geometry.required_bytes <= capacity


class _once:
    """A member computed on first read and kept in the instance ``__dict__`` (which then
    answers every later read): ``functools.cached_property`` without the lock Python 3.11
    takes on every first read, which a tile is (a new one at every write and result)."""

    def __init__(self, compute):
        self.compute, self.name, self.__doc__ = compute, compute.__name__, compute.__doc__

    def __get__(self, instance, owner=None):
        if instance is None:
            return self
        value = instance.__dict__[self.name] = self.compute(instance)
        return value


@dataclass(frozen=True, eq=False)
class Tile:
    """One allocated tile register: descriptor, payload and definedness."""

    dtype: dt.DataType
    layout: str
    location: str
    capacity: int
    rows: int
    cols: int
    valid_rows: int
    valid_cols: int
    mask: int
    payload: np.ndarray = field(repr=False)  # uint64 by storage index
    defined: np.ndarray = field(repr=False)  # bool by storage index
    storage_kind: str = NUMERIC
    # The register's TileFeatureMapDescriptor (feature_map.FeatureMap), or None: invalid. A new
    # allocation is a new Tile without one; content writes (with_contents) keep it.
    feature_map: Optional[object] = None

    @property
    def predicate(self) -> bool:
        return self.storage_kind == PREDICATE

    # The members below derive from the descriptor alone, so each is computed once per Tile
    # (``_once`` keeps it in the instance ``__dict__``; ``_copied`` drops them when a
    # change touches the descriptor fields they read).
    @_once
    def cube(self) -> bool:
        return is_cube(self.layout)

    @_once
    def packed(self) -> bool:
        """TileUsesPackedCarrierRepresentation."""
        return not self.cube and (self.dtype.bits == 4 or self.rows * self.cols > MODEL_TILE_ELEMENTS)

    def packed_bytes(self) -> np.ndarray:
        """A predicate tile's payload bytes as stored: logical element i in bit i mod 8 of
        byte floor(i/8) (ReadTilePredicateByte); an undefined bit reads as the 0 it holds."""
        return np.packbits((self.payload & np.uint64(1)).astype(np.uint8), bitorder="little")

    @_once
    def element_mask(self) -> int:
        """Bits a write keeps: the element bits when packed (one for a predicate), else the whole Word."""
        if self.predicate:
            return 1
        return self.dtype.mask if self.packed else WORD_MASK

    @_once
    def index_map(self) -> np.ndarray:
        if self.cube:
            return cube_index_map(self.layout, self.dtype.bits, self.rows, self.cols)
        return ordinary_index_map(self.layout, self.dtype.bits, self.rows, self.cols)

    @_once
    def valid_index(self) -> np.ndarray:
        return self.index_map[: self.valid_rows, : self.valid_cols]

    @property
    def valid_region(self) -> np.ndarray:
        """rows x cols bools: True inside the valid region."""
        region = np.zeros((self.rows, self.cols), dtype=bool)
        region[: self.valid_rows, : self.valid_cols] = True
        return region

    def words(self) -> np.ndarray:
        """rows x cols Words read at logical coordinates."""
        return self.payload[self.index_map]

    def defined_grid(self) -> np.ndarray:
        return self.defined[self.index_map]

    def valid_words(self) -> np.ndarray:
        return self.payload[self.valid_index]

    def contents_defined(self) -> bool:
        return bool(self.defined[self.valid_index].all())

    def encodings_valid(self) -> bool:
        """Every valid element passes TileNumericEncodingValid."""
        if not self.dtype.must_be_zero:
            return True
        return not bool((self.valid_words() & np.uint64(self.dtype.must_be_zero)).any())

    def with_contents(self, payload: np.ndarray, defined: np.ndarray) -> "Tile":
        return self._copied({"payload": payload, "defined": defined})

    def with_descriptor(self, **changes) -> "Tile":
        return self._copied(changes)

    def _copied(self, changes: dict) -> "Tile":
        """``dataclasses.replace`` without its per-call field walk (a tile is copied on every
        write and result); a name that is no field still goes through ``replace``'s TypeError."""
        if not changes.keys() <= _FIELDS:
            return replace(self, **changes)
        new = object.__new__(type(self))
        new.__dict__.update(self.__dict__)
        if not changes.keys() <= _CONTENT_FIELDS:
            for name in _DERIVED:
                new.__dict__.pop(name, None)
        new.__dict__.update(changes)
        return new


_FIELDS = frozenset(Tile.__dataclass_fields__)
# Fields a change of which leaves the cached descriptor members (_DERIVED) as they are.
_CONTENT_FIELDS = frozenset({"payload", "defined", "location", "mask", "feature_map"})
_DERIVED = ("cube", "packed", "element_mask", "index_map", "valid_index")


def blank_tile(dtype, layout: str, location: str, capacity: int, rows: int, cols: int,
               valid_rows: int, valid_cols: int, mask: int) -> Tile:
    """A freshly allocated tile: every element undefined. (The spec leaves the
    payload of a new allocation unspecified; this model reads it as 0.)"""
    size = rows * cols
    return Tile(dtype, layout, location, capacity, rows, cols, valid_rows, valid_cols, mask,
                np.zeros(size, dtype=np.uint64), np.zeros(size, dtype=bool))


def new_ordinary_tile(dtype, layout: str, location: str, capacity: int, cols: int,
                      valid_rows: int, valid_cols: int, mask: int) -> Tile:
    rows = derived_rows(capacity, cols, dtype.bits)
    return blank_tile(dtype, layout, location, capacity, rows, cols, valid_rows, valid_cols, mask)


def new_predicate_tile(capacity: int, rows: int, cols: int, valid_rows: int, valid_cols: int,
                       mask: int) -> Tile:
    """ConfigurePredicateTileForMask: a U8 RowMajor tile in Any, every bit undefined."""
    size = rows * cols
    return Tile(dt.dtype("U8"), "RowMajor", "Any", capacity, rows, cols, valid_rows, valid_cols, mask,
                np.zeros(size, dtype=np.uint64), np.zeros(size, dtype=bool), PREDICATE)


def carrier_view(tile: Tile) -> Tile:
    """A predicate tile as the ASL's numeric element reads see it (TileReadLogicalElement):
    U8 element i is payload Word i, which holds packed byte i for i < ceil(n/8). The model
    keeps no payload Words past the packed bytes: they read as 0, their value after reset."""
    slots = np.zeros(tile.rows * tile.cols, dtype=np.uint64)
    packed = tile.packed_bytes()
    slots[:packed.size] = packed
    return replace(tile, payload=slots, storage_kind=NUMERIC)


def predicate_from_carriers(tile: Tile) -> Tile:
    """The predicate tile whose packed bytes are the low bytes of ``tile``'s first payload
    Words (carrier_view's inverse; Words past the packed bytes are dropped)."""
    count = tile.rows * tile.cols
    low = (tile.payload[:predicate_storage_bytes(tile.rows, tile.cols)] & np.uint64(0xFF)).astype(np.uint8)
    bits = np.unpackbits(low, bitorder="little")[:count]
    return replace(tile, payload=bits.astype(np.uint64), storage_kind=PREDICATE)


def new_cube_tile(dtype, layout: str, capacity: int, valid_rows: int, valid_cols: int,
                  mask: int) -> Tile:
    geometry = cube_geometry(layout, dtype, valid_rows, valid_cols)
    return blank_tile(dtype, layout, "Matrix", capacity, geometry.rows, geometry.cols,
                      valid_rows, valid_cols, mask)


# ----------------------------------------------------------------------------
# Descriptor legality (asl/tile/model/legality/descriptor-shape.asl)

def descriptor_configured(tile: Optional[Tile], limit: int) -> bool:
    """TileDescriptorConfigured."""
    if tile is None:
        return False
    return _configured(tile.capacity, tile.rows, tile.cols, tile.valid_rows, tile.valid_cols, tile.dtype.bits,
                       tile.predicate, limit)


@lru_cache(maxsize=4096)
def _configured(capacity: int, rows: int, cols: int, valid_rows: int, valid_cols: int, bits: int, predicate: bool,
                limit: int) -> bool:
    """``descriptor_configured`` of the descriptor fields it reads (pure: one computation per descriptor)."""
    if not capacity_legal(capacity, limit):
        return False
    logical = capacity * 8 // bits
    if predicate:
        return (rows > 0 and cols > 0
                and predicate_storage_bytes(rows, cols) <= capacity
                and valid_rows <= rows and valid_cols <= cols
                and rows * cols <= logical)
    derived = derived_rows(capacity, cols, bits)
    return (derived != 0 and rows == derived and valid_rows <= rows
            and valid_cols <= cols
            and rows * cols <= logical)


def descriptor_legal(tile: Optional[Tile], limit: int) -> bool:
    """TileDescriptorLegal: configured, ordinary layout with complete fractals."""
    return (descriptor_configured(tile, limit)
            and (tile.predicate or generic_indexing_permitted(tile.layout, tile.dtype.bits, tile.rows, tile.cols)))


def cube_descriptor_legal(tile: Optional[Tile], limit: int) -> bool:
    """TileCubeDescriptorLegal."""
    if tile is None or tile.predicate or tile.location != "Matrix" or not tile.cube:
        return False
    if not cube_shape_legal(tile.capacity, tile.valid_rows, tile.valid_cols, tile.dtype,
                            tile.layout, limit):
        return False
    geometry = cube_geometry(tile.layout, tile.dtype, tile.valid_rows, tile.valid_cols)
    return tile.rows == geometry.rows and tile.cols == geometry.cols


def source_contents_defined(tile: Optional[Tile], limit: int) -> bool:
    """TileSourceContentsDefined."""
    return descriptor_legal(tile, limit) and tile.contents_defined()


def predicate_values_legal(tile: Optional[Tile], limit: int) -> bool:
    """TilePredicateValuesLegal: a legal, fully defined predicate tile."""
    return source_contents_defined(tile, limit) and tile.predicate


def logical_shape_match(left: Optional[Tile], right: Optional[Tile], limit: int) -> bool:
    """TileLogicalShapeMatch: both descriptors legal, same rows, columns, valid region, layout."""
    return (descriptor_legal(left, limit) and descriptor_legal(right, limit)
            and (left.rows, left.cols, left.valid_rows, left.valid_cols, left.layout)
            == (right.rows, right.cols, right.valid_rows, right.valid_cols, right.layout))


def source_encodings_valid(tile: Optional[Tile], limit: int) -> bool:
    """TileSourceEncodingsValid."""
    return source_contents_defined(tile, limit) and tile.encodings_valid()


def info_descriptor_legal(tile: Optional[Tile], limit: int) -> bool:
    """TileInfoDescriptorLegal (descriptor legal and contents defined): the numeric
    descriptor rules whatever the storage kind (a predicate tile's rows are not derived
    from its capacity, so it seldom passes)."""
    if tile is not None and tile.predicate:
        tile = replace(tile, storage_kind=NUMERIC)
    return source_contents_defined(tile, limit)


# ----------------------------------------------------------------------------
# Machine state

def allocation_bytes(mask: int, capacity: int) -> int:
    """TileCoreAllocationBytes: popcount(mask) * per-PE capacity."""
    return _POPCOUNT[mask] * capacity if 0 <= mask < 16 else bin(mask).count("1") * capacity


_POPCOUNT = tuple(bin(mask).count("1") for mask in range(16))


@dataclass
class MachineState:
    """Architectural state the operations read and write.

    Beyond the tiles: global memory (an immutable little-endian ``bytes`` image of
    ``memory_size`` bytes, all zero at reset: asl/arch/profile/reset.asl), the captured
    memory events (``memory_events``; ``memory_log`` also says whether capture ran past the
    spec's bound of 16), the GPR files of PE 1..3 (``peer_gprs``; PE 0's file is ``gprs``,
    ``pe_gprs`` gives all four) and the shared tile registers S0..S255 (``shared_tiles``,
    a tuple of Tile or None; shared-registers.asl)."""

    tiles: list = field(default_factory=lambda: [None] * TILE_COUNT)
    gprs: list = field(default_factory=lambda: [0] * GPR_COUNT)
    status: int = 0  # NumericStatus flags NV DZ OF UF NX (bit 0 = NV)
    tile_capacity: int = RESET_TILE_CAPACITY
    memory: bytes = bytes(DEFAULT_MEMORY_BYTES)
    memory_log: EventLog = EventLog()
    peer_gprs: tuple = ((0,) * GPR_COUNT,) * (MEMORY_AGENTS - 1)
    shared_tiles: tuple = (None,) * SHARED_TILE_COUNT
    unpublished_shared: frozenset = frozenset()  # SharedTileIndex of registers whose published flag is clear

    def copy(self) -> "MachineState":
        """``replace(self, tiles=list(self.tiles), gprs=list(self.gprs))`` without its per-call
        field walk (a state is copied at every publication)."""
        if type(self) is not MachineState:
            return replace(self, tiles=list(self.tiles), gprs=list(self.gprs))
        new = object.__new__(MachineState)
        new.__dict__.update(self.__dict__)
        new.tiles, new.gprs = list(self.tiles), list(self.gprs)
        return new

    def read_gpr(self, index: int) -> int:
        return 0 if index == 0 else self.gprs[index]

    @property
    def memory_size(self) -> int:
        return len(self.memory)

    @property
    def memory_events(self) -> tuple:
        return self.memory_log.events

    @property
    def pe_gprs(self) -> tuple:
        """The four GPR files, PE 0 first."""
        return (tuple(self.gprs), *self.peer_gprs)

    def read_pe_gpr(self, pe: int, index: int) -> int:
        """ReadPEGPR: R0 of every PE reads zero."""
        return 0 if index == 0 else self.pe_gprs[pe][index]

    def capacity_in_use(self, excluding: Optional[int] = None) -> int:
        tiles = self.tiles
        if excluding is not None and tiles[excluding] is not None:
            tiles = tiles[:excluding] + tiles[excluding + 1:]
        return sum([allocation_bytes(tile.mask, tile.capacity) for tile in tiles if tile is not None])

    def core_capacity_in_use(self) -> int:
        """CoreTileCapacityInUse (capacity/shared.asl): the Local tiles and the Shared registers
        (SharedTileCapacityInUse), what a new allocation must fit beside."""
        return self.capacity_in_use() + sum([allocation_bytes(tile.mask, tile.capacity)
                                             for _, tile in self.configured_shared_tiles()])

    def configured_shared_tiles(self) -> list:
        """(SharedTileIndex, Tile) of every configured shared register, in index order (none, the
        usual case, is found without a Python step over the 256 slots)."""
        shared = self.shared_tiles
        if shared.count(None) == len(shared):
            return []
        return [(index, tile) for index, tile in enumerate(shared) if tile is not None]
