"""ADR coverage report from hand-made Allure results, checked against the spec catalog.

Expected ADR sets and titles are read from the catalog JSON directly (or quoted from
it below), and expected counts from the results these tests write by hand.
"""
import json
import os
import uuid
from pathlib import Path

import pytest

from pto_avs.reports import atomic, coverage

CATALOG = json.loads((Path(__file__).resolve().parents[2] / "contract/spec_data/tile-avs-catalog.json")
                     .read_text())
UNITS = {u["mnemonic"]: u for u in CATALOG["units"]}
ADR_TITLES = {a["id"]: a["title"] for a in CATALOG["adrs"]}
FOUR = ("TCVT", "TQUANT", "TMULS", "TGEMV_MX_ACC")
ALL_TESTS = [t for u in CATALOG["units"] for t in u["tests"]]  # catalog order

# Quoted from tile-avs-catalog.json, unit PTO-TILE-TCVT, readiness_subjects.
TCVT_ADRS = ("ADR-0035", "ADR-0040", "ADR-0043", "ADR-0044", "ADR-0047", "ADR-0052", "ADR-0057",
             "ADR-0059", "ADR-0075", "ADR-0080", "ADR-0085")
# Quoted from the catalog: PTO-TILE-TQUANT readiness_subjects.
TQUANT_ADRS = ("ADR-0035", "ADR-0052", "ADR-0057", "ADR-0059", "ADR-0083")

BUNDLE = "PTO-AVS-TILE-TCVT-BUNDLE-001"
SAT = "PTO-AVS-TILE-TQUANT-SAT-001"
PROJECT = "PTO-AVS-X-TCVT-HW-FP32-FP16-001"


def write_result(folder: Path, spec_test, case, operation, device, profile, adrs, status,
                 verdict=None, message=None, history=None, stop=1):
    """One result as allure-pytest writes it, with the labels pto_avs.reports.allure_plugin adds."""
    labels = [("specTest", spec_test), ("case", case), ("operation", operation), ("kind", "execution"),
              ("device", device), ("profile", profile), ("epic", "ignored by the coverage report")]
    labels += [("adr", a) for a in adrs]
    if verdict:
        labels.append(("verdict", verdict))
    uid = str(uuid.uuid4())
    data = {"name": f"{spec_test}::{case}", "status": status, "uuid": uid,
            "historyId": history or uid, "start": 0, "stop": stop,
            "labels": [{"name": n, "value": v} for n, v in labels]}
    if message:
        data["statusDetails"] = {"message": message}
    (folder / f"{uid}-result.json").write_text(json.dumps(data))


@pytest.fixture
def results(tmp_path):
    res = tmp_path / "allure-results"
    res.mkdir()
    write_result(res, BUNDLE, "u8-to-u16", "TCVT", "golden", "pto-v0", TCVT_ADRS, "passed", "pass")
    write_result(res, BUNDLE, "u8-to-u16", "TCVT", "mutant", "pto-v0", TCVT_ADRS, "failed", "fail",
                 "payload: 1 of 2 differ")
    write_result(res, BUNDLE, "s4-lanes", "TCVT", "mutant", "pto-v0", TCVT_ADRS, "skipped",
                 "not supported", "not supported: mutant does not support S4X2")
    write_result(res, SAT, "clamp", "TQUANT", "golden", "pto-v0", TQUANT_ADRS, "broken",
                 "device error", "device error: timeout")
    # A retried result: two attempts under one historyId, the later one counts.
    write_result(res, SAT, "wrap", "TQUANT", "golden", "pto-v0", TQUANT_ADRS, "failed", "fail",
                 history="h-wrap", stop=5)
    write_result(res, SAT, "wrap", "TQUANT", "golden", "pto-v0", TQUANT_ADRS, "passed", "pass",
                 history="h-wrap", stop=9)
    # A project vector naming ADR-0047 only.
    write_result(res, PROJECT, "overflow", "TCVT", "golden", "hw-ieee", ("ADR-0047",), "passed", "pass")
    # A result of some other test written to the same directory: no specTest label.
    (res / "other-result.json").write_text(json.dumps({"name": "t", "status": "passed", "labels": []}))
    return res


