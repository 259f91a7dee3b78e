"""Independent exact reference for B.FPATR post-processing of an FP32, S32 or U32 accumulator.

Transcribed from the executable ASL of PTO ISA 0.58.3 with exact ``Fraction``s, sharing
no code with ``device_model/`` (line numbers at e599a3d3):

- ``asl/arch/profile/matrix-postprocess.asl``: MatrixPostQuantBaseWithFlags (170-252),
  MatrixFPATREffectiveControl (166-178: modes 25/28 RHB, other fixed modes RNE),
  MatrixPostQuantSpecialValue (82-134), MatrixSelectedMultiplier (145-155), the signed
  zero, infinity and largest-finite tables (11-70);
- ``asl/arch/profile/matrix-quantization.asl``: MatrixQuantOffset (32-41),
  MatrixRoundMagnitude (53-66), MatrixRoundAndSaturateSigned (68-91),
  ReferenceMatrixIntegerEncoding (108-131), MatrixQuantizedAffine (133-150),
  ReferenceBinary16Encoding (152-233), ReferenceFP8FiniteValue (263-317),
  ReferenceFP8Encoding (319-452), ReferenceMatrixFloatingEncoding (454-472);
- ``asl/arch/profile/reference-quantization.asl``: ReferenceFP32FiniteEncoding (42-103);
- ``asl/scalar/model/fsu/arithmetic.asl``: FloatingToInteger (67-96), the B.DATR RMode
  decode (108-124; RMode NONE gives RNE, numeric-control.asl 2-19);
- ``asl/arch/data-types/fp19.asl``: FP19FiniteValue;
- ``asl/block/attributes/B.FPATR.asl``: the mode tables (parameter use, accumulator
  class, offset width, fixed rounding, output type).

The post-processing is bit-exact in both numeric profiles (the hardware profile's
reference_model_relation), so these results hold under pto-v0 and hw-ieee. The encoders
detect tininess before rounding (UF on an inexact value below the smallest normal) and
overflow on the exponent of the exact value; that is the ASL, not IEEE.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from . import numeric as ref

NV, OF, UF, NX = ref.NV, ref.OF, ref.UF, ref.NX

# B.FPATR.asl: the nonzero PreQuantModes of an FP32 accumulator (BundleFPATRModeUsesFP32Accumulator).
FP32_MODES = (1, 16, 23, 24, 25, 26, 27, 28, 32, 33, 34, 36, 37, 38)
SCALAR_MODES = frozenset({24, 25, 26, 27, 32, 34})  # of those, BundleFPATRModeUsesScalarParameter
VECTOR_MODES = frozenset({23, 28, 33, 36, 37, 38})  # BundleFPATRModeUsesVectorParameter
FIXED_ROUNDING = frozenset({1, 16, 25, 26, 28, 32, 33, 34, 36, 37})  # BundleFPATRModeFixedRounding
OFFSET_WIDTH = {23: 9, 24: 9}  # BundleFPATRModeOffsetWidth
OUTPUT_TYPE = {0: "FP32", 1: "FP16", 16: "BF16", 23: "S8", 24: "S8", 25: "HiF8", 26: "E4M3",
               27: "FP32", 28: "HiF8", 32: "FP16", 33: "FP16", 34: "BF16", 36: "BF16",
               37: "E4M3", 38: "FP32"}  # BundleFPATROutputType
# B.FPATR.asl: the PreQuantModes of an S32 accumulator (BundleFPATRModeUsesS32Accumulator), their
# parameter use, offset widths and output types; 12/13 shift (BundleFPATRModeIsShift). None of them
# has a fixed rounding: B.DATR RMode applies.
S32_MODES = (2, 3, 4, 5, 12, 13, 17, 18, 19, 20, 35, 39)
SHIFT_MODES = frozenset({12, 13})
SCALAR_MODES = SCALAR_MODES | {3, 5, 13, 17, 19, 35}
VECTOR_MODES = VECTOR_MODES | {2, 4, 12, 18, 20, 39}
OFFSET_WIDTH = {**OFFSET_WIDTH, 17: 5, 18: 5, 2: 9, 3: 9, 19: 17, 20: 17}
OUTPUT_TYPE = {**OUTPUT_TYPE, 2: "S8", 3: "S8", 4: "FP16", 5: "FP16", 12: "S16", 13: "S16", 17: "S4X2",
               18: "S4X2", 19: "S16", 20: "S16", 35: "BF16", 39: "BF16"}
RELU_MODES = (0, 1, 2, 3)  # None, ReLU, scalar LReLU, vector PReLU
RMODES = ("NONE", "RNE", "RTZ", "RTM", "RTP", "RNA", "RTO", "RHB")  # B.DATR RMode codes 0..7

SIGNED_ZERO = {"FP32": 0x80000000, "FP16": 0x8000, "BF16": 0x8000, "E4M3": 0x80, "HiF8": 0}
INFINITY = {"FP32": (0x7F800000, 0xFF800000), "FP16": (0x7C00, 0xFC00), "BF16": (0x7F80, 0xFF80),
            "HiF8": (0x6F, 0xEF)}
LARGEST = {"FP32": (0x7F7FFFFF, 0xFF7FFFFF), "FP16": (0x7BFF, 0xFBFF), "BF16": (0x7F7F, 0xFF7F),
           "E4M3": (0x7E, 0xFE), "HiF8": (0x6E, 0xEE)}
WORD = (1 << 64) - 1


@dataclass(frozen=True)
class Config:
    """One post-processing configuration: B.FPATR modes, B.DATR RMode/Sat, parameters.

    ``quant`` and ``relu_param`` hold one Word per column (a scalar parameter repeats).
    """

    mode: int
    relu: int
    rmode: str = "NONE"
    sat: bool = False
    quant: tuple = ()
    relu_param: tuple = ()

    @property
    def output(self) -> str:
        return OUTPUT_TYPE[self.mode]

    @property
    def rounding(self) -> str:
        """MatrixFPATREffectiveControl over the B.DATR decode."""
        if self.mode in (25, 28):
            return "RHB"
        if self.mode in FIXED_ROUNDING or self.rmode == "NONE":
            return "RNE"
        return self.rmode


# --------------------------------------------------------------------------------------
# Parameters


def fp19_value(bits: int) -> Fraction:
    """FP19FiniteValue: 1 sign, 8 exponent (bias 127), 10 fraction bits; subnormal f * 2^-136."""
    exponent, fraction = (bits >> 10) & 0xFF, bits & 0x3FF
    assert exponent != 0xFF
    if exponent == 0:
        magnitude = fraction * ref.pow2(-136)
    else:
        magnitude = (1 + Fraction(fraction, 1024)) * ref.pow2(exponent - 127)
    return -magnitude if bits >> 18 & 1 else magnitude


def quant_word(scale_fp32: int, offset: int = 0, width: int = 0) -> int:
    """MatrixQuantParameter: the FP19 scale in bits 31:13 (an FP32 whose low 13 bits are
    zero carries it as is) and a signed offset in bits 37+width-1:37."""
    assert scale_fp32 & 0x1FFF == 0 and scale_fp32 >> 32 == 0
    return scale_fp32 | ((offset & ((1 << width) - 1)) << 37 if width else 0)


def relu_word(alpha_fp32: int) -> int:
    """An LReLU/PReLU parameter: FP19 in bits 18:0 (FP32 bits 31:13)."""
    assert alpha_fp32 & 0x1FFF == 0 and alpha_fp32 >> 32 == 0
    return alpha_fp32 >> 13


def quant_offset(word: int, width: int) -> int:
    """MatrixQuantOffset: signed bits 37+width-1:37."""
    if not width:
        return 0
    field = (word >> 37) & ((1 << width) - 1)
    return field - (1 << width) if field >> (width - 1) else field


# --------------------------------------------------------------------------------------
# Rounding (FloatingToInteger and the magnitude variant)


def floating_to_integer(x: Fraction, mode: str) -> int:
    lower = x.numerator // x.denominator
    fraction = x - lower
    if mode == "RNE":
        if fraction != Fraction(1, 2):
            return lower if fraction < Fraction(1, 2) else lower + 1
        return lower if lower % 2 == 0 else lower + 1
    if mode == "RTP":
        return lower if fraction == 0 else lower + 1
    if mode == "RTM":
        return lower
    if mode == "RTZ":
        return lower if x >= 0 or fraction == 0 else lower + 1
    if mode == "RNA":
        if fraction != Fraction(1, 2):
            return lower if fraction < Fraction(1, 2) else lower + 1
        return lower if x < 0 else lower + 1
    if mode == "RTO":
        return lower if fraction == 0 or lower % 2 else lower + 1
    if mode == "RHB":
        return lower if fraction < Fraction(1, 2) else lower + 1
    raise ValueError(mode)


def round_magnitude(value: Fraction, mode: str, negative: bool) -> int:
    """MatrixRoundMagnitude: a magnitude rounded as the signed value would be."""
    if negative and mode == "RHB":
        lower = value.numerator // value.denominator
        return lower if value - lower <= Fraction(1, 2) else lower + 1
    if negative and mode in ("RTP", "RTM"):
        mode = "RTM" if mode == "RTP" else "RTP"
    return floating_to_integer(value, mode)


def _normalize(value: Fraction, low: int, high: int) -> tuple[Fraction, int]:
    """The ASL's doubling/halving loops: (normalized magnitude, exponent) with the
    exponent held within [low, high]."""
    magnitude, exponent = abs(value), 0
    while magnitude >= 2 and exponent < high:
        magnitude, exponent = magnitude / 2, exponent + 1
    while magnitude < 1 and exponent > low:
        magnitude, exponent = magnitude * 2, exponent - 1
    return magnitude, exponent


# --------------------------------------------------------------------------------------
# Destination encoders


def integer_encoding(value: Fraction, dst: str, mode: str, sat: bool) -> tuple[int, int]:
    """ReferenceMatrixIntegerEncoding: round, clamp (Sat) or wrap, sign-extended Word."""
    lo, hi = ref.fmt(dst).int_range
    rounded = floating_to_integer(value, mode)
    overflow = rounded < lo or rounded > hi
    selected = min(max(rounded, lo), hi) if sat and overflow else rounded
    flags = OF | NX if overflow else (NX if rounded != value else 0)
    return ref.result_word(dst, selected & ((1 << ref.fmt(dst).width) - 1)), flags


def round_and_saturate_signed(value: Fraction, width: int, mode: str) -> tuple[int, int]:
    """MatrixRoundAndSaturateSigned to an S<width> intermediate."""
    lo, hi = -(1 << (width - 1)), (1 << (width - 1)) - 1
    rounded = floating_to_integer(value, mode)
    overflow = rounded < lo or rounded > hi
    flags = OF | NX if overflow else (NX if rounded != value else 0)
    return min(max(rounded, lo), hi), flags


def fp32_encoding(value: Fraction, mode: str, sat: bool) -> tuple[int, int]:
    """ReferenceFP32FiniteEncoding, then ReferenceMatrixFloatingEncoding's Sat clamp."""
    if value == 0:
        return 0, 0
    negative = value < 0
    sign = 0x80000000 if negative else 0
    normalized, exponent = _normalize(value, -149, 128)
    if exponent > 127:
        word, flags = sign | 0x7F800000, OF | NX
    elif exponent < -126:
        scaled = value / ref.pow2(-149)
        rounded = floating_to_integer(scaled, mode)
        word = sign | abs(rounded)
        flags = 0 if rounded == scaled else UF | NX
    else:
        scaled = -normalized * (1 << 23) if negative else normalized * (1 << 23)
        rounded = floating_to_integer(scaled, mode)
        magnitude, biased = abs(rounded), exponent + 127
        if magnitude == 1 << 24:
            magnitude, biased = 1 << 23, biased + 1
        if biased >= 255:
            word, flags = sign | 0x7F800000, OF | NX
        else:
            word = sign | (biased << 23) | (magnitude - (1 << 23))
            flags = 0 if rounded == scaled else NX
    if sat and flags & OF:
        word = sign | 0x7F7FFFFF
    return word, flags


