"""The vector schema's patterns mean the same to both validators the loader uses: jsonschema
(Python ``re``, where ``$`` also matches before a final newline) and jsonschema-rs (ECMA-262
semantics, where it does not). Before the anchors, a vector ID or case name ending in a
newline was accepted and the newline reached test IDs and the spec device's program."""
from __future__ import annotations

import json
import re

import jsonschema_rs
import pytest

from pto_avs.contract import loader

SCHEMA = json.loads(loader.SCHEMA_PATH.read_text())
# One string each pattern of the schema accepts (the test checks that every pattern has one).
SAMPLES = ["PTO-AVS-X-TCVT-REF-001", "PTO-AVS-X-", "TGEMV_MX_ACC", "1011", "3, 4", "u8-nd.to_u16", "23", "0", "17", "2", "00 1a FF"]
VARIANTS = (lambda s: s, lambda s: s + "\n", lambda s: "\n" + s, lambda s: s + "\r\n", lambda s: s + "\n\n",
            lambda s: s + " ", lambda s: "")


def patterns(node):
    if isinstance(node, dict):
        if isinstance(node.get("pattern"), str):
            yield node["pattern"]
        for value in node.values():
            yield from patterns(value)
    elif isinstance(node, list):
        for value in node:
            yield from patterns(value)


PATTERNS = sorted(set(patterns(SCHEMA)))


def test_the_schema_has_the_patterns_this_test_covers():
    assert len(PATTERNS) >= 8


@pytest.mark.parametrize("pattern", PATTERNS)
def test_both_validators_accept_the_same_strings(pattern):
    compiled = jsonschema_rs.validator_for({"type": "string", "pattern": pattern})
    candidates = {variant(sample) for sample in SAMPLES for variant in VARIANTS}
    python = {text for text in candidates if re.search(pattern, text)}
    ecma = {text for text in candidates if compiled.is_valid(text)}
    assert python == ecma, f"{pattern!r}: only Python accepts {sorted(python - ecma)}, only ECMA {sorted(ecma - python)}"
    assert python, f"{pattern!r}: no sample matches it; add one to SAMPLES"
    assert not [text for text in python if text.endswith("\n")] or not pattern.endswith("$")


def vector(vector_id: str, name: str) -> str:
    return (f"format: pto-avs-vector/1\nid: {json.dumps(vector_id)}\noperation: TMULS\nkind: execution\n"
            f"exercises: [ADR-0081]\nprovenance: pattern tests\ncases:\n  - name: {json.dumps(name)}\n"
            "    source: hand\n    reference: r\n    state:\n      tiles:\n"
            "        - {index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], data: [[7]]}\n"
            "    program: [{call: TMULS, dst: 1, src: 0, scalar: 3}]\n    expect: {}\n")


def test_a_case_name_ending_in_a_newline_is_the_vectors_error(tmp_path):
    path = tmp_path / "PTO-AVS-X-PATTERN-001.yaml"
    path.write_text(vector("PTO-AVS-X-PATTERN-001", "seven\n"))
    loaded = loader.load_file(path, cache=None)
    assert loaded.cases == [] and loaded.entries[0].message.endswith(
        "name: expected a case name of [a-z0-9][a-z0-9._-]*, got \"seven\\n\"")


def test_an_id_ending_in_a_newline_is_the_files_error(tmp_path):
    path = tmp_path / "PTO-AVS-X-PATTERN-002.yaml"
    path.write_text(vector("PTO-AVS-X-PATTERN-002\n", "seven"))
    loaded = loader.load_file(path, cache=None)
    assert loaded.error is not None and loaded.error.message.startswith(f"{loader.display_path(path)}: id: ")
    assert "PTO-AVS-X-PATTERN-002\\n" in loaded.error.message
