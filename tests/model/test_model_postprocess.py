"""B.FPATR matrix post-processing (device_model.ops.postprocess).

Expected values: the spec's B.FPATR tests under tests/asl/block/attributes/B.FPATR/
(block-exec-b-fpatr-*.asl, cited per test), the "matrix_postprocess" group of
spec/evidence/pto-isa-0583-hardware-numeric-vectors.json (copied below), and
independent peers for ordinary roundings: numpy float16 and ml_dtypes
bfloat16 / float8_e4m3fn (round to nearest even) and float64 products rounded
to float32 (exact products, one rounding).
"""
import ml_dtypes
import numpy as np
import pytest

from pto_avs.device_model.ops import postprocess as pp

FP32_ONE = 0x3F800000


def qparam(fp32_bits=FP32_ONE, offset=0, width=0):
    """MatrixQuantParameter(FP32ToFP19(fp32), offset, width)."""
    word = pp.fp32_to_fp19(fp32_bits) << 13
    if width:
        word |= (offset & ((1 << width) - 1)) << 37
    return word


def run(value, mode, out, quant=0, relu_param=0, relu=0, rmode=0, sat=False, source="FP32"):
    words, flags = pp.postprocess(np.array([value], dtype=np.uint64), mode, relu, out, quant, relu_param,
                                  rmode, sat, source)
    return int(words[0]), int(flags[0])


def test_fp32_to_fp19():
    assert pp.fp32_to_fp19(FP32_ONE) == 0x1FC00  # sign 0, exponent 127, fraction 0
    assert pp.fp32_to_fp19(0x7FC00000) == 0x3FF00  # any NaN (fp19.asl)
    assert pp.fp32_to_fp19(0x3F801000) == 0x1FC00  # dropped bits exactly half, even: stays
    assert pp.fp32_to_fp19(0x3F803000) == 0x1FC02  # half with odd fraction 1: rounds up to 2
    assert pp.fp32_to_fp19(0x3F801001) == 0x1FC01  # above half: rounds up


# block-exec-b-fpatr-all-modes-007: every mode maps 1 (FP32 1.0 or S32 1/2) to 1 in its output
# type with flags 0 (scale FP19(1.0), offsets 0, shift code 0).
ALL_MODES = [
    (0, FP32_ONE, "FP32", 0, FP32_ONE, "FP32"), (1, FP32_ONE, "FP16", 0, 0x3C00, "FP32"),
    (2, 1, "S8", qparam(width=9), 1, "S32"), (3, 1, "S8", qparam(width=9), 1, "S32"),
    (4, 1, "FP16", qparam(), 0x3C00, "S32"), (5, 1, "FP16", qparam(), 0x3C00, "S32"),
    (12, 2, "S16", 0, 1, "S32"), (13, 2, "S16", 0, 1, "S32"), (16, FP32_ONE, "BF16", 0, 0x3F80, "FP32"),
    (17, 1, "S4X2", qparam(width=5), 1, "S32"), (18, 1, "S4X2", qparam(width=5), 1, "S32"),
    (19, 1, "S16", qparam(width=17), 1, "S32"), (20, 1, "S16", qparam(width=17), 1, "S32"),
    (23, FP32_ONE, "S8", qparam(width=9), 1, "FP32"), (24, FP32_ONE, "S8", qparam(width=9), 1, "FP32"),
    (25, FP32_ONE, "HiF8", qparam(), 0x08, "FP32"), (26, FP32_ONE, "E4M3", qparam(), 0x38, "FP32"),
    (27, FP32_ONE, "FP32", qparam(), FP32_ONE, "FP32"), (28, FP32_ONE, "HiF8", qparam(), 0x08, "FP32"),
    (32, FP32_ONE, "FP16", qparam(), 0x3C00, "FP32"), (33, FP32_ONE, "FP16", qparam(), 0x3C00, "FP32"),
    (34, FP32_ONE, "BF16", qparam(), 0x3F80, "FP32"), (35, 1, "BF16", qparam(), 0x3F80, "S32"),
    (36, FP32_ONE, "BF16", qparam(), 0x3F80, "FP32"), (37, FP32_ONE, "E4M3", qparam(), 0x38, "FP32"),
    (38, FP32_ONE, "FP32", qparam(), FP32_ONE, "FP32"), (39, 1, "BF16", qparam(), 0x3F80, "S32"),
]


