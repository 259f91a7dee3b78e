"""Cases and observations: the two shapes every part of pto-avs agrees on.

A ``Case`` is one vector case after loading (see ``vectors/FORMAT.md``); an
``Observation`` is what a device reports after running it. Neither knows YAML,
pytest or any particular device.
"""
from __future__ import annotations

import numbers
from functools import lru_cache
from dataclasses import dataclass, field
from typing import Any, Optional

PROFILES = ("pto-v0", "hw-ieee")
FAULT_CLASSES = (
    "Fault_IllegalInstruction",
    "Fault_BundleControl",
    "Fault_TileLegality",
    "Fault_TileAllocation",
    "Fault_DataAlignment",
    "Fault_DataPage",
)
DATA_FAULTS = ("Fault_DataAlignment", "Fault_DataPage")  # the faults that carry a fault address
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
    "memory",
    "events",
)
EVENT_FIELDS = ("kind", "agent", "address", "size", "read", "write", "order")  # an observed memory event


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


# The JSON type of every Observation member, when it is not null (vectors/FORMAT.md "Observation").
MEMBER_TYPES = {
    "fault": "string", "flags": "integer", "tiles": "object", "encoding": "array", "error": "string",
    "detail": "string", "fault_address": "integer", "memory": "object", "events": "array", "shared_tiles": "object",
}
TILE_MEMBER_TYPES = {
    "dtype": "string", "layout": "string", "location": "string", "mask": "string", "rows": "integer",
    "cols": "integer", "capacity": "integer", "valid": "array", "words": "array", "defined": "array",
    "storage": "array", "storage_kind": "string", "bytes": "array",
}
STORAGE_KINDS = ("numeric", "predicate")  # TileStorageKind; an observed tile without one is numeric
# The names an observed descriptor may hold (vectors/schema.json $defs dtype, layout, location).
LAYOUTS = ("RowMajor", "ColumnMajor", "ZN", "NZ", "CUBE_M16", "CUBE_M32", "CUBE_N8")
LOCATIONS = ("Vector", "Matrix", "Memory", "Any")
MAX_PREDICATE_BYTES = 65536  # the largest tile's payload: a predicate tile packs 8 bits a byte


_EXACT_JSON_TYPES = {type(None): "null", bool: "boolean", int: "integer", float: "number", str: "string",
                     dict: "object", list: "array", tuple: "array"}


def json_type(value) -> str:
    """The JSON type a value stands for (numpy integers are integers, numpy arrays arrays)."""
    exact = _EXACT_JSON_TYPES.get(type(value))  # the common case, without the abstract-class checks
    if exact is not None:
        return exact
    if value is None:
        return "null"
    if isinstance(value, bool) or type(value).__name__ == "bool_":
        return "boolean"
    if isinstance(value, numbers.Integral):
        return "integer"
    if isinstance(value, numbers.Real):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "object"
    if isinstance(value, (list, tuple)) or hasattr(value, "__array__"):
        if type(value).__name__ == "ndarray":  # numpy's (an in-process device's grids): one look-up from now on
            _EXACT_JSON_TYPES[type(value)] = "array"
        return "array"
    return type(value).__name__


def member_problem(path: str, value, wanted: str) -> Optional[str]:
    """Why member ``path`` (``flags``, ``tiles.3.words``) is not of JSON type ``wanted``, if it is not (null is fine)."""
    found = json_type(value)
    if value is None or found == wanted:
        return None
    return f"member '{path}' must be {'an' if wanted[0] in 'aeiou' else 'a'} {wanted} or null, not {found}"


def observation_problem(observation: "Observation") -> Optional[str]:
    """The first member of ``observation`` (or of one of its tiles) of the wrong type, named by its path."""
    exact = _EXACT_JSON_TYPES.get  # (the common case, each member of its JSON type, is one look-up each)
    for name, wanted in MEMBER_TYPES.items():
        value = getattr(observation, name)
        if value is not None and exact(type(value)) != wanted:
            problem = member_problem(name, value, wanted)
            if problem:
                return problem
    problem = memory_problem(observation)
    if problem:
        return problem
    for member, index, tile in (*(("tiles", i, t) for i, t in observation.tiles.items()),
                                *(("shared_tiles", i, t) for i, t in (observation.shared_tiles or {}).items())):
        if not isinstance(tile, TileObservation):
            return f"member '{member}.{index}' must be a tile, not {json_type(tile)}"
        for name, wanted in TILE_MEMBER_TYPES.items():
            value = getattr(tile, name)
            if value is not None and exact(type(value)) != wanted:
                problem = member_problem(f"{member}.{index}.{name}", value, wanted)
                if problem:
                    return problem
        problem = tile_meaning_problem(f"{member}.{index}", tile)
        if problem:
            return problem
    return None


