"""Differential campaigns: random bundles on a device and on the golden model.

    pto-avs fuzz --device NAME[:ARG] --op OP [--examples N] [--seed S] [--out DIR]

Hypothesis draws legal and illegal bundles and tile states for the operation
(``avs.campaigns.scenarios``: TCVT, TQUANT, TMULS, TGEMV_MX_ACC and every
elementwise TEPL operation the golden model registers have builders; every other
operation is drawn from its shipped cases with redrawn elements, status and GPRs). Each example runs on the device and on the golden
model of the device's profile; the golden observation becomes the expectation
and the ordinary comparator judges the device, so a disagreement means exactly
what a failing vector means. Disagreements are grouped by their kind (the
failing aspects and the two fault classes); each kind is then shrunk by
hypothesis to a minimal example and written to ``--out`` (default ``fuzz-out/``)
as a reproducer vector ``PTO-AVS-X-FUZZ-<OP>-<hash>.yaml`` whose expectations
are the golden model's, labelled as such (``avs.campaigns.reproducer``).

Generation runs exactly ``--examples`` examples (counts are exact); shrinking is
a second, seeded search per kind, which falls back to the first example seen
when it cannot find the kind again. Exit status: 0 no disagreement, 1
disagreements found, 2 the campaign cannot be set up.
"""
from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from ...contract.case import Case

DESCRIPTION = "differential campaign: hypothesis bundles on a device and on the golden model; shrunk reproducers"
DEFAULT_OUT = Path("fuzz-out")
REFUSED_STATE = "initial state rejected"


@dataclass
class Disagreement:
    signature: tuple  # (outcome, failing aspects, golden fault, device fault)
    case: Case
    expect: dict  # the golden model's observation as expectations
    report: str  # the comparator's account

    def describe(self) -> str:
        outcome, aspects, golden_fault, device_fault = self.signature
        if outcome == "device error":
            return "device error"
        faults = f"golden {golden_fault or 'no fault'}, device {device_fault or 'no fault'}"
        return f"{', '.join(aspects)} differ ({faults})"


@dataclass
class CampaignResult:
    examples: int = 0
    unsupported: int = 0
    refused: int = 0  # initial states the golden model refuses (not a legal machine state)
    agreed: int = 0
    disagreements: int = 0
    kinds: dict = field(default_factory=dict)  # signature -> number of examples
    first: dict = field(default_factory=dict)  # signature -> first Disagreement seen
    golden_errors: list = field(default_factory=list)  # (error, scenario)
    shrunk: dict = field(default_factory=dict)  # signature -> (Disagreement, shrunk?)
    written: list = field(default_factory=list)
    generation_seconds: float = 0.0
    shrink_seconds: float = 0.0


class Judge:
    """Runs one scenario on the device and on the golden model and compares them."""

    def __init__(self, device, golden):
        self.device = device
        self.golden = golden
        self.profile = device.capabilities.profile
        self._numbers = itertools.count(1)

    def case(self, scenario) -> Case:
        # A fresh name per run: devices may cache by case id (the ml_dtypes device does).
        return Case(vector_id="PTO-AVS-X-FUZZ", name=f"example-{next(self._numbers)}",
                    operation=scenario.operation, kind="execution", profiles=(self.profile,), adrs=(),
                    requirements=(), state=scenario.state, program=(scenario.program,), expect={})

    def judge(self, scenario):
        """("unsupported" | "refused" | "golden error" | "agree" | "disagree", detail)."""
        return self.judge_many([scenario])[0]

    def judge_many(self, scenarios: list) -> list:
        """``judge`` for each scenario, with one ``execute_batch`` of the device for all of them
        (a device that starts slowly, such as the spec under aslref, pays its start once)."""
        from ...contract.compare import compare
        from .reproducer import expectation, judged_case

        results: list = [None] * len(scenarios)
        pending = []  # (position, judged case, expectation, golden observation)
        for position, scenario in enumerate(scenarios):
            case = self.case(scenario)
            if self.device.supports(case) is not None:
                results[position] = ("unsupported", None)
                continue
            golden = self.golden.execute(case)
            if golden.error is not None:
                results[position] = (("refused" if golden.error.startswith(REFUSED_STATE) else "golden error"),
                                     golden.error)
                continue
            expect = expectation(golden, case.state)
            pending.append((position, judged_case(case, expect), expect, golden))
        observations = self.device.execute_batch([judged for _, judged, _, _ in pending]) if pending else []
        for (position, judged, expect, golden), observed in zip(pending, observations):
            verdict = compare(judged, observed, self.device.capabilities.aspects, self.device.capabilities.profile)
            if verdict.outcome not in ("fail", "device error"):
                results[position] = ("agree", None)
                continue
            aspects = verdict.failed
            if "payload" in aspects:  # the same wrong values seen through the Word and storage windows
                aspects = [a for a in aspects if a not in ("carrier", "storage")]
            signature = (verdict.outcome, tuple(aspects), golden.fault, observed.fault)
            results[position] = ("disagree", Disagreement(signature, judged, expect, verdict.report()))
        return results