@pytest.mark.parametrize("mode,value,out,quant,expected,source", ALL_MODES)
def test_all_modes_007(mode, value, out, quant, expected, source):
    assert pp.output_type(mode) == out
    assert run(value, mode, out, quant, source=source) == (expected, 0)


def test_formats_003():
    one_point_five = 0x3FC00000
    assert run(one_point_five, 1, "FP16") == (0x3E00, 0)
    assert run(one_point_five, 16, "BF16") == (0x3FC0, 0)
    assert run(one_point_five, 26, "E4M3", qparam()) == (0x3C, 0)
    assert run(one_point_five, 25, "HiF8", qparam()) == (0x0C, 0)
    assert run(one_point_five, 27, "FP32", qparam(0x3F000000)) == (0x3F400000, 0)


def test_activation_004():
    half = pp.fp32_to_fp19(0x3F000000)
    assert run(0xC0000000, 24, "S8", qparam(width=9), relu=1) == (0, 0)
    assert run(0xC0800000, 24, "S8", qparam(width=9), half, relu=2) == (0xFFFFFFFFFFFFFFFE, 0)
    assert run(0xC0800000, 24, "S8", qparam(width=9), half, relu=3) == (0xFFFFFFFFFFFFFFFE, 0)


def test_quant_002():
    req8 = qparam(0x40000000, 0x1FF, 9)  # scale 2, offset -1
    assert run(3, 3, "S8", req8, source="S32") == (5, 0)
    assert run(70, 3, "S8", qparam(0x40000000, 0, 9), source="S32") == (0xFFFFFFFFFFFFFF8C, 0x14)
    assert run(70, 3, "S8", qparam(0x40000000, 0, 9), sat=True, source="S32") == (127, 0x14)
    assert run(0xFFFFFFFFFFFFFFDF, 13, "S16", 0, source="S32") == (0xFFFFFFFFFFFFFFEF, 0)
    assert run(0x7FFFFFFF, 13, "S16", 0, sat=True, source="S32") == (0x7FFF, 0x14)


def test_rounding_008():
    assert run(300, 3, "S8", qparam(FP32_ONE, 1, 9), source="S32") == (0, 0x14)
    assert run(20, 17, "S4X2", qparam(FP32_ONE, 1, 5), source="S32") == (0, 0x14)
    assert run(70000, 19, "S16", qparam(FP32_ONE, 1, 17), source="S32") == (0, 0x14)
    assert run(0x7FFFFFFF, 13, "S16", 0, source="S32") == (0x7FFF, 0x14)


def test_special_005():
    q9 = qparam(width=9)
    assert run(0x7FC00000, 24, "S8", q9) == (0xFFFFFFFFFFFFFF80, 0x01)
    assert run(0x7F800000, 24, "S8", q9) == (0xFFFFFFFFFFFFFF80, 0x01)
    assert run(0xFF800000, 24, "S8", q9) == (0xFFFFFFFFFFFFFF80, 0x01)
    assert run(0x7FC00000, 24, "S8", q9, sat=True) == (0, 0x01)
    assert run(0x7F800000, 24, "S8", q9, sat=True) == (127, 0x14)
    q0 = qparam()
    assert run(0x7FC00000, 26, "E4M3", q0) == (0x7F, 0)
    assert run(0x7FC00000, 32, "FP16", q0, sat=True) == (0, 0)
    assert run(0x7F800001, 32, "FP16", q0, sat=True) == (0, 0x01)
    assert run(0x7F800000, 32, "FP16", q0, sat=True) == (0x7BFF, 0x14)
    assert run(0x7FC00000, 32, "FP16", q0) == (0x7E00, 0)
    assert run(0x7FC00000, 25, "HiF8", q0) == (0x80, 0)


def test_zero_affine_009():
    assert run(0, 24, "S8", qparam(FP32_ONE, 5, 9)) == (5, 0)
    assert run(0x80000000, 24, "S8", qparam(FP32_ONE, 5, 9)) == (5, 0)
    assert run(0, 24, "S8", qparam(FP32_ONE, 0x1FB, 9)) == (0xFFFFFFFFFFFFFFFB, 0)
    assert run(0x80000000, 24, "S8", qparam(FP32_ONE, 0, 9)) == (0, 0)


def test_commit_006_values():
    # block-exec-b-fpatr-commit-006: mode 24 with FP19 scale 2.0 on [1.5, 70.0] -> [3, -116 wrapped
    # 0xFFFFFFFFFFFFFF8C], status 0x14
    words, flags = pp.postprocess(np.array([0x3FC00000, 0x428C0000], dtype=np.uint64), 24, 0, "S8",
                                  qparam(0x40000000, 0, 9), 0, 0, False)
    assert words.tolist() == [3, 0xFFFFFFFFFFFFFF8C] and int(np.bitwise_or.reduce(flags)) == 0x14


