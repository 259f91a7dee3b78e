"""Campaigns on pytest-xdist workers: spec-check -n 2 (avs/campaigns/workers.py), the mutants and the
fuzz parts as pytest items (avs/campaigns/mutants_suite.py, fuzz_suite.py)."""
from __future__ import annotations

import gzip
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pto_avs.avs.campaigns import workers
from pto_avs.avs.cli import main

pytestmark = pytest.mark.slow  # pytest-xdist workers start fresh interpreters

ROOT = Path(__file__).resolve().parents[2]
RUNNER_VECTORS = ROOT / "tests" / "runner" / "runner_vectors"
TSEL_FILE = ROOT / "vectors" / "PTO-AVS-TILE-TSEL-MASK-001.yaml"


def answers(path: Path) -> dict:
    return json.loads(gzip.decompress(path.read_bytes()))["devices"]["aslref"]["cases"]


def test_spec_check_on_two_workers_records_what_one_process_records(tmp_path, capsys):
    common = ["spec-check", "--device", "golden:pto-v0", "--no-golden", "-q", "--vectors", str(RUNNER_VECTORS)]
    assert main([*common, "--record", str(tmp_path / "one.json.gz")]) == 0
    serial = capsys.readouterr().out
    assert main([*common, "-n", "2", "--record", str(tmp_path / "two.json.gz")]) == 0
    spread = capsys.readouterr().out
    assert "on pytest-xdist -n 2" in spread and "pytest-xdist" not in serial
    # the same table: the four cases of the folder, all of which hold under pto-v0
    assert serial.splitlines()[:4] == spread.splitlines()[:4]
    one, two = answers(tmp_path / "one.json.gz"), answers(tmp_path / "two.json.gz")
    assert sorted(one) == sorted(two) and len(one) == 4
    assert one == two


def test_a_batch_is_one_group_on_one_worker(tmp_path):
    assert workers.batch_size(40, 2, 500) == 20 and workers.batch_size(7163, 2, 500) == 500
    assert workers.batch_size(41, 2, 500) == 21 and workers.batch_size(1, 8, 500) == 1
    out = subprocess.run([sys.executable, "-m", "pytest", "-v", "-p", "no:randomly", "-p", "pto_avs.avs.campaigns.workers",
                          str(ROOT / "avs" / "test_conformance.py"), "--vectors-only", f"--vectors={RUNNER_VECTORS}",
                          "--device", "golden:pto-v0", "--batch-size", "2", "-n", "2", "--dist", "loadgroup"],
                         capture_output=True, text=True, timeout=600, cwd=ROOT)
    ran = re.findall(r"\[(gw\d)\] \[\s*\d+%\] PASSED \S+::(\S+)@(batch\d)", out.stdout)
    assert len(ran) == 4, out.stdout[-3000:]
    groups: dict = {}
    for worker, _, group in ran:
        groups.setdefault(group, set()).add(worker)
    assert sorted(groups) == ["batch0", "batch1"] and all(len(w) == 1 for w in groups.values())


def test_mutants_as_items_on_two_workers():
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-n", "2",
                          str(ROOT / "avs" / "campaigns" / "mutants_suite.py"), "--vectors-only", f"--vectors={TSEL_FILE}",
                          "-k", "select-inverted or minmax-nan-propagates"], capture_output=True, text=True, timeout=600, cwd=ROOT)
    assert out.returncode == 1, out.stdout[-3000:]
    assert "minmax-nan-propagates@pto-v0  SURVIVED" in out.stdout  # no TSEL case kills a TMAX/TMIN bug
    assert "1 failed, 1 passed" in out.stdout


def test_fuzz_parts_as_items(tmp_path):
    env = {**__import__("os").environ, "PTO_AVS_FUZZ_EXAMPLES": "10", "PTO_AVS_FUZZ_OUT": str(tmp_path)}
    out = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-n", "2", "-rf",
                          str(ROOT / "avs" / "campaigns" / "fuzz_suite.py"), "--device", "mutant:select-inverted",
                          "-k", "TSEL-part0 or TSEL-part1"], capture_output=True, text=True, timeout=600, cwd=ROOT, env=env)
    assert "2 failed" in out.stdout, out.stdout[-3000:]
    assert "--op TSEL --examples 10 --seed 1:" in out.stdout and "--op TSEL --examples 10 --seed 2:" in out.stdout
    assert list(tmp_path.glob("PTO-AVS-X-FUZZ-TSEL-*.yaml"))
