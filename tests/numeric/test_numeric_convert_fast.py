"""The fast hw-ieee conversion paths (``convert_fast``: tables of 8/16-bit sources,
FP32 -> FP64, FP32 -> integers) give what the exact path gives (``convert._hardware_exact``,
itself checked against the spec, ml_dtypes and the independent reference elsewhere).

- every 16-bit (and 8-bit) source encoding of the pairs a table serves, through a
  large array (the table) and a small one (the exact path until the table exists);
- FP32 sources: every high half-word with low halves at the rounding-relevant
  patterns (0, 1, ties, all ones), random encodings, and normals near every integer
  range edge, for every integer destination and FP64, every mode, Sat 0/1;
- FP64 sources into every integer type: random encodings, normals, every exponent with
  the fraction patterns that decide a rounding, the integer range edges;
- FP32 into the floats of at most 8 bits by round-to-odd into BF16: every high
  half-word with those low halves (the BF16 value depends on the high half and on
  whether the low half is zero), every mode, Sat and Canonicalize;
- integers of at most 32 bits into every float the narrowing kernel serves from FP64;
  a float type into itself; TF32 and HF32 sources (valid and invalid encodings) into
  every type; integer pairs against ``integers.convert_integer``.
"""
import importlib

import numpy as np
import pytest

from pto_avs.device_model import dtypes
from pto_avs.device_model.numeric import convert, convert_fast
from pto_avs.device_model.numeric.integers import convert_integer
from pto_avs.device_model.numeric.words import container
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
    exact_words, exact_flags = conversion._hardware_exact(conversion.lanes(codes, s.bits), s, d, mode, saturate,
                                                          canonicalize)
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


def fp64_sources():
    rng = np.random.default_rng(64)
    edges = np.array([2.0 ** k + d for k in (3, 4, 7, 8, 15, 16, 31, 32, 63, 64) for d in (-1.5, -1, -0.5, 0, 0.5, 1, 1.5)])
    edges = np.concatenate([edges, -edges, [0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 0.0, -0.0, np.inf, -np.inf, np.nan]])
    exponents = np.arange(1 << 12, dtype=np.uint64) << np.uint64(52)
    fractions = np.array([0, 1, 1 << 51, (1 << 51) + 1, (1 << 52) - 1], dtype=np.uint64)
    return np.concatenate([rng.integers(0, 1 << 64, 1 << 15, dtype=np.uint64),
                           (rng.standard_normal(1 << 14) * 1000).view(np.uint64), edges.view(np.uint64),
                           (exponents[:, None] | fractions[None, :]).reshape(-1),
                           np.array([0x7FF0000000000001, 0xFFF0000000000001], dtype=np.uint64)])


@pytest.mark.parametrize("dst", ["S8", "U8", "S16", "U16", "S32", "U32", "S64", "U64", "S4X2", "U4X2"])
def test_fp64_sources_into_integers(dst):
    codes = fp64_sources()
    modes = list(RoundingMode) if dst in ("S8", "U32", "U4X2") else [RoundingMode.RTZ, RoundingMode.RHB]
    for mode in modes:
        for saturate in (False, True):
            _compare("FP64", dst, codes, mode, saturate, False)


BINARY32_NARROW = [t.name for t in dtypes.ALL if convert_fast.binary64_through_binary32_applies(dtypes.dtype("FP64"), t)]


def _fp64_near_binary32():
    """FP64 values at, just beside, and halfway between FP32 values (and FP32's neighbours of
    the halfway points): where a wrong round-to-odd step would show."""
    rng = np.random.default_rng(6432)
    with np.errstate(invalid="ignore"):
        f = rng.integers(0, 1 << 32, 1 << 14, dtype=np.uint64).astype(np.uint32).view(np.float32).astype(np.float64)
    ties = (np.arange(1 << 16, dtype=np.uint64) << np.uint64(45)) | np.uint64(1 << 28)
    return np.concatenate([fp64_sources(), f.view(np.uint64), np.nextafter(f, np.inf).view(np.uint64),
                           np.nextafter(f, -np.inf).view(np.uint64), ties, ties + np.uint64(1), ties - np.uint64(1),
                           ties | np.uint64(1 << 63)])


def test_fp64_into_the_narrow_floats_goes_through_binary32():
    assert set(BINARY32_NARROW) == {"FP16", "HiF8", "E4M3", "E5M2", "E3M2", "E2M3", "E2M1X2", "E1M2X2", "HiF4X2"}
    # round-to-odd: an inexact even result steps toward the value; beyond FP32's range, its maximum
    values = np.array([1 + 2.0 ** -30, -(1 + 2.0 ** -30), 1 - 2.0 ** -30, 2.0 ** -160, -2.0 ** -160, 1e300, 1.5],
                      dtype=np.float64)
    odd = convert_fast.binary32_odd(values.view(np.uint64))
    assert odd.tolist() == [0x3F800001, 0xBF800001, 0x3F7FFFFF, 0x00000001, 0x80000001, 0x7F7FFFFF, 0x3FC00000]