BINARY16 = {"FP16": (10, 15, 0x7BFF, 0x7C00), "BF16": (7, 127, 0x7F7F, 0x7F80)}


def binary16_encoding(value: Fraction, dst: str, mode: str, sat: bool) -> tuple[int, int]:
    """ReferenceBinary16Encoding (FP16, BF16)."""
    if value == 0:
        return 0, 0
    fraction_bits, bias, largest, infinity = BINARY16[dst]
    scale = 1 << fraction_bits
    negative = value < 0
    sign = 0x8000 if negative else 0
    overflow = sign | (largest if sat else infinity), OF | NX
    normalized, exponent = _normalize(value, -149, 128)
    if exponent > bias:
        return overflow
    if exponent < 1 - bias:
        scaled = abs(value) / ref.pow2(1 - bias - fraction_bits)
        rounded = max(round_magnitude(scaled, mode, negative), 0)
        flags = 0 if rounded == scaled else UF | NX
        return sign | min(rounded, scale), flags
    scaled = normalized * scale
    rounded = round_magnitude(scaled, mode, negative)
    biased = exponent + bias
    if rounded == 2 * scale:
        rounded, biased = scale, biased + 1
    if biased >= 2 * bias + 1:
        return overflow
    return sign | (biased * scale + rounded - scale), (0 if rounded == scaled else NX)


