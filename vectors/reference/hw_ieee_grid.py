"""A second, structurally different exact hw-ieee reference: value grids (conversion,
TQUANT, TMULS multiply, the TGEMV_MX_ACC fused step).

Written from the format definitions (asl/arch/data-types/formats/*.asl, the hardware
profile JSON) and the conversion rules stated in the project brief and
spec/hardware-conformance-profile.json, with Python Fractions and value enumeration:
per element, value grids for the narrow formats, closed-form neighbours for the wide
ones. It keeps its own format table on purpose, so that it shares no code with
``numeric.py`` (the first reference, significand/exponent method) nor, like every
module here, with ``device_model``. ``tests/numeric/test_numeric_reference.py``
compares the vectorized ``device_model.numeric`` with it.
"""
from __future__ import annotations

import bisect
from fractions import Fraction
from functools import lru_cache

MODES = ("RNE", "RTZ", "RTM", "RTP", "RNA", "RTO", "RHB")
NV, DZ, OF, UF, NX = 0x01, 0x02, 0x04, 0x08, 0x10

# name: (lane bits, exponent bits, fraction bits, bias, fraction shift, sign bit, specials)
# specials: "ieee" (all-ones exponent = inf/NaN), "fn" (only all-ones E and M is NaN), "finite"
BINARY = {
    "FP64": (64, 11, 52, 1023, 0, 63, "ieee"),
    "FP32": (32, 8, 23, 127, 0, 31, "ieee"),
    "TF32": (32, 8, 10, 127, 13, 31, "ieee"),
    "HF32": (32, 8, 11, 127, 12, 31, "ieee"),
    "FP16": (16, 5, 10, 15, 0, 15, "ieee"),
    "BF16": (16, 8, 7, 127, 0, 15, "ieee"),
    "E4M3": (8, 4, 3, 7, 0, 7, "fn"),
    "E5M2": (8, 5, 2, 15, 0, 7, "ieee"),
    "E3M2": (8, 3, 2, 3, 0, 5, "finite"),
    "E2M3": (8, 2, 3, 1, 0, 5, "finite"),
    "E2M1X2": (4, 2, 1, 1, 0, 3, "finite"),
    "E1M2X2": (4, 1, 2, 1, 0, 3, "finite"),
    "HiF4X2": (4, 1, 2, 1, 0, 3, "finite"),
}
INTEGERS = {  # name: (bits, signed)
    "S64": (64, True), "S32": (32, True), "S16": (16, True), "S8": (8, True), "S4X2": (4, True),
    "U64": (64, False), "U32": (32, False), "U16": (16, False), "U8": (8, False), "U4X2": (4, False),
}
FLOATS = list(BINARY) + ["HiF8", "E8M0"]
ALL_TYPES = FLOATS + list(INTEGERS)
WIDTH = {**{k: v[0] for k, v in BINARY.items()}, "HiF8": 8, "E8M0": 8, **{k: v[0] for k, v in INTEGERS.items()}}
CANONICAL_NAN = {"FP64": 0x7FF8000000000000, "FP32": 0x7FC00000, "TF32": 0x7FC00000, "HF32": 0x7FC00000,
                 "FP16": 0x7E00, "BF16": 0x7FC0, "HiF8": 0x80, "E4M3": 0x7F, "E5M2": 0x7E, "E8M0": 0xFF}
HAS_INF = {"FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E5M2", "HiF8"}
MASK64 = (1 << 64) - 1


@lru_cache(maxsize=None)
def pow2(k: int) -> Fraction:
    return Fraction(2) ** k


def floor_log2(a: Fraction) -> int:
    e = a.numerator.bit_length() - a.denominator.bit_length()
    if pow2(e) > a:
        e -= 1
    if pow2(e + 1) <= a:
        e += 1
    return e


# ----------------------------------------------------------------------------- decoding

