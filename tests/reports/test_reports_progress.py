"""The progress of long commands (reports/progress.py): a line rewritten in place on a terminal,
plain lines at most one every few seconds elsewhere, nothing when quiet, and a closing line.

A hand-driven clock stands for time; the figures follow from it (10 cases in 4 s: 2.5 cases/s,
90 left: 36 s).
"""
from __future__ import annotations

import io

from pto_avs.reports import bringup
from pto_avs.reports.progress import Progress, duration


class Clock:
    def __init__(self):
        self.now = 100.0

    def __call__(self):
        return self.now


class Terminal(io.StringIO):
    def isatty(self):
        return True


def screen(text: str) -> list[str]:
    """What a terminal shows after ``text``: each carriage return writes over its line from the left."""
    shown = []
    for line in text.split("\n"):
        cells: list[str] = []
        for segment in line.split("\r"):
            cells[:len(segment)] = segment
        shown.append("".join(cells).rstrip())
    return shown[:-1] if shown and shown[-1] == "" else shown


def drive(progress: Progress, clock: Clock, steps: int, seconds_each: float) -> None:
    for _ in range(steps):
        clock.now += seconds_each
        progress.advance()


def test_plain_output_writes_a_line_at_most_every_interval_and_a_closing_line():
    clock, stream = Clock(), io.StringIO()
    progress = Progress("compare dev", 100, "cases", stream=stream, clock=clock)
    drive(progress, clock, 10, 0.4)  # 4 s: under the 5 s interval, nothing yet
    assert stream.getvalue() == ""
    drive(progress, clock, 3, 0.4)  # 5.2 s
    assert stream.getvalue() == "compare dev: 13/100 cases (13.0%), 2.5 cases/s, 35s left\n"
    drive(progress, clock, 12, 0.4)  # 10 s: under 5 s after the first line
    assert len(stream.getvalue().splitlines()) == 1
    drive(progress, clock, 1, 0.4)  # 10.4 s: the second line
    assert stream.getvalue().splitlines()[1] == "compare dev: 26/100 cases (26.0%), 2.5 cases/s, 30s left"
    progress.finish("2 failing")
    assert stream.getvalue().splitlines()[2] == "compare dev: 26 of 100 cases in 10s (2.5 cases/s); 2 failing"
    assert "\r" not in stream.getvalue()


def test_a_terminal_line_rewrites_itself_and_ends_with_the_summary():
    clock, stream = Clock(), Terminal()
    with Progress("sweep dev", 4, "pairs", stream=stream, clock=clock) as progress:
        drive(progress, clock, 1, 2.0)
        drive(progress, clock, 1, 0.1)  # within 0.2 s of the last rewrite: not drawn
        drive(progress, clock, 2, 1.0)  # 4.1 s in all
    text = stream.getvalue()
    assert [segment.rstrip() for segment in text.split("\r")[1:]] == [
        "sweep dev: 1/4 pairs (25.0%), 0.5 pairs/s",  # no time left before a second step
        "sweep dev: 3/4 pairs (75.0%), 0.968 pairs/s, 1s left",  # 2 steps in 1.1 s since the first: 0.55 s
        "sweep dev: 4/4 pairs (100.0%), 0.976 pairs/s",
        "sweep dev: 4 pairs in 4s (0.976 pairs/s)"]
    assert screen(text) == ["sweep dev: 4 pairs in 4s (0.976 pairs/s)"]  # shorter lines wipe the longer
    assert "\n" not in text[:-1]  # one line, rewritten


def test_clear_wipes_the_terminal_line_before_a_line_of_the_commands_own():
    clock, stream = Clock(), Terminal()
    progress = Progress("mutants", 10, stream=stream, clock=clock)
    drive(progress, clock, 1, 1.0)
    progress.clear()
    width = len("mutants: 1/10 cases (10.0%), 1 cases/s")
    assert stream.getvalue().endswith("\r" + " " * width + "\r")
    drive(progress, clock, 1, 0.01)  # drawn again at once after a clear: 8 left at 0.01 s each
    assert stream.getvalue().endswith("\rmutants: 2/10 cases (20.0%), 1.98 cases/s, 0s left")


def test_quiet_writes_nothing_at_all():
    for stream in (io.StringIO(), Terminal()):
        clock = Clock()
        with Progress("fuzz", 50, "examples", stream=stream, clock=clock, quiet=True) as progress:
            drive(progress, clock, 50, 1.0)
            progress.clear()
        assert stream.getvalue() == ""


def test_an_interrupted_block_says_where_it_stopped_and_unknown_work_says_how_long_so_far():
    clock, stream = Clock(), io.StringIO()
    try:
        with Progress("spec-check aslref:", 7163, stream=stream, clock=clock) as progress:
            drive(progress, clock, 2, 1.0)
            raise KeyboardInterrupt
    except KeyboardInterrupt:
        pass
    assert stream.getvalue() == "spec-check aslref:: 2 of 7163 cases in 2s (1 cases/s); stopped (KeyboardInterrupt)\n"
    clock, stream = Clock(), io.StringIO()
    progress = Progress("allure-html: generating", None, stream=stream, clock=clock)
    clock.now += 65
    progress.tick()
    assert stream.getvalue() == "allure-html: generating: 1m05s so far\n"
    clock.now += 1
    progress.finish()
    assert stream.getvalue().splitlines()[1] == "allure-html: generating: done in 1m06s"
    assert [duration(s) for s in (0.4, 59, 61, 3599, 7620)] == ["0s", "59s", "1m01s", "59m59s", "2h07m"]


def test_pto_avs_compare_shows_each_devices_progress_on_stderr_and_nothing_under_q(capsys):
    vector = bringup.Path(__file__).resolve().parents[2] / "vectors" / "PTO-AVS-TILE-TMULS-WIDTH-001.yaml"
    assert bringup.main(["--device", "mutant:tmuls-int-saturates", "--vectors", str(vector)]) == 1
    captured = capsys.readouterr()
    assert captured.err.splitlines() == [
        line for line in captured.err.splitlines() if line.startswith("compare ")]
    closing = [line.split(" in ")[0] + line[line.index(";"):] for line in captured.err.splitlines()]
    assert closing == ["compare mutant:tmuls-int-saturates: 19 cases; 14 failing or in error",
                       "compare golden:pto-v0: 19 cases; 0 failing or in error"]
    assert "compare mutant" not in captured.out  # the report on stdout is unchanged by progress
    assert bringup.main(["--device", "mutant:tmuls-int-saturates", "--vectors", str(vector), "-q"]) == 1
    assert capsys.readouterr().err == ""


def test_time_left_follows_the_rate_after_the_first_step_not_the_start_up():
    # A device that takes 100 s to start, then answers a case a second: 10 cases, 2 done at
    # 101 s leave 8 cases, 8 s (not the 400 s the average of 2 cases in 101 s would give).
    clock, stream = Clock(), io.StringIO()
    progress = Progress("spec-check aslref", 10, "cases", stream=stream, clock=clock, interval=0)
    clock.now += 100
    progress.advance()
    assert "left" not in stream.getvalue()  # one step: no rate after the start-up yet
    clock.now += 1
    progress.advance()
    assert stream.getvalue().splitlines()[-1] == "spec-check aslref: 2/10 cases (20.0%), 0.0198 cases/s, 8s left"
