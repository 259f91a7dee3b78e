"""Fast exact hw-ieee conversions: each path serves the pairs named here and gives, words and
flags, what ``convert._hardware_exact`` gives (checked in tests/numeric/test_numeric_convert_fast.py);
``convert._fast`` picks the first that applies, in this order.

- A float type into itself (FP64, FP32, TF32, HF32, FP16, BF16, E5M2): the finite words are
  the result; NaN and infinite lanes (and TF32/HF32 lanes with a constrained bit set) take
  the exact path.
- TF32 and HF32 sources: a valid encoding is the FP32 encoding of its value, so the FP32
  conversion serves it; invalid encodings take the exact path.
- FP16, BF16 and the 8/16-bit integers into FP32, TF32, HF32 and FP64: numpy's cast of the
  exact value, trusted for a pair and options only once it matched the exact path on every
  source encoding (``widening_cast``).
- Sources of at most 16 bits (FP16, BF16, the 8-bit floats, 8- and 16-bit integers
  into a floating type or from one): one table of every source encoding per
  (pair, mode, Sat, Canonicalize), computed once by the exact path itself, then a gather
  of words and flags. Arrays of a 16-bit source below ``TABLE_MIN`` elements run the exact
  path until the table exists (a table costs one exact run of 65,536 encodings); an 8-bit
  source's table is built at once.
- FP32 -> FP64: binary64 holds every FP32 value; NaN and infinity lanes take the exact path.
- FP32 and FP64 -> integers: the integral candidate is computed in the source format itself,
  where every step is exact (``_integral``); range and the indefinite or saturated answers by
  clamping (``float_to_integer``).
- Integers of at most 32 bits into the binary floats: exact in binary64, then the narrowing
  kernel from FP64, which rounds once.
- FP64 into FP16 and the floats of at most 8 bits: round-to-odd into FP32, then the FP32 path;
  FP32 into the floats of at most 8 bits: round-to-odd into BF16, then the BF16 table. With at
  least two more significant bits in the intermediate than in the destination (and its range),
  rounding the round-to-odd value gives the result and the flags of rounding the original.
- Integer pairs of 8 to 64 bits: numpy's modular casts (Sat=0), clipped first under Sat=1.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import DataType, dtype as _dtype
from .flags import FLAG_NV, FLAG_NX
from .integers import indefinite_word, maximum_word, minimum_word
from .rounding import RoundingMode
from .words import U64

TABLE_MIN = 1 << 14
_FP32, _FP64 = _dtype("FP32"), _dtype("FP64")
_TABLES: dict = {}


def table_applies(s: DataType, d: DataType) -> bool:
    return s.bits <= 16 and (s.is_float or d.is_float) and d.name != "E8M0"


def from_table(lane, s: DataType, d: DataType, mode, saturate, canonicalize, exact):
    """Words and flags by table lookup, or None where the array is small and the table
    does not exist yet. ``exact(lanes)`` is the exact path for the same pair and options."""
    key = (s.name, d.name, mode, saturate, canonicalize)
    table = _TABLES.get(key)
    if table is None:
        if lane.size < TABLE_MIN and s.bits > 8:  # a table of 256 encodings costs less than a small tile
            return None
        codes = np.arange(1 << s.bits, dtype=np.uint64).astype(lane.dtype)
        words, flags = exact(codes)
        table = _TABLES[key] = (np.ascontiguousarray(words, dtype=U64), np.ascontiguousarray(flags, dtype=np.uint8))
    if s.bits not in (8, 16):
        lane = lane & lane.dtype.type((1 << s.bits) - 1)
    return _gather(table, lane)


_GATHER_BLOCK = 1 << 14


def _gather(table, lane):
    """``table``'s words and flags at every lane, block by block: the intp index (np.take is
    slow on narrower index types) is one cache-sized buffer, and the gathers write straight into
    the results, so no whole-array temporary is made."""
    words = np.empty(lane.shape, dtype=U64)
    flags = np.empty(lane.shape, dtype=np.uint8)
    flat_lane, flat_words, flat_flags = lane.reshape(-1), words.reshape(-1), flags.reshape(-1)
    index = np.empty(min(_GATHER_BLOCK, flat_lane.size), dtype=np.intp)
    for first in range(0, flat_lane.size, _GATHER_BLOCK):
        last = min(first + _GATHER_BLOCK, flat_lane.size)
        at = index[:last - first]
        np.copyto(at, flat_lane[first:last], casting="unsafe")  # unsigned lanes below the table's size
        np.take(table[0], at, out=flat_words[first:last], mode="clip")
        np.take(table[1], at, out=flat_flags[first:last], mode="clip")
    return words, flags


def _exponent_all_ones(lane, s: DataType):
    """Lanes of an IEEE-style float source with the all-ones exponent (NaN, infinity)."""
    exponent = lane.dtype.type(((1 << s.fmt.exp_bits) - 1) << (s.fmt.frac_bits + s.fmt.frac_shift))
    return (lane & exponent) == exponent


def _settle(words, flags, lane, where, exact):
    """``words`` and ``flags`` with the lanes where ``where`` holds taken from ``exact(lanes)``."""
    rest = np.flatnonzero(where)
    if rest.size:
        words[rest], flags[rest] = exact(lane[rest])
    return words, flags


def fp32_to_fp64_applies(s: DataType, d: DataType) -> bool:
    return s.name == "FP32" and d.name == "FP64"


def fp32_to_fp64(lane, exact):
    with np.errstate(invalid="ignore"):  # signalling NaNs: settled below
        words = lane.view(np.float32).astype(np.float64).view(U64)
    return _settle(words, np.zeros(lane.shape, dtype=np.uint8), lane, _exponent_all_ones(lane, _FP32), exact)


def float_to_integer_applies(s: DataType, d: DataType) -> bool:
    return s.name in ("FP32", "FP64") and d.is_integer


def _integral(v, mode: RoundingMode):
    """The integral value ``v`` rounds to under ``mode``, in ``v``'s own binary format (exact steps only)."""
    ft = v.dtype.type
    if mode is RoundingMode.RTZ:
        return np.trunc(v)
    if mode is RoundingMode.RTM:
        return np.floor(v)
    if mode is RoundingMode.RTP:
        return np.ceil(v)
    if mode is RoundingMode.RNE:
        return np.rint(v)
    if mode is RoundingMode.RNA:
        t = np.trunc(v)
        away = np.abs(v - t) >= ft(0.5)
        return t + np.copysign(away.astype(ft), v)
    low = np.floor(v)
    if mode is RoundingMode.RHB:
        return low + (v - low >= ft(0.5))
    # RTO: floor if it is odd or v is integral, else floor + 1
    even = (low - ft(2) * np.floor(low * ft(0.5))) == 0
    return low + ((v != low) & even)