def fp8_finite_value(dst: str, code: int) -> Fraction:
    """ReferenceFP8FiniteValue (E4M3, HiF8)."""
    negative = bool(code >> 7)
    if dst == "E4M3":
        exponent, fraction = (code >> 3) & 0xF, code & 7
        magnitude = (fraction * ref.pow2(-9) if exponent == 0
                     else (1 + Fraction(fraction, 8)) * ref.pow2(exponent - 7))
    else:
        body = code & 0x7F
        if body <= 7:
            magnitude = Fraction(0) if body == 0 else ref.pow2(body - 23)
        elif body <= 15:
            magnitude = 1 + Fraction(body - 8, 8)
        elif body <= 31:
            exponent = 1 if not code >> 3 & 1 else -1
            magnitude = (1 + Fraction(code & 7, 8)) * ref.pow2(exponent)
        elif body <= 63:
            absolute = 2 + (code >> 3 & 1)
            exponent = absolute if (code >> 3 & 3) < 2 else -absolute
            magnitude = (1 + Fraction(code & 7, 8)) * ref.pow2(exponent)
        elif body <= 95:
            absolute = 4 + (code >> 2 & 3)
            exponent = absolute if (code >> 2 & 7) < 4 else -absolute
            magnitude = (1 + Fraction(code & 3, 4)) * ref.pow2(exponent)
        else:
            absolute = 8 + (code >> 1 & 7)
            exponent = absolute if (code >> 1 & 15) < 8 else -absolute
            magnitude = (1 + Fraction(code & 1, 2)) * ref.pow2(exponent)
    return -magnitude if negative else magnitude


