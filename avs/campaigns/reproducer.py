"""Expectations from an observation, and reproducer vector files.

A campaign judges a device against the golden model by turning the golden
observation into the ``expect`` block of a vector (every aspect the golden model
observed) and running the ordinary comparator. The same block, with the case's
state and program, is written as a reproducer file in the vector format, so
``pytest avs/ --vectors-only --vectors DIR --device NAME`` replays the
disagreement. A reproducer is not a conformance vector: its expectations are the
golden model's, labelled so in ``source`` and ``provenance``.
"""
from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Optional

import numpy as np
import yaml

from ...contract import spec_data
from ...contract.case import Case, Observation
from ...contract.tile_state import element_bits
from ...device_model.layouts import is_cube
from ...reports.atomic import write_files

REPRODUCER_SOURCE = "golden-model"  # vectors/schema.json case.source (requested from the lead)
DESCRIPTOR_FIELDS = ("dtype", "layout", "location", "rows", "cols", "valid", "capacity", "mask")


def operation_exercises(operation: str) -> list[str]:
    """What a reproducer of ``operation`` exercises: the catalog's ADRs (readiness subjects) of its
    unit and the requirements its spec tests name."""
    catalog = spec_data.load("tile-avs-catalog")
    unit = next(u for u in catalog["units"] if u["mnemonic"] == operation)
    tests = {t["id"]: t for t in catalog["tests"]}
    requirements = dict.fromkeys(r for test_id in unit["tests"] for r in tests[test_id]["requirements"])
    return [*unit["readiness_subjects"], *requirements]


def _storage_map(layout: str, dtype: str, rows: int, cols: int) -> np.ndarray:
    from ...device_model.dtypes import dtype as lookup
    from ...device_model.layouts import cube_index_map, ordinary_index_map

    bits = lookup(dtype).bits
    return cube_index_map(layout, bits, rows, cols) if is_cube(layout) else ordinary_index_map(layout, bits, rows, cols)


def tile_expectation(index: int, tile) -> dict:
    """Everything observed of one tile as a vector ``expect.tiles[]`` entry. A predicate tile has
    bits (``data``, padding) and its packed ``bytes`` when every bit is defined, not Words."""
    out = {"index": index}
    predicate = tile.storage_kind == "predicate"
    if predicate:
        out["storage_kind"] = "predicate"
    for name in DESCRIPTOR_FIELDS:
        value = getattr(tile, name)
        if value is not None:
            out[name] = list(value) if name == "valid" else value
    if tile.words is None or tile.defined is None:
        return out
    words = np.array(tile.words, dtype=np.uint64)
    defined = np.array(tile.defined, dtype=bool)
    valid_rows, valid_cols = tile.valid
    mask = np.uint64((1 << element_bits(tile.dtype)) - 1)
    region, region_defined = words[:valid_rows, :valid_cols], defined[:valid_rows, :valid_cols]
    elements = {}
    if region_defined.all():
        out["data"] = (region & mask).tolist()
        if not predicate:
            out["words"] = region.tolist()
    else:
        for r, c in np.ndindex(region.shape):
            elements[f"{r},{c}"] = ({"value": int(region[r, c] & mask)} if region_defined[r, c]
                                    else {"defined": False})
    outside = np.ones(words.shape, dtype=bool)
    outside[:valid_rows, :valid_cols] = False
    if outside.any():
        pad_defined, pad_values = defined[outside], (words & mask)[outside]
        if not pad_defined.any():
            out["padding"] = {"defined": False}
        elif pad_defined.all() and (pad_values == pad_values[0]).all():
            out["padding"] = {"defined": True, "value": int(pad_values[0])}
        else:
            for r, c in zip(*np.nonzero(outside)):
                elements[f"{r},{c}"] = ({"value": int(words[r, c] & mask), "defined": True} if defined[r, c]
                                        else {"defined": False})
    if elements:
        out["elements"] = elements
    if predicate and tile.bytes is not None and defined.all():
        out["bytes"] = list(tile.bytes)
    if tile.storage is not None and tile.layout != "RowMajor" and not predicate:
        # Where the valid region lies in storage pins the layout (padding holds one value).
        index_map = _storage_map(tile.layout, tile.dtype, *words.shape)
        storage = np.array(tile.storage, dtype=np.uint64)
        out["storage"] = {int(index_map[r, c]): int(storage[index_map[r, c]] & mask)
                          for r, c in zip(*np.nonzero(region_defined))}
    return out


def expectation(observation: Observation, state: Optional[dict] = None) -> dict:
    """The ``expect`` block that holds exactly what ``observation`` shows. When the case's
    ``state`` gives a memory, the whole observed image and the event log are expected too (the
    golden model's one pick where the spec leaves a choice, as every expectation here is)."""
    expect = {"fault": observation.fault}
    if observation.fault_address is not None:
        expect["fault_address"] = observation.fault_address
    if observation.flags is not None:
        expect["flags"] = observation.flags
    if observation.encoding is not None:
        expect["encoding"] = list(observation.encoding)
    expect["allocated"] = sorted(observation.tiles)
    expect["tiles"] = [tile_expectation(i, t) for i, t in sorted(observation.tiles.items())]
    if state is not None and state.get("memory") is not None:
        if observation.memory is not None:
            expect["memory"] = [{"address": 0, "bytes": observation.memory["hex"]}]
        if observation.events is not None:
            expect["events"] = [{k: v for k, v in event.items() if v is not None} for event in observation.events]
    return expect


