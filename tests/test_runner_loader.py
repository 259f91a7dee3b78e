"""Vector loading: the JSON Schema, the catalog cross-check, one clear error per problem,
and the normalized Case."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from pto_avs.contract import loader
from pto_avs.contract.case import FAULT_CLASSES, PROFILES
from pto_avs.device_model.dtypes import NAMES

FIXTURES = Path(__file__).resolve().parent / "runner_vectors"
SCHEMA = json.loads(loader.SCHEMA_PATH.read_text())

GOOD_CASE = """
  - name: seven-times-three
    source: hand
    reference: 7 * 3 = 21
    state:
      tiles:
        - {index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], data: [[7]]}
    program: [{call: TMULS, dst: 1, src: 0, scalar: 3}]
    expect:
      tiles: [{index: 1, data: [[21]]}]
"""


def project_file(tmp_path, cases: str, vector_id="PTO-AVS-X-RUNNER-LOADER-001", header_extra=""):
    text = f"""format: pto-avs-vector/1
id: {vector_id}
operation: TMULS
kind: execution
exercises: [ADR-0081]
provenance: runner loader tests
{header_extra}cases:
{GOOD_CASE}{cases}"""
    path = tmp_path / f"{vector_id}.yaml"
    path.write_text(text)
    return path


def test_schema_is_a_valid_2020_12_schema_and_agrees_with_the_project_tables():
    Draft202012Validator.check_schema(SCHEMA)
    defs = SCHEMA["$defs"]
    assert defs["dtype"]["enum"] == list(NAMES)  # device_model.dtypes: the 25 assigned DataTypes
    assert defs["profile"]["enum"] == list(PROFILES)
    assert defs["fault"]["enum"] == [None, *FAULT_CLASSES]
    assert defs["operation"]["enum"] == list(loader.OPERATIONS)
    # Rounding and layout-transform names of the project assembly syntax (helper brief).
    assert defs["rounding"]["enum"] == "NONE RNE RTZ RTM RDN RTP RUP RNA RTO RHB".split()
    assert defs["call_tcvt"]["properties"]["layout"]["enum"] == (
        "NORM ND2DN ND2ZN ND2NZ DN2ND DN2ZN DN2NZ ZN2ND ZN2DN ZN2NZ NZ2ND NZ2DN NZ2ZN "
        "ND2M32 ND2M16 ND2N8 M322ND M162ND N82ND").split()


def test_schema_kinds_are_the_catalog_kinds_of_the_four_operations():
    catalog = loader.default_catalog()
    kinds = {catalog.tests[t]["kind"] for u in catalog.operation_units().values() for t in u["tests"]}
    assert set(SCHEMA["properties"]["kind"]["enum"]) == kinds


def test_fixture_vectors_load_into_normalized_cases():
    files = loader.load_paths([FIXTURES])
    assert [f.vector_id for f in files] == ["PTO-AVS-TILE-TCVT-ALIAS-001", "PTO-AVS-TILE-TCVT-E8M0-FINITE-002",
                                            "PTO-AVS-TILE-TMULS-WIDTH-001", "PTO-AVS-X-RUNNER-TMULS-001"]
    assert all(f.error is None and len(f.cases) == len(f.entries) == 1 for f in files)
    tmuls = files[2].cases[0]
    assert tmuls.id == "PTO-AVS-TILE-TMULS-WIDTH-001::u8-times-3-wraps"
    assert (tmuls.operation, tmuls.kind, tmuls.profiles) == ("TMULS", "execution", ("pto-v0",))
    # The catalog's TMULS unit: readiness_subjects and the test's requirements.
    assert tmuls.adrs == ("ADR-0035", "ADR-0052", "ADR-0057", "ADR-0059", "ADR-0081")
    assert tmuls.requirements == ("PTO-INST-TILE-TMULS",)
    assert tmuls.state["tile_capacity"] == 262144 and tmuls.state["status"] == 0 and tmuls.state["gprs"] == {}
    assert tmuls.state["tiles"][0] == {"index": 0, "dtype": "U8", "capacity": 128, "cols": 8, "valid": [1, 2],
                                       "data": [[7, 86]], "layout": "RowMajor", "location": "Any",
                                       "mask": "1111", "defined": "valid"}
    assert tmuls.program == ({"call": "TMULS", "dst": 1, "src": 0, "scalar": 3},)
    assert tmuls.expect["fault"] is None and tmuls.expect["unchanged"] == [0]
    project = files[3].cases[0]
    assert (project.adrs, project.requirements) == (("ADR-0081",), ("PTO-INST-TILE-TMULS",))
    assert project.profiles == ("pto-v0", "hw-ieee")


def test_yaml_details_are_normalized(tmp_path):
    path = project_file(tmp_path, """
  - name: details
    source: hand
    reference: normalization
    state:
      gprs: {5: 0x3F800000}
      tiles:
        - {index: 2, dtype: FP16, capacity: 128, valid: [1, 1], layout: CUBE_M16, elements: {" 0 , 3 ": 0x3C00}}
    program: |
      BSTART.VEC TCVT, FP16
      BSTOP
    expect:
      tiles: [{index: 2, storage: {16: 9}, elements: {"0, 1": {defined: false}}}]
