"""B.FPATR matrix post-processing, bit-exact in both profiles.

Facts from asl/arch/profile/matrix-postprocess.asl, matrix-quantization.asl,
reference-quantization.asl (ReferenceFP32FiniteEncoding), asl/arch/data-types/fp19.asl,
asl/block/attributes/B.FPATR.asl and asl/tile/model/execution/postprocess.asl.

Every value is an exact ``(negative, sig, exp)`` triple (value = +-sig * 2**exp)
held in int64 numpy arrays; rounding is decided by integer shifts and
remainders, vectorized over the tile. The reference encoders detect tininess
before rounding (an inexact result below the smallest normal gets UF|NX even
if it rounds up to it), return +-Inf on overflow unless Sat (FP32/FP16/BF16),
and encode FP8 by a nearest search over the finite codes.

SPEC-CHOICE 13: the hardware profile's general rule detects tininess after rounding,
but its reference_model_relation declares the B.FPATR postprocess bit-exact in the
ASL, whose encoders detect it before rounding (digest §7.12); both profiles use
the ASL encoders here.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from .. import dtypes
from ..encoding.names import GROUP_N

I64 = np.int64
U64 = np.uint64
NV, OF, UF, NX = 0x01, 0x04, 0x08, 0x10

VECTOR_PARAMETER_MODES = frozenset({2, 4, 12, 18, 20, 23, 28, 33, 36, 37, 38, 39})
SCALAR_PARAMETER_MODES = frozenset({3, 5, 13, 17, 19, 24, 25, 26, 27, 32, 34, 35})
S32_ACCUMULATOR_MODES = frozenset({2, 3, 4, 5, 12, 13, 17, 18, 19, 20, 35, 39})
SHIFT_MODES = frozenset({12, 13})
FIXED_RNE_MODES = frozenset({1, 16, 26, 32, 33, 34, 36, 37})  # plus 25, 28 fixed to RHB
OFFSET_WIDTH = {17: 5, 18: 5, 2: 9, 3: 9, 23: 9, 24: 9, 19: 17, 20: 17}
OUTPUT_TYPE = {0: "FP32", 1: "FP16", 4: "FP16", 5: "FP16", 32: "FP16", 33: "FP16",
               2: "S8", 3: "S8", 23: "S8", 24: "S8", 12: "S16", 13: "S16", 19: "S16", 20: "S16",
               16: "BF16", 34: "BF16", 35: "BF16", 36: "BF16", 39: "BF16", 17: "S4X2", 18: "S4X2",
               25: "HiF8", 28: "HiF8", 26: "E4M3", 37: "E4M3", 27: "FP32", 38: "FP32"}
ROUNDING = ("RNE", "RNE", "RTZ", "RTM", "RTP", "RNA", "RTO", "RHB")  # B.DATR RMode; NONE -> RNE


def uses_vector_parameter(mode: int) -> bool:
    return mode in VECTOR_PARAMETER_MODES


def uses_scalar_parameter(mode: int) -> bool:
    return mode in SCALAR_PARAMETER_MODES


def accumulator_type_legal(mode: int, accumulator: str) -> bool:
    """BundleFPATRAccumulatorTypeLegal."""
    if mode == 0:
        return accumulator in ("FP32", "S32", "U32")
    return accumulator == ("S32" if mode in S32_ACCUMULATOR_MODES else "FP32")


def output_type(mode: int) -> str:
    return OUTPUT_TYPE[mode]


def group_n(code: int) -> int:
    return GROUP_N[code]


def effective_rounding(mode: int, rmode: int) -> str:
    """MatrixFPATREffectiveControl: modes 25/28 force RHB, fixed modes force RNE."""
    if mode in (25, 28):
        return "RHB"
    if mode in FIXED_RNE_MODES:
        return "RNE"
    return ROUNDING[rmode]


# ----------------------------------------------------------------------------
# FP19 parameter carrier and parameter-word legality (fp19.asl, B.FPATR.asl)

def fp19_fields(value):
    value = np.asarray(value, dtype=U64)
    return (value >> U64(18)) & U64(1), (value >> U64(10)) & U64(0xFF), value & U64(0x3FF)


def fp19_scale_legal(value) -> np.ndarray:
    """FP19ScaleLegal: positive normal."""
    sign, exponent, _ = fp19_fields(value)
    return (sign == 0) & (exponent != 0) & (exponent != 0xFF)


def fp19_activation_legal(value) -> np.ndarray:
    """FP19ActivationParameterLegal: +0 or positive normal."""
    sign, exponent, fraction = fp19_fields(value)
    return (sign == 0) & (((exponent == 0) & (fraction == 0)) | ((exponent != 0) & (exponent != 0xFF)))


def fp19_value(value):
    """Exact (negative, sig, exp) of a finite FP19 (1-8-10, bias 127, subnormal f*2**-136)."""
    sign, exponent, fraction = fp19_fields(value)
    e = exponent.astype(I64)
    f = fraction.astype(I64)
    sig = np.where(e == 0, f, f + 1024)
    exp = np.where(e == 0, -136, e - 137)
    return sign.astype(bool), sig, exp


def quant_parameter_legal(mode: int, words) -> np.ndarray:
    """BundleFPATRQuantParameterWordLegal."""
    w = np.asarray(words, dtype=U64)
    if mode in SHIFT_MODES:
        return ((w & U64(0xFFFFFFFF)) == 0) & ((w >> U64(36)) == 0)
    high_zero_from = {5: 42, 9: 46, 17: 54}.get(OFFSET_WIDTH.get(mode, 0), 32)
    legal = ((w & U64(0x1FFF)) == 0) & fp19_scale_legal((w >> U64(13)) & U64(0x7FFFF))
    if mode in OFFSET_WIDTH:
        legal &= ((w >> U64(32)) & U64(0x1F)) == 0
    if not (uses_scalar_parameter(mode) or uses_vector_parameter(mode)):
        return np.zeros(w.shape, dtype=bool)
    return legal & ((w >> U64(high_zero_from)) == 0)


def relu_parameter_legal(words) -> np.ndarray:
    """BundleFPATRReluParameterWordLegal: FP19 in bits 18:0, +0 or positive normal."""
    w = np.asarray(words, dtype=U64)
    return ((w >> U64(19)) == 0) & fp19_activation_legal(w & U64(0x7FFFF))


def fp32_to_fp19(word: int) -> int:
    """FP32ToFP19: RNE on the 13 dropped bits; any NaN -> 0x3FF00 (0b0111111111100000000)."""
    exponent, fraction = (word >> 23) & 0xFF, word & 0x7FFFFF
    if exponent == 0xFF and fraction:
        return 0x3FF00
    head, dropped = (word & 0x7FFFFFFF) >> 13, word & 0x1FFF
    if dropped > 0x1000 or (dropped == 0x1000 and head & 1):
        head += 1
        if head & 0x3FF == 0 and (head >> 10) > 0xFF:  # exponent saturates at 255
            head = 0xFF << 10
    return (((word >> 31) & 1) << 18) | head


# ----------------------------------------------------------------------------
# Exact rounding helpers

def bit_length(values: np.ndarray) -> np.ndarray:
    """Bit length of non-negative int64 values (0 for 0)."""
    values = np.asarray(values, dtype=I64)
    out = np.zeros(values.shape, dtype=I64)
    work = values.copy()
    for step in (32, 16, 8, 4, 2, 1):
        big = work >= (I64(1) << I64(step))
        out += np.where(big, step, 0)
        work = np.where(big, work >> I64(step), work)
    return out + (work > 0)


def round_scaled(sig, shift, negative, mode: str):
    """Round the magnitude sig * 2**shift (sig >= 0, below 2**62) to an integer
    under ``mode`` applied to the signed value. Returns (magnitude, exact)."""
    sig = np.asarray(sig, dtype=I64)
    shift = np.asarray(shift, dtype=I64)
    left = np.clip(shift, 0, 62)
    right = np.clip(-shift, 0, 63)
    q0 = np.where(shift >= 0, sig << left, sig >> np.minimum(right, 62))
    q0 = np.where(right >= 63, 0, q0)
    rem = np.where(shift >= 0, 0, sig - (q0 << np.minimum(right, 62)))
    rem = np.where(right >= 63, sig, rem)
    half = np.where(right >= 63, I64(1) << I64(62), np.where(right > 0, I64(1) << np.maximum(right - 1, 0), 0))
    inexact = rem != 0
    above = rem > half
    tie = (rem == half) & inexact & (right < 63)
    odd = (q0 & 1) == 1
    if mode == "RNE":
        up = above | (tie & odd)
    elif mode == "RNA":
        up = above | tie
    elif mode == "RHB":  # ties to the numerically greater value
        up = above | (tie & ~negative)
    elif mode == "RTZ":
        up = np.zeros(sig.shape, dtype=bool)
    elif mode == "RTP":
        up = inexact & ~negative
    elif mode == "RTM":
        up = inexact & negative
    elif mode == "RTO":
        up = inexact & ~odd
    else:
        raise ValueError(mode)
    return q0 + up, ~inexact


def _product(neg_a, sig_a, exp_a, neg_b, sig_b, exp_b):
    return neg_a ^ neg_b, sig_a * sig_b, exp_a + exp_b


def exact_integer_parts(sig, exp, negative, mode: str, width_limit: int = 62):
    """FloatingToInteger of +-sig*2**exp: (signed value where it fits in int64,
    huge mask where |value| >= 2**width_limit, low 64 bits, exact)."""
    top = bit_length(sig) + exp
    huge = (sig != 0) & (top > width_limit)
    magnitude, exact = round_scaled(np.where(huge, 0, sig), np.where(huge, 0, exp), negative, mode)
    signed = np.where(negative, -magnitude, magnitude)
    exact = np.where(huge, True, exact)
    # Low 64 bits of a huge exact integer sig << exp (zero once exp >= 64).
    low = np.where(exp >= 64, U64(0), sig.astype(U64) << np.clip(exp, 0, 63).astype(U64))
    low = np.where(negative, (~low) + U64(1), low)
    low = np.where(huge, low, signed.astype(U64))
    return signed, huge, low, exact


# ----------------------------------------------------------------------------
# Destination encoders

def integer_encoding(sig, exp, negative, dtype, mode: str, saturate: bool):
    """ReferenceMatrixIntegerEncoding: round, then clamp (Sat) or wrap; OF|NX on
    overflow, NX when inexact."""
    lo, hi = dtype.int_min, dtype.int_max
    signed, huge, low, exact = exact_integer_parts(sig, exp, negative, mode)
    overflow = huge | (signed < lo) | (signed > hi)
    if saturate:
        below = np.where(huge, negative, signed < lo)
        low = np.where(overflow, np.where(below, U64(lo & 0xFFFFFFFFFFFFFFFF), U64(hi)), low)
    flags = np.where(overflow, OF | NX, np.where(exact, 0, NX))
    return _normalize(low, dtype), flags


def _normalize(words, dtype):
    if dtype.bits == 64:
        return words
    low = words & U64(dtype.mask)
    if dtype.signed:
        sign = U64(1 << (dtype.bits - 1))
        return (low ^ sign) - sign
    return low


BINARY = {"FP32": (23, 127, 0x7F800000, 0x7F7FFFFF, 0x80000000),
          "FP16": (10, 15, 0x7C00, 0x7BFF, 0x8000),
          "BF16": (7, 127, 0x7F80, 0x7F7F, 0x8000)}


def binary_encoding(sig, exp, negative, name: str, mode: str, saturate: bool):
    """ReferenceFP32FiniteEncoding / ReferenceBinary16Encoding (value != 0 lanes;
    zero lanes give +0)."""
    frac_bits, bias, infinity, largest, sign_bit = BINARY[name]
    zero = sig == 0
    e = bit_length(sig) - 1 + exp  # floor(log2 |v|)
    emin, emax = 1 - bias, bias
    subnormal = e < emin
    shift = np.where(subnormal, exp - (emin - frac_bits), frac_bits - (bit_length(sig) - 1))
    magnitude, exact = round_scaled(sig, shift, negative, mode)
    carry = ~subnormal & (magnitude == (1 << (frac_bits + 1)))
    biased = np.where(subnormal, 0, e + bias + carry)
    magnitude = np.where(carry, 1 << frac_bits, magnitude)
    fraction = np.where(subnormal, magnitude, magnitude - (1 << frac_bits))
    # a subnormal that rounds up to 2**frac_bits encodes the smallest normal
    body = (biased.astype(U64) << U64(frac_bits)) + fraction.astype(U64)
    overflow = (e > emax) | (biased >= 2 * bias + 1)
    body = np.where(overflow, U64(largest if saturate else infinity), body)
    words = np.where(negative, body | U64(sign_bit), body)
    flags = np.where(overflow, OF | NX, np.where(exact, 0, np.where(subnormal, UF | NX, NX)))
    return np.where(zero, U64(0), words), np.where(zero, 0, flags)


@lru_cache(maxsize=None)
def _fp8_table(name: str):
    """Finite non-negative FP8 magnitudes in units of 2**-24, sorted, with codes,
    plus for each entry the index of the nearest larger magnitude with an odd code."""
    codes, values = [], []
    for code in range(0x80):
        if name == "E4M3":
            if code == 0x7F:
                continue  # NaN
            e, m = code >> 3, code & 7
            units = m << 15 if e == 0 else (8 + m) << (e + 14)  # 2**-9*m and (1+m/8)*2**(e-7)
        else:  # HiF8 tapered body
            if code == 0x6F:
                continue  # +Inf
            units = _hif8_units(code)
        codes.append(code)
        values.append(units)
    order = np.argsort(values, kind="stable")
    values = np.asarray(values, dtype=I64)[order]
    codes = np.asarray(codes, dtype=I64)[order]
    assert len(set(values.tolist())) == len(values)  # magnitudes are distinct
    next_odd = np.full(len(values), -1, dtype=I64)
    following = -1
    for i in range(len(values) - 1, -1, -1):
        next_odd[i] = following
        if codes[i] & 1:
            following = i
    return values, codes, next_odd


def _hif8_units(code: int) -> int:
    """HiF8 body magnitude in units of 2**-24 (ReferenceFP8FiniteValue)."""
    body = code & 0x7F
    if body == 0:
        return 0
    if body <= 7:
        return 1 << (body - 23 + 24)
    if body <= 15:
        return (8 + body - 8) << (24 - 3)
    if body <= 31:
        exponent = 1 if not (code >> 3) & 1 else -1
        mantissa, bits = 8 + (code & 7), 3
    elif body <= 63:
        absolute = 2 + ((code >> 3) & 1)
        exponent = absolute if ((code >> 3) & 3) < 2 else -absolute
        mantissa, bits = 8 + (code & 7), 3
    elif body <= 95:
        absolute = 4 + ((code >> 2) & 3)
        exponent = absolute if ((code >> 2) & 7) < 4 else -absolute
        mantissa, bits = 4 + (code & 3), 2
    else:
        absolute = 8 + ((code >> 1) & 7)
        exponent = absolute if ((code >> 1) & 15) < 8 else -absolute
        mantissa, bits = 2 + (code & 1), 1
    return mantissa << (exponent + 24 - bits)


FP8 = {"E4M3": (448 << 24, 0x7E, 0x7F, 0x7F, -6), "HiF8": (32768 << 24, 0x6E, 0x6F, 0xEF, -15)}


def fp8_encoding(sig, exp, negative, name: str, mode: str, saturate: bool):
    """ReferenceFP8Encoding: the finite code nearest to the value under ``mode``,
    ties broken as the spec's search over codes 0..255 breaks them."""
    limit, largest, pos_overflow, neg_overflow, min_normal_exp = FP8[name]
    values, codes, next_odd = _fp8_table(name)
    zero = sig == 0
    # key: the magnitude in units of 2**-27 rounded to an odd number when it is
    # not a multiple of 2**-26; table magnitudes (units of 2**-24) become 8*C.
    shift = exp + 26
    too_big = ~zero & (bit_length(sig) + shift > 58)
    right = np.clip(-shift, 0, 63)
    whole = np.where(shift >= 0, sig << np.clip(shift, 0, 62), sig >> np.minimum(right, 62))
    whole = np.where(right >= 63, 0, whole)
    rest = np.where(shift >= 0, 0, sig - (whole << np.minimum(right, 62)))
    rest = np.where(right >= 63, sig, rest)
    key = np.where(too_big, I64(1) << I64(60), 2 * whole + (rest != 0))
    overflow = key > 8 * limit
    table = 8 * values
    hi = np.clip(np.searchsorted(table, key, side="left"), 0, len(table) - 1)
    exact = table[hi] == key
    lo = np.where(exact, hi, np.maximum(hi - 1, 0))
    if mode == "RTZ":
        pick = lo
    elif mode == "RTP":
        pick = np.where(negative, lo, hi)
    elif mode == "RTM":
        pick = np.where(negative, hi, lo)
    elif mode == "RTO":  # truncate, then step away to the nearest odd code if even
        pick = np.where(((codes[lo] & 1) == 0) & (next_odd[lo] >= 0), next_odd[lo], lo)
    else:
        middle = 4 * (values[lo] + values[hi])
        tie = key == middle
        lo_code = np.where(negative & (codes[lo] != 0), codes[lo] | 0x80, codes[lo])
        hi_code = np.where(negative, codes[hi] | 0x80, codes[hi])
        if mode == "RNE":  # the later-visited code wins only if it is even and the first odd
            first_lo = lo_code < hi_code
            first, later = np.where(first_lo, lo_code, hi_code), np.where(first_lo, hi_code, lo_code)
            later_wins = ((later & 1) == 0) & ((first & 1) == 1)
            tie_hi = np.where(first_lo, later_wins, ~later_wins)
        elif mode == "RNA":  # the larger magnitude
            tie_hi = np.ones(np.shape(sig), dtype=bool)
        else:  # RHB: the numerically greater value
            tie_hi = ~negative
        pick = np.where((key > middle) | (tie & tie_hi), hi, lo)
    pick = np.where(exact, hi, pick)
    code = np.where(codes[pick] == 0, 0, np.where(negative, codes[pick] | 0x80, codes[pick]))
    tiny = key < 8 * (I64(1) << I64(24 + min_normal_exp))
    flags = np.where(exact, 0, np.where(tiny, UF | NX, NX))
    over_code = (np.where(negative, largest | 0x80, largest) if saturate
                 else np.where(negative, neg_overflow, pos_overflow))
    code = np.where(overflow, over_code, code)
    flags = np.where(overflow, OF | NX, flags)
    return np.where(zero, 0, code).astype(U64), np.where(zero, 0, flags)


