"""The independent hw-ieee reference (vectors/reference/numeric.py) is itself trustworthy.

Checked against: every value the spec's hardware numeric vectors state
(spec/evidence/pto-isa-0583-hardware-numeric-vectors.json, transcribed below with the
group named), the spec's own E8M0/TQUANT/TMULS/TCVT test values, ml_dtypes (RNE,
finite non-overflowing values; exhaustive for 8-bit and narrower formats, sampled for
16-bit), and an independent value-set rounding of the same formats. Hand-derived
expectations say how they were derived.
"""
from __future__ import annotations

import struct
from fractions import Fraction

import ml_dtypes
import numpy as np
import pytest

from pto_avs.vectors.reference import numeric as ref
from pto_avs.vectors.reference.numeric import NV, NX, OF, UF

F = Fraction


def f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


QNAN32, SNAN32, PINF32, NINF32 = 0x7FC00000, 0x7F800001, 0x7F800000, 0xFF800000

# --------------------------------------------------------------------------------------
# Spec hardware numeric vectors (pto-isa-0583-hardware-numeric-vectors.json)

# group "canonical_nan": any NaN input -> the destination's canonical NaN
CANONICAL_NAN = {"FP64": 0x7FF8000000000000, "FP32": 0x7FC00000, "TF32": 0x7FC00000,
                 "HF32": 0x7FC00000, "FP16": 0x7E00, "BF16": 0x7FC0, "HiF8": 0x80,
                 "E4M3": 0x7F, "E5M2": 0x7E, "E8M0": 0xFF}


@pytest.mark.parametrize("name", sorted(CANONICAL_NAN))
def test_canonical_nan_group(name):
    assert ref.canonical_nan(name) == CANONICAL_NAN[name]
    source = "FP16" if name == "E8M0" else "FP32"
    for nan in ((0x7E00, 0x7D01, 0xFE00) if source == "FP16" else (QNAN32, SNAN32, 0xFFC00001)):
        assert ref.convert(source, name, nan, "RNE")[0] == CANONICAL_NAN[name]


# group "invalid_float_to_integer": Sat=0
@pytest.mark.parametrize("dst, source_bits, expected", [
    ("S64", QNAN32, 0x8000000000000000),
    ("S32", PINF32, 0x80000000),
    ("S4X2", QNAN32, 0x8),  # expected_lane_raw
    ("U64", QNAN32, 0xFFFFFFFFFFFFFFFF),
    ("U8", NINF32, 0xFF),
    ("U4X2", QNAN32, 0xF),  # expected_lane_raw
])
def test_invalid_float_to_integer_group(dst, source_bits, expected):
    assert ref.convert("FP32", dst, source_bits, "NONE", sat=False) == (expected, NV)


# group "low_precision_encoding": raw -> value
LOW_PRECISION = [
    ("HiF8", 0x00, F(0)), ("HiF8", 0x01, F(1, 2**22)), ("HiF8", 0x07, F(1, 2**16)),
    ("HiF8", 0x08, F(1)), ("HiF8", 0x6E, F(32768)), ("HiF8", 0x6F, "+inf"),
    ("HiF8", 0x80, "nan"), ("HiF8", 0xEF, "-inf"),
    ("E4M3", 0x01, F(1, 2**9)), ("E4M3", 0x7E, F(448)), ("E4M3", 0x7F, "nan"),
    ("E5M2", 0x01, F(1, 2**16)), ("E5M2", 0x7B, F(57344)), ("E5M2", 0x7C, "+inf"),
    ("E5M2", 0x7E, "nan"),
    ("E3M2", 0x01, F(1, 16)), ("E3M2", 0x1F, F(28)),
    ("E2M3", 0x01, F(1, 8)), ("E2M3", 0x1F, F(15, 2)),
    ("E8M0", 0x00, F(1, 2**127)), ("E8M0", 0x7F, F(1)), ("E8M0", 0x80, F(2)),
    ("E8M0", 0xFE, F(2**127)), ("E8M0", 0xFF, "nan"),
]


