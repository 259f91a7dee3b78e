"""convert(): values the spec states, in both profiles.

Sources of expected values, named per test: the spec's TCVT/E8M0 test points
(tests/asl/tile/elementwise-tile-tile/format-conversion/TCVT/*.asl), the
hardware numeric vectors (spec/evidence/pto-isa-0583-hardware-numeric-vectors.json,
transcribed; group names in comments), the hardware profile JSON
(contract/spec_data/hardware-conformance-profile.json), the digest (section 2.5)
and hand derivations written next to the case.
"""
import struct

import numpy as np
import pytest

from pto_avs.device_model.numeric import FLAG_NV, FLAG_NX, FLAG_OF, FLAG_UF, UnsupportedConversion, convert

PROFILES = ("pto-v0", "hw-ieee")
MODES = ("RNE", "RTZ", "RTM", "RTP", "RNA", "RTO", "RHB")
OF_NX, UF_NX = FLAG_OF | FLAG_NX, FLAG_UF | FLAG_NX


def one(bits, src, dst, **kw):
    words, flags = convert([bits], src, dst, **kw)
    return int(words[0]), int(flags[0])


def f32(x: float) -> int:
    return struct.unpack("<I", struct.pack("<f", x))[0]


def f64(x: float) -> int:
    return struct.unpack("<Q", struct.pack("<d", x))[0]


# ------------------------------------------------------------------ E8M0 (both profiles)

@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("bits, mode, expected", [
    # PTO-AVS-TILE-TCVT-E8M0-ROUND-003: BF16 1.5 and 0.75, every mode, flags exactly NX
    (0x3FC0, "RNE", 128), (0x3FC0, "RTM", 127), (0x3FC0, "RTP", 128), (0x3FC0, "RTZ", 127),
    (0x3FC0, "RNA", 128), (0x3FC0, "RTO", 128), (0x3FC0, "RHB", 128),
    (0x3F40, "RTM", 126), (0x3F40, "RTP", 127), (0x3F40, "RTZ", 127),
    # digest 2.5(e): 0.75 RNE 127, RTO 126; 1.40625 -> 127 and 1.421875 -> 128 (sqrt(2) midpoint)
    (0x3F40, "RNE", 127), (0x3F40, "RTO", 126), (0x3FB4, "RNE", 127), (0x3FB6, "RNE", 128),
])
def test_e8m0_rounds_the_exponent(profile, bits, mode, expected):
    assert one(bits, "BF16", "E8M0", rounding=mode, profile=profile) == (expected, FLAG_NX)