@pytest.mark.parametrize("dst", BINARY32_NARROW)
def test_fp64_into_narrow_floats(dst):
    codes = _fp64_near_binary32()
    modes = list(RoundingMode) if dst in ("FP16", "E4M3", "HiF8") else [RoundingMode.RNE, RoundingMode.RTZ,
                                                                        RoundingMode.RTO]
    for mode in modes:
        for saturate in (False, True):
            _compare("FP64", dst, codes, mode, saturate, False)
    _compare("FP64", dst, codes, RoundingMode.RNE, False, True)


def _fp32_rounding_patterns():
    high = np.arange(1 << 16, dtype=np.uint32) << np.uint32(16)
    lows = np.array([0, 1, 0x7FFF, 0x8000, 0x8001, 0xFFFF], dtype=np.uint32)
    return (high[:, None] | lows[None, :]).reshape(-1)


SMALL_FLOATS = [t.name for t in dtypes.ALL if convert_fast.binary32_through_bfloat16_applies(dtypes.dtype("FP32"), t)]


def test_fp32_into_the_small_floats_goes_through_bfloat16():
    assert set(SMALL_FLOATS) == {"HiF8", "E4M3", "E5M2", "E3M2", "E2M3", "E2M1X2", "E1M2X2", "HiF4X2"}
    # the round-to-odd step: truncate, keep a nonzero low half as the lowest bit
    odd = convert_fast.bfloat16_odd(np.array([0x3F808000, 0x3F800000, 0x7F800001, 0x7F7FFFFF, 0x80000001],
                                             dtype=np.uint32))
    assert odd.tolist() == [0x3F81, 0x3F80, 0x7F81, 0x7F7F, 0x8001]


@pytest.mark.parametrize("dst", SMALL_FLOATS)
def test_fp32_into_small_floats(dst):
    codes = _fp32_rounding_patterns()
    for mode in RoundingMode:
        _compare("FP32", dst, codes, mode, dst in ("E4M3", "E2M1X2"), False)
    _compare("FP32", dst, codes, RoundingMode.RNE, True, True)
    _compare("FP32", dst, codes[::997], RoundingMode.RTP, False, False)  # small: no BF16 table yet, or the table


@pytest.mark.slow
@pytest.mark.parametrize("dst", SMALL_FLOATS)
def test_fp32_into_small_floats_every_option(dst):
    codes = _fp32_rounding_patterns()
    for mode in RoundingMode:
        for saturate in (False, True):
            for canonicalize in (False, True):
                _compare("FP32", dst, codes, mode, saturate, canonicalize)


def _integer_codes(t, count=1 << 14):
    rng = np.random.default_rng(t.bits)
    edges = [0, 1, 2, 3, t.mask, t.mask - 1, 1 << (t.bits - 1), (1 << (t.bits - 1)) - 1, (1 << (t.bits - 1)) + 1]
    powers = [(1 << k) + d for k in range(t.bits) for d in (-1, 0, 1) if 0 <= (1 << k) + d <= t.mask]
    codes = np.concatenate([rng.integers(0, t.mask, count, dtype=np.uint64, endpoint=True),
                            np.array(edges + powers, dtype=np.uint64)])
    return codes.astype(container(t.bits))


NARROW_INTEGERS = [t for t in dtypes.ALL if t.is_integer and t.bits in (8, 16, 32)]
BINARY64_FLOATS = [t.name for t in dtypes.ALL
                   if convert_fast.integer_through_binary64_applies(dtypes.dtype("S32"), t, conversion._narrowing_applies)]


def test_integers_go_through_binary64_into_the_binary_floats():
    assert {"FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2"} <= set(BINARY64_FLOATS)
    assert "HiF8" not in BINARY64_FLOATS and "E8M0" not in BINARY64_FLOATS


@pytest.mark.parametrize("src", [t.name for t in NARROW_INTEGERS])
def test_integers_into_floats(src):
    s = dtypes.dtype(src)
    codes = _integer_codes(s)
    for dst in BINARY64_FLOATS:
        modes = list(RoundingMode) if dst in ("FP32", "FP16", "E4M3") else [RoundingMode.RNE, RoundingMode.RTZ]
        for mode in modes:
            _compare(src, dst, codes, mode, dst == "E4M3", False)
            if s.bits < 32:  # below TABLE_MIN: the binary64 path, not the table
                _compare(src, dst, codes[:999], mode, False, False)


