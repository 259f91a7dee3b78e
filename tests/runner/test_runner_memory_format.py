"""The vector format's memory members (vectors/FORMAT.md "Memory, per-PE GPRs and shared
tiles"): loading and its errors, the comparator's memory and events aspects, the fault
address, outcome sets, and the golden device's observation of memory."""
from __future__ import annotations

import textwrap

import pytest

from pto_avs.contract import loader
from pto_avs.contract.case import Observation
from pto_avs.contract.compare import compare
from pto_avs.plugins.golden import open_device

HEAD = """\
format: pto-avs-vector/1
id: PTO-AVS-X-TMULS-MEMFORMAT-001
operation: TMULS
kind: execution
exercises: [ADR-0081]
provenance: memory format tests
cases:
"""
TILE = "        - {index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], data: [[7]]}\n"
PROGRAM = "    program: [{call: TMULS, dst: 1, src: 0, scalar: 3}]\n"


def load(tmp_path, state_extra: str = "", expect: str = "{}"):
    text = (HEAD + "  - name: c\n    source: hand\n    reference: r\n    state:\n      tiles:\n" + TILE
            + "        - {index: 1, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], data: [[0]]}\n"
            + textwrap.indent(textwrap.dedent(state_extra), "      ")
            + PROGRAM + "    expect: " + expect + "\n")
    path = tmp_path / "PTO-AVS-X-TMULS-MEMFORMAT-001.yaml"
    path.write_text(text)
    return loader.load_file(path, cache=None)


def only_case(loaded):
    assert loaded.error is None, loaded.error
    assert not isinstance(loaded.entries[0], loader.VectorError), loaded.entries[0].message
    return loaded.cases[0]


def only_error(loaded) -> str:
    if loaded.error:
        return loaded.error.message
    assert isinstance(loaded.entries[0], loader.VectorError), loaded.entries[0]
    return loaded.entries[0].message


MEMORY = """\
memory:
  size: 256
  regions:
    - {address: 0xF8, bytes: "01 02 03 04"}
    - {address: 0x10, bytes: "AA"}
pe_gprs:
  2: {5: 0x10}
"""


def test_memory_state_loads_normalized(tmp_path):
    case = only_case(load(tmp_path, MEMORY, '{memory: [{address: 0x10, bytes: "aa"}], memory_unchanged: true}'))
    assert case.state["memory"] == {"size": 256, "regions": [{"address": 0x10, "bytes": "aa"},
                                                             {"address": 0xF8, "bytes": "01020304"}]}
    assert case.state["pe_gprs"] == {2: {5: 0x10}}
    assert case.expect["memory"] == [{"address": 0x10, "bytes": "aa"}]


def test_a_case_without_memory_members_has_none(tmp_path):
    case = only_case(load(tmp_path))
    assert not {"memory", "pe_gprs", "shared_tiles"} & set(case.state)


@pytest.mark.parametrize("extra, expect, words", [
    ("memory: {size: 256, regions: [{address: 0xFE, bytes: '010203'}]}\n", "{}",
     "state.memory.regions[0]: 3 bytes at 0xfe run past the end of the 256-byte memory"),
    ("memory: {size: 256, regions: [{address: 0x10, bytes: '0102'}, {address: 0x11, bytes: '03'}]}\n", "{}",
     "state.memory.regions[1]: overlaps state.memory.regions[0] at 0x11"),
    ("memory: {size: 128}\n", "{}", "state.memory.size"),
    ("", "{fault: Fault_TileLegality, fault_address: 4}", "expect.fault_address: a fault address goes with a data fault"),
    ("", "{memory: [{address: 4095, bytes: '0102'}]}", "expect.memory[0]: 2 bytes at 0xfff run past the end of the 4096"),
    ("", "{memory: [{address: 0, bytes: '0x01'}]}", "expect.memory[0].bytes"),
    ("shared_tiles: [{index: 3, dtype: U8, capacity: 100, cols: 8, valid: [1, 1]}]\n", "{}",
     "state.shared_tiles[0]: capacity 100"),
])
def test_memory_mistakes_name_the_field(tmp_path, extra, expect, words):
    assert words in only_error(load(tmp_path, extra, expect))


def _observation(memory: bytes, events=None, fault=None, fault_address=None) -> Observation:
    return Observation(fault=fault, flags=0, tiles={}, memory={"size": len(memory), "hex": memory.hex()},
                       events=events, fault_address=fault_address)


def test_memory_aspect_first_divergence_is_the_first_differing_byte(tmp_path):
    case = only_case(load(tmp_path, MEMORY, '{memory: [{address: 0x20, bytes: "00 11 22 33"}]}'))
    image = bytearray(256)
    image[0x20:0x24] = b"\x00\x11\x99\x98"
    verdict = compare(case, _observation(bytes(image)), {"fault", "memory"})
    memory = verdict.aspects["memory"]
    assert memory.status == "fail" and memory.mismatches == 2
    assert memory.first.where.startswith("memory byte 0x22") and memory.first.expected == "0x22"
    image[0x22:0x24] = b"\x22\x33"
    assert compare(case, _observation(bytes(image)), {"fault", "memory"}).outcome == "pass"  # other bytes not compared