def _fp8_special(dst: str, code: int) -> bool:
    """NaN or infinity codes (TileNumericValueClass): E4M3 0x7F/0xFF, HiF8 0x80, 0x6F/0xEF."""
    if dst == "E4M3":
        return code & 0x7F == 0x7F
    return code in (0x80, 0x6F, 0xEF)


def _nearest_better(target, candidate, candidate_code, best, best_code, mode) -> bool:
    """ReferenceNearestFP8CandidateBetter."""
    if abs(candidate - target) != abs(best - target):
        return abs(candidate - target) < abs(best - target)
    if mode == "RNE":
        return candidate_code % 2 == 0 and best_code % 2 != 0
    if mode == "RNA":
        return abs(candidate) > abs(best)
    if mode == "RTO":
        return candidate_code % 2 != 0 and best_code % 2 == 0
    return candidate > best


FIXED_POINT = 256  # FP8 search on integers: values scaled by 2^256 (every value here is dyadic)


def _fixed_point(x: Fraction) -> int:
    scaled = x * (1 << FIXED_POINT)
    assert scaled.denominator == 1, "a non-dyadic or too small value"
    return scaled.numerator


@lru_cache(maxsize=None)
def fp8_candidates(dst: str) -> tuple:
    """(code, value * 2^FIXED_POINT) of every code ReferenceFP8Encoding may choose, in code order."""
    return tuple((code, _fixed_point(fp8_finite_value(dst, code)))
                 for code in range(256) if not _fp8_special(dst, code))


