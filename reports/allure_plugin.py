"""pytest plugin: our Allure labels, links, parameters and attachments for the vector cases.

Registered through the ``pytest11`` entry point ``pto_avs_reports`` (or ``-p
pto_avs.reports.allure_plugin``); allure-pytest writes the results when ``--alluredir`` is
given, this plugin says what they carry. For each case item of the runner
(``pto_avs.avs.pytest_plugin.CaseItem``: ``case``, ``device_label``, ``profile``, and after
the run ``outcome`` and ``verdict``):

- labels (``reports.case_report.labels``): the spec test ID, operation, kind, profile,
  device, one ``adr`` per ADR and one ``adrs`` naming the set ("ADR-0035, ADR-0047"),
  feature = operation, story = spec test ID, suites device > operation > ID;
  after the run its ``verdict`` and one ``mismatch`` label per failing aspect;
- links to the spec test file and, on a failing or erring result, to each ADR
  document, at the pinned spec commit;
- parameters: device, profile, compact state and program;
- attachments: every aspect's verdict, and on failure the comparator's bit-level diff; a
  failing memory aspect adds its own (the first differing byte: address, expected and observed
  bytes around it), a failing events aspect its own (the first divergent event).

Every run with ``--alluredir`` also gets ``environment.properties`` and
``categories.json`` (``reports.allure_files``), written by the xdist controller (or
the only process) at the end of the session, both or neither.
"""
from __future__ import annotations

import os
from pathlib import Path

import allure
import pytest
from allure_commons.types import AttachmentType
from allure_pytest.utils import ALLURE_DESCRIPTION_MARK, ALLURE_LABEL_MARK, ALLURE_LINK_MARK

from . import allure_files
from . import case_report as cr

DEVICE_PROPERTY = "pto_avs_reports_device"  # user properties: what ran, for the controller
PROFILE_PROPERTY = "pto_avs_reports_profile"
RECORDING_PROPERTY = "pto_avs_reports_recording"  # a replayed recording: "<label>\n<evidence>"


def _is_case_item(item) -> bool:
    return hasattr(item, "case") and hasattr(item, "device_label") and hasattr(item, "profile")


def pytest_configure(config):
    config.pluginmanager.register(RunFiles(config), "pto_avs_reports_run_files")


_ALLURE_SELECTIONS = ("allure_epics", "allure_features", "allure_stories", "allure_ids", "allure_severities",
                      "allure_labels")


_IN_USE = pytest.StashKey[bool]()


def _allure_in_use(config) -> bool:
    """Labels matter only when Allure writes results or selects tests by them (marking
    thousands of items costs seconds of every other run's collection, and the dynamic
    labels of every result as much again of its run). Decided once per session."""
    if _IN_USE not in config.stash:
        config.stash[_IN_USE] = _allure_option_given(config)
    return config.stash[_IN_USE]


def _allure_option_given(config) -> bool:
    option = config.option
    return bool(getattr(option, "allure_report_dir", None) or os.environ.get("ALLURE_TESTPLAN_PATH")
                or any(getattr(option, name, None) for name in _ALLURE_SELECTIONS))


@pytest.hookimpl(tryfirst=True)  # before allure-pytest selects items by label (--allure-label ...)
def pytest_collection_modifyitems(config, items):
    if not _allure_in_use(config):
        return
    label = getattr(pytest.mark, ALLURE_LABEL_MARK)
    for item in items:
        if _is_case_item(item):
            _mark_case_item(item)
        elif hasattr(item, "adrs") and hasattr(item, "error"):  # a vector that failed to load
            for adr_id in item.adrs:
                item.add_marker(label(adr_id, label_type=cr.ADR))
            item.add_marker(label(cr.adr_set(item.adrs), label_type=cr.ADR_SET))


def _mark_case_item(item) -> None:
    case, device, profile = item.case, item.device_label, item.profile
    label = getattr(pytest.mark, ALLURE_LABEL_MARK)
    for name, value in cr.labels(case, device, profile):
        item.add_marker(label(value, label_type=name))
    link = getattr(pytest.mark, ALLURE_LINK_MARK)
    for name, url in cr.links(case):
        item.add_marker(link(url, link_type="link", name=name))
    item.add_marker(getattr(pytest.mark, ALLURE_DESCRIPTION_MARK)(cr.description(case)))
    item.user_properties += [(DEVICE_PROPERTY, device), (PROFILE_PROPERTY, profile)]
    from .bringup import recording_evidence

    evidence = recording_evidence(getattr(getattr(item, "slot", None), "capabilities", None))
    if evidence:
        item.user_properties.append((RECORDING_PROPERTY, f"{device}\n{evidence}"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    yield
    if call.when != "call" or not _is_case_item(item) or not _allure_in_use(item.config):
        return
    allure.dynamic.title(f"{item.case.name} on {item.device_label}")
    for name, value in cr.parameters(item.case, item.device_label, item.profile):
        allure.dynamic.parameter(name, value)
    outcome = getattr(item, "outcome", None)
    if outcome:
        allure.dynamic.label(cr.VERDICT, outcome)
    if outcome in (cr.FAIL, cr.DEVICE_ERROR):
        for name, url in cr.adr_links(item.case):
            allure.dynamic.link(url, name=name)
    verdict = getattr(item, "verdict", None)
    if verdict is None:
        return
    if verdict.failed:
        allure.dynamic.label(cr.MISMATCH, *verdict.failed)
    if verdict.unobserved:
        allure.dynamic.label(cr.UNOBSERVED, *verdict.unobserved)
    if verdict.aspects:
        allure.attach("\n".join(f"{a}: {v.status}" for a, v in verdict.aspects.items()),
                      name="aspect verdicts", attachment_type=AttachmentType.TEXT)
    if outcome in (cr.FAIL, cr.DEVICE_ERROR):
        allure.attach(verdict.report(), name="bit-level diff" if outcome == cr.FAIL else "device error",
                      attachment_type=AttachmentType.TEXT)
    for name, text in cr.memory_attachments(verdict):
        allure.attach(text, name=name, attachment_type=AttachmentType.TEXT)


class RunFiles:
    """Devices and profiles that ran (on the xdist controller, from the workers' reports),
    written with the spec and model versions when the session ends."""

    def __init__(self, config):
        self.config = config
        self.devices: set[str] = set()
        self.profiles: set[str] = set()
        self.recordings: dict[str, str] = {}

    def pytest_runtest_logreport(self, report):
        if report.when != "call":
            return
        for name, value in report.user_properties:
            if name == DEVICE_PROPERTY:
                self.devices.add(value)
            elif name == PROFILE_PROPERTY:
                self.profiles.add(value)
            elif name == RECORDING_PROPERTY:
                label, _, evidence = str(value).partition("\n")
                self.recordings[label] = evidence

    def pytest_sessionfinish(self, session):
        alluredir = self.config.getoption("allure_report_dir", default=None)
        if not alluredir or hasattr(self.config, "workerinput"):  # workers leave it to the controller
            return
        allure_files.write_run_files(Path(alluredir), allure_files.environment(
            self.devices, self.profiles, self.vectors(), self.recordings))

    def vectors(self):
        """The vector paths the runner read: its shipped directory unless --vectors-only,
        plus --vectors; None when the runner is not active."""
        extra = self.config.getoption("avs_vectors", default=None)
        if extra is None:
            return None
        paths = [str(Path(p).resolve()) for p in extra]
        if not self.config.getoption("avs_vectors_only", default=False):
            from ..contract.loader import VECTORS_DIR

            paths.insert(0, str(VECTORS_DIR))
        return ", ".join(paths)
