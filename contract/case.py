"""Cases and observations: the two shapes every part of pto-avs agrees on.

A ``Case`` is one vector case after loading (see ``vectors/FORMAT.md``); an
``Observation`` is what a device reports after running it. Neither knows YAML,
pytest or any particular device.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

PROFILES = ("pto-v0", "hw-ieee")
FAULT_CLASSES = (
    "Fault_IllegalInstruction",
    "Fault_BundleControl",
    "Fault_TileLegality",
    "Fault_TileAllocation",
)
ASPECTS = (
    "fault",
    "flags",
    "descriptor",
    "payload",
    "carrier",
    "padding_defined",
    "padding_value",
    "sources",
    "storage",
    "encoding",
)


@dataclass(frozen=True)
class Case:
    """One case of one vector file, normalized (integers are ints, tiles keyed by index)."""

    vector_id: str
    name: str
    operation: str
    kind: str
    profiles: tuple[str, ...]
    adrs: tuple[str, ...]
    requirements: tuple[str, ...]
    state: dict = field(hash=False, compare=False)
    program: tuple = ()  # items: str (assembly), int (word) or dict (direct call)
    expect: dict = field(default_factory=dict, hash=False, compare=False)
    source: str = "hand"
    reference: str = ""
    path: str = ""

    @property
    def id(self) -> str:
        return f"{self.vector_id}::{self.name}"

    def to_json(self) -> dict:
        """The device-facing part of the case (what a device needs to run it)."""
        return {
            "id": self.id,
            "operation": self.operation,
            "state": self.state,
            "program": list(self.program),
        }


@dataclass
class TileObservation:
    dtype: Optional[str] = None
    layout: Optional[str] = None
    location: Optional[str] = None
    rows: Optional[int] = None
    cols: Optional[int] = None
    valid: Optional[tuple[int, int]] = None
    capacity: Optional[int] = None
    mask: Optional[str] = None
    words: Optional[list] = None  # rows x cols Words read back at logical coordinates
    defined: Optional[list] = None  # rows x cols booleans
    storage: Optional[list] = None  # element bits by storage index

    def to_json(self) -> dict:
        out = {k: v for k, v in self.__dict__.items() if v is not None}
        if "valid" in out:
            out["valid"] = list(out["valid"])
        return out

    @classmethod
    def from_json(cls, data: dict) -> "TileObservation":
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        if known.get("valid") is not None:
            known["valid"] = tuple(known["valid"])
        return cls(**known)


@dataclass
class Observation:
    fault: Optional[str] = None
    flags: Optional[int] = None
    tiles: dict[int, TileObservation] = field(default_factory=dict)
    encoding: Optional[list[int]] = None
    error: Optional[str] = None  # set when the device failed to execute the case
    detail: Optional[str] = None  # the device's own account of a fault (which step, why), if it gives one

    def to_json(self) -> dict:
        out: dict[str, Any] = {"fault": self.fault, "flags": self.flags,
                               "tiles": {str(i): t.to_json() for i, t in sorted(self.tiles.items())}}
        if self.encoding is not None:
            out["encoding"] = list(self.encoding)
        if self.error is not None:
            out["error"] = self.error
        if self.detail is not None:
            out["detail"] = self.detail
        return out

    @classmethod
    def from_json(cls, data: dict) -> "Observation":
        """Parse a JSON observation; raises ValueError on a malformed one."""
        if not isinstance(data, dict):
            raise ValueError("observation must be an object")
        tiles = data.get("tiles") or {}
        if not isinstance(tiles, dict):
            raise ValueError("observation 'tiles' must be an object")
        try:
            parsed = {int(k): TileObservation.from_json(v) for k, v in tiles.items()}
        except (TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"malformed observation tiles: {exc}") from None
        fault = data.get("fault")
        if fault is not None and fault not in FAULT_CLASSES:
            raise ValueError(f"unknown fault class {fault!r}")
        flags = data.get("flags")
        if flags is not None and not isinstance(flags, int):
            raise ValueError("observation 'flags' must be an integer")
        return cls(fault=fault, flags=flags, tiles=parsed,
                   encoding=data.get("encoding"), error=data.get("error"),
                   detail=data.get("detail") if isinstance(data.get("detail"), str) else None)

    @classmethod
    def device_error(cls, message: str) -> "Observation":
        return cls(error=message)