def encode_real(sig, exp, negative, name: str, mode: str, saturate: bool):
    """MatrixEncodeReal."""
    dtype = dtypes.dtype(name)
    if dtype.is_integer:
        return integer_encoding(sig, exp, negative, dtype, mode, saturate)
    if name in BINARY:
        return binary_encoding(sig, exp, negative, name, mode, saturate)
    return fp8_encoding(sig, exp, negative, name, mode, saturate)


# ----------------------------------------------------------------------------
# The element transform (TileProfileMatrixPostProcessWithFlags)

CANONICAL_NAN = {"FP32": 0x7FC00000, "FP16": 0x7E00, "BF16": 0x7FC0, "HiF8": 0x80, "E4M3": 0x7F}
INFINITY = {"FP32": (0x7F800000, 0xFF800000), "FP16": (0x7C00, 0xFC00), "BF16": (0x7F80, 0xFF80),
            "HiF8": (0x6F, 0xEF), "E4M3": (0x7F, 0x7F)}  # E4M3 has no infinity: canonical NaN
LARGEST = {"FP32": (0x7F7FFFFF, 0xFF7FFFFF), "FP16": (0x7BFF, 0xFBFF), "BF16": (0x7F7F, 0xFF7F),
           "HiF8": (0x6E, 0xEE), "E4M3": (0x7E, 0xFE)}
