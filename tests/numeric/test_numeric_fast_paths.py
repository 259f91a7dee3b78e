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
                _assert_fast_equals_exact(lanes, s, d, mode, saturate, canonicalize)


def _assert_fast_equals_exact(lanes, s, d, mode, saturate, canonicalize):
    """``convert`` (the kernel) and ``_generic`` agree on every lane, words and flags."""
    words, flags = convert(lanes, s.name, d.name, mode.name, saturate, "hw-ieee", canonicalize)
    exact_words, exact_flags = conversion._generic(lanes, s, d, mode, saturate, canonicalize)
    wrong = np.flatnonzero((words != exact_words) | (flags != exact_flags))
    assert wrong.size == 0, (
        f"{s.name}->{d.name} {mode.name} Sat={int(saturate)} Canon={int(canonicalize)}: {wrong.size} of {lanes.size} "
        f"differ, first {int(lanes[wrong[0]]):#x}: fast {int(words[wrong[0]]):#x}/{int(flags[wrong[0]]):#04x}, "
        f"exact {int(exact_words[wrong[0]]):#x}/{int(exact_flags[wrong[0]]):#04x}")


def _edge_band_inputs(s, d, kernel):
    """Dense inputs of the two bands the kernel settles next to its range (its
    ``_edge_constants``): every source exponent field below the destination's smallest
    normal with the fraction patterns that decide a rounding on the subnormal grid (zero,
    one, each tie and its neighbours, all ones, random), and magnitudes from ``limit`` up to
    ``2**(emax+1)``: every tie and neighbour around the largest codes, and random ones."""
    ct = LANE[s.bits]
    m = s.fmt.frac_bits
    rng = np.random.default_rng(s.code * 77 + d.code)
    fractions = {0, 1, (1 << m) - 1, (1 << m) - 2}
    for k in range(1, m + 1):  # a tie at every bit position and its neighbours
        fractions |= {(1 << (k - 1)) + j for j in (-1, 0, 1)} | {(3 << (k - 1)) & ((1 << m) - 1)}
    fractions |= set(int(v) for v in rng.integers(0, 1 << m, 64, dtype=np.uint64))
    fractions = np.array(sorted(f for f in fractions if 0 <= f < 1 << m), dtype=np.uint64)
    low_field = max(1, int(kernel.edge_lowest) >> m) - (d.fmt.frac_bits + 3)
    fields = np.arange(max(1, low_field), (int(kernel.edge_lowest) >> m) + 1, dtype=np.uint64)
    tiny = ((fields[:, None] << np.uint64(m)) | fractions[None, :]).reshape(-1)
    limit, top = int(kernel.edge_limit), int(kernel.edges[2])  # edges[2]: 2**(emax+1)
    drop = int(kernel.drop)
    step = 1 << drop
    ties = [c * step + off for c in range(limit >> drop, (top >> drop) + 1)
            for off in (0, 1, step // 2 - 1, step // 2, step // 2 + 1, step - 1)]
    near = np.array([v for v in ties if limit - 2 <= v < top + 2], dtype=np.uint64)
    near = np.concatenate([near, rng.integers(limit, max(top, limit + 1), 4096, dtype=np.uint64)])
    magnitudes = np.concatenate([tiny, near])
    magnitudes = magnitudes[magnitudes < np.uint64(1 << (s.bits - 1))]
    lanes = magnitudes.astype(ct)
    return np.concatenate([lanes, lanes | ct(1 << (s.bits - 1))])


@pytest.mark.parametrize("src, dst", PAIRS)
def test_the_bands_next_to_the_kernel_range_equal_the_exact_path(src, dst):
    """The destination's subnormal results and the values near its max finite, which the
    kernel settles itself (not the generic path), on dense inputs of each band: every mode,
    Sat 0/1, both signs; 16-bit sources on every encoding."""
    s, d = dtypes.dtype(src), dtypes.dtype(dst)
    ct = LANE[s.bits]
    for mode in RoundingMode:
        for saturate in (False, True):
            kernel = conversion._narrowing_kernel(ct, s, d, mode, saturate, False)
            lanes = (np.arange(1 << s.bits, dtype=np.uint64).astype(ct) if s.bits <= 16
                     else _edge_band_inputs(s, d, kernel))
            _assert_fast_equals_exact(lanes, s, d, mode, saturate, False)


def test_the_kernel_leaves_only_the_smallest_normal_edge_to_the_generic_path():
    """FP32 -> FP16 under RNE: of the subnormal results and the values near the max finite,
    only those rounding up to the smallest normal (tininess needs the finer rounding) reach
    the generic path; everything else is the kernel's."""
    s, d = dtypes.dtype("FP32"), dtypes.dtype("FP16")
    kernel = conversion._narrowing_kernel(np.uint32, s, d, RoundingMode.RNE, False, False)
    lanes = _edge_band_inputs(s, d, kernel).astype(np.uint32)
    words = np.empty(lanes.size, np.uint64)
    flags = np.empty(lanes.size, np.uint8)
    left = kernel(lanes, words, flags, conversion._Scratch(np.uint32, lanes.size))
    assert left is not None and 0 < left.size < lanes.size // 50
    values = lanes[left].view(np.float32).astype(np.float64)
    smallest_normal, quantum = 2.0 ** -14, 2.0 ** -24
    assert np.all((np.abs(values) >= smallest_normal - quantum / 2) & (np.abs(values) < smallest_normal))
