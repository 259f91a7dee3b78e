"""Exact decoding and classification of the 25 Tile DataTypes.

Expected values: the spec's own format test points
(tests/asl/arch/data-types/formats/<fmt>/arch-bound-<fmt>-decomp-001.asl,
transcribed), the hardware numeric vectors
(spec/evidence/pto-isa-0583-hardware-numeric-vectors.json, groups
low_precision_encoding, packed_lane_order, canonical_nan, subnormal_policy),
the digest's format table, and ml_dtypes as an independent peer.
"""
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from pto_avs.device_model import dtypes
from pto_avs.device_model.numeric import ValueClass as C
from pto_avs.device_model.numeric import canonical_nan, classify, decode, decompose, encode, max_finite

# (type, raw, negative, significand, exponent) from the *-decomp-001.asl test points
DECOMPOSITION = [
    ("FP64", 0x0, False, 0, 0), ("FP64", 0x8000000000000000, True, 0, 0), ("FP64", 0x1, False, 1, -1074),
    ("FP64", 0x000FFFFFFFFFFFFF, False, 0x000FFFFFFFFFFFFF, -1074),
    ("FP64", 0x0010000000000000, False, 0x0010000000000000, -1074),
    ("FP64", 0x7FEFFFFFFFFFFFFF, False, 0x001FFFFFFFFFFFFF, 971),
    ("FP64", 0xBFF0000000000000, True, 0x0010000000000000, -52),
    ("FP32", 0x0, False, 0, 0), ("FP32", 0x80000000, True, 0, 0), ("FP32", 0x1, False, 1, -149),
    ("FP32", 0x007FFFFF, False, 0x007FFFFF, -149), ("FP32", 0x00800000, False, 0x00800000, -149),
    ("FP32", 0x7F7FFFFF, False, 0x00FFFFFF, 104), ("FP32", 0xBF800000, True, 0x00800000, -23),
    ("TF32", 0x0, False, 0, 0), ("TF32", 0x80000000, True, 0, 0), ("TF32", 0x00002000, False, 1, -136),
    ("TF32", 0x007FE000, False, 0x3FF, -136), ("TF32", 0x00800000, False, 0x400, -136),
    ("TF32", 0x7F7FE000, False, 0x7FF, 117),
    ("HF32", 0x0, False, 0, 0), ("HF32", 0x80000000, True, 0, 0), ("HF32", 0x00001000, False, 1, -137),
    ("HF32", 0x007FF000, False, 0x7FF, -137), ("HF32", 0x00800000, False, 0x800, -137),
    ("HF32", 0x7F7FF000, False, 0xFFF, 116),
    ("FP16", 0x0, False, 0, 0), ("FP16", 0x8000, True, 0, 0), ("FP16", 0x1, False, 1, -24),
    ("FP16", 0x03FF, False, 0x03FF, -24), ("FP16", 0x0400, False, 0x0400, -24), ("FP16", 0x7BFF, False, 0x07FF, 5),
    ("BF16", 0x0, False, 0, 0), ("BF16", 0x8000, True, 0, 0), ("BF16", 0x1, False, 1, -133),
    ("BF16", 0x007F, False, 0x7F, -133), ("BF16", 0x0080, False, 0x80, -133), ("BF16", 0x7F7F, False, 0xFF, 120),
    ("HiF8", 0x00, False, 0, 0), ("HiF8", 0x01, False, 1, -22), ("HiF8", 0x07, False, 1, -16),
    ("HiF8", 0x81, True, 1, -22), ("HiF8", 0x08, False, 8, -3), ("HiF8", 0x0F, False, 15, -3),
    ("HiF8", 0x10, False, 8, -2), ("HiF8", 0x18, False, 8, -4), ("HiF8", 0x20, False, 8, -1),
    ("HiF8", 0x28, False, 8, 0), ("HiF8", 0x30, False, 8, -5), ("HiF8", 0x38, False, 8, -6),
    ("HiF8", 0x40, False, 4, 2), ("HiF8", 0x4C, False, 4, 5), ("HiF8", 0x50, False, 4, -6),
    ("HiF8", 0x5C, False, 4, -9), ("HiF8", 0x60, False, 2, 7), ("HiF8", 0x6E, False, 2, 14),
    ("HiF8", 0x70, False, 2, -9), ("HiF8", 0x7E, False, 2, -16),
    ("E4M3", 0x01, False, 1, -9), ("E4M3", 0x07, False, 7, -9), ("E4M3", 0x08, False, 8, -9),
    ("E4M3", 0x7E, False, 14, 5), ("E4M3", 0x80, True, 0, 0),
    ("E5M2", 0x01, False, 1, -16), ("E5M2", 0x03, False, 3, -16), ("E5M2", 0x04, False, 4, -16),
    ("E5M2", 0x7B, False, 7, 13),
    ("E3M2", 0x01, False, 1, -4), ("E3M2", 0x03, False, 3, -4), ("E3M2", 0x04, False, 4, -4),
    ("E3M2", 0x1F, False, 7, 2), ("E3M2", 0x20, True, 0, 0),
    ("E2M3", 0x01, False, 1, -3), ("E2M3", 0x07, False, 7, -3), ("E2M3", 0x08, False, 8, -3),
    ("E2M3", 0x1F, False, 15, -1), ("E2M3", 0x20, True, 0, 0),
    ("E8M0", 0x00, False, 1, -127), ("E8M0", 0x01, False, 1, -126), ("E8M0", 0x7F, False, 1, 0),
    ("E8M0", 0x80, False, 1, 1), ("E8M0", 0xFE, False, 1, 127),
]
# E2M1X2 lanes 0..15 (arch-bound-e2m1x2-decomp-001.asl)
DECOMPOSITION += [("E2M1X2", raw | neg, bool(neg), sig, exp) for neg in (0, 8)
                  for raw, sig, exp in [(0, 0, 0), (1, 1, -1), (2, 2, -1), (3, 3, -1), (4, 2, 0), (5, 3, 0),
                                        (6, 2, 1), (7, 3, 1)]]