@pytest.mark.parametrize("profile", PROFILES)
def test_e8m0_finite_tile(profile):
    # PTO-AVS-TILE-TCVT-E8M0-FINITE-002: BF16 1, 2, 0.5, 1.5 -> 127, 128, 126, 128; status NX
    words, flags = convert([0x3F80, 0x4000, 0x3F00, 0x3FC0], "BF16", "E8M0", profile=profile)
    assert words.tolist() == [127, 128, 126, 128]
    assert int(np.bitwise_or.reduce(flags)) == FLAG_NX


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("src, bits, sat, expected, flags", [
    # PTO-AVS-TILE-TCVT-E8M0-SPECIAL-004
    ("BF16", 0x0000, False, 0xFF, FLAG_NV), ("BF16", 0xBF80, True, 0xFF, FLAG_NV),
    ("BF16", 0x7FC0, False, 0xFF, FLAG_NV), ("BF16", 0x7F80, False, 0xFF, OF_NX),
    ("BF16", 0x7F80, True, 0xFE, OF_NX), ("FP32", 0x00400000, False, 0x00, 0),
    ("FP32", 0x00200000, False, 0xFF, UF_NX), ("FP32", 0x00200000, True, 0x00, UF_NX),
    ("FP32", 0x7F000000, False, 0xFE, 0), ("FP32", 0x7F7FFFFF, False, 0xFF, OF_NX),
    ("FP32", 0x7F7FFFFF, True, 0xFE, OF_NX),
    # hardware numeric vectors, group tcvt_e8m0 (the ones not above)
    ("BF16", 0x3F80, False, 0x7F, 0), ("BF16", 0x3FC0, False, 0x80, FLAG_NX),
    # tcvt_e8m0 contract: every invalid input class gives 0xFF with NV whatever Sat
    ("BF16", 0x8000, True, 0xFF, FLAG_NV), ("BF16", 0xFF80, True, 0xFF, FLAG_NV),
    ("BF16", 0x7F81, True, 0xFF, FLAG_NV), ("FP32", 0x80000001, False, 0xFF, FLAG_NV),
    ("FP16", 0xFC00, False, 0xFF, FLAG_NV),
    # FP16: exact powers, including the subnormal 2**-24 -> 127 - 24; max finite 65504 -> 2**16 (RNE)
    ("FP16", 0x0001, False, 103, 0), ("FP16", 0x3C00, False, 127, 0), ("FP16", 0x7BFF, False, 143, FLAG_NX),
    ("FP16", 0x7C00, True, 0xFE, OF_NX),
    # FP32 underflow applies even to exact 2**-128 and to the smallest subnormal 2**-149
    ("FP32", 0x00000001, True, 0x00, UF_NX), ("FP32", 0x00000001, False, 0xFF, UF_NX),
])
def test_e8m0_specials_and_range(profile, src, bits, sat, expected, flags):
    assert one(bits, src, "E8M0", saturate=sat, profile=profile) == (expected, flags)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("src", [
    # tcvt_e8m0.unsupported_source_types (hardware numeric vectors); PTO-AVS-TILE-TCVT-E8M0-PAIRS-005
    "FP64", "TF32", "HF32", "HiF8", "E4M3", "E5M2", "E3M2", "E2M3", "E2M1X2", "E1M2X2", "E8M0", "HiF4X2",
    "S64", "S32", "S16", "S8", "S4X2", "U64", "U32", "U16", "U8", "U4X2"])
def test_e8m0_accepts_only_fp16_bf16_fp32(profile, src):
    with pytest.raises(UnsupportedConversion) as info:
        convert([1], src, "E8M0", profile=profile)
    assert src in str(info.value) and "E8M0" in str(info.value) and profile in str(info.value)
    assert isinstance(info.value, ValueError)


# ------------------------------------------------------------------ integer pairs (both profiles)

@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("bits, src, dst, sat, expected", [
    # PTO-AVS-TILE-TCVT-INTEGER-001
    (0xF, "S4X2", "S8", False, 0xFFFFFFFFFFFFFFFF), (300, "U16", "U8", False, 44),
    (300, "U16", "U8", True, 255), (0xFFFFFFFFFFFFFFFF, "S64", "U4X2", True, 0),
    # hardware numeric vectors, group saturation: 130 -> S8 127, -129 -> S8 -128, -1 -> U8 0 (Sat)
    (130, "S32", "S8", True, 127), ((-129) & 0xFFFFFFFF, "S32", "S8", True, 0xFFFFFFFFFFFFFF80),
    (0xFFFFFFFF, "S32", "U8", True, 0),
    # digest 2.5(a) rules by hand: wrap reinterprets at the source width, then the destination's
    (0x1FF, "U16", "S8", False, 0xFFFFFFFFFFFFFFFF), (0x80, "S8", "U64", False, 0xFFFFFFFFFFFFFF80),
    (0xFFFFFFFF, "U32", "S16", True, 0x7FFF), (0x8000, "S16", "S8", True, 0xFFFFFFFFFFFFFF80),
])
def test_integer_conversion(profile, bits, src, dst, sat, expected):
    assert one(bits, src, dst, saturate=sat, profile=profile) == (expected, 0)


# ------------------------------------------------------------------ pto-v0 raw carrier

