"""End-to-end tests of the pto_avs pytest plugin (pytester): collection, options,
outcomes, failure messages, xdist, record and replay.

The device is the real replay adapter reading hand-written observation files.
The fixture vectors (tests/runner/runner_vectors/) carry spec test values; the observations
below are written by hand from the same spec tests (or deliberately wrong, to see
the failure), never produced by the code under test.
"""
from __future__ import annotations

import json
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

# Loaded here, before pytester's in-process runs: those unload every module they import,
# and numpy cannot be imported twice in one process.
import pto_avs.contract.compare  # noqa: F401
import pto_avs.contract.loader  # noqa: F401
import pto_avs.plugins.replay  # noqa: F401

pytest_plugins = ["pytester"]
pytestmark = pytest.mark.slow  # each test runs pytest over the fixture vectors (pytester), some under xdist

FIXTURES = Path(__file__).resolve().parent / "runner_vectors"
TMULS = "PTO-AVS-TILE-TMULS-WIDTH-001::u8-times-3-wraps"
E8M0 = "PTO-AVS-TILE-TCVT-E8M0-FINITE-002::bf16-powers-and-1.5"
ALIAS = "PTO-AVS-TILE-TCVT-ALIAS-001::u8-in-place-zero-pad"
PROJECT = "PTO-AVS-X-RUNNER-TMULS-001::u8-seven-times-three"
ALL_ASPECTS = ["fault", "flags", "descriptor", "payload", "carrier", "padding_defined", "padding_value",
               "sources", "storage", "encoding"]


def tile(dtype, capacity, valid, values, *, defined="valid", rows=16, cols=8):
    """An observed tile: ``values`` {(r, c): bits}, everything else 0; ``defined`` 'valid' or 'all'."""
    words = [[values.get((r, c), 0) for c in range(cols)] for r in range(rows)]
    vr, vc = valid
    flags = [[defined == "all" or (r < vr and c < vc) for c in range(cols)] for r in range(rows)]
    return {"dtype": dtype, "layout": "RowMajor", "location": "Any", "rows": rows, "cols": cols,
            "valid": list(valid), "capacity": capacity, "mask": "1111", "words": words, "defined": flags}


def correct_observations():
    """What the spec tests say each fixture case leaves behind (see the fixture provenance)."""
    return {
        TMULS: {"fault": None, "flags": 0, "tiles": {
            "0": tile("U8", 128, (1, 2), {(0, 0): 7, (0, 1): 86}),
            "1": tile("U8", 128, (1, 2), {(0, 0): 21, (0, 1): 2})}},
        E8M0: {"fault": None, "flags": 0x10, "tiles": {
            "0": tile("BF16", 256, (1, 4), {(0, 0): 0x3F80, (0, 1): 0x4000, (0, 2): 0x3F00, (0, 3): 0x3FC0}),
            "1": tile("E8M0", 128, (1, 4), {(0, 0): 127, (0, 1): 128, (0, 2): 126, (0, 3): 128})}},
        ALIAS: {"fault": None, "flags": 0, "tiles": {
            "0": tile("U8", 128, (1, 2), {(0, 0): 7, (0, 1): 9}, defined="all")}},
        PROJECT: {"fault": None, "flags": 0, "tiles": {
            "0": tile("U8", 128, (1, 1), {(0, 0): 7}),
            "1": tile("U8", 128, (1, 1), {(0, 0): 21})}},
    }


def recording(devices):
    """A hand-written observation file: {label: (profile, aspects, {case id: observation})}."""
    return {"format": "pto-avs-recording/1", "devices": {
        label: {"capabilities": {"profile": profile, "operations": ["TCVT", "TQUANT", "TMULS", "TGEMV_MX_ACC"],
                                 "dtypes": None, "aspects": aspects, "direct_calls": True},
                "cases": {cid: {"observation": obs} for cid, obs in cases.items()}}
        for label, (profile, aspects, cases) in devices.items()}}


class Avs:
    """A pytester directory with the conformance module; runs the suite on chosen vectors."""

    def __init__(self, pytester):
        self.pytester = pytester
        self.path = pytester.path
        pytester.makepyfile(test_avs="from pto_avs.avs.test_conformance import test_conformance  # replaced by the plugin\n")

    def write_recording(self, name, devices):
        path = self.path / name
        path.write_text(json.dumps(recording(devices)))
        return path

    def run(self, *args, vectors=(FIXTURES,), subprocess=False):
        # --vectors=PATH: a separate PATH argument would count towards pytest's rootdir.
        base = ["-p", "no:cacheprovider", "--vectors-only"] + [f"--vectors={v}" for v in vectors]
        runner = self.pytester.runpytest_subprocess if subprocess else self.pytester.runpytest
        return runner(*base, *args)