def _settings(examples: int, phases):
    from hypothesis import HealthCheck, Verbosity, settings

    return settings(max_examples=examples, database=None, deadline=None, phases=phases,
                    suppress_health_check=list(HealthCheck), verbosity=Verbosity.quiet)


def generate(judge: Judge, strategy, examples: int, seed: int, result: CampaignResult, quiet: bool = True) -> None:
    """Draw ``examples`` examples, judge them in one device batch and count what happened (no shrinking).
    Unless ``quiet``, the drawing and the judging say how far they are on stderr."""
    from hypothesis import Phase, given
    from hypothesis import seed as seeded

    from ...reports.progress import Progress

    @seeded(seed)
    @_settings(examples, [Phase.generate])
    @given(strategy)
    def campaign(scenario):
        drawn.append(scenario)
        drawing.advance()

    drawn: list = []
    start = time.perf_counter()
    with Progress("fuzz: drawing", examples, "examples", quiet=quiet) as drawing:
        campaign()  # draws the examples; they are judged together below, in one device batch
    with Progress(f"fuzz: judging on {getattr(judge.device, 'name', 'the device')}", len(drawn), "examples", quiet=quiet) as judging:
        judged = judge.judge_many(drawn)  # one batch: a slow-starting device pays its start once
        judging.advance(len(judged))
    for scenario, (status, detail) in zip(drawn, judged):
        result.examples += 1
        if status == "unsupported":
            result.unsupported += 1
        elif status == "refused":
            result.refused += 1
        elif status == "golden error":
            result.golden_errors.append((detail, scenario))
        elif status == "agree":
            result.agreed += 1
        else:
            result.disagreements += 1
            result.kinds[detail.signature] = result.kinds.get(detail.signature, 0) + 1
            result.first.setdefault(detail.signature, detail)
    result.generation_seconds = time.perf_counter() - start


def shrink(judge: Judge, strategy, signature: tuple, budget: int, seed: int) -> Optional[Disagreement]:
    """The minimal scenario hypothesis finds with a disagreement of this kind, or None."""
    from hypothesis import Phase, find
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    def same_kind(scenario) -> bool:
        status, detail = judge.judge(scenario)
        return status == "disagree" and detail.signature == signature

    try:
        scenario = find(strategy, same_kind, settings=_settings(budget, [Phase.generate, Phase.shrink]),
                        random=random.Random(seed))
    except (NoSuchExample, Unsatisfiable):
        return None
    status, detail = judge.judge(scenario)
    return detail if status == "disagree" and detail.signature == signature else None


