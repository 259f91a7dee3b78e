"""An independent reference of global memory and the regular TLSU transfers (TLOAD, TSTORE,
TPREFETCH), written from the ASL, one access at a time; it shares no code with device_model.

Facts (PTO-ISA/pto-spec, asl/):
- scalar/model/agu/memory.asl ProbeDataAccess: an access of ``size`` bytes at ``address``
  faults Fault_DataAlignment when ``address mod size != 0``, else Fault_DataPage when
  ``address + size > PTO_MODEL_MEMORY_BYTES``; the fault carries the address. Bytes are
  little-endian (LoadTranslatedUnsigned / StoreTranslated).
- tile/model/memory/stride.asl TileMemoryStridedByteAddress: element (row, col) of a TLOAD or
  TSTORE is at ``base + row * stride`` plus ``col * bytes`` (a 4-bit type: plus ``col div 2``,
  the high nibble for an odd column), Word arithmetic (mod 2**64); TileDenseRowStrideBytes:
  ``ceil(cols * bits / 8)``.
- tile/model/memory/addressing.asl TileMemoryElementBytes: a 4-bit element is a one-byte access.
- tile/model/memory/load-store.asl TLOAD/TSTORE: probe every element in row-major order first
  (the first failing one is the fault), then load (a signed integer type of 8..32 bits is sign
  extended to the 64-bit Word, a nibble and every other type zero-extended) or store (the low
  bytes of the Word; a nibble replaces its half of the byte read just before), recording one
  Load (the raw bytes read) or Store (the bytes written) event per element.
- tile/model/memory/shared-movement.asl TLOADShared and TSTOREShared: element (row, col) of a
  Shared register lies in the quarter (element * bits div 8) * 4 div capacity of its bytes, and
  that quarter's PE, when the B.IOS mask selects it, loads or stores it from its own base and
  byte row stride (row-major, every selected access probed first); shared-registers.asl
  AtomicUpdateSharedTile: a new register is allocated and initialized on the load's mask, an
  existing one (of the same descriptor, allocated on every PE of the mask) takes the loaded
  elements and keeps the rest. TMOVLocalToShared updates a register the same way from a Local
  tile (INSERT leaves a new register unpublished, PUBLISH publishes it); TMOVSharedToLocal gives
  a new Local tile ReadSharedTileWord of every element of the selected quarters.
- tile/model/memory/gather-scatter.asl TPREFETCHCore: for PE 0..3, element (row, col) is at
  ``base_p + (row * stride_p + col) * bytes`` (4-bit: ``+ (row * stride_p + col) div 2``), the
  stride in elements; every access of every PE is probed before the first event; one Load
  event per access, agent p.
"""
from __future__ import annotations

from .engine import width

WORD = (1 << 64) - 1
SIGNED_EXTENDED = ("S8", "S16", "S32")  # narrower than the Word: sign-extended on load; S64 is the Word
AGENTS = 4


def element_bytes(t: str) -> int:
    return 1 if width(t) == 4 else width(t) // 8


def dense_stride(cols: int, t: str) -> int:
    return (cols + 1) // 2 if width(t) == 4 else cols * width(t) // 8


