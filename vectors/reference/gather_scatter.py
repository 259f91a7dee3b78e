"""An independent reference of the indexed TLSU operations (MGATHER, MGATHER_MASK,
MGATHER_CAS, MSCATTER, MSCATTER_MASK), written from the ASL one lane at a time; it shares no
code with device_model (global memory, the probe and the Load/Store events are those of the
regular-TLSU reference, ``memory.py``).

Facts (PTO-ISA/pto-spec, asl/):
- tile/model/memory/addressing.asl TileIndexByteDisplacement: the index element's low bits
  (4, 8, 16, 32 or 64 by its type) sign-extended for S4X2/S8/S16/S32/S64, zero-extended for
  the unsigned types; TileMemoryByteDisplacementAddress adds it to the base (Word
  arithmetic), with no scaling by the transfer type.
- tile/model/memory/gather-scatter.asl and atomics.asl read the index of lane (row, col) as
  ``index_payload[[TileLinearIndex(index_tile, row, col)]]``: the payload slot at the lane's
  linear index, not ``TileReadLogicalElement``. A tile in the packed-carrier representation
  (definedness/packed-boundary.asl TileUsesPackedCarrierRepresentation: a 4-bit type, or more
  than PTO_MODEL_TILE_ELEMENTS = 32768 elements) keeps 64/bits logical elements in each slot
  (TilePackedCarrierIndex, lane 0 in the low bits), so such a lane's index is logical element
  ``linear * 64/bits``; a slot past the tile's elements holds zero (``lane_index_words``).
- tile/model/definedness/elements.asl IndexedTLSUIndexDataTypeLegal = TileDataTypeIsInteger
  (the ten integer types), IndexedTLSUTransferDataTypeLegal = not a 4-bit type.
- tile/model/memory/gather-scatter.asl MGATHER/MGATHER_MASK: every lane (masked: every lane
  whose predicate bit is 1) probed in row-major order before anything; then the whole
  physical destination takes the pad value (Null: 0) and each active lane, row-major, loads
  its element (a Load event, the raw bytes; S8/S16/S32 sign-extend to the Word);
  MarkTilePhysicalRegionDefined leaves every coordinate defined.
  MSCATTER/MSCATTER_MASK: the same probe (write), then CommitScatterLanes: the lanes in an
  ARBITRARY order (any permutation), each storing its source element's low bytes with a
  Store event; of duplicate lanes the last in that order holds the address.
- tile/model/memory/atomics.asl MGATHER_CAS: each lane probed for read then write (the same
  address) in row-major order; then, in an ARBITRARY order, each lane reads the old bytes,
  stores the replacement's low bytes when they equal the expected element's low bytes
  (NormalizeMemoryAccessValue), puts the decoded old value in the destination and records
  an Atomic event (read: the old bytes, write: the replacement's bytes, whether or not it
  was stored).
"""
from __future__ import annotations

from itertools import permutations, product

from . import memory as mem
from .engine import width

WORD = (1 << 64) - 1
INTEGER = ("S4X2", "S8", "S16", "S32", "S64", "U4X2", "U8", "U16", "U32", "U64")
SIGNED = ("S4X2", "S8", "S16", "S32", "S64")
# What the operation contracts list as index types; the ASL accepts every integer type.
CONTRACT_INDEX_TYPES = ("S32", "U32", "S64", "U64")


def index_legal(t: str) -> bool:
    return t in INTEGER


def transfer_legal(t: str) -> bool:
    return width(t) != 4


MODEL_TILE_ELEMENTS = 32768  # PTO_MODEL_TILE_ELEMENTS: the payload slots of a TileInfo


