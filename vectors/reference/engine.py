"""The vector-generator engine: what every generator family in vectors/reference/ shares.

A family module (``generate_elementwise``, ``generate_arith``, ``generate_compare``,
``generate_numeric``, ``generate_postprocess``, ``legality_layout``, and any new one) holds
only what differs for it: its element reference, its case builders, its tables. It
declares one ``FAMILY = engine.Family(...)``; the command line writes or checks the files
of every family named in ``FAMILY_MODULES``:

    .venv/bin/python -m pto_avs.vectors.reference generate [--out DIR] [OPERATION ...]
    .venv/bin/python -m pto_avs.vectors.reference check [--out DIR] [OPERATION ...]

``generate`` writes each file atomically (a temporary file renamed over the old one) and,
when no OPERATION narrows it, removes the files a family owns (``Family.owns`` globs) but no
longer writes; ``check`` writes nothing, names every file that differs, is missing or is
stale, and exits 1 if there is one. Nothing here computes an expected value, and nothing
here (or in any module of this folder) imports ``device_model``.

API (stable: add, do not rename)

YAML (``yaml_text``): ``Hex``, ``Flow``, ``FlowMap``, ``Block`` markers and ``to_yaml(doc)``.

DataType facts, all read from ``numeric.FORMATS`` (the reference's one DataType table):
    ``DATA_TYPES`` (names in code order), ``dtype_code(t)``, ``width(t)`` (lane bits),
    ``element_mask(t)``, ``pad_word(pad, t)`` (TilePadValueForDataType).

Geometry: ``size_code(capacity)`` (128 B -> 1 ... 64 KiB -> 10; ``SIZE_CODES``),
    ``rows_of(capacity, cols, t)``, ``pow2_at_least(n)``,
    ``smallest_tile(t, valid, cols=None, capacity=None) -> (cols, capacity, rows)``.

Spec catalog: ``VECTORS_DIR``, ``SPEC_DATA``, ``CATALOG``, ``TESTS``, ``UNITS``,
    ``OPERATION_TABLE``, ``RESERVED_SELECTORS``, ``spec_ref(test_id, what)``,
    ``spec_point(op, test_id)`` (the name part of a spec test ID),
    ``spec_provenance(element_reference, command)``, ``spec_file(op, test_id, provenance, cases)``.

Bundle text and words: ``bstart_word(op, t)`` (BSTART.TEPL command form 33 packed by hand),
    ``iot_line(operands, size=None, mask="1111", last=True, hand="T")``,
    ``bundle_text(bstart, *, datr=None, dims=(), bindings=(), gpr=None)``,
    ``dims_of(valid, cols)`` (the LB0/LB1/LB2 a block over ``valid`` in ``cols`` columns needs),
    ``direct_call(op, dst, sources, **arguments)``, ``raw_bstart_program(program, word)``.

Tile state: ``hexrows(rows)``, ``tile(index, dtype, capacity, cols, valid, data, layout, defined)``,
    ``gpr_map({register: value})``, ``first_free(indices)``.

Cases and expectations: ``case(name, description, profiles, source, reference, state, program,
    expect)``, ``success_expect(flags, allocated, unchanged, tiles)``,
    ``fault_expect(fault, allocated, flags=0)``, ``fault_case(...)``,
    ``padding_expect(pad, t, element=None, with_word=True)``,
    ``result_tile(index, t, capacity, cols, valid, words, pad, ...)`` (a numeric destination).

Flag isolation (``value_classes``): ``ISOLATION_MAX`` (64 elements, one tile row),
    ``isolation_sets``, ``isolation_key``, ``key_label``, ``capped``, ``NOFLAG``, ``chunks``.

Files: ``Family``, ``FAMILY_MODULES``, ``families()``, ``spec_id_files(...)``, ``spec_id_family(...)``,
    ``render_spec_id(doc, generator)``, ``generated_files(operations)``, ``owned_paths(directory, *families)``,
    ``write_files(files, out_dir, owns)``, ``differing_files(files, out_dir, owns)``, ``main(argv)``,
    ``run(action, out_dir, operations, among)``, ``legacy_main(families, argv)`` (a family
    module's own ``python -m`` command, which the files' provenance names: the engine's
    command for that family).
"""
from __future__ import annotations