def float_to_integer(lane, s: DataType, d: DataType, mode: RoundingMode, saturate: bool):
    """FP32/FP64 lanes to integer type ``d``: ``(words, flags)`` (the caller runs it block by block).

    The rounded value ``r`` is clamped, in the source format, to ``[low, 2**bits]`` where
    ``low`` is the lower endpoint of ``d``'s range (-1 for an unsigned ``d`` without Sat:
    below its range the answer is the indefinite all-ones word); ``fmax`` takes NaN to
    ``low``. Every clamped value is an integer of at most 33 bits, exact in int64, and the
    lanes outside the range land on an endpoint that gives their answer: Sat, and an
    unsigned ``d`` without it, clip the upper edge to the maximum; without Sat the words
    wrap to ``d``'s width, which takes a signed type's ``2**(bits-1)`` to its minimum (its
    indefinite word) and an unsigned one's -1 to all ones. NaN under Sat (0) is fixed lane by lane. 64-bit destinations select.
    """
    with np.errstate(invalid="ignore"):
        v = lane.view(np.float32 if s.bits == 32 else np.float64)
        ft = v.dtype.type
        r = _integral(v, mode).astype(ft, copy=False)
        low = ft(d.int_min)
        limit = ft(2.0 ** (d.bits - 1 if d.signed else d.bits))  # int_max + 1, a power of two
        fits = (r >= low) & (r < limit)  # NaN fails both
        inexact = r != v
        inexact &= fits
        flags = inexact.view(np.uint8) * np.uint8(FLAG_NX)  # a multiply is cheaper than numpy's uint8 shift
        outside = np.invert(fits, out=fits)
        flags |= outside.view(np.uint8) * np.uint8(FLAG_NV)
        if d.bits == 64:
            return _select_integer(v, r, outside, d, saturate), flags
        clamp_low = low if (saturate or d.signed) else ft(-1)
        np.fmax(r, clamp_low, out=r)
        np.fmin(r, limit, out=r)
        words = r.astype(np.int64)
        if saturate:
            np.minimum(words, np.int64(d.int_max), out=words)
            if d.signed:
                nan = np.flatnonzero(v != v)
                words[nan] = 0
        else:  # wrap to d's width
            if d.signed:
                words -= np.int64(d.int_min)
                words &= np.int64(d.mask)
                words += np.int64(d.int_min)
            else:  # above the range: the maximum, the indefinite word too
                np.minimum(words, np.int64(d.int_max), out=words)
                words &= np.int64(d.mask)
    return words.view(U64), flags


