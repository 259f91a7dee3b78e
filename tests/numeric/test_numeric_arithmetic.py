"""quantize (TQUANT), multiply (TMULS) and scaled_fma_fp32 (TGEMV_MX_ACC): spec
values, hardware numeric vectors (group named per case), hand derivations and
numpy/ml_dtypes arithmetic as a peer."""
import struct

import ml_dtypes as md
import numpy as np
import pytest

from pto_avs.device_model.numeric import FLAG_NV, FLAG_NX, FLAG_OF, FLAG_UF, multiply, quantize, scaled_fma_fp32

OF_NX, UF_NX = FLAG_OF | FLAG_NX, FLAG_UF | FLAG_NX
ONE, TWO = 0x3F800000, 0x40000000
M64 = (1 << 64) - 1


def f32(x):
    return struct.unpack("<I", struct.pack("<f", x))[0]


def q(x, m=ONE, zp=0, dst="S8", rounding="RNE", sat=False, profile="pto-v0"):
    words, flags = quantize([x], m, zp, dst, rounding, sat, profile)
    return int(words[0]), int(flags[0])


# ------------------------------------------------------------------ TQUANT

@pytest.mark.parametrize("profile", ("pto-v0", "hw-ieee"))
def test_tquant_spec_points(profile):
    # PTO-AVS-TILE-TQUANT-AFFINE-001: 1.0 and 2.0, multiplier 1.0, zero point 0 -> S8 1, 2
    words, flags = quantize([ONE, TWO], ONE, 0, "S8", profile=profile)
    assert words.tolist() == [1, 2] and flags.tolist() == [0, 0]
    # PTO-AVS-TILE-TQUANT-SAT-001: 200.0 -> 127 with Sat, -56 (Ones - 55) without
    assert q(0x43480000, sat=True, profile=profile) == (127, 0)
    assert q(0x43480000, sat=False, profile=profile) == (M64 - 55, 0)
    # PTO-AVS-ARCH-REFERENCE-QUANTIZATION-001: S8 word 0xFF is -1 (here as the zero point)
    assert q(0, zp=0xFF, profile=profile) == (M64, 0)


@pytest.mark.parametrize("profile", ("pto-v0", "hw-ieee"))
@pytest.mark.parametrize("value, mode, expected", [
    # FloatingToInteger on the exact x*m+zp (digest 2.1)
    (2.5, "RNE", 2), (2.5, "RNA", 3), (2.5, "RHB", 3), (2.5, "RTZ", 2), (2.5, "RTM", 2), (2.5, "RTP", 3),
    (2.5, "RTO", 3), (-2.5, "RNE", -2), (-2.5, "RNA", -3), (-2.5, "RHB", -2), (-2.5, "RTZ", -2),
    (-2.5, "RTM", -3), (-2.5, "RTP", -2), (-2.5, "RTO", -3), (3.0, "RTO", 3), (-0.25, "RTZ", 0)])
def test_tquant_rounding(profile, value, mode, expected):
    assert q(f32(value), rounding=mode, profile=profile) == (expected & M64, 0 if value == expected else FLAG_NX)


@pytest.mark.parametrize("profile", ("pto-v0", "hw-ieee"))
def test_tquant_is_one_exact_rounding(profile):
    # the zero point joins before the rounding: 2.5 + 1 = 3.5 -> RNE 4 (2 + 1 would be 3)
    assert q(f32(2.5), zp=1, profile=profile) == (4, FLAG_NX)
    # x*m is exact: 3 * (1/3 rounded to FP32 = 0x3EAAAAAB, slightly above 1/3) is just above 1 -> RTP 2
    assert q(f32(3.0), m=0x3EAAAAAB, rounding="RTP", profile=profile) == (2, FLAG_NX)
    assert q(f32(3.0), m=0x3EAAAAAB, rounding="RNE", profile=profile) == (1, FLAG_NX)
    # a subnormal multiplier is legal: 2**100 * 2**-149 = 2**-49 -> 0 (RNE) or 1 (RTP)
    assert q(0x71800000, m=0x00000001, profile=profile) == (0, FLAG_NX)
    assert q(0x71800000, m=0x00000001, rounding="RTP", profile=profile) == (1, FLAG_NX)
    # multiplier bits 63:32 are ignored; the zero point is read as S8 from a word
    assert q(f32(5.0), m=0xDEADBEEF_3F800000, zp=0xFFFFFFFFFFFFFFFE, profile=profile) == (3, 0)