@pytest.mark.parametrize("name, raw, expected", LOW_PRECISION)
def test_low_precision_encoding_group(name, raw, expected):
    v = ref.decode(name, raw)
    if expected == "nan":
        assert v.cls == "nan"
    elif expected in ("+inf", "-inf"):
        assert v.cls == "inf" and v.negative == (expected == "-inf")
    else:
        assert v.cls == "finite" and v.exact == expected


# group "packed_lane_order": raw byte 0x91, lane 0 = bits 3:0, lane 1 = bits 7:4
@pytest.mark.parametrize("name, lanes", [("E1M2X2", (F(1, 4), F(-1, 4))),
                                         ("HiF4X2", (F(1, 4), F(-1, 4))),
                                         ("E2M1X2", (F(1, 2), F(-1, 2)))])
def test_packed_lane_order_group(name, lanes):
    byte = 0x91
    assert (ref.decode(name, byte & 0xF).exact, ref.decode(name, byte >> 4).exact) == lanes


# group "rounding": destination S32 (inputs given as decimals; the FP64 nearest is used,
# whose rounding agrees with the decimal's)
@pytest.mark.parametrize("text, mode, expected", [
    ("2.5", "RNE", 2), ("3.5", "RNE", 4), ("-1.9", "RTZ", -1), ("-1.1", "RDN", -2),
    ("1.1", "RUP", 2), ("2.1", "RNA", 2), ("-2.1", "RNA", -2), ("2.5", "RNA", 3),
    ("-2.5", "RNA", -3), ("2.0", "RTO", 2), ("2.25", "RTO", 3), ("-2.25", "RTO", -3),
    ("2.5", "RHB", 3), ("-2.5", "RHB", -2),
])
def test_rounding_group(text, mode, expected):
    assert ref.round_to_integer(F(text), ref.MODE_ALIASES.get(mode, mode)) == expected
    bits, flags = ref.convert("FP64", "S32", f64(float(text)), mode)
    assert bits == expected & 0xFFFFFFFF
    assert flags == (0 if float(text) == expected else NX)


# group "rounding_before_saturation": S8, Sat=1, RNA
@pytest.mark.parametrize("value, expected", [(127.5, 127), (-128.5, -128)])
def test_rounding_before_saturation_group(value, expected):
    bits, flags = ref.convert("FP32", "S8", f32(value), "RNA", sat=True)
    assert bits == expected & 0xFF
    assert flags == NV  # decision 7: the rounded value (128 / -129) is out of range


# group "saturation": Sat=1
@pytest.mark.parametrize("dst, source_bits, expected", [
    ("S8", f32(130.0), 127), ("S8", f32(-129.0), 0x80), ("U8", f32(-1.0), 0),
    ("FP16", PINF32, 0x7BFF), ("S32", QNAN32, 0),
])
def test_saturation_group(dst, source_bits, expected):
    assert ref.convert("FP32", dst, source_bits, "NONE", sat=True)[0] == expected


# group "signed_zero": FP32 -0 * 2 and RNE exact cancellation 1 + (-1)
def test_signed_zero_group():
    assert ref.multiply("FP32", 0x80000000, f32(2.0)) == (0x80000000, 0)
    one, minus_one = ref.decode("FP32", f32(1.0)), ref.decode("FP32", f32(-1.0))
    result, flags = ref.fma_fp32(one, one, minus_one)
    assert ref.value_bits_fp32(result) == 0x00000000 and flags == 0


# group "subnormal_policy": FP32 classes of 0x00000001, 0x007FFFFF, 0x00800000
def test_subnormal_policy_group():
    smallest = ref.min_normal("FP32")
    assert 0 < ref.decode("FP32", 0x00000001).magnitude < smallest
    assert ref.decode("FP32", 0x00000001).magnitude == F(1, 2**149)
    assert 0 < ref.decode("FP32", 0x007FFFFF).magnitude < smallest
    assert ref.decode("FP32", 0x00800000).magnitude == smallest