@pytest.fixture
def avs(pytester):
    return Avs(pytester)


def lab(avs, observations=None, aspects=ALL_ASPECTS, profile="pto-v0"):
    path = avs.write_recording("lab.json", {"lab": (profile, aspects, observations or correct_observations())})
    return f"replay:{path}"


def outcomes_by_test(junit: Path) -> dict:
    """{test name: passed | failed | skipped} from a JUnit XML report."""
    result = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        status = "passed"
        for child in case:
            if child.tag in ("failure", "error", "skipped"):
                status = {"failure": "failed", "error": "failed", "skipped": "skipped"}[child.tag]
        result[f"{case.get('classname')}::{case.get('name')}"] = status
    return result


# ---------------------------------------------------------------------------
# collection


def test_one_test_per_case_named_by_spec_id_and_case(avs):
    result = avs.run("--device", lab(avs), "--collect-only", "-q")
    ids = [line for line in result.outlines if line.startswith("test_avs.py::")]
    # pto-v0 device: every fixture case holds under pto-v0; files in name order, cases in file order.
    assert ids == [f"test_avs.py::{ALIAS}", f"test_avs.py::{E8M0}", f"test_avs.py::{TMULS}",
                   f"test_avs.py::{PROJECT}"]


def test_device_suffix_and_profile_filter_with_two_devices(avs):
    path = avs.write_recording("two.json", {"v0": ("pto-v0", ALL_ASPECTS, correct_observations()),
                                            "hw": ("hw-ieee", ALL_ASPECTS, correct_observations())})
    result = avs.run("--device", f"replay:{path}@v0", "--device", f"replay:{path}@hw", "--collect-only", "-q")
    ids = {line for line in result.outlines if line.startswith("test_avs.py::")}
    v0, hw = f"[replay:{path}@v0]", f"[replay:{path}@hw]"
    # ALIAS and TMULS hold only under pto-v0 (their profiles), E8M0 and PROJECT under both.
    assert ids == {f"test_avs.py::{ALIAS}{v0}", f"test_avs.py::{E8M0}{v0}", f"test_avs.py::{E8M0}{hw}",
                   f"test_avs.py::{TMULS}{v0}", f"test_avs.py::{PROJECT}{v0}", f"test_avs.py::{PROJECT}{hw}"}
    only_hw = avs.run("--device", f"replay:{path}@v0", "--device", f"replay:{path}@hw", "--profile", "hw-ieee",
                      "--collect-only", "-q")
    # One device left: no suffix.
    assert {line for line in only_hw.outlines if line.startswith("test_avs.py::")} == {
        f"test_avs.py::{E8M0}", f"test_avs.py::{PROJECT}"}


def test_markers_select_by_operation_and_kind_under_strict_markers(avs):
    device = lab(avs)
    tmuls = avs.run("--device", device, "--strict-markers", "-m", "tmuls", "--collect-only", "-q")
    assert {line for line in tmuls.outlines if line.startswith("test_avs.py::")} == {
        f"test_avs.py::{TMULS}", f"test_avs.py::{PROJECT}"}
    kinds = avs.run("--device", device, "--strict-markers", "-m", "execution and not tcvt", "--collect-only", "-q")
    assert kinds.ret == 0
    assert len([line for line in kinds.outlines if line.startswith("test_avs.py::")]) == 2
    by_name = avs.run("--device", device, "-k", "e8m0", "--collect-only", "-q")
    assert [line for line in by_name.outlines if line.startswith("test_avs.py::")] == [f"test_avs.py::{E8M0}"]
    # Every catalog operation is a declared marker: a shipped TAND file under --strict-markers.
    tand = Path(__file__).resolve().parents[2] / "vectors" / "PTO-AVS-TILE-TAND-BITS-001.yaml"
    selected = avs.run("--device", "golden:pto-v0", "--vectors", str(tand), "--strict-markers", "-m",
                       "tand and execution", "--collect-only", "-q")
    assert selected.ret == 0
    assert len([line for line in selected.outlines if line.startswith("test_avs.py::")]) >= 2


