"""The executable spec as a device: ``--device aslref:<spec checkout>[,option=value...]``.

Runs each case on the spec's own ASL under the ``aslref`` interpreter (herdtools7)
and maps the spec's state after the program onto the observation contract, so
the comparator judges the spec like any device. Profile ``pto-v0``. It models the
memory state of protocol 1.1 (memory, events, shared tiles, per-PE GPRs: README "How a
case runs") and refuses a case whose memory size is not the build's
``PTO_MODEL_MEMORY_BYTES``.

Options (comma-separated after the checkout; the checkout may also come from
``$PTO_AVS_SPEC``, the interpreter from ``$PTO_AVS_ASLREF``):

- ``aslref=PATH``    the interpreter (default ``$PTO_AVS_ASLREF``)
- ``batch=N``        cases per interpreter run (default 0: every case of an ``execute_batch`` call)
- ``timeout=S``      seconds without output before a run is given up (default 1800)
- ``case_time=S``    wall-time bound of a run: ``RUN_SECONDS`` (600 s: loading, type check, reset)
  plus S seconds per case of its batch (default 120), however much the interpreter prints
- ``reset=snapshot`` reset once per run and restore a snapshot of the spec's globals before each
  case (default); ``reset=fresh``: one interpreter run and ``ResetProfileState()`` per case (slow;
  the reference the snapshot shortcut is checked against)
- ``keep=DIR``       keep each run's program and output under DIR (each file written to a
  temporary file in its folder and renamed into place; a symlink planted there is replaced,
  never followed)

Bounds of one interpreter run: its wall time (above); what it prints on stdout, read as it
comes, one case at a time: at most ``MAX_CASE_OUTPUT_BYTES`` per case (and outside any
case); on stderr at most ``MAX_STDERR_BYTES`` (its last ``STDERR_TAIL_BYTES`` are read to word
an error). A run past a bound is stopped and the case it was in is a device error saying
which bound. The interpreter runs in its own process group (session) and the whole group is
ended after the run, so nothing it started outlives it.

Starting the interpreter and the spec's reset cost tens of seconds, so cases run in
batches: one interpreter run per batch. An ASL assertion or dynamic error ends the
run; that case gets a device error quoting the ASL message and its location in the
spec's sources, and the rest of the batch runs on in a new interpreter run.
"""
from __future__ import annotations

import os
import selectors
import signal
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from ...contract.case import ASPECTS, Case, Observation
from . import output, program
from .spec import SetupError, Spec, describe_error, locate, source_lines
from ..base import Capabilities, Device

DEFAULT_TIMEOUT = 1800.0  # seconds without output
DEFAULT_CASE_TIME = 120.0  # wall seconds per case of a run, on top of RUN_SECONDS
RUN_SECONDS = 600.0  # wall seconds of a run before its cases: loading, type check, reset
MAX_CASE_OUTPUT_BYTES = 64 * 1024 * 1024  # stdout of one case (the largest shipped case prints a few MB)
MAX_STDERR_BYTES = 16 * 1024 * 1024
STDERR_TAIL_BYTES = 256 * 1024
OPTIONS = ("aslref", "batch", "timeout", "case_time", "reset", "keep")


@dataclass
class Run:
    """What one interpreter run printed, read back."""

    answers: dict  # case number -> Observation, for each case printed whole
    started: set  # case numbers whose output began
    stderr: str  # its last STDERR_TAIL_BYTES
    returncode: Optional[int]  # None: stopped (see ``stopped``)
    stopped: Optional[str]  # why the run was stopped (a bound), or None
    assembled: list  # source_lines of the assembled program
    seconds: float


