"""Vector files -> Case objects: YAML, JSON Schema validation, catalog cross-check.

Knows nothing of devices or pytest. Every problem becomes exactly one message that
names the file, the case (when it is a case's problem) and the field, e.g.
``vectors/PTO-AVS-TILE-TCVT-BUNDLE-001.yaml: case 'u8-nd-to-u16-dn':
expect.tiles[0].valid: expected 2 integers [valid_rows, valid_cols], got [1, 2, 3]``.
A broken case never hides the other cases of its file; a broken file never hides
other files.
"""
from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Iterable, Optional

import yaml
from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match

from pto_avs.contract import spec_data
from pto_avs.contract.case import PROFILES, Case
from pto_avs.contract.tile_state import CUBE_LAYOUTS, element_bits, parse_coordinate
from pto_avs.device_model.encoding import assemble

VECTORS_DIR = Path(__file__).resolve().parent.parent / "vectors"
SCHEMA_PATH = VECTORS_DIR / "schema.json"
PROJECT_PREFIX = "PTO-AVS-X-"
OPERATIONS = ("TCVT", "TQUANT", "TMULS", "TGEMV_MX_ACC")
CATALOG_FIELDS = ("kind", "summary", "pass_condition", "requirements", "spec_test_file")


# ---------------------------------------------------------------------------
# results


@dataclass(frozen=True)
class VectorError:
    """A file or one case of it that could not be loaded."""

    path: str  # the file as displayed
    label: str  # the case's name (or ``case#N``); the vector ID / file stem for a file error
    message: str  # the whole message, file and case included
    is_file_error: bool = False


@dataclass
class VectorFile:
    """One loaded file: its metadata (as far as readable) and its cases in file order."""

    path: Path
    display: str
    vector_id: str  # the declared ID, or the file stem when it cannot be read
    operation: Optional[str] = None
    kind: Optional[str] = None
    adrs: tuple = ()
    error: Optional[VectorError] = None  # set: the file as a whole is broken, no cases
    entries: list = field(default_factory=list)  # Case | VectorError

    @property
    def cases(self) -> list[Case]:
        return [e for e in self.entries if isinstance(e, Case)]


# ---------------------------------------------------------------------------
# catalog


class Catalog:
    """The parts of the tile AVS catalog a vector is checked against."""

    def __init__(self, data: dict):
        self.tests = {t["id"]: t for t in data["tests"]}
        self.unit_of_test = {tid: u for u in data["units"] for tid in u["tests"]}
        self.adr_ids = frozenset(a["id"] for a in data["adrs"])
        self.requirement_ids = frozenset(r for t in data["tests"] for r in t["requirements"])

    def operation_units(self) -> dict:
        return {u["mnemonic"]: u for u in self.unit_of_test.values() if u["mnemonic"] in OPERATIONS}

    def adrs_of(self, vector_id: str) -> tuple:
        unit = self.unit_of_test.get(vector_id)
        return tuple(unit["readiness_subjects"]) if unit else ()


@lru_cache(maxsize=None)
def default_catalog() -> Catalog:
    return Catalog(spec_data.load("tile-avs-catalog"))


# ---------------------------------------------------------------------------
# YAML and schema


class _StrictLoader(getattr(yaml, "CSafeLoader", yaml.SafeLoader)):  # libyaml's parser when present
    """A safe loader that rejects a key given twice in one mapping instead of keeping the last."""


def _construct_mapping(loader, node, deep=False):
    seen = set()
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise yaml.MarkedYAMLError(
                "while reading a mapping", node.start_mark, f"duplicate key {key!r}", key_node.start_mark)
        seen.add(key)
    return loader.construct_mapping(node, deep=deep)


_StrictLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)