# E1M2X2 and HiF4X2 lanes: raw r -> (r & 7) * 2**-2 (arch-bound-e1m2x2/hif4x2-decomp-001.asl)
DECOMPOSITION += [(t, raw, raw >= 8, raw & 7, -2 if raw & 7 else 0) for t in ("E1M2X2", "HiF4X2") for raw in range(16)]

UNAVAILABLE = [
    ("FP64", 0x7FF0000000000000), ("FP64", 0x7FF8000000000000), ("FP32", 0x7F800000), ("FP32", 0x7FC00000),
    ("TF32", 0x1), ("TF32", 0x7F800000), ("TF32", 0x7FC00000), ("HF32", 0x1), ("HF32", 0x7F800000),
    ("HF32", 0x7FC00000), ("FP16", 0x7C00), ("FP16", 0x7E00), ("BF16", 0x7F80), ("BF16", 0x7FC0),
    ("HiF8", 0x80), ("HiF8", 0x6F), ("HiF8", 0xEF), ("E4M3", 0x7F), ("E4M3", 0xFF), ("E5M2", 0x7C),
    ("E5M2", 0xFC), ("E5M2", 0x7E), ("E5M2", 0x7D), ("E3M2", 0x40), ("E2M3", 0x80), ("E8M0", 0xFF),
]