NEGATIVE_ZERO = {"FP32": 0x80000000, "FP16": 0x8000, "BF16": 0x8000, "HiF8": 0, "E4M3": 0x80}


def fp32_fields(words):
    """(negative sign bit, nan, signalling nan, infinity, zero, sig, exp) of the low 32 bits."""
    w = np.asarray(words, dtype=U64)
    sign = ((w >> U64(31)) & U64(1)).astype(bool)
    exponent = ((w >> U64(23)) & U64(0xFF)).astype(I64)
    fraction = (w & U64(0x7FFFFF)).astype(I64)
    nan = (exponent == 0xFF) & (fraction != 0)
    snan = nan & ((fraction >> 22) == 0)
    infinite = (exponent == 0xFF) & (fraction == 0)
    zero = (exponent == 0) & (fraction == 0)
    sig = np.where(exponent == 0, fraction, fraction | (1 << 23))
    exp = np.where(exponent == 0, -149, exponent - 150)
    return sign, nan, snan, infinite, zero, sig, exp


def _signed_word(value: int) -> U64:
    return U64(value & 0xFFFFFFFFFFFFFFFF)


def postprocess(words, mode: int, relu: int, out_name: str, quant_param, relu_param, rmode: int,
                saturate: bool, source: str = "FP32"):
    """Transform accumulator Words (``source``: FP32, S32 or U32 intermediate) for
    PreQuantMode ``mode`` and ReluMode ``relu`` into ``out_name`` Words. Parameters
    broadcast against ``words``; ``rmode`` is the B.DATR RMode code. Returns
    (words uint64, flags per element)."""
    words = np.asarray(words, dtype=U64)
    shape = words.shape
    if mode == 0 and relu == 0:
        return words.copy(), np.zeros(shape, dtype=I64)
    rounding = effective_rounding(mode, rmode)
    qp = np.broadcast_to(np.asarray(quant_param, dtype=U64), shape)
    rp = np.broadcast_to(np.asarray(relu_param, dtype=U64), shape)
    low32 = (words & U64(0xFFFFFFFF)).astype(I64)
    if mode in SHIFT_MODES:  # MatrixShiftS32ToS16: ASR by code+1, saturate to S16
        # SPEC-CHOICE 93: the profile's integer_sat_disabled wraps a finite overflow modulo the
        # destination width, and a shift mode may not set Sat; the ASL clamps to S16 with OF|NX.
        s32 = np.where(low32 >= 1 << 31, low32 - (1 << 32), low32)
        shifted = s32 >> (((qp >> U64(32)) & U64(0xF)).astype(I64) + 1)
        clipped = np.clip(shifted, -32768, 32767)
        return clipped.astype(U64), np.where(clipped != shifted, OF | NX, 0)
    if mode != 0 and mode in S32_ACCUMULATOR_MODES:
        source = "S32"
    out = dtypes.dtype(out_name)

    if source == "FP32":
        sign, nan, snan, infinite, zero, a_sig, a_exp = fp32_fields(words)
        negative = sign & ~nan
        special = nan | infinite
        a_sig = np.where(special, 0, a_sig)
    else:
        value = np.where(low32 >= 1 << 31, low32 - (1 << 32), low32) if source == "S32" else low32
        negative = value < 0
        nan = infinite = snan = special = zero = np.zeros(shape, dtype=bool)
        a_sig, a_exp = np.abs(value), np.zeros(shape, dtype=I64)
        sign = negative

    if uses_scalar_parameter(mode) or uses_vector_parameter(mode):
        s_neg, s_sig, s_exp = fp19_value((qp >> U64(13)) & U64(0x7FFFF))
    else:
        s_neg, s_sig, s_exp = np.zeros(shape, bool), np.ones(shape, I64), np.zeros(shape, I64)
    r_neg, r_sig, r_exp = fp19_value(rp & U64(0x7FFFF))
    use_relu = negative & (relu != 0)
    m_neg = np.where(use_relu, r_neg if relu in (2, 3) else False, s_neg)
    m_sig = np.where(use_relu, r_sig if relu in (2, 3) else 0, s_sig)
    m_exp = np.where(use_relu, r_exp if relu in (2, 3) else 0, s_exp)
    multiplier_zero = m_sig == 0

    width = OFFSET_WIDTH.get(mode, 0)
    if width:
        field = ((qp >> U64(37)) & U64((1 << width) - 1)).astype(I64)
        offset = np.where(field >= 1 << (width - 1), field - (1 << width), field)
    else:
        offset = np.zeros(shape, dtype=I64)

    v_neg, v_sig, v_exp = _product(negative, a_sig, a_exp, m_neg, m_sig, m_exp)
    if width:
        result, flags = _quantized_affine(v_sig, v_exp, v_neg, offset, width, out, rounding, saturate)
    else:
        result, flags = encode_real(v_sig, v_exp, v_neg, out_name, rounding, saturate)

    if out.is_float:
        negative_zero = zero & sign & ~multiplier_zero & (offset == 0)
        result = np.where(negative_zero, U64(NEGATIVE_ZERO[out_name]), result)
        flags = np.where(negative_zero, 0, flags)
    if source == "FP32":
        use_special = special & ~(infinite & sign & multiplier_zero)
        special_words, special_flags = _special(nan, snan, sign, out, saturate)
        result = np.where(use_special, special_words, result)
        flags = np.where(use_special, special_flags, flags)
    return result.astype(U64), flags.astype(I64)