def memory_problem(observation: "Observation") -> Optional[str]:
    """The first memory member of ``observation`` that means nothing: an image whose hex is not
    two digits for each of ``size`` bytes, an event that is not an object of integers and names."""
    memory = observation.memory
    if memory is not None:
        size, text = memory.get("size"), memory.get("hex")
        if json_type(size) != "integer" or not 256 <= size <= 65536:
            return "member 'memory.size' must be an integer 256..65536"
        if not isinstance(text, str) or len(text) != 2 * size or not _is_hex(text):
            return f"member 'memory.hex' must be {2 * size} hex digits (the whole {size}-byte image)"
    for i, event in enumerate(observation.events or ()):
        if not isinstance(event, dict):
            return f"member 'events.{i}' must be an object, not {json_type(event)}"
        for name in EVENT_FIELDS:
            wanted = "string" if name in ("kind", "order") else "integer"
            problem = member_problem(f"events.{i}.{name}", event.get(name), wanted)
            if problem:
                return problem
    return None


def _is_hex(text: str) -> bool:
    try:
        bytes.fromhex(text)
    except ValueError:
        return False
    return text.isascii() and " " not in text


@lru_cache(maxsize=None)
def dtype_names() -> frozenset:
    """The DataType names (imported on first use: a project that only loads the plugin pays nothing)."""
    from ..device_model.dtypes import NAMES

    return frozenset(NAMES)


