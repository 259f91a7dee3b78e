"""Under pytest-xdist each worker batches only the items it was given: a counting device sees
every case executed exactly once (``pytest avs/ -n 2``), in batches, with the verdicts of a
serial run.

The device is a process device (protocol 1.0) that logs each ``execute`` request it answers
(its pid, then the case IDs) and answers TMULS's destination 21 (7 times 3) for two cases in
three and 20, a wrong product, for the others, so the run has passes and failures to compare.
Before the fix, the look-ahead ran on collection order: of 200 cases under ``-n 2``, 104 ran
on both workers.
"""
from __future__ import annotations

import subprocess
import sys
import textwrap
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # each test runs pytest, some under xdist workers

ROOT = Path(__file__).resolve().parents[2]
CASES = 90
BATCH = 8

COUNTING_DEVICE = textwrap.dedent('''
    import json, os, sys
    log = sys.argv[1]
    print(json.dumps({"type": "hello", "protocol": "pto-avs-device", "version": "1.0", "device": "counting",
                      "capabilities": {"profile": "pto-v0", "operations": ["TMULS"], "direct_calls": True}}),
          flush=True)

    def tile(value):
        words = [[0] * 8 for _ in range(16)]
        words[0][0] = value
        return {"dtype": "U8", "layout": "RowMajor", "location": "Any", "rows": 16, "cols": 8, "valid": [1, 1],
                "capacity": 128, "mask": "1111", "words": words,
                "defined": [[r == 0 and c == 0 for c in range(8)] for r in range(16)]}

    for line in sys.stdin:
        request = json.loads(line)
        if request["type"] != "execute":
            break
        ids = [case["id"] for case in request["cases"]]
        with open(log, "a") as out:
            out.write(f"{os.getpid()} " + " ".join(ids) + "\\n")
        results = [{"id": cid, "observation": {"fault": None, "flags": 0, "tiles": {
                       "0": tile(7), "1": tile(21 if int(cid.rsplit("-", 1)[1]) % 3 else 20)}}} for cid in ids]
        print(json.dumps({"type": "results", "batch": request["batch"], "results": results}), flush=True)
''')

VECTOR_HEAD = textwrap.dedent('''
    format: pto-avs-vector/1
    id: PTO-AVS-X-BATCHES-TMULS-001
    operation: TMULS
    kind: execution
    exercises: [ADR-0081, PTO-INST-TILE-TMULS]
    provenance: Hand derivation, U8 7 times 3 is 21.
    cases:
''')
VECTOR_CASE = textwrap.dedent('''
      - name: seven-times-three-{n}
        profiles: [pto-v0]
        source: hand
        reference: 7 * 3 = 21 < 256
        state:
          tiles:
            - {{index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], data: [[7]]}}
            - {{index: 1, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], defined: none}}
        program:
          - {{call: TMULS, dst: 1, src: 0, scalar: 3}}
        expect:
          tiles:
            - {{index: 1, data: [[21]]}}
''')


def run(tmp_path: Path, name: str, *workers: str) -> tuple[dict, list]:
    """``pytest avs/`` on the counting device: ({test name: outcome}, [(pid, [case IDs]) per request])."""
    vectors = tmp_path / "vectors"
    if not vectors.exists():
        vectors.mkdir()
        (vectors / "PTO-AVS-X-BATCHES-TMULS-001.yaml").write_text(
            VECTOR_HEAD + "".join(VECTOR_CASE.format(n=n) for n in range(CASES)))
        (tmp_path / "counting.py").write_text(COUNTING_DEVICE)
    log, junit = tmp_path / f"{name}.log", tmp_path / f"{name}.xml"
    command = [sys.executable, "-m", "pytest", "avs/", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
               "--vectors-only", "--vectors", str(vectors), f"--batch-size={BATCH}",
               "--device", f"process:{sys.executable} {tmp_path / 'counting.py'} {log}",
               f"--junitxml={junit}", *workers]
    done = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]  # a third of the cases fail
    verdicts = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        failed = case.find("failure") is not None or case.find("error") is not None
        verdicts[case.get("name").split("@")[0]] = "fail" if failed else "pass"
    requests = [(pid, ids.split()) for pid, _, ids in (line.partition(" ") for line in log.read_text().splitlines())]
    return verdicts, requests


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    return run(tmp_path_factory.mktemp("serial"), "serial")


def test_serial_run_batches_in_collection_order(serial):
    verdicts, requests = serial
    assert len(verdicts) == CASES and Counter(verdicts.values()) == {"pass": 60, "fail": 30}
    assert [len(ids) for _, ids in requests] == [BATCH] * (CASES // BATCH) + [CASES % BATCH]


@pytest.mark.parametrize("dist", [
    ("-n", "2"),                                                           # xdist's default: --dist load
    ("-n", "2", "--dist", "loadfile"),
    ("-n", "2", "--dist", "loadgroup", "-p", "pto_avs.avs.campaigns.workers"),  # as spec-check -n 2
], ids=["load", "loadfile", "loadgroup-batches"])
def test_each_case_runs_once_under_xdist_with_the_serial_verdicts(tmp_path, serial, dist):
    verdicts, requests = run(tmp_path, "xdist", *dist)
    executed = Counter(cid for _, ids in requests for cid in ids)
    assert len(executed) == CASES and set(executed.values()) == {1}, executed.most_common(3)
    assert max(len(ids) for _, ids in requests) > 1  # the workers still batch (their own items)
    assert all(len(ids) <= BATCH for _, ids in requests)
    assert verdicts == serial[0]