def test_adr_selects_cases_tracing_to_it(avs):
    # ADR-0081 is a readiness subject of TMULS in the catalog and is exercised by the project vector;
    # it is not one of TCVT's: the two TCVT spec files are not even read.
    result = avs.run("--device", lab(avs), "--adr", "ADR-0081", "-q")
    result.assert_outcomes(passed=2)
    result.stdout.fnmatch_lines(["pto-avs: 2 vector file(s) not read: -k/-m/--adr selects none of their cases"])


def test_unknown_adr_and_vectors_only_without_vectors_are_usage_errors(avs):
    bad_adr = avs.run("--device", lab(avs), "--adr", "ADR-9999")
    assert bad_adr.ret == pytest.ExitCode.USAGE_ERROR
    assert "--adr ADR-9999 is not an ADR of the catalog" in bad_adr.stderr.str()
    lonely = avs.pytester.runpytest("--vectors-only")
    assert lonely.ret == pytest.ExitCode.USAGE_ERROR
    assert "--vectors-only needs at least one --vectors PATH" in lonely.stderr.str()


LOAD_LOG = """
import pto_avs.contract.loader as loader

_real = loader.load_file


def _logged(path, *args, **kwargs):
    with open({log!r}, "a") as out:
        out.write(path.name + "\\n")
    return _real(path, *args, **kwargs)


def pytest_configure(config):
    loader.load_file = _logged


def pytest_unconfigure(config):
    loader.load_file = _real
"""


def read_files(avs) -> list[str]:
    """The vector files the last runs read (a conftest logs every load), then forgets them."""
    log = avs.path / "loads.log"
    names = log.read_text().split() if log.exists() else []
    log.unlink(missing_ok=True)
    return names


def log_loads(avs) -> None:
    avs.pytester.makeconftest(LOAD_LOG.format(log=str(avs.path / "loads.log")))


