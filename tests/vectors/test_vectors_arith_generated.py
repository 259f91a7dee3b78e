"""The arithmetic vectors (TADD ... TREMS) are what their generator writes, and every
reference case holds one isolation key.

- vectors/reference/generate_arith.py writes one file per spec test ID of these
  operations and PTO-AVS-X-<OP>-REF-001 per operation; the shipped files must equal its
  output (regenerate with ``.venv/bin/python -m pto_avs.vectors.reference.generate_arith``);
- flag isolation: each reference case's elements are read back from the vector file and
  classified with the independent reference (value class and flags, not the file's
  expectations); a case holds the elements of one isolation key, and the flags it
  expects are that key's flags (as the operation records them).
"""
from __future__ import annotations

import pytest
import yaml

from pto_avs.contract.loader import VECTORS_DIR
from pto_avs.vectors.reference import arith_elements as ref
from pto_avs.vectors.reference import generate_arith as gen
from pto_avs.vectors.reference import value_classes

pytestmark = pytest.mark.slow  # regenerates the arithmetic reference cases and checks each one's isolation

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def test_the_generator_writes_one_file_per_spec_id_and_a_reference_file_per_operation():
    # shipped = generated: tests/vectors/test_vectors_generated.py (generated here, not at import:
    # collecting this module stays cheap when -m "not slow" leaves it out)
    files = gen.files(gen.OPERATIONS)
    spec = {f"{t}.yaml" for op in gen.OPERATIONS for t in gen.UNITS[op]["tests"]}
    assert len(spec) == 73 and spec <= set(files)
    assert set(files) - spec == {f"PTO-AVS-X-{op}-REF-001.yaml" for op in gen.OPERATIONS}


def _elements(case):
    """(operation tuples, scalar) of a generated reference block, read from the vector."""
    tiles = {t["index"]: t for t in case["state"]["tiles"]}
    sources = [tiles[i]["data"][0] for i in sorted(tiles)]
    gprs = case["state"].get("gprs", {})
    return list(zip(*sources)), gprs.get(5)


@pytest.mark.parametrize("op", gen.OPERATIONS)
def test_each_reference_case_is_one_isolation_key(op):
    doc = yaml.load((VECTORS_DIR / f"PTO-AVS-X-{op}-REF-001.yaml").read_text(), Loader=Loader)
    keys_seen = 0
    for case in doc["cases"]:
        if case["expect"].get("fault"):
            continue
        t = case["expect"]["tiles"][0]["dtype"]
        (profile, *_) = case["profiles"]
        tuples, scalar = _elements(case)
        keys, flags = set(), 0
        for operands in tuples:
            operands = operands + ((scalar,) if scalar is not None else ())
            word, f = ref.evaluate(op, t, profile, *operands)
            cls = gen.element_class(op, t, profile, operands, word, f) if t in ref.FLOAT_TYPES else "integer"
            keys.add(value_classes.isolation_key(cls, f))
            flags |= f
        assert len(keys) == 1, (case["name"], keys)
        assert case["expect"]["flags"] == ref.recorded_status(op, profile, flags), case["name"]
        keys_seen += 1
    assert keys_seen >= 20


def test_the_element_reference_agrees_with_the_spec_interpreter():
    """Every element the spec's interpreter computed under the reference profile
    (tests/data/aslref-arith-elements.json, recorded by vectors/reference/aslref_arith_probe.py)."""
    import json
    from pathlib import Path

    records = json.loads((Path(__file__).resolve().parents[1] / "data" / "aslref-arith-elements.json").read_text())["cases"]
    assert len(records) == 3112
    for record in records:
        op = record.get("op") or "FMA"
        assert ref.element_op(op, record["type"], "pto-v0", *record["inputs"]) == (
            record["result"], record["flags"]), record
