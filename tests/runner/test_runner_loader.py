"""Vector loading: the JSON Schema, the catalog cross-check, one clear error per problem,
and the normalized Case."""
from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import pytest
from jsonschema import Draft202012Validator

from pto_avs.contract import loader, vector_cache, yaml_reader
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
    assert len(loader.OPERATIONS) == 109 and {"TCVT", "TCMP", "GMOV"} <= set(loader.OPERATIONS)  # the catalog's units
    # Rounding and layout-transform names of the project assembly syntax (helper brief).
    assert defs["rounding"]["enum"] == "NONE RNE RTZ RTM RDN RTP RUP RNA RTO RHB".split()
    assert defs["call_tcvt"]["properties"]["layout"]["enum"] == (
        "NORM ND2DN ND2ZN ND2NZ DN2ND DN2ZN DN2NZ ZN2ND ZN2DN ZN2NZ NZ2ND NZ2DN NZ2ZN "
        "ND2M32 ND2M16 ND2N8 M322ND M162ND N82ND").split()


def test_schema_kinds_are_the_catalog_kinds():
    catalog = loader.default_catalog()
    assert set(SCHEMA["properties"]["kind"]["enum"]) == {t["kind"] for t in catalog.tests.values()}


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
""", header_extra="also_exercises: [TCVT]\n")  # (a TCVT bundle in a TMULS file)
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
""", "case 'extra': expected: unknown field (did you mean 'expect'?)"),
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
    ("PTO-AVS-X-RUNNER-001", "operation: TMULS\nkind: execution\n", "exercises: missing (required)"),
    ("PTO-AVS-X-RUNNER-001", "operation: TMULS\nkind: execution\nexercises: [ADR-9999]\n",
     "exercises: ADR-9999 is neither an ADR nor a requirement of the catalog"),
    ("PTO-AVS-X-RUNNER-001", "operation: TMULS\nkind: execution\nexercises: [PTO-INST-TILE-TMULS]\n",
     "exercises: name at least one ADR (ADR-NNNN) the vector exercises"),
    ("PTO-AVS-X-RUNNER-001", "operation: TMULS\nexercises: [ADR-0081]\n", "kind: missing (required)"),
    ("PTO-AVS-X-RUNNER-001", "operation: TNOSUCH\nkind: execution\nexercises: [ADR-0081]\n",
     "operation: TNOSUCH is not a tile operation of the spec catalog"),
    # A misspelt top-level key: the stray key named, with the spelling it is close to.
    ("PTO-AVS-TILE-TMULS-WIDTH-001", "operaton: TMULS\nkind: execution\n",
     "operation: missing (required); stray key 'operaton' (did you mean 'operation'?)"),
    ("PTO-AVS-X-RUNNER-001", "operation: TMULS\nkind: execution\nexercises: [ADR-0081]\nalso_exercise: [TCVT]\n",
     "also_exercise: unknown field (did you mean 'also_exercises'?)"),
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


# ---------------------------------------------------------------------------
# impossible initial states: vector errors before any device runs


IMPOSSIBLE_STATES = [
    ("{index: 0, dtype: U8, capacity: 0x10000000000, cols: 8, valid: [1, 1]}",
     "state.tiles[0].capacity: 0x10000000000 is not a tile capacity (a multiple of 128 from 128 to 65536, "
     "at most the tile_capacity 262144)"),
    ("{index: 0, dtype: U8, capacity: 100, cols: 8, valid: [1, 1]}", "state.tiles[0].capacity: 100 is not a tile capacity"),
    ("{index: 0, dtype: U8, capacity: 128, cols: 0, valid: [1, 1]}",
     "state.tiles[0].cols: 0 columns do not split 128 bytes of U8 into 1 to 65535 whole rows"),
    ("{index: 0, dtype: U8, capacity: 128, cols: 12, valid: [1, 1]}", "state.tiles[0].cols: 12 columns do not split"),
    ("{index: 0, dtype: U8, capacity: 128, cols: 8, valid: [17, 1]}",
     "state.tiles[0].valid: 17x1 does not fit the 16x8 tile"),
    ("{index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], elements: {'1000000000000000000000000000000, 0': 1}}",
     "state.tiles[0].elements.1000000000000000000000000000000, 0: coordinate outside the 16x8 tile"),
    ("{index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], mask: '0000'}",
     "state.tiles[0].mask: the allocation mask names no PE"),
    ("{index: 0, dtype: U8, capacity: 128, valid: [1, 1], layout: CUBE_M16, location: Vector}",
     "state.tiles[0].location: a CUBE_M16 tile lies in Matrix"),
    ("{index: 0, dtype: U8, capacity: 128, valid: [1000, 1000], layout: CUBE_N8, location: Matrix}",
     "state.tiles[0].valid: no CUBE_N8 U8 tile of valid 1000x1000 fits 128 bytes"),
]