@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("sat", (False, True))
@pytest.mark.parametrize("bits, src, dst, expected", [
    # digest 2.5(a): float<->float and int->float pass the raw Word through unchanged
    (0x12343F800000, "FP32", "FP16", 0x12343F800000), (0x3C00, "FP16", "FP64", 0x3C00),
    (0xFF, "S8", "FP32", 0xFF), (0x7FC00000, "FP32", "BF16", 0x7FC00000), (0xFF, "E8M0", "FP32", 0xFF),
    # floating -> integer: NormalizeTileInteger of the raw bits, no numeric conversion
    (0x3F8000FF, "FP32", "S8", 0xFFFFFFFFFFFFFFFF), (0x3F8000FF, "FP32", "U8", 0xFF),
    (0xBC00, "FP16", "S16", 0xFFFFFFFFFFFFBC00), (0x3F800000, "FP32", "S16", 0),
    (0x7E, "E4M3", "S4X2", 0xFFFFFFFFFFFFFFFE), (0x3FF0000000000000, "FP64", "U64", 0x3FF0000000000000),
])
def test_pto_v0_is_a_raw_carrier(mode, sat, bits, src, dst, expected):
    for canonicalize in (False, True):
        assert one(bits, src, dst, rounding=mode, saturate=sat, profile="pto-v0",
                   canonicalize=canonicalize) == (expected, 0)


# ------------------------------------------------------------------ hw-ieee: hardware numeric vectors

ROUNDING = [  # group rounding: (input, mode, expected S32)
    (2.5, "RNE", 2), (3.5, "RNE", 4), (-1.9, "RTZ", -1), (-1.1, "RDN", -2), (1.1, "RUP", 2), (2.1, "RNA", 2),
    (-2.1, "RNA", -2), (2.5, "RNA", 3), (-2.5, "RNA", -3), (2.0, "RTO", 2), (2.25, "RTO", 3), (-2.25, "RTO", -3),
    (2.5, "RHB", 3), (-2.5, "RHB", -2)]


@pytest.mark.parametrize("value, mode, expected", ROUNDING)
@pytest.mark.parametrize("src, enc", [("FP32", f32), ("FP64", f64)])
def test_rounding_vectors(value, mode, expected, src, enc):
    assert one(enc(value), src, "S32", rounding=mode, profile="hw-ieee") == (
        expected & 0xFFFFFFFFFFFFFFFF, 0 if value == expected else FLAG_NX)


@pytest.mark.parametrize("value, expected", [(127.5, 127), (-128.5, -128)])
def test_rounding_before_saturation(value, expected):
    # group rounding_before_saturation: RNA gives 128 / -129 first, then Sat clamps (NV: out of range)
    assert one(f32(value), "FP32", "S8", rounding="RNA", saturate=True, profile="hw-ieee") == (
        expected & 0xFFFFFFFFFFFFFFFF, FLAG_NV)


def test_saturation_vectors():
    # group saturation
    assert one(f32(130.0), "FP32", "S8", saturate=True, profile="hw-ieee")[0] == 127
    assert one(f32(-129.0), "FP32", "S8", saturate=True, profile="hw-ieee")[0] == 0xFFFFFFFFFFFFFF80
    assert one(f32(-1.0), "FP32", "U8", saturate=True, profile="hw-ieee")[0] == 0
    assert one(0x7F800000, "FP32", "FP16", saturate=True, profile="hw-ieee") == (0x7BFF, OF_NX)
    assert one(0x7FC00000, "FP32", "S32", saturate=True, profile="hw-ieee") == (0, FLAG_NV)


@pytest.mark.parametrize("dst, bits, lane_bits", [
    # group invalid_float_to_integer (Sat=0): signed -> lane minimum, unsigned -> lane maximum
    ("S64", 0x7FC00000, 0x8000000000000000), ("S32", 0x7F800000, 0x80000000), ("S4X2", 0x7FC00000, 0x8),
    ("U64", 0x7FC00000, 0xFFFFFFFFFFFFFFFF), ("U8", 0xFF800000, 0xFF), ("U4X2", 0x7FC00000, 0xF)])
def test_invalid_float_to_integer(dst, bits, lane_bits):
    word, flags = one(bits, "FP32", dst, profile="hw-ieee")
    width = {"S64": 64, "S32": 32, "S4X2": 4, "U64": 64, "U8": 8, "U4X2": 4}[dst]
    assert word & ((1 << width) - 1) == lane_bits and flags == FLAG_NV
    if dst.startswith("S"):  # signed results are sign-extended words
        assert word == (lane_bits - (1 << width)) & 0xFFFFFFFFFFFFFFFF
    else:
        assert word == lane_bits