def tile_meaning_problem(where: str, tile: "TileObservation") -> Optional[str]:
    """The first member of an observed tile (of the right JSON type) that means nothing: a
    DataType, layout or location name outside the format, a mask that is not 4 bits, a valid
    region that is not [rows, cols], more payload bytes than the tile's bits pack into."""
    if tile.dtype is not None and tile.dtype not in dtype_names():
        return f"member '{where}.dtype': {tile.dtype[:40]!r} is not a DataType"
    if tile.layout is not None and tile.layout not in LAYOUTS:
        return f"member '{where}.layout': {tile.layout[:40]!r} is not a TileLayout ({', '.join(LAYOUTS)})"
    if tile.location is not None and tile.location not in LOCATIONS:
        return f"member '{where}.location': {tile.location[:40]!r} is not a TileLocation ({', '.join(LOCATIONS)})"
    if tile.mask is not None and (len(tile.mask) != 4 or set(tile.mask) - {"0", "1"}):
        return f"member '{where}.mask': {tile.mask[:40]!r} is not a 4-bit allocation mask such as '1111'"
    if tile.valid is not None and len(tile.valid) != 2:
        return f"member '{where}.valid': {len(tile.valid)} items, not [valid rows, valid cols]"
    if tile.bytes is not None:
        rows, cols = tile.rows, tile.cols
        packed = (rows * cols + 7) // 8 if isinstance(rows, int) and isinstance(cols, int) else None
        if packed is not None and len(tile.bytes) != packed:
            return (f"member '{where}.bytes': {len(tile.bytes)} bytes; a {rows}x{cols} predicate tile packs "
                    f"into {packed}")
        if len(tile.bytes) > MAX_PREDICATE_BYTES:
            return f"member '{where}.bytes': {len(tile.bytes)} bytes, more than any tile holds ({MAX_PREDICATE_BYTES})"
    return None


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
    # rows x cols Words read back at logical coordinates, and rows x cols booleans: lists of rows,
    # or (from an in-process device) 2-D numpy arrays, which ``to_json`` writes as lists
    words: Optional[list] = None
    defined: Optional[list] = None
    storage: Optional[list] = None  # element bits by storage index
    storage_kind: Optional[str] = None  # "predicate" for a predicate tile; None (or "numeric") otherwise
    bytes: Optional[list] = None  # a predicate tile's packed payload bytes, ceil(rows*cols/8)

    @property
    def kind(self) -> str:
        return self.storage_kind or "numeric"

    def to_json(self) -> dict:
        out = {k: v.tolist() if hasattr(v, "tolist") else v for k, v in self.__dict__.items() if v is not None}
        if "valid" in out:
            out["valid"] = list(out["valid"])
        return out

    @classmethod
    def from_json(cls, data: dict, path: str = "tile") -> "TileObservation":
        """Parse one tile; ValueError names a member of the wrong JSON type by ``path``."""
        if not isinstance(data, dict):
            raise ValueError(f"member '{path}' must be an object, not {json_type(data)}")
        known = {k: data[k] for k in cls.__dataclass_fields__ if k in data}
        for name, value in known.items():
            problem = member_problem(f"{path}.{name}", value, TILE_MEMBER_TYPES[name])
            if problem:
                raise ValueError(problem)
        if known.get("storage_kind") not in (None, *STORAGE_KINDS):
            raise ValueError(f"member '{path}.storage_kind' must be one of {', '.join(STORAGE_KINDS)}, "
                             f"not {known['storage_kind']!r}")
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
    fault_address: Optional[int] = None  # the faulting data address of a data fault
    memory: Optional[dict] = None  # {"size": N, "hex": 2N lowercase hex digits}: the whole image
    events: Optional[list] = None  # memory events, each {kind, agent, address, size, read, write, order}
    shared_tiles: Optional[dict] = None  # SharedTileIndex -> TileObservation

    def memory_bytes(self) -> Optional[bytes]:
        return None if self.memory is None else bytes.fromhex(self.memory["hex"])

    def to_json(self) -> dict:
        out: dict[str, Any] = {"fault": self.fault, "flags": self.flags,
                               "tiles": {str(i): t.to_json() for i, t in sorted(self.tiles.items())}}
        if self.encoding is not None:
            out["encoding"] = list(self.encoding)
        if self.error is not None:
            out["error"] = self.error
        if self.detail is not None:
            out["detail"] = self.detail
        if self.fault_address is not None:
            out["fault_address"] = self.fault_address
        if self.memory is not None:
            out["memory"] = dict(self.memory)
        if self.events is not None:
            out["events"] = [dict(e) for e in self.events]
        if self.shared_tiles is not None:
            out["shared_tiles"] = {str(i): t.to_json() for i, t in sorted(self.shared_tiles.items())}
        return out

    @classmethod
    def from_json(cls, data: dict) -> "Observation":
        """Parse a JSON observation; raises ValueError on a malformed one, naming a member
        of the wrong JSON type by its path (``flags``, ``tiles.0.words``)."""
        if not isinstance(data, dict):
            raise ValueError(f"observation must be an object, not {json_type(data)}")
        for name, wanted in MEMBER_TYPES.items():
            problem = member_problem(name, data.get(name), wanted)
            if problem:
                raise ValueError(problem)
        parsed = _tiles_from_json(data.get("tiles") or {}, "tiles")
        shared = None if data.get("shared_tiles") is None else _tiles_from_json(data["shared_tiles"], "shared_tiles")
        fault = data.get("fault")
        if fault is not None and fault not in FAULT_CLASSES:
            raise ValueError(f"unknown fault class {fault!r}")
        observation = cls(fault=fault, flags=data.get("flags"), tiles=parsed, encoding=data.get("encoding"),
                          error=data.get("error"), detail=data.get("detail"), fault_address=data.get("fault_address"),
                          memory=data.get("memory"), events=data.get("events"), shared_tiles=shared)
        problem = memory_problem(observation)
        if problem:
            raise ValueError(problem)
        return observation

    @classmethod
    def device_error(cls, message: str) -> "Observation":
        return cls(error=message)


def _tiles_from_json(tiles: dict, member: str) -> dict:
    parsed = {}
    for key, tile in tiles.items():
        if isinstance(key, str) and key.isascii() and key.isdigit():
            index = int(key)
        elif type(key) is int:
            index = key
        else:
            raise ValueError(f"member '{member}' key {key!r} is not a TileIndex")
        parsed[index] = TileObservation.from_json(tile, f"{member}.{key}")
    return parsed