CLASSES = [  # (type, raw, class) from the same test points
    ("FP64", 0x7FF0000000000000, C.POSITIVE_INFINITY), ("FP64", 0xFFF0000000000000, C.NEGATIVE_INFINITY),
    ("FP64", 0x7FF8000000000000, C.QUIET_NAN), ("FP64", 0x7FF0000000000001, C.SIGNALING_NAN),
    ("FP32", 0x7F800000, C.POSITIVE_INFINITY), ("FP32", 0xFF800000, C.NEGATIVE_INFINITY),
    ("FP32", 0x7FC00000, C.QUIET_NAN), ("FP32", 0x7F800001, C.SIGNALING_NAN),
    ("TF32", 0x7F800000, C.POSITIVE_INFINITY), ("TF32", 0xFF800000, C.NEGATIVE_INFINITY),
    ("TF32", 0x7FC00000, C.QUIET_NAN), ("TF32", 0x7F802000, C.SIGNALING_NAN),
    ("HF32", 0x7F800000, C.POSITIVE_INFINITY), ("HF32", 0xFF800000, C.NEGATIVE_INFINITY),
    ("HF32", 0x7FC00000, C.QUIET_NAN), ("HF32", 0x7F801000, C.SIGNALING_NAN),
    ("FP16", 0x7C00, C.POSITIVE_INFINITY), ("FP16", 0xFC00, C.NEGATIVE_INFINITY),
    ("FP16", 0x7E00, C.QUIET_NAN), ("FP16", 0x7C01, C.SIGNALING_NAN),
    ("BF16", 0x7F80, C.POSITIVE_INFINITY), ("BF16", 0xFF80, C.NEGATIVE_INFINITY),
    ("BF16", 0x7FC0, C.QUIET_NAN), ("BF16", 0x7F81, C.SIGNALING_NAN),
    ("HiF8", 0x80, C.QUIET_NAN), ("HiF8", 0x6F, C.POSITIVE_INFINITY), ("HiF8", 0xEF, C.NEGATIVE_INFINITY),
    ("E4M3", 0x7F, C.QUIET_NAN), ("E4M3", 0xFF, C.QUIET_NAN), ("E4M3", 0x78, C.POSITIVE_NORMAL),
    ("E5M2", 0x7C, C.POSITIVE_INFINITY), ("E5M2", 0xFC, C.NEGATIVE_INFINITY),
    ("E5M2", 0x7E, C.QUIET_NAN), ("E5M2", 0x7D, C.SIGNALING_NAN),
    ("E3M2", 0x1F, C.POSITIVE_NORMAL), ("E3M2", 0x20, C.NEGATIVE_ZERO),
    ("E2M3", 0x1F, C.POSITIVE_NORMAL), ("E2M3", 0x20, C.NEGATIVE_ZERO),
    ("E8M0", 0x00, C.POSITIVE_NORMAL), ("E8M0", 0xFF, C.QUIET_NAN),
    # X2 exponent-0 lanes are Normal, never subnormal (e2m1x2/e1m2x2/hif4x2 tests)
    ("E2M1X2", 0x0, C.POSITIVE_ZERO), ("E2M1X2", 0x8, C.NEGATIVE_ZERO), ("E2M1X2", 0x1, C.POSITIVE_NORMAL),
    ("E2M1X2", 0x9, C.NEGATIVE_NORMAL), ("E1M2X2", 0x1, C.POSITIVE_NORMAL), ("E1M2X2", 0x9, C.NEGATIVE_NORMAL),
    ("HiF4X2", 0x0, C.POSITIVE_ZERO), ("HiF4X2", 0x8, C.NEGATIVE_ZERO), ("HiF4X2", 0x1, C.POSITIVE_NORMAL),
    # invalid encodings (TileNumericEncodingValid): TF32/HF32 low bits, E3M2/E2M3 bits 7:6
    ("TF32", 0x3F800001, C.INVALID_ENCODING), ("HF32", 0x3F800800, C.INVALID_ENCODING),
    ("E3M2", 0x40, C.INVALID_ENCODING), ("E2M3", 0x80, C.INVALID_ENCODING),
    # subnormal_policy vectors (hardware numeric vectors)
    ("FP32", 0x00000001, C.POSITIVE_SUBNORMAL), ("FP32", 0x007FFFFF, C.POSITIVE_SUBNORMAL),
    ("FP32", 0x00800000, C.POSITIVE_NORMAL),
    # HiF8 denormals (body 1..7) are subnormal; 0x00 is its only zero (hif8.asl ClassifyHiF8)
    ("HiF8", 0x00, C.POSITIVE_ZERO), ("HiF8", 0x87, C.NEGATIVE_SUBNORMAL), ("HiF8", 0x08, C.POSITIVE_NORMAL),
    # integers: ClassifySignedInteger / ClassifyUnsignedInteger (mx-formats.asl)
    ("S8", 0x00, C.POSITIVE_ZERO), ("S8", 0x80, C.NEGATIVE_NORMAL), ("S8", 0x7F, C.POSITIVE_NORMAL),
    ("S4X2", 0x8, C.NEGATIVE_NORMAL), ("U8", 0xFF, C.POSITIVE_NORMAL), ("U64", 0x0, C.POSITIVE_ZERO),
    ("S64", 0xFFFFFFFFFFFFFFFF, C.NEGATIVE_NORMAL),
]