def _quantized_affine(sig, exp, negative, offset, width: int, out, rounding: str, saturate: bool):
    """MatrixQuantizedAffine: round and saturate to the S<width> intermediate,
    add the offset, then encode to the integer output."""
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    signed, huge, _, exact = exact_integer_parts(sig, exp, negative, rounding)
    over = huge | (signed < lo) | (signed > hi)
    intermediate = np.where(over, np.where(np.where(huge, negative, signed < lo), lo, hi), signed)
    first_flags = np.where(over, OF | NX, np.where(exact, 0, NX))
    total = intermediate + offset
    words, final_flags = integer_encoding(np.abs(total), np.zeros_like(total), total < 0, out, rounding,
                                          saturate)
    return words, first_flags | final_flags


def _special(nan, snan, sign, out, saturate: bool):
    """MatrixPostQuantSpecialValue for NaN and infinity sources."""
    shape = nan.shape
    if out.is_integer:
        minimum, maximum = _signed_word(out.int_min), _signed_word(out.int_max)
        minimum = _normalize(np.full(shape, minimum), out)
        maximum = _normalize(np.full(shape, maximum), out)
        if saturate:
            words = np.where(nan, U64(0), np.where(sign, minimum, maximum))
            flags = np.where(nan, NV, OF | NX)
        else:
            words, flags = minimum, np.full(shape, NV)
        return words, flags
    invalid = np.where(snan, NV, 0)
    if saturate:
        positive, negative = LARGEST[out.name]
        words = np.where(nan, U64(0), np.where(sign, U64(negative), U64(positive)))
        flags = np.where(nan, invalid, OF | NX)
    else:
        positive, negative = INFINITY[out.name]
        words = np.where(nan, U64(CANONICAL_NAN[out.name]),
                         np.where(sign, U64(negative), U64(positive)))
        flags = np.where(nan, invalid, OF | NX if out.name == "E4M3" else 0)
    return words, flags


