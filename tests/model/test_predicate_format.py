"""Predicate tiles in vectors and observations: the loader's rules, the comparator's
storage-kind, bit, packed-byte and padding checks (vectors/FORMAT.md "Predicate tiles")."""
from __future__ import annotations

import numpy as np
import pytest

from pto_avs.contract import compare, loader
from pto_avs.contract.case import Observation, TileObservation

ALL_ASPECTS = frozenset(compare.ASPECTS)


def load(tmp_path, case: str, operation: str = "TSELS"):
    vector_id = "PTO-AVS-X-PRED-FORMAT-001"
    path = tmp_path / f"{vector_id}.yaml"
    path.write_text(f"""format: pto-avs-vector/1
id: {vector_id}
operation: {operation}
kind: execution
exercises: [ADR-0080]
provenance: predicate format tests
cases:
{case}""")
    loaded = loader.load_file(path, cache=None)
    loaded.errors = [e.message for e in ([loaded.error] if loaded.error else []) + loaded.entries
                     if not hasattr(e, "expect")]
    return loaded


PREDICATE_CASE = """
  - name: bits
    source: hand
    reference: format
    state:
      tiles:
        - {index: 3, storage_kind: predicate, capacity: 128, rows: 2, cols: 8, valid: [2, 5],
           data: [[1, 0, 1, 1, 0], [0, 0, 1, 0, 1]], defined: all}
    program: [{call: TSELS, dst: 4, src: 3, src1: 5, scalar: 0}]
    expect:
      unchanged: [3]
      tiles:
        - {index: 3, storage_kind: predicate, rows: 2, cols: 8, valid: [2, 5],
           data: [[1, 0, 1, 1, 0], [0, 0, 1, 0, 1]], padding: {defined: true, value: 0},
           bytes: [0x0D, 0x14]}
"""


def observed_tile(bits, defined, packed=None, kind="predicate"):
    bits = np.asarray(bits, dtype=np.uint64)
    rows, cols = bits.shape
    if packed is None:
        packed = np.packbits(bits.astype(np.uint8).ravel(), bitorder="little").tolist()
    return TileObservation(dtype="U8", layout="RowMajor", location="Any", rows=rows, cols=cols, valid=(2, 5),
                           capacity=128, mask="1111", words=bits.tolist(), defined=np.asarray(defined).tolist(),
                           storage_kind=kind, bytes=packed)


def grid():
    """The expected tile of PREDICATE_CASE in full: valid bits, padding 0."""
    bits = np.zeros((2, 8), dtype=np.uint64)
    bits[:, :5] = [[1, 0, 1, 1, 0], [0, 0, 1, 0, 1]]
    return bits


def test_a_predicate_case_loads_with_u8_and_its_bytes(tmp_path):
    loaded = load(tmp_path, PREDICATE_CASE)
    assert not loaded.errors, loaded.errors
    case = loaded.cases[0]
    tile = case.state["tiles"][0]
    assert tile["storage_kind"] == "predicate" and tile["dtype"] == "U8" and tile["rows"] == 2
    # bytes by hand: row 0 bits 1,0,1,1,0 then padding 0,0,0 -> 0b00001101; row 1 0,0,1,0,1,0,0,0 -> 0b00010100
    assert case.expect["tiles"][0]["bytes"] == [0x0D, 0x14]


@pytest.mark.parametrize("change, message", [
    ("rows: 2, cols: 8", None),
    ("rows: 2, cols: 8, dtype: U16", "U8"),
    ("cols: 8", "rows"),
    ("rows: 200, cols: 100", "16384"),
    ("rows: 64, cols: 512", "16384"),
    ("rows: 2, cols: 8, layout: ColumnMajor", "RowMajor"),
])
def test_state_predicate_tiles_are_checked(tmp_path, change, message):
    case = PREDICATE_CASE.replace("rows: 2, cols: 8, valid: [2, 5],\n           data",
                                  f"{change}, valid: [2, 5],\n           data")
    loaded = load(tmp_path, case)
    if message is None:
        assert not loaded.errors
    else:
        assert loaded.errors and message in str(loaded.errors[0]), loaded.errors


@pytest.mark.parametrize("old, new, message", [
    ("[[1, 0, 1, 1, 0], [0, 0, 1, 0, 1]], padding", "[[1, 0, 2, 1, 0], [0, 0, 1, 0, 1]], padding",
     "not a predicate bit"),
    ("[[1, 0, 1, 1, 0], [0, 0, 1, 0, 1]], defined", "[[1, 0, 2, 1, 0], [0, 0, 1, 0, 1]], defined", "0 or 1"),
    ("bytes: [0x0D, 0x14]", "bytes: [0x0D]", "2 bytes"),
    ("padding: {defined: true, value: 0}", "padding: {defined: false}", "padding bits must be defined"),
    ("padding: {defined: true, value: 0}", "padding: {defined: true, value: 2}", "not a predicate bit"),
    ("bytes: [0x0D, 0x14]", "words: [[1, 0, 1, 1, 0], [0, 0, 1, 0, 1]]", "not words"),
])
def test_expected_predicate_tiles_are_checked(tmp_path, old, new, message):
    loaded = load(tmp_path, PREDICATE_CASE.replace(old, new))
    assert loaded.errors and message in str(loaded.errors[0]), loaded.errors


