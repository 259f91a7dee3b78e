"""``pto-avs spec-check``: every shipped ``pto-v0`` case on the executable spec, agreement per operation.

    pto-avs spec-check [--device aslref:<checkout>] [--record FILE.json.gz [--update]] [--no-golden]
                       [ID[::CASE] ...] [--op OP] [--adr ADR-NNNN] [-k EXPR] [-m EXPR] [-n N | --tx SPEC ...]

Runs the cases on the spec device (default ``aslref:`` with ``$PTO_AVS_SPEC`` and
``$PTO_AVS_ASLREF``), judges each answer against its vector with the ordinary
comparator, and prints per operation the counts of pass, fail, device error, not
observable and not supported, then every case that does not pass with the
comparator's first divergence. Unless ``--no-golden``, the golden model runs the
same cases and both rates (cases per second) are printed. ``--record`` writes the
spec's answers as a replay recording (``--device replay:FILE``); given
``vectors/recordings/aslref-pto-v0.json.gz`` it refreshes the committed recording
that CI replays. ``--update`` keeps the answers the file holds for unchanged cases
and runs only new or changed ones. Cases run 500 at a time and, with ``--record``,
the answers so far are written after each 500 (marked incomplete until the end), so
a refresh that is stopped resumes with ``--update``.

The suite's selection (vector IDs, ``--op``, ``--adr``, ``-k``, ``-m``) narrows the
cases as in ``pytest avs/`` (``avs/campaigns/selection.py``). ``-n N`` or ``--tx SPEC``
hands the cases to pytest-xdist workers, local or remote (``avs/campaigns/workers.py``):
each worker records its part and the parts are merged into one recording, written
whole or not at all at the end (no answers are written while it runs; a run cut short
writes nothing but, with ``--record``, the answers it holds marked incomplete).

Exit status: 0 every case passes (or is not observable), 1 a case fails or is a
device error, 2 the run cannot be set up.
"""
from __future__ import annotations

import argparse
import collections
import sys
import time
from pathlib import Path

DESCRIPTION = "run every shipped pto-v0 case on the executable spec (aslref device); agreement per operation"
PROFILE = "pto-v0"
RECORDING = Path(__file__).resolve().parent.parent / "vectors" / "recordings" / "aslref-pto-v0.json.gz"
RECORDING_LABEL = "aslref"
CHUNK = 500  # cases per execute_batch; with --record the answers so far are written after each
OUTCOMES = ("pass", "fail", "device error", "not observable", "not supported")


def shipped_cases(paths=None, args=None) -> list:
    """Every loaded case that holds under pto-v0, or those the suite's selection in ``args`` picks
    (raises ValueError naming a broken vector file, or saying why the selection cannot be made)."""
    from ..contract.loader import VECTORS_DIR, VectorError, load_paths
    from .campaigns import selection

    if args is not None and selection.selects(args):
        picked = selection.collect(args, paths or [VECTORS_DIR], (PROFILE,))
        if picked.vector_errors:
            raise ValueError(picked.vector_errors[0].message)
        if not picked.cases:
            raise ValueError("the selection holds no pto-v0 case")
        return picked.cases
    cases = []
    for loaded in load_paths(paths or [VECTORS_DIR]):
        broken = [loaded.error] if loaded.error is not None else [e for e in loaded.entries if isinstance(e, VectorError)]
        if broken:
            raise ValueError(broken[0].message)
        cases += [case for case in loaded.cases if PROFILE in case.profiles]
    return cases