@pytest.mark.parametrize("tile, message", IMPOSSIBLE_STATES, ids=[m.split(":")[0] + f"-{i}" for i, (_, m) in
                                                                 enumerate(IMPOSSIBLE_STATES)])
def test_an_impossible_initial_state_is_a_vector_error_naming_the_field(tmp_path, tile, message):
    path = project_file(tmp_path, f"""
  - name: impossible
    source: hand
    reference: r
    state: {{tiles: [{tile}]}}
    program: [1]
    expect: {{}}
""")
    good, bad = loader.load_file(path).entries
    assert isinstance(bad, loader.VectorError), bad
    assert bad.message.startswith(f"{loader.display_path(path)}: case 'impossible': {message}")


def test_state_capacity_limits_and_huge_expectations_are_vector_errors(tmp_path):
    cases = """
  - name: register-file
    source: hand
    reference: r
    state: {tile_capacity: 0x10000000000, tiles: []}
    program: [1]
    expect: {}
  - name: overcommitted
    source: hand
    reference: r
    state:
      tile_capacity: 1024
      tiles:
        - {index: 0, dtype: U8, capacity: 256, cols: 8, valid: [1, 1]}
        - {index: 1, dtype: U8, capacity: 128, cols: 8, valid: [1, 1]}
    program: [1]
    expect: {}
  - name: far-storage
    source: hand
    reference: r
    program: [1]
    expect: {tiles: [{index: 0, storage: {1000000000000: 1}}]}
  - name: many-values
    source: hand
    reference: r
    program: [1]
    expect: {tiles: [{index: 0, data: [%s]}]}
""" % ", ".join(["[0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]"] * 8193)
    entries = loader.load_file(project_file(tmp_path, cases)).entries
    problems = [e.message.split(": case ")[1] for e in entries[1:]]
    assert problems == [
        "'register-file': state.tile_capacity: 0x10000000000 is more than the largest tile capacity 262144",
        "'overcommitted': state.tiles[1].capacity: the tiles up to this one allocate 1536 bytes, "
        "more than the tile_capacity 1024",
        "'far-storage': expect.tiles[0].storage.1000000000000: storage index beyond the largest tile (131072 elements)",
        "'many-values': expect.tiles[0].data: 131088 values, more than the largest tile holds (131072)"]


# ---------------------------------------------------------------------------
# hostile YAML: bounded, and each problem the file's own error


def test_yaml_reader_keeps_yaml_1_1_meaning():
    text = ("a: 0x1F\nb: 017\nc: 1_000\nd: 0b11\ne: 0o7\nf: yes\ng: ~\nh: '12'\ni: 1.5\nj: 2001-12-14\n"
            "5: five\nbase: &b {x: 1, y: 2}\nm: {<<: *b, y: 3}\n")
    value, json_only = yaml_reader.read(text)
    assert value["a"] == 31 and value["b"] == 15 and value["c"] == 1000 and value["d"] == 3
    assert value["e"] == "0o7" and value["f"] is True and value["g"] is None and value["h"] == "12"
    assert value["i"] == 1.5 and str(value["j"]) == "2001-12-14" and value["5"] == "five"
    assert value["m"] == {"x": 1, "y": 3}  # merge key: the mapping's own key wins
    assert not json_only  # a float and a date are not what the compiled validator may judge


HOSTILE_YAML = [
    ("cases: &r [*r]\n", "line 1, column 8: an alias refers to a collection that contains it (recursive alias)"),
    ("? [a, b]\n: 1\n", "line 1, column 3: a mapping key must be a scalar, not a sequence or mapping"),
    ("a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n" for i in range(8)),
     "more than 500000 values (counting every alias and merge)"),
    ("a: &a [1]\nb: [" + ", ".join(["*a"] * 300) + "]\n", "more than 256 aliases"),
    ("a: " + "[" * 40 + "]" * 40 + "\n", "collections nested deeper than 32 levels"),
    ("a: !!python/object/apply:os.system [echo]\n", "tag 'tag:yaml.org,2002:python/object/apply:os.system' is not allowed"),
    ("a: !!set {x, y}\n", "tag 'tag:yaml.org,2002:set' is not allowed in a vector file"),
    ("a: !custom 1\n", "tag '!custom' is not allowed in a vector file"),
    ("a: !!binary 'not base64!'\n", "line 1, column 4: failed to decode base64 data"),
    ("a: 1\n---\nb: 2\n", "line 2, column 1: but found another document"),
    ("a: 1\n  b: 2\n", "line 2, column 4: mapping values are not allowed in this context"),
]


