"""Vector files -> Case objects: YAML, JSON Schema validation, catalog cross-check.

Knows nothing of devices or pytest. Every problem becomes exactly one message that
names the file, the case (when it is a case's problem) and the field, e.g.
``vectors/PTO-AVS-TILE-TCVT-BUNDLE-001.yaml: case 'u8-nd-to-u16-dn':
expect.tiles[0].valid: expected 2 integers [valid_rows, valid_cols], got [1, 2, 3]``.
A broken case never hides the other cases of its file; a broken file never hides
other files, whatever it holds: the YAML limits (``yaml_reader``), ``MAX_FILE_BYTES``
and the state checks bound the time and memory one file can take, and anything the
loader did not foresee still becomes that file's error.

A loaded file is kept in a content-addressed cache (``vector_cache``); loading it again
from unchanged inputs reads the result back instead of parsing and validating.
"""
from __future__ import annotations

import copy
import difflib
import hashlib
import itertools
import json
import os
import re
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from pathlib import Path
from typing import Iterable, Optional

from . import spec_data, yaml_reader
from .case import PROFILES, Case
from .tile_state import CUBE_LAYOUTS, element_bits, parse_coordinate
from .vector_cache import VectorCache, code_digest, default_cache
from ..device_model import state as machine
from ..device_model.dtypes import dtype as lookup_dtype
from ..device_model.encoding import assemble
from ..device_model.layouts import cube_geometry, derived_rows, generic_indexing_permitted
from ..device_model.memory import DEFAULT_MEMORY_BYTES

VECTORS_DIR = Path(__file__).resolve().parent.parent / "vectors"
SCHEMA_PATH = VECTORS_DIR / "schema.json"
PROJECT_PREFIX = "PTO-AVS-X-"
# Every tile operation of the spec catalog; vectors of one the model does not run are "not supported" there.
OPERATIONS = spec_data.operation_names()
CATALOG_FIELDS = ("kind", "summary", "pass_condition", "requirements", "spec_test_file")

MAX_FILE_BYTES = 4 * 1024 * 1024  # a vector file; the largest shipped one is about 1.2 MB
MAX_SEPARATORS = 2 * yaml_reader.MAX_VALUES  # separator characters, checked before parsing
MAX_TILE_ELEMENTS = 65536 * 8 // 4  # the largest tile: 64 KiB of 4-bit elements
MAX_CASES = 10_000  # cases in one file (the largest shipped file has under 1000)
MAX_SCHEMA_ERRORS = 10  # schema errors looked at per case (the best one is reported)
MAX_BAD_CASES = 1000  # cases breaking the schema before the file as a whole is the error
_USE_DEFAULT = object()


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


@dataclass(frozen=True)
class Source:
    """A vector file found under the given paths, before it is read."""

    path: Path
    display: str
    name: str  # the test name: the file stem (= the vector ID), or the display path for a repeated stem
    defined_by: Optional[str] = None  # a repeated stem: the file that holds that ID first


# ---------------------------------------------------------------------------
# catalog


class Catalog:
    """The parts of the tile AVS catalog a vector is checked against."""

    def __init__(self, data: dict, digest: Optional[str] = None):
        self.tests = {t["id"]: t for t in data["tests"]}
        self.unit_of_test = {tid: u for u in data["units"] for tid in u["tests"]}
        self.adr_ids = frozenset(a["id"] for a in data["adrs"])
        self.requirement_ids = frozenset(r for t in data["tests"] for r in t["requirements"])
        self.digest = digest or hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    def adrs_of(self, vector_id: str) -> tuple:
        unit = self.unit_of_test.get(vector_id)
        return tuple(unit["readiness_subjects"]) if unit else ()


@lru_cache(maxsize=None)
def default_catalog() -> Catalog:
    name = "tile-avs-catalog"
    digest = hashlib.sha256((spec_data.DIR / f"{name}.json").read_bytes()).hexdigest()
    return Catalog(spec_data.load(name), digest)


# ---------------------------------------------------------------------------
# schema

_INTEGER_ITEM_KEYS = {"type", "minimum", "maximum", "x-expected"}


@lru_cache(maxsize=None)
def _validator_class():
    """jsonschema's 2020-12 validator as the vector schema means it (imported only when a file
    is validated: a run served from the cache does without jsonschema)."""
    from jsonschema import Draft202012Validator, validators

    items_keyword = Draft202012Validator.VALIDATORS["items"]

    def items_of_integers(validator, items, instance, schema):
        """``items`` with a fast path for rows of bounded integers (the bulk of every vector):
        only a row holding a bad value goes through the general (per-element) validation."""
        if (isinstance(items, dict) and items.get("type") == "integer" and items.keys() <= _INTEGER_ITEM_KEYS
                and isinstance(instance, list)):
            low, high = items.get("minimum", -float("inf")), items.get("maximum", float("inf"))
            if all(type(v) is int and low <= v <= high for v in instance):
                return
        yield from items_keyword(validator, items, instance, schema)

    # A YAML float such as 1.0 is not an integer here: bits are never written as floats.
    integers = Draft202012Validator.TYPE_CHECKER.redefine(
        "integer", lambda _checker, value: isinstance(value, int) and not isinstance(value, bool))
    return validators.extend(Draft202012Validator, validators={"items": items_of_integers}, type_checker=integers)


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


def _compiled(schema: dict):
    """A compiled (jsonschema-rs) validator of the same schema, or None without the library."""
    try:
        import jsonschema_rs
    except ImportError:
        return None
    return jsonschema_rs.Draft202012Validator(schema)


