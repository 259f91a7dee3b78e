"""The suite's selection for commands outside pytest: ``pto-avs compare`` and ``spec-check``.

    pto-avs compare --device D [ID[::CASE] ...] [--op OP ...] [--adr ADR-NNNN ...] [-k EXPR] [-m EXPR]

A selection means what it means to ``pytest avs/``, because pytest decides it: the
command collects ``avs/test_conformance.py`` in-process (nothing runs) with the
plugin's options and pytest's own ``-k``/``-m`` and node IDs, and takes the cases of
the collected items. So an ID is a node ID after the module (a vector file's ID,
optionally ``::case``), ``-k`` and ``-m`` use pytest's grammar and the plugin's
operation and kind markers, ``--adr`` is the plugin's, and the plugin's messages
(an unknown ADR, a node ID naming no file or case, with a did-you-mean) are the
command's. ``--op OP`` is the operation marker: ``--op TSEL --op TADD`` is
``-m "tsel or tadd"`` (joined to any ``-m`` with ``and``). The collecting devices
are the golden models of the profiles asked for; with two of them item names carry
the ``[golden:<profile>]`` suffix, as in ``pytest avs/``.

Without any selection nothing is collected: the vector files are loaded as before.
"""
from __future__ import annotations

import argparse
import contextlib
import io
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

CONFORMANCE_MODULE = Path(__file__).resolve().parent.parent / "test_conformance.py"
PACKAGE_ROOT = CONFORMANCE_MODULE.parent.parent  # node IDs are avs/test_conformance.py::...


class SelectionError(ValueError):
    """The selection cannot be made (a usage error or a collection error, in pytest's words)."""


@dataclass
class Selected:
    cases: list = field(default_factory=list)  # distinct cases, in collection order
    vector_errors: list = field(default_factory=list)  # VectorError of each malformed file or case selected


def add_arguments(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("selection (as in pytest avs/)")
    group.add_argument("ids", nargs="*", metavar="ID[::CASE]",
                       help="vector files (their spec test ID) or cases, as node IDs after avs/test_conformance.py::")
    group.add_argument("--op", action="append", default=[], metavar="OP",
                       help="only cases of this operation (repeatable: any of them); the marker -m op")
    group.add_argument("--adr", action="append", default=[], metavar="ADR-NNNN",
                       help="only cases tracing to this ADR (repeatable: any of them)")
    group.add_argument("-k", dest="keyword", default=None, metavar="EXPR",
                       help="pytest's -k over the item names (vector ID, case, device, markers)")
    group.add_argument("-m", dest="markexpr", default=None, metavar="EXPR",
                       help="pytest's -m over the operation and kind markers, e.g. 'tquant and not fault'")


def selects(args) -> bool:
    """Whether ``args`` narrow the cases at all."""
    return bool(args.ids or args.op or args.adr or args.keyword or args.markexpr)


def _operation_expression(ops: list) -> Optional[str]:
    from ...contract import spec_data
    from ...plugins.base import did_you_mean

    if not ops:
        return None
    known = {name.upper(): name for name in spec_data.operation_names()}
    markers = []
    for op in ops:
        if op.upper() not in known:
            raise SelectionError(f"--op {op}: not an operation of the catalog{did_you_mean(op.upper(), known)}")
        markers.append(known[op.upper()].lower())
    return " or ".join(dict.fromkeys(markers))


def node_ids(ids: list) -> list[str]:
    """``ID[::CASE]`` (or a whole node ID) as node IDs of the conformance module."""
    return [f"{CONFORMANCE_MODULE}::{given.rpartition('.py::')[2]}" for given in ids]


def pytest_arguments(args) -> list[str]:
    """The selection as arguments of ``pytest`` (after the module or node IDs)."""
    out = []
    for adr in args.adr:
        out += ["--adr", adr]
    if args.keyword:
        out += ["-k", args.keyword]
    ops = _operation_expression(args.op)
    mark = " and ".join(f"({e})" for e in (args.markexpr, ops) if e)
    if mark:
        out += ["-m", mark]
    return out


def base_arguments() -> list[str]:
    """Options of every in-process pytest run of these commands: this package's rootdir and no
    ini file of the caller's directory, no cache, no random order."""
    return ["-c", os.devnull, "--rootdir", str(PACKAGE_ROOT), "-p", "no:cacheprovider", "-p", "no:randomly"]


class _Gather:
    """Keeps the collected items and runs none of them."""

    def __init__(self):
        self.items: list = []
        self.errors: list[str] = []

    def pytest_collectreport(self, report):
        if report.failed:
            self.errors.append(str(report.longreprtext).strip())

    def pytest_collection_finish(self, session):
        self.items = list(session.items)

    def pytest_runtestloop(self, session):
        return True  # nothing runs


def collect(args, vectors: list, profiles: tuple) -> Selected:
    """The cases ``args`` select among the vector paths ``vectors`` (only those), holding under
    one of ``profiles``. Raises SelectionError with pytest's or the plugin's message."""
    import pytest

    from ..pytest_plugin import CaseItem, VectorErrorItem

    selection = pytest_arguments(args)
    command = [*(node_ids(args.ids) or [str(CONFORMANCE_MODULE)]), *base_arguments(), "-p", "no:xdist",
               "-p", "no:terminal", "--vectors-only", *(f"--vectors={Path(p).resolve()}" for p in vectors),
               *(f"--device=golden:{profile}" for profile in profiles), *selection]
    gather = _Gather()
    said = io.StringIO()
    with contextlib.redirect_stdout(said), contextlib.redirect_stderr(said):
        status = pytest.main(command, plugins=[gather])
    if status == pytest.ExitCode.NO_TESTS_COLLECTED:
        return Selected()
    if status not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED) or gather.errors:
        lines = [line.removeprefix("ERROR: ").strip() for line in said.getvalue().splitlines()]
        words = "; ".join(gather.errors) or "; ".join(line for line in lines if line) or f"pytest exit {int(status)}"
        raise SelectionError(words)
    picked = Selected()
    seen = set()
    for item in gather.items:
        if isinstance(item, CaseItem) and item.case.id not in seen:
            seen.add(item.case.id)
            picked.cases.append(item.case)
        elif isinstance(item, VectorErrorItem):
            picked.vector_errors.append(item.error)
    return picked