def fp8_encoding(value: Fraction, dst: str, mode: str, sat: bool) -> tuple[int, int]:
    """ReferenceFP8Encoding: a search over the 256 codes in code order."""
    if value == 0:
        return 0, 0
    negative = value < 0
    magnitude = abs(value)
    if magnitude > (448 if dst == "E4M3" else 32768):
        if sat:
            code = LARGEST[dst][negative]
        else:
            code = 0x7F if dst == "E4M3" else INFINITY["HiF8"][negative]
        return code, OF | NX
    tiny = magnitude < ref.pow2(-6 if dst == "E4M3" else -15)
    value = _fixed_point(value)  # exact: the search compares and subtracts only
    best = None  # (value, code)
    for code, candidate in fp8_candidates(dst):
        if mode == "RTP":
            eligible = candidate >= value
        elif mode == "RTM":
            eligible = candidate <= value
        elif mode in ("RTZ", "RTO"):
            eligible = value <= candidate <= 0 if negative else 0 <= candidate <= value
        else:
            eligible = True
        if not eligible:
            continue
        if best is None:
            better = True
        elif mode == "RTP":
            better = candidate < best[0]
        elif mode == "RTM":
            better = candidate > best[0]
        elif mode in ("RTZ", "RTO"):
            better = candidate < best[0] if negative else candidate > best[0]
        else:
            better = _nearest_better(value, candidate, code, best[0], best[1], mode)
        if better:
            best = (candidate, code)
    if mode == "RTO" and best[0] != value and best[1] % 2 == 0:
        odd = None
        for code, candidate in fp8_candidates(dst):
            if code % 2 == 0:
                continue
            away = candidate < best[0] if negative else candidate > best[0]
            if away and (odd is None or (candidate > odd[0] if negative else candidate < odd[0])):
                odd = (candidate, code)
        best = odd or best
    inexact = best[0] != value
    flags = (UF | NX if tiny else NX) if inexact else 0
    return best[1], flags


def encode_real(value: Fraction, dst: str, mode: str, sat: bool) -> tuple[int, int]:
    """MatrixEncodeReal."""
    if ref.fmt(dst).is_int:
        return integer_encoding(value, dst, mode, sat)
    if dst == "FP32":
        return fp32_encoding(value, mode, sat)
    if dst in BINARY16:
        return binary16_encoding(value, dst, mode, sat)
    return fp8_encoding(value, dst, mode, sat)


# --------------------------------------------------------------------------------------
# The element transform


def special_value(v: ref.Value, dst: str, sat: bool) -> tuple[int, int]:
    """MatrixPostQuantSpecialValue for a NaN or infinite FP32 accumulator."""
    integer = ref.fmt(dst).is_int
    lo, hi = ref.fmt(dst).int_range if integer else (0, 0)
    if v.cls == "nan":
        if integer:
            return (0 if sat else ref.result_word(dst, lo & 0xFF)), NV
        invalid = NV if v.signalling else 0
        return (0 if sat else ref.canonical_nan(dst)), invalid
    if integer:
        if not sat:
            return ref.result_word(dst, lo & 0xFF), NV
        return ref.result_word(dst, (lo if v.negative else hi) & 0xFF), OF | NX
    if sat:
        return LARGEST[dst][v.negative], OF | NX
    if dst == "E4M3":
        return ref.canonical_nan(dst), OF | NX
    return INFINITY[dst][v.negative], 0


@dataclass(frozen=True)
class Steps:
    """What the transform computed for one element (for value classes)."""

    word: int
    flags: int
    value: ref.Value  # the FP32 accumulator
    multiplier: Fraction
    special: bool  # MatrixPostQuantSpecialValue decided the result
    activated: Fraction  # source value times the selected multiplier
    offset: int