NATIVE_INTEGERS = [t.name for t in dtypes.ALL if t.is_integer and t.bits >= 8]


@pytest.mark.parametrize("src", NATIVE_INTEGERS)
def test_integer_pairs(src):
    s = dtypes.dtype(src)
    codes = _integer_codes(s).astype(np.uint64)
    for dst in NATIVE_INTEGERS:
        d = dtypes.dtype(dst)
        assert convert_fast.native_integers_apply(s, d)
        for saturate in (False, True):
            words, flags = convert(codes, src, dst, "RNE", saturate, "hw-ieee")
            expected = convert_integer(codes, s, d, saturate)
            wrong = np.flatnonzero(words != expected)
            assert wrong.size == 0 and not flags.any(), (
                f"{src}->{dst} Sat={int(saturate)}: {wrong.size} differ; first {int(codes[wrong[0]]):#x}: "
                f"{int(words[wrong[0]]):#x}, convert_integer {int(expected[wrong[0]]):#x}")


def _float_codes(t):
    if t.bits == 64:
        return fp64_sources()
    if t.bits == 32:
        codes = np.concatenate([_fp32_rounding_patterns()[::3], fp32_sources()[-(1 << 12):]])
        if t.must_be_zero:  # valid encodings beside the random (mostly invalid) ones
            codes = np.concatenate([codes, codes & np.uint32(~t.must_be_zero & 0xFFFFFFFF)])
        return codes
    return _every_source(t.name)


SAME_TYPES = [t.name for t in dtypes.ALL if convert_fast.same_type_applies(t, t)]


def test_the_binary_floats_convert_into_themselves_by_a_copy():
    assert set(SAME_TYPES) == {"FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E5M2"}


@pytest.mark.parametrize("src", SAME_TYPES)
def test_same_type(src):
    codes = _float_codes(dtypes.dtype(src))
    for mode in (RoundingMode.RNE, RoundingMode.RTZ):
        for saturate in (False, True):
            for canonicalize in (False, True):
                _compare(src, src, codes, mode, saturate, canonicalize)


@pytest.mark.parametrize("src", ["TF32", "HF32"])
def test_constrained_binary32_sources(src):
    codes = _float_codes(dtypes.dtype(src))
    for d in dtypes.ALL:
        if d.name == "E8M0":
            continue
        mode = RoundingMode.RTZ if d.is_integer else RoundingMode.RTP
        _compare(src, d.name, codes, mode, d.name in ("S8", "E4M3"), False)
        _compare(src, d.name, codes[:777], RoundingMode.RNE, False, True)


@pytest.mark.parametrize("dst", ["S8", "U8", "S16", "U16", "S32", "U32", "S64", "U64", "S4X2", "U4X2", "FP64"])
def test_fp32_sources(dst):
    codes = fp32_sources()
    modes = list(RoundingMode) if dst in ("S8", "U32", "FP64", "S4X2") else [RoundingMode.RTZ, RoundingMode.RNA]
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


def test_a_widening_cast_is_used_only_once_it_agrees_with_the_exact_path():
    for src, dst in (("FP16", "FP32"), ("BF16", "FP64"), ("S8", "TF32"), ("U16", "FP32")):
        assert convert_fast.widening_cast_applies(dtypes.dtype(src), dtypes.dtype(dst))
        convert(_every_source(src), src, dst, "RTZ", True, "hw-ieee")
        assert convert_fast._VERIFIED[(src, dst, RoundingMode.RTZ, True, False)] is not False
    # a 16-bit integer needs rounding into TF32's 11 significant bits: the cast is refused
    _compare("S16", "TF32", _every_source("S16"), RoundingMode.RTZ, False, False)
    assert convert_fast._VERIFIED[("S16", "TF32", RoundingMode.RTZ, False, False)] is False


def test_a_wrong_widening_cast_is_refused(monkeypatch):
    right = convert_fast._cast

    def off_by_one_bit(lane, s, d):  # a cast wrong on one finite encoding (BF16 1.0)
        words = right(lane, s, d)
        words[lane == 0x3F80] ^= np.uint64(1)
        return words
    monkeypatch.setattr(convert_fast, "_cast", off_by_one_bit)
    monkeypatch.setattr(convert_fast, "_VERIFIED", {})
    _compare("BF16", "FP32", _every_source("BF16"), RoundingMode.RNA, False, False)
    assert convert_fast._VERIFIED[("BF16", "FP32", RoundingMode.RNA, False, False)] is False