# spec/evidence/pto-isa-0583-hardware-numeric-vectors.json, vector_groups.matrix_postprocess
JSON_VECTORS = [
    # (id, mode, source, input word, destination, fp19 scale (FP32 bits), offset, relu, alpha, sat,
    #  expected_raw (element bits), expected flags)
    ("req8-scalar-affine", 3, "S32", 3, "S8", 0x40000000, -1, 0, 0, False, 0x05, 0),
    ("req8-wrap", 3, "S32", 70, "S8", 0x40000000, 0, 0, 0, False, 0x8C, 0x14),
    ("req8-saturate", 3, "S32", 70, "S8", 0x40000000, 0, 0, 0, True, 0x7F, 0x14),
    ("f32-e4m3-exact", 26, "FP32", 0x3FC00000, "E4M3", FP32_ONE, 0, 0, 0, False, 0x3C, None),
    ("f32-hif8-exact", 25, "FP32", 0x3FC00000, "HiF8", FP32_ONE, 0, 0, 0, False, 0x0C, None),
    ("post-conversion-lrelu", 24, "FP32", 0xC0800000, "S8", FP32_ONE, 0, 2, 0x3F000000, False, 0xFE, None),
    ("nan-indefinite", 24, "FP32", 0x7FC00000, "S8", FP32_ONE, 0, 0, 0, False, 0x80, 0x01),
    ("nan-saturating-zero", 24, "FP32", 0x7FC00000, "S8", FP32_ONE, 0, 0, 0, True, 0x00, 0x01),
]


@pytest.mark.parametrize("vector", JSON_VECTORS, ids=[v[0] for v in JSON_VECTORS])
def test_hardware_vectors(vector):
    _, mode, source, value, out, scale, offset, relu, alpha, sat, expected, flags = vector
    width = pp.OFFSET_WIDTH.get(mode, 0)
    alpha_word = pp.fp32_to_fp19(alpha) if relu else 0
    word, got_flags = run(value, mode, out, qparam(scale, offset, width), alpha_word, relu=relu, sat=sat,
                          source=source)
    assert word & 0xFF == expected
    if flags is not None:  # vectors without expected_flags leave them unstated
        assert got_flags == flags


RNG = np.random.default_rng(20250583)


def _random_fp32(count):
    """Random finite FP32 encodings over the whole exponent range, both signs."""
    words = RNG.integers(0, 1 << 32, size=count, dtype=np.uint64)
    finite = ((words >> np.uint64(23)) & np.uint64(0xFF)) != 0xFF
    return words[finite]


def test_fp16_rne_matches_numpy():
    words = _random_fp32(20000)
    values = words.astype(np.uint32).view(np.float32)
    with np.errstate(over="ignore"):
        half = values.astype(np.float16)
    expected = half.view(np.uint16).astype(np.uint64)
    got, flags = pp.postprocess(words, 1, 0, "FP16", 0, 0, 0, False)
    # numpy keeps -0 for negative values rounding to zero and the reference does too (sign bit kept)
    assert np.array_equal(got, expected)
    assert ((flags & 0x04) != 0).tolist() == np.isinf(half).tolist()  # OF exactly on overflow
    assert ((flags & 0x10) != 0).tolist() == (half.astype(np.float32) != values).tolist()


def test_bf16_rne_matches_ml_dtypes():
    words = _random_fp32(20000)
    values = words.astype(np.uint32).view(np.float32)
    expected = values.astype(ml_dtypes.bfloat16).view(np.uint16).astype(np.uint64)
    got, _ = pp.postprocess(words, 16, 0, "BF16", 0, 0, 0, False)
    assert np.array_equal(got, expected)


