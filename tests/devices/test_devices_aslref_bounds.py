"""The spec device's bounds, on a stand-in checkout and interpreter (shell scripts): every
interpreter run ends (wall time as well as silence), its output is read as it comes within a
bound per case, what the interpreter started ends with it, and ``keep=DIR`` never writes
through a link planted there.

Each check runs the device in a child process with a deadline, so a device that would hang
fails the test instead of hanging the run."""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from pto_avs.plugins.aslref import output
from pto_avs.plugins.base import open_device

pytestmark = pytest.mark.slow  # runs stand-in interpreters until their time and output bounds stop them

DEADLINE = 60  # seconds a child may take before the test calls it a hang


def stand_in_checkout(tmp_path: Path, interpreter: str) -> tuple[Path, Path]:
    """A checkout the device accepts (its build/pto-spec.asl holds the one config bound it checks,
    its assembler concatenates) and an interpreter running the shell text ``interpreter``."""
    root = tmp_path / "spec"
    (root / "build").mkdir(parents=True)
    (root / "scripts").mkdir()
    (root / "build" / "pto-spec.asl").write_text("config PTO_MODEL_TILE_ELEMENTS : integer = 32768;\n")
    assembler = root / "scripts" / "assemble-asl"
    assembler.write_text('#!/bin/sh\nout="$1"; shift; cat "$@" > "$out"\n')
    aslref = tmp_path / "aslref"
    aslref.write_text("#!/bin/sh\n" + interpreter)
    for script in (assembler, aslref):
        script.chmod(0o755)
    return root, aslref


def run_device(tmp_path: Path, interpreter: str, options: str = "", bounds: dict | None = None,
               cases: int = 1) -> dict:
    """Run ``cases`` copies of one case on the stand-in device in a child process: its answers'
    errors, the seconds it took, and its exit status."""
    root, aslref = stand_in_checkout(tmp_path, interpreter)
    probe = textwrap.dedent(f"""
        import json, sys, time
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from pto_avs.plugins.aslref import device
        from pto_avs.plugins.base import open_device
        from test_devices_aslref import spec_test_case
        for name, value in {bounds or {}!r}.items():
            setattr(device, name, value)
        spec = open_device({f"aslref:{root},aslref={aslref}{options}"!r})
        start = time.monotonic()
        answers = spec.execute_batch([spec_test_case(f"case-{{i}}") for i in range({cases})])
        print(json.dumps({{"errors": [a.error for a in answers], "seconds": time.monotonic() - start}}))
    """)
    try:
        done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=DEADLINE,
                              env={**os.environ, "STAND_IN": str(tmp_path)})
    except subprocess.TimeoutExpired:
        pytest.fail(f"the device did not finish within {DEADLINE} s")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_an_interpreter_that_keeps_printing_is_stopped_by_the_wall_time_bound(tmp_path):
    """Before: only silence was timed, so a line every 0.2 s kept the run alive for ever."""
    result = run_device(tmp_path, "while true; do echo tick; sleep 0.2; done\n", ",timeout=5,case_time=1",
                        {"RUN_SECONDS": 2.0}, cases=2)
    assert result["errors"] == ["the interpreter run failed before this case: ran past its wall-time bound "
                                "of 4 s; the interpreter run was stopped"] * 2
    assert result["seconds"] < 20


def test_the_wall_time_bound_scales_with_the_batch_and_is_documented():
    from pto_avs.plugins.aslref import device

    assert "wall-time bound" in device.__doc__ and "case_time=S" in device.__doc__
    stub = device.AslrefDevice.__new__(device.AslrefDevice)
    stub.case_time = 120.0
    assert stub.wall_bound(1) == device.RUN_SECONDS + 120 and stub.wall_bound(500) == device.RUN_SECONDS + 60000


def test_output_past_the_bound_of_one_case_stops_the_run_and_is_that_cases_device_error(tmp_path):
    """Before: the whole output was kept in memory (3.5 GB of it: MemoryError)."""
    result = run_device(tmp_path, "echo 'C 0'; while true; do echo 'R 0:1:7 1:1:9 2:1:0 3:1:0'; done\n",
                        ",timeout=30", {"MAX_CASE_OUTPUT_BYTES": 1 << 20})
    assert result["errors"] == ["the interpreter run was stopped in this case: case 0 printed more than 1048576 "
                                "bytes, the bound of one case's output; the interpreter run was stopped"]


