"""Predicate tiles through the devices: the aslref adapter's program and output for
predicate tiles (and, live, the spec's own answers on the plumbing vectors), the
golden device's observation."""
from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import pytest

from pto_avs.contract import loader
from pto_avs.contract.case import Case
from pto_avs.contract.compare import compare
from pto_avs.plugins.aslref import output, program
from pto_avs.plugins.aslref.spec import ASLREF_ENV, SPEC_ENV
from pto_avs.plugins.base import open_device

VECTORS = Path(loader.VECTORS_DIR)
PLUMBING = [VECTORS / "PTO-AVS-X-PRED-FORMAT-001.yaml", VECTORS / "PTO-AVS-X-PRED-SELECT-001.yaml"]
CONTRACTS = {"TCMP": ("TileIndex", "TileIndex", "TileIndex", "TileComparison"),
             "TSELS": ("TileIndex", "TileIndex", "TileIndex", "Word")}


def predicate_case(program_items, tile_extra=None) -> Case:
    tile = {"index": 3, "storage_kind": "predicate", "dtype": "U8", "capacity": 128, "rows": 2, "cols": 4,
            "valid": [1, 3], "layout": "RowMajor", "location": "Any", "mask": "1111", "defined": "valid",
            "data": [[1, 0, 1]], **(tile_extra or {})}
    state = {"tile_capacity": 262144, "status": 0, "gprs": {}, "tiles": [tile]}
    return Case("PTO-AVS-X-PRED-TEST", "case", "TSELS", "execution", ("pto-v0", "hw-ieee"), (), (), state,
                tuple(program_items), {})


def test_a_predicate_state_tile_is_configured_and_written_bit_by_bit():
    text, _ = program.case_function(0, predicate_case([]), {})
    assert "AVSConfigurePredicateTile(3, 128, 2, 4, 1, 3, '1111');" in text
    assert [line.strip() for line in text.splitlines() if "AVSPutPredicate" in line] == [
        "AVSPutPredicate(3, 0, 0, TRUE, TRUE);", "AVSPutPredicate(3, 0, 1, FALSE, TRUE);",
        "AVSPutPredicate(3, 0, 2, TRUE, TRUE);"]


def test_defined_all_defines_the_padding_bits_and_elements_land_where_written():
    text, _ = program.case_function(0, predicate_case([], {"defined": "all", "elements": {"1,3": 1}}), {})
    puts = [line.strip() for line in text.splitlines() if "AVSPutPredicate" in line]
    assert len(puts) == 8 and "AVSPutPredicate(3, 1, 3, TRUE, TRUE);" in puts
    assert "AVSPutPredicate(3, 1, 0, FALSE, TRUE);" in puts  # a defined 0 padding bit


def test_direct_compare_calls_name_the_tile_comparison():
    case = predicate_case([{"call": "TCMP", "dst": 3, "src": 0, "src1": 1, "cmode": "GT"}])
    assert program.unsupported(case, CONTRACTS) is None
    text, _ = program.case_function(0, case, CONTRACTS)
    assert "InstructionContractExecute_TCMP(3, 0, 1, TileComparison_GT)" in text
    default = program.case_function(0, predicate_case([{"call": "TCMP", "dst": 3, "src": 0, "src1": 1}]),
                                    CONTRACTS)[0]
    assert "InstructionContractExecute_TCMP(3, 0, 1, TileComparison_EQ)" in default


def test_output_reads_a_predicate_tile_with_its_bytes():
    lines = ["F Fault_None", "N 1", "U 512",
             "T 3 TileStorage_Predicate TileDataType_U8 TileLayout_RowMajor TileLocation_Any 2 4 1 3 128 15",
             "R 0:1:1 1:1:0 2:1:1 3:0:0", "R 4:0:0 5:0:0 6:0:0 7:0:0", "B 5",
             "T 4 TileStorage_Numeric TileDataType_U8 TileLayout_RowMajor TileLocation_Any 1 128 1 1 128 15",
             "R " + " ".join(f"{i}:0:0" for i in range(128))]
    observed = output.observation(output.CaseOutput(0, lines, True), [])
    assert observed.error is None, observed.error
    tile = observed.tiles[3]
    assert (tile.storage_kind, tile.bytes, tile.words[0], tile.defined[0]) == (
        "predicate", [5], [1, 0, 1, 0], [True, True, True, False])
    assert observed.tiles[4].storage_kind is None and observed.tiles[4].bytes is None


def test_a_predicate_tile_without_its_byte_line_is_unreadable():
    lines = ["F Fault_None", "N 0", "U 512",
             "T 3 TileStorage_Predicate TileDataType_U8 TileLayout_RowMajor TileLocation_Any 1 4 1 3 128 15",
             "R 0:1:1 1:1:0 2:1:1 3:0:0"]
    observed = output.observation(output.CaseOutput(0, lines, True), [])
    assert observed.error and "B line" in observed.error


@pytest.mark.parametrize("profile", ["pto-v0", "hw-ieee"])
def test_golden_device_reports_predicate_tiles(profile):
    device = open_device(f"golden:{profile}")
    for path in PLUMBING:
        for case in loader.load_file(path, cache=None).cases:
            verdict = compare(case, device.execute(case), device.capabilities.aspects)
            assert verdict.outcome == "pass", verdict.report()
    case = loader.load_file(PLUMBING[0], cache=None).cases[0]
    tile = device.execute(case).tiles[2]
    assert tile.storage_kind == "predicate" and tile.bytes[:2] == [0x55, 0x01]