@pytest.mark.parametrize("profile", ("pto-v0", "hw-ieee"))
def test_tquant_wrap_and_clamp_of_finite_values(profile):
    # digest 4.2: Sat=0 wraps modulo 2**8, Sat=1 clamps, no OF either way (both profiles;
    # hw-ieee keeps the operation's wrap/clamp for finite results, a project choice)
    assert q(f32(300.0), profile=profile) == (44, 0)
    assert q(f32(300.0), dst="U8", profile=profile) == (44, 0)
    assert q(f32(-1.0), dst="U8", profile=profile) == (0xFF, 0)
    assert q(f32(-1.0), dst="U8", sat=True, profile=profile) == (0, 0)
    assert q(f32(-300.5), sat=True, profile=profile) == (M64 - 127, FLAG_NX)  # -128
    # 2**40 is a multiple of 256: it wraps to the zero point; with Sat it clamps
    assert q(0x53800000, zp=5, profile=profile) == (5, 0)
    assert q(0x53800000, zp=5, sat=True, profile=profile) == (127, 0)
    assert q(0xD3800000, zp=5, dst="S8", sat=True, profile=profile) == (M64 - 127, 0)


@pytest.mark.parametrize("sat", (False, True))
def test_tquant_reference_specials(sat):
    # pto-v0 (reference-quantization.asl): NaN -> 0 with NV, +-Inf -> endpoint with OF|NX, whatever Sat
    assert q(0x7FC00000, sat=sat) == (0, FLAG_NV)
    assert q(0x7F800001, sat=sat, dst="U8") == (0, FLAG_NV)
    assert q(0x7F800000, sat=sat) == (127, OF_NX)
    assert q(0xFF800000, sat=sat) == (M64 - 127, OF_NX)
    assert q(0xFF800000, sat=sat, dst="U8") == (0, OF_NX)


def test_tquant_hardware_specials():
    # hw-ieee: NaN/Inf are invalid float->integer conversions (conversion.float_to_integer_invalid)
    h = dict(profile="hw-ieee")
    assert q(0x7FC00000, **h) == (M64 - 127, FLAG_NV)  # S8 indefinite 0x80, sign-extended
    assert q(0x7FC00000, dst="U8", **h) == (0xFF, FLAG_NV)
    assert q(0x7FC00000, sat=True, **h) == (0, FLAG_NV)
    assert q(0x7F800000, **h) == (M64 - 127, FLAG_NV)
    assert q(0x7F800000, sat=True, **h) == (127, FLAG_NV)
    assert q(0xFF800000, sat=True, dst="U8", **h) == (0, FLAG_NV)


def test_tquant_rejects_what_the_operation_rejects():
    with pytest.raises(ValueError, match="S8 or U8"):
        quantize([0], ONE, 0, "S16")
    with pytest.raises(ValueError, match="multiplier"):
        quantize([0], 0x7FC00000, 0, "S8")
    words, _ = quantize(np.array([[ONE, TWO]], dtype=np.uint32), ONE, 0, "U8", rounding="NONE")
    assert words.shape == (1, 2) and words.tolist() == [[1, 2]]


# ------------------------------------------------------------------ TMULS

@pytest.mark.parametrize("profile", ("pto-v0", "hw-ieee"))
@pytest.mark.parametrize("dtype, a, s, expected", [
    # integer products wrap at the element width after sign/zero extension (TMULS contract)
    ("S8", 0x7F, 2, M64 - 1), ("U8", 200, 2, 144), ("S16", 0xFFFF, 0xFFFF, 1), ("U64", 1 << 63, 2, 0),
    ("S32", 0x80000000, 0xFFFFFFFF, 0xFFFFFFFF80000000), ("U16", 0xFFFF, 0xFFFF, 1), ("S8", 0x80, 0x80, 0),
    ("S4X2", 0x7, 0x2, M64 - 1), ("U32", 0x10000, 0x10000, 0)])
def test_integer_multiply_wraps(profile, dtype, a, s, expected):
    words, flags = multiply([a], s, dtype, profile)
    assert (int(words[0]), int(flags[0])) == (expected, 0)


def test_hardware_multiply_covers_the_tmuls_float_types_only():
    with pytest.raises(ValueError, match="HiF8"):
        multiply([0x38], 0x38, "HiF8", "hw-ieee")
    assert multiply([0x38], 0x38, "HiF8", "pto-v0")[0].tolist() == [0x38 * 0x38]


def test_pto_v0_float_multiply_is_the_raw_integer_product():
    # ScalarFPBinaryProfile MUL = MultiplyWord on the encodings (low 64 bits, flags 0)
    a = [0x3F800000, 0x7FC00000, 0xFFFFFFFFFFFFFFFF]
    words, flags = multiply(a, 0x40000000, "FP32", "pto-v0")
    assert words.tolist() == [(x * 0x40000000) & M64 for x in a] and not flags.any()