def test_invalid_float_to_integer_packed_lanes_are_independent():
    # conversion.float_to_integer_invalid.packed_rule: 0x88 / 0xFF for all lanes; a valid lane is untouched
    words, flags = convert([0x7FC00000, f32(3.0), 0x7F800000], "FP32", "S4X2", profile="hw-ieee")
    assert [w & 0xF for w in words.tolist()] == [0x8, 0x3, 0x8] and flags.tolist() == [FLAG_NV, 0, FLAG_NV]


@pytest.mark.parametrize("dst, expected", [  # group canonical_nan
    ("FP64", 0x7FF8000000000000), ("FP32", 0x7FC00000), ("TF32", 0x7FC00000), ("HF32", 0x7FC00000),
    ("FP16", 0x7E00), ("BF16", 0x7FC0), ("HiF8", 0x80), ("E4M3", 0x7F), ("E5M2", 0x7E)])
@pytest.mark.parametrize("src, nan, signaling", [
    ("FP32", 0xFFC12345, False), ("FP32", 0x7F800001, True), ("FP64", 0x7FF0000000000001, True),
    ("FP16", 0xFE01, False), ("BF16", 0x7F81, True), ("E5M2", 0xFD, True), ("HiF8", 0x80, False)])
def test_every_produced_nan_is_canonical(dst, expected, src, nan, signaling):
    # arithmetic.canonical_nan_output; NV only for a signalling source (IEEE 754 7.2)
    assert one(nan, src, dst, profile="hw-ieee") == (expected, FLAG_NV if signaling else 0)
    # b_datr.canonicalize=1 replaces the source NaN by the (quiet) canonical NaN first: no NV
    assert one(nan, src, dst, profile="hw-ieee", canonicalize=True) == (expected, 0)


# ------------------------------------------------------------------ hw-ieee: rules, derived by hand

BIG = f64(1e300)


@pytest.mark.parametrize("bits, mode, sat, expected", [
    # IEEE 754-2019 7.4 overflow per rounding direction (FP64 1e300 -> FP32)
    (BIG, "RNE", False, 0x7F800000), (BIG, "RNA", False, 0x7F800000), (BIG, "RHB", False, 0x7F800000),
    (BIG, "RTZ", False, 0x7F7FFFFF), (BIG, "RTO", False, 0x7F7FFFFF), (BIG, "RTP", False, 0x7F800000),
    (BIG, "RTM", False, 0x7F7FFFFF), (BIG | 1 << 63, "RTP", False, 0xFF7FFFFF),
    (BIG | 1 << 63, "RTM", False, 0xFF800000), (BIG | 1 << 63, "RNE", False, 0xFF800000),
    # Sat=1 (b_datr.saturation.enabled): floating overflow clamps to the max finite
    (BIG, "RNE", True, 0x7F7FFFFF), (BIG | 1 << 63, "RTM", True, 0xFF7FFFFF),
])
def test_overflow_follows_ieee_per_mode(bits, mode, sat, expected):
    assert one(bits, "FP64", "FP32", rounding=mode, saturate=sat, profile="hw-ieee") == (expected, OF_NX)


@pytest.mark.parametrize("bits, dst, mode, sat, expected, flags", [
    # E4M3 has no infinity: where IEEE gives infinity it gives its NaN 0x7F (sign dropped, canonical)
    (f32(1000.0), "E4M3", "RNE", False, 0x7F, OF_NX), (f32(-1000.0), "E4M3", "RNE", False, 0x7F, OF_NX),
    (f32(1000.0), "E4M3", "RTZ", False, 0x7E, OF_NX), (f32(-1000.0), "E4M3", "RTZ", False, 0xFE, OF_NX),
    (f32(1000.0), "E4M3", "RNE", True, 0x7E, OF_NX),
    # 464 is the tie between 448 (code 0x7E, even) and 480 (beyond): RNE keeps 448; 465 overflows
    (f32(464.0), "E4M3", "RNE", False, 0x7E, FLAG_NX), (f32(465.0), "E4M3", "RNE", False, 0x7F, OF_NX),
    (0x7F800000, "E4M3", "RNE", False, 0x7F, OF_NX),
    # E3M2 / E2M3 / X2 have neither infinity nor NaN: clamp to the max finite (project choice)
    (f32(100.0), "E3M2", "RNE", False, 0x1F, OF_NX), (f32(-100.0), "E3M2", "RNE", False, 0x3F, OF_NX),
    (f32(30.0), "E3M2", "RNE", False, 0x1F, OF_NX), (f32(29.9), "E3M2", "RNE", False, 0x1F, FLAG_NX),
    (0xFF800000, "E2M3", "RNE", False, 0x3F, OF_NX), (f32(7.0), "E2M1X2", "RNE", False, 0x7, OF_NX),
    # NaN into a NaN-less format: +0 with NV (Sat=1: JSON "NaN converts to zero"; Sat=0: project choice)
    (0x7FC00000, "E3M2", "RNE", False, 0x00, FLAG_NV), (0xFFC00000, "E2M1X2", "RNE", True, 0x0, FLAG_NV),
    # infinities keep their sign where the destination has them, with no flag
    (0xFF800000, "FP16", "RTZ", False, 0xFC00, 0), (0x7F800000, "HiF8", "RNE", False, 0x6F, 0),
    (0xFF800000, "HiF8", "RNE", True, 0xEE, OF_NX),
])
def test_formats_without_infinity_or_nan(bits, dst, mode, sat, expected, flags):
    assert one(bits, "FP32", dst, rounding=mode, saturate=sat, profile="hw-ieee") == (expected, flags)