@pytest.mark.parametrize("name, raw, negative, sig, exp", DECOMPOSITION)
def test_finite_decomposition_matches_spec_test_points(name, raw, negative, sig, exp):
    available, neg, significand, exponent = decompose([raw], name)
    assert available[0]
    assert (bool(neg[0]), int(significand[0]), int(exponent[0])) == (negative, sig, exp)


@pytest.mark.parametrize("name, raw", UNAVAILABLE)
def test_non_finite_and_invalid_are_unavailable(name, raw):
    available, neg, significand, exponent = decompose([raw], name)
    assert (bool(available[0]), bool(neg[0]), int(significand[0]), int(exponent[0])) == (False, False, 0, 0)


@pytest.mark.parametrize("name, raw, cls", CLASSES)
def test_classification_matches_spec(name, raw, cls):
    assert C(int(classify([raw], name)[0])) is cls


@pytest.mark.parametrize("name", [t.name for t in dtypes.INTEGER_TYPES])
def test_integer_types_have_no_float_decomposition(name):
    available, *_ = decompose([1, 0], name)
    assert not available.any()


LOW_PRECISION = [  # hardware numeric vectors, group low_precision_encoding
    ("HiF8", 0x00, Fraction(0)), ("HiF8", 0x01, Fraction(1, 2**22)), ("HiF8", 0x07, Fraction(1, 2**16)),
    ("HiF8", 0x08, Fraction(1)), ("HiF8", 0x6E, Fraction(32768)), ("HiF8", 0x6F, "+inf"),
    ("HiF8", 0x80, "nan"), ("HiF8", 0xEF, "-inf"), ("E4M3", 0x01, Fraction(1, 2**9)),
    ("E4M3", 0x7E, Fraction(448)), ("E4M3", 0x7F, "nan"), ("E5M2", 0x01, Fraction(1, 2**16)),
    ("E5M2", 0x7B, Fraction(57344)), ("E5M2", 0x7C, "+inf"), ("E5M2", 0x7E, "nan"),
    ("E3M2", 0x01, Fraction(1, 16)), ("E3M2", 0x1F, Fraction(28)), ("E2M3", 0x01, Fraction(1, 8)),
    ("E2M3", 0x1F, Fraction(15, 2)), ("E8M0", 0x00, Fraction(1, 2**127)), ("E8M0", 0x7F, Fraction(1)),
    ("E8M0", 0x80, Fraction(2)), ("E8M0", 0xFE, Fraction(2**127)), ("E8M0", 0xFF, "nan"),
]


def _value(name, raw):
    d = decode([raw], name)
    cls = C(int(d.cls[0]))
    if cls in (C.QUIET_NAN, C.SIGNALING_NAN):
        return "nan"
    if cls is C.POSITIVE_INFINITY:
        return "+inf"
    if cls is C.NEGATIVE_INFINITY:
        return "-inf"
    value = Fraction(int(d.sig[0])) * Fraction(2) ** int(d.exp[0])
    return -value if d.negative[0] else value


@pytest.mark.parametrize("name, raw, expected", LOW_PRECISION)
def test_low_precision_encodings_match_hardware_vectors(name, raw, expected):
    assert _value(name, raw) == expected