class SchemaCheck:
    """The vector schema. jsonschema is the authority and words the errors; a compiled
    validator (jsonschema-rs) of the same schema only accepts valid data fast. A file is
    checked in parts, the file without its cases and each case alone, so one huge bad
    case costs ``MAX_SCHEMA_ERRORS`` errors, not one per value."""

    def __init__(self, schema: dict, digest: str):
        self.schema = schema
        self.digest = digest  # what a cache key needs; the validators are built on first use
        cases = schema.get("properties", {}).get("cases", {})
        self.parts = cases.get("items") == {"$ref": "#/$defs/case"}

    @cached_property
    def _class(self):
        validator_class = _validator_class()
        validator_class.check_schema(self.schema)
        return validator_class

    def _python(self, schema: dict):
        return self._class(_inline_refs(schema, self.schema.get("$defs", {})))

    @cached_property
    def whole(self):
        return self._python(self.schema)

    @cached_property
    def _fast(self):
        return _compiled(self.schema)

    @cached_property
    def _file(self):
        shallow = copy.deepcopy(self.schema)
        shallow["properties"]["cases"]["items"] = {}
        return self._python(shallow)

    @cached_property
    def _case(self):
        return self._python(self.schema["$defs"]["case"])

    @cached_property
    def _fast_case(self):
        return _compiled({"$defs": self.schema["$defs"], "$ref": "#/$defs/case"})

    @staticmethod
    def _accepts(fast, python, instance, json_only: bool) -> bool:
        """Whether ``instance`` is valid. The compiled validator answers only for plain JSON
        data: it counts 1.0 as an integer, the vector schema does not."""
        if fast is not None and json_only:
            try:
                return fast.is_valid(instance)
            except (ValueError, TypeError, OverflowError):
                pass
        return python.is_valid(instance)

    def is_valid(self, instance, json_only: bool = False) -> bool:
        """Whether the whole file is valid; ``json_only``: every value is str, int, bool,
        None, list or dict (``yaml_reader.read`` says so)."""
        return self._accepts(self._fast, self.whole, instance, json_only)

    def iter_errors(self, instance):
        return self.whole.iter_errors(instance)

    def file_errors(self, instance) -> list:
        return list(itertools.islice(self._file.iter_errors(instance), MAX_SCHEMA_ERRORS))

    def case_errors(self, instance, json_only: bool = False) -> list:
        if self._accepts(self._fast_case, self._case, instance, json_only):
            return []
        return list(itertools.islice(self._case.iter_errors(instance), MAX_SCHEMA_ERRORS))


@lru_cache(maxsize=None)
def schema_validator(path: Path = SCHEMA_PATH) -> SchemaCheck:
    text = Path(path).read_bytes()
    return SchemaCheck(json.loads(text), hashlib.sha256(text).hexdigest())


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
    if isinstance(value, (list, dict)) and len(value) > limit:
        value = list(value)[:limit]
    text = json.dumps(value, default=str)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def _problem(error) -> tuple[list, str]:
    """The field path and the readable problem of one schema error."""
    path = list(error.absolute_path)
    schema = error.schema if isinstance(error.schema, dict) else {}
    validator, instance = error.validator, error.instance
    if validator == "required":
        missing = [name for name in error.validator_value if not (isinstance(instance, dict) and name in instance)]
        stray = _stray_keys(schema, instance)
        close = difflib.get_close_matches(missing[0], stray, n=1, cutoff=0.6) if missing else []
        if close:
            return path + missing[:1], f"missing (required); stray key {close[0]!r} (did you mean {missing[0]!r}?)"
        if stray:
            return path + missing[:1], f"missing (required); stray key(s): {', '.join(map(repr, stray))}"
        return path + missing[:1], "missing (required)"
    if validator == "additionalProperties":
        extra = _stray_keys(schema, instance, closed=True)
        if extra:
            close = difflib.get_close_matches(extra[0], list(schema.get("properties", {})), n=1, cutoff=0.6)
            return path + [extra[0]], f"unknown field (did you mean {close[0]!r}?)" if close else "unknown field"
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


def _stray_keys(schema: dict, instance, closed: bool = False) -> list:
    """The keys of a mapping that its schema neither names nor matches by pattern (when the
    schema closes the mapping, or ``closed``: an additionalProperties error says it does)."""
    if not isinstance(instance, dict) or not (closed or schema.get("additionalProperties", True) is False):
        return []
    known = set(schema.get("properties", {}))
    patterns = schema.get("patternProperties", {})
    return sorted(str(k) for k in instance if k not in known and not any(re.search(p, str(k)) for p in patterns))


def _best_problem(errors: list) -> tuple[list, str]:
    """One problem for a group of (jsonschema) errors: the shallowest (best_match), and inside
    an anyOf the branch that applies to the value's type (a call with a misspelt field reports
    that field)."""
    from jsonschema.exceptions import best_match

    error = best_match(errors)
    while error.context:
        applicable = [e for e in error.context
                      if e.relative_path or e.validator not in ("type", "const", "enum")]
        if not applicable:
            break
        error = best_match(applicable)
    return _problem(error)


# ---------------------------------------------------------------------------
# discovery


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


def sources(paths: Iterable[Path]) -> list[Source]:
    """The vector files under ``paths``, named for their tests without reading them: a file's
    name is its vector ID, so a second file of the same name is flagged (it cannot be run
    under that ID). Raises FileNotFoundError for a path that does not exist."""
    owner: dict[str, str] = {}
    found = []
    for path in discover(paths):
        display = display_path(path)
        if path.stem in owner:
            found.append(Source(path, display, display, owner[path.stem]))
        else:
            owner[path.stem] = display
            found.append(Source(path, display, path.stem))
    return found


# ---------------------------------------------------------------------------
# loading


def load_paths(paths: Iterable[Path], catalog: Optional[Catalog] = None, cache=_USE_DEFAULT) -> list[VectorFile]:
    """Load every vector file under ``paths``; a second file with an ID already seen is an error."""
    return [load_source(source, catalog, cache) for source in sources(paths)]


def load_source(source: Source, catalog: Optional[Catalog] = None, cache=_USE_DEFAULT) -> VectorFile:
    if source.defined_by is not None:
        loaded = VectorFile(path=source.path, display=source.display, vector_id=source.name)
        return _file_error(loaded, f"id: {source.path.stem} is already defined by {source.defined_by}")
    return load_file(source.path, catalog, cache)


def load_file(path: Path, catalog: Optional[Catalog] = None, cache=_USE_DEFAULT) -> VectorFile:
    """One file, through the cache (``cache``: a VectorCache, None for none, default: the
    user's cache). Never raises: whatever goes wrong is the file's error."""
    path = Path(path)
    loaded = VectorFile(path=path, display=display_path(path), vector_id=path.stem)
    try:
        catalog = catalog or default_catalog()
        result = _cached_result(path, catalog, default_cache() if cache is _USE_DEFAULT else cache)
    except Exception as exc:  # anything not foreseen is this file's problem, never the run's
        result = _file_result(f"cannot be loaded: {type(exc).__name__}: {exc}")
    return _from_result(loaded, result)