def _select_integer(v, r, outside, d: DataType, saturate: bool):
    """Words of a 64-bit integer destination (its range edge 2**63 or 2**64 is not an int64)."""
    words = r.astype(np.int64).view(U64) if d.signed else r.astype(np.uint64)
    if outside.any():
        if saturate:
            bad = np.where(np.signbit(v), minimum_word(d), maximum_word(d))
            bad = np.where(np.isnan(v), U64(0), bad)
        else:
            bad = np.full(v.shape, indefinite_word(d))
        words = np.where(outside, bad, words)
    return words


# --- integer -> integer (TileConvertIntegerValue) with numpy's own casts --------------------

_NATIVE = {(True, 8): np.int8, (True, 16): np.int16, (True, 32): np.int32, (True, 64): np.int64,
           (False, 8): np.uint8, (False, 16): np.uint16, (False, 32): np.uint32, (False, 64): np.uint64}


def native_integers_apply(s: DataType, d: DataType) -> bool:
    return s.is_integer and d.is_integer and s.bits in (8, 16, 32, 64) and d.bits in (8, 16, 32, 64)


def integer_to_integer(lane, s: DataType, d: DataType, saturate: bool):
    """Words of ``d`` (sign-extended for S types): numpy's integer casts are modular, which is
    Sat=0's rule (reinterpret at the source width, wrap to the destination's); Sat=1 clamps the
    source value to the destination range first. Flags are 0."""
    value = lane.view(_NATIVE[s.signed, s.bits])
    if saturate:
        if s.signed:  # every value fits int64; the range edges of d are clipped into it
            value = np.clip(value.astype(np.int64), max(d.int_min, -(1 << 63)), min(d.int_max, (1 << 63) - 1))
        elif d.int_max < s.int_max:  # unsigned source: only the upper edge can be passed
            value = np.minimum(value, value.dtype.type(d.int_max))
    out = value.astype(_NATIVE[d.signed, d.bits])
    words = out.astype(np.int64).view(U64) if d.signed else out.astype(U64)
    return words, np.zeros(lane.shape, dtype=np.uint8)


# --- integers of at most 32 bits into floats: exact in binary64, then one rounding ----------

def integer_through_binary64_applies(s: DataType, d: DataType, narrowing_applies) -> bool:
    """Every integer of at most 32 bits is a binary64 value; a destination the narrowing
    kernel serves from binary64 then rounds that value once, as the exact path does."""
    return (s.is_integer and s.bits in (8, 16, 32) and d.is_float
            and (d.name == "FP64" or narrowing_applies(_FP64, d)))


def integer_through_binary64(lane, s: DataType, d: DataType, narrow):
    """``narrow(binary64_words)``: the FP64 -> ``d`` conversion under the caller's options."""
    words = lane.view(_NATIVE[s.signed, s.bits]).astype(np.float64).view(U64)
    if d.name == "FP64":
        return words, np.zeros(lane.shape, dtype=np.uint8)
    return narrow(words)


# --- binary32 into formats of at most six significant bits, through bfloat16 ---------------

def binary32_through_bfloat16_applies(s: DataType, d: DataType) -> bool:
    """FP32 into a float of at most 8 bits with at most 5 fraction bits (other than E8M0):
    BF16 has FP32's exponent range and at least two more significant bits than ``d``."""
    return s.name == "FP32" and d.is_float and d.bits <= 8 and d.name != "E8M0" and d.fmt.frac_bits <= 5