import argparse
import importlib
import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from . import numeric
from .value_classes import NOFLAG, capped, isolation_key, isolation_sets, key_label
from .yaml_text import Block, Flow, FlowMap, Hex, to_yaml

__all__ = [
    "Block", "Flow", "FlowMap", "Hex", "to_yaml", "NOFLAG", "capped", "isolation_key", "isolation_sets",
    "key_label",
]

VECTORS_DIR = Path(__file__).resolve().parent.parent
SPEC_DATA = VECTORS_DIR.parent / "contract" / "spec_data"
BOTH = ("pto-v0", "hw-ieee")

# ---------------------------------------------------------------------------------------
# DataType facts: one table, numeric.FORMATS (asl/arch/data-types/tile-data-types.asl)

DATA_TYPES = tuple(numeric.FORMATS)


def dtype_code(t: str) -> int:
    """The 5-bit Tile DataType code."""
    return numeric.FORMATS[t].code


def width(t: str) -> int:
    """Bits of one logical element (the lane; 4 for the X2 types)."""
    return numeric.FORMATS[t].width


def element_mask(t: str) -> int:
    return (1 << width(t)) - 1


# TilePadValueForDataType (asl/tile/model/definedness/elements.asl, digest 3.5): the Max and
# Min pad Words; the "otherwise" defaults (all-ones Max, 0x8000000000000000 Min) hold for
# HiF8, E3M2, E2M3, E8M0 and the X2 types; S8/S16/S32 Min are not sign-extended.
_MAX_WORDS = {
    "FP64": 0x7FEFFFFFFFFFFFFF, "FP32": 0x7F7FFFFF, "TF32": 0x7F7FE000, "HF32": 0x7F7FF000,
    "FP16": 0x7BFF, "BF16": 0x7F7F, "E4M3": 0x7E, "E5M2": 0x7B,
    "U8": 0xFF, "U16": 0xFFFF, "U32": 0xFFFFFFFF, "U64": 0xFFFFFFFFFFFFFFFF,
    "S8": 0x7F, "S16": 0x7FFF, "S32": 0x7FFFFFFF, "S64": 0x7FFFFFFFFFFFFFFF,
}
_MIN_WORDS = {
    "FP64": 0xFFEFFFFFFFFFFFFF, "FP32": 0xFF7FFFFF, "TF32": 0xFF7FE000, "HF32": 0xFF7FF000,
    "FP16": 0xFBFF, "BF16": 0xFF7F, "E4M3": 0xFE, "E5M2": 0xFB,
    "U8": 0, "U16": 0, "U32": 0, "U64": 0, "U4X2": 0,
    "S8": 0x80, "S16": 0x8000, "S32": 0x80000000, "S64": 0x8000000000000000,
}
_OTHERWISE_MAX = 0xFFFFFFFFFFFFFFFF
_OTHERWISE_MIN = 0x8000000000000000


def pad_word(pad: str, dtype: str) -> int:
    """The 64-bit Word TilePadValueForDataType stores (before any carrier packing)."""
    if pad in ("Zero", "Null"):
        return 0
    if pad == "Max":
        return _MAX_WORDS.get(dtype, _OTHERWISE_MAX)
    if pad == "Min":
        return _MIN_WORDS.get(dtype, _OTHERWISE_MIN)
    raise ValueError(pad)


# ---------------------------------------------------------------------------------------
# Geometry

SIZE_CODES = {128 << i: i + 1 for i in range(10)}