def recorded_answers(path: Path, cases: list) -> dict:
    """Observations a recording holds for ``cases`` whose state and program are unchanged."""
    from ..contract.case import Observation
    from ..plugins.replay import Recording, case_digest

    entry = Recording.read(path).devices.get(RECORDING_LABEL, {"cases": {}})
    kept = {}
    for case in cases:
        answer = entry["cases"].get(case.id)
        if answer and "observation" in answer and answer.get("digest") == case_digest(case):
            kept[case.id] = Observation.from_json(answer["observation"])
    return kept


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", default="aslref:", metavar="NAME[:ARG]",
                        help="the spec device (default aslref: with $PTO_AVS_SPEC and $PTO_AVS_ASLREF)")
    parser.add_argument("--record", type=Path, default=None, metavar="FILE",
                        help=f"write the answers as a replay recording (the committed one: {RECORDING.relative_to(RECORDING.parents[2])})")
    parser.add_argument("--update", action="store_true",
                        help="with --record: keep the answers FILE already holds for cases whose state and program "
                             "are unchanged and run only the others (after changing the adapter or the spec, "
                             "refresh without --update)")
    parser.add_argument("--no-golden", action="store_true", help="do not time the golden model on the same cases")
    parser.add_argument("--vectors", type=Path, action="append", default=None, metavar="PATH",
                        help="vector directory or file instead of the shipped vectors (repeatable)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress lines on stderr (a line after each batch of cases otherwise)")
    from .campaigns import selection, workers

    selection.add_arguments(parser)
    workers.add_arguments(parser)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pto-avs spec-check", description=DESCRIPTION)
    add_arguments(parser)
    return parser


def run(args) -> int:
    from ..contract.compare import compare
    from ..plugins.base import open_device
    from ..reports.progress import Progress
    from .campaigns import workers

    try:
        if args.update and args.record is None:
            raise ValueError("--update needs --record FILE")
        problem = workers.check(args)
        if problem is not None:
            raise ValueError(problem)
        cases = shipped_cases(args.vectors, args)
        kept = recorded_answers(args.record, cases) if args.update and args.record.exists() else {}
        device = open_device(args.device)
    except ValueError as exc:
        print(f"pto-avs spec-check: {exc}", file=sys.stderr)
        return 2
    try:
        if device.capabilities.profile != PROFILE:
            print(f"pto-avs spec-check: {args.device} implements {device.capabilities.profile}, not {PROFILE}",
                  file=sys.stderr)
            return 2
        reasons = {case.id: device.supports(case) for case in cases}
        runnable = [case for case in cases if reasons[case.id] is None and case.id not in kept]
        print(f"{len(cases)} {PROFILE} cases, {len(runnable)} run on {args.device}"
              + (f", {len(kept)} answers kept from {args.record}" if args.update else ""), flush=True)
        answers = dict(kept)
        start = time.perf_counter()
        with Progress(f"spec-check {args.device}", len(runnable), "cases",
                      quiet=getattr(args, "quiet", False)) as progress:
            # A device that splits a batch into runs of its own (aslref:...,batch=N) is handed one run
            # at a time, which is the same work and shows progress after each run, not each CHUNK.
            own = getattr(device, "batch", 0)
            step = min(CHUNK, own) if isinstance(own, int) and own > 0 else CHUNK
            if workers.wanted(args):  # pytest-xdist runs them; the parts are merged at the end
                stopped = _on_workers(args, runnable, answers, reasons, progress) if runnable else ""
                if stopped:
                    return _stop(args, cases, reasons, answers, device.capabilities, stopped)
            else:
                for first in range(0, len(runnable), CHUNK):
                    chunk = runnable[first:first + CHUNK]
                    for part in range(0, len(chunk), step):
                        piece = chunk[part:part + step]
                        answers.update(zip((case.id for case in piece), device.execute_batch(piece)))
                        progress.advance(len(piece))
                    if args.record is not None and first + CHUNK < len(runnable):  # progress a later --update resumes
                        _write(args.record, cases, reasons, answers, device.capabilities,
                               f"spec-check stopped after {first + len(chunk)} of {len(runnable)} cases")
        seconds = time.perf_counter() - start
    finally:
        device.close()
    counts = collections.defaultdict(collections.Counter)
    problems = []
    for case in cases:
        if reasons[case.id] is not None:
            counts[case.operation]["not supported"] += 1
            continue
        verdict = compare(case, answers[case.id], device.capabilities.aspects, device.capabilities.profile)
        counts[case.operation][verdict.outcome] += 1
        if verdict.outcome in ("fail", "device error"):
            problems.append((case.id, verdict.report().splitlines()[0]))
    _print_table(counts)
    for case_id, first in problems:
        print(f"  {case_id}: {first}")
    runs = getattr(device, "runs", None)  # the aslref device keeps its interpreter runs
    print(f"spec: {len(runnable)} cases in {seconds:.1f} s ({_rate(len(runnable), seconds)} cases/s)"
          + (f" on {workers.describe(args)}" if workers.wanted(args) else
             f", {len(runs)} interpreter run(s)" if runs is not None else ""))
    if not args.no_golden and runnable:
        golden = open_device(f"golden:{PROFILE}")
        start = time.perf_counter()
        golden.execute_batch(runnable)
        golden_seconds = time.perf_counter() - start
        print(f"golden model: the same {len(runnable)} cases in {golden_seconds:.2f} s "
              f"({_rate(len(runnable), golden_seconds)} cases/s)")
    if args.record is not None:
        _write(args.record, cases, reasons, answers, device.capabilities)
        print(f"answers recorded to {args.record} (replay: --device replay:{args.record})")
    return 1 if problems else 0