LIVE_REASON = f"live aslref tests need {ASLREF_ENV} and {SPEC_ENV}; see plugins/aslref/README.md"


@pytest.mark.skipif(not (os.environ.get(ASLREF_ENV) and os.environ.get(SPEC_ENV)), reason=LIVE_REASON)
def test_live_the_spec_answers_the_predicate_plumbing_vectors():
    """The spec's own predicate tiles (ConfigurePredicateTileForMask, WriteTilePredicateBit,
    ReadTilePredicateByte) pass the plumbing vectors: bits, definedness, bytes, faults."""
    device = open_device("aslref")
    cases = [case for path in PLUMBING for case in loader.load_file(path, cache=None).cases]
    observations = device.execute_batch(cases)
    for case, observation in zip(cases, observations):
        verdict = compare(case, observation, device.capabilities.aspects)
        assert verdict.outcome == "pass", f"{case.id}: {verdict.report()}"
    assert observations[1].tiles[2].bytes == [0xF0, 0xFF, 0xFF, 0xFF]


@pytest.mark.slow  # builds and runs the C device
def test_the_c_device_answers_unsupported_for_predicate_tiles_and_compare_select(tmp_path):
    """The example C device implements TCVT only: a predicate state tile or a TCMP/TSEL
    bundle is `unsupported` (not a crash, not a device error), and its hello leaves the
    four operations out, so the adapter does not send their cases."""
    from pto_avs.plugins import c_device
    from pto_avs.plugins.process import ProcessDevice

    try:
        binary, diagnostics = c_device.build(tmp_path)
    except c_device.CompilerMissing as exc:
        pytest.skip(str(exc))
    assert diagnostics == ""
    device = ProcessDevice([str(binary)])
    try:
        assert not {"TCMP", "TCMPS", "TSEL", "TSELS"} & set(device.capabilities.operations)
        shipped = loader.load_file(PLUMBING[0], cache=None).cases[1]
        assert device.supports(shipped) is not None  # a TCMP case is not sent
        predicate_state = dataclasses.replace(predicate_case(["BSTART.VEC TCVT, U8; B.DATR U16; B.DIM LB0=1; "
                                                              "B.IOT T3, mask=1111, <last>, ->T<1>; BSTOP"]),
                                              operation="TCVT")
        numeric = [{"index": 0, "dtype": "U8", "capacity": 128, "cols": 8, "valid": [1, 4], "layout": "RowMajor",
                    "location": "Any", "mask": "1111", "defined": "valid", "data": [[1, 2, 3, 4]]}]
        tcmp_words = Case("PTO-AVS-X-PRED-TEST", "tcmp-words", "TCVT", "execution", ("pto-v0", "hw-ieee"), (), (),
                          {"tile_capacity": 262144, "status": 0, "gprs": {}, "tiles": numeric},
                          ("BSTART.TEPL TCMP, U8; B.DIM LB0=4; B.IOT T0, T0, mask=1111, <last>, ->T<1>; BSTOP",),
                          {})
        reasons = [device.execute(case).error for case in (predicate_state, tcmp_words)]
        assert reasons[0].startswith("not supported: ") and "predicate" in reasons[0], reasons[0]
        assert reasons[1].startswith("not supported: ") and "Function 13" in reasons[1], reasons[1]  # TCMP
    finally:
        device.close()


def test_the_process_protocol_carries_predicate_tiles_both_ways():
    from pto_avs.contract.case import Observation
    from pto_avs.plugins.process import _check_observation, request_case

    case = predicate_case([{"call": "TSELS", "dst": 4, "src": 3, "src1": 5, "scalar": 7}])
    sent = request_case(case, "pto-v0")["state"]["tiles"][0]
    assert (sent["storage_kind"], sent["rows"], sent["cols"], sent["dtype"]) == ("predicate", 2, 4, "U8")
    answer = {"fault": None, "flags": 0, "tiles": {"3": {
        "storage_kind": "predicate", "dtype": "U8", "rows": 2, "cols": 4, "valid": [1, 3],
        "words": [[1, 0, 1, 0], [0, 0, 0, 0]], "defined": [[True] * 3 + [False], [False] * 4], "bytes": [5]}}}
    tile = Observation.from_json(answer).tiles[3]
    assert tile.kind == "predicate" and tile.bytes == [5]
    _check_observation(Observation.from_json(answer))
    answer["tiles"]["3"]["bytes"] = [256]
    with pytest.raises(ValueError, match="tiles.3.bytes"):
        _check_observation(Observation.from_json(answer))


def test_the_replay_device_round_trips_predicate_tiles(tmp_path):
    from pto_avs.plugins.replay import Recording

    golden = open_device("golden")
    cases = [case for path in PLUMBING for case in loader.load_file(path, cache=None).cases]
    recording = Recording()
    for case in cases:
        recording.add_observation("golden", golden.capabilities, case, golden.execute(case))
    path = tmp_path / "predicate.json.gz"
    recording.write(path)
    replay = open_device(f"replay:{path}")
    for case in cases:
        observation = replay.execute(case)
        assert compare(case, observation, replay.capabilities.aspects).outcome == "pass"
    tile = replay.execute(cases[1]).tiles[2]
    assert tile.storage_kind == "predicate" and tile.bytes == [0xF0, 0xFF, 0xFF, 0xFF]