def test_unknown_device_adr_or_vector_path_is_a_usage_error_before_any_vector_is_read(avs):
    log_loads(avs)
    result = avs.run("--device", "no-such-device")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--device no-such-device: unknown device 'no-such-device' (known: " in result.stderr.str()
    readme = avs.path / "README.md"
    readme.write_text("# Notes\n\nRun: pytest avs/\n")
    not_vectors = avs.run("--device", lab(avs), vectors=(readme,))
    assert not_vectors.ret == pytest.ExitCode.USAGE_ERROR
    assert (f"--vectors {readme}: not a vector file: expected a .yaml file holding one YAML mapping of format "
            f"(pto-avs-vector/1), id, operation, kind, provenance and cases" in not_vectors.stderr.str())
    missing = avs.run("--device", lab(avs), vectors=(avs.path / "nowhere",))
    assert missing.ret == pytest.ExitCode.USAGE_ERROR
    assert f"--vectors: vector path {avs.path / 'nowhere'} does not exist" in missing.stderr.str()
    bad_adr = avs.run("--device", lab(avs), "--adr", "ADR-9999")
    assert bad_adr.ret == pytest.ExitCode.USAGE_ERROR
    # A misspelt device name or argument: said with the options, with the closest spelling.
    misspelt = avs.run("--device", "goldn")
    assert misspelt.ret == pytest.ExitCode.USAGE_ERROR
    assert "--device goldn: unknown device 'goldn' (did you mean 'golden'?) (known: " in misspelt.stderr.str()
    bad_argument = avs.run("--device", "golden:hw-iee")
    assert bad_argument.ret == pytest.ExitCode.USAGE_ERROR
    assert ("--device golden:hw-iee: golden profile 'hw-iee' is not one of pto-v0, hw-ieee (did you mean 'hw-ieee'?)"
            in bad_argument.stderr.str())
    # A known device that cannot be opened, and no other: one collection error, before reading.
    unopened = avs.run("--device", f"replay:{avs.path / 'no-recording.json'}")
    assert unopened.ret == pytest.ExitCode.INTERRUPTED
    unopened.stdout.fnmatch_lines(["*pto-avs: --device replay:*no-recording.json: cannot open: *"])
    assert read_files(avs) == []


def test_one_file_or_a_k_match_reads_only_what_it_selects(avs):
    log_loads(avs)
    device = lab(avs)
    one = avs.run("--device", device, f"test_avs.py::{PROJECT.split('::')[0]}")
    one.assert_outcomes(passed=1)
    assert read_files(avs) == ["PTO-AVS-X-RUNNER-TMULS-001.yaml"]
    # -k looks at the file names, then at the case names and the operation and kind (the YAML
    # read without validation, or the cache); only files with a case it selects are loaded.
    by_name = avs.run("--device", device, "-k", "e8m0 or (seven and not tcvt)")
    by_name.assert_outcomes(passed=2)
    assert read_files(avs) == ["PTO-AVS-TILE-TCVT-E8M0-FINITE-002.yaml", "PTO-AVS-X-RUNNER-TMULS-001.yaml"]
    by_name.stdout.fnmatch_lines(["pto-avs: 2 vector file(s) not read: -k/-m/--adr selects none of their cases"])
    by_kind = avs.run("--device", device, "-k", "not execution")  # every fixture file is of kind execution
    by_kind.assert_outcomes()
    assert read_files(avs) == []


def test_a_mark_expression_that_deselects_the_conformance_module_reads_no_file(avs):
    # The fast tier (-m "not slow") leaves out avs/test_conformance.py, which is marked slow,
    # without reading a vector file; -m "slow" runs every case as an unmarked run does.
    log_loads(avs)
    device = lab(avs)
    everything = avs.run("--device", device)
    everything.assert_outcomes(passed=4)
    assert len(read_files(avs)) == 4
    avs.pytester.makepyfile(test_avs="import pytest\nfrom pto_avs.avs.test_conformance import test_conformance\n"
                                     "pytestmark = pytest.mark.slow\n")
    fast = avs.run("--device", device, "-m", "not slow")
    fast.assert_outcomes()
    assert read_files(avs) == []
    fast.stdout.fnmatch_lines(["pto-avs: 4 vector file(s) not read: -k/-m/--adr selects none of their cases"])
    slow = avs.run("--device", device, "-m", "slow")
    slow.assert_outcomes(passed=4)
    assert len(read_files(avs)) == 4
    tmuls = avs.run("--device", device, "-m", "slow and tmuls")  # the file's operation marker decides
    tmuls.assert_outcomes(passed=2)


# ---------------------------------------------------------------------------
# outcomes


def test_all_cases_pass_on_correct_observations(avs):
    result = avs.run("--device", lab(avs))
    result.assert_outcomes(passed=4)
    result.stdout.fnmatch_lines(["pto-avs: 4 pass"])


def test_wrong_value_fails_with_first_divergence_and_bit_diff(avs):
    observations = correct_observations()
    observations[TMULS]["tiles"]["1"]["words"][0][1] = 3  # spec value is 2 (86 * 3 = 258 wraps to 2)
    observations[E8M0]["flags"] = 0  # spec value is 0x10 (NX)
    result = avs.run("--device", lab(avs, observations))
    result.assert_outcomes(passed=2, failed=2)
    out = result.stdout.str()
    assert "payload: 1 of 2 differ; first divergence tile 1 (0,1): expected 0x02 (2), observed 0x03 (3)" in out
    assert "XOR expected^observed: (0,1) 0x01" in out
    # The grid marks the differing coordinate in row 0, column 1 of the 16x8 tile.
    result.stdout.fnmatch_lines(["*tile 1 rows 0..15 x cols 0..7 of 16x8 [[]U8[]]*", "*01234567", "*0 .X"])
    assert "flags: 1 of 1 differ; first divergence NumericStatus: expected 0x10 (NX), observed 0x00 (none)" in out
    result.stdout.fnmatch_lines(["pto-avs: 2 pass, 2 fail"])


def test_every_failing_aspect_is_reported(avs):
    observations = correct_observations()
    alias = observations[ALIAS]["tiles"]["0"]
    alias["words"][0][0] = 8  # payload: spec value 7
    alias["defined"][15][7] = False  # padding_defined: spec says (15,7) is defined
    alias["words"][0][2] = 0xFF  # padding_value: spec says (0,2) is 0
    alias["dtype"] = "U16"  # descriptor: spec keeps U8
    result = avs.run("--device", lab(avs, observations), "-k", "alias")
    result.assert_outcomes(failed=1)
    out = result.stdout.str()
    assert "descriptor: 1 of 4 differ; first divergence tile 0 dtype: expected U8, observed U16" in out
    assert "payload: 1 of 2 differ; first divergence tile 0 (0,0): expected 0x07 (7), observed 0x08 (8)" in out
    assert "padding_defined: 1 of 2 differ; first divergence tile 0 (15,7): expected defined, observed undefined" in out
    assert "padding_value: 1 of 1 differ; first divergence tile 0 (0,2): expected 0x00 (0), observed 0xFF (255)" in out


def test_not_supported_and_not_observable_are_skips_counted_apart(avs):
    observations = correct_observations()
    del observations[ALIAS]  # not in the recording: not supported, never a pass
    # This device sees payload and sources only. Unobserved in the passing cases: TMULS fault and
    # descriptor (its dtype), E8M0 fault, flags and descriptor, the project case fault.
    device = lab(avs, observations, aspects=["payload", "sources"])
    result = avs.run("--device", device, "-rs")
    result.assert_outcomes(passed=3, skipped=1)
    result.stdout.fnmatch_lines([
        "pto-avs: 3 pass, 1 not supported; 6 aspect(s) not observable in passing cases (descriptor 2, fault 3, flags 1)",
        f"SKIPPED [[]1[]] *PTO-AVS-TILE-TCVT-ALIAS-001.yaml: not supported: {ALIAS} is not in recording *"])
    blind = lab(avs, aspects=["storage"])  # sees nothing any fixture case expects
    result = avs.run("--device", blind, "-rs")
    result.assert_outcomes(skipped=4)
    result.stdout.fnmatch_lines(["pto-avs: 4 not observable",
                                 "SKIPPED [[]1[]] *TMULS-WIDTH-001.yaml: not observable: fault, descriptor, payload, sources on *"])


def test_device_error_is_a_failure_of_its_own(avs):
    observations = correct_observations()
    observations[TMULS] = {"error": "board timed out after 30 s"}
    observations[E8M0]["tiles"]["1"]["words"] = [[1, 2]]  # not the 16x8 grid the tile declares
    result = avs.run("--device", lab(avs, observations))
    result.assert_outcomes(passed=2, failed=2)
    result.stdout.fnmatch_lines([  # failures in run order: E8M0 before TMULS
        "device error: malformed observation: tile 1 words: expected a 16x8 grid, got shape (1, 2)",
        "device error: board timed out after 30 s",
        "pto-avs: 2 pass, 2 device error"])


def test_changed_vector_is_not_replayed_against_a_stale_recording(avs):
    # A recording made for another initial state (its digest) is not evidence for this case.
    data = recording({"lab": ("pto-v0", ALL_ASPECTS, correct_observations())})
    data["devices"]["lab"]["cases"][TMULS]["digest"] = "0" * 64
    path = avs.path / "stale.json"
    path.write_text(json.dumps(data))
    result = avs.run("--device", f"replay:{path}", "-rs", "-k", "tmuls and width")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["*not supported: recording * ran a different state or program for*"])