def lane_index_words(elements: dict, rows: int, cols: int, valid, index_type: str) -> list:
    """SPEC-CHOICE 90: rows of the index Word each valid lane (row, col) of a RowMajor index tile reads:
    ``elements`` maps logical (row, col) to its value (0 where absent). In the packed-carrier
    representation the slot at linear index row * cols + col is a carrier whose low element is
    logical element linear * 64/bits (zero past the tile's rows * cols elements); otherwise the
    slot is the lane's own element."""
    packed = width(index_type) == 4 or rows * cols > MODEL_TILE_ELEMENTS
    per = 64 // width(index_type) if packed else 1
    out = []
    for r in range(valid[0]):
        row = []
        for c in range(valid[1]):
            element = (r * cols + c) * per
            row.append(elements.get(divmod(element, cols), 0) if element < rows * cols else 0)
        out.append(row)
    return out


def displacement(value: int, index_type: str) -> int:
    """TileIndexByteDisplacement as a Word."""
    bits = width(index_type)
    low = value & ((1 << bits) - 1)
    if index_type in SIGNED and low >> (bits - 1):
        low -= 1 << bits
    return low & WORD


def lanes(base: int, index_rows, index_type: str, mask_rows=None) -> list:
    """[(row-major lane, address)] of the active lanes."""
    out = []
    cols = len(index_rows[0])
    for r, row in enumerate(index_rows):
        for c, value in enumerate(row):
            if mask_rows is None or mask_rows[r][c]:
                out.append((r * cols + c, (base + displacement(value, index_type)) & WORD))
    return out


def probe(active, t: str, memory_size: int):
    """(fault, address) of the first active lane whose access faults, or None."""
    return mem.probe((address for _, address in active), mem.element_bytes(t), memory_size)


def gather(image: mem.Memory, t: str, active) -> dict:
    """{lane: loaded Word}, the Load events recorded in row-major lane order."""
    words = image.tload(t, [(address, False) for _, address in active])
    return {lane: word for (lane, _), word in zip(active, words)}


def scatter(image: mem.Memory, t: str, active, values: dict, order) -> None:
    """Each lane of ``order`` (positions into ``active``) stores its source Word."""
    image.tstore(t, [(active[i][1], False) for i in order], [values[active[i][0]] for i in order])


def compare_and_swap(image: mem.Memory, t: str, active, expected: dict, replacement: dict, order) -> dict:
    """{lane: observed old Word}; one Atomic event per lane, in ``order``."""
    size = mem.element_bytes(t)
    low = (1 << 8 * size) - 1
    observed = {}
    for i in order:
        lane, address = active[i]
        old = image.read(address, size)
        new = replacement[lane] & low
        if old == expected[lane] & low:
            image.bytes[address:address + size] = new.to_bytes(size, "little")
        image.events.append({"kind": "Atomic", "agent": 0, "address": address, "size": size, "read": old,
                             "write": new, "order": "Relaxed"})
        word = old
        if t in mem.SIGNED_EXTENDED and old >> (8 * size - 1):
            word = old | (WORD ^ low)
        observed[lane] = word
    return observed


def duplicate_groups(active) -> list:
    """Positions (into ``active``) of the lanes sharing each address, for the addresses
    more than one lane accesses."""
    by_address: dict = {}
    for position, (_, address) in enumerate(active):
        by_address.setdefault(address, []).append(position)
    return [group for group in by_address.values() if len(group) > 1]


def scatter_orders(active) -> list:
    """One commit order per distinct outcome the ARBITRARY order allows: for every choice of
    a winner in each duplicate group, the order with every group's winner last."""
    groups = duplicate_groups(active)
    orders = []
    for winners in product(*groups):
        last = set(winners)
        orders.append([i for i in range(len(active)) if i not in last] + list(winners))
    return orders or [list(range(len(active)))]


def cas_orders(active, limit: int = 64) -> list:
    """Commit orders covering every serialization of each duplicate group (groups are
    independent; the lanes of other addresses commute): row-major with each group's lanes
    permuted in place, at most ``limit`` of them."""
    groups = duplicate_groups(active)
    orders = []
    for arrangement in product(*(permutations(group) for group in groups)):
        order = list(range(len(active)))
        for group, permuted in zip(groups, arrangement):
            for slot, position in zip(group, permuted):
                order[slot] = position
        orders.append(order)
        if len(orders) == limit:
            break
    return orders or [list(range(len(active)))]
