"""The file envelope shared by the elementwise vector generators.

``generate_elementwise``, ``generate_arith`` and ``generate_compare`` build their cases
differently but write the same kind of files: one ``PTO-AVS-TILE-<OP>-<NAME>-NNN.yaml``
per spec test ID (its catalog fields, a provenance paragraph, the cases) and one or more
``PTO-AVS-X-*`` reference files, each rendered with a two-line header, all written (or
compared with ``--check``) by one command. This module holds that envelope and the spec
catalogs it reads; nothing here computes an expected value.
"""
from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Callable

from .generate_numeric import Block, Flow, Hex, to_yaml

VECTORS_DIR = Path(__file__).resolve().parent.parent
SPEC_DATA = VECTORS_DIR.parent / "contract" / "spec_data"

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


def spec_provenance(element_reference: str, command: str) -> str:
    """The provenance paragraph of a spec-ID file whose derived values come from ``element_reference``."""
    return ("Expected values are the spec test's own assertions at PTO-ISA/pto-spec e599a3d3 (source: spec-test; "
            "the reference names the test file and what it asserts) and derivations from the executable ASL "
            f"(source: hand) through the independent element reference {element_reference}, which "
            "shares no code with device_model and agrees with every spec-test value here (the generator checks). "
            f"Written by `{command}`. Nothing here was produced by running the golden model.")


def spec_file(op: str, test_id: str, provenance: str, cases: list) -> dict:
    """One spec-ID file: the catalog's fields of ``test_id``, ``provenance``, ``cases``."""
    test = TESTS[test_id]
    doc = {"format": "pto-avs-vector/1", "id": test_id, "operation": op, "kind": test["kind"]}
    for field in CATALOG_FIELDS:
        if test.get(field):
            doc[field] = Flow(test[field]) if isinstance(test[field], list) else test[field]
    doc["provenance"] = provenance
    doc["cases"] = cases
    return doc


def all_files(operations, spec_cases: Callable[[str, str], list], x_file: Callable[[str], dict],
              provenance: str) -> dict:
    """File name -> document: each operation's spec-ID files, then its PTO-AVS-X-<OP>-REF-001."""
    files = {}
    for op in operations:
        for test_id in UNITS[op]["tests"]:
            files[f"{test_id}.yaml"] = spec_file(op, test_id, provenance, spec_cases(op, test_id))
        files[f"PTO-AVS-X-{op}-REF-001.yaml"] = x_file(op)
    return files


def render(doc: dict, generator: str) -> str:
    """A file's text: the header naming ``generator`` (a file under vectors/reference/), then the YAML."""
    return (f"# Vectors for {doc['id']} (pto-avs-vector/1), written by vectors/reference/{generator}.\n"
            "# Expected values: the spec test's assertions and the independent element reference; "
            "see provenance.\n" + to_yaml(doc))


def main(argv, description: str, all_files: Callable[[], dict], render_file: Callable[[dict], str]) -> int:
    """Write every file of ``all_files()`` (name -> document) to --out, or with --check exit 1
    naming the shipped files that differ."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--out", type=Path, default=VECTORS_DIR)
    parser.add_argument("--check", action="store_true", help="exit 1 if a shipped file differs")
    args = parser.parse_args(argv)
    stale = []
    for name, doc in all_files().items():
        text = render_file(doc)
        path = args.out / name
        if args.check:
            if not path.exists() or path.read_text() != text:
                stale.append(name)
        else:
            path.write_text(text)
    if stale:
        print("stale: " + ", ".join(stale))
        return 1
    return 0
