"""The pto-avs pytest plugin: ``pytest avs/`` runs every vector case on every selected device.

Registered through the ``pytest11`` entry point ``pto_avs``, so it is loaded in every
pytest session of the environment; there it adds only ``--avs-*`` options and imports
nothing but ``pto_avs.contract.case``. The short spellings (``--device``, ``--vectors``,
``--vectors-only``, ``--profile``, ``--adr``, ``--record``, ``--batch-size``) are added once
the session's conftest files are loaded, each one only when nothing else took it (a
project whose conftest adds ``--device`` keeps its own; ``--avs-device`` is ours).

``avs/test_conformance.py`` holds one marked function; this plugin replaces it, at
collection, with one collector per vector file (named by its vector ID, from the file
name) and one item per case and device, named ``<spec test ID>::<case>[<device>]`` (the
device suffix only when several devices run). Devices are opened when that module is
collected, before any vector is read; a file is read only when its collector is
collected, so ``pytest avs/test_conformance.py::<ID>`` reads one file and a ``-k`` or
``--adr`` selection skips the files none of whose cases it could select. Each xdist
worker does this separately; cases run in batches per device, a batch holding the next
items this process runs (on an xdist worker: of the items it was given, so under ``-n`` no
case runs twice, tests/runner/test_runner_xdist_batches.py). A device that cannot be
opened fails its own cases (``device error``) while the others run; when no device
opens, collection stops with the reasons.

Outcomes of an item: ``pass`` (every observable expected aspect matched; aspects the
device cannot observe are counted in the summary), ``fail`` (a readable report of
each failing aspect), ``device error`` (a failure whose message starts with
``device error:``), ``not supported`` / ``not observable`` (skips whose reasons start
with those words), ``vector error`` (a malformed file or case: a failure naming
file, case and field). The terminal summary counts each separately.
"""
from __future__ import annotations

import argparse
import functools
import gc
import importlib
import json
import os
import signal
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Optional

import pytest

from ..contract.case import PROFILES, Case, Observation

DEFAULT_DEVICES = ("golden:pto-v0", "golden:hw-ieee")
OUTCOMES = ("pass", "fail", "device error", "not supported", "not observable", "vector error")
OUTCOME = "pto_avs_outcome"  # user property: one of OUTCOMES
UNOBSERVED = "pto_avs_unobserved"  # user property: aspects not observable in a passing case
WITHIN = "pto_avs_within"  # user property: {aspect: how it passed when not bit for bit} ("within 1 ULP ...")
ASPECT_STATUS = "pto_avs_aspects"  # user property: {aspect: pass | fail | not observable}
WHERE = "pto_avs_where"  # user property: {"operation", "case", "device", "adrs"} of the item, for the summary tables
RECORDING_OUTPUT = "pto_avs_recording"  # xdist workeroutput key
SUITE_KEY = pytest.StashKey["Suite"]()


def conformance_suite(function):
    """Mark the function the plugin replaces by the vector cases."""
    function.pto_avs_suite = True
    return function


def kind_marker(kind: str) -> str:
    return kind.replace("-", "_")


# ---------------------------------------------------------------------------
# options and configuration

# (short spelling, argparse keywords); the option is ``--avs-<short>``, its value config.option.avs_<short>.
OPTIONS = (
    ("device", dict(action="append", default=[], metavar="NAME[:ARG]",
                    help="device to run the vectors on (repeatable); default: " + " and ".join(DEFAULT_DEVICES)
                         + ". Names come from the pto_avs.devices entry points.")),
    ("profile", dict(choices=PROFILES, default=None,
                     help="only devices implementing this numeric profile, and only cases that hold under it")),
    ("vectors", dict(action="append", default=[], metavar="PATH",
                     help="extra vector directory or file (repeatable), run with the shipped vectors")),
    ("vectors-only", dict(action="store_true", default=False,
                          help="run only the --vectors paths, not the shipped vectors")),
    ("adr", dict(action="append", default=[], metavar="ADR-NNNN",
                 help="only cases tracing to this ADR (repeatable: any of them)")),
    ("record", dict(metavar="FILE", default=None,
                    help="record every device answer to FILE (replay with --device replay:FILE)")),
    ("batch-size", dict(type=int, default=32, metavar="N",
                        help="cases sent to a device per execute_batch call (default 32)")),
)
GROUP = "pto-avs"


def _dest(short: str) -> str:
    return "avs_" + short.replace("-", "_")


def pytest_addoption(parser):
    group = parser.getgroup(GROUP, "PTO AVS conformance vectors (pytest avs/); each --avs-X also as --X "
                                   "where no other plugin or conftest defines --X")
    for short, keywords in OPTIONS:
        group.addoption(f"--avs-{short}", dest=_dest(short), **keywords)


def _taken_option_names(parser) -> set:
    groups = [*getattr(parser, "_groups", []), getattr(parser, "_anonymous", None)]
    return {name for group in groups if group is not None for option in group.options for name in option.names()}