@pytest.mark.parametrize("value, expected, flags", [
    # FP16 min normal is 2**-14 = 0x0400; subnormal quantum 2**-24. Tininess is detected after
    # rounding: 2**-14 - 2**-26 rounds (RNE, 11 bits, unbounded exponent) to 2**-14 -> not tiny.
    (2.0**-14 - 2.0**-26, 0x0400, FLAG_NX),
    # 2**-14 - 2**-25 is exact with 11 bits, so it is tiny; it rounds to 0x0400 inexactly -> UF|NX
    (2.0**-14 - 2.0**-25, 0x0400, UF_NX),
    # 2**-25 is the tie between 0 and 2**-24: even -> +0, tiny and inexact
    (2.0**-25, 0x0000, UF_NX), (-(2.0**-25), 0x8000, UF_NX),
    # an exact subnormal is tiny but exact: no flag
    (3 * 2.0**-24, 0x0003, 0),
])
def test_gradual_underflow_with_tininess_after_rounding(value, expected, flags):
    assert one(f32(value), "FP32", "FP16", profile="hw-ieee") == (expected, flags)


@pytest.mark.parametrize("value, expected, flags", [
    # E2M1 lanes: 0 and 0.5 bracket 0.25 (tie -> even 0) and 0.375 (nearer 0.5). Tininess is
    # judged against 2**(1-bias) = 1.0 at 2 significant bits (project choice, OCP MX view):
    # 0.25 and 0.375 are tiny; 1.25 ties to even 1.0 and 1.75 to 2.0, neither tiny.
    (0.25, 0x0, UF_NX), (0.375, 0x1, UF_NX), (1.25, 0x2, FLAG_NX), (1.75, 0x4, FLAG_NX), (-0.1, 0x8, UF_NX),
    (0.5, 0x1, 0),
])
def test_x2_lane_destination(value, expected, flags):
    assert one(f32(value), "FP32", "E2M1X2", profile="hw-ieee") == (expected, flags)


def test_hif8_has_a_single_zero():
    # arithmetic.signed_zero: HiF8 has one zero encoding
    assert one(0x80000000, "FP32", "HiF8", profile="hw-ieee") == (0x00, 0)
    assert one(f32(-(2.0**-30)), "FP32", "HiF8", profile="hw-ieee") == (0x00, UF_NX)
    # 1.5 is HiF8 0x0C (matrix_postprocess vector f32-hif8-exact uses the same value)
    assert one(0x3FC00000, "FP32", "HiF8", profile="hw-ieee") == (0x0C, 0)