""")
    case = loader.load_file(path).cases[1]
    assert case.state["gprs"] == {5: 0x3F800000}
    tile = case.state["tiles"][0]
    assert (tile["location"], tile["cols"], tile["elements"]) == ("Matrix", None, {"0,3": 0x3C00})
    assert case.program == ("BSTART.VEC TCVT, FP16\nBSTOP\n",)
    assert case.expect["tiles"][0]["storage"] == {16: 9}
    assert case.expect["tiles"][0]["elements"] == {"0,1": {"defined": False}}


BAD_CASES = [
    ("""
  - name: rows
    source: hand
    reference: r
    state: {tiles: [{index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 2], data: [[1, 2], [3, 4]]}]}
    program: [1]
    expect: {}
""", "case 'rows': state.tiles[0].data: expected 1 row(s) of 2 value(s) (valid [1, 2]), got 2 row(s)"),
    ("""
  - name: both
    source: hand
    reference: r
    state: {tiles: [{index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], data: [[1]], fill: 2}]}
    program: [1]
    expect: {}
""", "case 'both': state.tiles[0].fill: give either data or fill, not both"),
    ("""
  - name: no-cols
    source: hand
    reference: r
    state: {tiles: [{index: 0, dtype: U8, capacity: 128, valid: [1, 1]}]}
    program: [1]
    expect: {}
""", "case 'no-cols': state.tiles[0].cols: missing (required for layout RowMajor)"),
    ("""
  - name: outside
    source: hand
    reference: r
    state: {tiles: [{index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], elements: {"16,0": 1}}]}
    program: [1]
    expect: {}
""", "case 'outside': state.tiles[0].elements.16,0: coordinate outside the 16x8 tile"),
    ("""
  - name: wide
    source: hand
    reference: r
    program: [1]
    expect: {tiles: [{index: 0, dtype: S8, data: [[0xFFFFFFFFFFFFFFC8]]}]}
""", "case 'wide': expect.tiles[0].data[0][0]: 0xffffffffffffffc8 does not fit S8 (8-bit elements); "
     "element bits are compared, whole carrier Words go in `words`"),
    ("""
  - name: pad
    source: hand
    reference: r
    program: [1]
    expect: {tiles: [{index: 0, padding: {defined: false, value: 0}}]}
""", "case 'pad': expect.tiles[0].padding.value: an undefined padding has no value to check"),
    ("""
  - name: float
    source: hand
    reference: r
    program: [1]
    expect: {flags: 1.0}
""", "case 'float': expect.flags: expected 5 flag bits NV DZ OF UF NX (0 .. 0x1F), got 1.0"),
    ("""
  - name: extra
    source: hand
    reference: r
    program: [1]
    expect: {}
    expected: {}
""", "case 'extra': expected: unknown field"),
    ("""
  - name: twice
    source: hand
    reference: r
    state: {tiles: [{index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 1]},
                    {index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 1]}]}
    program: [1]
    expect: {}
""", "case 'twice': state.tiles[1].index: tile 0 is described twice"),
    ("""
  - name: seven-times-three
    source: hand
    reference: r
    program: [1]
    expect: {}
""", "case 'seven-times-three#2': name: 'seven-times-three' is used by an earlier case"),
    ("""
  - name: call
    source: hand
    reference: r
    program: [{call: TMULS, dst: 1, src: 0}]
    expect: {}
""", "case 'call': program[0].scalar: missing (required)"),
    ("""
  - name: mask
    source: hand
    reference: r
    state: {tiles: [{index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], mask: 1111}]}
    program: [1]
    expect: {}
""", "case 'mask': state.tiles[0].mask: expected a quoted PE mask b3b2b1b0 such as \"1111\", got 1111"),
    ("""
  - name: typo
    source: hand
    reference: r
    program: "BSTART.VEC TCVT, U8; B.DIM LB7=2; BSTOP"
    expect: {}
""", "case 'typo': program: B.DIM: operand 'LB7=2': "),
    ("""
  - name: mask
    source: hand
    reference: r
    program: [0x1, "B.IOT T1, mask=0101, <last>"]
    expect: {}
""", "case 'mask': program[1]: B.IOT: operand 'mask=0101': mask 0101 has no PEMode encoding"),
    ("""
  - name: Bad Name
    source: hand
    reference: r
    program: [1]
    expect: {}