def run(results, out, *extra):
    assert coverage.main([str(results), "--out", str(out), *extra]) == 0
    return json.loads((out / "adr-coverage.json").read_text())


def test_rows_are_the_adrs_of_every_operation_with_catalog_titles(results, tmp_path):
    report = run(results, tmp_path / "out")
    expected = sorted({a for u in CATALOG["units"] for a in u["readiness_subjects"]})
    assert [row["id"] for row in report["adrs"]] == expected
    assert len(expected) == 32
    rows = {row["id"]: row for row in report["adrs"]}
    for adr_id, row in rows.items():
        assert row["title"] == ADR_TITLES[adr_id]
        assert row["status"] == "accepted"
    assert rows["ADR-0047"]["title"] == "Numeric rounding semantics"  # quoted from the catalog
    assert rows["ADR-0047"]["url"] == ("https://github.com/PTO-ISA/pto-spec/blob/"
                                       "e599a3d36ebfad43362ff591ea5e128816c684c7/"
                                       "docs/status/decisions/0047-numeric-rounding-semantics.md")
    tcvt_rows = sorted(a for a, row in rows.items() if "TCVT" in row["operations"])
    assert tuple(tcvt_rows) == TCVT_ADRS
    assert rows["ADR-0052"]["operations"] == [u["mnemonic"] for u in CATALOG["units"]
                                              if "ADR-0052" in u["readiness_subjects"]]
    assert set(FOUR) <= set(rows["ADR-0052"]["operations"])
    assert "TQUANT" in rows["ADR-0083"]["operations"] and "TCVT" not in rows["ADR-0083"]["operations"]
    # Quoted from the catalog: the tile-scalar operations trace to ADR-0081.
    assert rows["ADR-0081"]["operations"] == ["TADDS", "TDIVS", "TMAXS", "TMINS", "TMULS", "TREMS", "TSUBS",
                                              "TEXPANDS", "TANDS", "TCMPS", "TORS", "TSELS", "TSHLS", "TSHRS",
                                              "TXORS"]
    assert rows["ADR-0081"]["spec_tests"] == [t for op in rows["ADR-0081"]["operations"]
                                              for t in UNITS[op]["tests"]]


def test_families_count_spec_tests_with_a_vector_out_of_all_444(results, tmp_path):
    report = run(results, tmp_path / "out")
    families = {row["family"]: row for row in report["families"]}
    assert list(families)[-1] == "all families"
    assert families["all families"]["spec_tests"] == len(ALL_TESTS) == 444
    # The results ran BUNDLE (TCVT) and SAT (TQUANT); the project vector is no spec test.
    assert families["all families"]["spec_tests_with_vector"] == 2
    assert families["all families"]["operations_with_vector"] == ["TCVT", "TQUANT"]
    # Families as the catalog classifies the operations.
    assert families["elementwise-tile-tile"]["operations"] == [
        u["mnemonic"] for u in CATALOG["units"] if u["classification"][0] == "elementwise-tile-tile"]
    assert (families["elementwise-tile-tile"]["spec_tests_with_vector"],
            families["irregular-and-complex"]["spec_tests_with_vector"],
            families["tile-scalar-and-immediate"]["spec_tests_with_vector"]) == (1, 1, 0)
    assert sum(row["spec_tests"] for name, row in families.items() if name != "all families") == 444
    md = (tmp_path / "out" / "adr-coverage.md").read_text()
    assert "| **all families** | **109** | **2** | **2 of 444** |" in md
    page = (tmp_path / "out" / "adr-coverage.html").read_text()
    assert page.count("<tr data-family=") == 7


