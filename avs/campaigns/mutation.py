"""Mutation self-test: do the vectors kill every mutant device (``plugins/mutants.py``)?

    pto-avs mutants [--mutant NAME[@PROFILE] ...] [--vectors PATH ...] [--vectors-only] [--first]

A mutant is *killed* by a case when the case holds under the mutant's profile,
the golden model of that profile passes it, and the mutant fails it (or fails to
run it). A surviving mutant means a missing vector. Prints one line per mutant
with the vectors that killed it (and how many of their cases), then the kill
rate. Exit status 0 when every mutant is killed, 1 when one survives, 2 when the
run cannot be set up.
"""
from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

DESCRIPTION = "mutation self-test: run the vectors on every mutant device and print the kill rate"
KILLING_OUTCOMES = ("fail", "device error")


@dataclass
class MutantResult:
    label: str  # NAME@PROFILE
    bug: str
    killers: list = field(default_factory=list)  # ids of the cases that killed it
    cases_run: int = 0
    seconds: float = 0.0

    @property
    def killed(self) -> bool:
        return bool(self.killers)

    def killing_vectors(self) -> Counter:
        """Vector ID -> number of its cases that killed the mutant, in first-kill order."""
        return Counter(case_id.split("::", 1)[0] for case_id in self.killers)


class GoldenVerdicts:
    """Whether the golden model passes a case, per profile, computed once per case."""

    def __init__(self):
        from ...plugins.golden import open_device

        self._open = open_device
        self._devices: dict = {}
        self._passes: dict = {}

    def passes(self, case, profile: str) -> bool:
        from ...contract.compare import compare

        key = (profile, case.id)
        if key not in self._passes:
            device = self._devices.setdefault(profile, self._open(profile))
            verdict = compare(case, device.execute(case), device.capabilities.aspects, device.capabilities.profile)
            self._passes[key] = verdict.outcome == "pass"
        return self._passes[key]


def run_mutant(spec: str, cases: Iterable, golden: GoldenVerdicts, first_only: bool = False,
               progress=None) -> MutantResult:
    """Run ``cases`` on ``mutant:<spec>`` and collect the cases that kill it; ``progress`` (a
    ``reports.progress.Progress``) advances by every case, those a ``first_only`` stop skips too."""
    from ...contract.compare import compare
    from ...plugins.mutants import open_device

    device = open_device(spec)
    profile = device.capabilities.profile
    result = MutantResult(f"{device.mutant.name}@{profile}", device.mutant.bug)
    start = time.perf_counter()
    cases = list(cases)
    seen = 0
    for case in cases:
        seen += 1
        if progress is not None:
            progress.advance()
        if device.supports(case) is not None:
            continue
        result.cases_run += 1
        verdict = compare(case, device.execute(case), device.capabilities.aspects, device.capabilities.profile)
        if verdict.outcome in KILLING_OUTCOMES and golden.passes(case, profile):
            result.killers.append(case.id)
            if first_only:
                break
    if progress is not None and seen < len(cases):
        progress.advance(len(cases) - seen)
    result.seconds = time.perf_counter() - start
    return result


def load_cases(paths: list[Path]) -> tuple[list, list]:
    """(cases, messages of vector errors) from the vector paths."""
    from ...contract.loader import load_paths

    files = load_paths(paths)
    cases = [case for loaded in files for case in loaded.cases]
    errors = [loaded.error.message for loaded in files if loaded.error is not None]
    errors += [entry.message for loaded in files for entry in loaded.entries if not hasattr(entry, "program")]
    return cases, errors


def format_line(result: MutantResult, width: int) -> str:
    if not result.killed:
        return f"{result.label:<{width}}  SURVIVED  ({result.cases_run} cases run, {result.seconds:.1f} s): {result.bug}"
    vectors = ", ".join(f"{vid} ({n})" for vid, n in result.killing_vectors().items())
    return f"{result.label:<{width}}  killed by {len(result.killers)} case(s): {vectors}"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--mutant", action="append", default=[], metavar="NAME[@PROFILE]",
                        help="mutant to run (repeatable); default: every mutant at its own profile")
    parser.add_argument("--vectors", action="append", default=[], metavar="PATH",
                        help="extra vector directory or file (repeatable), run with the shipped vectors")
    parser.add_argument("--vectors-only", action="store_true",
                        help="run only the --vectors paths, not the shipped vectors")
    parser.add_argument("--first", action="store_true",
                        help="stop each mutant at its first killing case (fast; lists one vector per mutant)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")


def run(args) -> int:
    from ...contract.loader import VECTORS_DIR
    from ...plugins.mutants import MUTANTS
    from ...reports.progress import Progress

    if args.vectors_only and not args.vectors:
        print("pto-avs mutants: --vectors-only needs at least one --vectors PATH", file=sys.stderr)
        return 2
    paths = [Path(p) for p in args.vectors] if args.vectors_only else [VECTORS_DIR, *map(Path, args.vectors)]
    specs = args.mutant or list(MUTANTS)
    try:
        from ...plugins.mutants import parse

        for spec in specs:
            parse(spec)
        cases, errors = load_cases(paths)
    except (ValueError, FileNotFoundError) as exc:
        print(f"pto-avs mutants: {exc}", file=sys.stderr)
        return 2
    for message in errors:
        print(f"vector error (not used): {message}")
    start = time.perf_counter()
    golden = GoldenVerdicts()
    width = max(len(s) for s in MUTANTS) + len("@hw-ieee")
    results = []
    with Progress(f"mutants ({len(specs)})", len(specs) * len(cases), "cases",
                  quiet=getattr(args, "quiet", False)) as progress:
        for spec in specs:
            result = run_mutant(spec, cases, golden, first_only=args.first, progress=progress)
            results.append(result)
            progress.clear()
            print(format_line(result, width), flush=True)
        killed = sum(r.killed for r in results)
        progress.finish(f"{killed}/{len(results)} mutants killed")
    print(f"kill rate: {killed}/{len(results)} mutants killed ({100.0 * killed / len(results):.1f}%) "
          f"by {len(cases)} cases in {time.perf_counter() - start:.1f} s")
    return 0 if killed == len(results) else 1


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(prog="pto-avs mutants", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