@dataclass(frozen=True)
class Peek:
    """What test selection needs of a file, read without validating it: the file's operation,
    kind and ADRs (as far as readable) and its cases' test names (``case#N`` for a case
    without a usable name), in file order."""

    operation: Optional[str]
    kind: Optional[str]
    adrs: tuple
    labels: tuple


def peek_file(path: Path, catalog: Optional[Catalog] = None, cache=_USE_DEFAULT) -> Optional[Peek]:
    """The file's Peek: from the cache when the file was loaded before, else from its YAML
    alone. None when it cannot even be parsed (then only loading it says why)."""
    catalog = catalog or default_catalog()
    cache = default_cache() if cache is _USE_DEFAULT else cache
    try:
        data, key = _read(Path(path), catalog, cache)
        result = cache.get(key, result_shaped) if key else None
        if result is not None:
            labels = [entry[1]["name"] if entry[0] == "case" else entry[1] for entry in result["entries"]]
            return Peek(result["operation"], result["kind"], tuple(result["adrs"]), tuple(labels))
        raw, _ = yaml_reader.read(data.decode("utf-8")) if _separators_ok(data) else (None, True)
    except Exception:  # unreadable here: let loading say why
        return None
    if not isinstance(raw, dict):
        return None
    meta = _metadata(raw, catalog)
    cases = raw.get("cases") if isinstance(raw.get("cases"), list) else []
    names_seen: set[str] = set()
    labels = tuple(_case_label(case, i, names_seen) for i, case in enumerate(cases))
    return Peek(meta["operation"], meta["kind"], meta["adrs"], labels)


class _FileProblem(Exception):
    """The file cannot be read as a vector file at all (too large, unreadable)."""


