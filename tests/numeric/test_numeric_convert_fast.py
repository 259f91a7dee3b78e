"""The fast hw-ieee conversion paths (``convert_fast``: tables of 8/16-bit sources,
FP32 -> FP64, FP32 -> integers) give what the exact path gives (``convert._hardware_exact``,
itself checked against the spec, ml_dtypes and the independent reference elsewhere).

- every 16-bit (and 8-bit) source encoding of the pairs a table serves, through a
  large array (the table) and a small one (the exact path until the table exists);
- FP32 sources: every high half-word with low halves at the rounding-relevant
  patterns (0, 1, ties, all ones), random encodings, and normals near every integer
  range edge, for every integer destination and FP64, every mode, Sat 0/1.
"""
import importlib

import numpy as np
import pytest

from pto_avs.device_model import dtypes
from pto_avs.device_model.numeric import convert, convert_fast
from pto_avs.device_model.numeric.rounding import RoundingMode

conversion = importlib.import_module("pto_avs.device_model.numeric.convert")
LANE = {16: np.uint16, 8: np.uint8, 4: np.uint8}
SMALL_SOURCES = [t for t in dtypes.ALL if t.bits <= 16]
TABLE_PAIRS = [(s.name, d.name) for s in SMALL_SOURCES for d in dtypes.ALL if convert_fast.table_applies(s, d)]
FAST_TIER = [("BF16", "FP32"), ("FP16", "FP32"), ("FP16", "FP64"), ("BF16", "S8"), ("FP16", "U16"),
             ("E4M3", "FP16"), ("S16", "BF16"), ("U8", "E4M3"), ("BF16", "E4M3"), ("E5M2", "S32")]


def _compare(src, dst, codes, mode, saturate, canonicalize):
    s, d = dtypes.dtype(src), dtypes.dtype(dst)
    words, flags = convert(codes, src, dst, mode.name, saturate, "hw-ieee", canonicalize)
    exact_words, exact_flags = conversion._hardware_exact(codes, s, d, mode, saturate, canonicalize)
    wrong = np.flatnonzero((words != exact_words) | (flags != exact_flags))
    assert wrong.size == 0, (
        f"{src}->{dst} {mode.name} Sat={int(saturate)} Canon={int(canonicalize)}: {wrong.size} differ; first "
        f"{int(codes[wrong[0]]):#x}: fast {int(words[wrong[0]]):#x}/{int(flags[wrong[0]]):#04x}, "
        f"exact {int(exact_words[wrong[0]]):#x}/{int(exact_flags[wrong[0]]):#04x}")


def _every_source(src):
    s = dtypes.dtype(src)
    return np.arange(1 << s.bits, dtype=np.uint64).astype(LANE[s.bits])


def test_the_tables_serve_the_widening_and_float_to_integer_pairs():
    for pair in FAST_TIER:
        assert pair in TABLE_PAIRS
    assert ("S16", "S8") not in TABLE_PAIRS and ("BF16", "E8M0") not in TABLE_PAIRS
    assert convert_fast.fp32_to_fp64_applies(dtypes.dtype("FP32"), dtypes.dtype("FP64"))
    assert convert_fast.float_to_integer_applies(dtypes.dtype("FP32"), dtypes.dtype("S8"))


@pytest.mark.parametrize("src, dst", FAST_TIER)
def test_every_source_of_a_table_pair(src, dst):
    codes = _every_source(src)
    for mode in RoundingMode:
        for saturate in (False, True):
            for canonicalize in (False, True):
                _compare(src, dst, codes, mode, saturate, canonicalize)  # builds the table (65,536 >= TABLE_MIN)
                _compare(src, dst, codes[::1000], mode, saturate, canonicalize)  # a small array, table or not


def test_a_small_array_does_not_build_a_table():
    key = ("FP16", "E5M2", RoundingMode.RTP, True, False)
    convert_fast._TABLES.pop(key, None)
    convert(np.arange(16, dtype=np.uint16), "FP16", "E5M2", "RTP", True, "hw-ieee")
    assert key not in convert_fast._TABLES
    convert(np.arange(1 << 16, dtype=np.uint16), "FP16", "E5M2", "RTP", True, "hw-ieee")
    assert key in convert_fast._TABLES


def fp32_sources():
    rng = np.random.default_rng(32)
    high = np.arange(1 << 16, dtype=np.uint32) << np.uint32(16)
    lows = np.array([0, 1, 0x4000, 0x7FFF, 0x8000, 0x8001, 0xFFFF], dtype=np.uint32)
    edges = np.array([2.0 ** k + d for k in (7, 8, 15, 16, 31, 32, 63, 64) for d in (-1.5, -1, -0.5, 0, 0.5, 1, 1.5)],
                     dtype=np.float32)
    edges = np.concatenate([edges, -edges, np.float32([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.49999997, -0.49999997])])
    return np.concatenate([(high[:, None] | lows[None, :]).reshape(-1),
                           rng.integers(0, 1 << 32, 1 << 15, dtype=np.uint64).astype(np.uint32),
                           edges.view(np.uint32)])


@pytest.mark.parametrize("dst", ["S8", "U8", "S16", "U16", "S32", "U32", "S64", "U64", "FP64"])
def test_fp32_sources(dst):
    codes = fp32_sources()
    modes = list(RoundingMode) if dst in ("S8", "U32", "FP64") else [RoundingMode.RTZ, RoundingMode.RNA]
    for mode in modes:
        for saturate in (False, True):
            _compare("FP32", dst, codes, mode, saturate, False)
    if dst == "FP64":
        _compare("FP32", dst, codes, RoundingMode.RNE, False, True)


@pytest.mark.slow
@pytest.mark.parametrize("src", [t.name for t in SMALL_SOURCES if t.is_float or t.bits <= 16])
def test_every_source_of_every_table_pair(src):
    codes = _every_source(src)
    for s, dst in TABLE_PAIRS:
        if s != src:
            continue
        for mode in RoundingMode:
            for saturate in (False, True):
                _compare(src, dst, codes, mode, saturate, False)
        _compare(src, dst, codes, RoundingMode.RNE, False, True)
