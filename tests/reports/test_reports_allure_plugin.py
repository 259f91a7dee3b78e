"""Allure results of a real pto-avs run: labels, links, parameters, attachments, run files.

The run (tests/reports/reports_support.py) takes the fixture vectors through the runner plugin
on two replayed devices; the expected outcomes are fixed by its hand-written recording,
the expected ADRs, titles, requirements and spec test files by the catalog JSON.
"""
import json
import re

import pytest

import reports_support as rs
from pto_avs.reports import allure_files, coverage

pytestmark = pytest.mark.slow  # each test runs pytest over vectors (pytester), some under xdist

SPEC_BLOB = "https://github.com/PTO-ISA/pto-spec/blob/e599a3d36ebfad43362ff591ea5e128816c684c7/"
ADRS = {rs.WIDTH: tuple(rs.UNITS["TMULS"]["readiness_subjects"]), rs.PROJECT: rs.PROJECT_ADRS}
OPERATION = {rs.WIDTH: "TMULS", rs.PROJECT: "TCVT"}
ADR_SET = {rs.WIDTH: "ADRs 0035, 0052, 0057, 0059, 0081", rs.PROJECT: "ADRs 0035, 0047"}
ADR_PATHS = {a["id"]: a["path"] for a in rs.CATALOG["adrs"]}


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("avs-run")
    done, results = rs.run_avs(tmp)
    # 2 failed, 3 passed, 1 skipped: the recording's outcomes (reports_support.OUTCOMES).
    assert "2 failed, 3 passed, 1 skipped" in done.stdout, done.stdout + done.stderr
    labels = rs.device_labels(tmp / "recording.json")
    device_of = {label: name for name, label in labels.items()}
    by_key = {}
    for result in rs.read_results(results):
        lab = rs.labels_of(result)
        key = (lab["specTest"][0], lab["case"][0], device_of[lab["device"][0]])
        assert key not in by_key
        by_key[key] = result
    return tmp, results, labels, by_key


def test_one_result_per_case_and_device_with_its_verdict(run):
    _, _, _, by_key = run
    assert set(by_key) == set(rs.OUTCOMES)
    for key, outcome in rs.OUTCOMES.items():
        result = by_key[key]
        assert rs.labels_of(result)["verdict"] == [outcome]
        if outcome == "pass":
            assert result["status"] == "passed"
        elif outcome == "not supported":
            assert result["status"] == "skipped"
            assert "not supported" in result["statusDetails"]["message"]
        else:
            assert result["status"] in ("failed", "broken")


def test_labels_trace_spec_test_operation_and_every_adr(run):
    _, _, labels, by_key = run
    for (vector, case, device), result in by_key.items():
        lab = rs.labels_of(result)
        assert lab["specTest"] == [vector] and lab["case"] == [case]
        assert lab["operation"] == [OPERATION[vector]] and lab["kind"] == ["execution"]
        assert lab["profile"] == ["pto-v0"] and lab["device"] == [labels[device]]
        assert sorted(lab["adr"]) == sorted(ADRS[vector])
        # ADR view: operation > ADR set > spec test ID, one group per case run (no epic per ADR).
        assert lab["adrs"] == [ADR_SET[vector]] and "epic" not in lab
        assert lab["feature"] == [OPERATION[vector]] and lab["story"] == [vector]
        # Suites view: device (profile) > operation > spec test ID.
        assert lab["parentSuite"] == [f"{labels[device]} (pto-v0)"]
        assert lab["suite"] == [OPERATION[vector]] and lab["subSuite"] == [vector]
        assert result["name"] == f"{case} on {labels[device]}"
    width = rs.labels_of(by_key[(rs.WIDTH, "two-lanes", rs.GOOD)])
    assert sorted(width["requirement"]) == sorted(rs.TESTS[rs.WIDTH]["requirements"])


def test_links_to_spec_test_file_and_on_failures_to_adr_documents_at_the_pinned_commit(run):
    _, _, _, by_key = run
    spec_link = {f"spec test {rs.WIDTH}": SPEC_BLOB + (
        "tests/asl/tile/tile-scalar-and-immediate/arithmetic/TMULS/tile-exec-tmuls-width-001.asl")}
    adr_links = {f"{a} {rs.ADR_TITLES[a]}": SPEC_BLOB + ADR_PATHS[a] for a in ADRS[rs.WIDTH]}

    def links(key):
        return {link["name"]: link["url"] for link in by_key[key].get("links", [])}

    # Passing and not supported: the spec test file only; failing: each ADR document too.
    assert links((rs.WIDTH, "one-lane", rs.GOOD)) == spec_link
    assert links((rs.WIDTH, "one-lane", rs.BAD)) == spec_link
    assert links((rs.WIDTH, "two-lanes", rs.BAD)) == {**spec_link, **adr_links}
    # A project vector has no spec test file: failing, only its ADRs are linked.
    assert links((rs.PROJECT, "nx-flag", rs.GOOD)) == {}
    assert links((rs.PROJECT, "nx-flag", rs.BAD)) == {
        "ADR-0035 VEC/SFU carrier totality and profile boundary":
            SPEC_BLOB + "docs/status/decisions/0035-vec-sfu-carrier-totality.md",
        "ADR-0047 Numeric rounding semantics":
            SPEC_BLOB + "docs/status/decisions/0047-numeric-rounding-semantics.md"}