def run_campaign(device_spec: str, operation: str, examples: int, seed: int, out: Path,
                 command: str, shrink_budget: Optional[int] = None, quiet: bool = True) -> CampaignResult:
    """Generate, shrink each kind of disagreement (``shrink_budget`` examples per kind; default
    max(2 x examples, 200); 0: keep the first example of each kind), write the reproducers.
    Unless ``quiet``, each phase's progress goes to stderr."""
    from .reproducer import write_reproducer
    from .scenarios import scenarios
    from ...plugins.base import open_device
    from ...reports.progress import Progress

    device = open_device(device_spec)
    try:
        profile = device.capabilities.profile
        golden = open_device(f"golden:{profile}")
        judge = Judge(device, golden)
        allowed = device.capabilities.dtypes
        strategy = scenarios(operation, allowed)
        result = CampaignResult()
        generate(judge, strategy, examples, seed, result, quiet=quiet)
        start = time.perf_counter()
        budget = max(2 * examples, 200) if shrink_budget is None else shrink_budget
        with Progress("fuzz: shrinking", len(result.kinds), "kinds", quiet=quiet or not result.kinds) as shrinking:
            for signature in result.kinds:
                found = shrink(judge, strategy, signature, budget, seed) if budget else None
                result.shrunk[signature] = (found or result.first[signature], found is not None)
                shrinking.advance()
        result.shrink_seconds = time.perf_counter() - start
        written = {}
        for signature, (disagreement, _) in result.shrunk.items():
            path = write_reproducer(out, disagreement.case, disagreement.expect, device=device_spec,
                                    profile=profile, command=command, disagreement=disagreement.describe())
            written[path] = True
        result.written = list(written)
        return result
    finally:
        device.close()


def add_arguments(parser: argparse.ArgumentParser) -> None:
    from .scenarios import OPERATIONS

    parser.add_argument("--device", required=True, metavar="NAME[:ARG]",
                        help="device under test (compared with the golden model of its profile)")
    parser.add_argument("--op", required=True, choices=OPERATIONS, metavar="OP",
                        help="operation to generate bundles for: any of the 109 the golden model registers "
                             "(TCVT, TQUANT, TMULS, TGEMV_MX_ACC and the elementwise TEPL operations from "
                             "builders; the others from their shipped cases, perturbed)")
    parser.add_argument("--examples", type=int, default=500, metavar="N", help="examples to generate (default 500)")
    parser.add_argument("--seed", type=int, default=None, metavar="S",
                        help="random seed (default: a fresh one, printed so the campaign can be repeated)")
    parser.add_argument("--shrink-budget", type=int, default=None, metavar="N",
                        help="examples tried to shrink each kind of disagreement (default max(2 x examples, 200); "
                             "0 keeps the first example: for devices where each example costs seconds)")
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT, metavar="DIR",
                        help=f"directory for the reproducer vectors (default {DEFAULT_OUT}/)")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")


def run(args) -> int:
    if args.examples < 1:
        print("pto-avs fuzz: --examples must be at least 1", file=sys.stderr)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(1 << 32)
    command = f"pto-avs fuzz --device {args.device} --op {args.op} --examples {args.examples} --seed {seed}"
    print(f"{command} --out {args.out}")
    try:
        result = run_campaign(args.device, args.op, args.examples, seed, args.out, command, args.shrink_budget,
                              quiet=getattr(args, "quiet", False))
    except ValueError as exc:
        print(f"pto-avs fuzz: {exc}", file=sys.stderr)
        return 2
    print(f"examples: {result.examples} (agreed {result.agreed}, not supported by the device {result.unsupported}, "
          f"initial state refused by the golden model {result.refused}, golden model errors "
          f"{len(result.golden_errors)})")
    print(f"disagreements: {result.disagreements} in {len(result.kinds)} kind(s)")
    for signature, count in result.kinds.items():
        disagreement, shrunk = result.shrunk[signature]
        print(f"  {count:5d} x {disagreement.describe()}; {'shrunk' if shrunk else 'NOT shrunk (kept first example)'}"
              f" reproducer: {args.out / (disagreement_id(disagreement) + '.yaml')}")
    for error, scenario in result.golden_errors[:5]:
        print(f"  golden model error: {error}\n    {scenario.program.replace(chr(10), '; ')}")
    print(f"distinct shrunk reproducers: {len(result.written)} written to {args.out}/")
    total = result.generation_seconds + result.shrink_seconds
    print(f"time: generation {result.generation_seconds:.1f} s, shrinking {result.shrink_seconds:.1f} s, "
          f"total {total:.1f} s")
    return 1 if result.disagreements or result.golden_errors else 0


def disagreement_id(disagreement: Disagreement) -> str:
    from .reproducer import reproducer_id

    return reproducer_id(disagreement.case.operation, disagreement.case)


def main(argv: Optional[list] = None) -> int:
    parser = argparse.ArgumentParser(prog="pto-avs fuzz", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