def test_e4m3_rne_matches_ml_dtypes_in_range():
    # in range (|x| <= 448, beyond which the reference overflows to 0x7F) and excluding
    # negative values that round to zero (the reference returns code 0x00, see
    # ReferenceFP8Encoding's code-order search), the nearest-even result equals ml_dtypes'.
    values = np.concatenate([RNG.uniform(-448, 448, 20000), RNG.uniform(-0.02, 0.02, 5000)]).astype(np.float32)
    words = values.view(np.uint32).astype(np.uint64)
    got, flags = pp.postprocess(words, 26, 0, "E4M3", qparam(), 0, 0, False)
    expected = values.astype(ml_dtypes.float8_e4m3fn).view(np.uint8).astype(np.uint64)
    keep = ~((values < 0) & (expected == 0x80))
    assert np.array_equal(got[keep], expected[keep])
    assert (got[~keep] == 0).all()
    exact = values == expected.astype(np.uint8).view(ml_dtypes.float8_e4m3fn).astype(np.float32)
    assert ((flags & 0x10) == 0).tolist() == exact.tolist()


def test_fp32_scaled_by_fp19_matches_float64_product():
    # mode 27: FP32 x FP19 scale rounded once to FP32 (RNE). The exact product fits a float64
    # (24 + 11 significand bits), so float64 multiply then float32 conversion is exact-then-RNE.
    words = _random_fp32(20000)
    scale_bits = 0x3FB00000  # 1.375 = FP19 exactly (fraction fits 10 bits)
    got, flags = pp.postprocess(words, 27, 0, "FP32", qparam(scale_bits), 0, 0, False)
    product = words.astype(np.uint32).view(np.float32).astype(np.float64) * 1.375
    with np.errstate(over="ignore"):
        expected = product.astype(np.float32).view(np.uint32).astype(np.uint64)
    assert np.array_equal(got, expected)


@pytest.mark.parametrize("mode,expected_zero", [(26, 0x00), (25, 0x00)])
def test_fp8_negative_underflow_to_zero_is_positive_code(mode, expected_zero):
    # ReferenceFP8Encoding scans codes 0..255 and keeps the first of equally near candidates:
    # -2**-30 rounds to code 0x00 (E4M3 +0 / HiF8 0), with UF|NX.
    out = "E4M3" if mode == 26 else "HiF8"
    assert run(0xB0800000, mode, out, qparam()) == (expected_zero, 0x18)


def test_fp8_overflow_rules():
    # E4M3 > 448: Sat=0 -> 0x7F (sign dropped), Sat=1 -> +-0x7E; HiF8 > 32768: +-Inf / +-0x6E
    big = 0x47000000  # 32768.0
    assert run(0x43F00000, 26, "E4M3", qparam()) == (0x7F, 0x14)  # 480
    assert run(0xC3F00000, 26, "E4M3", qparam()) == (0x7F, 0x14)
    assert run(0xC3F00000, 26, "E4M3", qparam(), sat=True) == (0xFE, 0x14)
    assert run(big, 25, "HiF8", qparam()) == (0x6E, 0)  # exactly the largest finite
    assert run(0x47010000, 25, "HiF8", qparam()) == (0x6F, 0x14)  # 33024 > 32768
    assert run(0xC7010000, 25, "HiF8", qparam(), sat=True) == (0xEE, 0x14)


def test_tininess_before_rounding():
    # The reference detects tininess on the exact value: FP16 (mode 1) of 2**-14 * (1 - 2**-12)
    # rounds up to the smallest normal 0x0400 but still reports UF|NX (0x18).
    value = np.float32(2.0 ** -14 * (1 - 2.0 ** -12)).view(np.uint32)
    assert run(int(value), 1, "FP16") == (0x0400, 0x18)


def test_reductions():
    # max_step (HardwareNumericFloatingMinMax, maximum): one NaN -> the other, two NaNs ->
    # canonical NaN, +0/-0 -> 0, NV only for a signalling NaN operand.
    a = np.array([0x7FC00000, 0x7F800001, 0x80000000, 0x80000000, 0x40000000], dtype=np.uint64)
    b = np.array([0x3F800000, 0x7FC00000, 0x00000000, 0x80000000, 0xC0400000], dtype=np.uint64)
    result, flags = pp.max_step(a, b)
    assert result.tolist() == [0x3F800000, 0x7FC00000, 0, 0x80000000, 0x40000000]
    assert flags.tolist() == [0, 0x01, 0, 0, 0]
    # fold over an odd count with absent entries equals the sequential left fold
    words = np.array([[0xC0A00000, 0x40400000, 0x7FC00000, 0x40400000, 0xBF800000]], dtype=np.uint64)
    value, flags = pp.fold_max(words, np.ones(words.shape, bool), False)
    assert value.tolist() == [0x40400000] and flags.tolist() == [0]
    value, _ = pp.fold_max(words, np.ones(words.shape, bool), True)
    assert value.tolist() == [0x40A00000]  # |-5.0|