@pytest.mark.parametrize("dtype, a, b, expected, flags", [
    ("FP32", 0x80000000, TWO, 0x80000000, 0),  # signed_zero fp32-negative-zero-multiply
    ("FP16", 0x3E00, 0x4000, 0x4200, 0),  # 1.5 * 2 = 3
    ("FP32", 0x7F7FFFFF, TWO, 0x7F800000, OF_NX),  # overflow, RNE -> infinity
    ("E4M3", 0x7E, 0x40, 0x7F, OF_NX),  # 448 * 2: E4M3 has no infinity -> 0x7F
    ("E5M2", 0x7B, 0x40, 0x7C, OF_NX),
    ("FP32", 0x7F800001, ONE, 0x7FC00000, FLAG_NV),  # sNaN -> canonical NaN, NV
    ("FP32", 0xFFC00001, ONE, 0x7FC00000, 0),  # qNaN -> canonical NaN, no flag
    ("BF16", 0x7F80, 0x0000, 0x7FC0, FLAG_NV),  # inf * 0
    ("FP16", 0xFC00, 0xC000, 0x7C00, 0),  # -inf * -2
    ("FP16", 0x0001, 0x3800, 0x0000, UF_NX),  # 2**-24 * 0.5: tie -> even 0
    ("FP16", 0x0003, 0x3800, 0x0002, UF_NX),  # 3 * 2**-25: tie between 1 and 2 quanta -> 2
    # FP64 needs the 106-bit product: (1+2**-52)**2 = 1 + 2**-51 + 2**-104 -> 1 + 2**-51
    ("FP64", 0x3FF0000000000001, 0x3FF0000000000001, 0x3FF0000000000002, FLAG_NX),
    # (1+2**-52)(1-2**-53) = 1 + 2**-53 - 2**-105: just below the midpoint -> 1.0
    ("FP64", 0x3FF0000000000001, 0x3FEFFFFFFFFFFFFF, 0x3FF0000000000000, FLAG_NX),
    ("TF32", 0x3FC00000, 0x3FC00000, 0x40100000, 0),  # 1.5 * 1.5 = 2.25
    ("HF32", 0x3F801000, 0x3F801000, 0x3F802000, FLAG_NX),  # (1+2**-11)**2 = 1+2**-10+2**-22
])
def test_hardware_multiply(dtype, a, b, expected, flags):
    words, fl = multiply([a], [b], dtype, "hw-ieee")
    assert (int(words[0]), int(fl[0])) == (expected, flags)


PEERS = {"FP64": (np.float64, np.uint64), "FP32": (np.float32, np.uint32), "FP16": (np.float16, np.uint16),
         "BF16": (md.bfloat16, np.uint16), "E4M3": (md.float8_e4m3fn, np.uint8), "E5M2": (md.float8_e5m2, np.uint8)}


@pytest.mark.parametrize("dtype", sorted(PEERS))
def test_hardware_multiply_matches_numpy(dtype):
    """numpy/ml_dtypes multiply as a peer on finite, non-NaN results. The narrow
    formats multiply in float32 (exact for their significands), then round once;
    results below float32's normal range would round twice there and are excluded,
    as are NaN results (canonical here, payload-preserving in numpy)."""
    mtype, container = PEERS[dtype]
    rng = np.random.default_rng(sum(map(ord, dtype)))
    width = np.dtype(container).itemsize * 8
    a = rng.integers(0, 1 << width, 100_000, dtype=np.uint64) if width < 64 else \
        rng.integers(0, np.iinfo(np.uint64).max, 100_000, dtype=np.uint64)
    b = rng.integers(0, 1 << width, 100_000, dtype=np.uint64) if width < 64 else \
        rng.integers(0, np.iinfo(np.uint64).max, 100_000, dtype=np.uint64)
    ours, _ = multiply(a, b, dtype, "hw-ieee")
    x, y = a.astype(container).view(mtype), b.astype(container).view(mtype)
    with np.errstate(all="ignore"):
        theirs = (x * y).view(container).astype(np.uint64)
        exact = x.astype(np.float64) * y.astype(np.float64)
        keep = ~np.isnan((x * y).astype(np.float64))
        if dtype not in ("FP64", "FP32"):
            keep &= (exact == 0) | (np.abs(exact) >= np.finfo(np.float32).tiny)
    mismatch = np.flatnonzero(keep & (ours != theirs))
    assert mismatch.size == 0, [(hex(int(a[i])), hex(int(b[i])), hex(int(ours[i])), hex(int(theirs[i])))
                                for i in mismatch[:5]]


# ------------------------------------------------------------------ TGEMV_MX_ACC step

def test_mx_e8m0_scale_vector():
    # matrix group, mx-e8m0-scale: base 1.5 with E8M0 0x80 -> 3.0 (E4M3 1.5 = 0x3C, 1.0 = 0x38)
    words, flags = scaled_fma_fp32([0], [0x3C], "E4M3", [0x80], [0x38], "E4M3", [0x7F])
    assert (int(words[0]), int(flags[0])) == (0x40400000, 0)