# ----------------------------------------------------------------------------
# RowMax / GroupMax reductions (TileReductionStep MAX on the accumulator type, raw accumulator Words)

def _order_key(low32):
    return np.where(low32 >> 31, (~low32) & 0xFFFFFFFF, low32 ^ 0x80000000)


def _integer_words(words, data_type: str):
    """NormalizeTileInteger of S32/U32 accumulator Words (sign- or zero-extended low 32 bits)."""
    low = np.asarray(words, dtype=U64) & U64(0xFFFFFFFF)
    return (low ^ U64(1 << 31)) - U64(1 << 31) if data_type == "S32" else low


def max_step(left, right, data_type: str = "FP32"):
    """TileProfileMatrixReductionStep MAX of ``data_type`` (the accumulator type): FP32
    below; S32/U32 (TileIntegerMinMaxValue) the normalized larger value, the left one on
    equality, no flag."""
    if data_type == "FP32":
        return _float_max_step(left, right)
    lhs, rhs = _integer_words(left, data_type), _integer_words(right, data_type)
    key = (lambda w: w.view(I64)) if data_type == "S32" else (lambda w: w)
    return np.where(key(lhs) >= key(rhs), lhs, rhs), np.zeros(np.shape(lhs), dtype=I64)


def absolute_with_flags(words, data_type: str = "FP32"):
    """MatrixReductionAbsoluteWithFlags: FP32 clears the sign; U32 is its low 32 bits; S32
    negates a negative value, and -2**31 gives 0x7FFFFFFF with OF."""
    if data_type == "FP32":
        return absolute(words), np.zeros(np.shape(words), dtype=I64)
    value = _integer_words(words, data_type)
    if data_type == "U32":
        return value, np.zeros(value.shape, dtype=I64)
    negative = (value >> U64(63)) != 0
    most_negative = value == U64(0xFFFFFFFF80000000)
    magnitude = np.where(negative, U64(0) - value, value)
    return (np.where(most_negative, U64(0x7FFFFFFF), magnitude),
            np.where(most_negative, OF, 0).astype(I64))