@pytest.hookimpl(wrapper=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """After the conftest files of the session: the short spellings that nobody else took."""
    result = yield
    taken = _taken_option_names(parser)
    group = parser.getgroup(GROUP)
    for short, keywords in OPTIONS:
        if f"--{short}" in taken:
            continue
        keywords = {k: v for k, v in keywords.items() if k not in ("default", "help")}  # the --avs- option has them
        try:
            group.addoption(f"--{short}", dest=_dest(short), help=argparse.SUPPRESS, **keywords)
        except (ValueError, argparse.ArgumentError):
            pass  # taken after all: --avs-<short> remains
    return result


def pytest_configure(config):
    opts = config.option
    if opts.avs_vectors_only and not opts.avs_vectors:
        raise pytest.UsageError("--vectors-only needs at least one --vectors PATH")
    if opts.avs_batch_size < 1:
        raise pytest.UsageError("--batch-size must be at least 1")
    for path in opts.avs_vectors:
        if not Path(path).exists():
            raise pytest.UsageError(f"--vectors: vector path {path} does not exist")
        if Path(path).is_file() and Path(path).suffix != ".yaml":
            raise pytest.UsageError(
                f"--vectors {path}: not a vector file: expected a .yaml file holding one YAML mapping of "
                f"format (pto-avs-vector/1), id, operation, kind, provenance and cases (see vectors/FORMAT.md), "
                f"or a directory, searched for *.yaml files")
    if opts.avs_device:
        from ..plugins.base import check_device_spec

        for spec in opts.avs_device:
            problem = check_device_spec(spec)
            if problem is not None:
                raise pytest.UsageError(f"--device {spec}: {problem}")
    if opts.avs_adr:
        from ..contract import spec_data

        known = {a["id"] for a in spec_data.load("tile-avs-catalog")["adrs"]}
        unknown = [a for a in opts.avs_adr if a not in known]
        if unknown:
            raise pytest.UsageError(f"--adr {unknown[0]} is not an ADR of the catalog (known: {', '.join(sorted(known))})")
    if opts.avs_record and not Path(opts.avs_record).resolve().parent.is_dir():
        raise pytest.UsageError(f"--record {opts.avs_record}: directory {Path(opts.avs_record).parent} does not exist")
    config.pluginmanager.register(Tally(config), "pto_avs_tally")


@functools.lru_cache(maxsize=None)
def operation_markers() -> dict:
    """Spec operation -> its marker (``TGEMV_MX_ACC`` -> ``tgemv_mx_acc``), for every catalog operation."""
    from ..contract import spec_data

    return {name: name.lower() for name in spec_data.operation_names()}


@functools.lru_cache(maxsize=None)
def kinds() -> tuple:
    """The catalog's spec test kinds, each a marker (``kind_marker``)."""
    from ..contract import spec_data

    return tuple(dict.fromkeys(test["kind"] for test in spec_data.load("tile-avs-catalog")["tests"]))


def _register_markers(config) -> None:
    """The operation and kind markers, once the suite is collected (not in other projects' runs)."""
    for operation, marker in operation_markers().items():
        config.addinivalue_line("markers", f"{marker}: PTO AVS vector cases of {operation}")
    for kind in kinds():
        config.addinivalue_line("markers", f"{kind_marker(kind)}: PTO AVS vector cases of kind {kind}")


# ---------------------------------------------------------------------------
# the suite: vectors and devices of one process


class DeviceSlot:
    """One opened device of the run, with its batch cache."""

    def __init__(self, label: str, device, batch_size: int, recording):
        self.label = label
        self.device = device
        self.capabilities = device.capabilities
        self.batch_size = batch_size
        self.recording = recording
        self._support: dict[str, Optional[str]] = {}
        self._observations: dict = {}
        self._queue: Optional[list[Case]] = None  # this device's cases in run order
        self._position: dict[str, int] = {}

    def unsupported(self, case: Case) -> Optional[str]:
        if case.id not in self._support:
            try:
                self._support[case.id] = self.device.supports(case)
            except Exception as exc:  # a device's own check failing is that device's problem
                self._support[case.id] = f"{self.label}.supports raised {type(exc).__name__}: {exc}"
        return self._support[case.id]

    def forget_support(self, case: Case) -> None:
        self._support.pop(case.id, None)

    def observe(self, case: Case, session):
        """The device's observation of ``case``, executing it with the next cases this process
        will run (under xdist: only the items this worker was given, so no case runs twice)."""
        if case.id not in self._observations:
            upcoming = _upcoming_cases(session, self)
            if upcoming is None:  # not an xdist worker: items run in collection order
                if self._queue is None:
                    self._queue = [it.case for it in session.items if isinstance(it, CaseItem) and it.slot is self]
                    self._position = {c.id: i for i, c in enumerate(self._queue)}
                start = self._position.get(case.id)
                upcoming = self._queue[start + 1:] if start is not None else []
            chunk = [case]
            for later in upcoming:
                if len(chunk) >= self.batch_size:
                    break
                if later.id != case.id and later.id not in self._observations and self.unsupported(later) is None:
                    chunk.append(later)
            for c, observation in zip(chunk, self._execute(chunk)):
                self._observations[c.id] = observation
                if self.recording is not None:
                    self.recording.add_observation(self.label, self.capabilities, c, observation)
        return self._observations.pop(case.id)

    def _execute(self, chunk: list[Case]) -> list[Observation]:
        """``execute_batch``, with anything but one Observation per case turned into device errors."""
        try:
            answers = self.device.execute_batch(chunk)
        except Exception as exc:
            return [Observation.device_error(f"execute_batch raised {type(exc).__name__}: {exc}")] * len(chunk)
        answers = list(answers) if isinstance(answers, (list, tuple)) else answers
        if not isinstance(answers, list) or len(answers) != len(chunk):
            count = len(answers) if isinstance(answers, list) else type(answers).__name__
            return [Observation.device_error(f"execute_batch returned {count} answers for {len(chunk)} cases")] * len(chunk)
        return [a if isinstance(a, Observation) else Observation.device_error(
            f"execute_batch returned {type(a).__name__}, not an Observation") for a in answers]

    def close(self) -> None:
        self.device.close()


def _upcoming_cases(session, slot) -> Optional[list]:
    """On an xdist worker, the cases of ``slot`` among the items this worker has been given and
    not yet run, in the order it will run them (None: not a worker).

    The worker's queue is pytest-xdist's own (``WorkerInteractor``: the next item's index and the
    pending ones; 3.x); where it cannot be read, the answer is no later case (a batch of one),
    never a case that another worker may be given. A case looked ahead at and then taken away by
    ``--dist worksteal`` runs again on the worker that took it."""
    if not hasattr(session.config, "workerinput"):
        return None
    interactor = next((plugin for plugin in session.config.pluginmanager.get_plugins()
                       if hasattr(plugin, "torun") and hasattr(plugin, "nextitem_index")), None)
    try:
        with interactor.torun.lock() as pending:
            indices = [interactor.nextitem_index, *pending]
    except Exception:  # another pytest-xdist: no look-ahead
        return []
    items = session.items
    return [items[i].case for i in indices
            if isinstance(i, int) and 0 <= i < len(items) and isinstance(items[i], CaseItem) and items[i].slot is slot]


class UnopenedSlot:
    """A device that could not be opened: every case given to it is its device error.
    Its profile is unknown (``--profile`` when given), so it is given every case."""

    recording = None

    def __init__(self, label: str, reason: str, profile: Optional[str]):
        from ..plugins.base import Capabilities

        self.label = label
        self.reason = reason
        self.capabilities = Capabilities(profile=profile or "unknown", operations=frozenset(), aspects=frozenset())

    def unsupported(self, case: Case) -> Optional[str]:
        return None

    def forget_support(self, case: Case) -> None:
        pass

    def observe(self, case: Case, session) -> Observation:
        return Observation.device_error(f"{self.label} could not be opened: {self.reason}")

    def holds(self, case: Case) -> bool:
        return self.capabilities.profile == "unknown" or self.capabilities.profile in case.profiles

    def close(self) -> None:
        pass


class SuiteError(Exception):
    """The suite cannot be set up (no device can be opened)."""


class Suite:
    """Devices of the run (opened on the first collection of the conformance module) and its
    vector files (found then, each read when its collector is collected)."""

    def __init__(self, config):
        from ..contract.loader import VECTORS_DIR, sources
        from ..plugins.base import open_device
        from ..plugins.replay import Recording

        self.config = config
        opts = config.option
        self.recording = Recording() if opts.avs_record else None
        self.slots: list = []
        specs = list(dict.fromkeys(opts.avs_device or DEFAULT_DEVICES))
        failures = []
        for spec in specs:
            try:
                device = open_device(spec)
            except Exception as exc:  # a device that cannot start costs only its own cases
                failures.append(f"--device {spec}: cannot open: {exc}")
                self.slots.append(UnopenedSlot(spec, str(exc), opts.avs_profile))
                continue
            if opts.avs_profile and device.capabilities.profile != opts.avs_profile:
                device.close()
                continue
            self.slots.append(DeviceSlot(spec, device, opts.avs_batch_size, self.recording))
        if not any(isinstance(slot, DeviceSlot) for slot in self.slots):
            self.close()
            if failures:
                raise SuiteError("; ".join(failures))
            raise SuiteError(f"--profile {opts.avs_profile}: none of the devices {', '.join(specs)} implements it")
        self.several_devices = len(self.slots) > 1
        paths = [Path(p) for p in opts.avs_vectors] if opts.avs_vectors_only else [VECTORS_DIR, *map(Path, opts.avs_vectors)]
        try:
            self.sources = sources(paths)
        except FileNotFoundError as exc:  # removed since pytest_configure looked
            self.close()
            raise SuiteError(f"--vectors: {exc}") from None
        self.keyword = _keyword_expression(opts.keyword)
        self.markexpr = _keyword_expression(opts.markexpr)  # -m (same grammar as -k)
        self.wanted_adrs = frozenset(opts.avs_adr)
        self.unread = 0  # files whose cases the selection cannot reach
        self.module_paths: set = set()  # the modules whose conformance function this suite replaced

    def load(self, source):
        from ..contract.loader import load_source

        return load_source(source)

    def selects_none_of(self, collector) -> bool:
        """True when neither ``-k`` nor ``--adr`` can select any item of the collector's file:
        decided from its name and the catalog, else from the file's case names, kind and
        operation (``peek_file``: without validating it)."""
        from ..contract.loader import PROJECT_PREFIX, default_catalog, peek_file

        source = collector.source
        if self.markexpr is not None and not _marks_may_match(self.markexpr, {m.name for m in collector.iter_markers()}):
            return True  # -m deselects every item (e.g. -m "not slow" and the module is marked slow)
        if source.defined_by is not None or (self.keyword is None and not self.wanted_adrs):
            return False
        stem = source.path.stem
        known = _known_keywords(collector)
        if self.wanted_adrs and not stem.startswith(PROJECT_PREFIX):
            catalog = default_catalog()
            if stem in catalog.tests and not self.wanted_adrs & set(catalog.adrs_of(stem)):
                return True
        if self.keyword is not None and not _may_match(self.keyword, known):
            return True
        if self.keyword is None and not stem.startswith(PROJECT_PREFIX):
            return False
        peek = peek_file(source.path)
        if peek is None:
            return False
        if self.wanted_adrs and not self.wanted_adrs & set(peek.adrs):
            return True
        if self.keyword is None:
            return False
        markers = [operation_markers().get(peek.operation, ""), kind_marker(peek.kind) if peek.kind in kinds() else ""]
        names = [source.path.name, *peek.labels]
        if self.several_devices:
            names += [f"{label}[{slot.label}]" for label in peek.labels for slot in self.slots]
        return not any(_matches(self.keyword, [*known, *markers, name.lower()]) for name in names)

    def close(self) -> None:
        for slot in getattr(self, "slots", []):
            slot.close()


def _suite(config) -> Suite:
    if SUITE_KEY not in config.stash:
        _register_markers(config)
        config.stash[SUITE_KEY] = Suite(config)
    return config.stash[SUITE_KEY]


# ---------------------------------------------------------------------------
# -k before reading a file


class _Unknown(Exception):
    """An identifier whose match depends on what the file holds (case names, markers)."""

    def __init__(self, ident: str):
        self.ident = ident


def _keyword_expression(text: Optional[str]):
    """The compiled ``-k`` expression, or None (no -k, or one pytest will reject itself)."""
    if not text or not text.strip():
        return None
    try:
        from _pytest.mark.expression import Expression

        return Expression.compile(text.strip())
    except Exception:
        return None


def _known_keywords(collector) -> list[str]:
    """The ``-k`` names every item of the collector has (pytest's KeywordMatcher, less the
    item's own name and markers, which come from the file)."""
    names = [node.name for node in collector.listchain()
             if not isinstance(node, pytest.Session)
             and not (isinstance(node, pytest.Directory) and isinstance(node.parent, pytest.Session))]
    names += collector.listextrakeywords()
    names += [mark.name for mark in collector.iter_markers()]
    return [name.lower() for name in names]


def _may_match(expression, known: list[str], assumed: Optional[dict] = None) -> bool:
    """Whether ``expression`` holds for some item: a name matching a known keyword is true;
    any other is tried both ways (at most 2^8 ways, else assume it may match)."""
    assumed = assumed or {}

    def matcher(name: str, /, **kwargs) -> bool:
        name = name.lower()
        if kwargs:
            raise _Unknown("")
        if any(name in keyword for keyword in known):
            return True
        if name in assumed:
            return assumed[name]
        raise _Unknown(name)

    try:
        return expression.evaluate(matcher)
    except _Unknown as unknown:
        if not unknown.ident or len(assumed) >= 8:
            return True
        return any(_may_match(expression, known, {**assumed, unknown.ident: value}) for value in (True, False))
    except Exception:
        return True


def _marks_may_match(expression, marks: set) -> bool:
    """Whether ``-m`` may hold for some item under a collector whose items all carry ``marks``
    (a file adds its operation and kind markers, so any other name is tried both ways)."""
    def matcher(name: str, /, **kwargs) -> bool:
        if kwargs:
            raise _Unknown("")
        if name in marks:
            return True
        raise _Unknown(name)

    def may_match(assumed: dict) -> bool:
        try:
            return expression.evaluate(lambda name, /, **kw: assumed[name] if name in assumed and not kw
                                       else matcher(name, **kw))
        except _Unknown as unknown:
            if not unknown.ident or len(assumed) >= 8:
                return True
            return any(may_match({**assumed, unknown.ident: value}) for value in (True, False))
        except Exception:
            return True

    return may_match({})


def _matches(expression, names: list[str]) -> bool:
    """pytest's ``-k`` decision for an item with these (lower-case) keyword names."""
    def matcher(name: str, /, **kwargs) -> bool:
        if kwargs:
            raise _Unknown("")
        return any(name.lower() in keyword for keyword in names)

    try:
        return expression.evaluate(matcher)
    except Exception:
        return True


# ---------------------------------------------------------------------------
# collection

_PACKAGE_DIR = Path(__file__).resolve().parent  # avs/, installed as pto_avs.avs


class _PackageModule(pytest.Module):
    """A test module of ``avs/`` imported under its package name (``pto_avs.avs.<name>``).

    pytest's own import would name ``avs/test_conformance.py`` ``avs.test_conformance``
    after the folder, a second copy beside the installed ``pto_avs.avs``.
    """

    def _getobj(self):
        parts = self.path.resolve().relative_to(_PACKAGE_DIR).with_suffix("").parts
        return importlib.import_module(".".join((__package__, *parts)))


def _inside_package(path) -> bool:
    resolved = Path(path).resolve()
    return resolved == _PACKAGE_DIR or _PACKAGE_DIR in resolved.parents


def pytest_collect_directory(path, parent):
    """``avs/`` and its subfolders are collected as plain folders: their ``__init__`` files
    are imported under the package name (``pto_avs.avs``, ``pto_avs.avs.campaigns``) only."""
    if _inside_package(path):
        return pytest.Dir.from_parent(parent, path=path)
    return None


def pytest_pycollect_makemodule(module_path, parent):
    if _inside_package(module_path.parent):
        return _PackageModule.from_parent(parent, path=module_path)
    return None


def pytest_pycollect_makeitem(collector, name, obj):
    if not getattr(obj, "pto_avs_suite", False):
        return None
    try:
        suite = _suite(collector.config)
    except SuiteError as exc:
        raise collector.CollectError(f"pto-avs: {exc}") from None
    suite.module_paths.add(str(collector.path))
    return [VectorCollector.from_parent(collector, name=source.name, source=source) for source in suite.sources]


_FROZE = pytest.StashKey[bool]()  # True: this session froze the collector's objects and thaws them at its end


def pytest_collection_finish(session):
    """Once the suite is collected, its items (thousands of cases, each a tree of dicts and lists
    that lives to the end of the session) are moved out of the garbage collector's generations
    (``gc.freeze``): every full collection of the run would otherwise walk them all again, for
    nothing. Undone at ``pytest_unconfigure`` (an in-process run leaves the process as it was).
    A run inside a session that froze its own objects freezes nothing: its objects would stay
    frozen when it ends (``gc.unfreeze`` thaws everything or nothing), and the outer one's are
    out of the collector already."""
    config = session.config
    if SUITE_KEY in config.stash and _FROZE not in config.stash:
        config.stash[_FROZE] = gc.get_freeze_count() == 0
        if config.stash[_FROZE]:
            gc.freeze()


def pytest_unconfigure(config):
    if config.stash.get(_FROZE, False):
        gc.unfreeze()
    config.stash[_FROZE] = False


def pytest_terminal_summary(terminalreporter, config):
    suite = config.stash.get(SUITE_KEY, None)
    if suite is not None and suite.unread:  # (so the deselected count leaves them out)
        terminalreporter.write_line(f"pto-avs: {suite.unread} vector file(s) not read: "
                                    "-k/-m/--adr selects none of their cases")


@pytest.hookimpl(wrapper=True)
def pytest_collection(session):
    """A node ID naming no vector file, or no case of its file, is said in those words (pytest
    itself lists the collectors it searched, ``no match in any of [<Module ...>]``)."""
    try:
        return (yield)
    except pytest.UsageError as exc:
        suite = session.config.stash.get(SUITE_KEY, None)
        said = [_not_found_in_suite(suite, str(arg)) for arg in exc.args] if suite is not None else []
        if not said or not any(said):
            raise
        raise pytest.UsageError(*[ours or str(arg) for ours, arg in zip(said, exc.args)]) from None


def _not_found_in_suite(suite, message: str) -> Optional[str]:
    """Our words for pytest's ``not found: PATH::ID[::CASE]`` of a conformance node ID, else None."""
    from ..plugins.base import did_you_mean

    head, _, _ = message.partition("\n")
    if not head.startswith("not found: "):
        return None
    path, *names = head[len("not found: "):].split("::")
    if path not in suite.module_paths or not names or len(names) > 2:
        return None
    by_name = {source.name: source for source in suite.sources}
    if names[0] not in by_name:
        shown = ", ".join(sorted(by_name)[:3]) + (", ..." if len(by_name) > 3 else "")
        return (f"pto-avs: no vector file with ID {names[0]}{did_you_mean(names[0], by_name, cutoff=0.9)}: the node ID after "
                f"the module is a vector file's name without .yaml, among the {len(by_name)} vector file(s) of "
                f"this run ({shown or 'none'})")
    if len(names) < 2:
        return None
    source = by_name[names[0]]
    loaded = suite.load(source)
    cases = [getattr(entry, "name", None) or getattr(entry, "label", "") for entry in loaded.entries]
    wanted = names[1].split("[")[0]
    if wanted in cases:  # (pytest leaves a [...] suffix out of its message)
        labels = ", ".join(slot.label for slot in suite.slots)
        return (f"pto-avs: vector file {source.display} has case {wanted!r}, but not on the device asked for: "
                f"the devices of this run are {labels or 'none'} (a node ID carries the [device] suffix only when "
                f"several devices run, and a case runs only on the devices whose profile it holds under)")
    return (f"pto-avs: vector file {source.display} has no case {wanted!r}{did_you_mean(wanted, cases)}"
            f" (its cases: {', '.join(cases) or 'none'})")


_MARKS: dict = {}  # marker name -> its MarkDecorator (made once: thousands of items share a few)


def _add_markers(node, operation: Optional[str], kind: Optional[str]) -> None:
    for name in (operation_markers().get(operation), kind_marker(kind) if kind in kinds() else None):
        if name:
            if name not in _MARKS:
                _MARKS[name] = getattr(pytest.mark, name)
            node.add_marker(_MARKS[name])


class VectorCollector(pytest.Collector):
    """One vector file, read when collected: its cases on every device whose profile they hold
    under, or the file's vector error."""

    def __init__(self, *, source, **kwargs):
        super().__init__(**kwargs)
        self.source = source

    def collect(self):
        from ..contract.loader import VectorError

        suite = _suite(self.config)
        if suite.selects_none_of(self):
            suite.unread += 1
            return
        loaded = suite.load(self.source)
        if loaded.error is not None:
            yield VectorErrorItem.from_parent(self, name=self.source.path.name, error=loaded.error, loaded=loaded)
            return
        for entry in loaded.entries:
            if isinstance(entry, VectorError):
                yield VectorErrorItem.from_parent(self, name=entry.label, error=entry, loaded=loaded)
                continue
            for slot in suite.slots:
                if isinstance(slot, UnopenedSlot):
                    if not slot.holds(entry):
                        continue
                elif slot.capabilities.profile not in entry.profiles:
                    continue
                name = f"{entry.name}[{slot.label}]" if suite.several_devices else entry.name
                yield CaseItem.from_parent(self, name=name, case=entry, slot=slot)

    def reportinfo(self):
        return self.source.path, None, self.name


class VectorLoadFailure(Exception):
    """A malformed vector file or case."""


class ConformanceFailure(AssertionError):
    """The observation differs from the expectation (an assertion, so Allure reports it as failed)."""


class DeviceFailure(Exception):
    """The device failed to execute the case."""


class VectorErrorItem(pytest.Item):
    """A file or case that could not be loaded: fails with the loader's message."""

    def __init__(self, *, error, loaded, **kwargs):
        super().__init__(**kwargs)
        self.error = error
        self.adrs = loaded.adrs
        self.operation = loaded.operation
        _add_markers(self, loaded.operation, loaded.kind)

    def runtest(self):
        self.user_properties.append((OUTCOME, "vector error"))
        self.user_properties.append((WHERE, {"operation": self.operation, "case": self.nodeid.rpartition(".py::")[2],
                                             "device": None, "adrs": list(self.adrs or ())}))
        raise VectorLoadFailure(self.error.message)

    def repr_failure(self, excinfo, style=None):
        if isinstance(excinfo.value, VectorLoadFailure):
            return f"vector error: {excinfo.value}"
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return Path(self.error.path), None, f"vector error {self.nodeid.rpartition('.py::')[2]}"


class CaseItem(pytest.Item):
    """One case on one device. After running: ``outcome`` and (when compared) ``verdict``."""

    def __init__(self, *, case: Case, slot: DeviceSlot, **kwargs):
        super().__init__(**kwargs)
        self.case = case
        self.slot = slot
        self.device_label = slot.label
        self.profile = slot.capabilities.profile
        self.adrs = case.adrs
        self.outcome: Optional[str] = None
        self.verdict = None
        _add_markers(self, case.operation, case.kind)

    def _finish(self, outcome: str) -> None:
        self.outcome = outcome
        self.user_properties.append((OUTCOME, outcome))
        self.user_properties.append((WHERE, {"operation": self.case.operation, "case": self.case.id,
                                             "device": self.device_label, "adrs": list(self.adrs or ())}))

    def _skip_if_unsupported(self) -> None:
        """Ask the device whether it supports the case; if not, record that and skip."""
        reason = self.slot.unsupported(self.case)
        if reason is None:
            return
        if self.slot.recording is not None:
            self.slot.recording.add_unsupported(self.slot.label, self.slot.capabilities, self.case, reason)
        self._finish("not supported")
        pytest.skip(f"not supported: {reason}")

    def runtest(self):
        from ..contract.compare import compare

        self._skip_if_unsupported()
        observation = self.slot.observe(self.case, self.session)
        if observation.error is not None:
            # A device may only learn that it cannot run a case by trying (an external device's
            # "unsupported" answer): ask again, so that is reported as not supported, not as an error.
            self.slot.forget_support(self.case)
            self._skip_if_unsupported()
        verdict = compare(self.case, observation, self.slot.capabilities.aspects, self.profile)
        self.verdict = verdict
        self.user_properties.append((ASPECT_STATUS, {a: v.status for a, v in verdict.aspects.items()}))
        outcome = verdict.outcome
        self._finish(outcome)
        if outcome == "device error":
            raise DeviceFailure(verdict.error)
        if outcome == "fail":
            raise ConformanceFailure(verdict.report())
        if outcome == "not observable":
            pytest.skip(f"not observable: {', '.join(verdict.unobserved)} on {self.device_label}")
        if verdict.unobserved:
            self.user_properties.append((UNOBSERVED, list(verdict.unobserved)))
        if verdict.notes:
            self.user_properties.append((WITHIN, verdict.notes))

    def repr_failure(self, excinfo, style=None):
        where = f"{self.case.id} on {self.device_label} (profile {self.profile}), {self.case.path}"
        if isinstance(excinfo.value, DeviceFailure):
            return f"device error: {excinfo.value}\n  [{where}]"
        if isinstance(excinfo.value, ConformanceFailure):
            return f"{where}\n{excinfo.value}"
        return super().repr_failure(excinfo, style)

    def reportinfo(self):
        return Path(self.case.path), None, f"{self.case.id} on {self.device_label}"


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    """A skip of a case is located at its vector file, not at the line of this plugin that raised it."""
    report = yield
    if isinstance(item, CaseItem) and report.skipped and isinstance(report.longrepr, tuple):
        report.longrepr = (item.case.path, None, report.longrepr[2])
    return report


def pytest_collection_modifyitems(config, items):
    wanted = set(config.option.avs_adr)
    if not wanted:
        return
    keep, drop = [], []
    for item in items:
        adrs = getattr(item, "adrs", None)
        (drop if adrs is not None and not wanted & set(adrs) else keep).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        items[:] = keep


# ---------------------------------------------------------------------------
# outcomes, recording, summary


def _stopped_early(session, exitstatus) -> str:
    """Why the session did not run everything it selected ('' when it did)."""
    if exitstatus == pytest.ExitCode.INTERRUPTED:
        return f"run interrupted{': ' + str(session.shouldstop) if isinstance(session.shouldstop, str) else ''}"
    reason = session.shouldfail or session.shouldstop
    return f"run stopped early: {reason}" if reason else ""


def _watch_controller(poll: float = 0.1) -> None:
    """xdist worker: when the controller process dies (its parent changes), stop at once,
    killing its device processes and writing nothing more (no result, report or recording)."""
    from ..plugins.process import kill_all_devices

    parent = os.getppid()
    if parent <= 1:
        return

    def watch():
        while os.getppid() == parent:
            time.sleep(poll)
        # Keep the GIL from here to the exit: no other thread may run on (a test seeing its
        # device die would otherwise report, and write, a result).
        sys.setswitchinterval(60)
        kill_all_devices()
        os._exit(3)

    threading.Thread(target=watch, name="pto-avs-controller-watch", daemon=True).start()


def _terminate_as_interrupt(signum, frame):
    """SIGTERM to the controller of a recording run stops it like Ctrl-C, so the answers
    gathered so far are written, marked incomplete (the default action writes nothing)."""
    raise KeyboardInterrupt("SIGTERM")


class Tally:
    """Counts outcomes and unobserved aspects from reports (on the xdist controller, from the
    workers' reports), gathers the workers' recordings, writes the recording (marked
    incomplete when the run was cut short) and prints the summary."""

    def __init__(self, config):
        self.config = config
        self.outcomes: Counter = Counter()
        self.unobserved: Counter = Counter()
        self.within = 0  # passing cases judged within their ULP tolerance
        self.one_of = 0  # passing cases that matched one of the outcomes the spec allows (expect.one_of)
        self.places: list[tuple[dict, str]] = []  # (WHERE property, outcome) of every counted item
        self.worker_recordings: list[str] = []  # JSON texts
        self.lost_workers: list[str] = []  # workers that went down without handing their recording
        self.record_note: Optional[str] = None  # the summary line about --record
        self.sigterm = None  # the SIGTERM handler this session replaced (restored at its end)
        if hasattr(config, "workerinput"):
            _watch_controller()
        elif config.option.avs_record and threading.current_thread() is threading.main_thread():
            self.sigterm = signal.signal(signal.SIGTERM, _terminate_as_interrupt)

    # The outermost wrapper: what follows its yield runs after xdist has sent "workerfinished".
    @pytest.hookimpl(wrapper=True, tryfirst=True, specname="pytest_sessionfinish")
    def pytest_sessionfinish_then_sigint_ends_a_worker(self, session, exitstatus):
        """An xdist worker that has handed its results over ends at once on SIGINT: execnet sends
        one to a worker still busy 5 s after the controller closed it (a slow end of a loaded
        machine), which raised KeyboardInterrupt into whatever ran then, a gc callback of
        hypothesis printing a PytestUnraisableExceptionWarning in a green run."""
        result = yield
        if hasattr(self.config, "workerinput") and threading.current_thread() is threading.main_thread():
            signal.signal(signal.SIGINT, signal.SIG_DFL)
        return result

    def pytest_unconfigure(self, config):
        if self.sigterm is not None:  # an in-process run (pto-avs spec-check -n) leaves the process as it was
            signal.signal(signal.SIGTERM, self.sigterm)
            self.sigterm = None

    def pytest_runtest_logreport(self, report):
        props = dict(report.user_properties)
        if report.when != "call" or OUTCOME not in props:
            return
        self.outcomes[props[OUTCOME]] += 1
        if WHERE in props:
            self.places.append((props[WHERE], props[OUTCOME]))
        for aspect in props.get(UNOBSERVED, []):
            self.unobserved[aspect] += 1
        notes = props.get(WITHIN, {}).values()
        self.within += any("ULP" in note for note in notes)
        self.one_of += any(note.startswith("one_of[") for note in notes)

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node, error):
        """xdist controller: keep what a worker recorded; a worker that went down without
        handing its recording over (it crashed) makes the recording incomplete."""
        text = getattr(node, "workeroutput", {}).get(RECORDING_OUTPUT)
        if text is None:
            gateway = getattr(node, "gateway", None)
            self.lost_workers.append(f"worker {getattr(gateway, 'id', node)} went down ({error or 'no recording'})")
        elif text:
            self.worker_recordings.append(text)

    def pytest_sessionfinish(self, session, exitstatus):
        try:
            self._finish_session(session, exitstatus)
        except KeyboardInterrupt:  # a second Ctrl-C while gathering or writing: say what became of the file
            if self.config.option.avs_record and self.record_note is None and not hasattr(self.config, "workerinput"):
                self.record_note = (f"pto-avs: interrupted while gathering or writing the recording: "
                                    f"{self.config.option.avs_record} was not written (an earlier file there is "
                                    f"left as it was)")
                sys.stderr.write(f"\n{self.record_note}\n")
                sys.stderr.flush()
            raise

    def _finish_session(self, session, exitstatus):
        suite = self.config.stash.get(SUITE_KEY, None)
        if suite is not None:
            if exitstatus == pytest.ExitCode.INTERRUPTED:  # Ctrl-C: a device is killed, not waited for
                from ..plugins.process import kill_all_devices

                kill_all_devices()
            suite.close()
        if not self.config.option.avs_record:
            return
        from ..plugins.replay import Recording

        stopped = _stopped_early(session, exitstatus)
        if hasattr(self.config, "workerinput"):  # xdist worker: hand the recording to the controller
            recording = Recording()
            if suite is not None:
                recording.merge(suite.recording)
                recording.mark_incomplete(stopped)
            self.config.workeroutput[RECORDING_OUTPUT] = "" if suite is None else json.dumps(recording.to_json())
            return
        if suite is None and not self.worker_recordings and not stopped:
            return  # the conformance suite did not run: nothing to record
        recording = Recording()
        if suite is not None:
            recording.merge(suite.recording)
        for text in self.worker_recordings:
            recording.merge(Recording.from_json(json.loads(text)))
        recording.mark_incomplete(stopped)
        for lost in self.lost_workers:
            recording.mark_incomplete(lost)
        self.record_note = self._write_recording(recording, Path(self.config.option.avs_record))

    @staticmethod
    def _write_recording(recording, path: Path) -> str:
        """Write the recording (unless an incomplete one holds nothing); the summary line that says what happened."""
        answers = sum(len(entry["cases"]) for entry in recording.devices.values())
        if not recording.complete and not answers:
            return f"pto-avs: {recording.incomplete}; no device answers were gathered: nothing written to {path}"
        try:
            recording.write(path)
        except OSError as exc:
            return f"pto-avs: cannot write the recording {path}: {exc}"
        if recording.complete:
            return f"pto-avs: device answers recorded to {path}"
        return (f"pto-avs: INCOMPLETE recording ({recording.incomplete}): {answers} answer(s) written to {path}, "
                f"marked incomplete; replay refuses it unless asked: --device replay:partial:{path}")

    def pytest_terminal_summary(self, terminalreporter):
        if self.outcomes:
            parts = [f"{self.outcomes[o]} {o}" for o in OUTCOMES if self.outcomes[o]]
            line = "pto-avs: " + ", ".join(parts)
            if self.unobserved:
                total = sum(self.unobserved.values())
                detail = ", ".join(f"{a} {n}" for a, n in sorted(self.unobserved.items()))
                line += f"; {total} aspect(s) not observable in passing cases ({detail})"
            if self.within:
                line += f"; {self.within} passing case(s) within their ULP tolerance, not bit-exact"
            if self.one_of:
                line += f"; {self.one_of} passing case(s) matched one of the outcomes their one_of allows"
            terminalreporter.write_sep("-", "pto-avs outcomes")
            terminalreporter.write_line(line)
            verbosity = self.config.get_verbosity()
            if verbosity >= 0 and self.places:
                for text in outcome_tables(self.places, by_adr=bool(self.config.option.avs_adr) or verbosity > 0,
                                           adrs=self.config.option.avs_adr, every_divergence=verbosity > 0):
                    terminalreporter.write_line(text)
        if self.record_note:  # said only once the file is written (or that it was not)
            terminalreporter.write_line(self.record_note)


