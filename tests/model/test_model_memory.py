"""Global memory of the golden model (device_model/memory.py and the Machine set-up API):
the data-access probe, little-endian reads, last-writer-wins writes, 4-bit nibble stores,
the bounded event log, per-PE GPR files and shared tile registers.

The property tests compare against a plain sequential walk of the accesses written here
(the spec's loops: probe every access in order, then load or store one after another)."""
from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pto_avs.device_model import memory
from pto_avs.device_model.faults import DATA_ALIGNMENT, DATA_PAGE
from pto_avs.device_model.machine import Machine


def _footprint(addresses, size, write=False, nibble=None):
    return memory.Footprint(np.array(addresses, dtype=np.uint64), size, write,
                            nibble=None if nibble is None else np.array(nibble, dtype=np.uint8))


def _sequential_probe(addresses, size, memory_size):
    for address in addresses:
        if address % size:
            return DATA_ALIGNMENT, address
        if address + size > memory_size:
            return DATA_PAGE, address
    return None


def test_probe_names_the_first_failing_access_alignment_before_page():
    fault = memory.probe(_footprint([0, 8, 4094, 4100], 8), 4096)
    assert (fault.kind, fault.address) == (DATA_ALIGNMENT, 4094)
    fault = memory.probe(_footprint([4088, 4096], 8), 4096)
    assert (fault.kind, fault.address) == (DATA_PAGE, 4096)
    assert memory.probe(_footprint([4088], 8), 4096) is None


def test_probe_of_an_address_that_wraps_is_a_page_fault_not_an_overflow():
    fault = memory.probe(_footprint([(1 << 64) - 8], 8), 4096)
    assert (fault.kind, fault.address) == (DATA_PAGE, (1 << 64) - 8)


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([1, 2, 4, 8]), st.sampled_from([256, 4096]),
       st.lists(st.integers(0, 5000) | st.integers(0, (1 << 64) - 1), min_size=1, max_size=12))
def test_probe_agrees_with_the_sequential_walk(size, memory_size, addresses):
    fault = memory.probe(_footprint(addresses, size), memory_size)
    expected = _sequential_probe(addresses, size, memory_size)
    assert (None if fault is None else (fault.kind, fault.address)) == expected


@settings(max_examples=200, deadline=None)
@given(st.sampled_from([1, 2, 4, 8]), st.data())
def test_write_then_read_agrees_with_sequential_bytes(size, data):
    count = data.draw(st.integers(1, 10))
    slots = data.draw(st.lists(st.integers(0, 31), min_size=count, max_size=count))
    values = data.draw(st.lists(st.integers(0, (1 << 64) - 1), min_size=count, max_size=count))
    addresses = [slot * size for slot in slots]
    image = bytearray(range(256))
    start = bytes(image)
    for address, value in zip(addresses, values):  # the spec's StoreTranslated, one access after another
        image[address:address + size] = (value & ((1 << 8 * size) - 1)).to_bytes(size, "little")
    stored = memory.write(start, _footprint(addresses, size, True), np.array(values, dtype=np.uint64))
    assert stored == bytes(image)
    read = memory.read(stored, _footprint(addresses, size))
    assert [int(v) for v in read] == [int.from_bytes(image[a:a + size], "little") for a in addresses]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_nibble_stores_keep_the_other_half_and_compose(data):
    count = data.draw(st.integers(1, 10))
    addresses = data.draw(st.lists(st.integers(0, 7), min_size=count, max_size=count))
    nibbles = data.draw(st.lists(st.integers(0, 1), min_size=count, max_size=count))
    values = data.draw(st.lists(st.integers(0, 15), min_size=count, max_size=count))
    image = bytearray(b"\xA5\x5A\xFF\x00\x12\x34\x56\x78" + bytes(248))
    start = bytes(image)
    expected_events = []
    for address, high, value in zip(addresses, nibbles, values):  # StoreTileMemoryElement: read-modify-write
        old = image[address]
        image[address] = (old & 0x0F) | (value << 4) if high else (old & 0xF0) | value
        expected_events.append(image[address])
    footprint = _footprint(addresses, 1, True, nibbles)
    assert memory.write(start, footprint, np.array(values, dtype=np.uint64)) == bytes(image)
    events = memory.store_events(start, footprint, np.array(values, dtype=np.uint64), "Relaxed", 16)
    assert [e.write for e in events] == expected_events


def test_event_log_keeps_the_first_sixteen_and_marks_an_overflow():
    load = memory.MemoryEvent("Load", 0, 0, 1)
    log = memory.EventLog().extend([load] * 10)
    assert not log.overflowed and len(log.events) == 10
    log = log.extend([load] * 7)
    assert log.overflowed and len(log.events) == memory.MEMORY_EVENT_LIMIT


def test_machine_memory_set_up_and_limits():
    machine = Machine()
    assert machine.snapshot().memory == bytes(4096)
    machine.set_memory_size(256)
    machine.write_memory(0xFC, b"\x01\x02\x03\x04")
    assert machine.snapshot().memory[0xFC:] == b"\x01\x02\x03\x04"
    for size in (255, 65537, True, 4096.0):
        with pytest.raises(ValueError):
            machine.set_memory_size(size)
    with pytest.raises(ValueError):
        machine.write_memory(0xFD, b"\x01\x02\x03\x04")
    with pytest.raises(ValueError):
        machine.write_memory(-1, b"\x01")


def test_machine_pe_gpr_files_are_private():
    machine = Machine()
    machine.set_gpr(5, 7)
    machine.set_pe_gpr(2, 5, 0x10)
    files = machine.snapshot().pe_gprs
    assert [f[5] for f in files] == [7, 0, 0x10, 0]
    for pe, index in ((4, 1), (1, 0), (1, 24)):
        with pytest.raises(ValueError):
            machine.set_pe_gpr(pe, index, 1)


def test_machine_shared_tiles_are_held_outside_the_core_capacity():
    machine = Machine()
    machine.set_tile_capacity(128)
    machine.configure_shared_tile(255, "U8", capacity=256, cols=16, valid=(2, 16))
    machine.write_shared_tile(255, [[i for i in range(16)]] * 2)
    snap = machine.snapshot()
    assert snap.tile_capacity_in_use == 0
    assert snap.shared_tiles[255].words[1, 3] == 3
    with pytest.raises(ValueError):
        machine.configure_shared_tile(256, "U8", capacity=256, cols=16)
    with pytest.raises(ValueError):
        machine.write_shared_tile(3, [[1]])