def test_counts_per_adr_and_device(results, tmp_path):
    report = run(results, tmp_path / "out")
    rows = {row["id"]: row for row in report["adrs"]}
    assert report["devices"] == ["golden (hw-ieee)", "golden (pto-v0)", "mutant (pto-v0)"]
    assert report["case_runs"] == 6 and report["foreign_results"] == 1

    # ADR-0052: TCVT (2 cases of BUNDLE) and TQUANT (2 cases of SAT).
    adr52 = rows["ADR-0052"]
    assert (adr52["vector_files"], adr52["cases"]) == (2, 4)
    assert adr52["outcomes"]["golden (pto-v0)"] == {"pass": 2, "fail": 0, "not supported": 0,
                                                    "not observable": 0, "device error": 1}
    assert adr52["outcomes"]["mutant (pto-v0)"] == {"pass": 0, "fail": 1, "not supported": 1,
                                                    "not observable": 0, "device error": 0}
    # ADR-0047: TCVT only, plus the project vector.
    adr47 = rows["ADR-0047"]
    assert adr47["vectors"] == [BUNDLE, PROJECT]
    assert (adr47["vector_files"], adr47["cases"]) == (2, 3)
    assert adr47["outcomes"]["golden (hw-ieee)"]["pass"] == 1
    assert adr47["spec_tests_with_vector"] == [BUNDLE]
    # ADR-0083: TQUANT only.
    assert (rows["ADR-0083"]["vector_files"], rows["ADR-0083"]["cases"]) == (1, 2)
    # ADR-0034: TGEMV_MX_ACC only, which nothing ran.
    adr34 = rows["ADR-0034"]
    assert (adr34["vector_files"], adr34["cases"]) == (0, 0)
    assert all(sum(c.values()) == 0 for c in adr34["outcomes"].values())


def test_the_total_counts_each_case_run_once_where_the_adr_rows_overlap(results, tmp_path):
    report = run(results, tmp_path / "out")
    # The mutant's one failing case (BUNDLE u8-to-u16) traces to the 11 TCVT ADRs: it shows
    # in 11 rows, and the total counts it once.
    rows_with_the_failure = [row["id"] for row in report["adrs"]
                             if row["outcomes"]["mutant (pto-v0)"]["fail"]]
    assert tuple(rows_with_the_failure) == TCVT_ADRS
    total = report["total"]
    assert (total["vector_files"], total["cases"]) == (3, 5)
    none = {"pass": 0, "fail": 0, "not supported": 0, "not observable": 0, "device error": 0}
    assert total["outcomes"] == {
        "golden (hw-ieee)": {**none, "pass": 1},
        "golden (pto-v0)": {**none, "pass": 2, "device error": 1},  # wrap: the retry passed
        "mutant (pto-v0)": {**none, "fail": 1, "not supported": 1}}
    assert sum(sum(c.values()) for c in total["outcomes"].values()) == report["case_runs"] == 6
    md = (tmp_path / "out" / "adr-coverage.md").read_text()
    assert ("| **all ADRs** | **every case run once** | **-** | **all 109** "
            "| **2 of 444** | **3** | **5** | **1 / 0 / 0 / 0 / 0** | **2 / 0 / 0 / 0 / 1** "
            "| **0 / 1 / 1 / 0 / 0** |") in md
    page = (tmp_path / "out" / "adr-coverage.html").read_text()
    assert page.count('<tr class="total">') == 2  # all families, all ADRs
    assert "<title>all ADRs: 1 fail</title>" in page


def test_spec_tests_without_vector_from_results_and_from_a_vectors_directory(results, tmp_path):
    all_tests = ALL_TESTS
    report = run(results, tmp_path / "out")
    missing = [t["id"] for t in report["spec_tests_without_vector"]]
    assert missing == [t for t in all_tests if t not in (BUNDLE, SAT)]

    vectors = tmp_path / "vectors"
    (vectors / "tmuls").mkdir(parents=True)
    for name in (BUNDLE, "tmuls/PTO-AVS-TILE-TMULS-WIDTH-001", PROJECT):
        (vectors / f"{name}.yaml").write_text("format: pto-avs-vector/1\n")
    single = tmp_path / "PTO-AVS-TILE-TQUANT-TYPES-001.yaml"
    single.write_text("format: pto-avs-vector/1\n")
    report = run(results, tmp_path / "out2", "--vectors", str(vectors), "--vectors", str(single))
    missing = [t["id"] for t in report["spec_tests_without_vector"]]
    assert missing == [t for t in all_tests if t not in (
        BUNDLE, SAT, "PTO-AVS-TILE-TMULS-WIDTH-001", "PTO-AVS-TILE-TQUANT-TYPES-001")]
    assert report["vector_source"] == f"the results and the vector files in {vectors}, {single}"
    by_id = {t["id"]: t for t in report["spec_tests_without_vector"]}
    assert by_id["PTO-AVS-TILE-TMULS-STATIC-001"]["operation"] == "TMULS"
    assert by_id["PTO-AVS-TILE-TMULS-STATIC-001"]["kind"] == "static-invariant"