# group "tcvt_e8m0": vectors
@pytest.mark.parametrize("src, bits, mode, sat, expected, flags", [
    ("BF16", 0x3F80, "RNE", False, 0x7F, 0),
    ("BF16", 0x3FC0, "RNE", False, 0x80, NX),
    ("BF16", 0x3FC0, "RTM", False, 0x7F, NX),
    ("FP32", 0x00400000, "RNE", False, 0x00, 0),
    ("FP32", 0x00200000, "RNE", False, 0xFF, UF | NX),
    ("FP32", 0x00200000, "RNE", True, 0x00, UF | NX),
    ("FP32", 0x7F000000, "RNE", False, 0xFE, 0),
    ("FP32", 0x7F7FFFFF, "RNE", False, 0xFF, OF | NX),
    ("BF16", 0x0000, "RNE", False, 0xFF, NV),
    ("BF16", 0x7F80, "RNE", True, 0xFE, OF | NX),
])
def test_tcvt_e8m0_group(src, bits, mode, sat, expected, flags):
    assert ref.convert(src, "E8M0", bits, mode, sat) == (expected, flags)


# group "matrix": mx-k-block-33, mx-e8m0-scale, fp32-matmul-2x2, fp32-matmul-acc
def test_matrix_mx_k_block_33():
    # E4M3 x E5M2, K=33, all inputs 1.0, scale_a [0x7F, 0x80], scale_b [0x7F, 0x81]
    one_e4m3, one_e5m2 = 0x38, 0x3C
    a, b = [one_e4m3] * 33, [[one_e5m2]] * 33
    d, _ = ref.gemv_mx_acc([0], a, b, "E4M3", "E5M2", [0x7F, 0x80], [[0x7F], [0x81]])
    assert d == [f32(40.0)]  # expected_acc
    d, _ = ref.gemv_mx_acc([f32(3.0)], a, b, "E4M3", "E5M2", [0x7F, 0x80], [[0x7F], [0x81]])
    assert d == [f32(43.0)]  # expected_acc_with_prior_3


def test_matrix_mx_e8m0_scale():
    # base 1.5 (E4M3 0x3C) with scale 0x80 -> 3.0 (multiplied by an unscaled BF16 1.0)
    d, flags = ref.gemv_mx_acc([0], [0x3C], [[0x3F80]], "E4M3", "BF16", [0x80], None)
    assert d == [f32(3.0)] and flags == 0


def test_matrix_fp32_matmul_and_acc():
    h = {v: int(np.float16(v).view(np.uint16)) for v in (1, 2, 3, 4, 5, 6, 7, 8)}
    right = [[h[5], h[6]], [h[7], h[8]]]
    rows = [ref.gemv_mx_acc([0, 0], [h[1], h[2]], right, "FP16", "FP16")[0],
            ref.gemv_mx_acc([0, 0], [h[3], h[4]], right, "FP16", "FP16")[0]]
    assert rows == [[f32(19.0), f32(22.0)], [f32(43.0), f32(50.0)]]  # fp32-matmul-2x2
    acc, _ = ref.gemv_mx_acc([f32(10.0), f32(20.0)], [h[1], h[2]], right, "FP16", "FP16")
    assert acc == [f32(29.0), f32(42.0)]  # fp32-matmul-acc


def test_matrix_nan_scale_gives_canonical_nan():
    # profile matrix.mx.scale_order: a 0xFF scale makes the term and the ACC lane canonical NaN
    d, _ = ref.gemv_mx_acc([f32(1.0)], [0x38] * 33, [[0x38]] * 33, "E4M3", "E4M3",
                           [0x7F, 0xFF], [[0x7F], [0x7F]])
    assert d == [0x7FC00000]


def test_matrix_step_rounding_and_flags():
    # hand: 2^24 + 1*1 ties between 2^24 and 2^24 + 2 -> RNE keeps 2^24 with NX; the next
    # + 1*1 ties again (still 2^24): per-step rounding, not one rounding of 2^24 + 2.
    one = 0x3C00  # FP16 1.0
    d, flags = ref.gemv_mx_acc([f32(2.0**24)], [one, one], [[one], [one]], "FP16", "FP16")
    assert d == [f32(2.0**24)] and flags == NX
    # +Inf * 0 -> canonical NaN with NV; a later step with the NaN raises nothing more
    d, flags = ref.gemv_mx_acc([0], [0x7C00, one], [[0x0000], [one]], "FP16", "FP16")
    assert d == [0x7FC00000] and flags == NV


