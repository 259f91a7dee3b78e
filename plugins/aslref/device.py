"""The executable spec as a device: ``--device aslref:<spec checkout>[,option=value...]``.

Runs each case on the spec's own ASL under the ``aslref`` interpreter (herdtools7)
and maps the spec's state after the program onto the observation contract, so
the comparator judges the spec like any device. Profile ``pto-v0``.

Options (comma-separated after the checkout; the checkout may also come from
``$PTO_AVS_SPEC``, the interpreter from ``$PTO_AVS_ASLREF``):

- ``aslref=PATH``    the interpreter (default ``$PTO_AVS_ASLREF``)
- ``batch=N``        cases per interpreter run (default 0: every case of an ``execute_batch`` call)
- ``timeout=S``      seconds without output before a run is given up (default 1800)
- ``reset=snapshot`` reset once per run and restore a snapshot of the spec's globals before each
  case (default); ``reset=fresh``: one interpreter run and ``ResetProfileState()`` per case (slow;
  the reference the snapshot shortcut is checked against)
- ``keep=DIR``       keep each run's program and output under DIR

Starting the interpreter and the spec's reset cost tens of seconds, so cases run in
batches: one interpreter run per batch. An ASL assertion or dynamic error ends the
run; that case gets a device error quoting the ASL message and its location in the
spec's sources, and the rest of the batch runs on in a new interpreter run.
"""
from __future__ import annotations

import os
import selectors
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

DEFAULT_TIMEOUT = 1800.0
OPTIONS = ("aslref", "batch", "timeout", "reset", "keep")


@dataclass
class Run:
    """What one interpreter run printed."""

    stdout: str
    stderr: str
    returncode: Optional[int]  # None: given up after the timeout
    assembled: list  # source_lines of the assembled program
    seconds: float


class AslrefDevice(Device):
    name = "aslref"

    def __init__(self, spec: Spec, batch: int = 0, timeout: float = DEFAULT_TIMEOUT, reset: str = "snapshot",
                 keep: Optional[Path] = None):
        from ...device_model.layouts import MODEL_TILE_ELEMENTS

        config = spec.config()
        if config.get("PTO_MODEL_TILE_ELEMENTS") != MODEL_TILE_ELEMENTS:
            raise SetupError(f"the spec's PTO_MODEL_TILE_ELEMENTS is {config.get('PTO_MODEL_TILE_ELEMENTS')}, the "
                             f"golden model's copy (device_model/layouts.py) {MODEL_TILE_ELEMENTS}: keep them equal")
        if reset not in program.RESETS:
            raise SetupError(f"reset={reset}: expected one of {', '.join(program.RESETS)}")
        self.spec = spec
        self.batch = batch
        self.timeout = timeout
        self.reset = reset
        self.keep = keep
        self.globals = spec.globals()
        self.contracts = spec.direct_contracts()
        self.runs: list[Run] = []  # every interpreter run of this device, for timing figures
        self.capabilities = Capabilities(
            profile="pto-v0", operations=spec_operations(), direct_calls=True,
            aspects=frozenset(a for a in ASPECTS if a != "encoding"),  # the spec runs words, it has no assembler
            extras={"spec": str(spec.root), "aslref": spec.aslref, "pinned": spec.pinned_commit})

    def supports(self, case: Case) -> Optional[str]:
        return super().supports(case) or program.unsupported(case, self.contracts)

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
            printed = output.split_cases(run.stdout)
            failed_at = None
            for position, (number, _case, _text, steps) in enumerate(remaining):
                got = printed.get(number)
                if got is not None and got.complete:
                    answers[number] = output.observation(got, steps)
                    continue
                failed_at = position
                break
            if failed_at is None:
                break
            number = remaining[failed_at][0]
            if number not in printed:
                # Nothing of this case ran: the program failed before it (load, type check, reset).
                why = self._failure(run)
                for item in remaining[failed_at:]:
                    answers[item[0]] = Observation.device_error(f"the interpreter run failed before this case: {why}")
                break
            answers[number] = Observation.device_error(f"ASL error in this case: {self._failure(run)}")
            remaining = remaining[failed_at + 1:]
        return answers

    def _failure(self, run: Run) -> str:
        if run.returncode is None:
            return f"no output for {self.timeout:.0f} s; the interpreter run was stopped"
        return f"{describe_error(run.stderr, run.assembled)} [exit status {run.returncode}]"

    def _interpret(self, items: list) -> Run:
        functions = [(number, text) for number, _case, text, _steps in items]
        generated = program.batch_program(functions, self.globals, self.reset)
        with tempfile.TemporaryDirectory(prefix="pto-avs-aslref-") as scratch:
            work = Path(scratch)
            batch = work / "batch.asl"
            batch.write_text(generated)
            assembled = work / "program.asl"
            self.spec.assemble(assembled, program.HARNESS, batch)
            start = time.perf_counter()
            stdout, stderr, returncode = _watch(self.spec.command(assembled), self.spec.root, work / "stderr",
                                                self.timeout)
            run = Run(stdout, stderr, returncode, source_lines(assembled.read_text()), time.perf_counter() - start)
            if self.keep is not None:
                self._keep(work, run)
        self.runs.append(run)
        return run

    def _keep(self, work: Path, run: Run) -> None:
        target = self.keep / f"run-{len(self.runs) + 1:04d}"
        target.mkdir(parents=True, exist_ok=True)
        for name in ("batch.asl",):
            (target / name).write_text((work / name).read_text())
        (target / "stdout").write_text(run.stdout)
        (target / "stderr").write_text(run.stderr)


