"""Recordings a reader can trust, and replays that tell the truth.

A recording written by ``--record`` carries a digest over its header, capabilities and every
answer; replay refuses one whose content no longer matches (an answer swapped, a label
changed). A case missing from a recording that says it is complete is that recording's
error, not "not supported"; capabilities of the wrong JSON type or meaning, and observation
members that mean nothing, are clear errors naming the member. A recording is read within a
bound, however far it decompresses."""
from __future__ import annotations

import gzip
import json

import pytest

from pto_avs.avs import spec_check
from pto_avs.contract.case import Case
from pto_avs.contract.compare import compare
from pto_avs.plugins import replay
from pto_avs.plugins.base import open_device
from pto_avs.plugins.golden import open_device as open_golden


def case(name: str, value: int = 7) -> Case:
    state = {"tile_capacity": 262144, "status": 0, "gprs": {},
             "tiles": [{"index": 0, "dtype": "U8", "capacity": 128, "cols": 8, "valid": [1, 1], "layout": "RowMajor",
                        "location": "Any", "mask": "1111", "defined": "valid", "data": [[value]]},
                       {"index": 1, "dtype": "U8", "capacity": 128, "cols": 8, "valid": [1, 1], "layout": "RowMajor",
                        "location": "Any", "mask": "1111", "defined": "none"}]}
    expect = {"fault": None, "tiles": [{"index": 1, "data": [[value * 3 & 0xFF]]}]}
    return Case("PTO-AVS-X-REPLAY-TRUST-001", name, "TMULS", "execution", ("pto-v0",), (), (), state,
                ({"call": "TMULS", "dst": 1, "src": 0, "scalar": 3},), expect)


CASES = [case("a", 7), case("b", 9), case("c", 11)]


def golden_recording(tmp_path, label="golden:pto-v0", cases=CASES):
    golden = open_golden("pto-v0")
    recording = replay.Recording()
    for c in cases:
        recording.add_observation(label, golden.capabilities, c, golden.execute(c))
    path = tmp_path / "golden.json"
    recording.write(path)
    return path


def edit(path, change):
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data))
    return path


def outcomes(device, cases=CASES):
    return [compare(c, device.execute(c), device.capabilities.aspects).outcome if device.supports(c) is None
            else "not supported" for c in cases]


def test_a_written_recording_carries_a_digest_and_replays(tmp_path):
    path = golden_recording(tmp_path)
    data = json.loads(path.read_text())
    assert data["digest"] == replay.recording_digest(data) and len(data["digest"]) == 64
    device = open_device(f"replay:{path}")
    assert outcomes(device) == ["pass"] * 3
    assert device.capabilities.extras["recording.digest"] == data["digest"]
    assert device.evidence() == f"{path}: digest {data['digest']}; recorded from golden:pto-v0"


@pytest.mark.parametrize("tamper", ["answer replaced", "relabelled", "header edited", "capabilities edited"])
def test_an_edited_recording_is_refused_naming_it(tmp_path, tamper):
    """Before: a failing answer replaced by a golden one replayed as pass; a golden recording
    relabelled as a lab device passed."""
    path = golden_recording(tmp_path)

    def change(data):
        device = data["devices"]["golden:pto-v0"]
        if tamper == "answer replaced":
            device["cases"][CASES[0].id]["observation"]["tiles"]["1"]["words"][0][0] = 22
        elif tamper == "relabelled":
            data["devices"] = {"lab-board-7": device}
        elif tamper == "header edited":
            data["complete"] = False
            data["incomplete"] = "x"
        else:
            device["capabilities"]["aspects"].remove("payload")

    edit(path, change)
    with pytest.raises(ValueError) as raised:
        open_device(f"replay:partial:{path}")
    assert str(raised.value).startswith(f"{path}: its digest does not match its content: it was edited after it "
                                        "was written")


def test_a_hand_written_recording_without_a_digest_replays_shown_unsigned(tmp_path):
    path = edit(golden_recording(tmp_path), lambda data: data.pop("digest"))
    device = open_device(f"replay:{path}")
    assert outcomes(device) == ["pass"] * 3
    assert device.capabilities.extras["recording.digest"] == replay.UNSIGNED


def test_a_case_missing_from_a_complete_recording_is_its_error(tmp_path):
    """Before: a complete recording lacking cases gave "not supported" and exit 0."""
    path = golden_recording(tmp_path, cases=CASES[:1])
    device = open_device(f"replay:{path}")
    assert outcomes(device) == ["pass", "device error", "device error"]
    error = device.execute(CASES[1]).error
    assert error.startswith(f"{CASES[1].id} is missing from recording {path} (golden:pto-v0), which says it is "
                            "complete: an error of that recording")
    # Asked for a partial replay, or a hand-written file that does not say it is complete: not supported.
    assert outcomes(open_device(f"replay:partial:{path}")) == ["pass", "not supported", "not supported"]
    edit(path, lambda data: (data.pop("complete"), data.pop("digest")))
    assert outcomes(open_device(f"replay:{path}")) == ["pass", "not supported", "not supported"]