class AslrefDevice(Device):
    name = "aslref"

    def __init__(self, spec: Spec, batch: int = 0, timeout: float = DEFAULT_TIMEOUT, reset: str = "snapshot",
                 keep: Optional[Path] = None, case_time: float = DEFAULT_CASE_TIME):
        from ...device_model.layouts import MODEL_TILE_ELEMENTS

        config = spec.config()
        if config.get("PTO_MODEL_TILE_ELEMENTS") != MODEL_TILE_ELEMENTS:
            raise SetupError(f"the spec's PTO_MODEL_TILE_ELEMENTS is {config.get('PTO_MODEL_TILE_ELEMENTS')}, the "
                             f"golden model's copy (device_model/layouts.py) {MODEL_TILE_ELEMENTS}: keep them equal")
        if reset not in program.RESETS:
            raise SetupError(f"reset={reset}: expected one of {', '.join(program.RESETS)}")
        self.spec = spec
        self.memory_bytes = config.get("PTO_MODEL_MEMORY_BYTES")  # the build's memory size; a case must match
        self.batch = batch
        self.timeout = timeout
        self.case_time = case_time
        self.reset = reset
        self.keep = keep
        self.globals = spec.globals()
        self.contracts = spec.direct_contracts()
        self.runs: list[Run] = []  # every interpreter run of this device, for timing figures
        self.capabilities = Capabilities(
            profile="pto-v0", operations=spec_operations(), direct_calls=True,
            aspects=frozenset(a for a in ASPECTS if a != "encoding"),  # the spec runs words, it has no assembler
            extras={"spec": str(spec.root), "aslref": spec.aslref, "pinned": spec.pinned_commit},
            memory=True, events=True, shared_tiles=True, feature_maps=True)

    def supports(self, case: Case) -> Optional[str]:
        return super().supports(case) or self._memory_reason(case) or program.unsupported(case, self.contracts)

    def _memory_reason(self, case: Case) -> Optional[str]:
        """A case whose memory size is not the spec build's PTO_MODEL_MEMORY_BYTES cannot run on it (a
        ``config`` bound is fixed when the spec is built, as the tile bound is)."""
        if case.state.get("memory") is None and self.memory_bytes is None:
            return None  # (a build that states no memory bound runs a case that gives no memory)
        try:
            size = program.memory_size(case.state)
        except (TypeError, ValueError):
            return "the case's memory size is not an integer"
        if self.memory_bytes is None:
            return f"this spec build states no PTO_MODEL_MEMORY_BYTES; the case's memory is {size} bytes"
        if size != self.memory_bytes:
            return (f"the case's memory is {size} bytes; this spec build's PTO_MODEL_MEMORY_BYTES is "
                    f"{self.memory_bytes} (a config bound fixed when the spec is built)")
        return None

    def execute(self, case: Case) -> Observation:
        return self.execute_batch([case])[0]

    def execute_batch(self, cases: Iterable[Case]) -> list[Observation]:
        cases = list(cases)
        answers: list[Optional[Observation]] = [None] * len(cases)
        runnable = []  # (number, case, function text, step descriptions)
        for number, case in enumerate(cases):
            reason = self.supports(case)
            if reason is not None:
                answers[number] = Observation.device_error(reason)
                continue
            try:
                text, steps = program.case_function(number, case, self.contracts)
            except (ValueError, KeyError, TypeError) as exc:
                answers[number] = Observation.device_error(f"cannot write this case for the spec: {exc}")
                continue
            runnable.append((number, case, text, steps))
        size = 1 if self.reset == "fresh" else (self.batch or len(runnable) or 1)
        for start in range(0, len(runnable), size):
            for number, observation in self._run_all(runnable[start:start + size]).items():
                answers[number] = observation
        return answers

    # -- interpreter runs

    def _run_all(self, items: list) -> dict[int, Observation]:
        """Observations of ``items``; after a run that ends inside a case, the rest runs again."""
        answers: dict[int, Observation] = {}
        remaining = items
        while remaining:
            run = self._interpret(remaining)
            failed_at = None
            for position, (number, _case, _text, _steps) in enumerate(remaining):
                if number in run.answers:
                    answers[number] = run.answers[number]
                    continue
                failed_at = position
                break
            if failed_at is None:
                break
            number = remaining[failed_at][0]
            if number not in run.started:
                # Nothing of this case ran: the program failed before it (load, type check, reset).
                why = self._failure(run)
                for item in remaining[failed_at:]:
                    answers[item[0]] = Observation.device_error(f"the interpreter run failed before this case: {why}")
                break
            answers[number] = Observation.device_error(
                f"the interpreter run was stopped in this case: {run.stopped}" if run.stopped
                else f"ASL error in this case: {self._failure(run)}")
            remaining = remaining[failed_at + 1:]
        return answers

    def _failure(self, run: Run) -> str:
        if run.stopped:
            return run.stopped
        return f"{describe_error(run.stderr, run.assembled)} [exit status {run.returncode}]"

    def wall_bound(self, cases: int) -> float:
        """Wall seconds one interpreter run of ``cases`` cases may take."""
        return RUN_SECONDS + self.case_time * cases

    def _interpret(self, items: list) -> Run:
        functions = [(number, text) for number, _case, text, _steps in items]
        generated = program.batch_program(functions, self.globals, self.reset)
        with tempfile.TemporaryDirectory(prefix="pto-avs-aslref-") as scratch:
            work = Path(scratch)
            batch = work / "batch.asl"
            batch.write_text(generated)
            assembled = work / "program.asl"
            self.spec.assemble(assembled, program.HARNESS, batch)
            stream = output.CaseStream({number: steps for number, _case, _text, steps in items},
                                       MAX_CASE_OUTPUT_BYTES)
            kept = open(work / "stdout", "wb") if self.keep is not None else None
            start = time.perf_counter()
            try:
                def consume(data: bytes) -> Optional[str]:
                    if kept is not None:
                        kept.write(data)
                    return stream.feed(data)

                returncode, stopped, stderr = _watch(self.spec.command(assembled), self.spec.root, work / "stderr",
                                                     consume, self.timeout, self.wall_bound(len(items)))
            finally:
                if kept is not None:
                    kept.close()
            if stopped is None:
                stream.finish()
            run = Run(stream.answers, stream.started, stderr, returncode, stopped,
                      source_lines(assembled.read_text()), time.perf_counter() - start)
            if self.keep is not None:
                self._keep(work, len(self.runs) + 1)
        self.runs.append(run)
        return run

    def _keep(self, work: Path, number: int) -> None:
        """Copy the run's program and output into ``keep/run-NNNN``: each file through an
        exclusive temporary file in that folder, renamed into place (never through a link)."""
        self.keep.mkdir(parents=True, exist_ok=True)
        target = self.keep / f"run-{number:04d}"
        try:
            os.mkdir(target)  # (fails on anything already there, a link included)
        except FileExistsError:
            if target.is_symlink() or not target.is_dir():  # planted: keep this run beside it
                target = Path(tempfile.mkdtemp(prefix=f"run-{number:04d}.", dir=self.keep))
        for name in ("batch.asl", "stdout", "stderr"):
            _copy_atomically(work / name, target / name)