@pytest.mark.parametrize("prior, expected", [(0, 40.0), (f32(3.0), 43.0)])
def test_mx_k_block_33_vector(prior, expected):
    # matrix group, mx-k-block-33: E4M3 x E5M2, K=33, all-one inputs, scale_a [0x7F, 0x80],
    # scale_b [0x7F, 0x81]: 32 * 1 + 2**1 * 2**2 = 40 (43 with prior accumulator 3)
    acc = np.array([prior], dtype=np.uint64)
    for k in range(33):
        acc, flags = scaled_fma_fp32(acc, [0x38], "E4M3", [(0x7F, 0x80)[k // 32]],
                                     [0x3C], "E5M2", [(0x7F, 0x81)[k // 32]])
        assert int(flags[0]) == 0
    assert int(acc[0]) == f32(expected)


def test_matmul_vectors_with_unscaled_operands():
    # matrix group fp32-matmul-2x2 and fp32-matmul-acc, with FP16 (unscaled MX) operands:
    # [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]]; prior acc [10,20] + [19,22] = [29,42]
    fp16 = {v: int(np.float16(v).view(np.uint16)) for v in range(1, 9)}
    left, right = [[1, 2], [3, 4]], [[5, 6], [7, 8]]
    for prior, expected in (([0, 0], [19, 22]), ([10, 20], [29, 42])):
        acc = np.array([f32(p) for p in prior], dtype=np.uint64)
        for k in range(2):
            acc, _ = scaled_fma_fp32(acc, [fp16[left[0][k]]] * 2, "FP16", None,
                                     [fp16[right[k][0]], fp16[right[k][1]]], "FP16", None)
        assert acc.tolist() == [f32(e) for e in expected]


def test_fused_step_rounds_once():
    # 1.0 + (2**-9 * 2**-127) * (2**-9 * 2**-127): the product 2**-272 is far below FP32
    # but the fused sum is just inexact: 1.0 with NX only (a separate product would underflow)
    words, flags = scaled_fma_fp32([ONE], [0x01], "E4M3", [0x00], [0x01], "E4M3", [0x00])
    assert (int(words[0]), int(flags[0])) == (ONE, FLAG_NX)
    words, flags = scaled_fma_fp32([0], [0x01], "E4M3", [0x00], [0x01], "E4M3", [0x00])
    assert (int(words[0]), int(flags[0])) == (0, UF_NX)
    # 2**-149 + (2**-9 * 2**-127) * (2**-6 * 2**-8) = 2**-149 + 2**-150 = 1.5 quanta:
    # tie -> even 2 quanta (0x00000002), tiny and inexact
    words, flags = scaled_fma_fp32([0x00000001], [0x01], "E4M3", [0x00], [0x08], "E4M3", [0x77])
    assert (int(words[0]), int(flags[0])) == (0x00000002, UF_NX)
    # exact cancellation is +0 under RNE; -0 + -0 stays -0
    words, _ = scaled_fma_fp32([0xBF800000, 0x80000000], [0x3C00, 0x8000], "FP16", None, [0x3C00, 0x3C00], "FP16", None)
    assert words.tolist() == [0, 0x80000000]


def test_nan_scale_and_specials():
    # "A 0xFF scale makes the FP32 term and resulting ACC lane canonical NaN" (matrix.mx.scale_order)
    words, flags = scaled_fma_fp32([ONE, ONE], [0x38, 0x38], "E4M3", [0xFF, 0x7F], [0x38, 0x38], "E4M3",
                                   [0x7F, 0xFF])
    assert words.tolist() == [0x7FC00000, 0x7FC00000] and flags.tolist() == [0, 0]
    # inf * 0 and inf - inf are invalid; a quiet NaN accumulator stays quiet
    words, flags = scaled_fma_fp32([0, 0xFF800000, 0x7FC00000], [0x7C00, 0x7C00, 0x3C00], "FP16", None,
                                   [0x0000, 0x3C00, 0x3C00], "FP16", None)
    assert words.tolist() == [0x7FC00000] * 3 and flags.tolist() == [FLAG_NV, FLAG_NV, 0]
    # overflow to infinity under RNE
    words, flags = scaled_fma_fp32([0x7F7FFFFF], [0x3C00], "FP16", None, [0x3C00], "BF16", None)
    assert (int(words[0]), int(flags[0])) == (0x7F7FFFFF, FLAG_NX)
    words, flags = scaled_fma_fp32([0x7F7FFFFF], [0x7E], "E4M3", [0xFE], [0x7B], "E5M2", [0xFE])
    assert (int(words[0]), int(flags[0])) == (0x7F800000, OF_NX)