@pytest.mark.parametrize("member, value, message", [
    ("aspects", "payload", "'aspects' must be a list of names, not str \"payload\""),
    ("aspects", ["payload", "vibes"], "'aspects': 'vibes' is not one of fault, "),
    ("operations", "TCVT", "'operations' must be a list of names, not str \"TCVT\""),
    ("profile", 5, "'profile' must be one of pto-v0, hw-ieee, not 5"),
    ("dtypes", "U8", "'dtypes' must be a list of names, not str \"U8\""),
    ("direct_calls", "yes", "'direct_calls' must be true or false, not \"yes\""),
])
def test_capabilities_of_the_wrong_type_are_a_clear_open_error(tmp_path, member, value, message):
    """Before: ``aspects: "payload"`` was a set of letters (every case not observable), ``operations: "TCVT"``
    no tests, ``profile: 5`` nothing runs."""
    path = golden_recording(tmp_path)
    edit(path, lambda data: (data.pop("digest"), data["devices"]["golden:pto-v0"]["capabilities"].__setitem__(
        member, value)))
    with pytest.raises(ValueError) as raised:
        open_device(f"replay:{path}")
    assert str(raised.value).startswith(f"{path}: capabilities of golden:pto-v0: {message}")


def test_a_recording_is_read_within_a_bound_however_far_it_decompresses(tmp_path, monkeypatch):
    """Before: a 6 MB .json.gz expanding to 6 GB was read whole (345 s to a 3 GiB cap)."""
    bomb = tmp_path / "bomb.json.gz"
    with gzip.open(bomb, "wb") as out:
        out.write(b'{"format": "pto-avs-recording/1", "devices": {}, "pad": "')
        for _ in range(8):
            out.write(b" " * (1 << 20))
        out.write(b'"}')
    monkeypatch.setattr(replay, "MAX_RECORDING_BYTES", 4 << 20)
    with pytest.raises(ValueError) as raised:
        open_device(f"replay:{bomb}")
    assert str(raised.value) == (f"cannot read recording {bomb}: more than {4 << 20} bytes of JSON after "
                                 "decompression, the bound of a recording")


@pytest.mark.parametrize("member, value, message", [
    ("dtype", "FP8", "member 'tiles.1.dtype': 'FP8' is not a DataType"),
    ("layout", "Diagonal", "member 'tiles.1.layout': 'Diagonal' is not a TileLayout"),
    ("location", "Moon", "member 'tiles.1.location': 'Moon' is not a TileLocation"),
    ("mask", "12345", "member 'tiles.1.mask': '12345' is not a 4-bit allocation mask"),
    ("bytes", [0] * 100_000, "member 'tiles.1.bytes': 100000 bytes; a 1x2 predicate tile packs into 1"),
])
def test_an_observation_member_that_means_nothing_is_a_device_error_naming_it(member, value, message):
    """Before: these were judged, as a payload or descriptor fail."""
    golden = open_golden("pto-v0")
    observation = golden.execute(CASES[0])
    tile = observation.tiles[1]
    if member == "bytes":
        tile.rows, tile.cols, tile.storage_kind = 1, 2, "predicate"
    setattr(tile, member, value)
    verdict = compare(CASES[0], observation, golden.capabilities.aspects)
    assert verdict.outcome == "device error" and verdict.error.startswith(f"malformed observation: {message}")


def test_the_format_names_match_the_schema():
    from pto_avs.contract import case as case_module, loader

    defs = json.loads(loader.SCHEMA_PATH.read_text())["$defs"]
    assert case_module.LAYOUTS == tuple(defs["layout"]["enum"])
    assert case_module.LOCATIONS == tuple(defs["location"]["enum"])
    assert case_module.dtype_names() == frozenset(defs["dtype"]["enum"])


@pytest.mark.slow  # reads the whole committed spec recording
def test_the_committed_spec_recording_carries_its_digest():
    data = json.loads(gzip.decompress(spec_check.RECORDING.read_bytes()))
    assert data["digest"] == replay.recording_digest(data)
    device = open_device(f"replay:{spec_check.RECORDING}")
    assert device.capabilities.extras["recording.digest"] == data["digest"]
    # the device line of the run that made it: the spec device with the interpreter commit the spec pins
    line = device.capabilities.extras["recording.device"]
    assert line.startswith("aslref (") and "pinned=0b6e09066d4186c8a26e02e3bb884bd664d5eb34" in line
