"""The device interface every adapter implements, and adapter discovery.

A device runs cases and returns ``pto_avs.contract.case.Observation`` objects. It declares
what it can do in ``Capabilities``; the runner never asks it for more. Adapters
are found through the ``pto_avs.devices`` entry-point group: the entry point's
name is the device name used with ``--device NAME[:ARG]`` and its object is a
factory ``factory(arg: str | None) -> Device``. The factory's module may also define
``check_argument(arg: str | None) -> str | None`` (the reason ARG is refused, or None): the
runner calls it with the options, before any vector is read or any device is opened.
"""
from __future__ import annotations

import difflib
import importlib
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from importlib.metadata import entry_points
from typing import Callable, Iterable, Optional

from ..contract.case import ASPECTS, Case, Observation

ENTRY_POINT_GROUP = "pto_avs.devices"


@dataclass(frozen=True)
class Capabilities:
    profile: str  # the numeric profile the device implements: "pto-v0" or "hw-ieee"
    operations: frozenset  # the spec operations it runs (catalog mnemonics)
    dtypes: Optional[frozenset] = None  # None: every DataType
    aspects: frozenset = frozenset(ASPECTS)  # what it can observe
    direct_calls: bool = False  # can run direct-call program items
    extras: dict = field(default_factory=dict, hash=False, compare=False)
    # The state of issue 23 (vectors/FORMAT.md): whether the device sets an initial global memory and
    # reads it back with a data fault's address (``memory``), reads the memory-event log (``events``),
    # sets and reads the shared tile registers S0..S255 (``shared_tiles``). A case that needs one the
    # device lacks is not supported by it (``Device.supports``), never passed.
    memory: bool = False
    events: bool = False
    shared_tiles: bool = False
    # Protocol 1.2: whether the device sets the per-tile feature-map descriptors (``feature_maps``:
    # a state tile's ``feature_map``, which TIMG2COL reads).
    feature_maps: bool = False


class Device(ABC):
    """A device under test (or the golden model)."""

    name: str = "device"
    capabilities: Capabilities

    @abstractmethod
    def execute(self, case: Case) -> Observation:
        """Run one case from its initial state; never raises for a device failure."""

    def execute_batch(self, cases: Iterable[Case]) -> list[Observation]:
        return [self.execute(case) for case in cases]

    def supports(self, case: Case) -> Optional[str]:
        """None if the device can run the case, else the reason it cannot."""
        caps = self.capabilities
        if caps.profile not in case.profiles:
            return f"case does not hold under profile {caps.profile}"
        if case.operation not in caps.operations:
            return f"{self.name} does not implement {case.operation}"
        if not caps.direct_calls and any(isinstance(item, dict) for item in case.program):
            return f"{self.name} cannot run direct calls"
        if caps.dtypes is not None:
            missing = sorted(case_dtypes(case) - caps.dtypes)
            if missing:
                return f"{self.name} does not support {', '.join(missing)}"
        lacking = [need for need in case_needs(case) if not getattr(caps, need)]
        if lacking:
            return f"{self.name} does not {' or '.join(NEED_WORDS[need] for need in lacking)}"
        return None

    def close(self) -> None:
        """Release external resources (processes, files)."""


def case_dtypes(case: Case) -> set:
    """Every DataType name a case's state, direct calls and expectations mention."""
    names = {t["dtype"] for t in case.state.get("tiles", []) if "dtype" in t}
    names |= {t["dtype"] for t in case.expect.get("tiles", []) if "dtype" in t}
    for item in case.program:
        if isinstance(item, dict):
            names |= {item[k] for k in ("dtype", "atype", "btype") if item.get(k)}
    return names


# What a case may need beyond tiles (the Capabilities flag of each), in the words of a refusal.
NEEDS = ("memory", "events", "shared_tiles", "feature_maps")
NEED_WORDS = {"memory": "model global memory (initial bytes, memory read-back, data-fault address)",
              "events": "record the memory-event log",
              "shared_tiles": "model the shared tile registers S0..S255",
              "feature_maps": "set the per-tile feature-map descriptors (TIMG2COL)"}
MEMORY_EXPECTATIONS = ("memory", "memory_unchanged", "fault_address")


def case_needs(case: Case) -> list[str]:
    """Which of ``NEEDS`` a case needs: ``memory`` when its state gives a memory or it expects memory
    bytes, an unchanged memory or a fault address; ``events`` when it expects memory events;
    ``shared_tiles`` when its state or expectations give shared tiles (``one_of`` entries count);
    ``feature_maps`` when a state tile has a feature-map descriptor."""
    state, expect = case.state, case.expect
    outcomes = [expect, *(entry for entry in expect.get("one_of") or () if isinstance(entry, dict))]
    needs = []
    if state.get("memory") is not None or any(o.get(k) not in (None, False) for o in outcomes for k in MEMORY_EXPECTATIONS):
        needs.append("memory")
    if any(o.get("events") is not None for o in outcomes):
        needs.append("events")
    if state.get("shared_tiles") or any(o.get("shared_tiles") for o in outcomes):
        needs.append("shared_tiles")
    if any(tile.get("feature_map") is not None for tile in state.get("tiles") or ()):
        needs.append("feature_maps")
    return needs


# The memory members of an observation (vectors/FORMAT.md "Observation"; the spec's MemoryEvent).
EVENT_KINDS = ("InitialWrite", "Load", "Store", "Atomic", "Fence")
MEMORY_ORDERS = ("Relaxed", "Acquire", "Release", "AcquireRelease")
EVENT_SIZES = (1, 2, 4, 8)
MEMORY_AGENTS = 4  # PTO_MODEL_MEMORY_AGENTS: the PEs of a core
MEMORY_SIZE_BOUNDS = (256, 65536)  # PTO_MODEL_MEMORY_BYTES's legal range
_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_WORD = 1 << 64


