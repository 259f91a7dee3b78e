"""Protocol 1.1 through a real device process (tests/data/memory_device.py): the memory state a
1.1 device is sent and the memory members it answers; a 1.0 device kept working and told
`not supported` (never run, never passed) for a case that needs memory, events, per-PE GPRs or
shared tiles; garbage memory answers as that case's device error.

Expected values are the case's own initial state, written by hand here; the device echoes what
it was sent, so every check is of what crossed the protocol.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from pto_avs.contract.case import Case
from pto_avs.contract.compare import compare
from pto_avs.plugins.base import Capabilities, Device, case_needs
from pto_avs.plugins.process import UNSUPPORTED, ProcessDevice

pytestmark = pytest.mark.slow  # starts device processes

DEVICE = Path(__file__).parents[1] / "data" / "memory_device.py"
PROGRAM = ("BSTART.TLOAD U32; B.DIM LB0=4; B.DIM LB1=1; B.IOR R5, R6; B.IOT mask=1111, <last>, ->T<1>; BSTOP",)
REGIONS = [{"address": 0x100, "bytes": "00112233"}, {"address": 0xFFC, "bytes": "a0b1c2d3"}]


def case(name: str, state: dict, expect: dict | None = None, operation: str = "TLOAD") -> Case:
    full = {"tile_capacity": 262144, "status": 0, "gprs": {5: 0x100}, "tiles": [], **state}
    return Case("PTO-AVS-X-MEMORY-PROTOCOL", name, operation, "execution", ("pto-v0",), (), (), full, PROGRAM,
                expect or {})


MEMORY = case("memory", {"memory": {"size": 4096, "regions": REGIONS}}, {"memory": [REGIONS[0]]})
PE_GPRS = case("pe-gprs", {"pe_gprs": {1: {5: 0xFF8}}})
SHARED = case("shared", {"shared_tiles": [{"index": 7, "dtype": "U32", "capacity": 128, "cols": 4, "valid": [1, 1],
                                           "layout": "RowMajor", "location": "Any", "mask": "1111",
                                           "defined": "valid", "data": [[0xCAFE]]}]})
EVENTS = case("events", {}, {"events": [{"kind": "Load", "agent": 0, "address": 0x100, "size": 4}]})
PLAIN = case("plain", {})
FEATURE_MAP = case("feature-map", {"tiles": [
    {"index": 1, "dtype": "U8", "capacity": 128, "cols": 4, "valid": [1, 4], "layout": "RowMajor",
     "location": "Matrix", "mask": "1111", "defined": "valid", "data": [[1, 2, 3, 4]],
     "feature_map": {"batches": 1, "channel_groups": 1, "height": 2, "width": 2, "channels_per_group": 1,
                     "filter_height": 2, "filter_width": 2}}]}, operation="TCVT")


def open_memory_device(*arguments: str) -> ProcessDevice:
    return ProcessDevice([sys.executable, str(DEVICE), *arguments])


@pytest.fixture
def device_1_1():
    device = open_memory_device("1.1")
    yield device
    device.close()


@pytest.fixture
def device_1_0():
    device = open_memory_device("1.0")
    yield device
    device.close()


def test_a_1_1_device_is_sent_the_memory_state_and_its_memory_answer_is_read(device_1_1):
    caps = device_1_1.capabilities
    assert (caps.memory, caps.events, caps.shared_tiles) == (True, True, True)
    assert {"memory", "events"} <= caps.aspects
    memory, pe_gprs, shared = device_1_1.execute_batch([MEMORY, PE_GPRS, SHARED])
    sent = json.loads(memory.detail)
    # Addresses as integers, bytes as hex strings, the size as given (plugins/protocol.md "execute").
    assert sent["memory"] == {"size": 4096, "regions": REGIONS}
    image = bytes.fromhex(memory.memory["hex"])
    assert memory.memory["size"] == 4096 and len(image) == 4096
    assert image[0x100:0x104] == bytes([0x00, 0x11, 0x22, 0x33]) and image[0xFFC:] == bytes([0xA0, 0xB1, 0xC2, 0xD3])
    assert image.count(0) == 4096 - 7  # every other byte as reset leaves it (0x00 at 0x100 is one of the zeros)
    assert memory.events == [
        {"kind": "Store", "agent": 0, "address": 0x100, "size": 1, "read": 0, "write": 0x00, "order": "Release"},
        {"kind": "Store", "agent": 0, "address": 0xFFC, "size": 1, "read": 0, "write": 0xA0, "order": "Release"}]
    # Per-PE GPR files keyed by PE and GPR number as strings, like gprs; the fault address read back.
    assert json.loads(pe_gprs.detail)["pe_gprs"] == {"1": {"5": 0xFF8}}
    assert (pe_gprs.fault, pe_gprs.fault_address) == ("Fault_DataPage", 0xFF8)
    assert json.loads(shared.detail)["shared_tiles"][0]["index"] == 7
    assert shared.shared_tiles[7].words == [[0xCAFE]]


def test_a_1_1_memory_answer_is_judged(device_1_1):
    verdict = compare(MEMORY, device_1_1.execute(MEMORY), device_1_1.capabilities.aspects)
    assert verdict.outcome == "pass", verdict.report()
    moved = case("moved", MEMORY.state, {"memory": [{"address": 0x101, "bytes": "00112233"}]})
    verdict = compare(moved, device_1_1.execute(moved), device_1_1.capabilities.aspects)
    assert verdict.outcome == "fail", verdict.report()


def test_a_1_0_device_keeps_working_and_is_told_not_supported_for_the_memory_state(device_1_0):
    caps = device_1_0.capabilities
    # A 1.0 hello cannot claim the state of 1.1, whatever it says.
    assert (caps.memory, caps.events, caps.shared_tiles) == (False, False, False)
    assert not {"memory", "events"} & caps.aspects
    reasons = {c.name: device_1_0.supports(c) for c in (MEMORY, PE_GPRS, SHARED, EVENTS, PLAIN)}
    assert reasons["plain"] is None
    for name, what in (("memory", "memory"), ("pe-gprs", "per-PE GPR files"), ("shared", "shared tiles"),
                       ("events", "events")):
        assert reasons[name] == (f"memory-test 1.0 speaks pto-avs-device version 1.0, which carries no {what} "
                                 f"(version 1.1 does)"), name
    observations = device_1_0.execute_batch([MEMORY, PE_GPRS, SHARED, EVENTS, PLAIN])
    for observation in observations[:4]:
        assert observation.error.startswith(f"{UNSUPPORTED}: memory-test 1.0 speaks pto-avs-device version 1.0")
    plain = observations[4]
    assert plain.error is None and "memory" not in json.loads(plain.detail)
    assert device_1_0._batch_number == 1  # only the plain case was sent, in one request


def test_a_1_1_device_without_memory_is_not_sent_memory_cases_but_gets_per_pe_gprs():
    device = open_memory_device("1.1", "--no-memory")
    try:
        assert (device.capabilities.memory, device.capabilities.events) == (False, False)
        assert device.supports(MEMORY) == ("memory-test 1.1 does not model global memory (initial bytes, memory "
                                           "read-back, data-fault address)")
        assert device.supports(EVENTS) == "memory-test 1.1 does not record the memory-event log"
        assert device.supports(SHARED) == "memory-test 1.1 does not model the shared tile registers S0..S255"
        assert device.supports(PE_GPRS) is None  # a 1.1 device is given per-PE GPRs; it may answer unsupported
        assert device.execute(PE_GPRS).fault_address == 0xFF8
    finally:
        device.close()


def test_garbage_memory_answers_are_that_cases_device_error():
    device = open_memory_device("1.1", "--garbage")
    try:
        short = case("short-hex", MEMORY.state)
        kind = case("bad-kind", MEMORY.state)
        short_answer, kind_answer, good = device.execute_batch([short, kind, MEMORY])
        assert short_answer.error == ("malformed observation from the device: member 'memory.hex': 8191 hex digits "
                                      "for a memory of 4096 bytes (expected 8192)")
        assert kind_answer.error == ("malformed observation from the device: member 'events.0': kind 'Flush' is "
                                     "not one of InitialWrite, Load, Store, Atomic, Fence")
        assert good.error is None and good.memory["size"] == 4096  # its batch mate keeps its answer
        assert device.restarts == 0  # a malformed entry is that case's error, not a broken device
    finally:
        device.close()


@pytest.mark.parametrize("answer, member", [
    ({"memory": {"size": 4096, "hex": "zz" * 4096}}, "member 'memory.hex': 'z' at digit 0 is not a hex digit"),
    ({"memory": {"size": 100, "hex": "00" * 100}}, "member 'memory.size': 100 is not a memory size 256..65536"),
    ({"memory": "00" * 4096}, "member 'memory' must be an object {size, hex}, not str"),
    ({"events": [{"kind": "Load", "agent": 4}]}, "member 'events.0': agent 4 is not a PE 0..3"),
    ({"events": [{"kind": "Load", "size": 3}]}, "member 'events.0': size 3 is not 1, 2, 4 or 8 bytes"),
    ({"events": [{"kind": "Load", "order": "SeqCst"}]}, "member 'events.0': order 'SeqCst' is not one of Relaxed, "
                                                       "Acquire, Release, AcquireRelease"),
    ({"events": {"kind": "Load"}}, "member 'events' must be a list of memory events, not dict"),
    ({"fault_address": -4}, "member 'fault_address': -4 is not a 64-bit address"),
    ({"shared_tiles": {"256": {}}}, "member 'shared_tiles' key '256' is not a shared tile index 0..255"),
    ({"shared_tiles": {"3": {"words": "none"}}}, "member 'shared_tiles.3.words' must be an array or null, not string"),
])
def test_each_malformed_memory_member_is_named(device_1_1, answer, member):
    observation = device_1_1._answer("x::y", {"id": "x::y", "observation": {"fault": None, "tiles": {}, **answer}})
    assert observation.error == f"malformed observation from the device: {member}"


class _TileOnlyDevice(Device):
    """An in-process adapter that declares nothing of the memory state (the Capabilities defaults)."""

    name = "tiles-only"
    capabilities = Capabilities(profile="pto-v0", operations=frozenset({"TLOAD"}))

    def execute(self, case):
        raise AssertionError("a case the device does not support is never run")


def test_an_adapter_that_declares_no_memory_is_not_given_memory_cases():
    device = _TileOnlyDevice()
    assert [case_needs(c) for c in (MEMORY, EVENTS, SHARED, PE_GPRS, PLAIN)] == [
        ["memory"], ["events"], ["shared_tiles"], [], []]
    unchanged = case("unchanged", {}, {"memory_unchanged": True})
    fault_address = case("address", {}, {"fault": "Fault_DataPage", "fault_address": 0x1000})
    outcome_set = case("one-of", {}, {"one_of": [{"tiles": []}, {"memory": [REGIONS[0]]}]})
    for needing in (MEMORY, unchanged, fault_address, outcome_set):
        assert device.supports(needing).startswith("tiles-only does not model global memory"), needing.name
    assert device.supports(case("not-unchanged", {}, {"memory_unchanged": False})) is None


def test_the_c_device_says_it_has_no_memory_and_answers_unsupported_for_memory_state(tmp_path):
    from pto_avs.plugins import c_device

    try:
        binary, _ = c_device.build(tmp_path)
    except c_device.CompilerMissing as exc:
        pytest.skip(str(exc))
    device = ProcessDevice([str(binary), "--profile", "pto-v0"])
    try:
        caps = device.capabilities
        assert caps.extras["protocol_version"] == "1.1"
        assert (caps.memory, caps.events, caps.shared_tiles) == (False, False, False)
        tcvt = ("BSTART.VEC TCVT, U16; B.DATR U8, Sat=1; B.DIM LB0=1; B.DIM LB2=8; "
                "B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP")
        tile = {"index": 1, "dtype": "U16", "capacity": 256, "cols": 8, "valid": [1, 1], "layout": "RowMajor",
                "location": "Any", "mask": "1111", "defined": "valid", "data": [[300]]}
        state = {"tile_capacity": 262144, "status": 0, "gprs": {}, "tiles": [tile]}
        with_peers = Case("PTO-AVS-X-MEMORY-PROTOCOL", "c-peers", "TCVT", "execution", ("pto-v0",), (), (),
                          {**state, "pe_gprs": {1: {5: 1}}}, (tcvt,), {})
        with_memory = Case("PTO-AVS-X-MEMORY-PROTOCOL", "c-memory", "TCVT", "execution", ("pto-v0",), (), (),
                           {**state, "memory": {"size": 4096, "regions": []}}, (tcvt,), {})
        plain = Case("PTO-AVS-X-MEMORY-PROTOCOL", "c-plain", "TCVT", "execution", ("pto-v0",), (), (), state,
                     (tcvt,), {})
        assert device.supports(with_memory).startswith("avs-c-device 1.0 (pto-v0) does not model global memory")
        peers, memory, ran = device.execute_batch([with_peers, with_memory, plain])
        assert peers.error == (f"{UNSUPPORTED}: avs-c-device 1.0 (pto-v0): this device models no per-PE GPR files "
                               f"(state.pe_gprs)")
        assert memory.error.startswith(f"{UNSUPPORTED}: avs-c-device 1.0 (pto-v0) does not model global memory")
        assert ran.error is None and ran.tiles[0].words[0][0] == 255  # U16 300 -> U8 saturates to 255
    finally:
        device.close()


@pytest.mark.parametrize("version, flags, reason", [
    ("1.1", ("--feature-maps",), "memory-test 1.1 speaks pto-avs-device version 1.1, which carries no feature maps "
                                  "(version 1.2 does)"),
    ("1.2", (), "memory-test 1.2 does not set the per-tile feature-map descriptors (TIMG2COL)"),
])
def test_a_feature_map_case_is_not_sent_without_protocol_1_2_and_the_capability(version, flags, reason):
    """Protocol 1.2: a 1.1 hello cannot claim feature maps; a 1.2 device that does not announce them
    is not sent a case whose state gives one (not supported, never passed); a plain case still runs."""
    device = open_memory_device(version, *flags)
    try:
        assert device.capabilities.feature_maps is False
        assert case_needs(FEATURE_MAP) == ["feature_maps"]
        assert device.supports(FEATURE_MAP) == reason
        answer, plain = device.execute_batch([FEATURE_MAP, PLAIN])
        assert answer.error == f"{UNSUPPORTED}: {reason}" and plain.error is None
    finally:
        device.close()


def test_a_1_2_device_with_feature_maps_is_sent_the_descriptor():
    device = open_memory_device("1.2", "--feature-maps")
    try:
        assert device.capabilities.feature_maps is True and device.supports(FEATURE_MAP) is None
        sent = json.loads(device.execute(FEATURE_MAP).detail)
        assert sent["tiles"][0]["feature_map"] == FEATURE_MAP.state["tiles"][0]["feature_map"]
    finally:
        device.close()
