"""Independent exact reference for the hw-ieee numeric profile.

Written from the PTO ISA 0.58.3 specification (``spec/hardware-conformance-profile.json``,
``asl/arch/profile/e8m0-conversion.asl``, the spec digest) and the project's hw-ieee
decisions 1-14 (``vectors/reference/README.md``), sharing no code with ``device_model/``. It is
deliberately slow and plain: every value is an exact ``fractions.Fraction`` and every
rounding is decided by integer comparison.

Two independent rounding methods live here:
- the classic significand/exponent method for the sign/exponent/fraction formats, and
- a value-set method (enumerate every finite value, pick the neighbours by exact
  comparison) used for HiF8, whose tapered precision has no single significand width.
``tests/vectors/test_reference_numeric.py`` checks each against the other and against ml_dtypes.

Places where the hardware profile is silent carry a ``SPEC-CHOICE`` comment naming the
project decision (or, where even those are silent, the choice made here).
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

NV, DZ, OF, UF, NX = 0x01, 0x02, 0x04, 0x08, 0x10

MODES = ("RNE", "RTZ", "RTM", "RTP", "RNA", "RTO", "RHB")
MODE_ALIASES = {"RDN": "RTM", "RUP": "RTP"}


class UnsupportedPair(ValueError):
    """A TCVT source/destination pair the hardware profile does not accept."""


# --------------------------------------------------------------------------------------
# The format table (own copy; facts from the spec's data-type table)


@dataclass(frozen=True)
class Format:
    name: str
    code: int
    width: int  # bits of one logical element (the lane); E3M2/E2M3 live in an 8-bit carrier
    kind: str  # "binary" | "hif8" | "e8m0" | "signed" | "unsigned"
    exp_bits: int = 0
    frac_bits: int = 0
    bias: int = 0
    sign_bit: int = 0
    frac_lsb: int = 0  # TF32/HF32 keep their fraction in the top bits of a 32-bit carrier
    has_inf: bool = False
    nan: str = "none"  # "ieee" | "e4m3" (only exponent and fraction all ones) | "single" | "none"

    @property
    def is_float(self) -> bool:
        return self.kind in ("binary", "hif8", "e8m0")

    @property
    def is_int(self) -> bool:
        return self.kind in ("signed", "unsigned")

    @property
    def has_nan(self) -> bool:
        return self.nan != "none"

    @property
    def int_range(self) -> tuple[int, int]:
        if self.kind == "signed":
            return -(1 << (self.width - 1)), (1 << (self.width - 1)) - 1
        return 0, (1 << self.width) - 1


def _binary(name, code, width, e, f, bias, sign_bit, *, frac_lsb=0, inf=True, nan="ieee"):
    return Format(name, code, width, "binary", e, f, bias, sign_bit, frac_lsb, inf, nan)


FORMATS: dict[str, Format] = {
    f.name: f
    for f in (
        _binary("FP64", 0, 64, 11, 52, 1023, 63),
        _binary("FP32", 1, 32, 8, 23, 127, 31),
        _binary("TF32", 2, 32, 8, 10, 127, 31, frac_lsb=13),
        _binary("HF32", 3, 32, 8, 11, 127, 31, frac_lsb=12),
        _binary("FP16", 4, 16, 5, 10, 15, 15),
        _binary("BF16", 5, 16, 8, 7, 127, 15),
        Format("HiF8", 6, 8, "hif8", has_inf=True, nan="single"),
        _binary("E4M3", 7, 8, 4, 3, 7, 7, inf=False, nan="e4m3"),
        _binary("E5M2", 8, 8, 5, 2, 15, 7),
        _binary("E3M2", 9, 8, 3, 2, 3, 5, inf=False, nan="none"),
        _binary("E2M3", 10, 8, 2, 3, 1, 5, inf=False, nan="none"),
        _binary("E2M1X2", 11, 4, 2, 1, 1, 3, inf=False, nan="none"),
        _binary("E1M2X2", 12, 4, 1, 2, 1, 3, inf=False, nan="none"),
        Format("E8M0", 13, 8, "e8m0", nan="single"),
        _binary("HiF4X2", 14, 4, 1, 2, 1, 3, inf=False, nan="none"),
        Format("S64", 16, 64, "signed"),
        Format("S32", 17, 32, "signed"),
        Format("S16", 18, 16, "signed"),
        Format("S8", 19, 8, "signed"),
        Format("S4X2", 20, 4, "signed"),
        Format("U64", 24, 64, "unsigned"),
        Format("U32", 25, 32, "unsigned"),
        Format("U16", 26, 16, "unsigned"),
        Format("U8", 27, 8, "unsigned"),
        Format("U4X2", 28, 4, "unsigned"),
    )
}

E8M0_SOURCES = ("FP16", "BF16", "FP32")
MX_TYPES = ("FP16", "BF16", "E4M3", "E5M2", "E2M1X2", "E1M2X2")
MX_UNSCALED = ("FP16", "BF16")
MX_BLOCK = 32


def fmt(name: str) -> Format:
    return FORMATS[name]


# --------------------------------------------------------------------------------------
# Exact helpers


def floor_log2(x: Fraction) -> int:
    """The integer e with 2^e <= x < 2^(e+1), for x > 0."""
    assert x > 0
    e = x.numerator.bit_length() - x.denominator.bit_length()
    if pow2(e) > x:
        e -= 1
    elif pow2(e + 1) <= x:
        e += 1
    return e


def pow2(e: int) -> Fraction:
    return Fraction(1 << e) if e >= 0 else Fraction(1, 1 << -e)


def round_to_integer(x: Fraction, mode: str) -> int:
    """Round an exact rational to an integer under one of the seven modes (digest §2.1)."""
    low = x.numerator // x.denominator  # floor
    rest = x - low
    if rest == 0:
        return low
    half = Fraction(1, 2)
    if mode == "RTM":
        return low
    if mode == "RTP":
        return low + 1
    if mode == "RTZ":
        return low if x > 0 else low + 1
    if mode == "RTO":
        return low if low % 2 else low + 1
    if rest != half:
        return low if rest < half else low + 1
    if mode == "RNE":
        return low if low % 2 == 0 else low + 1
    if mode == "RNA":
        return low if x < 0 else low + 1
    if mode == "RHB":
        return low + 1
    raise ValueError(f"unknown rounding mode {mode!r}")


def round_significant(mag: Fraction, bits: int, negative: bool, mode: str) -> Fraction:
    """Round mag > 0 (with the given sign) to `bits` significant bits, unbounded exponent."""
    q = floor_log2(mag) - (bits - 1)
    scaled = mag / pow2(q)
    return abs(round_to_integer(-scaled if negative else scaled, mode)) * pow2(q)


# --------------------------------------------------------------------------------------
# Decoding


@dataclass(frozen=True)
class Value:
    """A decoded element: cls is "finite", "inf", "nan" or "invalid".

    Finite values keep the sign apart from the magnitude so that -0 survives.
    """

    cls: str
    negative: bool = False
    magnitude: Fraction = Fraction(0)
    signalling: bool = False

    @property
    def exact(self) -> Fraction:
        return -self.magnitude if self.negative else self.magnitude

    @property
    def is_zero(self) -> bool:
        return self.cls == "finite" and self.magnitude == 0


def _binary_fields(f: Format, bits: int) -> tuple[int, int, int]:
    sign = (bits >> f.sign_bit) & 1
    exp = (bits >> (f.frac_lsb + f.frac_bits)) & ((1 << f.exp_bits) - 1)
    frac = (bits >> f.frac_lsb) & ((1 << f.frac_bits) - 1)
    return sign, exp, frac


def encoding_valid(name: str, bits: int) -> bool:
    """TF32/HF32 low fraction bits and E3M2/E2M3 carrier bits 7:6 must be zero."""
    f = FORMATS[name]
    bits &= (1 << f.width) - 1
    if f.kind == "binary":
        if bits & ((1 << f.frac_lsb) - 1):
            return False
        if bits >> (f.sign_bit + 1):
            return False
    return True


def _hif8_magnitude(body: int) -> Fraction:
    """Magnitude of a HiF8 body 0..0x7F other than 0x6F (tapered dot/exponent/mantissa)."""
    if body < 8:  # dot 0000: zero, or denormal 2^(M-23)
        return Fraction(0) if body == 0 else pow2(body - 23)
    if body < 16:  # D0: exponent 0, 3 mantissa bits
        return 1 + Fraction(body & 7, 8)
    if body < 32:  # D1: exponent +-1 (bit 3 is the exponent sign)
        exponent = -1 if body & 8 else 1
        return (1 + Fraction(body & 7, 8)) * pow2(exponent)
    if body < 64:  # D2: exponent +-(2 + bit3), sign bit 4, 3 mantissa bits
        magnitude, mant = 2 + ((body >> 3) & 1), Fraction(body & 7, 8)
    elif body < 96:  # D3: exponent +-(4 + bits 3:2), 2 mantissa bits
        magnitude, mant = 4 + ((body >> 2) & 3), Fraction(body & 3, 4)
    else:  # D4: exponent +-(8 + bits 3:1), 1 mantissa bit
        magnitude, mant = 8 + ((body >> 1) & 7), Fraction(body & 1, 2)
    exponent = -magnitude if body & 16 else magnitude
    return (1 + mant) * pow2(exponent)


@lru_cache(maxsize=1 << 16)
def decode(name: str, bits: int) -> Value:
    """Decode element bits (only the low `width` bits count) of any of the 25 types."""
    f = FORMATS[name]
    bits &= (1 << f.width) - 1
    if f.is_int:
        v = bits
        if f.kind == "signed" and bits >> (f.width - 1):
            v -= 1 << f.width
        return Value("finite", v < 0, Fraction(abs(v)))
    if not encoding_valid(name, bits):
        return Value("invalid")
    if f.kind == "e8m0":
        if bits == 0xFF:
            return Value("nan")  # the only E8M0 NaN; canonical and quiet
        return Value("finite", False, pow2(bits - 127))
    if f.kind == "hif8":
        if bits == 0x80:
            return Value("nan")  # HiF8 has one NaN, quiet
        negative, body = bool(bits >> 7), bits & 0x7F
        if body == 0x6F:
            return Value("inf", negative)
        return Value("finite", negative, _hif8_magnitude(body))
    sign, exp, frac = _binary_fields(f, bits)
    top_exp = (1 << f.exp_bits) - 1
    if f.nan == "ieee" and exp == top_exp:
        if frac == 0:
            return Value("inf", bool(sign))
        return Value("nan", bool(sign), signalling=not (frac >> (f.frac_bits - 1)) & 1)
    if f.nan == "e4m3" and exp == top_exp and frac == (1 << f.frac_bits) - 1:
        return Value("nan", bool(sign))  # E4M3 NaNs are quiet
    if exp == 0:
        mag = frac * pow2(1 - f.bias - f.frac_bits)
    else:
        mag = ((1 << f.frac_bits) + frac) * pow2(exp - f.bias - f.frac_bits)
    return Value("finite", bool(sign), Fraction(mag))


# --------------------------------------------------------------------------------------
# Format constants


def canonical_nan(name: str) -> int:
    f = FORMATS[name]
    if f.kind == "hif8":
        return 0x80
    if f.kind == "e8m0":
        return 0xFF
    if f.nan == "e4m3":
        return (1 << f.sign_bit) - 1
    if f.nan == "ieee":
        exp = ((1 << f.exp_bits) - 1) << (f.frac_lsb + f.frac_bits)
        return exp | (1 << (f.frac_lsb + f.frac_bits - 1))
    raise ValueError(f"{name} has no NaN")


def max_finite_code(name: str) -> int:
    """Encoding of the largest positive finite value."""
    f = FORMATS[name]
    if f.kind == "hif8":
        return 0x6E
    if f.kind == "e8m0":
        return 0xFE
    top_exp = (1 << f.exp_bits) - 1
    all_frac = (1 << f.frac_bits) - 1
    if f.nan == "ieee":
        exp, frac = top_exp - 1, all_frac
    elif f.nan == "e4m3":
        exp, frac = top_exp, all_frac - 1
    else:
        exp, frac = top_exp, all_frac
    return (exp << (f.frac_lsb + f.frac_bits)) | (frac << f.frac_lsb)


@lru_cache(maxsize=None)
def max_finite(name: str) -> Fraction:
    return decode(name, max_finite_code(name)).magnitude


def min_normal(name: str) -> Fraction:
    f = FORMATS[name]
    if f.kind == "hif8":
        return pow2(-15)
    return pow2(1 - f.bias)


def sign_mask(name: str) -> int:
    f = FORMATS[name]
    return 0x80 if f.kind == "hif8" else 1 << f.sign_bit


def infinity_code(name: str, negative: bool) -> int:
    f = FORMATS[name]
    if f.kind == "hif8":
        return 0xEF if negative else 0x6F
    assert f.has_inf
    code = ((1 << f.exp_bits) - 1) << (f.frac_lsb + f.frac_bits)
    return code | (sign_mask(name) if negative else 0)


def zero_code(name: str, negative: bool) -> int:
    # SPEC-CHOICE (decision 12): HiF8 has one zero, so a negative result that rounds to
    # zero is 0x00 there; every other floating format keeps the sign.
    if FORMATS[name].kind == "hif8" or not negative:
        return 0
    return sign_mask(name)


# --------------------------------------------------------------------------------------
# Value sets (for HiF8, and as an independent check of the classic method)


@lru_cache(maxsize=None)
def positive_value_set(name: str) -> tuple[tuple[Fraction, int], ...]:
    """Every non-negative finite magnitude of a format of at most 16 bits, with its code, sorted."""
    f = FORMATS[name]
    assert f.is_float and f.width <= 16
    out = {}
    for code in range(1 << f.width):
        if code & sign_mask(name) and f.kind != "e8m0":
            continue
        v = decode(name, code)
        if v.cls == "finite" and not v.negative:
            out.setdefault(v.magnitude, code)
    return tuple(sorted(out.items()))


def _pick_candidate(x: Fraction, down: tuple[Fraction, int], up: tuple[Fraction, int],
                    mode: str) -> tuple[Fraction, int]:
    """Choose between signed candidates down < x < up; codes give the parity (decision 11)."""
    if mode == "RTM":
        return down
    if mode == "RTP":
        return up
    if mode == "RTZ":
        return down if x > 0 else up
    if mode == "RTO":
        assert (down[1] ^ up[1]) & 1, "neighbours must differ in encoding parity"
        return down if down[1] & 1 else up
    to_down, to_up = x - down[0], up[0] - x
    if to_down != to_up:
        return down if to_down < to_up else up
    if mode == "RNE":
        assert (down[1] ^ up[1]) & 1, "neighbours must differ in encoding parity"
        return down if down[1] & 1 == 0 else up
    if mode == "RNA":
        return down if x < 0 else up
    if mode == "RHB":
        return up
    raise ValueError(f"unknown rounding mode {mode!r}")


def round_value_set(name: str, negative: bool, mag: Fraction, mode: str,
                    above_max: tuple[Fraction, int] | None = None) -> tuple[Fraction, int]:
    """Round mag (with sign) onto the value set; returns (magnitude, positive code).

    `above_max` optionally names the virtual value (and code parity) just past the largest
    finite one, so that a magnitude above max can round either way.
    """
    values = positive_value_set(name)
    if above_max is not None:
        values = values + (above_max,)
    lo, hi = 0, len(values) - 1
    assert mag <= values[hi][0]
    while hi - lo > 1:  # invariant: values[lo] <= mag <= values[hi]
        mid = (lo + hi) // 2
        if values[mid][0] <= mag:
            lo = mid
        else:
            hi = mid
    if values[lo][0] == mag:
        return values[lo]
    if values[hi][0] == mag:
        return values[hi]
    a, b = values[lo], values[hi]
    if negative:
        down, up = (-b[0], b[1]), (-a[0], a[1])
        chosen = _pick_candidate(-mag, down, up, mode)
        return -chosen[0], chosen[1]
    return _pick_candidate(mag, a, b, mode)


# --------------------------------------------------------------------------------------
# Encoding an exact value into a floating format


def _encode_binary_magnitude(f: Format, negative: bool, r: Fraction) -> int:
    """Bits of an exactly representable magnitude r > 0."""
    emin = 1 - f.bias
    if r < pow2(emin):
        exp, frac = 0, r / pow2(emin - f.frac_bits)
    else:
        e = floor_log2(r)
        exp, frac = e + f.bias, r / pow2(e - f.frac_bits) - (1 << f.frac_bits)
    assert frac.denominator == 1 and 0 <= frac < (1 << f.frac_bits)
    code = (exp << (f.frac_lsb + f.frac_bits)) | (int(frac) << f.frac_lsb)
    return code | ((1 << f.sign_bit) if negative else 0)


def _round_binary(f: Format, negative: bool, mag: Fraction, mode: str) -> tuple[Fraction, Fraction]:
    """Classic method: (result magnitude with subnormal quantum, unbounded-exponent magnitude)."""
    e = floor_log2(mag)
    quantum = pow2(max(e, 1 - f.bias) - f.frac_bits)
    scaled = mag / quantum
    r = abs(round_to_integer(-scaled if negative else scaled, mode)) * quantum
    return r, round_significant(mag, f.frac_bits + 1, negative, mode)


def _overflow(name: str, negative: bool, mode: str, sat: bool) -> tuple[int, int]:
    # SPEC-CHOICE (decisions 1-4): the IEEE overflow result by rounding mode; Sat=1 and
    # formats without infinity clamp to max finite, except E4M3 whose "infinite" result is
    # its canonical NaN 0x7F. Flags OF|NX throughout.
    f = FORMATS[name]
    toward_max = (sat or mode in ("RTZ", "RTO")
                  or (mode == "RTP" and negative) or (mode == "RTM" and not negative))
    if not toward_max and f.has_inf:
        return infinity_code(name, negative), OF | NX
    if not toward_max and f.nan == "e4m3":
        return canonical_nan(name), OF | NX
    return max_finite_code(name) | (sign_mask(name) if negative else 0), OF | NX


# SPEC-CHOICE (decision 10): HiF8 tininess and overflow are judged at 2 significant bits
# (the precision of its lowest and highest normal decades) with an unbounded exponent;
# its rounding itself picks between adjacent representable values by linear midpoints.
HIF8_EDGE_PRECISION = 2


def encode_value(name: str, negative: bool, mag: Fraction, mode: str, sat: bool) -> tuple[int, int]:
    """Round an exact finite value (sign, magnitude) into a floating format: (bits, flags).

    Tininess is detected after rounding (decision 10): tiny iff the value rounded to the
    destination precision with an unbounded exponent is below the smallest normal; UF iff
    tiny and inexact. Overflow iff that unbounded rounding exceeds the largest finite value.
    """
    f = FORMATS[name]
    assert f.kind in ("binary", "hif8")
    if mag == 0:
        return zero_code(name, negative), 0
    if f.kind == "hif8":
        unbounded = round_significant(mag, HIF8_EDGE_PRECISION, negative, mode)
    else:
        r, unbounded = _round_binary(f, negative, mag, mode)
    if unbounded > max_finite(name):
        return _overflow(name, negative, mode, sat)
    if f.kind == "hif8":
        # The virtual value past 2^15 is the Inf code's 1.5*2^15 (odd parity); reaching it
        # means overflow, which the unbounded test above has already taken.
        r, code = round_value_set(name, negative, mag, mode, above_max=(3 * pow2(14), 0x6F))
        assert code != 0x6F
    flags = 0
    if r != mag:
        flags |= NX
        if unbounded < min_normal(name):
            flags |= UF
    if r == 0:
        return zero_code(name, negative), flags
    if f.kind == "hif8":
        return code | (0x80 if negative else 0), flags
    return _encode_binary_magnitude(f, negative, r), flags


# --------------------------------------------------------------------------------------
# TCVT element conversion


def resolve_mode(mode: str, src: str, dst: str) -> str:
    """RMode NONE: RTZ for floating -> integer, RNE otherwise (E8M0 counts as floating)."""
    mode = MODE_ALIASES.get(mode, mode)
    if mode == "NONE":
        return "RTZ" if FORMATS[src].is_float and FORMATS[dst].is_int else "RNE"
    if mode not in MODES:
        raise ValueError(f"unknown rounding mode {mode!r}")
    return mode


def _to_e8m0(v: Value, mode: str, sat: bool) -> tuple[int, int]:
    """E8M0 destination, bit-exact in both profiles (asl/arch/profile/e8m0-conversion.asl)."""
    if v.cls in ("nan", "invalid") or v.is_zero or v.negative:
        return 0xFF, NV
    if v.cls == "inf":
        return (0xFE if sat else 0xFF), OF | NX
    floor_e = floor_log2(v.magnitude)
    exact = v.magnitude == pow2(floor_e)
    if floor_e < -127:
        return (0x00 if sat else 0xFF), UF | NX
    if floor_e == 127 and not exact:  # above 2^127, decided on the source for every mode
        return (0xFE if sat else 0xFF), OF | NX
    if exact:
        return floor_e + 127, 0
    ceil_e = floor_e + 1
    if mode == "RTM":
        e = floor_e
    elif mode == "RTP":
        e = ceil_e
    elif mode == "RTZ":  # toward exponent zero, i.e. toward 1.0
        e = ceil_e if floor_e < 0 else floor_e
    elif mode == "RTO":  # make the exponent odd
        e = floor_e if floor_e % 2 else ceil_e
    else:  # RNE, RNA, RHB: nearest in log2 space; the midpoint sqrt(2)*2^f is never hit
        e = floor_e if v.magnitude ** 2 < pow2(2 * floor_e + 1) else ceil_e
    return e + 127, NX


def _indefinite(name: str) -> int:
    lo, hi = FORMATS[name].int_range
    return lo if FORMATS[name].kind == "signed" else hi


def _float_to_int(v: Value, dst: str, mode: str, sat: bool) -> tuple[int, int]:
    # SPEC-CHOICE (decision 7): the range check is on the rounded value; invalid cases
    # raise NV only; Sat=0 gives the indefinite value, Sat=1 gives 0 (NaN) or the endpoint.
    lo, hi = FORMATS[dst].int_range
    if v.cls == "nan":
        return (0 if sat else _indefinite(dst)), NV
    if v.cls == "inf":
        return ((lo if v.negative else hi) if sat else _indefinite(dst)), NV
    n = round_to_integer(v.exact, mode)
    if n < lo or n > hi:
        return ((lo if n < lo else hi) if sat else _indefinite(dst)), NV
    return n, (NX if n != v.exact else 0)


def _int_to_int(n: int, dst: str, sat: bool) -> int:
    lo, hi = FORMATS[dst].int_range
    if sat:
        return min(max(n, lo), hi)
    w = FORMATS[dst].width
    n %= 1 << w
    if FORMATS[dst].kind == "signed" and n >> (w - 1):
        n -= 1 << w
    return n


def _float_result_of(v: Value, dst: str, mode: str, sat: bool) -> tuple[int, int]:
    """Any decoded value into a binary/HiF8 floating destination."""
    f = FORMATS[dst]
    if v.cls == "nan":
        # SPEC-CHOICE (decision 5): canonical NaN, NV only for a signalling source; a
        # NaN-less destination gets +0 with NV.
        if f.has_nan:
            return canonical_nan(dst), (NV if v.signalling else 0)
        return 0, NV
    if v.cls == "inf":
        # SPEC-CHOICE (decision 4): Sat=1 clamps to max finite; Sat=0 keeps infinity where
        # the format has one, E4M3 gives 0x7F, the other formats max finite.
        if sat or not f.has_inf:
            return _overflow(dst, v.negative, "RNE", sat)
        return infinity_code(dst, v.negative), 0
    return encode_value(dst, v.negative, v.magnitude, mode, sat)


def element_bits(name: str, n: int) -> int:
    """Encode an integer result at element width (two's complement for signed types)."""
    return n & ((1 << FORMATS[name].width) - 1)


def convert(src: str, dst: str, bits: int, mode: str = "NONE", sat: bool = False,
            canonicalize: bool = False) -> tuple[int, int]:
    """One TCVT element under hw-ieee: (destination element bits, flags).

    Results are element-width encodings; see `result_word` for the 64-bit Word.
    """
    s, d = FORMATS[src], FORMATS[dst]
    if d.kind == "e8m0" and src not in E8M0_SOURCES:
        raise UnsupportedPair(f"TCVT {src} -> E8M0 is not an accepted pair")
    mode = resolve_mode(mode, src, dst)
    v = decode(src, bits)
    if v.cls == "invalid":
        raise ValueError(f"{bits:#x} is not a valid {src} encoding (TCVT rejects the source)")
    if canonicalize and v.cls == "nan":
        # SPEC-CHOICE (decision 6): the source's canonical quiet NaN replaces the NaN first.
        v = decode(src, canonical_nan(src))
    if s.is_int and d.is_int:
        # Decision 8: wrap or clamp, no flags (bit-exact in both profiles).
        return element_bits(dst, _int_to_int(int(v.exact), dst, sat)), 0
    if d.kind == "e8m0":
        return _to_e8m0(v, mode, sat)
    if d.is_int:
        n, flags = _float_to_int(v, dst, mode, sat)
        return element_bits(dst, n), flags
    return _float_result_of(v, dst, mode, sat)


def result_word(name: str, bits: int) -> int:
    """The 64-bit result Word: signed integers sign-extended, everything else zero-extended.

    SPEC-CHOICE (decision 13). Packed (4-bit) tiles store only the lane, so a device
    reads S4X2 lanes back zero-extended; the vectors record lane bits for those types.
    """
    f = FORMATS[name]
    bits &= (1 << f.width) - 1
    if f.kind == "signed" and bits >> (f.width - 1):
        return bits | (((1 << 64) - 1) ^ ((1 << f.width) - 1))
    return bits


# --------------------------------------------------------------------------------------
# TQUANT (decision 14)


def quantize(x_bits: int, multiplier_bits: int, zero_point: int, dst: str, mode: str = "NONE",
             sat: bool = False) -> tuple[int, int]:
    """hw-ieee TQUANT of one FP32 element: round(x*m + zp) once; (element bits, flags).

    `zero_point` is the integer value; `multiplier_bits` the raw FP32 (upper bits ignored).
    """
    assert dst in ("S8", "U8")
    mode = "RNE" if mode == "NONE" else MODE_ALIASES.get(mode, mode)
    lo, hi = FORMATS[dst].int_range
    x = decode("FP32", x_bits)
    m = decode("FP32", multiplier_bits & 0xFFFFFFFF)
    assert m.cls == "finite" and not m.negative and m.magnitude > 0, "illegal multiplier"
    # SPEC-CHOICE (decision 14): NaN and infinities are invalid: NV only; Sat=0 gives the
    # indefinite value, Sat=1 zero (NaN) or the endpoint (infinity).
    if x.cls == "nan":
        return element_bits(dst, 0 if sat else _indefinite(dst)), NV
    if x.cls == "inf":
        n = (lo if x.negative else hi) if sat else _indefinite(dst)
        return element_bits(dst, n), NV
    exact = x.exact * m.magnitude + zero_point
    n = round_to_integer(exact, mode)
    flags = NX if n != exact else 0
    # Finite results: Sat=1 clamps, Sat=0 wraps modulo 2^8 (the operation's contract), no OF.
    n = min(max(n, lo), hi) if sat else _int_to_int(n, dst, False)
    return element_bits(dst, n), flags


# --------------------------------------------------------------------------------------
# TMULS (IEEE multiply, RNE) and integer wrap


TMULS_FLOAT_TYPES = ("FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2")


def multiply(name: str, a_bits: int, b_bits: int) -> tuple[int, int]:
    """hw-ieee TMULS element: a*b in the element type (RNE for floats, wrap for integers)."""
    f = FORMATS[name]
    a, b = decode(name, a_bits), decode(name, b_bits)
    if f.is_int:
        return element_bits(name, _int_to_int(int(a.exact * b.exact), name, False)), 0
    assert name in TMULS_FLOAT_TYPES
    assert a.cls != "invalid" and b.cls != "invalid"
    if a.cls == "nan" or b.cls == "nan":
        return canonical_nan(name), (NV if a.signalling or b.signalling else 0)
    negative = a.negative != b.negative
    if a.cls == "inf" or b.cls == "inf":
        if a.is_zero or b.is_zero:  # infinity times zero is invalid
            return canonical_nan(name), NV
        return infinity_code(name, negative), 0
    return encode_value(name, negative, a.magnitude * b.magnitude, "RNE", False)


# --------------------------------------------------------------------------------------
# TGEMV_MX_ACC (hw-ieee: scaled inputs, one fused multiply-add into FP32 per K step)


def _scaled(name: str, code: int, scale: int | None) -> Value:
    """A decoded MX input multiplied by its E8M0 scale; a 0xFF scale yields NaN."""
    v = decode(name, code)
    if scale is None or v.cls in ("nan", "invalid"):
        return v
    if scale == 0xFF:
        return Value("nan")
    if v.cls == "inf":
        return v
    return Value("finite", v.negative, v.magnitude * pow2(scale - 127))


def fma_fp32(acc: Value, a: Value, b: Value) -> tuple[Value, int]:
    """acc + a*b rounded once to FP32 (RNE): (decoded result, IEEE flags)."""
    # SPEC-CHOICE 17: a quiet NaN operand decides first, so inf*0 + qNaN raises no NV (IEEE
    # leaves that case to the implementation); the TGEMV status is the OR of these flags.
    if acc.cls == "nan" or a.cls == "nan" or b.cls == "nan":
        return Value("nan"), (NV if acc.signalling or a.signalling or b.signalling else 0)
    product_negative = a.negative != b.negative
    if a.cls == "inf" or b.cls == "inf":
        if a.is_zero or b.is_zero:
            return Value("nan"), NV
        if acc.cls == "inf" and acc.negative != product_negative:
            return Value("nan"), NV
        return Value("inf", product_negative), 0
    if acc.cls == "inf":
        return acc, 0
    product = a.magnitude * b.magnitude
    total = acc.exact + (-product if product_negative else product)
    if total == 0:
        # IEEE: an exact zero sum is -0 only when both addends are -0 (RNE).
        negative = acc.is_zero and acc.negative and product == 0 and product_negative
        return Value("finite", negative, Fraction(0)), 0
    bits, flags = encode_value("FP32", total < 0, abs(total), "RNE", False)
    return decode("FP32", bits), flags


def value_bits_fp32(v: Value) -> int:
    if v.cls == "nan":
        return canonical_nan("FP32")
    if v.cls == "inf":
        return infinity_code("FP32", v.negative)
    bits, flags = encode_value("FP32", v.negative, v.magnitude, "RNE", False)
    assert flags == 0
    return bits


def gemv_mx_acc(c: list[int], a: list[int], b: list[list[int]], a_type: str, b_type: str,
                a_scale: list[int] | None = None, b_scale: list[list[int]] | None = None
                ) -> tuple[list[int], int]:
    """hw-ieee TGEMV_MX_ACC for M = 1: (D words, OR of the per-step IEEE flags).

    c: N FP32 words; a: K codes; b: K rows of N codes; a_scale: ceil(K/32) E8M0 codes;
    b_scale: ceil(K/32) rows of N codes. A scale is present exactly for the scaled types.
    """
    assert (a_scale is None) == (a_type in MX_UNSCALED)
    assert (b_scale is None) == (b_type in MX_UNSCALED)
    k_count, n_count = len(a), len(c)
    out, all_flags = [], 0
    for n in range(n_count):
        acc = decode("FP32", c[n])
        if acc.cls == "nan":
            acc = Value("nan", signalling=acc.signalling)
        for k in range(k_count):
            block = k // MX_BLOCK
            left = _scaled(a_type, a[k], None if a_scale is None else a_scale[block])
            right = _scaled(b_type, b[k][n], None if b_scale is None else b_scale[block][n])
            acc, flags = fma_fp32(acc, left, right)
            all_flags |= flags
        out.append(value_bits_fp32(acc))
    return out, all_flags
