"""environment.properties and categories.json of an Allure results directory."""
import json
import re
from importlib.metadata import version

import pytest

from pto_avs.reports import allure_files, atomic


def test_environment_names_devices_profiles_spec_and_model(tmp_path):
    env = allure_files.environment(["mutant", "golden", "golden"], ["pto-v0"], "/v")
    allure_files.write_run_files(tmp_path, env)
    text = (tmp_path / "environment.properties").read_text()
    values = allure_files.parse_properties(text)
    assert values["device"] == "golden, mutant"
    assert values["profile"] == "pto-v0"
    # Release and commit of the specification pto-avs follows (contract/spec_data/README.md).
    assert values["spec.release"] == "0.58.3"
    assert values["spec.commit"] == "e599a3d36ebfad43362ff591ea5e128816c684c7"
    assert values["spec.repository"] == "https://github.com/PTO-ISA/pto-spec"
    assert values["model.version"] == version("pto-avs")
    assert values["vectors"] == "/v"
    # Java properties syntax: ':' in a value is escaped.
    assert "spec.repository=https\\://github.com/PTO-ISA/pto-spec\n" in text


@pytest.mark.parametrize("value", ["a=b:c", " leading", "tab\there", "line\nbreak", "back\\slash",
                                   "#hash !bang", "µ-unicode"])
def test_properties_escaping_round_trips(value):
    text = allure_files.format_properties({"key with space": value})
    assert text.isascii()
    assert allure_files.parse_properties(text) == {"key with space": value}


def test_parse_properties_reads_comments_and_colon_separator():
    # Hand-written Java properties text.
    text = "# comment\n! other comment\n\nspec.release : 0.58.3\ndevice=golden\\, mutant\n"
    assert allure_files.parse_properties(text) == {"spec.release": "0.58.3",
                                                   "device": "golden, mutant"}


def _category(message, status="failed"):
    """The first category whose status and message regex match, as Allure 3 assigns it
    (Allure 2 matches the regex against the whole message: the patterns are written to
    match whole messages too)."""
    for cat in allure_files.CATEGORIES:
        if status in cat["matchedStatuses"] and re.fullmatch(cat["messageRegex"], message):
            return cat["name"]
    return None


@pytest.mark.parametrize("message, status, name", [
    ("AssertionError: payload: 1 of 2 differ; first divergence tile 0 (0,1): expected 0x7, "
     "observed 0x6\npassed: fault, flags, descriptor", "failed", "Payload mismatch"),
    ("Failed: padding_defined: 3 of 14 differ; first divergence tile 0 (0,2)", "failed",
     "Payload mismatch"),
    ("Failed: flags: 1 of 1 differ; first divergence flags: expected NX, observed none\n"
     "passed: fault, payload", "failed", "Flag mismatch"),
    ("Failed: fault: 1 of 1 differ; first divergence fault: expected Fault_TileLegality, "
     "observed none\nflags: 1 of 1 differ", "failed", "Fault-class mismatch"),
    ("Failed: descriptor: 1 of 8 differ; first divergence tile 0 dtype", "failed",
     "Other mismatch (descriptor, sources, encoding)"),
    ("pto_avs.avs.pytest_plugin.ConformanceFailure: payload: 2 of 4 differ; first divergence", "broken",
     "Payload mismatch"),
    ("Failed: device error: process exited with status 1", "failed", "Device error"),
    ("pto_avs.avs.pytest_plugin.DeviceFailure: execute_batch raised TimeoutError", "broken", "Device error"),
    ("pto_avs.avs.pytest_plugin.VectorLoadFailure: vectors/X.yaml: case 'a': expect.flags: not an integer",
     "broken", "Vector error"),
    ("Skipped: not supported: mutant does not support S4X2", "skipped", "Not supported"),
    ("Skipped: not observable: flags on gpu", "skipped", "Not observable"),
    ("Skipped: case does not hold under profile hw-ieee", "skipped", None),
])
def test_categories_assign_mismatch_kinds(message, status, name):
    assert _category(message, status) == name


def test_categories_are_valid_javascript_patterns():
    # Allure 3 compiles the patterns with JavaScript's RegExp: no inline flags like (?s).
    for cat in allure_files.CATEGORIES:
        assert "(?" not in cat["messageRegex"].replace("(?:", "")


def test_run_files_are_written_together_or_not_at_all(tmp_path, monkeypatch):
    env = allure_files.environment(["golden"], ["pto-v0"])
    allure_files.write_run_files(tmp_path, env)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert set(before) == {"environment.properties", "categories.json"}
    assert json.loads(before["categories.json"]) == allure_files.CATEGORIES

    real_stage = atomic._stage

    def fail_on_categories(path, content):
        if path.name == "categories.json":
            raise OSError("disk full")
        return real_stage(path, content)

    monkeypatch.setattr(atomic, "_stage", fail_on_categories)
    with pytest.raises(OSError):
        allure_files.write_run_files(tmp_path, allure_files.environment(["other"], ["hw-ieee"]))
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
