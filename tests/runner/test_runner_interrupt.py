"""Interrupted runs (issue 12): ``pytest avs/ -n 2 --record F --alluredir D`` stopped by
SIGINT, SIGTERM or the death of its controller.

- "device answers recorded to F" is printed only when F exists and is complete;
- a run cut short writes F marked incomplete in its header (or not at all), and
  ``replay:F`` refuses it unless asked for a partial replay (``replay:partial:F``);
- when the controller dies, the xdist workers stop at once and write nothing more.

The device is a small JSON-lines program that takes its time over every request, so
the run is still going when it is signalled; what it answers does not matter here.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pto_avs.plugins.base import open_device
from pto_avs.plugins.replay import Recording

pytestmark = pytest.mark.slow  # each test interrupts real pytest runs (signals, xdist workers)

ROOT = Path(__file__).resolve().parents[2]
CASES = 400
RECORDED = "device answers recorded to"

SLOW_DEVICE = textwrap.dedent('''
    import json, sys, time
    pause = float(sys.argv[1])
    print(json.dumps({"type": "hello", "protocol": "pto-avs-device", "version": "1.0", "device": "slow",
                      "capabilities": {"profile": "pto-v0", "operations": ["TMULS"], "direct_calls": True}}),
          flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        if request["type"] != "execute":
            break
        time.sleep(pause)
        results = [{"id": case["id"], "observation": {"fault": None, "flags": 0, "tiles": {}}}
                   for case in request["cases"]]
        print(json.dumps({"type": "results", "batch": request["batch"], "results": results}), flush=True)
''')

VECTOR_HEAD = textwrap.dedent('''
    format: pto-avs-vector/1
    id: PTO-AVS-X-INTERRUPT-TMULS-001
    operation: TMULS
    kind: execution
    exercises: [ADR-0081, PTO-INST-TILE-TMULS]
    provenance: Hand derivation, U8 7 times 3 is 21.
    cases:
''')
VECTOR_CASE = textwrap.dedent('''
      - name: u8-seven-times-three-{n}
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


# The run starts as from a terminal: SIGINT delivered and with its default action, whatever this
# test process inherited (a signal mask is inherited across exec: a harness that starts the tests
# with SIGINT blocked made every run here ignore Ctrl-C and go on to the last case). The launcher
# execs pytest in place, so the run keeps its pid and session.
TERMINAL_LAUNCH = (sys.executable, "-c",
                   "import os, signal, sys; signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGINT, signal.SIGTERM]); "
                   "signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.executable, [sys.executable, *sys.argv[1:]])")


class Run:
    """``pytest avs/ -n 2 --record F --alluredir D`` on the slow device, in its own session."""

    def __init__(self, tmp_path: Path, pause: float, workers: int = 2, extra: tuple = ()):
        (tmp_path / "vectors").mkdir()
        (tmp_path / "vectors" / "PTO-AVS-X-INTERRUPT-TMULS-001.yaml").write_text(
            VECTOR_HEAD + "".join(VECTOR_CASE.format(n=n) for n in range(CASES)))
        (tmp_path / "slow.py").write_text(SLOW_DEVICE)
        self.record = tmp_path / "F.json"
        self.alluredir = tmp_path / "D"
        command = [*TERMINAL_LAUNCH, "-m", "pytest", "avs/", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                   "--vectors-only", "--vectors", str(tmp_path / "vectors"), "--batch-size", "1",
                   "--device", f"process:{sys.executable} {tmp_path / 'slow.py'} {pause}",
                   "--record", str(self.record), "--alluredir", str(self.alluredir)]
        if workers:
            command += ["-n", str(workers)]
        command += extra
        self.log = open(tmp_path / "out.txt", "w+")
        self.process = subprocess.Popen(command, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT,
                                        start_new_session=True)

    def results(self) -> set:
        try:
            return {p.name for p in self.alluredir.iterdir() if p.name.endswith("-result.json")}
        except FileNotFoundError:
            return set()

    def wait_for_results(self, count: int, timeout: float = 240) -> set:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            found = self.results()
            if len(found) >= count:
                return found
            assert self.process.poll() is None, self.output()
            time.sleep(0.02)
        pytest.fail(f"fewer than {count} results after {timeout} s:\n{self.output()}")

    def workers(self) -> list[int]:
        """The controller's child processes (its xdist workers)."""
        children = []
        for entry in Path("/proc").iterdir():
            if entry.name.isdigit():
                try:
                    stat = (entry / "stat").read_text()
                except OSError:
                    continue
                if int(stat.rpartition(")")[2].split()[1]) == self.process.pid:
                    children.append(int(entry.name))
        return children

    def output(self) -> str:
        self.log.seek(0)
        return self.log.read()

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.log.close()