def test_parameters_describe_device_profile_state_and_program(run):
    _, _, labels, by_key = run
    params = {p["name"]: p["value"].strip("'")
              for p in by_key[(rs.WIDTH, "two-lanes", rs.BAD)]["parameters"]}
    # Values from the fixture case: tile 1 FP32 1x2, GPR 5, five instructions.
    assert params == {
        "device": labels[rs.BAD], "profile": "pto-v0",
        "state": "T[1] FP32 RowMajor 1x2; R5=0x3F800000",
        "program": "5 items: BSTART.VEC TMULS, FP32; B.DIM LB0=2; B.IOR R5; "
                   "B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP"}


def _attachments(results, result):
    return {a["name"]: (results / a["source"]).read_text() for a in result.get("attachments", [])}


def test_failures_carry_the_bit_level_diff_and_mismatching_aspects(run):
    _, results, _, by_key = run
    payload = by_key[(rs.WIDTH, "two-lanes", rs.BAD)]
    files = _attachments(results, payload)
    # The bad device answered 0x40000001 where the vector expects 0x40000000 at (0,1).
    assert "payload: 1 of 2 differ" in files["bit-level diff"]
    assert "(0,1) 0x00000001" in files["bit-level diff"]  # the XOR of the two words
    assert "payload: fail" in files["aspect verdicts"]
    assert rs.labels_of(payload)["mismatch"] == ["payload"]

    flags = by_key[(rs.PROJECT, "nx-flag", rs.BAD)]
    files = _attachments(results, flags)
    assert "flags: 1 of 1 differ" in files["bit-level diff"]  # NX expected, none observed
    assert rs.labels_of(flags)["mismatch"] == ["flags"]

    for key, outcome in rs.OUTCOMES.items():
        names = set(_attachments(results, by_key[key]))
        assert ("bit-level diff" in names) == (outcome == "fail")
        assert "mismatch" not in rs.labels_of(by_key[key]) or outcome == "fail"


def test_aspects_a_device_cannot_observe_are_labelled_on_its_passing_results(run):
    """The good device of the fixture declares no flags aspect: its cases pass on the
    rest and say so; the bad device observes flags and carries no such label."""
    _, results, _, by_key = run
    for key, outcome in rs.OUTCOMES.items():
        labels = rs.labels_of(by_key[key])
        if key[2] == rs.GOOD:
            assert outcome == "pass" and labels["not observable"] == ["flags"], key
            assert "flags: not observable" in _attachments(results, by_key[key])["aspect verdicts"]
        else:
            assert "not observable" not in labels, key


def _category(result):
    """The first category matching as Allure 2 does it (whole message, listed statuses)."""
    message = (result.get("statusDetails") or {}).get("message", "")
    for cat in allure_files.CATEGORIES:
        if result["status"] in cat["matchedStatuses"] and re.fullmatch(cat["messageRegex"], message):
            return cat["name"]
    return None


def test_environment_and_categories_files(run):
    tmp, results, labels, by_key = run
    env = allure_files.parse_properties((results / "environment.properties").read_text())
    assert env["device"] == ", ".join(sorted(labels.values()))
    assert env["profile"] == "pto-v0"
    assert (env["spec.release"], env["spec.commit"]) == ("0.58.3", "e599a3d36ebfad43362ff591ea5e128816c684c7")
    assert env["vectors"] == str((tmp / "vectors").resolve())
    assert json.loads((results / "categories.json").read_text()) == allure_files.CATEGORIES
    assert _category(by_key[(rs.WIDTH, "two-lanes", rs.BAD)]) == "Payload mismatch"
    assert _category(by_key[(rs.PROJECT, "nx-flag", rs.BAD)]) == "Flag mismatch"
    assert _category(by_key[(rs.WIDTH, "one-lane", rs.BAD)]) == "Not supported"
    assert _category(by_key[(rs.WIDTH, "one-lane", rs.GOOD)]) is None


def test_coverage_of_the_run(run, tmp_path):
    _, results, labels, _ = run
    assert coverage.main([str(results), "--out", str(tmp_path)]) == 0
    report = json.loads((tmp_path / "adr-coverage.json").read_text())
    rows = {row["id"]: row for row in report["adrs"]}
    good, bad = f"{labels[rs.GOOD]} (pto-v0)", f"{labels[rs.BAD]} (pto-v0)"
    adr81 = rows["ADR-0081"]  # TMULS only: the two cases of the WIDTH vector
    assert (adr81["vector_files"], adr81["cases"]) == (1, 2)
    assert adr81["outcomes"][good]["pass"] == 2
    assert (adr81["outcomes"][bad]["fail"], adr81["outcomes"][bad]["not supported"]) == (1, 1)
    adr35 = rows["ADR-0035"]  # both vectors
    assert (adr35["vector_files"], adr35["cases"]) == (2, 3)
    assert adr35["outcomes"][good]["pass"] == 3
    assert rows["ADR-0047"]["vectors"] == [rs.PROJECT]
    missing = {t["id"] for t in report["spec_tests_without_vector"]}
    assert rs.WIDTH not in missing and "PTO-AVS-TILE-TMULS-TYPES-001" in missing


def test_under_xdist_the_controller_writes_the_run_files(tmp_path):
    done, results = rs.run_avs(tmp_path, "-n", "2")
    assert "2 failed, 3 passed, 1 skipped" in done.stdout, done.stdout + done.stderr
    env = allure_files.parse_properties((results / "environment.properties").read_text())
    assert env["device"] == ", ".join(sorted(rs.device_labels(tmp_path / "recording.json").values()))
    assert len(rs.read_results(results)) == len(rs.OUTCOMES)


def test_without_alluredir_nothing_is_written(tmp_path):
    done, results = rs.run_avs(tmp_path, "--alluredir=")  # the last --alluredir wins: none
    assert "2 failed, 3 passed, 1 skipped" in done.stdout, done.stdout + done.stderr
    assert not results.exists()
    assert not list(tmp_path.glob("**/environment.properties"))
