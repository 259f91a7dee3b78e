"""Checks of the independent post-processing reference (vectors/reference/postprocess.py).

Expected values are the spec's: the ASL test points tests/asl/arch/profile/
matrix-postprocess/*.asl and matrix-quantization/*.asl, the matrix_postprocess group of
spec/evidence/pto-isa-0583-hardware-numeric-vectors.json (its FP32-accumulator vectors),
and the hand derivations of PTO-AVS-X-TGEMV-MX-ACC-POSTPROCESS-001. The encoders are
also checked against the reference's own format decoder (numeric.py).
"""
from __future__ import annotations

from fractions import Fraction

import pytest

from pto_avs.vectors.reference import numeric as ref
from pto_avs.vectors.reference import postprocess as pp

NV, OF, UF, NX = pp.NV, pp.OF, pp.UF, pp.NX
ONE = pp.quant_word(0x3F800000)


def config(mode, relu=0, rmode="NONE", sat=False, quant=ONE, relu_param=0):
    return pp.Config(mode, relu, rmode, sat, (quant,), (relu_param,))


# arch-exec-matrix-postprocess-001: -2.0, mode 24 ('011000'), ReLU, S8, scale 1 offset 0 -> 0, no flag
def test_relu_zeroes_a_negative_s8_value():
    assert pp.postprocess(0xC0000000, config(24, relu=1, quant=pp.quant_word(0x3F800000, 0, 9))) == (0, 0)


# arch-exec-matrix-postprocess-pipeline-002: 0xBF000BB0, mode 32 ('100000'), LReLU alpha 0.75, FP16
def test_lrelu_multiplier_before_the_single_fp16_rounding():
    cfg = config(32, relu=2, relu_param=pp.relu_word(0x3F400000))
    assert pp.postprocess(0xBF000BB0, cfg) == (0xB601, NX)


# arch-exec-matrix-quantization-001
def test_destination_encoders_of_the_quantization_test():
    assert pp.integer_encoding(Fraction(130), "S8", "RNE", False) == (0xFFFFFFFFFFFFFF82, OF | NX)
    assert pp.encode_real(Fraction(3, 2), "FP16", "RNE", False) == (0x3E00, 0)
    assert pp.encode_real(Fraction(3, 2), "E4M3", "RNE", False) == (0x3C, 0)
    assert pp.encode_real(Fraction(3, 2), "HiF8", "RNE", False) == (0x0C, 0)
    assert pp.encode_real(Fraction(-257, 256), "BF16", "RHB", False) == (0xBF80, NX)
    word = pp.quant_word(0x3F800000, -1, 9)
    assert word >> 13 & 0x7FFFF == 0x1FC00 and pp.quant_offset(word, 9) == -1


# arch-exec-matrix-intermediate-002 (MatrixRoundAndSaturateSigned)
@pytest.mark.parametrize("value, width, mode, result, flags", [
    (Fraction(15), 5, "RNE", 15, 0), (Fraction(31, 2), 5, "RNE", 15, OF | NX),
    (Fraction(-33, 2), 5, "RNA", -16, OF | NX), (Fraction(1023, 4), 9, "RNE", 255, OF | NX),
    (Fraction(-1027, 4), 9, "RNE", -256, OF | NX), (Fraction(655354, 10), 17, "RTZ", 65535, NX),
    (Fraction(1, 2), 9, "RNE", 0, NX), (Fraction(1, 2), 9, "RNA", 1, NX), (Fraction(1, 2), 9, "RTP", 1, NX),
    (Fraction(1, 2), 9, "RTM", 0, NX), (Fraction(1, 2), 9, "RTZ", 0, NX),
    (Fraction(-1, 2), 9, "RNE", 0, NX), (Fraction(-1, 2), 9, "RNA", -1, NX), (Fraction(-1, 2), 9, "RTP", 0, NX),
    (Fraction(-1, 2), 9, "RTM", -1, NX), (Fraction(-1, 2), 9, "RTZ", 0, NX),
])
def test_intermediate_rounding_and_saturation(value, width, mode, result, flags):
    assert pp.round_and_saturate_signed(value, width, mode) == (result, flags)


# spec/evidence/pto-isa-0583-hardware-numeric-vectors.json, matrix_postprocess (FP32 accumulator)
@pytest.mark.parametrize("word, cfg, expected", [
    (0x3FC00000, config(26), (0x3C, 0)),  # f32-e4m3-exact
    (0x3FC00000, config(25), (0x0C, 0)),  # f32-hif8-exact
    (0xC0800000, config(24, relu=2, quant=pp.quant_word(0x3F800000, 0, 9), relu_param=pp.relu_word(0x3F000000)),
     (0xFFFFFFFFFFFFFFFE, 0)),  # post-conversion-lrelu: -4 * 0.5 -> S8 0xFE
    (0x7FC00000, config(24, quant=pp.quant_word(0x3F800000, 0, 9)), (0xFFFFFFFFFFFFFF80, NV)),  # nan-indefinite
    (0x7FC00000, config(24, sat=True, quant=pp.quant_word(0x3F800000, 0, 9)), (0, NV)),  # nan-saturating-zero
])
def test_hardware_vectors_of_the_matrix_postprocess_group(word, cfg, expected):
    assert pp.postprocess(word, cfg) == expected


# PTO-AVS-X-TGEMV-MX-ACC-POSTPROCESS-001 (hand derivations from the ASL)
def test_hand_derived_postprocess_vectors():
    assert pp.postprocess(0x387FF000, config(1)) == (0x0400, UF | NX)  # tininess before rounding
    scaled = pp.quant_word(0x3FA00000)  # 1.25
    assert pp.postprocess(0x3F800003, config(27, rmode="RNE", quant=scaled)) == (0x3FA00004, NX)
    assert pp.postprocess(0x3F800003, config(27, rmode="RTZ", quant=scaled)) == (0x3FA00003, NX)