# ---------------------------------------------------------------------------
# malformed vectors


def test_malformed_file_and_case_each_give_one_error_and_the_rest_runs(avs):
    extra = avs.pytester.mkdir("more")
    # A YAML syntax error: the whole file is one failing item.
    (extra / "PTO-AVS-TILE-TQUANT-AFFINE-001.yaml").write_text("format: pto-avs-vector/1\nid: [unclosed\n")
    # One broken case beside a good one: the good one still runs.
    good = (FIXTURES / "PTO-AVS-X-RUNNER-TMULS-001.yaml").read_text()
    broken = good.replace("PTO-AVS-X-RUNNER-TMULS-001", "PTO-AVS-X-RUNNER-TMULS-002") + """
  - name: bad-valid
    source: hand
    reference: a malformed case
    program: [0x00000001]
    expect:
      tiles:
        - {index: 1, valid: [1, 2, 3]}
"""
    (extra / "PTO-AVS-X-RUNNER-TMULS-002.yaml").write_text(broken)
    observations = correct_observations()
    observations["PTO-AVS-X-RUNNER-TMULS-002::u8-seven-times-three"] = observations[PROJECT]
    result = avs.run("--device", lab(avs, observations), vectors=(FIXTURES, extra))
    result.assert_outcomes(passed=5, failed=2)
    out = result.stdout.str()
    assert re.search(r"vector error: \S*PTO-AVS-TILE-TQUANT-AFFINE-001\.yaml: line 3, column 1: ", out)
    assert ("PTO-AVS-X-RUNNER-TMULS-002.yaml: case 'bad-valid': expect.tiles[0].valid: "
            "expected 2 integers [valid_rows, valid_cols], got [1, 2, 3]") in out
    assert len([line for line in result.outlines if line.startswith("vector error: ")]) == 2
    result.stdout.fnmatch_lines(["pto-avs: 5 pass, 2 vector error"])
    ids = avs.run("--device", lab(avs, observations), "--collect-only", "-q", vectors=(FIXTURES, extra)).outlines
    assert "test_avs.py::PTO-AVS-TILE-TQUANT-AFFINE-001::PTO-AVS-TILE-TQUANT-AFFINE-001.yaml" in ids
    assert "test_avs.py::PTO-AVS-X-RUNNER-TMULS-002::bad-valid" in ids