@pytest.fixture
def run(tmp_path):
    runs = []

    def start(pause: float, workers: int = 2, extra: tuple = ()) -> Run:
        runs.append(Run(tmp_path, pause, workers, extra))
        return runs[-1]

    yield start
    for r in runs:
        r.stop()


def alive(pid: int) -> bool:
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rpartition(")")[2].split()[0] != "Z"


def assert_incomplete_or_absent(path: Path, output: str) -> None:
    """F is not there, or it says it is incomplete and replay refuses it unless asked."""
    assert RECORDED not in output, output
    if not path.exists():
        return
    header = json.loads(path.read_text())
    assert header["complete"] is False and header["incomplete"].startswith("run interrupted"), header
    assert "INCOMPLETE recording (run interrupted" in output and f"replay:partial:{path}" in output, output
    with pytest.raises(ValueError, match=r"is incomplete \(run interrupted.*--device replay:partial:"):
        open_device(f"replay:{path}")
    device = open_device(f"replay:partial:{path}")
    assert device.cases, "a partial replay plays the answers the file holds"


def test_sigint_to_the_controller(run):
    r = run(pause=0.2)
    r.wait_for_results(6)
    r.process.send_signal(signal.SIGINT)
    assert r.process.wait(timeout=120) == 2, r.output()
    assert_incomplete_or_absent(r.record, r.output())


def test_sigint_to_the_whole_run(run):
    """Ctrl-C in a terminal: the controller and its workers all get SIGINT."""
    r = run(pause=0.2)
    r.wait_for_results(6)
    os.killpg(r.process.pid, signal.SIGINT)
    assert r.process.wait(timeout=120) == 2, r.output()
    assert_incomplete_or_absent(r.record, r.output())


def test_sigint_without_xdist_writes_an_incomplete_recording(run):
    r = run(pause=0.05, workers=0)
    r.wait_for_results(6)
    r.process.send_signal(signal.SIGINT)
    assert r.process.wait(timeout=120) == 2, r.output()
    assert r.record.exists(), r.output()
    assert_incomplete_or_absent(r.record, r.output())
    assert len(Recording.read(r.record).devices.popitem()[1]["cases"]) >= 6


@pytest.mark.parametrize("workers", [0, 2])
def test_sigterm_to_the_controller_stops_it_like_sigint(run, workers):
    """SIGTERM (what `timeout`, CI runners and `kill` send) stops the controller like Ctrl-C:
    without xdist the answers so far are written, marked incomplete (the default action of
    SIGTERM wrote nothing)."""
    r = run(pause=0.2 if workers else 0.05, workers=workers)
    r.wait_for_results(6)
    r.process.send_signal(signal.SIGTERM)
    assert r.process.wait(timeout=120) == 2, r.output()
    assert "KeyboardInterrupt: SIGTERM" in r.output()
    assert_incomplete_or_absent(r.record, r.output())
    if not workers:
        assert len(Recording.read(r.record).devices.popitem()[1]["cases"]) >= 6


@pytest.mark.parametrize("how", [signal.SIGKILL])
def test_workers_stop_when_the_controller_dies(run, how):
    """Each request takes the device 3 s. The controller dies just after a result was written,
    while both workers wait for their next answer: they must be gone within a second, and
    nothing may appear in the results folder afterwards (no result of the case in flight)."""
    r = run(pause=3.0)
    r.wait_for_results(2)
    time.sleep(0.5)  # the results of those answers are written; the next answers are 2.5 s away
    before = r.results()
    workers = r.workers()
    assert len(workers) == 2, workers
    r.process.send_signal(how)
    r.process.wait(timeout=30)
    deadline = time.monotonic() + 1.0
    while any(map(alive, workers)) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not any(map(alive, workers)), f"workers {workers} still run after the controller died"
    time.sleep(4.0)  # past the answer the device was computing
    assert r.results() - before == set()
    assert RECORDED not in r.output() and not r.record.exists()


def test_a_complete_run_says_recorded(run):
    r = run(pause=0.0)
    assert r.process.wait(timeout=600) == 1, r.output()  # every case fails: the device observes nothing
    output = r.output()
    assert f"{RECORDED} {r.record}" in output and "INCOMPLETE" not in output
    saved = Recording.read(r.record)
    assert saved.complete and json.loads(r.record.read_text())["complete"] is True
    assert len(saved.devices.popitem()[1]["cases"]) == CASES