def bfloat16_odd(lane):
    """FP32 encodings rounded to BF16 by round-to-odd: the high half-word, its lowest bit set
    where the low half-word is not zero. With at least two more significant bits in BF16 than
    in the destination, rounding this value to the destination (any mode, with tininess and
    overflow decided on the rounded value) gives the result of rounding the FP32 value, and
    the BF16 value is inexact in the destination wherever the first step was: the flags are
    the second step's. A NaN stays a NaN of its kind (the sticky bit keeps a payload that lay
    in the low half); infinities and zeros are exact."""
    high = (lane >> np.uint32(16)).astype(np.uint16)
    high |= (lane & np.uint32(0xFFFF)) != 0
    return high


# --- a float type into itself ----------------------------------------------------------------

def same_type_applies(s: DataType, d: DataType) -> bool:
    return s == d and s.is_float and s.fmt.kind == "binary" and s.fmt.nan == "ieee"


def same_type(lane, s: DataType, exact):
    """Finite encodings (with their constrained bits clear) are their own result, exact; NaNs,
    infinities (which saturate under Sat) and invalid encodings take the exact path."""
    special = _exponent_all_ones(lane, s)
    if s.must_be_zero:
        special |= (lane & lane.dtype.type(s.must_be_zero)) != 0
    return _settle(lane.astype(U64), np.zeros(lane.shape, dtype=np.uint8), lane, special, exact)


# --- TF32 and HF32: binary32 encodings with low fraction bits that must be clear ------------

def constrained_binary32_applies(s: DataType) -> bool:
    return s.name in ("TF32", "HF32")


def constrained_binary32(lane, s: DataType, as_binary32, exact):
    """A valid TF32/HF32 encoding is the FP32 encoding of its value: ``as_binary32(lane)`` (the
    FP32 -> destination conversion) serves it; an encoding with a constrained bit set is an
    invalid operand and takes the exact path."""
    words, flags = as_binary32(lane)
    return _settle(words, flags, lane, lane & np.uint32(s.must_be_zero), exact)


# --- binary64 into floats narrower than binary32, through binary32 --------------------------

_BINARY32_MAX = float(np.finfo(np.float32).max)


def binary64_through_binary32_applies(s: DataType, d: DataType) -> bool:
    """FP64 into FP16 and the floats of at most 8 bits (other than E8M0): each has at most 22
    significant bits, a spacing at least four times FP32's, and overflows below FP32's maximum
    under every mode. BF16, TF32 and HF32 share FP32's exponent range (an FP64 value beyond it
    must overflow where FP32's maximum need not), so they keep the exact path."""
    return (s.name == "FP64" and d.is_float and d.name not in ("FP64", "FP32", "E8M0", "BF16", "TF32", "HF32")
            and d.fmt.frac_bits <= 21)


def binary32_odd(lane):
    """FP64 encodings rounded to FP32 by round-to-odd, as FP32 words (NaN and infinite lanes
    are meaningless here). numpy's cast rounds to nearest; its error ``x - r`` is exact in
    binary64, and where it is not zero an even result steps one unit toward ``x``. Values
    beyond FP32's range are first clamped to just above its maximum, whose round-to-odd
    result is that (odd) maximum, as it is for any larger value."""
    with np.errstate(over="ignore", invalid="ignore"):
        x = np.clip(lane.view(np.float64), -(_BINARY32_MAX + 2.0 ** 102), _BINARY32_MAX + 2.0 ** 102)
        r = x.astype(np.float32)
        error = x - r.astype(np.float64)
    words = r.view(np.uint32).copy()
    inexact_even = (error != 0) & ((words & np.uint32(1)) == 0)
    toward_zero = inexact_even & ((error < 0) == (x > 0))  # |r| > |x|
    words += inexact_even
    words -= toward_zero.view(np.uint8).astype(np.uint32) << np.uint32(1)
    return words


def binary64_through_binary32(lane, as_binary32):
    """``as_binary32(words)`` (the FP32 -> destination conversion) of the round-to-odd FP32
    value: by the argument of ``bfloat16_odd`` (24 >= 22 + 2 significant bits) the result and
    flags of the FP64 value. An infinity or NaN goes through the FP32 encoding of its class
    and sign (infinity, quiet NaN, signalling NaN: the exact path's result for these depends
    on nothing else), not through the cast, which would quieten a signalling NaN."""
    odd = binary32_odd(lane)
    special = _exponent_all_ones(lane, _FP64)
    if special.any():
        at = np.flatnonzero(special)
        odd[at] = _binary32_class_words(lane[at])
    return as_binary32(odd)


