"""Reports of the memory aspects (issue 23): the Allure attachments of a failing memory aspect
(the first differing byte: address, expected and observed bytes around it) and of a failing
events aspect (the first divergent event), the state summary of a case with memory, and the
bring-up report's per-device first divergence, which names the memory first.

The case stores one U32 Word 0x04030201 at 0x200 over 0xff bytes; the expected bytes are the
little-endian Word by hand (01 02 03 04) between zero bytes; the observations are hand-written:
``good`` stored it, ``bad`` stored 01 02 00 04 (byte 0x202 wrong) and reports its store as a load."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
import yaml

import reports_support as rs
from pto_avs.contract.case import Case, Observation
from pto_avs.contract.compare import compare
from pto_avs.contract.loader import load_paths
from pto_avs.plugins.base import Capabilities, Device
from pto_avs.reports import bringup
from pto_avs.reports import case_report as cr

VECTOR = "PTO-AVS-X-TSTORE-REPORTS-001"
DOC = {
    "format": "pto-avs-vector/1", "id": VECTOR, "operation": "TSTORE", "kind": "execution",
    "exercises": ["ADR-0035"], "provenance": "fixture of the memory report tests",
    "cases": [{
        "name": "store-word", "profiles": ["pto-v0"], "source": "hand",
        "reference": "tests/reports/test_reports_memory.py (fixture)",
        "state": {"gprs": {5: 0x200}, "memory": {"size": 4096, "regions": [{"address": 0x200, "bytes": "ffffffff"}]},
                  "tiles": [{"index": 0, "dtype": "U32", "capacity": 128, "cols": 4, "valid": [1, 1],
                             "data": [[0x04030201]]}]},
        "program": "BSTART.TSTORE U32; B.IOR R5, R0; B.IOT T0, mask=1111, <last>; BSTOP",
        "expect": {"fault": None, "memory": [{"address": 0x1FC, "bytes": "00000000 01020304 00000000"}],
                   "events": [{"kind": "Store", "agent": 0, "address": 0x200, "size": 4, "write": 0x04030201}]},
    }],
}
GOOD_IMAGE = bytearray(4096)
GOOD_IMAGE[0x200:0x204] = bytes([1, 2, 3, 4])
BAD_IMAGE = bytearray(GOOD_IMAGE)
BAD_IMAGE[0x202] = 0
GOOD_EVENTS = [{"kind": "Store", "agent": 0, "address": 0x200, "size": 4, "read": 0, "write": 0x04030201,
                "order": "Relaxed"}]
BAD_EVENTS = [dict(GOOD_EVENTS[0], kind="Load", read=0x04030201, write=0)]


def observation_json(image: bytes, events: list) -> dict:
    return {"fault": None, "flags": 0, "tiles": {}, "memory": {"size": 4096, "hex": bytes(image).hex()},
            "events": events}


@pytest.fixture(scope="module")
def vector_case(tmp_path_factory):
    folder = tmp_path_factory.mktemp("memory-vectors")
    (folder / f"{VECTOR}.yaml").write_text(yaml.safe_dump(DOC, sort_keys=False))
    (loaded,) = load_paths([folder])
    assert loaded.error is None, loaded.error
    return folder, loaded.cases[0]


def bad_verdict(case: Case):
    return compare(case, Observation.from_json(observation_json(BAD_IMAGE, BAD_EVENTS)),
                   frozenset({"fault", "memory", "events"}))


def test_failing_memory_and_events_each_get_an_attachment_with_the_first_divergence(vector_case):
    _, case = vector_case
    verdict = bad_verdict(case)
    assert verdict.outcome == "fail" and set(verdict.failed) == {"memory", "events"}
    attachments = dict(cr.memory_attachments(verdict))
    assert list(attachments) == ["memory: first divergence", "memory events: first divergence"]
    memory = attachments["memory: first divergence"].splitlines()
    assert memory[0] == "first divergence: memory byte 0x202 (region 0x1fc): expected 0x03, observed 0x00"
    assert memory[1] == "1 of 12 bytes differ"
    # The bytes around it: four before (0x1fe) on, expected against observed.
    assert memory[2:] == ["expected 0x01fe: 00 00 01 02 03 04 00 00 00 00", "observed 0x01fe: 00 00 01 02 00 04 00 00 00 00"]
    events = attachments["memory events: first divergence"].splitlines()
    assert events[0] == ("first divergence: events[0]: expected {kind=Store, agent=0, address=0x200, size=4, "
                         "write=0x4030201}, observed {kind=Load, agent=0, address=0x200, size=4, read=0x4030201, "
                         "write=0x0, order=Relaxed}")
    good = compare(case, Observation.from_json(observation_json(GOOD_IMAGE, GOOD_EVENTS)),
                   frozenset({"fault", "memory", "events"}))
    assert good.outcome == "pass" and cr.memory_attachments(good) == []


def test_the_first_divergence_names_the_memory_before_other_aspects(vector_case):
    _, case = vector_case
    verdict = bad_verdict(case)
    assert cr.first_divergence(verdict) == "memory byte 0x202 (region 0x1fc): expected 0x03, observed 0x00"
    events_only = compare(case, Observation.from_json(observation_json(GOOD_IMAGE, BAD_EVENTS)),
                          frozenset({"fault", "memory", "events"}))
    assert cr.first_divergence(events_only).startswith("events[0]: expected {kind=Store")
    assert cr.first_divergence(compare(case, Observation.device_error("boom"), frozenset({"memory"}))) == "boom"


def test_the_state_summary_names_the_memory_regions_peers_and_shared_tiles():
    state = {"gprs": {5: 0x200}, "memory": {"size": 8192, "regions": [{"address": 0x200, "bytes": "ff ff ff ff"}]},
             "pe_gprs": {2: {5: 0x300}}, "tiles": [],
             "shared_tiles": [{"index": 3, "dtype": "FP32", "valid": [1, 16]}]}
    assert cr.state_summary(state) == "R5=0x200; memory 8192 B: 0x200+4; PE2.R5=0x300; S[3] FP32 1x16"


class _Answers(Device):
    """A device answering hand-written observations (with the memory capabilities)."""

    name = "answers"

    def __init__(self, answer: dict):
        self.answer = answer
        self.capabilities = Capabilities(profile="pto-v0", operations=frozenset({"TSTORE"}), memory=True,
                                         events=True, shared_tiles=True)

    def execute(self, case):
        return Observation.from_json(self.answer)


def test_the_bring_up_report_names_the_memory_divergence_per_device(vector_case):
    _, case = vector_case
    bad = bringup.observe(_Answers(observation_json(BAD_IMAGE, BAD_EVENTS)), [case], 8)[case.id]
    assert (bad.outcome, set(bad.failing)) == ("fail", {"memory", "events"})
    assert bad.first == "memory byte 0x202 (region 0x1fc): expected 0x03, observed 0x00"
    assert "observed 0x01fe: 00 00 01 02 00 04 00 00 00 00" in bad.detail
    good = bringup.observe(_Answers(observation_json(GOOD_IMAGE, GOOD_EVENTS)), [case], 8)[case.id]
    assert good.outcome == "pass"
    no_memory = bringup.observe(_NoMemory(), [case], 8)[case.id]
    assert no_memory.outcome == "not supported" and "does not model global memory" in no_memory.first


class _NoMemory(_Answers):
    def __init__(self):
        super().__init__({})
        self.capabilities = Capabilities(profile="pto-v0", operations=frozenset({"TSTORE"}))


@pytest.mark.slow  # a pytest run in a subprocess
def test_allure_results_of_a_failing_memory_case_carry_the_memory_attachments(vector_case, tmp_path):
    folder, case = vector_case
    caps = {"profile": "pto-v0", "operations": ["TSTORE"], "dtypes": None,
            "aspects": ["fault", "flags", "descriptor", "payload", "memory", "events"], "direct_calls": False,
            "memory": True, "events": True, "shared_tiles": True}
    recording = tmp_path / "recording.json"
    recording.write_text(json.dumps({"format": "pto-avs-recording/1", "devices": {
        "bad": {"capabilities": caps, "cases": {case.id: {"observation": observation_json(BAD_IMAGE, BAD_EVENTS)}}}}}))
    (tmp_path / "test_conformance.py").write_text(rs.CONFORMANCE_MODULE)
    results = tmp_path / "allure-results"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    done = subprocess.run(
        [sys.executable, "-m", "pytest", *rs.plugin_args(), "-p", "no:cacheprovider", "-q", "--rootdir", str(tmp_path),
         "--vectors-only", "--vectors", str(folder), "--device", f"replay:{recording}", "--alluredir", str(results),
         "test_conformance.py"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert "1 failed" in done.stdout, done.stdout + done.stderr
    (result,) = [r for r in rs.read_results(results) if rs.labels_of(r).get("case") == ["store-word"]]
    attachments = {a["name"]: (results / a["source"]).read_text() for a in result["attachments"]}
    assert attachments["memory: first divergence"].startswith(
        "first divergence: memory byte 0x202 (region 0x1fc): expected 0x03, observed 0x00")
    assert attachments["memory events: first divergence"].startswith("first divergence: events[0]:")
    assert rs.labels_of(result)["mismatch"] == ["memory", "events"]