# --------------------------------------------------------------------------------------
# Spec AVS test values that hold in hw-ieee as well (tests/asl/..., digest §6)


def test_spec_e8m0_round_003():
    # PTO-AVS-TILE-TCVT-E8M0-ROUND-003: BF16 1.5 and 0.75 per mode, NX every time
    for mode, code in {"RNE": 128, "RTM": 127, "RTP": 128, "RTZ": 127, "RNA": 128,
                       "RTO": 128, "RHB": 128}.items():
        assert ref.convert("BF16", "E8M0", 0x3FC0, mode) == (code, NX)
    for mode, code in {"RTM": 126, "RTP": 127, "RTZ": 127}.items():
        assert ref.convert("BF16", "E8M0", 0x3F40, mode) == (code, NX)


def test_spec_e8m0_special_004_and_finite_002():
    # PTO-AVS-TILE-TCVT-E8M0-SPECIAL-004
    assert ref.convert("BF16", "E8M0", 0xBF80, "RNE", sat=True) == (0xFF, NV)
    assert ref.convert("BF16", "E8M0", 0x7FC0, "RNE") == (0xFF, NV)
    assert ref.convert("BF16", "E8M0", 0x7F80, "RNE", sat=False) == (0xFF, OF | NX)
    assert ref.convert("FP32", "E8M0", 0x7F7FFFFF, "RNE", sat=True) == (0xFE, OF | NX)
    # PTO-AVS-TILE-TCVT-E8M0-FINITE-002
    results = [ref.convert("BF16", "E8M0", b, "RNE") for b in (0x3F80, 0x4000, 0x3F00, 0x3FC0)]
    assert [r[0] for r in results] == [127, 128, 126, 128]
    assert [r[1] for r in results] == [0, 0, 0, NX]
    # digest §2.5(e): 1.40625 -> 127, 1.421875 -> 128 (log2-space midpoint sqrt 2)
    assert ref.convert("BF16", "E8M0", 0x3FB4, "RNE") == (127, NX)
    assert ref.convert("BF16", "E8M0", 0x3FB6, "RNE") == (128, NX)


def test_spec_integer_001():
    # PTO-AVS-TILE-TCVT-INTEGER-001
    bits, flags = ref.convert("S4X2", "S8", 0xF, "NONE")
    assert ref.result_word("S8", bits) == 0xFFFFFFFFFFFFFFFF and flags == 0
    assert ref.convert("U16", "U8", 300, "NONE", sat=False) == (44, 0)
    assert ref.convert("U16", "U8", 300, "NONE", sat=True) == (255, 0)
    assert ref.convert("S64", "U4X2", 0xFFFFFFFFFFFFFFFF, "NONE", sat=True) == (0, 0)


def test_spec_tquant_affine_and_sat():
    # PTO-AVS-TILE-TQUANT-AFFINE-001 and -SAT-001 (finite values: same in hw-ieee)
    one = f32(1.0)
    assert [ref.quantize(f32(x), one, 0, "S8")[0] for x in (1.0, 2.0)] == [1, 2]
    assert ref.quantize(f32(200.0), one, 0, "S8", sat=True) == (127, 0)
    bits, flags = ref.quantize(f32(200.0), one, 0, "S8", sat=False)
    assert ref.result_word("S8", bits) == 0xFFFFFFFFFFFFFFC8 and flags == 0


def test_spec_tmuls_width():
    # PTO-AVS-TILE-TMULS-WIDTH-001: U8 [7, 86] x 3 -> [21, 2]
    assert [ref.multiply("U8", x, 3)[0] for x in (7, 86)] == [21, 2]