def _on_workers(args, runnable: list, answers: dict, reasons: dict, progress) -> str:
    """Run ``runnable`` on pytest-xdist workers, adding their answers (and the cases a device found
    it does not support only by trying) to ``answers`` and ``reasons``; why the run did not
    answer every case ('' when it did)."""
    from ..contract.case import Observation
    from ..contract.loader import VECTORS_DIR
    from .campaigns import workers

    options = ["--vectors-only", *(f"--vectors={Path(p).resolve()}" for p in args.vectors or [VECTORS_DIR]),
               f"--device={args.device}", f"--profile={PROFILE}"]
    outcome = workers.run_cases([case.id for case in runnable], options, args, progress, CHUNK)
    if outcome.interrupted:  # Ctrl-C: the workers stopped before handing their answers over
        raise KeyboardInterrupt
    if outcome.recording is None:
        tail = " ".join(outcome.said.split()[-40:])
        return f"the workers' run ended with pytest exit {outcome.status} and no answers ({tail})"
    entry = outcome.recording.devices.get(args.device, {"cases": {}})
    for case in runnable:
        answer = entry["cases"].get(case.id)
        if answer is None:
            continue
        if "unsupported" in answer:
            reasons[case.id] = answer["unsupported"]
        else:
            answers[case.id] = Observation.from_json(answer["observation"])
    unanswered = sum(case.id not in answers and reasons[case.id] is None for case in runnable)
    if outcome.recording.incomplete or unanswered:
        return (f"{unanswered} of {len(runnable)} cases unanswered"
                + (f" ({outcome.recording.incomplete})" if outcome.recording.incomplete else ""))
    return ""


def _stop(args, cases: list, reasons: dict, answers: dict, capabilities, why: str) -> int:
    """A workers' run that did not answer every case: say so, and with ``--record`` write what it
    answered, marked incomplete (a later ``--update`` runs the rest)."""
    print(f"pto-avs spec-check: {why}", file=sys.stderr)
    answered = sum(case.id in answers for case in cases)
    if args.record is not None and answered:
        _write(args.record, cases, reasons, answers, capabilities, f"spec-check stopped: {why}")
        print(f"pto-avs spec-check: {answered} answers written to {args.record}, marked incomplete "
              f"(resume with --update)", file=sys.stderr)
    return 2


def _write(path: Path, cases: list, reasons: dict, answers: dict, capabilities, incomplete: str = "") -> None:
    """The recording of every case answered so far (marked incomplete while cases remain)."""
    from ..plugins.replay import Recording

    recording = Recording(incomplete=incomplete)
    for case in cases:
        if reasons[case.id] is not None:
            recording.add_unsupported(RECORDING_LABEL, capabilities, case, reasons[case.id])
        elif case.id in answers:
            recording.add_observation(RECORDING_LABEL, capabilities, case, answers[case.id])
    recording.write(path)


def _rate(count: int, seconds: float) -> str:
    return f"{count / seconds:.3g}" if seconds > 0 else "-"


def _print_table(counts: dict) -> None:
    width = max([len("operation")] + [len(op) for op in counts])
    print(f"{'operation':<{width}}  " + "  ".join(f"{o:>14}" for o in OUTCOMES))
    total = collections.Counter()
    for operation in sorted(counts):
        total.update(counts[operation])
        print(f"{operation:<{width}}  " + "  ".join(f"{counts[operation][o]:>14}" for o in OUTCOMES))
    print(f"{'all':<{width}}  " + "  ".join(f"{total[o]:>14}" for o in OUTCOMES))