# A YAML float such as 1.0 is not an integer here: bits are never written as floats.
_TYPE_CHECKER = Draft202012Validator.TYPE_CHECKER.redefine(
    "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool))
_INTEGER_ITEM_KEYS = {"type", "minimum", "maximum", "x-expected"}
_ITEMS = Draft202012Validator.VALIDATORS["items"]


def _items(validator, items, instance, schema):
    """``items`` with a fast path for rows of bounded integers (the bulk of every vector):
    only a row holding a bad value goes through the general (per-element) validation."""
    if (isinstance(items, dict) and items.get("type") == "integer" and items.keys() <= _INTEGER_ITEM_KEYS
            and isinstance(instance, list)):
        low, high = items.get("minimum", -float("inf")), items.get("maximum", float("inf"))
        if all(type(v) is int and low <= v <= high for v in instance):
            return
    yield from _ITEMS(validator, items, instance, schema)


_Validator = validators.extend(Draft202012Validator, validators={"items": _items}, type_checker=_TYPE_CHECKER)


def _inline_refs(node, defs: dict):
    """The schema with every local ``{"$ref": "#/$defs/NAME"}`` replaced by its target (the
    vector schema has no cycles): the same meaning, without a reference lookup per value."""
    if isinstance(node, dict):
        if set(node) == {"$ref"} and node["$ref"].startswith("#/$defs/"):
            return _inline_refs(defs[node["$ref"][len("#/$defs/"):]], defs)
        return {k: _inline_refs(v, defs) for k, v in node.items()}
    if isinstance(node, list):
        return [_inline_refs(v, defs) for v in node]
    return node


@lru_cache(maxsize=None)
def schema_validator(path: Path = SCHEMA_PATH):
    schema = json.loads(Path(path).read_text())
    Draft202012Validator.check_schema(schema)
    return _Validator(_inline_refs(schema, schema.get("$defs", {})))


def _json_keys(value):
    """YAML allows integer keys (``gprs: {5: ...}``); JSON Schema sees every key as a string."""
    if isinstance(value, dict):
        return {str(k): _json_keys(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_keys(v) for v in value]
    return value


def field_path(parts: Iterable) -> str:
    """``['expect', 'tiles', 0, 'valid']`` -> ``expect.tiles[0].valid``."""
    text = ""
    for part in parts:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


def _short(value, limit: int = 60) -> str:
    """A value as a vector author wrote it: counts in decimal, bit patterns in hex."""
    if isinstance(value, int) and not isinstance(value, bool):
        return str(value) if value < 0x10000 else hex(value)
    text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _problem(error: ValidationError) -> tuple[list, str]:
    """The field path and the readable problem of one schema error."""
    path = list(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    validator, instance = error.validator, error.instance
    if validator == "required":
        missing = [name for name in error.validator_value if not (isinstance(instance, dict) and name in instance)]
        return path + missing[:1], "missing (required)"
    if validator == "additionalProperties":
        known = set(schema.get("properties", {}))
        patterns = schema.get("patternProperties", {})
        extra = sorted(k for k in instance if k not in known and not any(re.search(p, k) for p in patterns))
        if extra:
            return path + [extra[0]], "unknown field"
    if "propertyNames" in error.relative_schema_path:  # the instance is the offending key
        return path + [str(instance)], f"bad key: expected {schema.get('x-expected', error.message)}"
    if "x-expected" in schema:
        return path, f"expected {schema['x-expected']}, got {_short(instance)}"
    if validator == "enum":
        choices = ", ".join("null" if c is None else str(c) for c in error.validator_value)
        return path, f"expected one of {choices}; got {_short(instance)}"
    if validator == "const":
        return path, f"expected {_short(error.validator_value)}, got {_short(instance)}"
    if validator == "type":
        return path, f"expected {error.validator_value}, got {_short(instance)}"
    if validator in ("minimum", "maximum"):
        return path, f"{_short(instance)} is out of range ({validator} {_short(error.validator_value)})"
    if validator == "minItems":
        return path, f"expected at least {error.validator_value} item(s)"
    if validator == "maxItems":
        return path, f"expected at most {error.validator_value} item(s)"
    if validator == "uniqueItems":
        return path, "items must be distinct"
    if validator == "minLength":
        return path, "must not be empty"
    if validator == "minProperties":
        return path, "must not be empty"
    return path, error.message


def _best_problem(errors: list[ValidationError]) -> tuple[list, str]:
    """One problem for a group of errors: the shallowest (best_match), and inside an anyOf the
    branch that applies to the value's type (a call with a misspelt field reports that field)."""
    error = best_match(errors)
    while error.context:
        applicable = [e for e in error.context
                      if e.relative_path or e.validator not in ("type", "const", "enum")]
        if not applicable:
            break
        error = best_match(applicable)
    return _problem(error)


# ---------------------------------------------------------------------------
# loading


def display_path(path: Path) -> str:
    """The path relative to the working directory when it lies below it, else absolute."""
    try:
        rel = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if rel.startswith("..") else rel


def discover(paths: Iterable[Path]) -> list[Path]:
    """Vector files under the given directories (recursively, sorted) and the given files.

    Raises FileNotFoundError for a path that does not exist.
    """
    found: list[Path] = []
    for root in paths:
        root = Path(root)
        if root.is_dir():
            found.extend(sorted(p for p in root.rglob("*.yaml") if p.is_file()))
        elif root.is_file():
            found.append(root)
        else:
            raise FileNotFoundError(f"vector path {root} does not exist")
    unique, seen = [], set()
    for p in found:
        key = p.resolve()
        if key not in seen:
            seen.add(key)
            unique.append(p)
    return unique


def load_paths(paths: Iterable[Path], catalog: Optional[Catalog] = None) -> list[VectorFile]:
    """Load every vector file under ``paths``; a second file with an ID already seen is an error."""
    catalog = catalog or default_catalog()
    files: list[VectorFile] = []
    owner: dict[str, str] = {}  # vector ID -> the file that defines it
    for path in discover(paths):
        loaded = load_file(path, catalog)
        if loaded.vector_id in owner:
            if loaded.error is None:
                loaded = _file_error(loaded, f"id: {loaded.vector_id} is already defined by {owner[loaded.vector_id]}")
            loaded.vector_id = loaded.display  # IDs name tests: keep them unique
        owner[loaded.vector_id] = loaded.display
        files.append(loaded)
    return files


def _file_error(loaded: VectorFile, problem: str) -> VectorFile:
    loaded.error = VectorError(loaded.display, loaded.vector_id, f"{loaded.display}: {problem}", True)
    loaded.entries = []
    return loaded


def load_file(path: Path, catalog: Optional[Catalog] = None) -> VectorFile:
    catalog = catalog or default_catalog()
    path = Path(path)
    loaded = VectorFile(path=path, display=display_path(path), vector_id=path.stem)
    try:
        raw = yaml.load(path.read_text(encoding="utf-8"), Loader=_StrictLoader)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        where = f"line {mark.line + 1}, column {mark.column + 1}: " if mark else ""
        return _file_error(loaded, f"{where}{exc.problem or exc.context}")
    except (yaml.YAMLError, OSError, UnicodeDecodeError) as exc:
        return _file_error(loaded, f"cannot read: {exc}")
    if not isinstance(raw, dict):
        return _file_error(loaded, "expected a mapping with format, id, operation, kind, provenance, cases")
    raw = _json_keys(raw)
    _note_metadata(loaded, raw, catalog)

    errors = list(schema_validator().iter_errors(raw))
    file_errors = [e for e in errors if _case_index(e) is None]
    if file_errors:
        path_parts, problem = _best_problem(file_errors)
        return _file_error(loaded, f"{field_path(path_parts)}: {problem}" if path_parts else problem)
    problem = _check_metadata(raw, path, catalog)
    if problem:
        return _file_error(loaded, problem)

    by_case: dict[int, list] = {}
    for error in errors:
        by_case.setdefault(_case_index(error), []).append(error)
    names_seen: set[str] = set()
    for index, raw_case in enumerate(raw["cases"]):
        label = _case_label(raw_case, index, names_seen)
        where = f"{loaded.display}: case '{label}'"
        if index in by_case:
            path_parts, problem = _best_problem(by_case[index])
            loaded.entries.append(VectorError(loaded.display, label, f"{where}: {field_path(path_parts[2:]) or 'case'}: {problem}"))
            continue
        if label != raw_case["name"]:
            loaded.entries.append(VectorError(loaded.display, label, f"{where}: name: '{raw_case['name']}' is used by an earlier case"))
            continue
        problem = _check_case(raw_case)
        if problem:
            loaded.entries.append(VectorError(loaded.display, label, f"{where}: {problem}"))
            continue
        loaded.entries.append(_make_case(raw, raw_case, loaded, catalog))
    return loaded


def _case_index(error: ValidationError) -> Optional[int]:
    path = list(error.absolute_path)
    if len(path) >= 2 and path[0] == "cases" and isinstance(path[1], int):
        return path[1]
    return None


def _case_label(raw_case, index: int, names_seen: set) -> str:
    name = raw_case.get("name") if isinstance(raw_case, dict) else None
    if isinstance(name, str) and name and "::" not in name and name not in names_seen:
        names_seen.add(name)
        return name
    return f"case#{index + 1}" if not isinstance(name, str) or not name or "::" in name else f"{name}#{index + 1}"


def _note_metadata(loaded: VectorFile, raw: dict, catalog: Catalog) -> None:
    """What can be read even from a broken file (for markers and selection)."""
    if isinstance(raw.get("id"), str):
        loaded.vector_id = raw["id"]
    if raw.get("operation") in OPERATIONS:
        loaded.operation = raw["operation"]
    if isinstance(raw.get("kind"), str):
        loaded.kind = raw["kind"]
    loaded.adrs = _adrs(raw, catalog)


def _adrs(raw: dict, catalog: Catalog) -> tuple:
    vector_id = raw.get("id")
    if not isinstance(vector_id, str):
        return ()
    if vector_id.startswith(PROJECT_PREFIX):
        exercised = raw.get("exercises") if isinstance(raw.get("exercises"), list) else []
        return tuple(x for x in exercised if x in catalog.adr_ids)
    return catalog.adrs_of(vector_id)


def _check_metadata(raw: dict, path: Path, catalog: Catalog) -> Optional[str]:
    """File-level rules beyond the schema: file name, catalog agreement, exercises."""
    vector_id = raw["id"]
    if path.stem != vector_id:
        return f"id: {vector_id} does not match the file name {path.name} (expected {vector_id}.yaml)"
    if vector_id.startswith(PROJECT_PREFIX):
        unknown = [x for x in raw["exercises"] if x not in catalog.adr_ids and x not in catalog.requirement_ids]
        if unknown:
            return f"exercises: {unknown[0]} is neither an ADR nor a requirement of the catalog"
        if not any(x in catalog.adr_ids for x in raw["exercises"]):
            return "exercises: name at least one ADR (ADR-NNNN) the vector exercises"
        return None
    if "exercises" in raw:
        return "exercises: only project IDs (PTO-AVS-X-...) carry exercises; a spec ID's ADRs come from the catalog"
    test = catalog.tests.get(vector_id)
    if test is None:
        return f"id: {vector_id} is not a test ID of the catalog (project vectors use the {PROJECT_PREFIX} prefix)"
    unit = catalog.unit_of_test.get(vector_id)
    mnemonic = unit["mnemonic"] if unit else None
    if mnemonic not in OPERATIONS:
        return f"id: {vector_id} belongs to {mnemonic or 'no operation'}, not one of {', '.join(OPERATIONS)}"
    if raw["operation"] != mnemonic:
        return f"operation: expected {mnemonic} (the catalog unit listing {vector_id}), got {raw['operation']}"
    for name in CATALOG_FIELDS:
        if name in raw and raw[name] != test[name]:
            return f"{name}: does not match the catalog (expected {_short(test[name], 200)})"
    return None


def _check_case(raw_case: dict) -> Optional[str]:
    """Case rules beyond the schema; returns ``field: problem`` or None."""
    problem = _check_program_text(raw_case["program"])
    if problem:
        return problem
    state_tiles = raw_case.get("state", {}).get("tiles", [])
    seen = set()
    for i, tile in enumerate(state_tiles):
        where = f"state.tiles[{i}]"
        if tile["index"] in seen:
            return f"{where}.index: tile {tile['index']} is described twice"
        seen.add(tile["index"])
        problem = _check_grid_values(tile, where, tile["valid"])
        if problem:
            return problem
        layout = tile.get("layout", "RowMajor")
        if layout not in CUBE_LAYOUTS and "cols" not in tile:
            return f"{where}.cols: missing (required for layout {layout})"
        problem = _check_state_elements(tile, where, layout)
        if problem:
            return problem
    expect = raw_case["expect"]
    unchanged = expect.get("unchanged", [])
    if unchanged != "all":
        for i, index in enumerate(unchanged):
            if index not in seen:
                return f"expect.unchanged[{i}]: tile {index} is not in state.tiles"
    seen_expect = set()
    for i, tile in enumerate(expect.get("tiles", [])):
        where = f"expect.tiles[{i}]"
        if tile["index"] in seen_expect:
            return f"{where}.index: tile {tile['index']} is expected twice"
        seen_expect.add(tile["index"])
        problem = _check_expect_tile(tile, where)
        if problem:
            return problem
    return None


def _check_program_text(program) -> Optional[str]:
    """Assembly text must assemble: a typo is the vector's error, not every device's."""
    items = [("program", program)] if isinstance(program, str) else [
        (f"program[{i}]", item) for i, item in enumerate(program)]
    for where, item in items:
        if isinstance(item, str):
            try:
                assemble(item)
            except ValueError as exc:
                return f"{where}: {exc}"
    return None


def _check_grid_values(tile: dict, where: str, valid) -> Optional[str]:
    if "data" in tile and "fill" in tile:
        return f"{where}.fill: give either data or fill, not both"
    for name in ("data", "words"):
        if name not in tile:
            continue
        grid = tile[name]
        if valid is not None:
            rows, cols = valid
            if len(grid) != rows:
                return f"{where}.{name}: expected {rows} row(s) of {cols} value(s) (valid {list(valid)}), got {len(grid)} row(s)"
            for r, row in enumerate(grid):
                if len(row) != cols:
                    return f"{where}.{name}[{r}]: expected {cols} value(s) (valid {list(valid)}), got {len(row)}"
        elif len({len(row) for row in grid}) > 1:
            return f"{where}.{name}: rows differ in length"
    if "data" in tile and "words" in tile and [len(r) for r in tile["data"]] != [len(r) for r in tile["words"]]:
        return f"{where}.words: shape differs from data"
    return None


def _check_state_elements(tile: dict, where: str, layout: str) -> Optional[str]:
    if layout in CUBE_LAYOUTS:
        return None
    cols = tile["cols"]
    bits = element_bits(tile["dtype"])
    total = tile["capacity"] * 8
    rows = total // (cols * bits) if cols and total % (cols * bits) == 0 else None
    for key in tile.get("elements", {}):
        r, c = parse_coordinate(key)
        if c >= cols or (rows is not None and r >= rows):
            shape = f"{rows}x{cols}" if rows is not None else f"{cols} columns"
            return f"{where}.elements.{key}: coordinate outside the {shape} tile"
    return None


def _check_expect_tile(tile: dict, where: str) -> Optional[str]:
    problem = _check_grid_values(tile, where, tile.get("valid"))
    if problem:
        return problem
    padding = tile.get("padding")
    if padding and not padding["defined"] and "value" in padding:
        return f"{where}.padding.value: an undefined padding has no value to check (drop value or set defined: true)"
    for key, element in tile.get("elements", {}).items():
        if element.get("defined") is False and "value" in element:
            return f"{where}.elements.{key}.value: an undefined element has no value to check"
    if "dtype" not in tile:
        return None
    bits = element_bits(tile["dtype"])
    limit = (1 << bits) - 1
    values = []
    for r, row in enumerate(tile.get("data", [])):
        values += [(f"data[{r}][{c}]", v) for c, v in enumerate(row)]
    if "fill" in tile:
        values.append(("fill", tile["fill"]))
    values += [(f"elements.{k}.value", e["value"]) for k, e in tile.get("elements", {}).items() if "value" in e]
    if padding and "value" in padding:
        values.append(("padding.value", padding["value"]))
    values += [(f"storage.{k}", v) for k, v in tile.get("storage", {}).items()]
    for name, value in values:
        if value > limit:
            return (f"{where}.{name}: {value:#x} does not fit {tile['dtype']} ({bits}-bit elements); "
                    "element bits are compared, whole carrier Words go in `words`")
    return None


# ---------------------------------------------------------------------------
# normalization


def _make_case(raw: dict, raw_case: dict, loaded: VectorFile, catalog: Catalog) -> Case:
    vector_id = raw["id"]
    if vector_id.startswith(PROJECT_PREFIX):
        adrs = tuple(x for x in raw["exercises"] if x in catalog.adr_ids)
        requirements = tuple(x for x in raw["exercises"] if x not in catalog.adr_ids)
    else:
        adrs = catalog.adrs_of(vector_id)
        requirements = tuple(catalog.tests[vector_id]["requirements"])
    program = raw_case["program"]
    return Case(
        vector_id=vector_id,
        name=raw_case["name"],
        operation=raw["operation"],
        kind=raw["kind"],
        profiles=tuple(p for p in PROFILES if p in raw_case.get("profiles", PROFILES)),
        adrs=adrs,
        requirements=requirements,
        state=_normalize_state(raw_case.get("state", {})),
        program=(program,) if isinstance(program, str) else tuple(program),
        expect=_normalize_expect(raw_case["expect"]),
        source=raw_case["source"],
        reference=raw_case["reference"],
        path=str(loaded.path),
    )


def _coordinates(mapping: dict) -> dict:
    return {"{},{}".format(*parse_coordinate(k)): v for k, v in mapping.items()}


def _normalize_state(state: dict) -> dict:
    tiles = []
    for tile in state.get("tiles", []):
        out = dict(tile)
        out.setdefault("layout", "RowMajor")
        out.setdefault("location", "Matrix" if out["layout"] in CUBE_LAYOUTS else "Any")
        out.setdefault("mask", "1111")
        out.setdefault("defined", "valid")
        out.setdefault("cols", None)
        out["valid"] = list(out["valid"])
        if "elements" in out:
            out["elements"] = _coordinates(out["elements"])
        tiles.append(out)
    return {
        "tile_capacity": state.get("tile_capacity", 262144),
        "status": state.get("status", 0),
        "gprs": {int(k): v for k, v in sorted(state.get("gprs", {}).items(), key=lambda kv: int(kv[0]))},
        "tiles": tiles,
    }


def _normalize_expect(expect: dict) -> dict:
    out = dict(expect)
    out.setdefault("fault", None)
    tiles = []
    for tile in expect.get("tiles", []):
        t = dict(tile)
        if "elements" in t:
            t["elements"] = _coordinates(t["elements"])
        if "storage" in t:
            t["storage"] = {int(k): v for k, v in t["storage"].items()}
        tiles.append(t)
    if "tiles" in out:
        out["tiles"] = tiles
    return out

