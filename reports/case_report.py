"""What the Allure report says about one case run on one device: labels, links, parameters.

Pure functions of a ``Case``, the device name and the numeric profile; the pytest
plugin (``pto_avs.reports.allure_plugin``) attaches them to the Allure result and the
coverage report (``reports.coverage``) reads the same label names back.
"""
from __future__ import annotations

import re
from typing import Iterable

from ..contract.case import Case
from . import traceability

# Label names of our own (Allure's feature/story/suite labels are used as well).
SPEC_TEST = "specTest"
OPERATION = "operation"
KIND = "kind"
PROFILE = "profile"
DEVICE = "device"
ADR = "adr"
ADR_SET = "adrs"  # one label: every ADR of the case, "ADRs 0035, 0052, ..." (the ADR view's groups)
REQUIREMENT = "requirement"
VECTOR_FILE = "vectorFile"
CASE = "case"
VERDICT = "verdict"
MISMATCH = "mismatch"
UNOBSERVED = "not observable"  # label: expected aspects the device cannot observe (the case passed on the rest)

# Overall verdict of one case on one device (label VERDICT): the runner's outcome
# (pto_avs.avs.pytest_plugin.CaseItem.outcome).
PASS = "pass"
FAIL = "fail"
NOT_SUPPORTED = "not supported"
NOT_OBSERVABLE = "not observable"
DEVICE_ERROR = "device error"
VERDICTS = (PASS, FAIL, NOT_SUPPORTED, NOT_OBSERVABLE, DEVICE_ERROR)

SUMMARY_LIMIT = 200
DEFAULT_TILE_CAPACITY = 262144  # vectors/FORMAT.md, state.tile_capacity
DEFAULT_MEMORY_BYTES = 4096  # vectors/FORMAT.md, state.memory.size


def labels(case: Case, device: str, profile: str) -> list[tuple[str, str]]:
    """Allure labels. One ``adr`` label per ADR (for tools and the coverage report) and one
    ``adrs`` label naming them all (``adr_set``), so the ADR view groups operation > ADR set > spec test ID
    and lists each case run once; suites view device > operation > ID."""
    out: list[tuple[str, str]] = [(SPEC_TEST, case.vector_id), (OPERATION, case.operation),
                                  (KIND, case.kind), (PROFILE, profile), (DEVICE, device),
                                  (CASE, case.name)]
    if case.path:
        out.append((VECTOR_FILE, case.path))
    out += [(ADR, a) for a in case.adrs]
    out += [(REQUIREMENT, r) for r in case.requirements]
    out += [(ADR_SET, adr_set(case.adrs)), ("feature", case.operation), ("story", case.vector_id)]
    out += [("parentSuite", f"{device} ({profile})"), ("suite", case.operation),
            ("subSuite", case.vector_id)]
    return out


def adr_set(adrs: Iterable[str]) -> str:
    """The ``adrs`` label, short enough to read as a tree group's title: ``ADRs 0035, 0047``
    for ADR-0035 and ADR-0047 (sorted; an ID of another form is kept whole), or ``no ADR``."""
    ids = sorted(set(adrs))
    if not ids:
        return "no ADR"
    return "ADRs " + ", ".join(a[len("ADR-"):] if re.fullmatch(r"ADR-\d+", a) else a for a in ids)


def links(case: Case) -> list[tuple[str, str]]:
    """(name, url): the spec test file at the pinned commit (spec IDs only; every result)."""
    test = traceability.spec_tests().get(case.vector_id)
    return [(f"spec test {test.id}", test.url)] if test is not None else []


def adr_links(case: Case) -> list[tuple[str, str]]:
    """(name, url): each ADR document at the pinned commit, named "ADR-0047 Numeric rounding
    semantics". Only failing results carry them: on every result they were a third of a
    self-contained report's size, and the ``adrs`` label names the ADRs already."""
    return [(record.heading, record.url) for record in map(traceability.adr, case.adrs)
            if record.path]


def parameters(case: Case, device: str, profile: str) -> list[tuple[str, str]]:
    return [("device", device), ("profile", profile),
            ("state", state_summary(case.state)), ("program", program_summary(case.program))]


def description(case: Case) -> str:
    """Markdown: what the spec test checks (catalog summary and pass condition) and the case source."""
    lines = []
    test = traceability.spec_tests().get(case.vector_id)
    if test is not None:
        lines += [f"**{test.id}** ({test.kind}): {test.summary}", "",
                  f"Pass condition: {test.pass_condition}", ""]
    lines.append(f"Case `{case.name}`, expectations from {case.source}"
                 + (f": {case.reference}" if case.reference else ""))
    return "\n".join(lines)