def strided_accesses(base: int, stride: int, rows: int, cols: int, t: str) -> list:
    """[(address, high_nibble)] of a TLOAD/TSTORE valid region, row-major."""
    out = []
    for row in range(rows):
        row_base = (base + row * stride) & WORD
        for col in range(cols):
            if width(t) == 4:
                out.append(((row_base + col // 2) & WORD, col % 2 == 1))
            else:
                out.append(((row_base + col * width(t) // 8) & WORD, False))
    return out


def prefetch_accesses(bases, strides, rows: int, cols: int, t: str) -> list:
    """[(agent, address)] of TPREFETCH, PE-major, then row-major; strides in elements."""
    out = []
    for agent in range(AGENTS):
        for row in range(rows):
            for col in range(cols):
                index = (row * strides[agent] + col) & WORD
                offset = index >> 1 if width(t) == 4 else index * (width(t) // 8)
                out.append((agent, (bases[agent] + offset) & WORD))
    return out


def probe(addresses, size: int, memory_size: int):
    """(fault, address) of the first access that faults, or None."""
    for address in addresses:
        if address % size:
            return "Fault_DataAlignment", address
        if address + size > memory_size:
            return "Fault_DataPage", address
    return None


class Memory:
    """A byte image and the events recorded against it."""

    def __init__(self, size: int, regions=()):
        self.bytes = bytearray(size)
        for address, data in regions:
            self.bytes[address:address + len(data)] = data
        self.events = []

    def read(self, address: int, size: int) -> int:
        return int.from_bytes(self.bytes[address:address + size], "little")

    def tload(self, t: str, accesses) -> list:
        """The loaded Words of the accesses (probed already), recording Load events."""
        size = element_bytes(t)
        words = []
        for address, high in accesses:
            raw = self.read(address, size)
            self.events.append({"kind": "Load", "agent": 0, "address": address, "size": size, "read": raw,
                                "write": 0, "order": "Relaxed"})
            if width(t) == 4:
                words.append((raw >> 4) & 0xF if high else raw & 0xF)
            elif t in SIGNED_EXTENDED and raw >> (8 * size - 1):
                words.append(raw | (WORD ^ ((1 << 8 * size) - 1)))
            else:
                words.append(raw)
        return words

    def tstore(self, t: str, accesses, words) -> None:
        size = element_bytes(t)
        for (address, high), word in zip(accesses, words):
            if width(t) == 4:
                old = self.bytes[address]
                value = (old & 0x0F) | ((word & 0xF) << 4) if high else (old & 0xF0) | (word & 0xF)
            else:
                value = word & ((1 << 8 * size) - 1)
            self.bytes[address:address + size] = value.to_bytes(size, "little")
            self.events.append({"kind": "Store", "agent": 0, "address": address, "size": size, "read": 0,
                                "write": value, "order": "Relaxed"})

    def tprefetch(self, t: str, accesses) -> None:
        size = element_bytes(t)
        for agent, address in accesses:
            self.events.append({"kind": "Load", "agent": agent, "address": address, "size": size,
                                "read": self.read(address, size), "write": 0, "order": "Relaxed"})


def move(destination, source):
    """TMOV and GMOV (tile/model/memory/shared-movement.asl): the destination keeps its descriptor
    and takes the source's payload and per-element definedness at every coordinate (padding
    included); no memory access. ``destination`` and ``source`` are reference Grids of one shape."""
    assert (destination.rows, destination.cols) == (source.rows, source.cols)
    out = destination.copy()
    out.words = [list(row) for row in source.words]
    out.defined = [list(row) for row in source.defined]
    return out


def shared_store_accesses(bases, strides, valid_rows: int, valid_cols: int, cols: int, t: str, capacity: int,
                          mask: str) -> list:
    """[(agent, element, address, high_nibble)] of a Shared-source TSTORE (tile/model/memory/
    shared-movement.asl TSTOREShared) over a RowMajor register: row-major over the valid region,
    element = row * cols + col; its quarter of the register's bytes, (element * bits div 8) * 4 div
    capacity, is the PE (agent) that stores it, when that PE is selected (``mask`` b3b2b1b0 names
    PE 0 first: PE p is character p); the address is TileMemoryStridedByteAddress over that PE's own
    base and byte row stride."""
    out = []
    for row in range(valid_rows):
        for col in range(valid_cols):
            element = row * cols + col
            agent = (element * width(t) // 8) * 4 // capacity
            if mask[agent] != "1":
                continue
            row_base = (bases[agent] + row * strides[agent]) & WORD
            if width(t) == 4:
                out.append((agent, element, (row_base + col // 2) & WORD, col % 2 == 1))
            else:
                out.append((agent, element, (row_base + col * width(t) // 8) & WORD, False))
    return out


def load_by_agents(image: "Memory", t: str, accesses) -> dict:
    """TLOADShared's loads (tile/model/memory/shared-movement.asl): the accesses of
    ``shared_store_accesses`` (the same quarters, PEs, bases and strides), probed already, one
    at a time in access order, each Load event with its agent; {element: loaded Word}."""
    out = {}
    for agent, element, address, high in accesses:
        out[element] = image.tload(t, [(address, high)])[0] & ((1 << width(t)) - 1)
        image.events[-1]["agent"] = agent
    return out


def shared_word(shared_id: int, element: int, register_words=None, allocated: str = "1111",
                agent: int = 0) -> int:
    """ReadSharedTileWord: the register's element Word (``register_words`` by element index) when its
    descriptor is valid and the element's quarter is initialized (``allocated``, PE 0 first: an
    initial register is initialized where allocated), else UndefinedSharedTileWord = shared_id XOR
    element."""
    if register_words is None or allocated[agent] != "1":
        return shared_id ^ element
    return register_words[element]


def quarter(element: int, bits: int, capacity: int) -> int:
    """SharedTileElementRegion: the PE whose quarter of the register's bytes holds ``element``."""
    return (element * bits // 8) * 4 // capacity


def shared_to_local(shared_id: int, elements: int, bits: int, capacity: int, mask: str, register_words=None,
                    allocated: str = "1111") -> dict:
    """TMOVSharedToLocal (shared-movement.asl): {element: Word} of every element (padding included)
    of the quarters ``mask`` selects, each ReadSharedTileWord of the register (``register_words``
    by element, None: no descriptor); the other elements of the new destination stay undefined."""
    return {e: shared_word(shared_id, e, register_words, allocated, quarter(e, bits, capacity))
            for e in range(elements) if mask[quarter(e, bits, capacity)] == "1"}


def local_to_shared(source_words: dict, mask: str, bits: int, capacity: int, register_words=None,
                    allocated=None) -> tuple:
    """TMOVLocalToShared through AtomicUpdateSharedTileWithPublication: a new register is the whole
    source allocated (and initialized) on ``mask``; an existing one takes the source's elements of
    the selected quarters and keeps its allocation. (register Words by element, allocation mask)."""
    if register_words is None:
        return dict(source_words), mask
    out = dict(register_words)
    out.update({e: w for e, w in source_words.items() if mask[quarter(e, bits, capacity)] == "1"})
    return out, allocated


def store_by_agents(image: "Memory", t: str, accesses, words) -> None:
    """TSTOREShared's stores, one at a time in access order, each event with its agent."""
    for (agent, _, address, high), word in zip(accesses, words):
        image.tstore(t, [(address, high)], [word])
        image.events[-1]["agent"] = agent


def memory_order(catr_items=()) -> str:
    """CurrentBundleMemoryOrder (block/model/state/control-state.asl) from the B.CATR items of a
    block: aq and rl (or aqrl) AcquireRelease, aq Acquire, rl Release, else Relaxed; trap, atomic,
    far and dr leave it alone."""
    items = set(catr_items)
    acquire = "aq" in items or "aqrl" in items
    release = "rl" in items or "aqrl" in items
    return {(True, True): "AcquireRelease", (True, False): "Acquire", (False, True): "Release"}.get(
        (acquire, release), "Relaxed")