def test_catalog_mismatch_names_the_field(avs):
    extra = avs.pytester.mkdir("more")
    text = (FIXTURES / "PTO-AVS-TILE-TMULS-WIDTH-001.yaml").read_text().replace("kind: execution", "kind: boundary")
    (extra / "PTO-AVS-TILE-TMULS-WIDTH-001.yaml").write_text(text)
    result = avs.run("--device", lab(avs), vectors=(extra,))
    result.assert_outcomes(failed=1)
    result.stdout.fnmatch_lines(["*PTO-AVS-TILE-TMULS-WIDTH-001.yaml: kind: does not match the catalog (expected \"execution\")"])


# ---------------------------------------------------------------------------
# xdist, record, replay


def test_xdist_gives_the_same_results(avs):
    observations = correct_observations()
    observations[TMULS]["tiles"]["1"]["words"][0][1] = 3
    del observations[ALIAS]
    device = lab(avs, observations)
    serial = avs.run("--device", device, f"--junitxml={avs.path / 'serial.xml'}", subprocess=True)
    parallel = avs.run("--device", device, "-n", "2", f"--junitxml={avs.path / 'parallel.xml'}", subprocess=True)
    serial.assert_outcomes(passed=2, failed=1, skipped=1)
    parallel.assert_outcomes(passed=2, failed=1, skipped=1)
    assert outcomes_by_test(avs.path / "serial.xml") == outcomes_by_test(avs.path / "parallel.xml")
    parallel.stdout.fnmatch_lines(["pto-avs: 2 pass, 1 fail, 1 not supported"])


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_record_then_replay_reproduces_outcomes(avs, workers):
    observations = correct_observations()
    observations[TMULS]["tiles"]["1"]["words"][0][1] = 3  # a failure to reproduce
    observations[E8M0] = {"error": "lost the board"}  # a device error to reproduce
    del observations[ALIAS]  # a not-supported case to reproduce
    out = avs.path / ("recorded.json.gz" if workers else "recorded.json")  # .gz: written compressed
    first = avs.run("--device", lab(avs, observations), "--record", str(out),
                    f"--junitxml={avs.path / 'first.xml'}", *workers, subprocess=bool(workers))
    first.assert_outcomes(passed=1, failed=2, skipped=1)
    saved = pto_avs.plugins.replay.Recording.read(out)
    assert list(saved.devices) == [f"replay:{avs.path / 'lab.json'}"]
    # Every case the device answered or refused is in the recording.
    assert sorted(saved.devices[f"replay:{avs.path / 'lab.json'}"]["cases"]) == sorted([ALIAS, E8M0, TMULS, PROJECT])
    again = avs.run("--device", f"replay:{out}", f"--junitxml={avs.path / 'again.xml'}")
    again.assert_outcomes(passed=1, failed=2, skipped=1)
    assert outcomes_by_test(avs.path / "first.xml") == outcomes_by_test(avs.path / "again.xml")
    again.stdout.fnmatch_lines(["pto-avs: 1 pass, 1 fail, 1 device error, 1 not supported"])


def test_replay_of_a_multi_device_recording_needs_a_label(avs):
    path = avs.write_recording("two.json", {"v0": ("pto-v0", ALL_ASPECTS, {}), "hw": ("hw-ieee", ALL_ASPECTS, {})})
    result = avs.run("--device", f"replay:{path}")
    result.stdout.fnmatch_lines([f"*recording {path} holds 2 devices; choose one: replay:{path}@hw, replay:{path}@v0*"])