def test_memory_unchanged_compares_the_whole_initial_image(tmp_path):
    case = only_case(load(tmp_path, MEMORY, "{memory_unchanged: true}"))
    image = bytearray(256)
    image[0xF8:0xFC], image[0x10] = b"\x01\x02\x03\x04", 0xAA
    assert compare(case, _observation(bytes(image)), {"fault", "memory"}).outcome == "pass"
    image[0xFB] = 0
    verdict = compare(case, _observation(bytes(image)), {"fault", "memory"})
    assert verdict.aspects["memory"].first.where == "memory byte 0xfb (the initial image)"
    assert compare(case, _observation(bytes(512)), {"fault", "memory"}).aspects["memory"].first.where == "memory size"
    unreported = compare(case, Observation(fault=None, flags=0, tiles={}), {"fault", "memory"})
    assert unreported.aspects["memory"].first.observed == "nothing (not reported)"
    assert compare(case, _observation(bytes(image)), {"fault"}).aspects["memory"].status == "not observable"


LOAD = {"kind": "Load", "agent": 0, "address": 0x10, "size": 1, "read": 0xAA, "write": 0, "order": "Relaxed"}
STORE = {"kind": "Store", "agent": 1, "address": 0x20, "size": 1, "read": 0, "write": 0x5, "order": "Relaxed"}


def test_events_in_order_and_as_a_multiset(tmp_path):
    exact = only_case(load(tmp_path, MEMORY, "{events: [{kind: Load, address: 0x10, read: 0xAA}, {kind: Store, agent: 1}]}"))
    image = bytes(256)
    assert compare(exact, _observation(image, [LOAD, STORE]), {"fault", "events"}).outcome == "pass"
    swapped = compare(exact, _observation(image, [STORE, LOAD]), {"fault", "events"})
    assert swapped.aspects["events"].first.where == "events[0]"
    short = compare(exact, _observation(image, [LOAD]), {"fault", "events"})
    assert short.aspects["events"].first.where == "events[1]" and short.aspects["events"].first.observed == "no event"
    multiset = only_case(load(tmp_path, MEMORY, "{events: [{kind: Load}, {kind: Store}], events_order: any}"))
    assert compare(multiset, _observation(image, [STORE, LOAD]), {"fault", "events"}).outcome == "pass"
    twice = compare(multiset, _observation(image, [LOAD, LOAD]), {"fault", "events"})
    assert twice.aspects["events"].first.where == "events (expected event 1 of any order)"


def test_fault_address_is_part_of_the_fault_aspect(tmp_path):
    case = only_case(load(tmp_path, MEMORY, "{fault: Fault_DataPage, fault_address: 0x100}"))
    image = bytes(256)
    assert compare(case, _observation(image, fault="Fault_DataPage", fault_address=0x100), {"fault"}).outcome == "pass"
    wrong = compare(case, _observation(image, fault="Fault_DataPage", fault_address=0xFC), {"fault"})
    assert wrong.aspects["fault"].first.where == "fault address" and wrong.aspects["fault"].first.observed == "0xfc"


def test_one_of_passes_on_any_entry_and_names_the_closest(tmp_path):
    case = only_case(load(tmp_path, MEMORY, '{one_of: [{memory: [{address: 0, bytes: "01"}]}, '
                                            '{memory: [{address: 0, bytes: "02"}], events: [{kind: Store}]}]}'))
    first, second = bytearray(256), bytearray(256)
    first[0], second[0] = 1, 2
    assert compare(case, _observation(bytes(first), []), {"fault", "memory", "events"}).outcome == "pass"
    verdict = compare(case, _observation(bytes(second), [STORE]), {"fault", "memory", "events"})
    assert verdict.outcome == "pass" and "one_of[1] of 2 matches" in verdict.aspects["memory"].note
    neither = compare(case, _observation(bytes(256), [LOAD]), {"fault", "memory", "events"})
    assert neither.outcome == "fail" and neither.failed == ["memory"]  # entry 1 would fail events too
    assert neither.aspects["memory"].diff[0] == "no entry of one_of matches; one_of[0] of 2 is the closest"


def test_observation_memory_members_round_trip_and_are_checked():
    observation = _observation(b"\x01" * 256, [LOAD], fault="Fault_DataAlignment", fault_address=3)
    again = Observation.from_json(observation.to_json())
    assert (again.memory, again.events, again.fault_address) == (observation.memory, [LOAD], 3)
    for bad, words in (({"memory": {"size": 256, "hex": "00"}}, "memory.hex"),
                       ({"memory": {"size": 100, "hex": "00" * 100}}, "memory.size"),
                       ({"events": [{"kind": 3}]}, "events.0.kind")):
        with pytest.raises(ValueError, match=words.replace(".", r"\.")):
            Observation.from_json({"fault": None, "tiles": {}, **bad})


def test_golden_device_observes_memory_and_pe_gprs(tmp_path):
    case = only_case(load(tmp_path, MEMORY, "{memory_unchanged: true, events: []}"))
    device = open_device("pto-v0")
    observation = device.execute(case)
    assert observation.error is None
    assert observation.memory_bytes()[0xF8:0xFC] == b"\x01\x02\x03\x04" and observation.events == []
    assert compare(case, observation, device.capabilities.aspects).outcome == "pass"