""", "case 'Bad Name': name: expected a case name of [a-z0-9][a-z0-9._-]*, got \"Bad Name\""),
]


@pytest.mark.parametrize("case_text, message", BAD_CASES, ids=[m.split("'")[1] for _, m in BAD_CASES])
def test_a_malformed_case_gives_one_error_and_the_good_case_still_loads(tmp_path, case_text, message):
    path = project_file(tmp_path, case_text)
    loaded = loader.load_file(path)
    assert loaded.error is None
    good, bad = loaded.entries
    assert good.name == "seven-times-three"
    assert isinstance(bad, loader.VectorError)
    assert bad.message.startswith(f"{loader.display_path(path)}: {message}")


def spec_file(tmp_path, vector_id, body):
    path = tmp_path / f"{vector_id}.yaml"
    path.write_text(f"format: pto-avs-vector/1\nid: {vector_id}\n{body}provenance: p\ncases:\n{GOOD_CASE}")
    return path


BAD_FILES = [
    ("PTO-AVS-TILE-TMULS-WIDTH-001", "operation: TMULS\nkind: boundary\n",
     "kind: does not match the catalog (expected \"execution\")"),
    ("PTO-AVS-TILE-TMULS-WIDTH-001", "operation: TMULS\nkind: execution\nsummary: my own words\n",
     "summary: does not match the catalog"),
    ("PTO-AVS-TILE-TMULS-WIDTH-001", "operation: TMULS\nkind: execution\nrequirements: [PTO-X]\n",
     "requirements: does not match the catalog (expected [\"PTO-INST-TILE-TMULS\"])"),
    ("PTO-AVS-TILE-TMULS-WIDTH-001", "operation: TCVT\nkind: execution\n",
     "operation: expected TMULS (the catalog unit listing PTO-AVS-TILE-TMULS-WIDTH-001), got TCVT"),
    ("PTO-AVS-TILE-TMULS-WIDTH-001", "operation: TMULS\nkind: execution\nexercises: [ADR-0081]\n",
     "exercises: only project IDs (PTO-AVS-X-...) carry exercises"),
    ("PTO-AVS-TILE-TMULS-WIDTH-999", "operation: TMULS\nkind: execution\n",
     "id: PTO-AVS-TILE-TMULS-WIDTH-999 is not a test ID of the catalog"),
    ("PTO-AVS-TILE-TADD-ELEMENTS-001", "operation: TMULS\nkind: execution\n",
     "id: PTO-AVS-TILE-TADD-ELEMENTS-001 belongs to TADD, not one of TCVT, TQUANT, TMULS, TGEMV_MX_ACC"),
    ("PTO-AVS-X-RUNNER-001", "operation: TMULS\nkind: execution\n", "exercises: missing (required)"),
    ("PTO-AVS-X-RUNNER-001", "operation: TMULS\nkind: execution\nexercises: [ADR-9999]\n",
     "exercises: ADR-9999 is neither an ADR nor a requirement of the catalog"),
    ("PTO-AVS-X-RUNNER-001", "operation: TMULS\nkind: execution\nexercises: [PTO-INST-TILE-TMULS]\n",
     "exercises: name at least one ADR (ADR-NNNN) the vector exercises"),
    ("PTO-AVS-X-RUNNER-001", "operation: TMULS\nexercises: [ADR-0081]\n", "kind: missing (required)"),
    ("PTO-AVS-X-RUNNER-001", "operation: TADD\nkind: execution\nexercises: [ADR-0081]\n",
     "operation: expected one of TCVT, TQUANT, TMULS, TGEMV_MX_ACC; got \"TADD\""),
]


@pytest.mark.parametrize("vector_id, body, message", BAD_FILES)
def test_a_malformed_file_gives_one_error(tmp_path, vector_id, body, message):
    path = spec_file(tmp_path, vector_id, body)
    loaded = loader.load_file(path)
    assert loaded.entries == []
    assert loaded.error.is_file_error
    assert loaded.error.message.startswith(f"{loader.display_path(path)}: {message}")


def test_yaml_problems_name_the_line(tmp_path):
    broken = tmp_path / "PTO-AVS-X-RUNNER-001.yaml"
    broken.write_text("format: pto-avs-vector/1\nid: [unclosed\n")
    assert loader.load_file(broken).error.message.startswith(f"{loader.display_path(broken)}: line 3, column 1: ")
    twice = tmp_path / "PTO-AVS-X-RUNNER-002.yaml"
    twice.write_text("format: pto-avs-vector/1\nid: PTO-AVS-X-RUNNER-002\nid: again\n")
    assert loader.load_file(twice).error.message == f"{loader.display_path(twice)}: line 3, column 1: duplicate key 'id'"
    wrong_name = project_file(tmp_path, "", vector_id="PTO-AVS-X-RUNNER-003")
    wrong_name.rename(tmp_path / "PTO-AVS-X-RUNNER-004.yaml")
    assert loader.load_file(tmp_path / "PTO-AVS-X-RUNNER-004.yaml").error.message.endswith(
        "id: PTO-AVS-X-RUNNER-003 does not match the file name PTO-AVS-X-RUNNER-004.yaml "
        "(expected PTO-AVS-X-RUNNER-003.yaml)")


def test_duplicate_ids_across_directories_keep_test_ids_unique(tmp_path):
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    project_file(first, "")
    project_file(second, "")
    files = loader.load_paths([first, second])
    assert files[0].error is None
    assert "is already defined by" in files[1].error.message
    assert files[0].vector_id != files[1].vector_id
    with pytest.raises(FileNotFoundError, match="does not exist"):
        loader.load_paths([tmp_path / "nowhere"])