def _float_max_step(left, right):
    """HardwareNumericFloatingMinMax(maximum) on FP32 Words: one NaN selects the
    other operand, two NaNs give the canonical NaN, +0/-0 ties give 0 (two -0
    keep the left), otherwise the larger value (left on equality). NV when a
    NaN operand signals."""
    left, right = np.asarray(left, dtype=U64), np.asarray(right, dtype=U64)
    l_sign, l_nan, l_snan, _, l_zero, _, _ = fp32_fields(left)
    r_sign, r_nan, r_snan, _, r_zero, _, _ = fp32_fields(right)
    l_key = _order_key((left & U64(0xFFFFFFFF)).astype(I64))
    r_key = _order_key((right & U64(0xFFFFFFFF)).astype(I64))
    result = np.where(l_key >= r_key, left, right)
    both_zero = l_zero & r_zero
    result = np.where(both_zero, np.where(l_sign & r_sign, left, U64(0)), result)
    result = np.where(l_nan & r_nan, U64(0x7FC00000),
                      np.where(l_nan, right, np.where(r_nan, left, result)))
    flags = np.where((l_nan | r_nan) & (l_snan | r_snan), NV, 0)
    return result, flags


def absolute(words):
    """TileFixedUnaryValue(ABS, FP32): the low 32 bits without the sign."""
    return np.asarray(words, dtype=U64) & U64(0x7FFFFFFF)