def test_markdown_and_self_contained_html(results, tmp_path):
    out = tmp_path / "out"
    run(results, out)
    md = (out / "adr-coverage.md").read_text()
    assert "| ADR-0047 | Numeric rounding semantics | accepted | TCVT | 1 of 17 | 2 | 3 |" in md
    page = (out / "adr-coverage.html").read_text()
    assert page.count("<tr data-adr=") == 32
    assert "<svg" in page and "<style>" in page
    for external in ("<script", "<link", "src=", "@import", "url("):
        assert external not in page
    # Bar of ADR-0052: 2 pass, 1 fail, 1 not supported, 1 device error (5 case runs).
    assert "<title>ADR-0052: 2 pass</title>" in page
    assert "<title>ADR-0052: 1 device error</title>" in page


def test_written_whole_or_not_at_all(results, tmp_path, monkeypatch):
    out = tmp_path / "out"
    real_stage = atomic._stage

    def failing_stage(path, content):
        if path.name.endswith(".html"):
            raise OSError("disk full")
        return real_stage(path, content)

    monkeypatch.setattr(atomic, "_stage", failing_stage)
    assert coverage.main([str(results), "--out", str(out)]) == 2
    assert list(out.iterdir()) == []


def test_written_files_are_shareable(results, tmp_path):
    """Staged through private temporary files, the reports still get the mode a plain
    write gives (0666 less the umask), not tempfile's 0600."""
    out = tmp_path / "out"
    assert coverage.main([str(results), "--out", str(out)]) == 0
    mask = os.umask(0o022)
    os.umask(mask)
    for name in ("adr-coverage.md", "adr-coverage.json", "adr-coverage.html"):
        assert (out / name).stat().st_mode & 0o777 == 0o666 & ~mask, name


def test_bad_result_file_is_named(results, tmp_path, capsys):
    (results / "broken-result.json").write_text("{not json")
    assert coverage.main([str(results), "--out", str(tmp_path / "out")]) == 2
    assert "broken-result.json" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_missing_results_directory(tmp_path, capsys):
    assert coverage.main([str(tmp_path / "nowhere"), "--out", str(tmp_path / "out")]) == 2
    assert "not a directory of Allure results" in capsys.readouterr().err


def test_vectors_directory_recorded_by_the_run_is_used(results, tmp_path):
    vectors = tmp_path / "vectors"
    vectors.mkdir()
    (vectors / f"{SAT}.yaml").write_text("format: pto-avs-vector/1\n")
    (vectors / "PTO-AVS-TILE-TQUANT-BUNDLE-001.yaml").write_text("format: pto-avs-vector/1\n")
    (results / "environment.properties").write_text(f"device=golden\nvectors={vectors}\n")
    report = run(results, tmp_path / "out")
    missing = {t["id"] for t in report["spec_tests_without_vector"]}
    assert "PTO-AVS-TILE-TQUANT-BUNDLE-001" not in missing  # a file, though no case of it ran
    assert BUNDLE not in missing and SAT not in missing  # ran
    assert len(missing) == 444 - 3
    assert report["environment"]["device"] == "golden"


def test_a_missing_vectors_path_is_named(results, tmp_path, capsys):
    assert coverage.main([str(results), "--out", str(tmp_path / "out"),
                          "--vectors", str(tmp_path / "nowhere")]) == 2
    assert "nowhere: neither a vectors directory nor a .yaml vector file" in capsys.readouterr().err
