"""``pto-avs coverage`` on a results folder holding a result without labels (what a killed run
leaves): the file is skipped and counted, never a traceback."""
from __future__ import annotations

import json
import subprocess
import sys

from pto_avs.reports import allure_results, coverage


def test_a_result_without_labels_is_skipped_and_counted(tmp_path, capsys):
    results = tmp_path / "results"
    results.mkdir()
    (results / "killed-result.json").write_text(json.dumps({"name": "x", "status": "broken"}))
    (results / "other-result.json").write_text(json.dumps({"name": "y", "status": "passed", "labels": []}))
    read = allure_results.read(results)
    assert (read.runs, read.foreign, read.unlabelled) == ((), 1, 1)
    assert coverage.main([str(results), "--out", str(tmp_path / "out")]) == 0
    assert "skipped 1 result file(s) without labels" in capsys.readouterr().err
    report = json.loads((tmp_path / "out" / "adr-coverage.json").read_text())
    assert (report["case_runs"], report["foreign_results"], report["unlabelled_results"]) == (0, 1, 1)


def test_the_command_line_says_so_without_a_traceback(tmp_path):
    """Before: ``KeyError: 'labels'`` with a traceback."""
    results = tmp_path / "results"
    results.mkdir()
    (results / "killed-result.json").write_text(json.dumps({"name": "x"}))
    done = subprocess.run([sys.executable, "-m", "pto_avs.reports.coverage", str(results), "--out",
                           str(tmp_path / "out")], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