def size_code(capacity: int) -> int:
    return capacity.bit_length() - 7  # 128 B -> 1 ... 64 KiB -> 10


def rows_of(capacity: int, cols: int, t: str) -> int:
    """Rows of a tile of ``capacity`` bytes and ``cols`` columns of type ``t``."""
    return capacity * 8 // (cols * width(t))


def pow2_at_least(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def smallest_tile(t: str, valid, cols=None, capacity=None) -> tuple[int, int, int]:
    """(cols, capacity, rows) of the smallest legal RowMajor tile holding ``valid``."""
    cols = cols or pow2_at_least(valid[1])
    capacity = capacity or max(128, pow2_at_least(valid[0] * cols * width(t) // 8))
    return cols, capacity, rows_of(capacity, cols, t)


# ---------------------------------------------------------------------------------------
# The spec catalog

CATALOG = json.loads((SPEC_DATA / "tile-avs-catalog.json").read_text())
TESTS = {t["id"]: t for t in CATALOG["tests"]}
UNITS = {u["mnemonic"]: u for u in CATALOG["units"]}
_OPERATIONS = json.loads((SPEC_DATA / "tile-operations.json").read_text())
OPERATION_TABLE = {op["name"]: op for op in _OPERATIONS["operations"]}
RESERVED_SELECTORS = [tuple(int(x, 16) for x in r) for r in _OPERATIONS["reserved"]["tepl_selector_ranges"]]

CATALOG_FIELDS = ("summary", "pass_condition", "requirements", "spec_test_file")


def spec_ref(test_id: str, what: str = "") -> str:
    """The spec test file of ``test_id`` and, after a colon, what it asserts."""
    return TESTS[test_id]["spec_test_file"] + (f": {what}" if what else "")


def spec_point(op: str, test_id: str) -> str:
    """The name part of a spec test ID: ``PTO-AVS-TILE-TADD-DIV-ZERO-001`` -> ``DIV-ZERO``."""
    return test_id[len(f"PTO-AVS-TILE-{op}-"):-4]


def spec_provenance(element_reference: str, command: str) -> str:
    """The provenance paragraph of a spec-ID file whose derived values come from ``element_reference``."""
    return ("Expected values are the spec test's own assertions at PTO-ISA/pto-spec e599a3d3 (source: spec-test; "
            "the reference names the test file and what it asserts) and derivations from the executable ASL "
            f"(source: hand) through the independent element reference {element_reference}, which "
            "shares no code with device_model and agrees with every spec-test value here (the generator checks). "
            f"Written by `{command}`. Nothing here was produced by running the golden model.")


_BSTART_OPERATION = re.compile(r"\bBSTART\.[A-Z]+\s+([A-Z][A-Z0-9_]*)\s*,")


def also_exercises(op: str, cases: list) -> dict:
    """``{"also_exercises": [...]}`` naming the other operations the cases' programs open a block
    of (assembly ``BSTART.<form> <OP>, ...``) or call directly; empty when they run ``op`` alone
    (the loader refuses a program running an operation its file does not declare)."""
    others = set()
    for case in cases:
        program = case.get("program", [])
        for item in [program] if isinstance(program, str) else program:
            if isinstance(item, str):
                others.update(_BSTART_OPERATION.findall(item))
            elif isinstance(item, dict) and "call" in item:
                others.add(item["call"])
    others.discard(op)
    return {"also_exercises": Flow(sorted(others))} if others else {}


def spec_file(op: str, test_id: str, provenance: str, cases: list) -> dict:
    """One spec-ID file: the catalog's fields of ``test_id``, ``provenance``, ``cases``."""
    test = TESTS[test_id]
    doc = {"format": "pto-avs-vector/1", "id": test_id, "operation": op, "kind": test["kind"]}
    for name in CATALOG_FIELDS:
        if test.get(name):
            doc[name] = Flow(test[name]) if isinstance(test[name], list) else test[name]
    doc.update(also_exercises(op, cases))
    doc["provenance"] = provenance
    doc["cases"] = cases
    return doc


# ---------------------------------------------------------------------------------------
# Bundle text and words

def bstart_word(op: str, t: str) -> int:
    """BSTART.TEPL (command form 33): match 0x00019181, DataType 31:27, Mode 26:25,
    Function 24:20 (spec/catalog/command-forms.json), packed by hand."""
    spec = OPERATION_TABLE[op]
    return 0x00019181 | dtype_code(t) << 27 | spec["mode"] << 25 | spec["function"] << 20


def iot_line(operands, size=None, mask="1111", last=True, hand="T") -> str:
    """One B.IOT line: the operands (T indices or names), the mask, ``<last>``, ``->T<size>``."""
    parts = [f"T{s}" if isinstance(s, int) else s for s in operands] + [f"mask={mask}"]
    if last:
        parts.append("<last>")
    if size:
        parts.append(f"->{hand}<{size}>")
    return "B.IOT " + ", ".join(parts)


def dims_of(valid, cols) -> dict:
    """The B.DIM values of a block over ``valid`` in ``cols`` columns (None: line left out)."""
    return {"LB0": valid[1], "LB1": valid[0] if valid[0] != 1 else None, "LB2": cols if cols != valid[1] else None}


def bundle_text(bstart: str, *, datr=None, dims=(), bindings=(), gpr=None) -> str:
    """A block: the BSTART line, ``datr`` (a whole ``B.DATR ...`` line), the ``dims``
    ({"LB0": n, ...}; a None value is left out), the binding lines, ``B.IOR R<gpr>``, BSTOP."""
    lines = [bstart]
    if datr:
        lines.append(datr)
    for name, value in dict(dims).items():
        if value is not None:
            lines.append(f"B.DIM {name}={value}")
    lines += list(bindings)
    if gpr is not None:
        lines.append(f"B.IOR R{gpr}")
    lines.append("BSTOP")
    return "\n".join(lines)


def raw_bstart_program(program: str, word: int) -> Flow:
    """The block ``program`` with its BSTART line replaced by the raw command word."""
    return Flow([Hex(word)] + program.splitlines()[1:])


def direct_call(op: str, dst: int, sources, **arguments) -> Flow:
    """A one-call program: ``op`` writing ``dst`` from ``sources`` (src, src1, src2), then the
    named arguments whose value is not None (``scalar`` written in hex)."""
    call = {"call": op, "dst": dst}
    call.update(zip(("src", "src1", "src2"), sources))
    for name, value in arguments.items():
        if value is not None and value != "":
            call[name] = Hex(value) if name == "scalar" else value
    return Flow([FlowMap(call)])


# ---------------------------------------------------------------------------------------
# Tile state

def hexrows(rows) -> list:
    """Rows of integers as flow lists of hexadecimal scalars."""
    return [Flow(Hex(v) for v in row) for row in rows]


def tile(index, dtype, capacity, cols, valid, data=None, layout=None, defined=None) -> dict:
    """A numeric state tile: ``data`` rows of element Words (hex), optional layout and definedness."""
    out = {"index": index, "dtype": dtype, "capacity": capacity, "cols": cols, "valid": Flow(valid)}
    if layout:
        out["layout"] = layout
    if data is not None:
        out["data"] = hexrows(data)
    if defined:
        out["defined"] = defined
    return out


def gpr_map(gprs: dict) -> FlowMap:
    """State GPRs {register: value} on one line, values in hex."""
    return FlowMap({k: Hex(v) for k, v in gprs.items()})


def first_free(used) -> int:
    """The first T index not in ``used`` (where a block's destination lands)."""
    return next(i for i in range(16) if i not in used)


# ---------------------------------------------------------------------------------------
# Cases and expectations

def case(name, description, profiles, source, reference, state, program, expect) -> dict:
    """One case; an assembly ``program`` string becomes a YAML block, an empty tile list a flow []."""
    if state is not None and not state.get("tiles", True):
        state["tiles"] = Flow([])
    out = {"name": name, "description": " ".join(description.split()), "profiles": Flow(profiles),
           "source": source, "reference": reference}
    if state:
        out["state"] = state
    out["program"] = Block(program) if isinstance(program, str) else program
    out["expect"] = expect
    return out


def success_expect(flags: int, allocated, unchanged, tiles) -> dict:
    """A completed block or call: no fault, ``flags``, the allocated and unchanged T indices
    (the key left out when none is unchanged), the expected destination tiles."""
    expect = {"fault": None, "flags": Hex(flags), "allocated": Flow(allocated)}
    if unchanged:
        expect["unchanged"] = Flow(unchanged)
    expect["tiles"] = tiles
    return expect


def fault_expect(fault: str, allocated, flags: int = 0) -> dict:
    """A rejected block or call: ``fault``, the status kept, nothing changed."""
    return {"fault": fault, "flags": Hex(flags), "allocated": Flow(allocated), "unchanged": "all"}


def fault_case(name, description, tiles, program, fault="Fault_TileLegality", *, source="hand", reference="",
               profiles=BOTH, gprs=None, status=None, state_without_tiles=True) -> dict:
    """A case that faults with ``fault`` and leaves every state tile unchanged; the state holds
    ``tiles``, the ``status`` kept (also the expected flags) and the ``gprs``.
    ``state_without_tiles``: whether a state with no tiles is written (``tiles: []``)."""
    state = {"tiles": tiles} if tiles or state_without_tiles else {}
    if status:
        state["status"] = Hex(status)
    if gprs:
        state["gprs"] = gpr_map(gprs)
    expect = fault_expect(fault, sorted(t["index"] for t in tiles), status or 0)
    return case(name, description, list(profiles), source, reference, state, program, expect)


def padding_expect(pad, t: str, element: Callable[[int], int] | None = None, with_word: bool = True) -> FlowMap:
    """The ``padding`` expectation of a destination of type ``t`` under PadValue ``pad``
    (None or Null: undefined): the pad's element bits (``element`` of the pad Word, by
    default its low ``width(t)`` bits) and, ``with_word``, the whole pad Word."""
    if pad in (None, "Null"):
        return FlowMap(defined=False)
    word = pad_word(pad, t)
    value = element(word) if element else word & element_mask(t)
    if not with_word:
        return FlowMap(defined=True, value=Hex(value))
    return FlowMap(defined=True, value=Hex(value), word=Hex(word))


def result_tile(index, t, capacity, cols, valid, words, pad, *, carrier=True, location="Any",
                element=None, pad_with_word=True) -> dict:
    """The expected numeric destination: descriptor, element bits (``data``), the whole Words
    (``words``, when ``carrier``) and, when the valid region is smaller than the tile, the
    padding (``padding_expect``)."""
    element = element or (lambda w: w & element_mask(t))
    rows = rows_of(capacity, cols, t)
    out = {"index": index, "dtype": t, "layout": "RowMajor", "location": location, "rows": rows,
           "cols": cols, "valid": Flow(valid), "capacity": capacity, "mask": "1111",
           "data": hexrows([[element(w) for w in row] for row in words])}
    if carrier:
        out["words"] = hexrows(words)
    if valid[0] * valid[1] < rows * cols:
        out["padding"] = padding_expect(pad, t, element, pad_with_word)
    return out


# ---------------------------------------------------------------------------------------
# Flag isolation: NumericStatus is the sticky OR over a tile, so a flag-raising value class
# gets tiles of its own (value_classes.isolation_sets groups elements by (class, flags)).

ISOLATION_MAX = 64  # elements of one isolation case (one tile row)


def chunks(values: list, size: int) -> list:
    """``values`` in consecutive pieces of at most ``size``."""
    return [values[i:i + size] for i in range(0, len(values), size)]


# ---------------------------------------------------------------------------------------
# Families, files and the command line

@dataclass(frozen=True)
class Family:
    """One generator family. ``files(operations)`` returns {file name: text} for the given
    operations (a subset of ``operations``); ``owns``: globs of the vectors/ files the family
    writes, so one it no longer writes is found stale."""
    name: str
    operations: tuple
    files: Callable[[tuple], dict]
    owns: tuple = field(default=())


# The modules that declare a FAMILY, in the order their files are written.
FAMILY_MODULES = ("generate_elementwise", "generate_arith", "generate_compare", "generate_numeric",
                  "generate_postprocess", "legality_layout", "generate_expansion",
                  "generate_reductions", "generate_rearrange", "strength", "generate_sorting", "generate_matrix",
                  "generate_generation", "generate_memory", "strength_derived", "generate_movement",
                  "generate_img2col", "generate_gather_scatter")


def families() -> list[Family]:
    return [importlib.import_module(f"{__package__}.{name}").FAMILY for name in FAMILY_MODULES]


def execution_file(vector_id: str, op: str, summary: str, provenance: str, cases: list, also=()) -> dict:
    """The header of an execution vector file of ``op`` that is no spec test point (its exercised
    subjects from the catalog; ``also``: other operations its programs run) and its cases."""
    out = {"format": "pto-avs-vector/1", "id": vector_id, "operation": op, "kind": "execution", "summary": summary,
           "exercises": Flow(UNITS[op]["readiness_subjects"])}
    if also:
        out["also_exercises"] = Flow(list(also))
    out.update({"provenance": provenance, "cases": cases})
    return out


def render_spec_id(doc: dict, generator: str) -> str:
    """A spec-ID or reference file's text: the two-line header naming ``generator`` (a file
    under vectors/reference/), then the YAML."""
    return (f"# Vectors for {doc['id']} (pto-avs-vector/1), written by vectors/reference/{generator}.\n"
            "# Expected values: the spec test's assertions and the independent element reference; "
            "see provenance.\n" + to_yaml(doc))


def spec_id_files(operations, spec_cases: Callable[[str, str], list], x_file: Callable[[str], dict],
                  provenance: str, generator: str) -> dict:
    """File name -> text: each operation's spec-ID files, then its PTO-AVS-X-<OP>-REF-001."""
    files = {}
    for op in operations:
        for test_id in UNITS[op]["tests"]:
            doc = spec_file(op, test_id, provenance, spec_cases(op, test_id))
            files[f"{test_id}.yaml"] = render_spec_id(doc, generator)
        files[f"PTO-AVS-X-{op}-REF-001.yaml"] = render_spec_id(x_file(op), generator)
    return files


def spec_id_family(name: str, operations, spec_cases: Callable[[str, str], list], x_file: Callable[[str], dict],
                   element_reference: str, command: str) -> Family:
    """The Family of a module ``name`` that writes spec-ID and reference files (``spec_id_files``)
    whose derived values come from ``element_reference``, written by ``command``."""
    provenance = spec_provenance(element_reference, command)
    return Family(name, tuple(operations),
                  lambda ops: spec_id_files(ops, spec_cases, x_file, provenance, f"{name}.py"))


def generated_files(operations=None, among=None) -> tuple[dict, tuple]:
    """File name -> text of the files of ``among`` (default: every family), of ``operations``
    when given, and the owned globs of the families whose every operation is included:
    (files, owned globs). A file that a family left out of the run also owns (a family's
    ``PTO-AVS-X-TCOLMAX-*`` and the strength family's ``PTO-AVS-X-TCOLMAX-STRENGTH-001.yaml``)
    is excluded (a ``!glob`` entry): narrowing a run never removes or flags another's file."""
    files, owns = {}, []
    wanted = set(operations) if operations else None
    selected = list(among or families())
    for family in selected:
        ops = tuple(op for op in family.operations if wanted is None or op in wanted)
        if ops:
            files.update(family.files(ops))
        if ops == family.operations:  # a run over all its operations can tell a stale file
            owns += family.owns
    if owns:
        names = {family.name for family in selected}
        owns += [f"!{pattern}" for family in families() if family.name not in names for pattern in family.owns]
    return files, tuple(owns)


def _owned(out_dir: Path, owns) -> set:
    """The names in ``out_dir`` matched by the globs of ``owns`` and by none of its ``!globs``."""
    def matched(patterns):
        return {path.name for pattern in patterns for path in out_dir.glob(pattern)}

    return matched(p for p in owns if not p.startswith("!")) - matched(p[1:] for p in owns if p.startswith("!"))


def owned_paths(directory: Path, *owners: Family) -> list[Path]:
    """The files of ``directory`` that the ``owners`` families write (or once wrote), sorted."""
    return sorted(path for family in owners for pattern in family.owns for path in directory.glob(pattern))


def write_files(files: dict, out_dir: Path, owns=()) -> list[str]:
    """Write every file atomically; remove the owned files not written. Returns the removed names."""
    out_dir.mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        temporary = out_dir / f".{name}.tmp"
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, out_dir / name)
    stale = sorted(_owned(out_dir, owns) - set(files))
    for name in stale:
        (out_dir / name).unlink()
    return stale


def differing_files(files: dict, out_dir: Path, owns=()) -> list[str]:
    """The names of the files that differ from ``files`` in ``out_dir``, are missing, or are
    owned but no longer written."""
    differ = [name for name, text in files.items()
              if not (out_dir / name).exists() or (out_dir / name).read_text(encoding="utf-8") != text]
    return differ + sorted(_owned(out_dir, owns) - set(files))


def run(action: str, out_dir: Path, operations=(), among=None) -> int:
    """``generate``: write the files (of ``operations``; of the ``among`` families), report
    what was removed; ``check``: name every file that differs; 1 if one does."""
    files, owns = generated_files(operations, among)
    if action == "generate":
        removed = write_files(files, out_dir, owns)
        print(f"wrote {len(files)} files to {out_dir}" + (f", removed {', '.join(removed)}" if removed else ""))
        return 0
    differ = differing_files(files, out_dir, owns)
    for name in differ:
        print(f"differs: {name}")
    print(f"checked {len(files)} files in {out_dir}: {len(differ)} differ")
    return 1 if differ else 0


def legacy_main(among, argv=None) -> int:
    """A family module's own command, ``python -m pto_avs.vectors.reference.<module> [--out DIR]
    [--check]`` (the files' provenance names it): the engine's for the ``among`` families (or,
    given operation names, for those operations' files)."""
    parser = argparse.ArgumentParser(description="generate (or --check) these families' vector files")
    parser.add_argument("--out", type=Path, default=VECTORS_DIR)
    parser.add_argument("--check", action="store_true", help="exit 1 if a shipped file differs")
    args = parser.parse_args(argv)
    action = "check" if args.check else "generate"
    if all(isinstance(item, str) for item in among):
        return run(action, args.out, tuple(among))
    return run(action, args.out, among=among)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pto_avs.vectors.reference",
                                     description="Write (generate) or compare (check) the generated vector files.")
    parser.add_argument("action", choices=("generate", "check"))
    parser.add_argument("operations", nargs="*", metavar="OPERATION", help="only these operations' files")
    parser.add_argument("--out", type=Path, default=VECTORS_DIR, help="the vector folder (default: vectors/)")
    args = parser.parse_intermixed_args(argv)
    known = {op for family in families() for op in family.operations}
    unknown = [op for op in args.operations if op not in known]
    if unknown:
        parser.error("no generator writes files of " + ", ".join(unknown))
    return run(args.action, args.out, args.operations)