@pytest.mark.parametrize("name, lanes", [  # group packed_lane_order: byte 0x91, lane 0 = bits 3:0
    ("E1M2X2", (Fraction(1, 4), Fraction(-1, 4))), ("HiF4X2", (Fraction(1, 4), Fraction(-1, 4))),
    ("E2M1X2", (Fraction(1, 2), Fraction(-1, 2)))])
def test_packed_lane_values(name, lanes):
    byte = 0x91
    assert (_value(name, byte & 0xF), _value(name, byte >> 4)) == lanes
    # one logical element per word: bits above the 4-bit lane are ignored
    assert _value(name, byte) == lanes[0]


@pytest.mark.parametrize("name, expected", [  # group canonical_nan
    ("FP64", 0x7FF8000000000000), ("FP32", 0x7FC00000), ("TF32", 0x7FC00000), ("HF32", 0x7FC00000),
    ("FP16", 0x7E00), ("BF16", 0x7FC0), ("HiF8", 0x80), ("E4M3", 0x7F), ("E5M2", 0x7E), ("E8M0", 0xFF),
    ("E3M2", None), ("E2M3", None), ("E2M1X2", None), ("E1M2X2", None), ("HiF4X2", None)])
def test_canonical_nan(name, expected):
    assert canonical_nan(name) == expected
    if expected is not None:
        assert C(int(classify([expected], name)[0])) is C.QUIET_NAN


@pytest.mark.parametrize("name, value", [  # digest section 1 table, JSON maximum_finite
    ("FP64", (2 - Fraction(1, 2**52)) * 2**1023), ("FP32", (2 - Fraction(1, 2**23)) * 2**127),
    ("TF32", (2 - Fraction(1, 2**10)) * 2**127), ("HF32", (2 - Fraction(1, 2**11)) * 2**127),
    ("FP16", Fraction(65504)), ("BF16", (2 - Fraction(1, 2**7)) * 2**127), ("HiF8", Fraction(32768)),
    ("E4M3", Fraction(448)), ("E5M2", Fraction(57344)), ("E3M2", Fraction(28)), ("E2M3", Fraction(15, 2)),
    ("E2M1X2", Fraction(6)), ("E1M2X2", Fraction(7, 4)), ("HiF4X2", Fraction(7, 4)), ("E8M0", Fraction(2**127))])
def test_max_finite(name, value):
    assert _value(name, max_finite(name)) == value


@pytest.mark.parametrize("name, value", [(t.name, t.int_max) for t in dtypes.INTEGER_TYPES])
def test_integer_max(name, value):
    assert max_finite(name) == value


def test_bits_above_the_element_width_are_ignored():
    assert _value("FP16", 0xDEAD00003C00) == 1
    assert _value("BF16", 0xFFFF3F80) == 1
    assert C(int(classify([0xFF_7FC00000], "FP32")[0])) is C.QUIET_NAN


# ml_dtypes as a peer for every encoding of the formats it models. NaN
# encodings are compared by class only; E3M2/E2M3 encodings with bits 7:6 set
# are invalid for PTO while ml_dtypes ignores those bits, so only the 64 valid
# carriers are compared.
ML = {"FP16": (np.float16, 16), "BF16": (ml_dtypes.bfloat16, 16), "E4M3": (ml_dtypes.float8_e4m3fn, 8),
      "E5M2": (ml_dtypes.float8_e5m2, 8), "E3M2": (ml_dtypes.float6_e3m2fn, 6),
      "E2M3": (ml_dtypes.float6_e2m3fn, 6), "E2M1X2": (ml_dtypes.float4_e2m1fn, 4),
      "E8M0": (ml_dtypes.float8_e8m0fnu, 8)}