@pytest.mark.parametrize("text, problem", HOSTILE_YAML, ids=[p.split(":")[-1].strip()[:30] for _, p in HOSTILE_YAML])
def test_hostile_yaml_is_one_file_error_naming_the_problem(tmp_path, text, problem):
    path = tmp_path / "PTO-AVS-X-HOSTILE-001.yaml"
    path.write_text(text)
    loaded = loader.load_file(path)
    assert loaded.entries == [] and loaded.error.is_file_error
    assert loaded.error.message.startswith(f"{loader.display_path(path)}: ")
    assert problem in loaded.error.message


def test_file_size_encoding_and_separator_limits(tmp_path, monkeypatch):
    path = tmp_path / "PTO-AVS-X-HOSTILE-002.yaml"
    path.write_bytes(b"a: \xff\xfe\n")
    assert loader.load_file(path).error.message.endswith("cannot read: not UTF-8 text (byte 0xff at offset 3)")
    path.write_text("a: [" + ",".join(["0"] * 600_000) + "]\n")
    assert "YAML separators: more than 1000000, the limit for a vector file" in loader.load_file(path).error.message
    monkeypatch.setattr(loader, "MAX_FILE_BYTES", 1000)
    path.write_text("a: " + "x" * 2000 + "\n")
    assert loader.load_file(path).error.message.endswith(
        "2004 bytes: larger than 1000 bytes, the limit for a vector file")


def test_case_count_and_broken_case_limits(tmp_path, monkeypatch):
    bad = """
  - {name: bad-a, source: hand, reference: r, program: [1], expect: {flags: x}}
  - {name: bad-b, source: hand, reference: r, program: [1], expect: {flags: y}}
  - {name: bad-c, source: hand, reference: r, program: [1], expect: {flags: z}}
"""
    path = project_file(tmp_path, bad)
    monkeypatch.setattr(loader, "MAX_CASES", 3)
    assert loader.load_file(path, cache=None).error.message.endswith(
        "cases: 4 cases, more than 3, the limit for a vector file")
    monkeypatch.setattr(loader, "MAX_CASES", 10)
    monkeypatch.setattr(loader, "MAX_BAD_CASES", 2)
    assert loader.load_file(path, cache=None).error.message.endswith(
        "cases: more than 2 cases break the schema; the first, cases[1]: "
        "expect.flags: expected 5 flag bits NV DZ OF UF NX (0 .. 0x1F), got \"x\"")
    monkeypatch.setattr(loader, "MAX_BAD_CASES", 3)
    assert [type(e).__name__ for e in loader.load_file(path, cache=None).entries] == ["Case"] + ["VectorError"] * 3


def test_anything_unforeseen_is_the_files_error_not_an_exception(tmp_path, monkeypatch):
    path = project_file(tmp_path, "")
    monkeypatch.setattr(loader, "_check_case", lambda raw_case: 1 / 0)
    loaded = loader.load_file(path, cache=None)
    assert loaded.error.message == f"{loader.display_path(path)}: cannot be loaded: ZeroDivisionError: division by zero"


def test_the_compiled_validator_never_accepts_what_jsonschema_rejects(tmp_path):
    """jsonschema-rs only answers "valid" fast; every file it accepts, jsonschema accepts too
    (the shipped vectors), and every case above that breaks the schema it rejects."""
    check = loader.schema_validator()
    for path in sorted(loader.VECTORS_DIR.glob("*.yaml"))[:40]:
        raw, json_only = yaml_reader.read(path.read_text())
        assert check.is_valid(raw, json_only) and not list(check.iter_errors(raw)), path.name
    for text, _ in BAD_CASES:
        raw, json_only = yaml_reader.read(project_file(tmp_path, text).read_text())
        if list(check.iter_errors(raw)):
            assert not check.is_valid(raw, json_only)


# ---------------------------------------------------------------------------
# the cache