def _read(path: Path, catalog: Catalog, cache: Optional[VectorCache]) -> tuple[bytes, Optional[str]]:
    """The file's bytes (at most MAX_FILE_BYTES) and its cache key (None: not cached).
    Raises _FileProblem."""
    try:
        size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise _FileProblem(f"{size} bytes: larger than {MAX_FILE_BYTES} bytes, the limit for a vector file")
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise _FileProblem(f"cannot read: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise _FileProblem(f"larger than {MAX_FILE_BYTES} bytes, the limit for a vector file")
    digest = getattr(schema_validator(), "digest", None)  # None: a validator of someone else's making
    key = cache.key(code_digest(), digest, catalog.digest, path.name, data) if cache and digest else None
    return data, key


def _cached_result(path: Path, catalog: Catalog, cache: Optional[VectorCache]) -> dict:
    try:
        data, key = _read(path, catalog, cache)
    except _FileProblem as exc:
        return _file_result(str(exc))
    result = cache.get(key, result_shaped) if key else None
    if result is None:
        result = _load(path.name, data, catalog, schema_validator())
        if key:
            cache.put(key, result)
    return result


# A loaded file as plain data (what the cache keeps): metadata, the file's problem or its
# entries, each ["case", fields of Case] or ["error", label, problem].


def _file_result(problem: str, raw=None, catalog: Optional[Catalog] = None) -> dict:
    result = {"id": None, "operation": None, "kind": None, "adrs": (), "error": problem, "entries": []}
    if isinstance(raw, dict):
        result.update(_metadata(raw, catalog))
    return result


_RESULT_KEYS = frozenset(("id", "operation", "kind", "adrs", "error", "entries"))
_CASE_KEYS = frozenset(f for f in Case.__dataclass_fields__ if f != "path")


def result_shaped(value) -> bool:
    """Whether a cache entry's value has the shape ``_file_result`` gives (the cache holds any
    bytes someone left there: an entry of the right key but another structure is a miss)."""
    if not isinstance(value, dict) or value.keys() != _RESULT_KEYS:
        return False
    if not isinstance(value["entries"], (list, tuple)) or not isinstance(value["adrs"], (list, tuple)):
        return False
    if not all(isinstance(value[k], (str, type(None))) for k in ("id", "operation", "kind", "error")):
        return False
    for entry in value["entries"]:
        if not isinstance(entry, (list, tuple)) or not entry:
            return False
        if entry[0] == "case":
            if len(entry) != 2 or not isinstance(entry[1], dict) or entry[1].keys() != _CASE_KEYS:
                return False
        elif entry[0] != "error" or len(entry) != 3 or not all(isinstance(x, str) for x in entry[1:]):
            return False
    return True


def _from_result(loaded: VectorFile, result: dict) -> VectorFile:
    loaded.vector_id = result["id"] or loaded.vector_id
    loaded.operation, loaded.kind, loaded.adrs = result["operation"], result["kind"], tuple(result["adrs"])
    if result["error"] is not None:
        return _file_error(loaded, result["error"])
    for entry in result["entries"]:
        if entry[0] == "case":
            loaded.entries.append(Case(**entry[1], path=str(loaded.path)))
        else:
            label = entry[1]
            loaded.entries.append(VectorError(loaded.display, label, f"{loaded.display}: case '{label}': {entry[2]}"))
    return loaded


def _file_error(loaded: VectorFile, problem: str) -> VectorFile:
    loaded.error = VectorError(loaded.display, loaded.vector_id, f"{loaded.display}: {problem}", True)
    loaded.entries = []
    return loaded


def _separators(data: bytes) -> int:
    """An upper bound of the values YAML can compose from ``data`` (each needs a separator)."""
    return (2 * (data.count(b",") + data.count(b":") + data.count(b"?")) + 3 * data.count(b"{")
            + data.count(b"[") + data.count(b"-") + data.count(b"\n") + 2)


def _separators_ok(data: bytes) -> bool:
    return _separators(data) <= MAX_SEPARATORS


def _load(name: str, data: bytes, catalog: Catalog, check) -> dict:
    """The result of loading file ``name`` holding ``data`` (a pure function of its inputs)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return _file_result(f"cannot read: not UTF-8 text (byte {data[exc.start]:#04x} at offset {exc.start})")
    separators = _separators(data)
    if separators > MAX_SEPARATORS:
        return _file_result(f"{separators} YAML separators: more than {MAX_SEPARATORS}, the limit for a vector file "
                            f"(at most {yaml_reader.MAX_VALUES} values)")
    try:
        raw, json_only = yaml_reader.read(text)
    except yaml_reader.YamlProblem as exc:
        return _file_result(str(exc))
    if not isinstance(raw, dict):
        return _file_result("expected a mapping with format, id, operation, kind, provenance, cases")
    if isinstance(raw.get("cases"), list) and len(raw["cases"]) > MAX_CASES:
        return _file_result(f"cases: {len(raw['cases'])} cases, more than {MAX_CASES}, the limit for a vector file",
                            raw, catalog)

    file_problem, case_problems = _schema_problems(raw, json_only, check)
    if file_problem:
        return _file_result(file_problem, raw, catalog)
    problem = _check_metadata(raw, name, catalog)
    if problem:
        return _file_result(problem, raw, catalog)

    result = _file_result(None, raw, catalog)
    names_seen: set[str] = set()
    for index, raw_case in enumerate(raw["cases"]):
        label = _case_label(raw_case, index, names_seen)
        if index in case_problems:
            problem = case_problems[index]
        elif label != raw_case["name"]:
            problem = f"name: '{raw_case['name']}' is used by an earlier case"
        else:
            problem = (_check_case(raw_case) or _check_tolerance(raw["operation"], raw_case)
                       or _check_program_operations(raw, raw_case["program"]))
        if problem:
            result["entries"].append(["error", label, problem])
        else:
            result["entries"].append(["case", _case_fields(raw, raw_case, catalog)])
    return result


def _schema_problems(raw: dict, json_only: bool, check) -> tuple[Optional[str], dict]:
    """(the problem of the file outside its cases or None, {case index: ``field: problem``}).
    Each case's errors are worded as soon as they are found (a few at a time, not kept), and
    past ``MAX_BAD_CASES`` broken cases the file as a whole is the problem."""
    if isinstance(check, SchemaCheck) and check.is_valid(raw, json_only):
        return None, {}
    cases = raw.get("cases")
    if isinstance(check, SchemaCheck) and check.parts and isinstance(cases, list):
        file_errors = check.file_errors(raw)
        if file_errors:
            return _worded(file_errors), {}
        by_case = {}
        for index, case in enumerate(cases):
            errors = check.case_errors(case, json_only)
            if errors:
                by_case[index] = _worded(errors, "case")
                if len(by_case) > MAX_BAD_CASES:
                    first = min(by_case)
                    return (f"cases: more than {MAX_BAD_CASES} cases break the schema; the first, "
                            f"cases[{first}]: {by_case[first]}"), {}
        return None, by_case
    # Any other validator (a test's extended schema): one pass, errors grouped by case.
    file_errors, by_case = [], {}
    for error in check.iter_errors(raw):
        path = list(error.absolute_path)
        if len(path) >= 2 and path[0] == "cases" and isinstance(path[1], int):
            error.path.popleft()
            error.path.popleft()
            by_case.setdefault(path[1], []).append(error)
        else:
            file_errors.append(error)
    if file_errors:
        return _worded(file_errors), {}
    return None, {index: _worded(errors, "case") for index, errors in by_case.items()}


def _worded(errors: list, whole: str = "") -> str:
    """``field: problem`` of the best of a group of schema errors (``whole``: the field's name
    when the error is about the value as a whole)."""
    path_parts, problem = _best_problem(errors)
    where = field_path(path_parts) or whole
    return f"{where}: {problem}" if where else problem


def _case_label(raw_case, index: int, names_seen: set) -> str:
    """The case's test name: its name, ``name#N`` for a repeated one, ``case#N`` when the name
    cannot name a test (missing, not text, with ``::``, unprintable or longer than 200)."""
    name = raw_case.get("name") if isinstance(raw_case, dict) else None
    if not (isinstance(name, str) and name and "::" not in name and name.isprintable() and len(name) <= 200):
        return f"case#{index + 1}"
    if name in names_seen:
        return f"{name}#{index + 1}"
    names_seen.add(name)
    return name


def _metadata(raw: dict, catalog: Catalog) -> dict:
    """What can be read even from a broken file (for markers and selection)."""
    vector_id = raw.get("id") if isinstance(raw.get("id"), str) else None
    return {"id": vector_id,
            "operation": raw.get("operation") if raw.get("operation") in OPERATIONS else None,
            "kind": raw.get("kind") if isinstance(raw.get("kind"), str) else None,
            "adrs": _adrs(raw, catalog)}


def _adrs(raw: dict, catalog: Catalog) -> tuple:
    vector_id = raw.get("id")
    if not isinstance(vector_id, str):
        return ()
    if vector_id.startswith(PROJECT_PREFIX):
        exercised = raw.get("exercises") if isinstance(raw.get("exercises"), list) else []
        return tuple(x for x in exercised if isinstance(x, str) and x in catalog.adr_ids)
    return catalog.adrs_of(vector_id)


def _check_metadata(raw: dict, name: str, catalog: Catalog) -> Optional[str]:
    """File-level rules beyond the schema: file name, catalog agreement, exercises."""
    vector_id = raw["id"]
    if Path(name).stem != vector_id:
        return f"id: {vector_id} does not match the file name {name} (expected {vector_id}.yaml)"
    if raw["operation"] not in OPERATIONS:
        return f"operation: {raw['operation']} is not a tile operation of the spec catalog"
    also = raw.get("also_exercises", [])
    for i, other in enumerate(also):
        if other not in OPERATIONS:
            return f"also_exercises[{i}]: {other} is not a tile operation of the spec catalog"
        if other == raw["operation"]:
            return f"also_exercises[{i}]: {other} is the file's own operation"
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
    mnemonic = catalog.unit_of_test[vector_id]["mnemonic"]
    if raw["operation"] != mnemonic:
        return f"operation: expected {mnemonic} (the catalog unit listing {vector_id}), got {raw['operation']}"
    for field_name in CATALOG_FIELDS:
        if field_name in raw and raw[field_name] != test[field_name]:
            return f"{field_name}: does not match the catalog (expected {_short(test[field_name], 200)})"
    return None


# ---------------------------------------------------------------------------
# case rules beyond the schema


def _check_case(raw_case: dict) -> Optional[str]:
    """Case rules beyond the schema; returns ``field: problem`` or None."""
    problem = _check_program_text(raw_case["program"])
    if problem:
        return problem
    state = raw_case.get("state", {})
    problem = (_check_state(state) or _check_memory_regions(state, raw_case["expect"]) or _check_memory_state(state)
               or _check_memory_expect(raw_case["expect"]))
    if problem:
        return problem
    seen = {tile["index"] for tile in state.get("tiles", [])}
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


# SPEC-CHOICE 20: operations whose hw-ieee results the profile does not pin: only their
# cases may carry expect.ulp_tolerance, and only under hw-ieee alone.
TOLERANCE_OPERATIONS = ("TEXP", "TLOG")


def _check_tolerance(operation: str, raw_case: dict) -> Optional[str]:
    expect = raw_case["expect"]
    if "ulp_tolerance" not in expect:
        return None
    if operation not in TOLERANCE_OPERATIONS:
        return (f"expect.ulp_tolerance: {operation} results are exactly specified; a ULP tolerance applies to "
                f"{', '.join(TOLERANCE_OPERATIONS)} only")
    if raw_case.get("profiles") != ["hw-ieee"]:
        return "expect.ulp_tolerance: a ULP tolerance applies under hw-ieee alone (profiles: [hw-ieee]), never pto-v0"
    for i, tile in enumerate(expect.get("tiles", [])):
        if "words" in tile:
            return f"expect.tiles[{i}].words: a case with a ULP tolerance compares element values only; leave words out"
    return None


def _check_program_text(program) -> Optional[str]:
    """Assembly text must assemble: a typo is the vector's error, not every device's."""
    items = [("program", program)] if isinstance(program, str) else [
        (f"program[{i}]", item) for i, item in enumerate(program)]
    for where, item in items:
        if isinstance(item, str):
            problem = _assembly_problem(item)
            if problem:
                return f"{where}: {problem}"
    return None


def _check_program_operations(raw: dict, program) -> Optional[str]:
    """A direct call names a catalog operation and, where the model runs that operation, exactly
    the arguments it takes (``DIRECT_ARGUMENTS``); every operation the program runs (its BSTART
    forms and direct calls) is the file's operation or one of its ``also_exercises``. A case
    that runs another operation would be counted as the file's in markers, Allure and coverage."""
    allowed = {raw["operation"], *raw.get("also_exercises", [])}
    items = [program] if isinstance(program, str) else list(program)
    for number, item in enumerate(items):
        where = "program" if isinstance(program, str) else f"program[{number}]"
        if isinstance(item, dict):
            problem = _direct_call_problem(item)
            if problem:
                return f"{where}: {problem}"
            runs = [item["call"]]
        else:
            runs = _bstart_operations(item)
        for operation in runs:
            if operation not in allowed:
                return (f"{where}: runs {operation}, but the file's operation is {raw['operation']}"
                        + (f" (also_exercises: {', '.join(raw['also_exercises'])})" if raw.get("also_exercises")
                           else "") + f"; list {operation} in also_exercises if the file means to run it")
    return None


def _direct_call_problem(item: dict) -> Optional[str]:
    """Why a direct call is malformed: an operation outside the catalog, a required argument
    missing or an argument the operation does not take (None when it is well formed, or names
    an operation the model does not run: then other devices judge its arguments)."""
    name = item["call"]
    if name not in OPERATIONS:
        return f"call: {name} is not a tile operation of the spec catalog"
    arguments = _direct_arguments().get(name)
    if arguments is None:
        return None
    takes = ", ".join(arguments)
    unknown = sorted(set(item) - set(arguments) - {"call"})
    if unknown:
        return f"{unknown[0]}: direct {name} takes no argument {unknown[0]!r} (it takes {takes})"
    missing = [key for key, required in arguments.items() if required and item.get(key) is None]
    if missing:
        return f"{missing[0]}: missing (direct {name} needs {', '.join(missing)}; it takes {takes})"
    return None


@lru_cache(maxsize=None)
def _direct_arguments() -> dict:
    """Operation -> {direct-call argument: required}, as the model's registry declares them
    (imported when a file is loaded from its text; a run served from the cache does without)."""
    from ..device_model.ops import installed  # noqa: F401  (every operation joins the registry)
    from ..device_model.ops import registry

    return {name: {key: default is registry.REQUIRED for key, default in registry.find(name).DIRECT_ARGUMENTS.items()}
            for name in registry.names()}


@lru_cache(maxsize=4096)
def _bstart_operations(item) -> tuple:
    """The operations the BSTART forms of one program item (assembly text or a word) select."""
    from ..device_model.encoding import decode, raw_instruction

    try:
        instructions = assemble(item) if isinstance(item, str) else [raw_instruction(item)]
    except ValueError:
        return ()
    found = []
    for ins in instructions:
        try:
            operation = decode(ins.word, ins.length).operation
        except Exception:  # an illegal word: a fault test of decoding, it selects nothing
            continue
        if operation and operation not in found:
            found.append(operation)
    return tuple(found)


@lru_cache(maxsize=4096)
def _assembly_problem(text: str) -> Optional[str]:
    """Why ``text`` does not assemble, or None (cases often share one program text)."""
    try:
        assemble(text)
    except ValueError as exc:
        return str(exc)
    return None


def _check_state(state: dict) -> Optional[str]:
    """An initial state no machine can hold is the vector's error, found before any device
    runs: the model's own legality rules for tile capacity, shape and allocation."""
    limit = state.get("tile_capacity", machine.RESET_TILE_CAPACITY)
    if limit > machine.MAX_TILE_CAPACITY:
        return f"state.tile_capacity: {_short(limit)} is more than the largest tile capacity {machine.MAX_TILE_CAPACITY}"
    seen, allocated = set(), 0
    for i, tile in enumerate(state.get("tiles", [])):
        where = f"state.tiles[{i}]"
        if tile["index"] in seen:
            return f"{where}.index: tile {tile['index']} is described twice"
        seen.add(tile["index"])
        problem = _check_grid_values(tile, where, tile["valid"]) or _check_feature_map(tile, where)
        if problem:
            return problem
        if tile.get("storage_kind") == "predicate":
            problem = _check_predicate_tile(tile, where, limit)
            if problem:
                return problem
            allocated += machine.allocation_bytes(machine.parse_mask(tile.get("mask", "1111")), tile["capacity"])
            if allocated > limit:
                return f"{where}.capacity: the tiles up to this one allocate {allocated} bytes, more than the tile_capacity {limit}"
            continue
        dtype, capacity, layout = lookup_dtype(tile["dtype"]), tile["capacity"], tile.get("layout", "RowMajor")
        if not machine.capacity_legal(capacity, limit):
            return (f"{where}.capacity: {_short(capacity)} is not a tile capacity (a multiple of 128 from 128 to "
                    f"{machine.MAX_LOCAL_ALLOCATION}, at most the tile_capacity {limit})")
        mask = machine.parse_mask(tile.get("mask", "1111"))
        if mask == 0:
            return f"{where}.mask: the allocation mask names no PE"
        allocated += machine.allocation_bytes(mask, capacity)
        if allocated > limit:
            return f"{where}.capacity: the tiles up to this one allocate {allocated} bytes, more than the tile_capacity {limit}"
        valid_rows, valid_cols = tile["valid"]
        if layout in CUBE_LAYOUTS:
            if tile.get("location", "Matrix") != "Matrix":
                return f"{where}.location: a {layout} tile lies in Matrix"
            geometry = cube_geometry(layout, dtype, valid_rows, valid_cols)
            if geometry is None or geometry.required_bytes > capacity:
                return f"{where}.valid: no {layout} {dtype.name} tile of valid {valid_rows}x{valid_cols} fits {capacity} bytes"
            rows, cols = geometry.rows, geometry.cols
            if tile.get("cols") is not None and tile["cols"] != cols:
                return f"{where}.cols: {layout} columns follow from the valid region ({cols}), not {tile['cols']}"
        else:
            if "cols" not in tile:
                return f"{where}.cols: missing (required for layout {layout})"
            cols = tile["cols"]
            rows = derived_rows(capacity, cols, dtype.bits)
            if not rows:
                return (f"{where}.cols: {_short(cols)} columns do not split {capacity} bytes of {dtype.name} into "
                        "1 to 65535 whole rows (a power of two is needed)")
            if valid_rows > rows or valid_cols > cols:
                return f"{where}.valid: {valid_rows}x{valid_cols} does not fit the {rows}x{cols} tile"
            if not generic_indexing_permitted(layout, dtype.bits, rows, cols):
                return f"{where}.layout: {layout} needs rows % 16 == 0 and cols % {256 // dtype.bits} == 0 (the tile is {rows}x{cols})"
        for key in tile.get("elements", {}):
            r, c = parse_coordinate(key)
            if r >= rows or c >= cols:
                return f"{where}.elements.{key}: coordinate outside the {rows}x{cols} tile"
    return None


def _check_feature_map(tile: dict, where: str) -> Optional[str]:
    """A feature-map descriptor the model can hold (the field ranges of
    ConfigureTileFeatureMapDescriptor); whether it is structurally valid is the operation's
    question (an invalid one is a fault to test, not a malformed vector)."""
    if "feature_map" not in tile:
        return None
    from ..device_model.feature_map import FeatureMapError, describe

    try:
        describe(tile["feature_map"])
    except FeatureMapError as exc:
        return f"{where}.feature_map{'.' + exc.field if exc.field else ''}: {exc.problem}"
    return None


def hex_bytes(text: str) -> bytes:
    """The bytes of a memory region's ``bytes`` string (two hex digits a byte, whitespace allowed)."""
    return bytes.fromhex("".join(text.split()))


def _check_regions(regions: list, where: str, size: int) -> Optional[str]:
    """Every region inside ``size`` bytes of memory, no two regions overlapping (a memory image
    is bounded like a tile: by the memory size)."""
    spans = []
    for i, region in enumerate(regions):
        address, length = region["address"], len(hex_bytes(region["bytes"]))
        if length == 0:
            return f"{where}[{i}].bytes: a region holds at least one byte"
        if address + length > size:
            return (f"{where}[{i}]: {length} bytes at {address:#x} run past the end of the {size}-byte memory "
                    f"(the last address is {size - 1:#x})")
        spans.append((address, address + length, i))
    spans.sort()
    for (start, end, first), (next_start, _, second) in zip(spans, spans[1:]):
        if next_start < end:
            return f"{where}[{max(first, second)}]: overlaps {where}[{min(first, second)}] at {next_start:#x}"
    return None


def _memory_size(state: dict) -> int:
    return state.get("memory", {}).get("size", DEFAULT_MEMORY_BYTES)


# The fields that give memory bytes, each a list of regions: (field, its regions in a case's state
# and expect). An outcome set repeats the expect.memory field once per outcome.
MEMORY_REGION_FIELDS = (
    ("state.memory.regions", lambda state, expect: state.get("memory", {}).get("regions", [])),
    ("expect.memory", lambda state, expect: expect.get("memory", [])),
    ("expect.one_of[{}].memory", lambda state, expect: [outcome.get("memory", []) for outcome in expect.get("one_of", [])]),
)


def _check_memory_regions(state: dict, expect: dict) -> Optional[str]:
    """Every memory-region field of MEMORY_REGION_FIELDS inside the case's memory, its regions
    not overlapping (``_check_regions``)."""
    size = _memory_size(state)
    for name, regions_of in MEMORY_REGION_FIELDS:
        found = regions_of(state, expect)
        for where, regions in (enumerate(found) if "{}" in name else [(None, found)]):
            problem = _check_regions(regions, name.format(where), size)
            if problem:
                return problem
    return None


def _check_memory_state(state: dict) -> Optional[str]:
    """Shared tiles the model can hold (the memory regions: ``_check_memory_regions``)."""
    seen = set()
    from ..device_model.machine import Machine  # the shared-tile descriptor rules (only a case with shared tiles pays)

    probe = Machine()
    for i, tile in enumerate(state.get("shared_tiles", [])):
        where = f"state.shared_tiles[{i}]"
        if tile["index"] in seen:
            return f"{where}.index: shared tile S{tile['index']} is described twice"
        seen.add(tile["index"])
        problem = _check_grid_values(tile, where, tile["valid"])
        if problem:
            return problem
        try:
            probe.configure_shared_tile(tile["index"], tile["dtype"], tile["capacity"], tile.get("cols"),
                                        tuple(tile["valid"]), tile.get("layout", "RowMajor"), tile.get("location"),
                                        tile.get("mask", "1111"))
        except ValueError as exc:
            return f"{where}: {str(exc).split(': ', 1)[-1]}"
    return None


def _check_memory_expect(expect: dict) -> Optional[str]:
    """A fault address only with a data fault; events compared in any order only when there are
    events; the outcome sets' tiles (the memory regions: ``_check_memory_regions``)."""
    if "fault_address" in expect and expect.get("fault") not in ("Fault_DataAlignment", "Fault_DataPage"):
        return "expect.fault_address: a fault address goes with a data fault (Fault_DataAlignment or Fault_DataPage)"
    if "events_order" in expect and "events" not in expect and "one_of" not in expect:
        return "expect.events_order: there are no expected events to order"
    for i, outcome in enumerate(expect.get("one_of", [])):
        for j, tile in enumerate(outcome.get("tiles", [])):
            problem = _check_expect_tile(tile, f"expect.one_of[{i}].tiles[{j}]")
            if problem:
                return problem
    return None


def _check_predicate_tile(tile: dict, where: str, limit: int) -> Optional[str]:
    """A predicate state tile ConfigurePredicateTileForMask can configure, with 0/1 bits."""
    capacity, rows, cols = tile["capacity"], tile["rows"], tile["cols"]
    if not machine.capacity_legal(capacity, limit):
        return (f"{where}.capacity: {_short(capacity)} is not a tile capacity (a multiple of 128 from 128 to "
                f"{machine.MAX_LOCAL_ALLOCATION}, at most the tile_capacity {limit})")
    if machine.parse_mask(tile.get("mask", "1111")) == 0:
        return f"{where}.mask: the allocation mask names no PE"
    if not rows or not cols or rows * cols > machine.MAX_PREDICATE_ELEMENTS:
        return (f"{where}.rows: a predicate tile has 1 to {machine.MAX_PREDICATE_ELEMENTS} elements "
                f"(rows x cols), not {rows}x{cols}")
    if machine.predicate_storage_bytes(rows, cols) > capacity:
        return f"{where}.capacity: {capacity} bytes cannot hold {rows}x{cols} packed predicate bits"
    valid_rows, valid_cols = tile["valid"]
    if valid_rows > rows or valid_cols > cols:
        return f"{where}.valid: {valid_rows}x{valid_cols} does not fit the {rows}x{cols} tile"
    for r, row in enumerate(tile.get("data", [])):
        if any(v > 1 for v in row):
            return f"{where}.data[{r}]: predicate bits are 0 or 1"
    if tile.get("fill", 0) > 1:
        return f"{where}.fill: predicate bits are 0 or 1"
    for key, value in tile.get("elements", {}).items():
        r, c = parse_coordinate(key)
        if r >= rows or c >= cols:
            return f"{where}.elements.{key}: coordinate outside the {rows}x{cols} tile"
        if value > 1:
            return f"{where}.elements.{key}: predicate bits are 0 or 1"
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
        elements = sum(len(row) for row in grid)
        if elements > MAX_TILE_ELEMENTS:
            return f"{where}.{name}: {elements} values, more than the largest tile holds ({MAX_TILE_ELEMENTS})"
    if "data" in tile and "words" in tile and [len(r) for r in tile["data"]] != [len(r) for r in tile["words"]]:
        return f"{where}.words: shape differs from data"
    return None


def _check_expect_tile(tile: dict, where: str) -> Optional[str]:
    problem = _check_grid_values(tile, where, tile.get("valid"))
    if problem:
        return problem
    for name in ("rows", "cols"):
        if tile.get(name, 0) > MAX_TILE_ELEMENTS:
            return f"{where}.{name}: {_short(tile[name])} is more than any tile has ({MAX_TILE_ELEMENTS})"
    for key in tile.get("elements", {}):
        r, c = parse_coordinate(key)
        if r >= tile.get("rows", MAX_TILE_ELEMENTS) or c >= tile.get("cols", MAX_TILE_ELEMENTS):
            return f"{where}.elements.{key}: coordinate outside the {tile.get('rows', '?')}x{tile.get('cols', '?')} tile"
    for key in tile.get("storage", {}):
        if int(key) >= MAX_TILE_ELEMENTS:
            return f"{where}.storage.{key}: storage index beyond the largest tile ({MAX_TILE_ELEMENTS} elements)"
    padding = tile.get("padding")
    for name in ("value", "word"):
        if padding and not padding["defined"] and name in padding:
            return (f"{where}.padding.{name}: an undefined padding has no {name} to check "
                    f"(drop {name} or set defined: true)")
    for key, element in tile.get("elements", {}).items():
        if element.get("defined") is False and "value" in element:
            return f"{where}.elements.{key}.value: an undefined element has no value to check"
    if tile.get("storage_kind") == "predicate":
        return _check_expect_predicate(tile, where, padding)
    if "dtype" not in tile:
        return None
    bits = element_bits(tile["dtype"])
    limit = (1 << bits) - 1
    wide = _first_above(tile, padding, limit)
    if wide is not None:
        name, value = wide
        return (f"{where}.{name}: {value:#x} does not fit {tile['dtype']} ({bits}-bit elements); "
                "element bits are compared, whole carrier Words go in `words`")
    if padding and "value" in padding and "word" in padding and padding["word"] & limit != padding["value"]:
        return (f"{where}.padding.word: {padding['word']:#x} does not hold the element bits "
                f"padding.value {padding['value']:#x} of {tile['dtype']}")
    return None


def _check_expect_predicate(tile: dict, where: str, padding) -> Optional[str]:
    """Expected predicate bits are 0/1; ``bytes`` covers the whole packed payload, every bit defined."""
    wide = _first_above(tile, padding, 1)
    if wide is not None:
        return f"{where}.{wide[0]}: {wide[1]:#x} is not a predicate bit (0 or 1)"
    if "words" in tile or "storage" in tile or (padding and "word" in padding):
        return f"{where}: a predicate tile has bits (data, fill, elements, padding.value, bytes), not words or storage"
    if "bytes" not in tile:
        return None
    rows, cols, valid = tile.get("rows"), tile.get("cols"), tile.get("valid")
    if rows is None or cols is None or valid is None:
        return f"{where}.bytes: needs rows, cols and valid to say which bits the bytes hold"
    if len(tile["bytes"]) != machine.predicate_storage_bytes(rows, cols):
        return (f"{where}.bytes: a {rows}x{cols} predicate tile packs into "
                f"{machine.predicate_storage_bytes(rows, cols)} bytes, not {len(tile['bytes'])}")
    if list(valid) != [rows, cols] and not (padding and padding["defined"]):
        return f"{where}.bytes: the padding bits must be defined (padding: {{defined: true, ...}}) to expect whole bytes"
    return None


def _first_above(tile: dict, padding, limit: int) -> Optional[tuple[str, int]]:
    """The first element value of an expected tile above ``limit``: (field, value)."""
    for r, row in enumerate(tile.get("data", [])):
        if row and max(row) > limit:
            c = next(c for c, v in enumerate(row) if v > limit)
            return f"data[{r}][{c}]", row[c]
    if tile.get("fill", 0) > limit:
        return "fill", tile["fill"]
    for key, element in tile.get("elements", {}).items():
        if element.get("value", 0) > limit:
            return f"elements.{key}.value", element["value"]
    if padding and padding.get("value", 0) > limit:
        return "padding.value", padding["value"]
    for key, value in tile.get("storage", {}).items():
        if value > limit:
            return f"storage.{key}", value
    return None


# ---------------------------------------------------------------------------
# normalization


def _case_fields(raw: dict, raw_case: dict, catalog: Catalog) -> dict:
    """The fields of the Case (all but its path) as plain data."""
    vector_id = raw["id"]
    if vector_id.startswith(PROJECT_PREFIX):
        adrs = tuple(x for x in raw["exercises"] if x in catalog.adr_ids)
        requirements = tuple(x for x in raw["exercises"] if x not in catalog.adr_ids)
    else:
        adrs = catalog.adrs_of(vector_id)
        requirements = tuple(catalog.tests[vector_id]["requirements"])
    program = raw_case["program"]
    return {
        "vector_id": vector_id,
        "name": raw_case["name"],
        "operation": raw["operation"],
        "kind": raw["kind"],
        "profiles": tuple(p for p in PROFILES if p in raw_case.get("profiles", PROFILES)),
        "adrs": adrs,
        "requirements": requirements,
        "state": _normalize_state(raw_case.get("state", {})),
        "program": (program,) if isinstance(program, str) else tuple(program),
        "expect": _normalize_expect(raw_case["expect"]),
        "source": raw_case["source"],
        "reference": raw_case["reference"],
    }


def _coordinates(mapping: dict) -> dict:
    return {"{},{}".format(*parse_coordinate(k)): v for k, v in mapping.items()}


def _normalize_state(state: dict) -> dict:
    tiles = []
    for tile in state.get("tiles", []):
        out = dict(tile)
        if out.get("storage_kind") == "predicate":  # numeric tiles stay as written (no storage_kind)
            out.setdefault("dtype", "U8")
        out.setdefault("layout", "RowMajor")
        out.setdefault("location", "Matrix" if out["layout"] in CUBE_LAYOUTS else "Any")
        out.setdefault("mask", "1111")
        out.setdefault("defined", "valid")
        out.setdefault("cols", None)
        out["valid"] = list(out["valid"])
        if "elements" in out:
            out["elements"] = _coordinates(out["elements"])
        tiles.append(out)
    out = {
        "tile_capacity": state.get("tile_capacity", 262144),
        "status": state.get("status", 0),
        "gprs": {int(k): v for k, v in sorted(state.get("gprs", {}).items(), key=lambda kv: int(kv[0]))},
        "tiles": tiles,
    }
    # The memory members are present only when the vector states them (a case without them is
    # the same case, for every device, as before they existed).
    if "memory" in state:
        out["memory"] = {"size": _memory_size(state), "regions": _regions(state["memory"].get("regions", []))}
    if "pe_gprs" in state:
        out["pe_gprs"] = {int(pe): {int(k): v for k, v in sorted(gprs.items(), key=lambda kv: int(kv[0]))}
                          for pe, gprs in sorted(state["pe_gprs"].items(), key=lambda kv: int(kv[0]))}
    if "shared_tiles" in state:
        shared = []
        for tile in state["shared_tiles"]:
            entry = dict(tile)
            entry.setdefault("layout", "RowMajor")
            entry.setdefault("location", "Matrix" if entry["layout"] in CUBE_LAYOUTS else "Any")
            entry.setdefault("mask", "1111")
            entry.setdefault("defined", "valid")
            entry.setdefault("cols", None)
            entry["valid"] = list(entry["valid"])
            if "elements" in entry:
                entry["elements"] = _coordinates(entry["elements"])
            shared.append(entry)
        out["shared_tiles"] = shared
    return out


def _regions(regions: list) -> list:
    """Regions with their bytes as lowercase hex without whitespace, by address."""
    return sorted(({"address": r["address"], "bytes": hex_bytes(r["bytes"]).hex()} for r in regions),
                  key=lambda r: r["address"])


def _normalize_expect_tiles(tiles: list) -> list:
    out = []
    for tile in tiles:
        t = dict(tile)
        if "elements" in t:
            t["elements"] = _coordinates(t["elements"])
        if "storage" in t:
            t["storage"] = {int(k): v for k, v in t["storage"].items()}
        out.append(t)
    return out


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
    if "memory" in out:
        out["memory"] = _regions(out["memory"])
    if "one_of" in out:
        outcomes = []
        for outcome in out["one_of"]:
            entry = dict(outcome)
            if "memory" in entry:
                entry["memory"] = _regions(entry["memory"])
            if "tiles" in entry:
                entry["tiles"] = _normalize_expect_tiles(entry["tiles"])
            outcomes.append(entry)
        out["one_of"] = outcomes
    return out