@pytest.mark.parametrize("name", sorted(ML))
def test_every_encoding_decodes_to_the_ml_dtypes_value(name):
    mtype, width = ML[name]
    raw = np.arange(1 << width, dtype=np.uint64)
    container = np.uint16 if width > 8 else np.uint8
    with np.errstate(invalid="ignore"):
        peer = raw.astype(container).view(mtype).astype(np.float64)
    d = decode(raw, name)
    nan = np.isnan(peer)
    assert np.array_equal(nan, (d.cls == C.QUIET_NAN) | (d.cls == C.SIGNALING_NAN))
    inf = np.isinf(peer)
    assert np.array_equal(inf, (d.cls == C.POSITIVE_INFINITY) | (d.cls == C.NEGATIVE_INFINITY))
    finite = ~nan & ~inf
    ours = np.ldexp(d.sig.astype(np.float64), d.exp.astype(np.int64)) * np.where(d.negative, -1.0, 1.0)
    assert np.array_equal(ours[finite], peer[finite])
    assert np.array_equal(np.signbit(ours[finite]), np.signbit(peer[finite]))
    # subnormal classes: nonzero magnitudes below the smallest normal (IEEE-style
    # formats); X2 lanes are never subnormal (ASL classification)
    sub = (d.cls == C.POSITIVE_SUBNORMAL) | (d.cls == C.NEGATIVE_SUBNORMAL)
    if name in ("E2M1X2", "E8M0"):
        assert not sub.any()
    else:
        smallest_normal = float(ml_dtypes.finfo(mtype).smallest_normal)
        assert np.array_equal(sub, finite & (peer != 0) & (np.abs(peer) < smallest_normal))


def test_fp32_and_fp64_decode_match_host_values_on_random_encodings():
    rng = np.random.default_rng(20240501)
    raw32 = rng.integers(0, 1 << 32, 200_000, dtype=np.uint64)
    d = decode(raw32, "FP32")
    with np.errstate(invalid="ignore"):
        peer = raw32.astype(np.uint32).view(np.float32).astype(np.float64)
    finite = np.isfinite(peer)
    ours = np.ldexp(d.sig.astype(np.float64), d.exp) * np.where(d.negative, -1.0, 1.0)
    assert np.array_equal(ours[finite], peer[finite])
    raw64 = rng.integers(0, 1 << 64, 200_000, dtype=np.uint64)
    d = decode(raw64, "FP64")
    peer = raw64.view(np.float64)
    finite = np.isfinite(peer)
    assert np.array_equal(d.finite, finite)
    # FP64 significands are exact in float64; ldexp scales exactly (no overflow: sig < 2**53)
    ours = np.ldexp(d.sig.astype(np.float64), d.exp) * np.where(d.negative, -1.0, 1.0)
    assert np.array_equal(ours[finite], peer[finite])


@pytest.mark.parametrize("negative, sig, exp, dtype, rounding, expected, flags", [
    # encode(): one exact rounding of (-1)**s * sig * 2**exp (values derived by hand)
    (False, 3, -1, "FP16", "RNE", 0x3E00, 0),  # 1.5
    (True, 1, -149, "FP32", "RNE", 0x80000001, 0),  # -2**-149, exact subnormal
    (False, 1, 15, "HiF8", "RNE", 0x6E, 0),  # 2**15, HiF8 max finite
    (False, 3, 0, "E8M0", "RNE", 129, 0x10),  # 3 > sqrt(2)*2: exponent rounds up to 2
    (True, 5, -1, "S8", "RNE", 0xFFFFFFFFFFFFFFFE, 0x10),  # -2.5 -> -2 (ties to even)
    (False, 0, 0, "E2M1X2", "RNE", 0x0, 0), (True, 0, 0, "E2M1X2", "RNE", 0x8, 0),  # signed zeros
    (False, (1 << 64) - 1, 0, "FP32", "RTZ", 0x5F7FFFFF, 0x10),  # 2**64 - 1 truncated to 24 bits
])
def test_encode_exact_values(negative, sig, exp, dtype, rounding, expected, flags):
    words, fl = encode(negative, sig, exp, dtype, rounding)
    assert (int(words[0]), int(fl[0])) == (expected, flags)
