"""Global memory, data-access faults and the memory-event log.

Facts from asl/scalar/model/agu/memory.asl (ProbeDataAccess: alignment first, then the
page check ``address + size <= PTO_MODEL_MEMORY_BYTES``; little-endian byte order),
asl/arch/memory-model/address-space.asl, memory-events.asl and atomicity.asl (the event
record and its capture), asl/arch/data-types/memory-model.asl (MemoryEventKind,
MemoryOrder), asl/arch/features/tile-allocation.asl (``config PTO_MODEL_MEMORY_BYTES :
integer {256..65536} = 4096``) and asl/arch/programming-model/core-pe-topology.asl
(four memory agents, a bound of 16 events).

Memory is an immutable ``bytes`` image: an operation computes a whole new image and the
machine publishes it at once, so a rejected access leaves memory as it was.

A *footprint* is the ordered list of element accesses one operation makes (row-major,
PE-major for the four-PE forms): addresses (uint64, Word arithmetic wraps mod 2**64), one
access size, the agent of each access and, for 4-bit transfers, the nibble each access
touches. ``probe`` checks the whole footprint before anything is read or written and
names the first access (in footprint order) that faults; ``read`` and ``write`` then run
it without a Python loop per element (only the event log, bounded at 16 entries, is
built one event at a time).

This module is the one place the memory family's operations share: MGATHER/MSCATTER
build a ``Footprint`` from their index tiles (``Footprint(addresses, size, write,
agents, nibble)``), call ``probe`` and then ``read``/``write``; an atomic (MGATHER_CAS)
adds ``MemoryEvent`` records of kind ``Atomic`` through ``EventLog.extend``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from .faults import Fault, data_alignment, data_page

DEFAULT_MEMORY_BYTES = 4096
MIN_MEMORY_BYTES = 256
MAX_MEMORY_BYTES = 65536
MEMORY_AGENTS = 4  # PTO_MODEL_MEMORY_AGENTS: PE 0..3
MEMORY_EVENT_LIMIT = 16  # PTO_MODEL_MEMORY_EVENTS
EVENT_KINDS = ("InitialWrite", "Load", "Store", "Atomic", "Fence")  # MemoryEventKind without MemoryEvent_
ORDERS = ("Relaxed", "Acquire", "Release", "AcquireRelease")  # MemoryOrder without MemoryOrder_
U64 = np.uint64


def memory_size_legal(size) -> bool:
    return isinstance(size, int) and not isinstance(size, bool) and MIN_MEMORY_BYTES <= size <= MAX_MEMORY_BYTES


@dataclass(frozen=True)
class MemoryEvent:
    """One captured event (MemoryEvent without read_from, coherence rank and fence masks)."""

    kind: str
    agent: int
    address: int
    size: int
    read: int = 0  # the value read (Load, Atomic), little-endian value of ``size`` bytes
    write: int = 0  # the value written (Store, Atomic with a write, InitialWrite)
    order: str = "Relaxed"

    def to_json(self) -> dict:
        return {"kind": self.kind, "agent": self.agent, "address": self.address, "size": self.size,
                "read": self.read, "write": self.write, "order": self.order}


@dataclass(frozen=True)
class EventLog:
    """The captured events in order and whether capture ran past the spec's bound
    (the spec asserts there; the model keeps the first 16 and marks the overflow)."""

    events: tuple = ()
    overflowed: bool = False

    def extend(self, new) -> "EventLog":
        new = tuple(new)
        room = MEMORY_EVENT_LIMIT - len(self.events)
        return EventLog(self.events + new[:max(room, 0)], self.overflowed or len(new) > room)


@dataclass(frozen=True, eq=False)
class Footprint:
    """The element accesses of one operation, in the order the spec makes them."""

    addresses: np.ndarray  # uint64 byte address of each access
    size: int  # bytes per access (1, 2, 4 or 8; a 4-bit element is a 1-byte access)
    write: bool
    agents: Optional[np.ndarray] = None  # agent (PE) of each access; None: agent 0 for all
    nibble: Optional[np.ndarray] = None  # 4-bit transfers: 0 low / 1 high nibble of each access

    @property
    def count(self) -> int:
        return int(self.addresses.size)

    def agent_of(self, position: int) -> int:
        return 0 if self.agents is None else int(self.agents[position])


def probe(footprint: Footprint, memory_size: int) -> Optional[Fault]:
    """ProbeDataAccess over the whole footprint: the fault of its first failing access
    (Fault_DataAlignment when the address is not a multiple of the access size, else
    Fault_DataPage when the access does not end inside memory), or None."""
    if footprint.count == 0:
        return None
    addresses = footprint.addresses
    size = footprint.size
    misaligned = (addresses % U64(size)) != 0
    outside = addresses > U64(memory_size - size)
    bad = misaligned | outside
    if not bad.any():
        return None
    first = int(np.argmax(bad))
    address = int(addresses[first])
    if misaligned[first]:
        return data_alignment(f"{size}-byte access at {address:#x} is not {size}-byte aligned", address)
    return data_page(f"{size}-byte access at {address:#x} does not end inside the {memory_size}-byte memory",
                     address)


def _byte_indices(footprint: Footprint) -> np.ndarray:
    """count x size byte addresses (the footprint has been probed: all inside memory)."""
    return (footprint.addresses.astype(np.int64)[:, None] + np.arange(footprint.size, dtype=np.int64)[None, :])


def read(memory: bytes, footprint: Footprint) -> np.ndarray:
    """The little-endian value of every access (uint64), the footprint probed first."""
    image = np.frombuffer(memory, dtype=np.uint8)
    raw = image[_byte_indices(footprint)].astype(np.uint64)
    shifts = (np.arange(footprint.size, dtype=np.uint64) * U64(8))[None, :]
    return np.bitwise_or.reduce(raw << shifts, axis=1) if footprint.count else np.zeros(0, dtype=np.uint64)


def _last_writers(units: np.ndarray) -> np.ndarray:
    """Positions of the last access to each distinct unit (later accesses win, as in the
    spec's sequential loop)."""
    reverse = units[::-1]
    _, first_in_reverse = np.unique(reverse, return_index=True)
    return units.size - 1 - first_in_reverse


def write(memory: bytes, footprint: Footprint, values: np.ndarray) -> bytes:
    """The memory image after storing ``values`` (uint64, one per access) in footprint order:
    a later access to the same byte (or, 4-bit, the same nibble) wins. A 4-bit access
    writes only its nibble and keeps the other half of the byte."""
    if footprint.count == 0:
        return memory
    image = np.frombuffer(memory, dtype=np.uint8).copy()
    values = np.asarray(values, dtype=np.uint64)
    if footprint.nibble is not None:
        nibbles = np.empty(image.size * 2, dtype=np.uint8)
        nibbles[0::2], nibbles[1::2] = image & 0x0F, image >> 4
        units = footprint.addresses.astype(np.int64) * 2 + footprint.nibble.astype(np.int64)
        keep = _last_writers(units)
        nibbles[units[keep]] = (values[keep] & U64(0xF)).astype(np.uint8)
        image = (nibbles[0::2] | (nibbles[1::2] << 4)).astype(np.uint8)
    else:
        indices = _byte_indices(footprint).ravel()
        shifts = (np.arange(footprint.size, dtype=np.uint64) * U64(8))[None, :]
        data = ((values[:, None] >> shifts) & U64(0xFF)).astype(np.uint8).ravel()
        keep = _last_writers(indices)
        image[indices[keep]] = data[keep]
    return image.tobytes()


def load_events(footprint: Footprint, raw: np.ndarray, order: str, room: int) -> list:
    """Load events of the first ``room`` + 1 accesses (one more than fits shows an overflow)."""
    count = min(footprint.count, room + 1)
    return [MemoryEvent("Load", footprint.agent_of(i), int(footprint.addresses[i]), footprint.size,
                        read=int(raw[i]), order=order) for i in range(count)]


def store_events(memory: bytes, footprint: Footprint, values: np.ndarray, order: str, room: int) -> list:
    """Store events of the first ``room`` + 1 accesses, each with the value it stores (a
    4-bit access stores the whole byte: the earlier accesses of this footprint to the same
    byte and the untouched nibble, StoreTileMemoryElement)."""
    count = min(footprint.count, room + 1)
    events = []
    pending: dict = {}
    for i in range(count):
        address = int(footprint.addresses[i])
        value = int(values[i])
        if footprint.nibble is not None:
            old = pending.get(address, memory[address])
            value = (old & 0x0F) | ((value & 0xF) << 4) if footprint.nibble[i] else (old & 0xF0) | (value & 0xF)
            pending[address] = value
        else:
            value &= (1 << (8 * footprint.size)) - 1
        events.append(MemoryEvent("Store", footprint.agent_of(i), address, footprint.size, write=value, order=order))
    return events