def test_fixed_and_programmable_rounding():
    assert config(25, rmode="RTZ").rounding == "RHB" and config(28).rounding == "RHB"
    assert config(37, rmode="RTP").rounding == "RNE" and config(27).rounding == "RNE"
    assert config(38, rmode="RTM").rounding == "RTM" and config(23, rmode="RTO").rounding == "RTO"


def test_special_values_and_signed_zero():
    e4m3 = config(26)
    assert pp.postprocess(0xFF800000, e4m3) == (0x7F, OF | NX)  # E4M3 has no infinity
    assert pp.postprocess(0xFF800000, config(26, sat=True)) == (0xFE, OF | NX)
    assert pp.postprocess(0x7F800001, config(1)) == (0x7E00, NV)  # signalling NaN
    assert pp.postprocess(0x80000000, config(1)) == (0x8000, 0)  # -0 keeps its sign
    assert pp.postprocess(0x80000000, config(1, relu=1)) == (0, 0)  # ReLU multiplies by 0: +0
    assert pp.postprocess(0x80000000, config(25)) == (0, 0)  # HiF8 has no -0
    # -Inf under LReLU with alpha +0: the multiplier is 0, so no special value: +0
    assert pp.postprocess(0xFF800000, config(32, relu=2, relu_param=0)) == (0, 0)
    assert pp.postprocess(0xFF800000, config(32, relu=2, relu_param=pp.relu_word(0x3F000000))) == (0xFC00, 0)


def test_overflow_is_decided_on_the_exact_exponent():
    # ReferenceFP32FiniteEncoding: 1.5 * 2^127 * 1.5 has exponent 128: +Inf under every mode, even RTZ.
    big = config(27, rmode="RTZ", quant=pp.quant_word(0x3FC00000))
    assert pp.postprocess(0x7F400000, big) == (0x7F800000, OF | NX)
    # ReferenceFP8Encoding: anything above 448 overflows E4M3 (449 would round to 448 under IEEE).
    assert pp.encode_real(Fraction(449), "E4M3", "RNE", False) == (0x7F, OF | NX)
    assert pp.encode_real(Fraction(32769), "HiF8", "RHB", True) == (0x6E, OF | NX)


def test_fp8_finite_values_agree_with_the_format_decoder():
    for dst in ("E4M3", "HiF8"):
        for code in range(256):
            if pp._fp8_special(dst, code):
                assert ref.decode(dst, code).cls in ("nan", "inf")
                continue
            assert pp.fp8_finite_value(dst, code) == ref.decode(dst, code).exact, (dst, hex(code))


@pytest.mark.parametrize("dst", ["FP32", "FP16", "BF16"])
def test_binary_encoders_agree_with_ieee_rne_in_the_normal_range(dst):
    """Away from overflow and underflow the ASL encoders are IEEE RNE (numeric.encode_value)."""
    for k in range(1, 400):
        value = Fraction(1000 + 37 * k, 7) * ref.pow2(k % 9 - 4)
        for x in (value, -value):
            expected = ref.encode_value(dst, x < 0, abs(x), "RNE", False)
            got = pp.encode_real(x, dst, "RNE", False)
            assert got == expected, (dst, x, got, expected)


# --------------------------------------------------------------------------------------
# An integer (S32/U32) accumulator: integer_source


@pytest.mark.parametrize("word, shift, expected, flags", [
    (0xFFFFFFDF, 1, 0xFFFFFFFFFFFFFFEF, 0),  # tests/asl/.../arch-exec-matrix-intermediate-002.asl: -33 >> 1
    (0x7FFFFFFF, 1, 0x7FFF, OF | NX),  # the same test: clamped to S16
    (0xFFFFFFFF_FFFF0000, 16, 0xFFFFFFFFFFFFFFFF, 0)])  # only the low 32 bits are read
def test_the_s16_shift_matches_the_spec_test(word, shift, expected, flags):
    assert pp.shift_s32_to_s16(word, shift - 1) == (expected, flags)
    assert pp.postprocess(word, config(13, quant=(shift - 1) << 32), source="S32") == (expected, flags)


def test_an_s32_mode_scales_rounds_into_the_intermediate_then_adds_the_offset():
    quant = pp.quant_word(0x3B800000, 3, 9)  # 2^-8, offset 3, S9 intermediate
    assert pp.postprocess(1000, config(2, quant=quant), source="S32") == (7, NX)  # 3.90625 -> 4, + 3
    assert pp.postprocess(1 << 20, config(2, quant=quant), source="S32") == (2, OF | NX)
    # 4096 saturates the S9 intermediate at 255 (OF|NX), + 3 = 258 wraps in S8 to 2 (OF|NX, no Sat)
    assert pp.postprocess(1 << 20, config(2, sat=True, quant=quant), source="S32") == (127, OF | NX)


def test_relu_alone_reads_the_accumulator_type():
    assert pp.postprocess(0xFFFFFFFFFFFFFFFB, config(0, 1), source="S32") == (0, 0)  # -5 -> 0
    alpha = pp.relu_word(0x3EC00000)  # 0.375
    assert pp.postprocess(0xFFFFFFF9, config(0, 2, relu_param=alpha), source="S32") == (0xFFFFFFFFFFFFFFFD, NX)
    assert pp.postprocess(0xFFFFFFFF, config(0, 1), source="U32") == (0xFFFFFFFF, 0)  # never negative