# --------------------------------------------------------------------------------------
# ml_dtypes (RNE, finite non-overflowing values)

ML = {"E4M3": ml_dtypes.float8_e4m3fn, "E5M2": ml_dtypes.float8_e5m2,
      "E3M2": ml_dtypes.float6_e3m2fn, "E2M3": ml_dtypes.float6_e2m3fn,
      "E2M1X2": ml_dtypes.float4_e2m1fn, "E8M0": ml_dtypes.float8_e8m0fnu,
      "FP16": np.float16, "BF16": ml_dtypes.bfloat16}
CODE_BITS = {"E4M3": 8, "E5M2": 8, "E3M2": 6, "E2M3": 6, "E2M1X2": 4, "E8M0": 8}


def _ml_decode(name, codes):
    storage = np.uint16 if name in ("FP16", "BF16") else np.uint8
    with np.errstate(invalid="ignore"):  # NaN payloads widen with a warning
        return np.asarray(codes, dtype=storage).view(ML[name]).astype(np.float64)


@pytest.mark.parametrize("name", sorted(CODE_BITS))
def test_decode_matches_ml_dtypes_exhaustively(name):
    codes = list(range(1 << CODE_BITS[name]))
    for code, value in zip(codes, _ml_decode(name, codes)):
        v = ref.decode(name, code)
        if np.isnan(value):
            assert v.cls == "nan", hex(code)
        elif np.isinf(value):
            assert v.cls == "inf" and v.negative == (value < 0), hex(code)
        else:
            assert v.cls == "finite" and v.exact == F(float(value)), hex(code)
            assert v.negative == bool(np.signbit(value)), hex(code)


@pytest.mark.parametrize("name", ["FP16", "BF16"])
def test_decode_matches_ml_dtypes_sampled_16bit(name):
    codes = np.random.default_rng(16).integers(0, 1 << 16, 3000)
    for code, value in zip(codes.tolist(), _ml_decode(name, codes)):
        v = ref.decode(name, code)
        if np.isnan(value):
            assert v.cls == "nan"
        elif np.isinf(value):
            assert v.cls == "inf" and v.negative == (value < 0)
        else:
            assert v.exact == F(float(value)) and v.negative == bool(np.signbit(value))


def _rne_probe_values(name):
    """Every finite value, every midpoint and both quarter points between neighbours."""
    mags = [m for m, _ in ref.positive_value_set(name)]
    probes = set(mags)
    for lo, hi in zip(mags, mags[1:]):
        step = hi - lo
        probes.update((lo + step / 2, lo + step / 4, lo + 3 * step / 4))
    return sorted(probes)


@pytest.mark.parametrize("name", ["E4M3", "E5M2", "E3M2", "E2M3", "E2M1X2"])
def test_rne_encode_matches_ml_dtypes_exhaustively(name):
    # Every probe is exactly an FP32 value, so the FP32 -> format conversion is single-rounded.
    probes = [p for p in _rne_probe_values(name) if p <= ref.max_finite(name)]
    for sign in (1, -1):
        values = np.array([float(sign * p) for p in probes], dtype=np.float32)
        expected = values.astype(ML[name]).view(np.uint8).tolist()
        for x, want in zip(values.tolist(), expected):
            bits, _ = ref.convert("FP32", name, f32(x), "RNE")
            assert bits == want, (name, x)


@pytest.mark.parametrize("name", ["FP16", "BF16"])
def test_rne_encode_matches_ml_dtypes_sampled_16bit(name):
    rng = np.random.default_rng(32)
    raw = rng.integers(0, 1 << 32, 4000, dtype=np.uint64).astype(np.uint32)
    values = raw.view(np.float32)
    limit = float(ref.max_finite(name))
    with np.errstate(invalid="ignore"):
        values = values[np.isfinite(values) & (np.abs(values.astype(np.float64)) <= limit)]
    if name == "FP16":  # most random FP32 bit patterns overflow FP16; add an in-range set
        values = np.concatenate([values, (rng.standard_normal(3000) * 2.0 **
                                          rng.integers(-26, 15, 3000)).astype(np.float32)])
    expected = values.astype(ML[name]).view(np.uint16).tolist()
    for x, want in zip(values.tolist(), expected):
        bits, _ = ref.convert("FP32", name, f32(x), "RNE")
        assert bits == want, (name, x)


