"""A Ctrl-C while the controller gathers or writes the ``--record`` file (after the last test,
under xdist) still says, in a line of its own, that the file was not written; before, the run
ended in a bare traceback."""
from __future__ import annotations

import types

import pytest

from pto_avs.avs import pytest_plugin
from pto_avs.plugins import replay


def controller(tmp_path) -> pytest_plugin.Tally:
    config = types.SimpleNamespace(option=types.SimpleNamespace(avs_record=str(tmp_path / "F.json")),
                                   stash={})
    tally = pytest_plugin.Tally.__new__(pytest_plugin.Tally)
    tally.config, tally.worker_recordings, tally.lost_workers, tally.record_note = config, [], [], None
    tally.worker_recordings.append('{"format": "pto-avs-recording/1", "devices": {}}')
    return tally


def test_an_interrupt_while_writing_says_the_file_was_not_written(tmp_path, monkeypatch, capsys):
    def interrupted(self, path):
        raise KeyboardInterrupt

    monkeypatch.setattr(replay.Recording, "write", interrupted)
    monkeypatch.setattr(pytest_plugin, "_stopped_early", lambda session, status: "")
    tally = controller(tmp_path)
    with pytest.raises(KeyboardInterrupt):
        tally.pytest_sessionfinish(session=None, exitstatus=0)
    line = (f"pto-avs: interrupted while gathering or writing the recording: {tmp_path / 'F.json'} was not "
            "written (an earlier file there is left as it was)")
    assert line in capsys.readouterr().err and tally.record_note == line
    assert not (tmp_path / "F.json").exists()


def test_a_finished_write_is_reported_as_written(tmp_path, monkeypatch):
    monkeypatch.setattr(pytest_plugin, "_stopped_early", lambda session, status: "")
    tally = controller(tmp_path)
    tally.pytest_sessionfinish(session=None, exitstatus=0)
    assert tally.record_note == f"pto-avs: device answers recorded to {tmp_path / 'F.json'}"