def _hif8(code: int):
    """HiF8 from the profile's dot-prefix description."""
    if code == 0x80:
        return ("nan", True)
    if code & 0x7F == 0x6F:
        return ("inf", bool(code & 0x80))
    negative = bool(code & 0x80)
    b = [(code >> i) & 1 for i in range(7)]  # body bits 0..6
    if code & 0x7F == 0:
        return ("num", Fraction(0), False)
    if b[6] == 0 and b[5] == 0 and b[4] == 0 and b[3] == 0:  # prefix 0000: denormal
        value = pow2((code & 7) - 23)
    else:
        if b[6] == 0 and b[5] == 0 and b[4] == 0:  # 0001: D0
            d, rest = 0, code & 7
            mant_bits = 3
        elif b[6] == 0 and b[5] == 0:  # 001: D1
            d, rest, mant_bits = 1, code & 0xF, 3
        elif b[6] == 0:  # 01: D2
            d, rest, mant_bits = 2, code & 0x1F, 3
        elif b[5] == 0:  # 10: D3
            d, rest, mant_bits = 3, code & 0x1F, 2
        else:  # 11: D4
            d, rest, mant_bits = 4, code & 0x1F, 1
        mant = rest & ((1 << mant_bits) - 1)
        if d == 0:
            exponent = 0
        else:
            field = rest >> mant_bits  # Se followed by d-1 magnitude bits
            se = field >> (d - 1)
            magnitude = (1 << (d - 1)) | (field & ((1 << (d - 1)) - 1))
            exponent = -magnitude if se else magnitude
        value = pow2(exponent) * (1 + Fraction(mant, 1 << mant_bits))
    return ("num", -value if negative else value, negative)


@lru_cache(maxsize=1 << 20)
def decode(name: str, word: int):
    """('num', Fraction, negative-zero-or-sign), ('inf', negative), ('nan', quiet), ('invalid',)."""
    width = WIDTH[name]
    v = word & ((1 << width) - 1)
    if name in INTEGERS:
        bits, signed = INTEGERS[name]
        if signed and v >> (bits - 1):
            v -= 1 << bits
        return ("num", Fraction(v), False)
    if name == "HiF8":
        return _hif8(v)
    if name == "E8M0":
        return ("nan", True) if v == 0xFF else ("num", pow2(v - 127), False)
    _, eb, m, bias, shift, sign_bit, specials = BINARY[name]
    if (name in ("TF32", "HF32") and v & ((1 << shift) - 1)) or (name in ("E3M2", "E2M3") and v >> 6):
        return ("invalid",)
    negative = bool((v >> sign_bit) & 1)
    frac = (v >> shift) & ((1 << m) - 1)
    e = (v >> (shift + m)) & ((1 << eb) - 1)
    top = (1 << eb) - 1
    if specials == "ieee" and e == top:
        return ("inf", negative) if frac == 0 else ("nan", bool(frac >> (m - 1)))
    if specials == "fn" and e == top and frac == (1 << m) - 1:
        return ("nan", True)
    if e == 0:
        value = Fraction(frac) * pow2(1 - bias - m)
    else:
        value = (1 + Fraction(frac, 1 << m)) * pow2(e - bias)
    return ("num", -value if negative else value, negative)


# ----------------------------------------------------------------------------- value grids

@lru_cache(maxsize=None)
def _small_grid(name: str):
    """Sorted non-negative finite (value, code) pairs plus the would-be next value
    above the max finite (code None) for formats of at most 8 bits."""
    width = WIDTH[name]
    pairs = {}
    for code in range(1 << width):
        d = decode(name, code)
        if d[0] == "num" and d[1] >= 0 and not (d[1] == 0 and d[2]):
            if d[1] not in pairs or code < pairs[d[1]]:
                pairs[d[1]] = code
    values = sorted(pairs)
    top = values[-1]
    # The would-be next value above the max finite, at the top binade's spacing
    # (HiF8's top binade 2**15 keeps one mantissa bit: 1.5 * 2**15).
    values.append(Fraction(3, 2) * top if name == "HiF8" else 2 * top - values[-2])
    codes = [pairs[v] for v in values[:-1]] + [None]
    return values, codes