def test_cache_serves_the_same_result_and_misses_on_any_changed_input(tmp_path, monkeypatch):
    cache = vector_cache.VectorCache(tmp_path / "cache")
    path = project_file(tmp_path, BAD_CASES[0][0])
    first = loader.load_file(path, cache=cache)
    again = loader.load_file(path, cache=cache)
    assert (cache.misses, cache.hits) == (1, 1)
    assert [dataclasses.asdict(c) for c in again.cases] == [dataclasses.asdict(c) for c in first.cases]
    assert [e.message for e in again.entries if isinstance(e, loader.VectorError)] == \
        [e.message for e in first.entries if isinstance(e, loader.VectorError)]
    # One byte of the file.
    path.write_text(path.read_text().replace("reference: 7 * 3 = 21", "reference: 7 * 3 = 22"))
    assert loader.load_file(path, cache=cache).cases[0].reference == "7 * 3 = 22"
    assert cache.misses == 2
    # The schema: one byte more (a description) is another schema.
    schema = tmp_path / "schema.json"
    schema.write_text(loader.SCHEMA_PATH.read_text().replace('"title": "', '"title": "x', 1))
    changed = _checked(schema)
    monkeypatch.setattr(loader, "schema_validator", lambda *args: changed)
    loader.load_file(path, cache=cache)
    assert cache.misses == 3
    monkeypatch.undo()
    # The catalog: one test's summary changed.
    data = json.loads(json.dumps(loader.spec_data.load("tile-avs-catalog")))
    data["tests"][0]["summary"] += "."
    loader.load_file(path, loader.Catalog(data), cache=cache)
    assert cache.misses == 4
    # The loader's code (its import closure).
    monkeypatch.setattr(loader, "code_digest", lambda: "another loader")
    loader.load_file(path, cache=cache)
    assert cache.misses == 5
    monkeypatch.undo()
    # Back to the first inputs: a hit.
    loader.load_file(path, cache=cache)
    assert cache.misses == 5 and cache.hits == 2


def _checked(schema_path):
    loader.schema_validator.cache_clear()
    try:
        return loader.schema_validator(schema_path)
    finally:
        loader.schema_validator.cache_clear()


def test_a_damaged_or_unwritable_cache_is_only_a_miss(tmp_path):
    cache = vector_cache.VectorCache(tmp_path / "cache")
    path = project_file(tmp_path, "")
    loader.load_file(path, cache=cache)
    [entry] = (tmp_path / "cache").glob("*.marshal")
    entry.write_bytes(entry.read_bytes()[:100])  # cut short
    assert loader.load_file(path, cache=cache).cases[0].name == "seven-times-three"
    assert (cache.hits, cache.misses) == (0, 2)
    blocked = tmp_path / "file-not-folder"
    blocked.write_text("")
    unwritable = vector_cache.VectorCache(blocked / "cache")  # cannot be created
    assert loader.load_file(path, cache=unwritable).cases[0].name == "seven-times-three"
    assert not unwritable.usable


@pytest.mark.slow  # several loader processes at once
def test_concurrent_processes_share_the_cache_safely(tmp_path):
    """As pytest-xdist workers do: several processes load the same files into one cache at once;
    each gets the whole result, and the cache ends with one entry per file and no leftovers."""
    for i in range(3):
        project_file(tmp_path, "", vector_id=f"PTO-AVS-X-RUNNER-LOADER-00{i + 1}")
    probe = ("import sys; from pathlib import Path; from pto_avs.contract import loader, vector_cache; "
             "cache = vector_cache.VectorCache(Path(sys.argv[1]) / 'cache'); "
             "files = loader.load_paths([Path(sys.argv[1])], cache=cache); "
             "print(sum(len(f.cases) for f in files), all(f.error is None for f in files))")
    workers = [subprocess.Popen([sys.executable, "-c", probe, str(tmp_path)], stdout=subprocess.PIPE, text=True)
               for _ in range(4)]
    assert [worker.communicate(timeout=120)[0].split() for worker in workers] == [["3", "True"]] * 4
    assert sorted(p.suffix for p in (tmp_path / "cache").iterdir()) == [".marshal"] * 3


def test_the_code_digest_covers_every_project_module_the_loader_imports():
    """A fresh interpreter imports the loader; every pto_avs module it then holds (and its file)
    is in the import closure whose sources key the cache."""
    probe = ("import sys, json, pto_avs.contract.loader; "
             "print(json.dumps(sorted(m for m in sys.modules if m.startswith('pto_avs.'))))")
    loaded = json.loads(subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                                       check=True).stdout)
    closure = vector_cache.import_closure("pto_avs.contract.loader")
    assert set(loaded) <= set(closure), set(loaded) - set(closure)
    assert all(path.is_file() for path in closure.values())


def test_peek_reads_names_without_validating(tmp_path):
    path = project_file(tmp_path, BAD_CASES[0][0])
    peek = loader.peek_file(path, cache=None)
    assert peek == loader.Peek("TMULS", "execution", ("ADR-0081",), ("seven-times-three", "rows"))
    broken = tmp_path / "PTO-AVS-X-RUNNER-009.yaml"
    broken.write_text("id: [unclosed\n")
    assert loader.peek_file(broken, cache=None) is None
