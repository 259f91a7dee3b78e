"""A campaign's cases spread over local cores and remote hosts by pytest-xdist, not by a scheduler of ours.

    pto-avs spec-check -n 2                                   # two local worker processes
    pto-avs spec-check --tx 8*ssh=user@host//python=/home/user/pto-avs/.venv/bin/python --tx ...

The cases are handed to pytest as node IDs of ``avs/test_conformance.py`` (the
conformance suite's own items), run in-process under ``-n``/``--tx``/``--dist`` with
the plugin's ``--record``: each worker records the answers of the items it ran and
the controller merges the parts into one file, written whole or not at all (the
plugin's recording, ``avs/pytest_plugin.py``).

A device runs a batch of items at a time (``--batch-size``); on an xdist worker a batch
holds only items that worker was given (the plugin reads the worker's queue), so no case
runs twice under any distribution, but under xdist's ``load`` distribution a worker is given
few items at a time and its batches shrink. So this module, loaded on every worker
(``-p pto_avs.avs.campaigns.workers``), marks each run of ``--batch-size`` consecutive
items as one ``xdist_group`` and the cases run under ``--dist loadgroup``: a batch is
one group, given whole to one worker, one device call. A batch is an equal share of each worker, at most
the command's largest batch (spec-check: 500 cases, its own chunk). A remote host needs pto-avs installed
and the same checkout at the same path (node IDs and ``--vectors`` paths are this
machine's). Progress counts the items the workers report.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest



def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("workers (pytest-xdist)")
    group.add_argument("-n", "--numprocesses", dest="workers", default=None, metavar="N|auto",
                       help="run the cases on N local pytest-xdist workers (auto: one per core); "
                            "without -n or --tx they run in this process")
    group.add_argument("--tx", action="append", default=[], metavar="SPEC",
                       help="a pytest-xdist gateway, e.g. 4*ssh=user@host//python=/path/.venv/bin/python "
                            "(repeatable; the host has the same checkout at the same path)")


def wanted(args) -> bool:
    """Whether ``args`` ask for workers (``-n 0`` does not)."""
    return (args.workers is not None and str(args.workers) != "0") or bool(args.tx)


def check(args) -> Optional[str]:
    """What is wrong with the worker options (None: nothing)."""
    if args.workers is not None and args.workers != "auto" and not str(args.workers).isdigit():
        return f"-n {args.workers}: expected a number of workers or auto"
    try:
        import xdist  # noqa: F401
    except ImportError:
        return "-n/--tx need pytest-xdist (pip install pytest-xdist)" if wanted(args) else None
    return None


def xdist_arguments(args) -> list[str]:
    out = [f"--numprocesses={args.workers}"] if args.workers is not None and not args.tx else []
    for spec in args.tx:
        out.append(f"--tx={spec}")
    return out + ["--dist=loadgroup"]


def worker_count(args) -> int:
    """How many workers ``-n``/``--tx`` start (``4*ssh=...`` is four)."""
    if args.tx:
        return sum(int(spec.split("*", 1)[0]) if spec.split("*", 1)[0].isdigit() else 1 for spec in args.tx)
    if args.workers == "auto":
        return os.cpu_count() or 1
    return max(int(args.workers), 1)


def batch_size(cases: int, workers: int, largest: int) -> int:
    """The cases of one batch: an equal share of each worker, at most ``largest``. A device that
    pays a start per batch (the spec's interpreter: tens of seconds) pays it as few times as the
    workers allow, and a long run still shows progress after each ``largest`` cases."""
    return max(1, min(largest, -(-cases // workers)))


@pytest.hookimpl(wrapper=True)  # around every other plugin's, xdist's naming of groups among them
def pytest_collection_modifyitems(config, items):
    """Each run of ``--batch-size`` consecutive conformance items is one xdist group.

    xdist's ``loadgroup`` schedules by the ``@group`` suffix it gives an item's node ID; pytest-xdist
    3.8 sets it as ``item._nodeid``, which pytest 9.2 no longer reads (the node ID is ``item._id``),
    so each item would be a group of its own: the suffix is given here where xdist could not."""
    from ..pytest_plugin import CaseItem

    size = config.getoption("avs_batch_size")
    cases = [item for item in items if isinstance(item, CaseItem)]
    for index, item in enumerate(cases):
        item.add_marker(pytest.mark.xdist_group(f"batch{index // size}"))
    result = yield
    if config.getvalue("loadgroup"):
        from _pytest.nodeid import coerce_node_id

        for item in cases:
            group = "_".join(sorted({str(mark.args[0]) for mark in item.iter_markers("xdist_group") if mark.args}))
            if group and not item.nodeid.endswith(f"@{group}") and hasattr(item, "_id"):
                item._id = coerce_node_id(f"{item.nodeid}@{group}")
    return result


def describe(args) -> str:
    """``2 workers (pytest-xdist -n 2)``, or the gateways."""
    if args.tx:
        return f"pytest-xdist workers {', '.join(args.tx)}"
    return f"pytest-xdist -n {args.workers}"


class _Progressing:
    """Advances a ``reports.progress.Progress`` on each item a worker reports (on the controller)."""

    def __init__(self, progress):
        self.progress = progress
        self.done = 0
        self.interrupted = False

    def pytest_keyboard_interrupt(self, excinfo):
        self.interrupted = True

    def pytest_runtest_logreport(self, report):
        from ..pytest_plugin import OUTCOME

        if report.when == "call" and any(name == OUTCOME for name, _ in report.user_properties):
            self.done += 1
            self.progress.advance(1)


@dataclass
class Outcome:
    status: int  # pytest's exit status
    recording: object  # the merged plugins.replay.Recording, or None when none was written
    said: str  # pytest's own output (for a run that could not start)
    reported: int  # items reported
    interrupted: bool  # Ctrl-C (or SIGTERM) stopped the run


def run_cases(case_ids: list, options: list, args, progress, largest_batch: int) -> Outcome:
    """Run the conformance items of ``case_ids`` (``VECTOR-ID::case``) under pytest-xdist with the
    plugin ``options`` (devices, profile, vectors), recording every answer, in batches of at most
    ``largest_batch`` cases; the merged recording."""
    from ...plugins.replay import Recording
    from .selection import base_arguments, node_ids

    progressing = _Progressing(progress)
    with tempfile.TemporaryDirectory(prefix="pto-avs-workers-") as folder:
        record = Path(folder) / "answers.json"
        command = [*node_ids(case_ids), *base_arguments(), "-qq", "--no-header", "-p", "no:warnings",
                   "-p", __name__, f"--batch-size={batch_size(len(case_ids), worker_count(args), largest_batch)}",
                   *options, f"--record={record}", *xdist_arguments(args)]
        said = io.StringIO()
        with contextlib.redirect_stdout(said):
            status = pytest.main(command, plugins=[progressing])
        recording = Recording.read(record) if record.exists() else None
    return Outcome(int(status), recording, said.getvalue(), progressing.done, progressing.interrupted)
