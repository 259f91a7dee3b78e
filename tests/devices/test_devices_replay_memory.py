"""Recordings of protocol 1.1 answers: the memory image, the event log, the fault address and
the shared tiles survive recording and replay exactly, with the recorded device's memory
capabilities; a recording made before they existed (and the committed spec recording) still
reads, its case digests unchanged, and replays a memory case as not supported, never passed.

The observations here are written by hand (the shapes of vectors/FORMAT.md "Observation")."""
from __future__ import annotations

import json

from pto_avs.contract.case import Case, Observation, TileObservation
from pto_avs.plugins import replay
from pto_avs.plugins.base import Capabilities
from pto_avs.plugins.base import open_device

TILE = {"index": 0, "dtype": "U8", "capacity": 128, "cols": 8, "valid": [1, 1], "layout": "RowMajor",
        "location": "Any", "mask": "1111", "defined": "valid", "data": [[7]]}
STATE = {"tile_capacity": 262144, "status": 0, "gprs": {5: 0x100}, "tiles": [TILE]}
PROGRAM = ("BSTART.TSTORE U8; B.IOR R5, R0; B.IOT T0, mask=1111, <last>; BSTOP",)


def case(name: str, state: dict, expect: dict) -> Case:
    return Case("PTO-AVS-X-REPLAY-MEMORY-001", name, "TSTORE", "execution", ("pto-v0",), (), (), state, PROGRAM,
                expect)


IMAGE = bytearray(4096)
IMAGE[0x100] = 7
MEMORY_CASE = case("store", {**STATE, "memory": {"size": 4096, "regions": [{"address": 0x100, "bytes": "00"}]}},
                   {"memory": [{"address": 0x100, "bytes": "07"}],
                    "events": [{"kind": "Store", "agent": 0, "address": 0x100, "size": 1, "write": 7}]})
OBSERVATION = Observation(
    fault=None, flags=0, tiles={}, fault_address=None, memory={"size": 4096, "hex": IMAGE.hex()},
    events=[{"kind": "Store", "agent": 0, "address": 0x100, "size": 1, "read": 0, "write": 7, "order": "Relaxed"}],
    shared_tiles={9: TileObservation(dtype="U32", rows=1, cols=1, valid=(1, 1), words=[[0xCAFE]],
                                     defined=[[True]])})
FAULTED = Observation(fault="Fault_DataPage", flags=0, tiles={}, fault_address=0x1000,
                      memory={"size": 4096, "hex": bytes(4096).hex()})
MEMORY_CAPS = Capabilities(profile="pto-v0", operations=frozenset({"TSTORE"}), memory=True, events=True,
                           shared_tiles=True)


def test_memory_members_and_capabilities_survive_recording_and_replay(tmp_path):
    recording = replay.Recording()
    faulting = case("page", {**STATE, "gprs": {5: 0xFFF}}, {"fault": "Fault_DataPage", "fault_address": 0x1000})
    recording.add_observation("spec", MEMORY_CAPS, MEMORY_CASE, OBSERVATION)
    recording.add_observation("spec", MEMORY_CAPS, faulting, FAULTED)
    path = tmp_path / "memory.json.gz"
    recording.write(path)
    device = open_device(f"replay:{path}")
    caps = device.capabilities
    assert (caps.memory, caps.events, caps.shared_tiles) == (True, True, True)
    assert device.supports(MEMORY_CASE) is None and device.supports(faulting) is None
    played = device.execute(MEMORY_CASE)
    assert played.memory == OBSERVATION.memory and bytes.fromhex(played.memory["hex"])[0x100] == 7
    assert played.events == OBSERVATION.events
    assert played.shared_tiles[9].words == [[0xCAFE]]
    page = device.execute(faulting)
    assert (page.fault, page.fault_address) == ("Fault_DataPage", 0x1000)
    # The digest covers the new members: an edited memory byte is refused.
    data = json.loads(replay._read_bounded(path))
    entry = data["devices"]["spec"]["cases"][MEMORY_CASE.id]["observation"]
    entry["memory"]["hex"] = "ff" + entry["memory"]["hex"][2:]
    edited = tmp_path / "edited.json"
    edited.write_text(json.dumps(data))
    try:
        open_device(f"replay:{edited}")
    except ValueError as exc:
        assert "its digest does not match its content" in str(exc)
    else:
        raise AssertionError("an edited memory image was replayed")


def test_a_device_without_memory_is_recorded_as_such_and_a_memory_case_is_not_supported_on_replay(tmp_path):
    tiles_only = Capabilities(profile="pto-v0", operations=frozenset({"TSTORE"}))
    recording = replay.Recording()
    plain = case("plain", STATE, {})
    recording.add_observation("old", tiles_only, plain, Observation(fault=None, flags=0, tiles={}))
    written = recording.to_json()["devices"]["old"]["capabilities"]
    # A device without them writes none of the new members: the capabilities read as a 1.0 recording's did.
    assert not {"memory", "events", "shared_tiles"} & set(written)
    path = tmp_path / "old.json"
    recording.write(path)
    device = open_device(f"replay:{path}")
    assert (device.capabilities.memory, device.capabilities.events) == (False, False)
    assert device.supports(plain) is None
    assert device.supports(MEMORY_CASE) == ("replay does not model global memory (initial bytes, memory read-back, "
                                            "data-fault address) or record the memory-event log")
    assert device.execute(MEMORY_CASE).error.startswith("replay does not model global memory")


def test_case_digests_ignore_empty_memory_members_and_follow_real_ones():
    plain = case("plain", STATE, {})
    before = replay.case_digest(plain)
    for empty in ({"memory": None}, {"pe_gprs": {}}, {"shared_tiles": []}, {"pe_gprs": {}, "shared_tiles": []}):
        assert replay.case_digest(case("plain", {**STATE, **empty}, {})) == before, empty
    assert replay.case_digest(MEMORY_CASE) != before
    other_bytes = case("store", {**STATE, "memory": {"size": 4096, "regions": [{"address": 0x100, "bytes": "01"}]}},
                       {})
    assert replay.case_digest(other_bytes) != replay.case_digest(MEMORY_CASE)
    peers = case("plain", {**STATE, "pe_gprs": {1: {5: 1}}}, {})
    assert replay.case_digest(peers) != before


def test_capabilities_of_the_wrong_type_are_named():
    data = replay.capabilities_to_json(MEMORY_CAPS)
    assert (data["memory"], data["events"], data["shared_tiles"]) == (True, True, True)
    try:
        replay.capabilities_from_json({**data, "memory": "yes"})
    except ValueError as exc:
        assert str(exc) == "'memory' must be true or false, not \"yes\""
    else:
        raise AssertionError("memory: 'yes' was accepted")