def _binary_neighbours(name: str, a: Fraction):
    """(lo, lo_code, hi, hi_code) around a > 0 for a wide binary format."""
    _, eb, m, bias, shift, _, _ = BINARY[name]
    emin, emax = 1 - bias, (1 << eb) - 2 - bias
    e = floor_log2(a)
    ec = max(e, emin)
    q = pow2(ec - m)
    k = a.numerator * q.denominator // (a.denominator * q.numerator)
    lo = k * q

    def code(kk):
        if ec == emin and kk < (1 << m):
            return kk << shift
        return (((ec - emin + 1) << m) + (kk - (1 << m))) << shift

    max_value = (2 - Fraction(1, 1 << m)) * pow2(emax)
    lo_code = code(k) if lo <= max_value else None
    hi = lo + q
    hi_code = code(k + 1) if hi <= max_value else None
    return lo, lo_code, hi, hi_code


def neighbours(name: str, a: Fraction):
    """Adjacent candidates lo <= a < hi of the format extended beyond its max."""
    if WIDTH[name] > 8:
        return _binary_neighbours(name, a)
    values, codes = _small_grid(name)
    if a >= values[-1]:
        return values[-1], None, values[-1] * 2, None
    i = bisect.bisect_right(values, a) - 1
    return values[i], codes[i], values[i + 1], codes[i + 1]


def _parity(name, code, fallback_code):
    """LSB of a candidate code; a would-be code beyond the max is max + 1."""
    if code is None:
        code = fallback_code + (1 << (BINARY[name][4] if name in BINARY else 0))
    shift = BINARY[name][4] if name in BINARY else 0
    return (code >> shift) & 1


def choose(mode, negative, a, lo, hi, lo_odd, hi_odd):
    """Pick lo or hi for magnitude a strictly between them (returns True for hi)."""
    below, above = a - lo, hi - a
    if mode == "RTZ":
        return False
    if mode == "RTP":
        return not negative
    if mode == "RTM":
        return negative
    if mode == "RTO":
        return not lo_odd
    if below != above:
        return above < below
    if mode == "RNE":
        return bool(lo_odd)
    if mode == "RNA":
        return True
    return not negative  # RHB: the numerically greater value


# ----------------------------------------------------------------------------- rules

def min_normal(name):
    if name == "HiF8":
        return pow2(-15), 1
    _, eb, m, bias, _, _, _ = BINARY[name]
    return pow2(1 - bias), m  # X2 lanes too (project choice: OCP MX view of E2M1)


def is_tiny(name, mode, negative, a):
    t, bits = min_normal(name)
    if a >= t:
        return False
    if a < t / 2:
        return True
    q = t / 2 / (1 << bits)
    k = a.numerator * q.denominator // (a.denominator * q.numerator)
    lo, hi = k * q, (k + 1) * q
    if lo == a:
        return True
    return not (choose(mode, negative, a, lo, hi, k & 1, (k + 1) & 1) and hi == t)


def max_code(name):
    if name == "HiF8":
        return 0x6E
    values, codes = _small_grid(name) if WIDTH[name] <= 8 else (None, None)
    if codes is not None:
        return codes[-2]
    _, eb, m, bias, shift, _, _ = BINARY[name]
    return ((((1 << eb) - 2) << m) | ((1 << m) - 1)) << shift


def sign_code(name, negative):
    if name == "HiF8":
        return 0x80 if negative else 0
    return (1 << BINARY[name][5]) if negative else 0


def inf_code(name):
    if name == "HiF8":
        return 0x6F
    _, eb, m, _, shift, _, _ = BINARY[name]
    return ((1 << eb) - 1) << (m + shift)


def overflow(name, mode, negative, sat):
    biggest = max_code(name) | sign_code(name, negative)
    if sat:
        return biggest, OF | NX
    to_inf = mode in ("RNE", "RNA", "RHB") or (mode == "RTP" and not negative) or (mode == "RTM" and negative)
    if to_inf and name in HAS_INF:
        return inf_code(name) | sign_code(name, negative), OF | NX
    if to_inf and name == "E4M3":
        return 0x7F, OF | NX
    return biggest, OF | NX


