"""A replayed recording is evidence: the bring-up report and the Allure environment show its
digest and the device line its answers came from."""
from __future__ import annotations

import sys
from pathlib import Path

import pytest

from pto_avs.reports import allure_files, bringup

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "devices"))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import reports_support as rs  # noqa: E402
from test_devices_replay_trust import CASES, golden_recording  # noqa: E402


def test_the_bring_up_report_shows_each_recordings_digest_and_device_line(tmp_path):
    path = golden_recording(tmp_path)
    from pto_avs.plugins.replay import Recording

    digest = Recording.read(path).digest
    columns, notes = bringup.run_columns([f"replay:{path}"], CASES, golden=False, batch_size=None)
    text = bringup.render_text(bringup.build(columns, CASES, [], "test cases", notes))
    assert f"digest {digest}; recorded from golden:pto-v0" in text
    assert columns[0].evidence == f"digest {digest}; recorded from golden:pto-v0"
    golden_only, _ = bringup.run_columns(["golden:pto-v0"], CASES, golden=False, batch_size=None)
    assert golden_only[0].evidence == "" and "Replayed recordings" not in bringup.render_text(
        bringup.build(golden_only, CASES, [], "test cases", []))


def test_the_environment_names_each_recording():
    env = allure_files.environment(["replay:x.json"], ["pto-v0"], None,
                                   {"replay:x.json": "digest abc; recorded from golden:pto-v0"})
    assert env["recording replay:x.json"] == "digest abc; recorded from golden:pto-v0"
    assert allure_files.parse_properties(allure_files.format_properties(env)) == env


@pytest.mark.slow  # a pytest run with Allure on two replayed devices
def test_an_allure_run_on_replayed_devices_writes_their_evidence(tmp_path):
    done, results = rs.run_avs(tmp_path)
    assert done.returncode == 1, done.stdout + done.stderr  # the bad device fails two cases
    env = allure_files.parse_properties((results / "environment.properties").read_text())
    labels = rs.device_labels(tmp_path / "recording.json")
    from pto_avs.plugins.replay import UNSIGNED

    assert env[f"recording {labels[rs.GOOD]}"] == f"digest {UNSIGNED}; recorded from {rs.GOOD}"
    assert env[f"recording {labels[rs.BAD]}"] == f"digest {UNSIGNED}; recorded from {rs.BAD}"