def spec_operations() -> frozenset:
    """Every operation of the spec's catalog: a bundle of any of them runs as words on the spec
    (a direct call runs where the spec has a direct-call contract the adapter can call)."""
    from ...contract import spec_data

    return frozenset(operation["name"] for operation in spec_data.load("tile-operations")["operations"])


def _copy_atomically(source: Path, target: Path) -> None:
    """``target`` becomes a copy of ``source``: written to an exclusive temporary file beside it
    (``mkstemp``: O_EXCL, never an existing name or a link), then renamed over ``target``
    (``os.replace`` replaces a link planted there, it does not write through it)."""
    fd, temporary = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    try:
        with os.fdopen(fd, "wb") as out, open(source, "rb") as data:
            while True:
                chunk = data.read(1 << 20)
                if not chunk:
                    break
                out.write(chunk)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(temporary, 0o666 & ~umask)
        os.replace(temporary, target)
    except BaseException:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        raise


def _end_group(process: subprocess.Popen) -> None:
    """End the interpreter and everything it started (its process group)."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    if process.poll() is None:
        process.kill()
    process.wait()


def _watch(command: list[str], cwd: Path, stderr_path: Path, consume, silence: float,
           wall: float) -> tuple[Optional[int], Optional[str], str]:
    """Run ``command`` in its own process group, passing its stdout to ``consume`` as it comes;
    stop it (and all it started) when it prints nothing for ``silence`` seconds, runs past
    ``wall`` seconds, writes more than ``MAX_STDERR_BYTES`` on stderr, or ``consume`` returns
    a problem. Returns (exit status or None when stopped, why it was stopped, the tail of stderr)."""
    with open(stderr_path, "w+b") as errors:
        process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=errors, start_new_session=True)
        selector = selectors.DefaultSelector()
        selector.register(process.stdout, selectors.EVENT_READ)
        returncode: Optional[int] = None
        stopped: Optional[str] = None
        started = last = time.monotonic()
        try:
            while True:
                now = time.monotonic()
                if now - started >= wall:
                    stopped = f"ran past its wall-time bound of {wall:.0f} s; the interpreter run was stopped"
                    break
                if now - last >= silence:
                    stopped = f"no output for {silence:.0f} s; the interpreter run was stopped"
                    break
                if os.fstat(errors.fileno()).st_size > MAX_STDERR_BYTES:
                    stopped = f"more than {MAX_STDERR_BYTES} bytes on stderr; the interpreter run was stopped"
                    break
                if not selector.select(max(0.0, min(1.0, started + wall - now, last + silence - now))):
                    continue
                data = os.read(process.stdout.fileno(), 1 << 16)
                if not data:
                    try:
                        returncode = process.wait(timeout=max(0.0, min(silence, started + wall - time.monotonic())))
                    except subprocess.TimeoutExpired:
                        stopped = "closed its output but did not exit; the interpreter run was stopped"
                    break
                last = time.monotonic()
                stopped = consume(data)
                if stopped:
                    break
        finally:
            selector.close()
            process.stdout.close()
            _end_group(process)
        size = os.fstat(errors.fileno()).st_size
        errors.seek(max(0, size - STDERR_TAIL_BYTES))
        stderr = errors.read(STDERR_TAIL_BYTES).decode(errors="replace")
    return returncode, stopped, stderr


def _number(key: str, value: str, kind):
    try:
        number = kind(value)
    except ValueError:
        raise ValueError(f"aslref option {key}={value!r}: expected a number"
                         f"{' (an integer)' if kind is int else ' of seconds'}") from None
    if number < 0 or number != number:
        raise ValueError(f"aslref option {key}={value!r}: must not be negative")
    return number


def open_device(arg: Optional[str]) -> AslrefDevice:
    """``aslref:[CHECKOUT][,aslref=PATH][,batch=N][,timeout=S][,case_time=S][,reset=snapshot|fresh][,keep=DIR]``."""
    parts = (arg or "").split(",")
    checkout, settings = parts[0] or None, {}
    for part in parts[1:]:
        key, sep, value = part.partition("=")
        if not sep or key not in OPTIONS:
            raise ValueError(f"aslref option {part!r}: expected one of {', '.join(o + '=' for o in OPTIONS)}")
        settings[key] = value
    batch = _number("batch", settings.get("batch", "0"), int)
    timeout = _number("timeout", settings.get("timeout", str(DEFAULT_TIMEOUT)), float)
    case_time = _number("case_time", settings.get("case_time", str(DEFAULT_CASE_TIME)), float)
    try:
        spec = locate(checkout, settings.get("aslref"))
        return AslrefDevice(spec, batch=batch, timeout=timeout, case_time=case_time,
                            reset=settings.get("reset", "snapshot"),
                            keep=Path(settings["keep"]) if "keep" in settings else None)
    except SetupError as exc:
        raise ValueError(f"aslref device: {exc}") from None