def to_float(name, x: Fraction, negative_zero: bool, mode, sat):
    if x == 0:
        return (0 if name == "HiF8" else sign_code(name, negative_zero)), 0
    negative = x < 0
    a = -x if negative else x
    lo, lo_code, hi, hi_code = neighbours(name, a)
    if a == lo and lo_code is not None:
        return lo_code | sign_code(name, negative), 0
    if lo_code is None:  # beyond even the would-be next value
        return overflow(name, mode, negative, sat)
    up = choose(mode, negative, a, lo, hi, _parity(name, lo_code, 0), _parity(name, hi_code, lo_code))
    code = hi_code if up else lo_code
    if code is None:
        return overflow(name, mode, negative, sat)
    flags = NX | (UF if is_tiny(name, mode, negative, a) else 0)
    if code == 0 and name == "HiF8":
        return 0, flags
    return code | sign_code(name, negative), flags


def round_integer(x: Fraction, mode):
    """FloatingToInteger with ties-to-even RNE. Returns (n, inexact)."""
    lower = x.numerator // x.denominator
    frac = x - lower
    if frac == 0:
        return lower, False
    half = Fraction(1, 2)
    if mode == "RNE":
        up = frac > half or (frac == half and lower % 2 == 1)
    elif mode == "RTP":
        up = True
    elif mode == "RTM":
        up = False
    elif mode == "RTZ":
        up = x < 0
    elif mode == "RNA":
        up = frac > half or (frac == half and x > 0)
    elif mode == "RTO":
        up = lower % 2 == 0
    else:
        up = frac >= half
    return lower + (1 if up else 0), True


def int_word(name, n):
    return n & MASK64 if INTEGERS[name][1] else n


def int_range(name):
    bits, signed = INTEGERS[name]
    return (-(1 << (bits - 1)), (1 << (bits - 1)) - 1) if signed else (0, (1 << bits) - 1)


def to_integer(name, d, mode, sat):
    lo, hi = int_range(name)
    indefinite = lo if INTEGERS[name][1] else hi
    if d[0] in ("nan", "invalid"):
        return int_word(name, 0 if sat else indefinite), NV
    if d[0] == "inf":
        return int_word(name, (lo if d[1] else hi) if sat else indefinite), NV
    n, inexact = round_integer(d[1], mode)
    if lo <= n <= hi:
        return int_word(name, n), NX if inexact else 0
    return int_word(name, (lo if n < lo else hi) if sat else indefinite), NV


def to_e8m0(d, mode, sat):
    if d[0] != "num" and not (d[0] == "inf" and not d[1]):
        return 0xFF, NV
    if d[0] == "inf":
        return (0xFE if sat else 0xFF), OF | NX
    x = d[1]
    if x <= 0:
        return 0xFF, NV
    f = floor_log2(x)
    exact = x == pow2(f)
    if f < -127:
        return (0x00 if sat else 0xFF), UF | NX
    if f >= 127 and not exact:
        return (0xFE if sat else 0xFF), OF | NX
    if exact:
        return f + 127, 0
    if mode == "RTM":
        r = f
    elif mode == "RTP":
        r = f + 1
    elif mode == "RTZ":
        r = f + 1 if f < 0 else f
    elif mode == "RTO":
        r = f if f % 2 else f + 1
    else:  # nearest in log2: above sqrt(2) * 2**f
        r = f + 1 if x * x > 2 * pow2(2 * f) else f
    return r + 127, NX


def convert(word, src, dst, mode, sat, canonicalize=False):
    """Reference hw-ieee conversion of one word: (result word, flags)."""
    d = decode(src, word)
    if src in INTEGERS and dst in INTEGERS:
        n = d[1].numerator
        lo, hi = int_range(dst)
        bits, _ = INTEGERS[dst]
        if sat:
            n = min(max(n, lo), hi)
        else:
            n = n % (1 << bits)
            if n > hi:
                n -= 1 << bits
        return int_word(dst, n), 0
    if dst == "E8M0":
        return to_e8m0(d, mode, sat)
    if dst in INTEGERS:
        return to_integer(dst, d, mode, sat)
    if d[0] in ("nan", "invalid"):
        signals = d[0] == "invalid" or (not d[1] and not canonicalize)
        if dst in CANONICAL_NAN:
            return CANONICAL_NAN[dst], NV if signals else 0
        return 0, NV
    if d[0] == "inf":
        if dst in HAS_INF and not sat:
            return inf_code(dst) | sign_code(dst, d[1]), 0
        return overflow(dst, "RNE", d[1], sat)
    return to_float(dst, d[1], d[2], mode, sat)