def test_rne_fp64_to_fp32_matches_numpy_sampled():
    rng = np.random.default_rng(64)
    values = rng.standard_normal(3000) * 2.0 ** rng.integers(-155, 127, 3000)
    for x, want in zip(values.tolist(), values.astype(np.float32).view(np.uint32).tolist()):
        assert ref.convert("FP64", "FP32", f64(x), "RNE")[0] == want, x


# --------------------------------------------------------------------------------------
# The classic significand method against the value-set method (all modes, in range)

SMALL_BINARY = ["E4M3", "E5M2", "E3M2", "E2M3", "E2M1X2", "E1M2X2", "HiF4X2"]


@pytest.mark.parametrize("name", SMALL_BINARY)
def test_classic_rounding_equals_value_set_rounding(name):
    probes = [p for p in _rne_probe_values(name) if 0 < p <= ref.max_finite(name)]
    for mode in ref.MODES:
        for negative in (False, True):
            for mag in probes:
                bits, _ = ref.encode_value(name, negative, mag, mode, False)
                r, code = ref.round_value_set(name, negative, mag, mode)
                if r == 0:
                    assert bits == ref.zero_code(name, negative)
                else:
                    assert bits == code | (ref.sign_mask(name) if negative else 0), (mode, mag)


# --------------------------------------------------------------------------------------
# Hand-derived hw-ieee decisions


@pytest.mark.parametrize("mode, positive, negative", [
    # decision 1: 70000 overflows FP16 (max 65504); +-Inf 0x7C00/0xFC00, +-max 0x7BFF/0xFBFF
    ("RNE", 0x7C00, 0xFC00), ("RNA", 0x7C00, 0xFC00), ("RHB", 0x7C00, 0xFC00),
    ("RTZ", 0x7BFF, 0xFBFF), ("RTO", 0x7BFF, 0xFBFF),
    ("RTP", 0x7C00, 0xFBFF), ("RTM", 0x7BFF, 0xFC00),
])
def test_overflow_by_mode(mode, positive, negative):
    assert ref.convert("FP32", "FP16", f32(70000.0), mode) == (positive, OF | NX)
    assert ref.convert("FP32", "FP16", f32(-70000.0), mode) == (negative, OF | NX)
    assert ref.convert("FP32", "FP16", f32(70000.0), mode, sat=True) == (0x7BFF, OF | NX)


def test_overflow_threshold_is_after_rounding():
    # 65519 < 65520 = 65504 + half an ulp: RNE gives max with NX only; 65520 ties to even
    # 2^16 (m = 1024 is even) and overflows. RTZ from 65535 stays at max without OF.
    assert ref.convert("FP32", "FP16", f32(65519.0), "RNE") == (0x7BFF, NX)
    assert ref.convert("FP32", "FP16", f32(65520.0), "RNE") == (0x7C00, OF | NX)
    assert ref.convert("FP32", "FP16", f32(65535.0), "RTZ") == (0x7BFF, NX)
    assert ref.convert("FP32", "FP16", f32(65536.0), "RTZ") == (0x7BFF, OF | NX)