@lru_cache(maxsize=1 << 16)
def transform(word: int, config: Config, column: int = 0) -> Steps:
    """MatrixPostQuantBaseWithFlags for FP32 accumulator Word ``word`` in ``column``."""
    mode, relu, out = config.mode, config.relu, config.output
    assert mode or relu, "PreQuantMode 0 with ReluMode 0 leaves the accumulator as it is"
    v = ref.decode("FP32", word & 0xFFFFFFFF)
    quant = config.quant[column] if config.quant else 0
    negative = v.cls in ("finite", "inf") and v.negative  # MatrixValueClassNegative
    scale = fp19_value((quant >> 13) & 0x7FFFF) if mode in SCALAR_MODES | VECTOR_MODES else Fraction(1)
    if not negative or relu == 0:
        multiplier = scale
    elif relu == 1:
        multiplier = Fraction(0)
    else:
        multiplier = fp19_value(config.relu_param[column] & 0x7FFFF)
    offset = quant_offset(quant, OFFSET_WIDTH.get(mode, 0))
    if v.cls in ("nan", "inf") and not (v.cls == "inf" and v.negative and multiplier == 0):
        result, flags = special_value(v, out, config.sat)
        return Steps(result, flags, v, multiplier, True, Fraction(0), offset)
    source = Fraction(0) if v.cls == "inf" else v.exact
    activated = source * multiplier
    if v.is_zero and v.negative and multiplier != 0 and offset == 0 and not ref.fmt(out).is_int:
        return Steps(SIGNED_ZERO[out], 0, v, multiplier, False, activated, offset)
    width = OFFSET_WIDTH.get(mode, 0)
    if width:
        intermediate, first = round_and_saturate_signed(activated, width, config.rounding)
        result, final = integer_encoding(Fraction(intermediate + offset), out, config.rounding, config.sat)
        return Steps(result, first | final, v, multiplier, False, activated, offset)
    result, flags = encode_real(activated + offset, out, config.rounding, config.sat)
    return Steps(result, flags, v, multiplier, False, activated, offset)


def shift_s32_to_s16(word: int, code: int) -> tuple[int, int]:
    """MatrixShiftS32ToS16: the S32 value of the low 32 bits shifted right arithmetically by
    code + 1 (QuantParam bits 35:32), clamped to S16 with OF|NX, the Word sign-extended.
    SPEC-CHOICE 93: clamped in both profiles, not wrapped as the profile's integer_sat_disabled reads."""
    low = word & 0xFFFFFFFF
    shifted = (low - (1 << 32) if low >> 31 else low) >> (code + 1)
    clamped = min(max(shifted, -32768), 32767)
    return clamped & WORD, OF | NX if clamped != shifted else 0


def integer_source(word: int, config: Config, source: str, column: int = 0) -> tuple[int, int]:
    """MatrixPostQuantBaseWithFlags for an integer source: the S32 modes read the low 32 bits as
    S32; PreQuantMode 0 (a ReLU alone) reads them as the accumulator type (S32 or U32), which is
    then the output type. No special value; a U32 source is never negative, so its ReLU keeps it."""
    mode, relu = config.mode, config.relu
    quant = config.quant[column] if config.quant else 0
    if mode in SHIFT_MODES:
        return shift_s32_to_s16(word, (quant >> 32) & 0xF)
    kind = source if mode == 0 else "S32"
    low = word & 0xFFFFFFFF
    value = low - (1 << 32) if kind == "S32" and low >> 31 else low
    out = source if mode == 0 else OUTPUT_TYPE[mode]
    scale = fp19_value((quant >> 13) & 0x7FFFF) if mode in SCALAR_MODES | VECTOR_MODES else Fraction(1)
    if value >= 0 or relu == 0:
        multiplier = scale
    elif relu == 1:
        multiplier = Fraction(0)
    else:
        multiplier = fp19_value(config.relu_param[column] & 0x7FFFF)
    activated = value * multiplier
    width = OFFSET_WIDTH.get(mode, 0)
    offset = quant_offset(quant, width)
    if width:
        intermediate, first = round_and_saturate_signed(activated, width, config.rounding)
        result, final = integer_encoding(Fraction(intermediate + offset), out, config.rounding, config.sat)
        return result & WORD, first | final
    result, flags = encode_real(Fraction(activated) + offset, out, config.rounding, config.sat)
    return result & WORD, flags


def postprocess(word: int, config: Config, column: int = 0, source: str = "FP32") -> tuple[int, int]:
    """(output Word, flags) of one element of a ``source`` (FP32, S32 or U32) accumulator; signed
    outputs are sign-extended Words."""
    if source != "FP32" or config.mode in S32_MODES:
        return integer_source(word, config, source, column)
    steps = transform(word, config, column)
    return steps.word & WORD, steps.flags