def judged_case(case: Case, expect: dict) -> Case:
    """``case`` with ``expect`` as its expectations."""
    from dataclasses import replace

    return replace(case, expect=expect)


# ---------------------------------------------------------------------------
# writing


class _Hex(int):
    """An integer written in hex (bit patterns)."""


class _Dumper(yaml.SafeDumper):
    pass


_Dumper.add_representer(_Hex, lambda dumper, value: dumper.represent_scalar("tag:yaml.org,2002:int", hex(value)))
_Dumper.add_representer(str, lambda dumper, value: dumper.represent_scalar(
    "tag:yaml.org,2002:str", value, style="|" if "\n" in value else None))


def _hex_grid(grid):
    return [[_Hex(v) for v in row] for row in grid]


def _yaml_state(state: dict) -> dict:
    tiles = []
    for tile in state["tiles"]:
        out = {k: v for k, v in tile.items() if v is not None}
        if "data" in out:
            out["data"] = _hex_grid(out["data"])
        if "fill" in out:
            out["fill"] = _Hex(out["fill"])
        tiles.append(out)
    out = {"tile_capacity": state["tile_capacity"], "status": _Hex(state["status"]),
           "gprs": {k: _Hex(v) for k, v in state["gprs"].items()}, "tiles": tiles}
    if state.get("memory") is not None:
        memory = state["memory"]
        out["memory"] = {"size": memory["size"], "regions": [{"address": _Hex(r["address"]), "bytes": r["bytes"]}
                                                             for r in memory.get("regions", [])]}
    if state.get("pe_gprs"):
        out["pe_gprs"] = {pe: {k: _Hex(v) for k, v in file.items()} for pe, file in state["pe_gprs"].items()}
    if state.get("shared_tiles"):
        out["shared_tiles"] = _yaml_state({"tile_capacity": 0, "status": 0, "gprs": {},
                                           "tiles": state["shared_tiles"]})["tiles"]
    return out


def _yaml_expect(expect: dict) -> dict:
    out = dict(expect)
    if "flags" in out:
        out["flags"] = _Hex(out["flags"])
    if "encoding" in out:
        out["encoding"] = [_Hex(w) for w in out["encoding"]]
    tiles = []
    for tile in expect.get("tiles", []):
        t = dict(tile)
        for name in ("data", "words"):
            if name in t:
                t[name] = _hex_grid(t[name])
        if "bytes" in t:
            t["bytes"] = [_Hex(b) for b in t["bytes"]]
        if "value" in t.get("padding", {}):
            t["padding"] = {**t["padding"], "value": _Hex(t["padding"]["value"])}
        if "elements" in t:
            t["elements"] = {k: {**e, **({"value": _Hex(e["value"])} if "value" in e else {})}
                             for k, e in t["elements"].items()}
        if "storage" in t:
            t["storage"] = {k: _Hex(v) for k, v in t["storage"].items()}
        tiles.append(t)
    out["tiles"] = tiles
    if "fault_address" in out:
        out["fault_address"] = _Hex(out["fault_address"])
    if "memory" in out:
        out["memory"] = [{**r, "address": _Hex(r["address"])} for r in out["memory"]]
    if "events" in out:
        out["events"] = [{k: _Hex(v) if k in ("address", "read", "write") else v for k, v in e.items()}
                         for e in out["events"]]
    return out


def reproducer_id(operation: str, case: Case) -> str:
    """``PTO-AVS-X-FUZZ-<OP>-<8 hex digits of the case's state and program>``."""
    digest = hashlib.sha256(json.dumps([case.state, list(case.program)], sort_keys=True, default=str)
                            .encode()).hexdigest()[:8].upper()
    return f"PTO-AVS-X-FUZZ-{operation.replace('_', '-')}-{digest}"


def write_reproducer(directory: Path, case: Case, golden_expect: dict, *, device: str, profile: str,
                     command: str, disagreement: str) -> Path:
    """Write one reproducer vector file; returns its path."""
    vector_id = reproducer_id(case.operation, case)
    document = {
        "format": "pto-avs-vector/1",
        "id": vector_id,
        "operation": case.operation,
        "kind": "fault" if golden_expect.get("fault") else "execution",
        "summary": f"Differential-campaign reproducer: {device} disagrees with the golden model ({profile})",
        "exercises": operation_exercises(case.operation),
        "provenance": (f"Written by `{command}`. The expectations are the GOLDEN MODEL's observation "
                       f"(golden:{profile}) of this case, not values from the spec: this file documents a "
                       f"disagreement to investigate, it is not a conformance vector. Decide from the spec "
                       f"which side is right before turning it into one."),
        "cases": [{
            "name": "reproducer",
            "description": f"{device} vs golden:{profile}: {disagreement}",
            "profiles": [profile],
            "source": REPRODUCER_SOURCE,
            "reference": f"golden:{profile} observation ({command})",
            "state": _yaml_state(case.state),
            "program": "\n".join(case.program) + "\n",
            "expect": _yaml_expect(golden_expect),
        }],
    }
    path = Path(directory) / f"{vector_id}.yaml"
    text = yaml.dump(document, Dumper=_Dumper, sort_keys=False, default_flow_style=None, width=120)
    # Whole or not at all, like every report: a temporary file created exclusively (no
    # symlink followed) beside the target, then renamed over it (a link there is replaced).
    write_files(path.parent, {path.name: text})
    return path