def test_batches_reach_the_device_in_chunks(avs):
    # A device that records the size of every batch it is given (written to a file by the device).
    avs.pytester.makeconftest(f"""
import json, pytest
from pto_avs.plugins.replay import open_device as open_replay

class Counting:
    def __init__(self, inner, log):
        self.inner, self.log = inner, log
        self.capabilities = inner.capabilities
    def supports(self, case):
        return self.inner.supports(case)
    def execute_batch(self, cases):
        with open(self.log, "a") as out:
            out.write(json.dumps([c.id for c in cases]) + "\\n")
        return [self.inner.execute(c) for c in cases]
    def close(self):
        pass

class CountingEntryPoint:  # what a device package's entry point would give
    def load(self):
        return lambda arg: Counting(open_replay(arg), {str(avs.path / 'batches.log')!r})

def pytest_configure(config):
    import pto_avs.plugins.base as base
    real = base.available_devices
    base.available_devices = lambda: dict(real(), counting=CountingEntryPoint())
    config.add_cleanup(lambda: setattr(base, "available_devices", real))
""")
    device = lab(avs)
    result = avs.run("--device", "counting:" + device.partition(":")[2], "--batch-size", "3")
    result.assert_outcomes(passed=4)
    batches = [json.loads(line) for line in (avs.path / "batches.log").read_text().splitlines()]
    assert batches == [[ALIAS, E8M0, TMULS], [PROJECT]]


# ---------------------------------------------------------------------------
# a device that cannot start


@pytest.mark.parametrize("behaviour", ["crashes", "hangs"])
def test_a_device_that_cannot_start_fails_only_its_own_cases(avs, behaviour, monkeypatch):
    # A process device that dies (or stays silent) before its hello, beside a working device.
    program = {"crashes": "import sys; sys.stderr.write('no board on /dev/ttyUSB0\\n'); sys.exit(3)",
               "hangs": "import time; time.sleep(60)"}[behaviour]
    script = avs.path / "device.py"
    script.write_text(program)
    monkeypatch.setenv("PTO_AVS_PROCESS_START_TIMEOUT", "2")
    broken = f"process:{sys.executable} {script}"
    result = avs.run("--device", lab(avs), "--device", broken)
    # Its profile is unknown: it is given every case, and each is its device error; the lab's pass.
    result.assert_outcomes(passed=4, failed=4)
    result.stdout.fnmatch_lines(["pto-avs: 4 pass, 4 device error"])
    errors = [line for line in result.outlines if line.startswith("device error: ")]
    assert len(errors) == 4
    assert all(f"{broken} could not be opened: " in line for line in errors)
    if behaviour == "crashes":
        assert "no board on /dev/ttyUSB0" in result.stdout.str()


# ---------------------------------------------------------------------------
# the plugin in someone else's test run


OTHER_CONFTEST = """
def pytest_addoption(parser):
    parser.addoption("--device", default="cpu", help="the lab's own option")
    parser.addoption("--record", action="store_true")
"""

OTHER_TEST = """
import sys

def test_the_project_keeps_its_options_and_imports_nothing_of_ours(request):
    assert request.config.getoption("device") == "gpu"
    assert request.config.getoption("record") is True
    assert request.config.getoption("avs_device") == []  # ours is --avs-device here
    heavy = [m for m in sys.modules if m == "numpy" or m.startswith(("numpy.", "pto_avs.device_model",
             "pto_avs.contract.loader", "pto_avs.plugins", "jsonschema", "yaml"))]
    assert heavy == []
"""


def test_an_unrelated_project_keeps_its_own_options_and_pays_no_imports(pytester):
    pytester.makeconftest(OTHER_CONFTEST)
    pytester.makepyfile(test_lab=OTHER_TEST)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--device", "gpu", "--record", "-q")
    result.assert_outcomes(passed=1)
    assert "pto-avs" not in result.stdout.str()
    # The short spellings are ours where nobody else defines them.
    usage = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--vectors-only", "-q")
    assert usage.ret == pytest.ExitCode.USAGE_ERROR
    assert "--vectors-only needs at least one --vectors PATH" in usage.stderr.str()


# ---------------------------------------------------------------------------
# the closing tables (per operation, per ADR, first divergence between devices)


def two_labs(avs):
    """Two recorded devices: 'lab' answers every case as the spec says, 'board' gets TMULS wrong."""
    wrong = correct_observations()
    wrong[TMULS]["tiles"]["1"]["words"][0][1] = 3
    good = avs.write_recording("lab.json", {"lab": ("pto-v0", ALL_ASPECTS, correct_observations())})
    bad = avs.write_recording("board.json", {"board": ("pto-v0", ALL_ASPECTS, wrong)})
    return ["--device", f"replay:{good}", "--device", f"replay:{bad}"]