def _binary32_class_words(lane):
    """FP32 words of the class and sign of FP64 infinities and NaNs: +-infinity, a quiet NaN
    (0x7FC00000), a signalling NaN (0x7F800001)."""
    sign = (lane >> U64(63)).astype(np.uint32) << np.uint32(31)
    fraction = lane & U64((1 << 52) - 1)
    quiet = (fraction >> U64(51)) != 0
    words = np.where(fraction == 0, np.uint32(0x7F800000), np.where(quiet, np.uint32(0x7FC00000), np.uint32(0x7F800001)))
    return words | sign


# --- widening casts, verified on every source encoding ---------------------------------------

def _bfloat16_values(lane):
    return (lane.astype(np.uint32) << np.uint32(16)).view(np.float32)


def _integer_values(signed: bool, bits: int):
    return lambda lane: lane.view(_NATIVE[signed, bits])


_EXACT_VALUES = {"FP16": lambda lane: lane.view(np.float16), "BF16": _bfloat16_values,
                 **{t: _integer_values(t[0] == "S", int(t[1:])) for t in ("S8", "U8", "S16", "U16")}}
_WIDE = {"FP32": np.float32, "TF32": np.float32, "HF32": np.float32, "FP64": np.float64}
_VERIFIED: dict = {}


def widening_cast_applies(s: DataType, d: DataType) -> bool:
    return s.name in _EXACT_VALUES and d.name in _WIDE


_CAST_BLOCK = 1 << 16


def _cast(lane, s: DataType, d: DataType):
    if s.name == "BF16" and d.bits == 32:  # the FP32 word is the BF16 word in the high half
        words = lane.astype(U64)
        words <<= U64(16)  # in place: a fresh array costs its page faults
        return words
    words = np.empty(lane.shape, dtype=U64)
    values, wide, unsigned = _EXACT_VALUES[s.name], _WIDE[d.name], np.uint64 if d.bits == 64 else np.uint32
    with np.errstate(invalid="ignore"):  # a signalling NaN: an exception lane, settled by the table
        for first in range(0, lane.size, _CAST_BLOCK):  # block temporaries stay in cache, no fresh pages
            block = slice(first, first + _CAST_BLOCK)
            words[block] = values(lane[block]).astype(wide).view(unsigned)
    return words


def _special(lane, s: DataType):
    """Lanes of a float source with the all-ones exponent (NaN, infinity); none for integers."""
    return None if s.is_integer else _exponent_all_ones(lane, s)


def widening_cast(lane, s: DataType, d: DataType, mode, saturate, canonicalize, exact):
    """FP16, BF16 and the 8/16-bit integers into FP32, TF32, HF32 and FP64 by numpy's cast of
    the exact value (every such value is a value of the destination, the cast is exact), or
    None. Used for a pair and options only once the cast has been compared with the exact
    path on every source encoding: an encoding where they differ must be a NaN or infinity
    (canonical NaN, NV, Sat's overflow), which then takes the exact table lane by lane; any
    other difference disables the cast for that key. The flags of the others are 0."""
    key = (s.name, d.name, mode, saturate, canonicalize)
    table = _VERIFIED.get(key)
    if table is None:
        if lane.size < TABLE_MIN and s.bits > 8:
            return None
        codes = np.arange(1 << s.bits, dtype=np.uint64).astype(lane.dtype)
        words, flags = exact(codes)
        differ = (_cast(codes, s, d) != words) | (flags != 0)
        special = _special(codes, s)
        trusted = not (differ & ~special).any() if special is not None else not differ.any()
        table = _VERIFIED[key] = (np.ascontiguousarray(words, dtype=U64), np.ascontiguousarray(flags, dtype=np.uint8)) \
            if trusted else False
    if table is False:
        return None
    words = _cast(lane, s, d)
    flags = np.zeros(lane.shape, dtype=np.uint8)
    special = _special(lane, s)
    if special is not None:
        rest = np.flatnonzero(special)
        if rest.size:
            index = lane[rest].astype(np.intp)
            words[rest], flags[rest] = table[0][index], table[1][index]
    return words, flags