def test_one_endless_line_is_bounded_too(tmp_path):
    result = run_device(tmp_path, "echo 'C 0'; tr -d '\\n' < /dev/zero\n", ",timeout=30",
                        {"MAX_CASE_OUTPUT_BYTES": 1 << 20})
    assert "case 0 printed more than 1048576 bytes" in result["errors"][0]


def test_what_the_interpreter_started_ends_with_its_run(tmp_path):
    """Before: only the interpreter was killed; what it started was left running with parent 1."""
    run_device(tmp_path, 'sleep 300 </dev/null >/dev/null 2>&1 &\necho $! > "$STAND_IN/child"\n'
                         "echo 'ASL Dynamic error: stand-in.' >&2\nexit 3\n", ",timeout=30")
    child = int((tmp_path / "child").read_text())
    for _ in range(50):
        try:
            state = Path(f"/proc/{child}/stat").read_text().split(")")[-1].split()[0]
        except FileNotFoundError:
            break
        if state == "Z":
            break
        time.sleep(0.1)
    else:
        os.kill(child, 9)
        pytest.fail(f"process {child}, started by the interpreter, outlived the run")


def test_an_asl_error_still_names_the_message(tmp_path):
    result = run_device(tmp_path, "echo 'C 0'; echo 'ASL Dynamic error: stand-in failure.' >&2; exit 1\n")
    assert result["errors"] == ["ASL error in this case: ASL Dynamic error: stand-in failure. [exit status 1]"]


def test_keep_replaces_planted_links_and_never_writes_through_them(tmp_path):
    """Before: ``keep=DIR`` wrote run files through symlinks planted in DIR."""
    keep = tmp_path / "keep"
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    (keep / "run-0001").mkdir(parents=True)
    for name in ("batch.asl", "stdout", "stderr"):
        (keep / "run-0001" / name).symlink_to(victim)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (keep / "run-0002").symlink_to(elsewhere)
    interpreter = "echo 'C 0'; echo 'ASL Dynamic error: stand-in.' >&2; exit 1\n"
    run_device(tmp_path, interpreter, f",keep={keep},batch=1", cases=2)
    assert victim.read_text() == "precious\n" and list(elsewhere.iterdir()) == []
    first = keep / "run-0001"
    assert not any((first / n).is_symlink() for n in ("batch.asl", "stdout", "stderr"))
    assert (first / "stdout").read_text() == "C 0\n" and "stand-in" in (first / "stderr").read_text()
    [second] = [p for p in keep.iterdir() if p.name.startswith("run-0002.")]
    assert (second / "stdout").read_text() == "C 0\n"


@pytest.mark.parametrize("option, message", [
    ("batch=many", "aslref option batch='many': expected a number (an integer)"),
    ("timeout=soon", "aslref option timeout='soon': expected a number of seconds"),
    ("case_time=-1", "aslref option case_time='-1': must not be negative"),
])
def test_a_bad_option_value_names_the_option(tmp_path, option, message):
    """Before: batch=many said only ``invalid literal for int() with base 10``."""
    with pytest.raises(ValueError) as raised:
        open_device(f"aslref:{tmp_path},{option}")
    assert str(raised.value) == message


def test_the_stream_reads_cases_as_they_come_and_keeps_none_it_finished():
    stream = output.CaseStream({3: [], 4: []}, 1 << 20)
    text = (b"noise\nC 3\nF Fault_None\nN 16\nU 0\nQ 3\nC 4\nF Fault_None\nN 0\nU 0\nQ 4\n")
    for i in range(0, len(text), 5):  # lines split across chunks
        assert stream.feed(text[i:i + 5]) is None
    stream.finish()
    assert sorted(stream.answers) == [3, 4] and stream.answers[3].flags == 16 and stream.lines == []
    assert stream.started == {3, 4}