def test_e4m3_and_finite_only_overflow():
    # decision 2: E4M3 RNE overflow -> 0x7F; 464 ties down to 448 (even), 470 overflows
    assert ref.convert("FP32", "E4M3", f32(464.0), "RNE") == (0x7E, NX)
    assert ref.convert("FP32", "E4M3", f32(-470.0), "RNE") == (0x7F, OF | NX)
    # RTZ: 470 truncates to 448 at 4 bits (no overflow); 500 truncates to 480 > 448
    assert ref.convert("FP32", "E4M3", f32(-470.0), "RTZ") == (0xFE, NX)
    assert ref.convert("FP32", "E4M3", f32(-500.0), "RTZ") == (0xFE, OF | NX)
    assert ref.convert("FP32", "E4M3", f32(470.0), "RNE", sat=True) == (0x7E, OF | NX)
    # decision 4: +-Inf, Sat=0: E4M3 0x7F, E3M2 +-max (0x1F / 0x3F), FP16 exact
    assert ref.convert("FP32", "E4M3", NINF32, "RNE") == (0x7F, OF | NX)
    assert ref.convert("FP32", "E3M2", NINF32, "RNE") == (0x3F, OF | NX)
    assert ref.convert("FP32", "FP16", NINF32, "RNE") == (0xFC00, 0)
    # decision 3: E2M1 overflow -> max 6 (lane 0x7); 7 ties to 8 (even) -> overflow
    assert ref.convert("FP32", "E2M1X2", f32(7.0), "RNE") == (0x7, OF | NX)
    assert ref.convert("FP32", "E2M1X2", f32(6.5), "RNE") == (0x7, NX)


def test_nan_rules():
    # decision 5: NV only for signalling; NaN-less destination -> +0 with NV
    assert ref.convert("FP32", "FP16", QNAN32, "RNE") == (0x7E00, 0)
    assert ref.convert("FP32", "FP16", SNAN32, "RNE") == (0x7E00, NV)
    assert ref.convert("FP32", "E2M3", 0xFFC00000, "RNE", sat=True) == (0x00, NV)
    # decision 6: Canonicalize=1 quiets the source first
    assert ref.convert("FP32", "FP16", SNAN32, "RNE", canonicalize=True) == (0x7E00, 0)
    assert ref.convert("FP32", "S16", SNAN32, "NONE", canonicalize=True) == (0x8000, NV)


def test_tininess_after_rounding():
    # FP16 smallest normal 2^-14. (1 - 2^-12) * 2^-14 rounds (11 bits, unbounded) to
    # 2^-14: not tiny, NX only. (1 - 2^-10) * 2^-14 is exactly the largest subnormal.
    assert ref.convert("FP32", "FP16", f32((1 - 2**-12) * 2**-14), "RNE") == (0x0400, NX)
    assert ref.convert("FP32", "FP16", f32((1 - 2**-10) * 2**-14), "RNE") == (0x03FF, 0)
    # 2^-25 is half the smallest subnormal: ties to +0 (even) with UF|NX; -2^-25 -> -0
    assert ref.convert("FP32", "FP16", f32(2**-25), "RNE") == (0x0000, UF | NX)
    assert ref.convert("FP32", "FP16", f32(-2**-25), "RNE") == (0x8000, UF | NX)
    assert ref.convert("FP32", "FP16", f32(2**-26), "RTO") == (0x0001, UF | NX)
    assert ref.convert("FP32", "FP16", f32(-2**-26), "RTP") == (0x8000, UF | NX)


def test_hif8_hand_values():
    # 1.0625 lies halfway between 1.0 (0x08) and 1.125 (0x09): RNE -> 0x08, RNA -> 0x09
    assert ref.convert("FP32", "HiF8", f32(1.0625), "RNE") == (0x08, NX)
    assert ref.convert("FP32", "HiF8", f32(1.0625), "RNA") == (0x09, NX)
    # 1.96875 is between 1.875 (0x0F, odd) and 2.0 (0x10): midpoint 1.9375; above -> 0x10
    assert ref.convert("FP32", "HiF8", f32(1.96875), "RNE") == (0x10, NX)
    assert ref.convert("FP32", "HiF8", f32(1.96875), "RTO") == (0x0F, NX)
    # denormals are powers of two: 1.5 * 2^-20 ties between 2^-20 (0x03) and 2^-19 (0x04)
    assert ref.convert("FP32", "HiF8", f32(1.5 * 2**-20), "RNE") == (0x04, UF | NX)
    assert ref.convert("FP32", "HiF8", f32(-1.5 * 2**-20), "RTZ") == (0x83, UF | NX)
    # below half the smallest denormal: negative results are 0x00 (decision 12)
    assert ref.convert("FP32", "HiF8", f32(-2**-24), "RNE") == (0x00, UF | NX)
    # overflow: 2^16 -> +Inf 0x6F (RNE), max 0x6E (RTZ); Sat=1 -> 0xEE for negative
    assert ref.convert("FP32", "HiF8", f32(65536.0), "RNE") == (0x6F, OF | NX)
    assert ref.convert("FP32", "HiF8", f32(65536.0), "RTZ") == (0x6E, OF | NX)
    assert ref.convert("FP32", "HiF8", f32(-65536.0), "RNE", sat=True) == (0xEE, OF | NX)