@pytest.mark.parametrize("workers", [(), ("-n", "2")], ids=["serial", "xdist"])
def test_the_run_ends_with_a_table_per_operation_and_the_first_divergence(avs, workers):
    result = avs.run(*two_labs(avs), *workers, subprocess=bool(workers))
    result.assert_outcomes(passed=7, failed=1)
    result.stdout.fnmatch_lines([
        "pto-avs: 7 pass, 1 fail",
        "",
        "operation  cases  runs  pass  fail  not supported  device error",
        "TCVT           2     4     4     0              0             0",
        "TMULS          2     4     3     1              0             0",
        "total          4     8     7     1              0             0",
        "",
        "TMULS: first divergence PTO-AVS-TILE-TMULS-WIDTH-001::u8-times-3-wraps: replay:*board.json fail, "
        "replay:*lab.json pass",
    ])


def test_the_closing_tables_are_per_adr_with_adr_and_absent_under_quiet(avs):
    by_adr = avs.run(*two_labs(avs), "--adr", "ADR-0081")
    by_adr.stdout.fnmatch_lines(["ADR *cases  runs  pass  fail  not supported  device error",
                                 "ADR-0081      2     4     3     1              0             0", ""])
    assert "ADR-0035" not in by_adr.stdout.str()  # (another ADR of the TMULS file, not asked for)
    quiet = avs.run(*two_labs(avs), "-q")
    quiet.stdout.fnmatch_lines(["pto-avs: 7 pass, 1 fail"])
    assert "operation  cases" not in quiet.stdout.str() and "first divergence PTO" not in quiet.stdout.str()


def test_a_node_id_that_does_not_exist_names_the_vector_file_or_case_not_found(avs):
    device = lab(avs)
    no_file = avs.run("--device", device, "test_avs.py::PTO-AVS-TILE-TMULS-WIDTH-002")
    assert no_file.ret == pytest.ExitCode.USAGE_ERROR
    assert ("pto-avs: no vector file with ID PTO-AVS-TILE-TMULS-WIDTH-002 (did you mean "
            "'PTO-AVS-TILE-TMULS-WIDTH-001'?)" in no_file.stderr.str())
    no_case = avs.run("--device", device, f"test_avs.py::{TMULS}s")
    assert no_case.ret == pytest.ExitCode.USAGE_ERROR
    no_case.stderr.fnmatch_lines(["*pto-avs: vector file *PTO-AVS-TILE-TMULS-WIDTH-001.yaml has no case "
                                  "'u8-times-3-wrapss' (did you mean 'u8-times-3-wraps'?) (its cases: u8-times-3-wraps)"])
    assert "no match in any of" not in no_file.stderr.str() + no_case.stderr.str()


def test_one_of_passes_are_counted_as_one_of_not_as_ulp_tolerance(avs):
    # A shipped scatter vector whose expectation lists the outcomes the spec allows (expect.one_of):
    # its passing cases are named as such in the summary, never as within a ULP tolerance.
    shipped = Path(__file__).resolve().parents[2] / "vectors" / "PTO-AVS-TILE-MSCATTER-BYTES-001.yaml"
    result = avs.run("--device", "golden:pto-v0", vectors=(shipped,))
    result.stdout.fnmatch_lines(["pto-avs: * pass; * passing case(s) matched one of the outcomes their one_of allows"])
    assert "ULP tolerance" not in result.stdout.str()


def test_the_collected_suite_is_frozen_while_it_runs_and_thawed_at_the_end(avs):
    """The suite's objects leave the garbage collector's generations for the run (gc.freeze,
    after collection) and return to them when the session ends (an in-process run); a run inside
    a session that froze its own objects freezes none of its own."""
    import gc

    counts = avs.path / "freeze-counts.txt"
    avs.pytester.makeconftest(f"""
import gc

def pytest_runtest_call(item):
    with open({str(counts)!r}, "a") as out:
        out.write(f"{{gc.get_freeze_count()}}\\n")
""")
    before = gc.get_freeze_count()
    result = avs.run("--device", lab(avs))
    result.assert_outcomes(passed=4)
    during = [int(line) for line in counts.read_text().split()]
    assert len(during) == 4
    if before == 0:
        assert min(during) > 0 and gc.get_freeze_count() == 0
    else:  # inside a session that froze its own objects this run freezes none of its own: the count
        # does not grow (it may fall: a frozen object that is freed leaves the count)
        assert max(during) <= before and gc.get_freeze_count() <= before
