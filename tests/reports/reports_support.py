"""A small real pto-avs run for the report tests: fixture vectors, two replayed devices.

Two vector files (a spec ID of TMULS and a project ID naming ADR-0047 and ADR-0035)
run on two devices replayed from a hand-written recording: ``good`` answers what the
vectors expect, ``bad`` answers one payload element wrong, one flag wrong and lacks
one case (not supported). The outcomes below are fixed by that recording, by hand.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CATALOG = json.loads((ROOT / "contract/spec_data/tile-avs-catalog.json").read_text())
TESTS = {t["id"]: t for t in CATALOG["tests"]}
UNITS = {u["mnemonic"]: u for u in CATALOG["units"]}
ADR_TITLES = {a["id"]: a["title"] for a in CATALOG["adrs"]}

WIDTH = "PTO-AVS-TILE-TMULS-WIDTH-001"
PROJECT = "PTO-AVS-X-TCVT-REPORTS-001"
PROJECT_ADRS = ("ADR-0035", "ADR-0047")  # what the project vector's `exercises` names
GOOD, BAD = "good", "bad"

# (vector, case, device) -> outcome, as the recording below makes them.
OUTCOMES = {
    (WIDTH, "two-lanes", GOOD): "pass",
    (WIDTH, "two-lanes", BAD): "fail",  # payload (0,1) differs
    (WIDTH, "one-lane", GOOD): "pass",
    (WIDTH, "one-lane", BAD): "not supported",  # absent from the bad recording
    (PROJECT, "nx-flag", GOOD): "pass",
    (PROJECT, "nx-flag", BAD): "fail",  # flags differ
}

TMULS_PROGRAM = "BSTART.VEC TMULS, FP32; B.DIM LB0=2; B.IOR R5; B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP"
TCVT_PROGRAM = "BSTART.VEC TCVT, FP32; B.DATR FP16, RNE; B.DIM LB0=1; B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP"


def _case(name, program, data, flags, dtype):
    return {
        "name": name, "profiles": ["pto-v0"], "source": "hand",
        "reference": "tests/reports/reports_support.py (fixture for the report tests)",
        "state": {"gprs": {5: 0x3F800000},
                  "tiles": [{"index": 1, "dtype": "FP32", "capacity": 128, "cols": 8,
                             "valid": [1, len(data)], "data": [data]}]},
        "program": program,
        "expect": {"fault": None, "flags": flags,
                   "tiles": [{"index": 0, "dtype": dtype, "valid": [1, len(data)], "data": [data]}]},
    }


def write_vectors(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    spec = TESTS[WIDTH]
    width = {
        "format": "pto-avs-vector/1", "id": WIDTH, "operation": "TMULS", "kind": spec["kind"],
        "summary": spec["summary"], "pass_condition": spec["pass_condition"],
        "requirements": spec["requirements"], "spec_test_file": spec["spec_test_file"],
        "provenance": "fixture of the report tests; outcomes come from a hand-written recording",
        "cases": [_case("two-lanes", TMULS_PROGRAM, [0x3F800000, 0x40000000], 0, "FP32"),
                  _case("one-lane", TMULS_PROGRAM, [0x3F800000], 0, "FP32")],
    }
    project = {
        "format": "pto-avs-vector/1", "id": PROJECT, "operation": "TCVT", "kind": "execution",
        "exercises": list(PROJECT_ADRS),
        "provenance": "fixture of the report tests; outcomes come from a hand-written recording",
        "cases": [_case("nx-flag", TCVT_PROGRAM, [0x3C00], 0x10, "FP16")],
    }
    for doc in (width, project):
        (folder / f"{doc['id']}.yaml").write_text(yaml.safe_dump(doc, sort_keys=False))
    return folder


def _observation(words, flags, dtype):
    cols = len(words)
    return {"fault": None, "flags": flags,
            "tiles": {"0": {"dtype": dtype, "layout": "RowMajor", "location": "Any", "rows": 1,
                            "cols": cols, "valid": [1, cols], "words": [words],
                            "defined": [[True] * cols]}}}


def write_recording(path: Path) -> Path:
    caps = {"profile": "pto-v0", "operations": ["TCVT", "TQUANT", "TMULS", "TGEMV_MX_ACC"],
            "dtypes": None,
            "aspects": ["fault", "flags", "descriptor", "payload", "carrier", "padding_defined",
                        "padding_value", "sources", "storage", "encoding"],
            "direct_calls": True}
    good = {
        f"{WIDTH}::two-lanes": {"observation": _observation([0x3F800000, 0x40000000], 0, "FP32")},
        f"{WIDTH}::one-lane": {"observation": _observation([0x3F800000], 0, "FP32")},
        f"{PROJECT}::nx-flag": {"observation": _observation([0x3C00], 0x10, "FP16")},
    }
    bad = {
        f"{WIDTH}::two-lanes": {"observation": _observation([0x3F800000, 0x40000001], 0, "FP32")},
        f"{PROJECT}::nx-flag": {"observation": _observation([0x3C00], 0x00, "FP16")},
    }
    # the good device cannot observe flags: its cases pass on the rest, flags reported unobserved
    good_caps = {**caps, "aspects": [a for a in caps["aspects"] if a != "flags"]}
    path.write_text(json.dumps({"format": "pto-avs-recording/1", "devices": {
        GOOD: {"capabilities": good_caps, "cases": good},
        BAD: {"capabilities": caps, "cases": bad}}}))
    return path


def device_labels(recording: Path) -> dict[str, str]:
    """The runner names a device by its --device spec."""
    return {GOOD: f"replay:{recording}@{GOOD}", BAD: f"replay:{recording}@{BAD}"}


def plugin_args() -> list[str]:
    """``-p pto_avs.reports.allure_plugin`` unless an installed pytest11 entry point loads it already
    (loading it twice is an error)."""
    installed = {ep.value for ep in entry_points(group="pytest11")}
    return [] if "pto_avs.reports.allure_plugin" in installed else ["-p", "pto_avs.reports.allure_plugin"]


CONFORMANCE_MODULE = """
from pto_avs.avs.pytest_plugin import conformance_suite


@conformance_suite
def test_conformance():
    raise AssertionError("the pto_avs plugin did not replace this function")
"""


def run_avs(tmp_path: Path, *extra: str) -> tuple[subprocess.CompletedProcess, Path]:
    """Run the fixture vectors on both devices with --alluredir in a fresh pytest process
    (away from the pytest running the tests); returns (the process, the results directory)."""
    vectors = write_vectors(tmp_path / "vectors")
    recording = write_recording(tmp_path / "recording.json")
    results = tmp_path / "allure-results"
    (tmp_path / "test_conformance.py").write_text(CONFORMANCE_MODULE)
    labels = device_labels(recording)
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *plugin_args(), "-p", "no:cacheprovider", "-q",
         "--rootdir", str(tmp_path), "--vectors-only", "--vectors", str(vectors),
         "--device", labels[GOOD], "--device", labels[BAD], "--alluredir", str(results),
         *extra, "test_conformance.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    return done, results


def read_results(results: Path) -> list[dict]:
    return [json.loads(p.read_text()) for p in sorted(results.glob("*-result.json"))]


def labels_of(result: dict) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for label in result["labels"]:
        out.setdefault(label["name"], []).append(label["value"])
    return out
