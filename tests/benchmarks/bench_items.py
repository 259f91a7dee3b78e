"""The CPU of one ``pytest avs/`` item beside an empty parametrized item, same plugins loaded.

Run: ``.venv/bin/python tests/benchmarks/bench_items.py [--repeat N] [-m MARKEXPR]
[--items N] [--allure]``.

Both figures are the run phase of a fresh pytest process (from the end of collection to
``pytest_unconfigure``, a probe plugin's ``time.process_time()``), divided by its item count,
the best of ``--repeat`` runs:

- **suite**: ``pytest avs/ -m MARKEXPR`` (default ``tadd or tmul or tcvt``) on both golden
  devices, every item a vector case run, compared and reported;
- **empty**: a generated file of ``--items`` (default: the suite's count) items of
  ``@pytest.mark.parametrize("i", range(N)) def test(i): pass``, in the same environment:
  every entry-point plugin (pto_avs, its report plugin, xdist, hypothesis, allure) loaded.

``--allure`` runs both with ``--alluredir`` (a fresh folder each run). The goal (issue 27):
suite per item within 1.5x of empty per item (the suite's figure carries the model's time too).
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

PROBE = '''
import json, sys, time
_marks = {}
def pytest_collection_finish(session):
    _marks["collected"] = time.process_time()
    _marks["items"] = len(session.items)
def pytest_unconfigure(config):
    if "collected" in _marks and not hasattr(config, "workerinput"):
        sys.__stderr__.write("PTO-AVS-BENCH " + json.dumps(
            {"items": _marks["items"], "run_cpu": time.process_time() - _marks["collected"]}) + "\\n")
'''

EMPTY = '''
import pytest

@pytest.mark.parametrize("i", range({count}))
def test_empty(i):
    pass
'''

def run_probe(command: list[str], cwd: Path, env: dict) -> dict:
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    for line in done.stderr.splitlines():
        if line.startswith("PTO-AVS-BENCH "):
            return json.loads(line[len("PTO-AVS-BENCH "):])
    raise SystemExit(f"{' '.join(command)} ({done.returncode}) gave no figures:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")


def best(command_of, cwd: Path, env: dict, repeat: int) -> dict:
    runs = [run_probe(command_of(i), cwd, env) for i in range(repeat)]
    return min(runs, key=lambda figures: figures["run_cpu"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("-m", dest="marks", default="tadd or tmul or tcvt")
    parser.add_argument("--items", type=int, default=None)
    parser.add_argument("--allure", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="pto-avs-bench-items-") as work:
        work = Path(work)
        (work / "probe").mkdir()
        (work / "probe" / "pto_avs_bench_probe.py").write_text(PROBE)
        env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
        env["PYTHONPATH"] = str(work / "probe")
        base = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "pto_avs_bench_probe"]

        def allure(label: str, i: int) -> list[str]:
            return ["--alluredir", str(work / f"allure-{label}-{i}")] if args.allure else []

        suite = best(lambda i: [*base, "avs/", "-m", args.marks, *allure("suite", i)], ROOT, env, args.repeat)
        count = args.items or suite["items"]
        empty_dir = work / "empty"
        empty_dir.mkdir()
        (empty_dir / "test_empty.py").write_text(EMPTY.format(count=count))
        empty = best(lambda i: [*base, str(empty_dir / "test_empty.py"), *allure("empty", i)], empty_dir, env,
                     args.repeat)
    per_suite = suite["run_cpu"] / suite["items"] * 1e6
    per_empty = empty["run_cpu"] / empty["items"] * 1e6
    print(f"run-phase CPU per item, best of {args.repeat}{', with --alluredir' if args.allure else ''}")
    print(f"{'':<8} {'items':>7} {'run CPU s':>10} {'us/item':>9}")
    print(f"{'suite':<8} {suite['items']:>7} {suite['run_cpu']:>10.2f} {per_suite:>9.0f}   (pytest avs/ -m {args.marks!r})")
    print(f"{'empty':<8} {empty['items']:>7} {empty['run_cpu']:>10.2f} {per_empty:>9.0f}   (parametrized pass)")
    print(f"ratio suite/empty: {per_suite / per_empty:.2f}x (goal <= 1.5x)")


if __name__ == "__main__":
    main()