def test_replay_refuses_an_incomplete_recording_unless_asked(tmp_path):
    caps = {"profile": "pto-v0", "operations": ["TMULS"], "dtypes": None, "aspects": ["payload"],
            "direct_calls": True}
    cases = {"PTO-AVS-X-INTERRUPT-TMULS-001::u8-seven-times-three-0": {"observation": {"fault": None, "tiles": {}}}}
    incomplete = tmp_path / "cut.json"
    incomplete.write_text(json.dumps({"format": "pto-avs-recording/1", "complete": False,
                                      "incomplete": "run interrupted", "devices": {"lab": {
                                          "capabilities": caps, "cases": cases}}}))
    with pytest.raises(ValueError, match=rf"recording {incomplete} is incomplete \(run interrupted\): .*"
                                         rf"--device replay:partial:{incomplete}$"):
        open_device(f"replay:{incomplete}")
    assert open_device(f"replay:partial:{incomplete}@lab").cases == cases
    # no 'complete' member (a recording written before it existed, or by hand): complete
    older = tmp_path / "older.json"
    older.write_text(json.dumps({"format": "pto-avs-recording/1", "devices": {"lab": {
        "capabilities": caps, "cases": cases}}}))
    assert open_device(f"replay:{older}").cases == cases
    # merging keeps every reason; a recording says it is complete only when none is left
    merged = Recording.read(older)
    merged.merge(Recording.read(incomplete))
    merged.mark_incomplete("worker gw1 went down (crashed)")
    assert merged.to_json()["complete"] is False
    assert merged.to_json()["incomplete"] == "run interrupted; worker gw1 went down (crashed)"


def test_a_run_stopped_by_maxfail_is_incomplete(run):
    r = run(pause=0.0, workers=0, extra=("-x",))
    r.process.wait(timeout=600)
    assert r.process.returncode == 1  # the first case fails: the device observes nothing
    output = r.output()
    assert RECORDED not in output, output
    header = json.loads(r.record.read_text())
    assert header["complete"] is False and header["incomplete"] == "run stopped early: stopping after 1 failures"


def test_ctrl_c_under_two_workers_does_not_wait_for_a_busy_device(run):
    """Ctrl-C in a terminal (SIGINT to the whole run) while both devices are in the middle of a
    120 s request: the run returns long before they would answer (their process groups are
    killed, not asked to finish). The bound leaves room for a loaded machine; the figure is printed."""
    r = run(pause=120.0)
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and len([p for p in r.workers() if alive(p)]) < 2:
        time.sleep(0.05)
    time.sleep(20.0)  # both workers started, opened their device and sent it a 120 s request
    sent = time.monotonic()
    os.killpg(r.process.pid, signal.SIGINT)
    assert r.process.wait(timeout=110) == 2, r.output()
    returned = time.monotonic() - sent
    print(f"Ctrl-C under -n 2 returned in {returned:.1f} s")
    assert returned < 60, r.output()
    assert_incomplete_or_absent(r.record, r.output())


SLOW_TO_END = textwrap.dedent('''
    import gc, time

    def _timing(phase, info):  # Python code inside every collection, as hypothesis's gc timing callback;
        for _ in range(20000):  # nearly all the time is spent here, so that is where a signal lands
            time.perf_counter

    def pytest_unconfigure(config):
        if hasattr(config, "workerinput"):  # a worker ending slowly, as on a loaded machine
            gc.callbacks.append(_timing)
            end = time.monotonic() + 8
            while time.monotonic() < end:
                gc.collect()
''')


def test_a_worker_slow_to_end_prints_no_keyboard_interrupt(tmp_path):
    """The stray PytestUnraisableExceptionWarning ending in KeyboardInterrupt of a green run:
    execnet sends SIGINT to a worker still running 5 s after the controller closed it, and the
    KeyboardInterrupt landed in a gc callback. A worker that has handed its results over now
    ends at once on that SIGINT. (Without the pto_avs plugin, -p no:pto_avs, the same run printed
    the warning, its traceback in _timing ending in KeyboardInterrupt, in some runs: where the
    signal lands is up to the machine, so only the fixed side is asserted.)"""
    (tmp_path / "conftest.py").write_text(SLOW_TO_END)
    (tmp_path / "test_one.py").write_text("def test_one():\n    pass\n")
    command = [sys.executable, "-m", "pytest", "-q", "-n", "1", "-p", "no:randomly", "-p", "no:cacheprovider", "test_one.py"]
    done = subprocess.run(command, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "1 passed" in done.stdout, done.stdout + done.stderr
    assert "KeyboardInterrupt" not in done.stdout + done.stderr, done.stdout + done.stderr