def test_tquant_specials_and_rounding():
    one = f32(1.0)
    # decision 14: NaN Sat0 -> indefinite with NV, Sat1 -> 0 with NV; Inf Sat1 -> endpoint
    assert ref.quantize(QNAN32, one, 0, "S8") == (0x80, NV)
    assert ref.quantize(QNAN32, one, 0, "U8", sat=True) == (0, NV)
    assert ref.quantize(NINF32, one, 0, "S8", sat=True) == (0x80, NV)
    assert ref.quantize(PINF32, one, 0, "U8", sat=False) == (0xFF, NV)
    # 2.5 * 1 + 3 = 5.5: RNE 6, RTZ 5, RHB 6; -0.5*1 + 0 RHB -> 0, RNA -> -1
    assert ref.quantize(f32(2.5), one, 3, "S8", "RNE") == (6, NX)
    assert ref.quantize(f32(2.5), one, 3, "S8", "RTZ") == (5, NX)
    assert ref.quantize(f32(-0.5), one, 0, "S8", "RHB") == (0, NX)
    assert ref.quantize(f32(-0.5), one, 0, "S8", "RNA") == (0xFF, NX)
    # x*m exact with a subnormal multiplier 2^-149: 2^127 * 1.5 * 2^-149 = 1.5 * 2^-22 -> 0
    assert ref.quantize(f32(1.5 * 2.0**127), 0x00000001, 7, "U8", "RNE") == (7, NX)
    # wrap: 300 -> 44 (U8), no OF
    assert ref.quantize(f32(300.0), one, 0, "U8") == (44, 0)


def test_tmuls_hand_values():
    # FP16 (1 + 2^-10) * (1 + 2^-10) = 1 + 2^-9 + 2^-20 -> rounds to 1 + 2^-9 (0x3C02)
    assert ref.multiply("FP16", 0x3C01, 0x3C01) == (0x3C02, NX)
    # Inf * 0 -> canonical NaN with NV; sNaN -> NV; E4M3 overflow -> 0x7F
    assert ref.multiply("FP32", PINF32, 0x80000000) == (0x7FC00000, NV)
    assert ref.multiply("BF16", 0x7F81, 0x3F80) == (0x7FC0, NV)
    assert ref.multiply("E4M3", 0x7E, 0x40) == (0x7F, OF | NX)  # 448 * 2
    # TF32 keeps 10 fraction bits: (1 + 2^-10)^2 = 1 + 2^-9 + 2^-20 -> 1 + 2^-9
    assert ref.multiply("TF32", 0x3F802000, 0x3F802000) == (0x3F804000, NX)
    # integer wrap: S8 -128 * -1 = 128 -> -128
    assert ref.multiply("S8", 0x80, 0xFF) == (0x80, 0)


def test_e8m0_source_and_int_destination_rules():
    # E8M0 2^-127 is an FP32 subnormal (exact); 0xFF is a quiet NaN (no NV)
    assert ref.convert("E8M0", "FP32", 0x00, "RNE") == (0x00400000, 0)
    assert ref.convert("E8M0", "FP16", 0xFF, "RNE") == (0x7E00, 0)
    # E8M0 -> integer defaults to RTZ (E8M0 is floating): 2^-1 -> 0 with NX
    assert ref.convert("E8M0", "S32", 0x7E, "NONE") == (0, NX)
    with pytest.raises(ref.UnsupportedPair):
        ref.convert("FP64", "E8M0", 0, "RNE")