def test_bytes_belong_to_predicate_tiles_only(tmp_path):
    case = PREDICATE_CASE.replace("- {index: 3, storage_kind: predicate, rows: 2", "- {index: 3, rows: 2")
    assert load(tmp_path, case).errors


def verdict(tmp_path, tile: TileObservation):
    case = load(tmp_path, PREDICATE_CASE).cases[0]
    return compare.compare(case, Observation(fault=None, flags=0, tiles={3: tile}), ALL_ASPECTS)


def test_a_right_predicate_tile_passes_every_aspect(tmp_path):
    result = verdict(tmp_path, observed_tile(grid(), np.ones((2, 8), bool)))
    assert result.outcome == "pass", result.report()
    assert set(result.aspects) == {"fault", "descriptor", "payload", "padding_defined", "padding_value",
                                   "sources", "storage"}


def test_high_bit_first_packing_fails_though_the_words_are_right(tmp_path):
    bits = grid()
    high_first = np.packbits(bits.astype(np.uint8).ravel(), bitorder="big").tolist()
    result = verdict(tmp_path, observed_tile(bits, np.ones((2, 8), bool), packed=high_first))
    failed = {a for a, v in result.aspects.items() if v.status == compare.FAIL}
    assert {"payload", "storage", "sources"} <= failed, result.report()
    assert "packed bits" in result.report()


def test_a_numeric_tile_where_a_predicate_is_expected_fails_the_descriptor(tmp_path):
    result = verdict(tmp_path, observed_tile(grid(), np.ones((2, 8), bool), kind=None))
    assert result.aspects["descriptor"].status == compare.FAIL
    assert result.aspects["sources"].status == compare.FAIL


def test_a_predicate_tile_where_a_numeric_one_is_expected_fails_the_descriptor(tmp_path):
    case = PREDICATE_CASE.replace("""        - {index: 3, storage_kind: predicate, rows: 2, cols: 8, valid: [2, 5],
           data: [[1, 0, 1, 1, 0], [0, 0, 1, 0, 1]], padding: {defined: true, value: 0},
           bytes: [0x0D, 0x14]}""", """        - {index: 3, dtype: U8, valid: [2, 5]}""")
    loaded = load(tmp_path, case)
    assert not loaded.errors, loaded.errors
    observation = Observation(fault=None, flags=0, tiles={3: observed_tile(grid(), np.ones((2, 8), bool))})
    result = compare.compare(loaded.cases[0], observation, ALL_ASPECTS)
    assert result.aspects["descriptor"].status == compare.FAIL
    assert "storage_kind" in result.report()


def test_undefined_padding_bits_and_wrong_bits_fail_their_aspects(tmp_path):
    defined = np.ones((2, 8), bool)
    defined[1, 7] = False
    bits = grid()
    bits[0, 1] = 1
    result = verdict(tmp_path, observed_tile(bits, defined))
    assert result.aspects["padding_defined"].status == compare.FAIL
    assert result.aspects["payload"].status == compare.FAIL


def test_trailing_bits_past_the_last_element_are_not_compared(tmp_path):
    case = PREDICATE_CASE.replace(
        "rows: 2, cols: 8, valid: [2, 5],\n           data: [[1, 0, 1, 1, 0], [0, 0, 1, 0, 1]], padding",
        "rows: 1, cols: 5, valid: [1, 5],\n           data: [[1, 0, 1, 1, 0]], padding").replace(
        "bytes: [0x0D, 0x14]", "bytes: [0x0D]").replace(
        "rows: 2, cols: 8, valid: [2, 5],\n           data: [[1, 0, 1, 1, 0], [0, 0, 1, 0, 1]], defined",
        "rows: 1, cols: 5, valid: [1, 5],\n           data: [[1, 0, 1, 1, 0]], defined")
    loaded = load(tmp_path, case)
    assert not loaded.errors, loaded.errors
    bits = np.array([[1, 0, 1, 1, 0]], dtype=np.uint64)
    tile = TileObservation(dtype="U8", layout="RowMajor", location="Any", rows=1, cols=5, valid=(1, 5),
                           capacity=128, mask="1111", words=bits.tolist(), defined=[[True] * 5],
                           storage_kind="predicate", bytes=[0xED])  # stale high bits 5..7
    result = compare.compare(loaded.cases[0], Observation(fault=None, flags=0, tiles={3: tile}),
                             frozenset({"fault", "payload", "storage", "descriptor"}))
    assert result.aspects["storage"].status == compare.PASS, result.report()


@pytest.mark.parametrize("packed", [[0x0D], [0x0D, 0x14, 0], [0x0D, 256], ["x", 1]])
def test_malformed_bytes_are_a_malformed_observation(tmp_path, packed):
    result = verdict(tmp_path, observed_tile(grid(), np.ones((2, 8), bool), packed=packed))
    assert result.error and "bytes" in result.error


def test_observation_json_round_trips_storage_kind_and_bytes():
    tile = observed_tile(grid(), np.ones((2, 8), bool))
    data = Observation(tiles={3: tile}).to_json()
    assert data["tiles"]["3"]["storage_kind"] == "predicate" and data["tiles"]["3"]["bytes"] == [0x0D, 0x14]
    again = Observation.from_json(data).tiles[3]
    assert again.kind == "predicate" and again.bytes == [0x0D, 0x14]
    with pytest.raises(ValueError, match="storage_kind"):
        Observation.from_json({"tiles": {"3": {"storage_kind": "boolean"}}})