# ---------------------------------------------------------------------------
# the closing tables

TABLE_OUTCOMES = ("pass", "fail", "not supported", "device error", "not observable", "vector error")
RAN = ("pass", "fail", "device error")  # the outcomes of a case a device ran
ALWAYS_SHOWN = ("pass", "fail", "not supported", "device error")  # the other columns only when counted


def _table(title: str, rows: dict, *, total_row: bool = True) -> list[str]:
    """``rows`` {name: (cases, Counter of outcomes)} as aligned text lines, with a total row
    (not for overlapping rows: a case traces to several ADRs). The outcomes count runs (a case
    once per device), so where a case ran on several devices a ``runs`` column says how many."""
    shown = [o for o in TABLE_OUTCOMES if o in ALWAYS_SHOWN or any(counts[o] for _, counts in rows.values())]
    total_cases = sum(cases for cases, _ in rows.values())
    total = Counter()
    for _, counts in rows.values():
        total.update(counts)
    runs = any(sum(counts.values()) != cases for cases, counts in rows.values())

    def cells(cases, counts):
        return [str(cases), *([str(sum(counts.values()))] if runs else []), *(str(counts[o]) for o in shown)]

    body = [[name, *cells(cases, counts)] for name, (cases, counts) in sorted(rows.items())]
    if total_row:
        body.append(["total", *cells(total_cases, total)])
    header = [title, "cases", *(["runs"] if runs else []), *shown]
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]

    def line(row):
        return "  ".join([row[0].ljust(widths[0]), *(cell.rjust(w) for cell, w in zip(row[1:], widths[1:]))]).rstrip()

    return [line(header), *(line(row) for row in body)]