def fold_max(words, present, max_abs: bool, data_type: str = "FP32"):
    """Reduce the last axis of ``words`` (only where ``present``) with ``max_step``
    of ``data_type`` in index order; with MaxAbs every operand is made absolute and
    the first element is first folded with itself (MatrixRowMaxResult/GroupMaxResult).
    Adjacent pairs are combined left to right, which gives the sequential result
    because the step keeps the left operand on ties and skips NaNs either way (an
    integer step normalizes its result, and a lone element is never stepped in
    either order)."""
    words = np.asarray(words, dtype=U64)
    flags = np.zeros(words.shape[:-1], dtype=I64)
    if max_abs:
        words, abs_flags = absolute_with_flags(words, data_type)
        flags |= np.bitwise_or.reduce(np.where(present, abs_flags, 0), axis=-1)
        first, first_flags = max_step(words[..., 0], words[..., 0], data_type)
        words = words.copy()
        words[..., 0] = first
        flags |= first_flags
    present = np.asarray(present, dtype=bool)
    while words.shape[-1] > 1:
        if words.shape[-1] % 2:
            words = np.concatenate([words, np.zeros(words.shape[:-1] + (1,), dtype=U64)], axis=-1)
            present = np.concatenate([present, np.zeros(present.shape[:-1] + (1,), dtype=bool)], axis=-1)
        left, right = words[..., 0::2], words[..., 1::2]
        pl, pr = present[..., 0::2], present[..., 1::2]
        combined, step_flags = max_step(left, right, data_type)
        both = pl & pr
        words = np.where(both, combined, np.where(pl, left, right))
        present = pl | pr
        flags |= np.bitwise_or.reduce(np.where(both, step_flags, 0), axis=-1)
    return words[..., 0], flags
