"""Agreement of the numpy/ml_dtypes peer with the shipped arithmetic vectors, per operation and type.

Run: ``.venv/bin/python tests/benchmarks/peer_arith.py``.

For TADD, TSUB, TMUL, TDIV and TSQRT on FP32, FP16 and BF16 (RNE), every element of the
hw-ieee cases of PTO-AVS-X-<OP>-REF-001 and of the spec-ID files is recomputed by the
peer's element function (``plugins/ml_dtypes_device.numpy_element``: binary32 numpy,
FP16/BF16 rounded once more) and compared with the element value the vector expects
(the independent reference's). Disagreements are split into NaN results (the peer keeps
numpy's NaN sign and payload, the profile gives the canonical NaN: a known divergence)
and any other; the double-rounding argument (plugins/README.md, "Peers") says the latter is zero.
Prints one line per operation and type; exits 1 when a non-NaN disagreement exists.
"""
from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

import numpy as np
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from pto_avs.contract.loader import VECTORS_DIR  # noqa: E402
from pto_avs.device_model import dtypes  # noqa: E402
from pto_avs.plugins.ml_dtypes_device import ARITHMETIC_TYPES, NUMPY_OPERATIONS, numpy_element  # noqa: E402

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
NAN_EXPONENT = {"FP32": (0x7F800000, 0x007FFFFF), "FP16": (0x7C00, 0x03FF), "BF16": (0x7F80, 0x007F)}


def is_nan(word: int, dtype: str) -> bool:
    exponent, fraction = NAN_EXPONENT[dtype]
    return (word & exponent) == exponent and (word & fraction) != 0


def elements(op: str):
    """(dtype, operand tuple, expected element) of every completed hw-ieee block of ``op``."""
    for path in sorted(VECTORS_DIR.glob(f"PTO-AVS-*-{op}-*.yaml")):
        doc = yaml.load(path.read_text(), Loader=Loader)
        if doc["operation"] != op:
            continue
        for case in doc["cases"]:
            expect, program = case["expect"], case["program"]
            if expect.get("fault") or "hw-ieee" not in case.get("profiles", ["hw-ieee"]) or not expect.get("tiles"):
                continue
            if not isinstance(program, str):  # direct calls: the same elements as their block twins
                continue
            result = expect["tiles"][0]
            dtype = result.get("dtype")
            if dtype not in ARITHMETIC_TYPES:
                continue
            sources = [t["data"] for t in case["state"]["tiles"]]
            for r, row in enumerate(result["data"]):
                for c, value in enumerate(row):
                    yield dtype, tuple(s[r][c] for s in sources), value


def main() -> int:
    bad = 0
    print(f"{'operation':9} {'type':5} {'elements':>8} {'agree':>7} {'NaN payload/sign':>17} {'other':>6}")
    for op in NUMPY_OPERATIONS:
        counts = {t: Counter() for t in ARITHMETIC_TYPES}
        element = numpy_element(op)
        for dtype, operands, expected in elements(op):
            words, _ = element(dtypes.dtype(dtype), "hw-ieee", *(np.uint64(w) for w in operands))
            got = int(np.asarray(words).reshape(-1)[0])
            tally = counts[dtype]
            tally["elements"] += 1
            if got == expected:
                tally["agree"] += 1
            elif is_nan(got, dtype) and is_nan(expected, dtype):
                tally["nan"] += 1
            else:
                tally["other"] += 1
                if tally["other"] <= 3:
                    print(f"  {op} {dtype} {[hex(w) for w in operands]}: expected {expected:#x}, peer {got:#x}")
        for dtype, tally in counts.items():
            print(f"{op:9} {dtype:5} {tally['elements']:8} {tally['agree']:7} {tally['nan']:17} {tally['other']:6}")
            bad += tally["other"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