def value_of(name, word):
    """Exact value of a result word (None for NaN/inf/invalid)."""
    d = decode(name, word)
    return d[1] if d[0] == "num" else None


# ----------------------------------------------------------------------------- TQUANT, TMULS, TGEMV_MX_ACC

def reference_quantize(x_word, m_word, zp, dst, mode, sat, profile):
    """TQUANT element (reference-quantization.asl for pto-v0; hw-ieee decision 14, as
    numeric.py): one rounding of the exact x*m + zp."""
    lo, hi = int_range(dst)
    x = decode("FP32", x_word)
    m = decode("FP32", m_word & 0xFFFFFFFF)[1]
    if x[0] == "nan":
        return (int_word(dst, 0 if profile == "pto-v0" or sat else lo if dst == "S8" else hi), NV)
    if x[0] == "inf":
        end = lo if x[1] else hi
        if profile == "pto-v0":
            return int_word(dst, end), OF | NX
        return int_word(dst, end if sat else (lo if dst == "S8" else hi)), NV
    n, inexact = round_integer(x[1] * m + zp, mode)
    if sat:
        n = min(max(n, lo), hi)
    else:
        n %= 256
        if dst == "S8" and n > 127:
            n -= 256
    return int_word(dst, n), NX if inexact else 0



def reference_multiply(name, a_word, b_word):
    """IEEE multiply, RNE, canonical NaN (hardware profile arithmetic)."""
    a, b = decode(name, a_word), decode(name, b_word)
    if a[0] in ("nan", "invalid") or b[0] in ("nan", "invalid"):
        signals = any(d[0] == "invalid" or (d[0] == "nan" and not d[1]) for d in (a, b))
        return CANONICAL_NAN[name], NV if signals else 0
    negative = (a[1] < 0 or (a[0] == "num" and a[2])) if a[0] == "num" else a[1]
    negative ^= (b[1] < 0 or (b[0] == "num" and b[2])) if b[0] == "num" else b[1]
    if a[0] == "inf" or b[0] == "inf":
        if (a[0] == "num" and a[1] == 0) or (b[0] == "num" and b[1] == 0):
            return CANONICAL_NAN[name], NV
        return inf_code(name) | sign_code(name, negative), 0
    product = a[1] * b[1]
    if product == 0:
        return (0 if name == "HiF8" else sign_code(name, negative)), 0
    return to_float(name, product, negative, "RNE", False)



def reference_fma(acc, a, atype, sa, b, btype, sb):
    """acc + (a*2**(sa-127)) * (b*2**(sb-127)) rounded once to FP32 (RNE)."""
    c, x, y = decode("FP32", acc), decode(atype, a), decode(btype, b)
    signals = any(d[0] == "nan" and not d[1] for d in (c, x, y))
    if any(d[0] == "nan" for d in (c, x, y)) or sa == 0xFF or sb == 0xFF:
        return 0x7FC00000, NV if signals else 0

    def neg(d):
        return d[1] if d[0] == "inf" else (d[1] < 0 or d[2])

    p_neg = neg(x) ^ neg(y)
    if x[0] == "inf" or y[0] == "inf":
        if (x[0] == "num" and x[1] == 0) or (y[0] == "num" and y[1] == 0):
            return 0x7FC00000, NV
        if c[0] == "inf" and c[1] != p_neg:
            return 0x7FC00000, NV
        return 0x7F800000 | (p_neg << 31), 0
    if c[0] == "inf":
        return 0x7F800000 | (c[1] << 31), 0
    product = x[1] * y[1] * pow2(0 if sa is None else sa - 127) * pow2(0 if sb is None else sb - 127)
    total = c[1] + product
    if total == 0:
        both_negative_zero = c[1] == 0 and c[2] and product == 0 and p_neg
        return (0x80000000 if both_negative_zero else 0), 0
    return to_float("FP32", total, False, "RNE", False)