def state_summary(state: dict) -> str:
    """One line: tiles (index, type, layout, valid shape), status flags, GPRs, tile capacity."""
    parts = []
    tiles = state.get("tiles") or []
    if isinstance(tiles, dict):
        tiles = [{"index": k, **v} for k, v in tiles.items()]
    for tile in tiles:
        valid = tile.get("valid")
        shape = f" {valid[0]}x{valid[1]}" if valid else ""
        parts.append(f"T[{tile.get('index')}] {tile.get('dtype', '?')} "
                     f"{tile.get('layout', 'RowMajor')}{shape}")
    if state.get("status"):
        parts.append(f"status=0x{state['status']:02X}")
    for reg, value in sorted((state.get("gprs") or {}).items()):
        parts.append(f"R{reg}=0x{value:X}")
    if state.get("tile_capacity", DEFAULT_TILE_CAPACITY) != DEFAULT_TILE_CAPACITY:
        parts.append(f"tile_capacity={state['tile_capacity']}")
    parts += memory_summary(state)
    return _clip("; ".join(parts) or "reset state")


def memory_summary(state: dict) -> list[str]:
    """The parts of ``state_summary`` for the state of issue 23: the memory (size, each region's
    address and length), PE 1..3's GPRs and the shared tiles."""
    parts = []
    memory = state.get("memory")
    if memory is not None:
        regions = memory.get("regions") or []
        spans = ", ".join(f"{r.get('address', 0):#x}+{len(''.join(str(r.get('bytes', '')).split())) // 2}"
                          for r in regions)
        parts.append(f"memory {memory.get('size', DEFAULT_MEMORY_BYTES)} B" + (f": {spans}" if spans else ""))
    for pe, registers in sorted((state.get("pe_gprs") or {}).items(), key=lambda item: int(item[0])):
        parts += [f"PE{pe}.R{reg}=0x{value:X}" for reg, value in sorted(registers.items(), key=lambda i: int(i[0]))]
    for tile in state.get("shared_tiles") or []:
        valid = tile.get("valid")
        parts.append(f"S[{tile.get('index')}] {tile.get('dtype', '?')}" + (f" {valid[0]}x{valid[1]}" if valid else ""))
    return parts


# The aspects of issue 23 (memory, memory events): a bring-up compares the result bytes first.
MEMORY_ASPECTS = {"memory": "memory: first divergence", "events": "memory events: first divergence"}


def first_divergence(verdict) -> str:
    """A failing verdict's first divergence, as the bring-up report and a failure's summary name it:
    of the memory aspect when it fails (the bytes a kernel stored), else of the events, else of the
    first failing aspect; a device error's message; empty for a verdict that did not fail."""
    if verdict.error is not None:
        return verdict.error
    failed = verdict.failed
    if not failed:
        return ""
    aspect = next((a for a in MEMORY_ASPECTS if a in failed), failed[0])
    return str(verdict.aspects[aspect].first)


def memory_attachments(verdict) -> list[tuple[str, str]]:
    """(name, text) of an Allure attachment for each failing memory aspect: the memory's first
    differing byte (its address, the expected and observed byte, the expected and observed bytes
    around it, how many of the compared bytes differ), the first divergent memory event (its index
    or the first unmatched event, expected and observed) and the further ones the comparator kept."""
    out = []
    for aspect, name in MEMORY_ASPECTS.items():
        entry = verdict.aspects.get(aspect)
        if entry is not None and entry.status == "fail":
            unit = "bytes" if aspect == "memory" else "comparisons"
            lines = [f"first divergence: {entry.first}", f"{entry.mismatches} of {entry.checked} {unit} differ"]
            out.append((name, "\n".join(lines + list(entry.diff))))
    return out


def program_summary(program: Iterable) -> str:
    """One line: the instructions (assembly lines, raw words, direct calls) in order."""
    parts = []
    for item in program:
        if isinstance(item, str):
            parts += [s.strip() for line in item.splitlines() for s in line.split(";") if s.strip()]
        elif isinstance(item, int):
            parts.append(f"0x{item:08X}")
        elif isinstance(item, dict):
            args = ", ".join(f"{k}={v}" for k, v in item.items() if k != "call")
            parts.append(f"{item.get('call', '?')}({args})")
        else:
            parts.append(repr(item))
    return _clip(f"{len(parts)} items: " + "; ".join(parts))


def _clip(text: str) -> str:
    return text if len(text) <= SUMMARY_LIMIT else text[:SUMMARY_LIMIT - 1] + "…"