def outcome_tables(places, *, by_adr: bool, adrs=(), every_divergence: bool = False) -> list[str]:
    """The closing summary: one row per operation (and per ADR when ``by_adr``: the ``adrs``
    asked for, when any, else every ADR the cases trace to): distinct cases, their runs when a
    case ran on several devices, then each outcome counted over the runs; with two or more devices,
    the first case per operation (in case-ID order) on which the devices' outcomes differ."""
    by_operation: dict = {}
    by_adr_rows: dict = {}
    runs: dict = {}  # (operation, case) -> {device: outcome}
    devices = set()
    for where, outcome in places:
        operation = where.get("operation") or "(unknown operation)"
        groups = [(by_operation, operation)]
        if by_adr:
            groups += [(by_adr_rows, adr) for adr in where.get("adrs") or ["(no ADR)"] if not adrs or adr in adrs]
        for table, name in groups:
            cases, counts = table.setdefault(name, (set(), Counter()))
            cases.add(where.get("case"))
            counts[outcome] += 1
        if where.get("device") is not None:
            devices.add(where["device"])
            runs.setdefault((operation, where.get("case")), {})[where["device"]] = outcome
    lines = [""]
    lines += _table("operation", {name: (len(cases), counts) for name, (cases, counts) in by_operation.items()})
    if by_adr:
        lines += [""] + _table("ADR", {name: (len(cases), counts) for name, (cases, counts) in by_adr_rows.items()},
                               total_row=False)
    if len(devices) >= 2:
        first: dict = {}
        for (operation, case), answers in sorted(runs.items()):
            answers = {device: o for device, o in answers.items() if o in RAN}  # (not supported is no divergence)
            if len(answers) >= 2 and len(set(answers.values())) > 1 and (every_divergence or operation not in first):
                first.setdefault(operation, []).append((case, answers))
        lines += [""]
        if not first:
            lines.append(f"devices agree on every case run on two or more of them ({', '.join(sorted(devices))})")
        for operation, diverging in sorted(first.items()):
            for case, answers in diverging:
                told = ", ".join(f"{device} {outcome}" for device, outcome in sorted(answers.items()))
                lines.append(f"{operation}: {'first divergence' if case == diverging[0][0] else 'divergence'} "
                             f"{case}: {told}")
    return lines
