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