def _shown(value) -> str:
    """A value a device answered, as a message quotes it (clipped)."""
    text = repr(value)
    return text if len(text) <= 40 else text[:40] + "..."


def _is_word(value) -> bool:
    return type(value) is int and 0 <= value < _WORD


def memory_answer_problem(data) -> Optional[str]:
    """What is wrong with the memory members of an observation a device answered (JSON, before it
    is parsed), naming the member: ``fault_address`` not a 64-bit address; ``memory`` not
    ``{"size": 256..65536, "hex": 2*size hex digits}``; ``events`` not a list of events of a known
    ``kind`` and ``order``, an agent 0..3, a 64-bit address, a size of 1, 2, 4 or 8 bytes and
    64-bit ``read``/``write`` values. None when they are absent or well formed."""
    if not isinstance(data, dict):
        return None  # (the observation's own parser says so)
    address = data.get("fault_address")
    if address is not None and not _is_word(address):
        return f"member 'fault_address': {_shown(address)} is not a 64-bit address"
    memory = data.get("memory")
    if memory is not None:
        if not isinstance(memory, dict):
            return f"member 'memory' must be an object {{size, hex}}, not {type(memory).__name__}"
        size, text = memory.get("size"), memory.get("hex")
        low, high = MEMORY_SIZE_BOUNDS
        if type(size) is not int or not low <= size <= high:
            return f"member 'memory.size': {_shown(size)} is not a memory size {low}..{high}"
        if not isinstance(text, str):
            return f"member 'memory.hex' must be a string of hex digits, not {type(text).__name__}"
        if len(text) != 2 * size:
            return f"member 'memory.hex': {len(text)} hex digits for a memory of {size} bytes (expected {2 * size})"
        if not _HEX_DIGITS.issuperset(text):
            bad = next(i for i, ch in enumerate(text) if ch not in _HEX_DIGITS)
            return f"member 'memory.hex': {text[bad]!r} at digit {bad} is not a hex digit"
    events = data.get("events")
    if events is not None:
        if not isinstance(events, list):
            return f"member 'events' must be a list of memory events, not {type(events).__name__}"
        for number, event in enumerate(events):
            problem = _event_problem(event)
            if problem:
                return f"member 'events.{number}': {problem}"
    return None


def _event_problem(event) -> Optional[str]:
    if not isinstance(event, dict):
        return f"an event must be an object, not {type(event).__name__}"
    if event.get("kind") not in EVENT_KINDS:
        return f"kind {_shown(event.get('kind'))} is not one of {', '.join(EVENT_KINDS)}"
    if "order" in event and event["order"] not in MEMORY_ORDERS:
        return f"order {_shown(event['order'])} is not one of {', '.join(MEMORY_ORDERS)}"
    agent = event.get("agent")
    if agent is not None and not (type(agent) is int and 0 <= agent < MEMORY_AGENTS):
        return f"agent {_shown(agent)} is not a PE 0..{MEMORY_AGENTS - 1}"
    if event.get("size") is not None and not (type(event["size"]) is int and event["size"] in EVENT_SIZES):
        return f"size {_shown(event['size'])} is not 1, 2, 4 or 8 bytes"
    for name in ("address", "read", "write"):
        if event.get(name) is not None and not _is_word(event[name]):
            return f"{name} {_shown(event[name])} is not a 64-bit value"
    return None


DeviceFactory = Callable[[Optional[str]], Device]


def available_devices() -> dict[str, DeviceFactory]:
    """Device factories registered under the entry-point group, by name."""
    return {ep.name: ep for ep in entry_points(group=ENTRY_POINT_GROUP)}


def did_you_mean(word: str, choices, cutoff: float = 0.6) -> str:
    """`` (did you mean 'x'?)`` for the closest of ``choices`` to a misspelt ``word``, else ''
    (``cutoff``: the least similarity, 0..1; long names that share a prefix need a higher one)."""
    close = difflib.get_close_matches(word, [str(c) for c in choices], n=1, cutoff=cutoff)
    return f" (did you mean {close[0]!r}?)" if close else ""


def check_device_spec(spec: str) -> Optional[str]:
    """Why ``NAME[:ARG]`` names no device that could be opened (unknown NAME, or an ARG the
    adapter's ``check_argument`` refuses), or None; opens nothing and reads no vector."""
    name, colon, arg = spec.partition(":")
    factories = available_devices()
    if name not in factories:
        known = ", ".join(sorted(factories)) or "none installed"
        return f"unknown device {name!r}{did_you_mean(name, factories)} (known: {known})"
    try:
        module = importlib.import_module(factories[name].module)
    except Exception:  # an adapter that cannot even be imported: opening it says why, as its device error
        return None
    check = getattr(module, "check_argument", None)
    return check(arg if colon else None) if callable(check) else None


def open_device(spec: str) -> Device:
    """Create a device from ``NAME[:ARG]`` (e.g. ``golden:hw-ieee``)."""
    name, _, arg = spec.partition(":")
    factories = available_devices()
    if name not in factories:
        known = ", ".join(sorted(factories)) or "none installed"
        raise ValueError(f"unknown device {name!r}{did_you_mean(name, factories)} (known: {known})")
    factory = factories[name].load()
    return factory(arg or None)
