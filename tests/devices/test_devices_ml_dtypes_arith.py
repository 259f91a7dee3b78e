"""The numpy/ml_dtypes peer for TADD, TSUB, TMUL, TDIV and TSQRT (plugins/ml_dtypes_device.py).

binary32 numpy, FP16 and BF16 rounded once more from binary32: by the double-rounding
argument (plugins/README.md, "Peers") the peer equals one IEEE rounding of the exact result, so it
must agree with the independent hw-ieee reference (vectors/reference/arithmetic.py) on
every element whose result is not a NaN (NaN sign and payload are numpy's).
"""
from __future__ import annotations

import random

import numpy as np
import pytest

from pto_avs.contract.compare import compare
from pto_avs.contract.loader import VECTORS_DIR, load_paths
from pto_avs.device_model import dtypes
from pto_avs.plugins.ml_dtypes_device import MlDtypesDevice, numpy_element
from pto_avs.vectors.reference import arith_elements as ref
from pto_avs.vectors.reference.numeric import decode

WIDTH = {"FP32": 32, "FP16": 16, "BF16": 16}
ELEMENT = {"TADD": "ADD", "TSUB": "SUB", "TMUL": "MUL", "TDIV": "DIV", "TSQRT": "SQRT"}


@pytest.mark.parametrize("t", sorted(WIDTH))
@pytest.mark.parametrize("op", sorted(ELEMENT))
def test_the_peer_is_one_rounding_of_the_exact_result(op, t):
    rng = random.Random(f"{op}-{t}")
    # random encodings, plus operands near each other (cancellation, ties) and near 1
    operands = [(rng.getrandbits(WIDTH[t]), rng.getrandbits(WIDTH[t])) for _ in range(300)]
    near = [(a, a ^ rng.getrandbits(4)) for a, _ in operands[:150]]
    operands += near
    element = numpy_element(op)
    arity = 1 if op == "TSQRT" else 2
    words, _ = element(dtypes.dtype(t), "hw-ieee", *(np.array(column, dtype=np.uint64)
                                                     for column in list(zip(*operands))[:arity]))
    checked = 0
    for (a, b), got in zip(operands, words.tolist()):
        expected, _ = ref.element_op(ELEMENT[op], t, "hw-ieee", *((a, b)[:arity]))
        if decode(t, expected).cls == "nan":
            assert decode(t, got).cls == "nan", (hex(a), hex(b))
            continue
        assert got == expected, (op, t, hex(a), hex(b), hex(got), hex(expected))
        checked += 1
    assert checked > 200


def test_the_device_runs_the_arithmetic_and_refuses_other_types():
    device = MlDtypesDevice()
    cases = {c.name: c for f in load_paths([VECTORS_DIR / "PTO-AVS-X-TMUL-REF-001.yaml"]) for c in f.cases}
    tie = cases["fp16-tie-nx-hw-ieee"]
    assert device.supports(tie) is None
    verdict = compare(tie, device.execute(tie), device.capabilities.aspects)
    assert verdict.outcome == "pass" and verdict.aspects["flags"].status == "not observable"
    assert "FP32, FP16, BF16" in device.supports(cases["e5m2-tie-nx-hw-ieee"])