@pytest.mark.parametrize("bits, src, dst, mode, expected, flags", [
    # integer -> float: IEEE rounding under the mode (default RNE)
    (16777217, "S32", "FP32", "RNE", 0x4B800000, FLAG_NX), (16777217, "S32", "FP32", "RTP", 0x4B800001, FLAG_NX),
    (0xFFFFFFFFFFFFFFFF, "U64", "FP32", "RNE", 0x5F800000, FLAG_NX), (0xFF, "S8", "FP16", "RNE", 0xBC00, 0),
    (0x8000000000000000, "S64", "FP64", "RNE", 0xC3E0000000000000, 0), (0, "S32", "FP32", "RNE", 0, 0),
    (70000, "U32", "FP16", "RNE", 0x7C00, OF_NX),
    (300, "U16", "E4M3", "RNE", 0x79, FLAG_NX),  # 300 -> 288 = 1.125 * 2**8
    # float -> integer: round, then range-check; -0.5 -> -0 = 0 fits U8, -0.6 -> -1 does not
    (f32(-0.5), "FP32", "U8", "RNE", 0, FLAG_NX), (f32(-0.6), "FP32", "U8", "RNE", 0xFF, FLAG_NV),
    (f32(255.5), "FP32", "U8", "RNE", 0xFF, FLAG_NV), (f32(-1.0), "FP32", "S8", "RNE", 0xFFFFFFFFFFFFFFFF, 0),
    (f32(2.75), "FP32", "S32", "NONE", 2, FLAG_NX),  # RMode NONE: TCVT float->integer default RTZ
    (f32(2.75), "FP32", "FP16", "NONE", 0x4180, 0),  # other conversions default to RNE
])
def test_integer_sides(bits, src, dst, mode, expected, flags):
    assert one(bits, src, dst, rounding=mode, profile="hw-ieee") == (expected, flags)


def test_e8m0_source_widens_exactly():
    # E8M0 0x00 = 2**-127 is an FP32 subnormal (0x00400000); 0xFF is NaN
    words, flags = convert([0x00, 0x7F, 0xFE, 0xFF], "E8M0", "FP32", profile="hw-ieee")
    assert words.tolist() == [0x00400000, 0x3F800000, 0x7F000000, 0x7FC00000] and flags.tolist() == [0, 0, 0, 0]


def test_invalid_encodings_are_invalid_operands():
    # TF32 with low bits set (TileNumericEncodingValid fails): treated like a signalling NaN
    assert one(0x3F800001, "TF32", "FP32", profile="hw-ieee") == (0x7FC00000, FLAG_NV)
    assert one(0x41, "E3M2", "S8", profile="hw-ieee") == (0xFFFFFFFFFFFFFF80, FLAG_NV)


# ------------------------------------------------------------------ API behaviour

def test_rounding_names():
    base = one(f32(2.5), "FP32", "S32", rounding="RTM", profile="hw-ieee")
    assert one(f32(2.5), "FP32", "S32", rounding="rdn", profile="hw-ieee") == base
    assert one(f32(2.5), "FP32", "S32", rounding="RUP", profile="hw-ieee")[0] == 3
    with pytest.raises(ValueError, match="rounding mode"):
        convert([0], "FP32", "FP16", rounding="ROUND_UP")
    with pytest.raises(ValueError, match="profile"):
        convert([0], "FP32", "FP16", profile="ieee")
    with pytest.raises(ValueError):
        convert([0], "FP8", "FP16")


def test_shapes_and_inputs():
    grid = np.array([[0x3C00, 0x4000], [0xBC00, 0x7C00]], dtype=np.uint16)
    words, flags = convert(grid, "FP16", "FP32", profile="hw-ieee")
    assert words.shape == (2, 2) and words.dtype == np.uint64 and flags.dtype == np.uint8
    assert words.tolist() == [[0x3F800000, 0x40000000], [0xBF800000, 0x7F800000]]
    words, _ = convert(0x3C00, "FP16", "FP32", profile="hw-ieee")
    assert words.shape == () and int(words) == 0x3F800000
    # two's-complement words are given as unsigned words (negative ints and signed arrays are
    # rejected: tests/numeric/test_numeric_api.py)
    assert convert([0xFFFFFFFFFFFFFFFF], "S8", "S16")[0].tolist() == [0xFFFFFFFFFFFFFFFF]
    assert convert(np.array([-2], dtype=np.int64).view(np.uint64), "S64", "S32")[0].tolist() == [0xFFFFFFFFFFFFFFFE]
    empty, _ = convert([], "FP32", "FP16", profile="hw-ieee")
    assert empty.shape == (0,)