def spec_operations() -> frozenset:
    """Every operation of the spec's catalog: a bundle of any of them runs as words on the spec
    (a direct call runs where the spec has a direct-call contract the adapter can call)."""
    from ...contract import spec_data

    return frozenset(operation["name"] for operation in spec_data.load("tile-operations")["operations"])


def _watch(command: list[str], cwd: Path, stderr_path: Path, timeout: float) -> tuple[str, str, Optional[int]]:
    """Run ``command``; stop it when it prints nothing for ``timeout`` seconds (returncode None)."""
    chunks = []
    with open(stderr_path, "w+b") as errors:
        process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=errors)
        selector = selectors.DefaultSelector()
        selector.register(process.stdout, selectors.EVENT_READ)
        returncode: Optional[int] = None
        try:
            while True:
                if not selector.select(timeout):
                    process.kill()
                    process.wait()
                    break
                data = os.read(process.stdout.fileno(), 1 << 16)
                if not data:
                    returncode = process.wait()
                    break
                chunks.append(data)
        finally:
            selector.close()
            process.stdout.close()
            if process.poll() is None:
                process.kill()
                process.wait()
        errors.seek(0)
        stderr = errors.read().decode(errors="replace")
    return b"".join(chunks).decode(errors="replace"), stderr, returncode


def open_device(arg: Optional[str]) -> AslrefDevice:
    """``aslref:[CHECKOUT][,aslref=PATH][,batch=N][,timeout=S][,reset=snapshot|fresh][,keep=DIR]``."""
    parts = (arg or "").split(",")
    checkout, settings = parts[0] or None, {}
    for part in parts[1:]:
        key, sep, value = part.partition("=")
        if not sep or key not in OPTIONS:
            raise ValueError(f"aslref option {part!r}: expected one of {', '.join(o + '=' for o in OPTIONS)}")
        settings[key] = value
    try:
        spec = locate(checkout, settings.get("aslref"))
        return AslrefDevice(spec, batch=int(settings.get("batch", 0)),
                            timeout=float(settings.get("timeout", DEFAULT_TIMEOUT)),
                            reset=settings.get("reset", "snapshot"),
                            keep=Path(settings["keep"]) if "keep" in settings else None)
    except SetupError as exc:
        raise ValueError(f"aslref device: {exc}") from None
