"""Speedup of pytest-xdist on a campaign: ``-n 2`` (or ``--workers N``) against one worker.

Run: ``.venv/bin/python tests/benchmarks/bench_xdist.py [--campaign sweep|conformance]
[--device NAME] [-k EXPR] [--workers N]``.

- ``sweep`` (default): the exhaustive TCVT sweep as pytest items
  (``avs/campaigns/sweep_suite.py``), by default level 2 (``-k L2``: every FP16,
  BF16, S16 and U16 encoding to every destination, 98 items) on ``golden:hw-ieee``
  against the golden model;
- ``conformance``: ``pytest avs/`` (every vector on both golden profiles).

Each configuration runs once, in a fresh ``pytest`` process, timed from start to
exit; the script prints both wall times, the pytest summary lines and the speedup.
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def command(args, workers: int) -> list[str]:
    base = [sys.executable, "-m", "pytest", "-q", "-n", str(workers)]
    if args.campaign == "sweep":
        return base + ["avs/campaigns/sweep_suite.py", "--device", args.device, "-k", args.k]
    return base + ["avs/"]


def timed(cmd: list[str]) -> tuple[float, str]:
    start = time.perf_counter()
    run = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    summary = [line for line in run.stdout.splitlines() if re.search(r"\d+ (passed|failed)", line)]
    return seconds, summary[-1].strip("= ") if summary else f"exit {run.returncode}: {run.stderr[-300:]}"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--campaign", choices=("sweep", "conformance"), default="sweep")
    parser.add_argument("--device", default="golden:hw-ieee", help="sweep device (default golden:hw-ieee)")
    parser.add_argument("-k", default="L2", help="sweep item selection (default L2)")
    parser.add_argument("--workers", type=int, default=2, help="xdist workers to compare with one (default 2)")
    args = parser.parse_args(argv)
    single, parallel = command(args, 0), command(args, args.workers)
    print("campaign: " + " ".join(single[2:]).replace("-n 0 ", ""))
    one, one_summary = timed(single)
    print(f"1 worker (-n 0): {one:7.1f} s  [{one_summary}]")
    many, many_summary = timed(parallel)
    print(f"-n {args.workers}:            {many:7.1f} s  [{many_summary}]")
    print(f"speedup of -n {args.workers} over one worker: {one / many:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
