"""The hw-ieee narrowing fast path (``convert._NarrowingKernel`` with its far-magnitude
bands) gives exactly what the exact general path gives, for every pair it serves.

The general path (decode, then ``round_to_float``) is itself checked against the
spec's values, ml_dtypes and the independent reference elsewhere; this test
pins the shortcut to it: uniformly random encodings (every class: zeros,
subnormals, normals, overflow, infinities, both NaN kinds) plus every band edge
and its neighbours, both signs, every rounding mode, Sat 0/1, Canonicalize 0/1.
"""
import importlib

import numpy as np
import pytest

from pto_avs.device_model import dtypes
from pto_avs.device_model.numeric import convert
from pto_avs.device_model.numeric.rounding import RoundingMode

conversion = importlib.import_module("pto_avs.device_model.numeric.convert")

PAIRS = [(s.name, d.name) for s in dtypes.ALL for d in dtypes.ALL if conversion._narrowing_applies(s, d)]
LANE = {64: np.uint64, 32: np.uint32, 16: np.uint16, 8: np.uint8}


def test_the_fast_path_serves_the_expected_pairs():
    assert ("FP32", "BF16") in PAIRS and ("FP32", "FP16") in PAIRS and ("BF16", "E4M3") in PAIRS
    assert ("FP64", "FP32") in PAIRS and len(PAIRS) >= 30


def _inputs(src, dst, mode, saturate, canonicalize):
    s, d = dtypes.dtype(src), dtypes.dtype(dst)
    ct = LANE[s.bits]
    rng = np.random.default_rng(s.code * 1000 + d.code)
    random = rng.integers(0, 1 << s.bits, 4096, dtype=np.uint64, endpoint=False).astype(ct)
    kernel = conversion._NarrowingKernel(ct, s, d, mode, saturate, canonicalize)
    edges = [int(e) for e in kernel.edges] + [int(kernel.lowest) // 2, int(kernel.limit) // 2]
    if kernel.source_normal is not None:  # source subnormals: the ties just below the smallest normal
        edges += [int(kernel.source_normal) - int(kernel.half), int(kernel.source_normal) - 2 * int(kernel.half)]
    near = np.array([e + k for e in edges for k in (-1, 0, 1) if 0 <= e + k < 1 << (s.bits - 1)], dtype=ct)
    edge_values = np.concatenate([near, near | ct(1 << (s.bits - 1))])
    return np.concatenate([random, edge_values]), s, d


@pytest.mark.parametrize("src, dst", PAIRS)
def test_fast_path_equals_the_exact_path(src, dst):
    for mode in RoundingMode:
        for saturate in (False, True):
            for canonicalize in (False, True):
                lanes, s, d = _inputs(src, dst, mode, saturate, canonicalize)
                words, flags = convert(lanes, src, dst, mode.name, saturate, "hw-ieee", canonicalize)
                exact_words, exact_flags = conversion._generic(lanes, s, d, mode, saturate, canonicalize)
                wrong = np.flatnonzero((words != exact_words) | (flags != exact_flags))
                assert wrong.size == 0, (
                    f"{src}->{dst} {mode.name} Sat={int(saturate)} Canon={int(canonicalize)}: "
                    f"{wrong.size} differ, first {int(lanes[wrong[0]]):#x}: fast {int(words[wrong[0]]):#x}/"
                    f"{int(flags[wrong[0]]):#04x}, exact {int(exact_words[wrong[0]]):#x}/{int(exact_flags[wrong[0]]):#04x}")
