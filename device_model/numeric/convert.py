"""Element conversion between Tile DataTypes under the two numeric profiles.

``pto-v0`` is exactly the executable ASL (``TileConvertValue`` with the
reference ``TileProfileConvert``): E8M0 destinations use the exponent-domain
algorithm; any other pair with a floating side is a raw carrier operation
(an integer destination keeps the normalized low bits of the raw word, a
floating destination receives the word unchanged, flags 0); integer pairs use
``TileConvertIntegerValue``. Rounding mode and Canonicalize change nothing
else (digest 2.4/2.5a).

``hw-ieee`` is spec/hardware-conformance-profile.json: IEEE 754-2019
conversion with gradual underflow, tininess after rounding, canonical NaN
output and the five flags (see ``encode`` and ``integers`` for overflow and
range rules). Project choices where the profile is silent:
- a NaN into a format without NaN (E3M2, E2M3, X2 lanes) gives +0 with NV,
  whatever Sat (Sat=1 is the profile's "NaN converts to zero");
- an invalid encoding (TF32/HF32 low bits, E3M2/E2M3 bits 7:6 set) is an
  invalid operand: it converts like a signalling NaN (NV). TCVT legality
  rejects such sources before execution, so only direct calls see this;
- an infinity keeps its sign where the destination has infinities (no flag);
  otherwise, or with Sat=1, it takes the overflow result with OF|NX
  (E4M3: 0x7F with Sat=0, matching the postprocess rule of matrix-postprocess.asl);
- integer-to-integer conversion is TileConvertIntegerValue in both profiles
  (wrap / clamp) and raises no flag;
- result words: floating encodings zero-extended, signed integers
  sign-extended to 64 bits, unsigned integers zero-extended.
"""
from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from functools import lru_cache

import numpy as np

from ..dtypes import DataType, dtype as _dtype
from . import convert_fast, e8m0
from .encode import geometry, overflow_result, round_to_float
from .flags import FLAG_NV, FLAG_NX, FLAG_OF, FLAG_UF
from .formats import CLASS_CODES, decode_lanes
from .integers import convert_integer, indefinite_word, maximum_word, minimum_word, round_to_integer
from .rounding import RoundingMode, magnitude_increment, rounding_mode
from .words import MASK64, U64, as_words, lanes, normalize_integer, split_shift

PROFILES = ("pto-v0", "hw-ieee")


class UnsupportedConversion(ValueError):
    """The (source, destination) pair has no conversion in the selected profile."""


def resolve_profile(profile) -> str:
    key = str(profile).strip().lower()
    if key not in PROFILES:
        raise ValueError(f"unknown numeric profile {profile!r}; expected one of {', '.join(PROFILES)}")
    return key


def resolve_conversion_rounding(rounding, src: DataType, dst: DataType) -> RoundingMode:
    """A mode name; ``NONE``/None is the TCVT default (RTZ float->integer, else RNE)."""
    if rounding is None or (isinstance(rounding, str) and rounding.strip().upper() == "NONE"):
        return RoundingMode.RTZ if src.is_float and dst.is_integer else RoundingMode.RNE
    return rounding_mode(rounding)


def check_pair(src: DataType, dst: DataType, profile: str) -> None:
    """HardwareTCVTTypePairSupported, enforced by the executable spec in both profiles."""
    if dst.name == "E8M0" and src.name not in e8m0.SOURCES:
        raise UnsupportedConversion(
            f"conversion {src.name} -> E8M0 is not supported under profile {profile}: "
            "an E8M0 destination accepts only FP16, BF16 and FP32 sources"
        )


def source_words(bits, src: DataType) -> np.ndarray:
    """``bits`` as an unsigned integer array of carrier words, or TypeError/ValueError.

    Accepted: a Python int in 0..2**64-1, a (nested) sequence of them, or an
    unsigned numpy array (or scalar) at least as wide as ``src``'s encoding; carrier
    bits above the encoding are ignored by the conversion. Rejected, never
    reduced or extended: negative or larger integers, bools, floats, strings,
    signed or narrower arrays.
    """
    if isinstance(bits, (np.ndarray, np.generic)):
        kind = bits.dtype.kind
        if kind == "O":
            return source_words(bits.tolist(), src)
        if kind == "i":
            raise TypeError(f"{src.name} encodings must be unsigned: a signed {bits.dtype} array would be "
                            f"sign-extended; pass e.g. array.view(np.uint{bits.dtype.itemsize * 8})")
        if kind != "u":
            raise TypeError(f"{src.name} encodings must be unsigned integers, not a {bits.dtype} array")
        if bits.dtype.itemsize * 8 < src.bits:
            raise ValueError(f"a {bits.dtype} array cannot hold {src.name} encodings ({src.bits} bits): "
                             f"pass uint{max(src.bits, 8)} or wider")
        return np.asarray(bits)
    if isinstance(bits, (str, bytes)):
        raise TypeError(f"{src.name} encodings must be integers, not {type(bits).__name__} {bits!r:.40}")
    if isinstance(bits, int) and not isinstance(bits, bool):
        values, shape = [bits], ()
    else:
        try:
            grid = np.array(bits, dtype=object)
        except ValueError as exc:
            raise ValueError(f"{src.name} encodings: not a regular array of integers ({exc})") from None
        if grid.ndim == 0:
            raise TypeError(f"{src.name} encodings must be integers, not {type(bits).__name__}")
        values, shape = grid.reshape(-1).tolist(), grid.shape
    kinds = set(map(type, values))  # type checks at C speed
    if not kinds <= {int}:
        odd = sorted(k.__name__ for k in kinds - {int})
        raise TypeError(f"{src.name} encodings must be Python ints (or an unsigned numpy array), "
                        f"not {', '.join(odd)}")
    if values and (min(values) < 0 or max(values) > MASK64):
        bad = min(values) if min(values) < 0 else max(values)
        raise ValueError(f"{src.name} encoding {bad} is outside 0..2**64-1 (a carrier word is unsigned)")
    return np.array(values, dtype=U64).reshape(shape)


def _flag(value, name: str) -> bool:
    if not isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{name} must be True or False, not {type(value).__name__} {value!r:.40}")
    return bool(value)


def convert(bits, src, dst, rounding="RNE", saturate=False, profile="pto-v0", canonicalize=False):
    """Convert raw encodings of ``src`` to ``dst``. Returns ``(words uint64, flags uint8)``.

    ``bits``: carrier words, see ``source_words`` (one element per word; X2 types
    one 4-bit lane per word). ``saturate``, ``canonicalize``: bools. The result
    has the shape of ``bits``. Raises UnsupportedConversion for a pair the profile
    lacks, TypeError/ValueError for input it cannot mean.
    """
    s, d = _dtype(src), _dtype(dst)
    prof = resolve_profile(profile)
    mode = resolve_conversion_rounding(rounding, s, d)
    check_pair(s, d, prof)
    saturate, canonicalize = _flag(saturate, "saturate"), _flag(canonicalize, "canonicalize")
    words = source_words(bits, s)
    shape, flat = words.shape, words.reshape(-1)
    if prof == "pto-v0":
        out, flags = _reference(flat, s, d, mode, saturate)
    else:
        out, flags = _hardware(flat, s, d, mode, saturate, canonicalize)
    return out.reshape(shape), flags.reshape(shape)


def _reference(flat, s: DataType, d: DataType, mode, saturate):
    if d.name == "E8M0":
        return _to_e8m0(lanes(flat, s.bits), s, mode, saturate)
    zero_flags = np.zeros(flat.shape, dtype=np.uint8)
    if s.is_float or d.is_float:
        raw = as_words(flat)
        if d.is_integer:
            return normalize_integer(raw, d), zero_flags
        return raw.copy(), zero_flags
    return convert_integer(as_words(flat), s, d, saturate), zero_flags


CHUNK = 1 << 18  # elements per block: temporaries stay in cache, few Python-level steps
WORKERS = 1
_POOL = None


def use_workers(count: int) -> None:
    """Worker threads for large conversions (numpy releases the GIL inside each
    block operation). Default: one per core, at most four, or the environment's
    ``PTO_AVS_CONVERT_THREADS``; 1 runs everything on the calling thread."""
    global WORKERS, _POOL
    if count < 1:
        raise ValueError(f"worker threads must be at least 1, got {count}")
    if _POOL is not None:
        _POOL.shutdown(wait=True)
    WORKERS = count
    _POOL = ThreadPoolExecutor(max_workers=count, thread_name_prefix="pto-avs-convert") if count > 1 else None


use_workers(int(os.environ.get("PTO_AVS_CONVERT_THREADS") or min(os.cpu_count() or 1, 4)))


class _Scratch:
    """Reusable block-sized work arrays (in-place numpy operations avoid an
    allocation per step, which costs as much as the step itself)."""

    def __init__(self, ctype, size):
        self.a = np.empty(size, dtype=ctype)
        self.b = np.empty(size, dtype=ctype)
        self.rows = np.empty(size, dtype=np.intp)  # _NarrowingKernel._by_rows: row numbers, then codes
        self.codes = np.empty(size, dtype=np.intp)


def _blockwise(kernel, lane, fallback):
    """Fast path over cache-sized blocks, then one exact fallback.

    ``kernel(lane_block, words_block, flags_block, scratch)`` fills its blocks
    and returns the block indices it could not decide (or None);
    ``fallback(lanes)`` returns ``(words, flags)`` for those. Arrays of several
    blocks are split into contiguous parts, one per worker thread.
    """
    words = np.empty(lane.shape, dtype=U64)
    flags = np.empty(lane.shape, dtype=np.uint8)

    def run_part(start, stop):
        scratch = _Scratch(lane.dtype, min(CHUNK, stop - start))
        rest = []
        for first in range(start, stop, CHUNK):
            last = min(first + CHUNK, stop)
            undecided = kernel(lane[first:last], words[first:last], flags[first:last], scratch)
            if undecided is not None and undecided.size:
                rest.append(undecided + first)
        return rest

    blocks = -(-lane.size // CHUNK)
    parts = min(WORKERS, blocks)
    if parts > 1:
        bounds = [lane.size * i // parts for i in range(parts + 1)]
        rest = [r for part in _POOL.map(run_part, bounds[:-1], bounds[1:]) for r in part]
    else:
        rest = run_part(0, lane.size)
    if rest:
        rest = np.concatenate(rest)
        words[rest], flags[rest] = _in_blocks(fallback, lane[rest])
    return words, flags


EXACT_CHUNK = 1 << 15  # the exact paths hold a few dozen 64-bit temporaries per element


def _in_blocks(exact, lane):
    """``exact(lanes) -> (words, flags)``, a whole-array path, run block by block
    on the worker threads (same result; the temporaries stay in cache)."""
    if lane.size <= EXACT_CHUNK:
        return exact(lane)
    words = np.empty(lane.shape, dtype=U64)
    flags = np.empty(lane.shape, dtype=np.uint8)

    def run(first):
        last = first + EXACT_CHUNK
        words[first:last], flags[first:last] = exact(lane[first:last])

    starts = range(0, lane.size, EXACT_CHUNK)
    if _POOL is None:
        for first in starts:
            run(first)
    else:
        for _ in _POOL.map(run, starts):
            pass
    return words, flags


def _hardware(flat, s: DataType, d: DataType, mode, saturate, canonicalize):
    if s.is_integer and d.is_integer:
        if convert_fast.native_integers_apply(s, d):
            return _in_blocks(lambda block: convert_fast.integer_to_integer(block, s, d, saturate), lanes(flat, s.bits))
        return convert_integer(as_words(flat), s, d, saturate), np.zeros(flat.shape, dtype=np.uint8)
    return _hardware_lanes(lanes(flat, s.bits), s, d, mode, saturate, canonicalize)


def _hardware_lanes(lane, s: DataType, d: DataType, mode, saturate, canonicalize):
    found = _fast(lane, s, d, mode, saturate, canonicalize)
    return found if found is not None else _hardware_exact(lane, s, d, mode, saturate, canonicalize)


def _fast(lane, s: DataType, d: DataType, mode, saturate, canonicalize):
    """The first ``convert_fast`` path that serves the pair (and the array), or None."""
    def exact_from(source):
        return lambda codes: _hardware_exact(codes, source, d, mode, saturate, canonicalize)

    exact = lambda rest: _in_blocks(lambda block: _generic(block, s, d, mode, saturate, canonicalize), rest)  # noqa: E731
    if convert_fast.same_type_applies(s, d):
        return convert_fast.same_type(lane, s, exact)
    if convert_fast.constrained_binary32_applies(s):
        fp32 = _dtype("FP32")
        return convert_fast.constrained_binary32(
            lane, s, lambda words: _hardware_lanes(words, fp32, d, mode, saturate, canonicalize), exact)
    if convert_fast.widening_cast_applies(s, d):
        found = convert_fast.widening_cast(lane, s, d, mode, saturate, canonicalize, exact_from(s))
        if found is not None:
            return found
    if convert_fast.table_applies(s, d):
        found = convert_fast.from_table(lane, s, d, mode, saturate, canonicalize, exact_from(s))
        if found is not None:
            return found
    if convert_fast.fp32_to_fp64_applies(s, d):
        return convert_fast.fp32_to_fp64(lane, exact)
    if convert_fast.float_to_integer_applies(s, d):
        return _in_blocks(lambda block: convert_fast.float_to_integer(block, s, d, mode, saturate), lane)
    if convert_fast.integer_through_binary64_applies(s, d, _narrowing_applies):
        return convert_fast.integer_through_binary64(lane, s, d, exact_from(_dtype("FP64")))
    if convert_fast.binary64_through_binary32_applies(s, d):
        fp32 = _dtype("FP32")
        return convert_fast.binary64_through_binary32(
            lane, lambda words: _hardware_lanes(words, fp32, d, mode, saturate, canonicalize))
    if convert_fast.binary32_through_bfloat16_applies(s, d):
        return convert_fast.from_table(convert_fast.bfloat16_odd(lane), _dtype("BF16"), d, mode, saturate,
                                       canonicalize, exact_from(_dtype("BF16")))
    return None


def _hardware_exact(lane, s: DataType, d: DataType, mode, saturate, canonicalize):
    """The hw-ieee path without the tables and shortcuts of ``convert_fast`` (their reference)."""
    if d.name == "E8M0":
        return _to_e8m0(lane, s, mode, saturate)
    if _narrowing_applies(s, d):
        return _blockwise(_narrowing_kernel(lane.dtype.type, s, d, mode, saturate, canonicalize), lane,
                          lambda rest: _generic(rest, s, d, mode, saturate, canonicalize))
    return _in_blocks(lambda block: _generic(block, s, d, mode, saturate, canonicalize), lane)


def _to_e8m0(lane, s: DataType, mode, saturate):
    return _blockwise(
        lambda block, words, flags, scratch: e8m0.e8m0_fast(block, words, flags, s, mode),
        lane, lambda rest: e8m0.e8m0_from_lanes(rest, s, mode, saturate))


def _generic(lane, s: DataType, d: DataType, mode, saturate, canonicalize):
    """Decode, then round every class explicitly (hw-ieee)."""
    dec = decode_lanes(lane, s)
    words = np.zeros(lane.shape, dtype=U64)
    flags = np.zeros(lane.shape, dtype=np.uint8)
    cls = dec.cls
    signaling = (cls == CLASS_CODES.SIGNALING_NAN) & (not canonicalize)
    invalid_operand = signaling | (cls == CLASS_CODES.INVALID_ENCODING)
    not_a_number = dec.nan | (cls == CLASS_CODES.INVALID_ENCODING)
    finite = np.flatnonzero(dec.finite)
    infinite = np.flatnonzero(dec.infinite)
    if d.is_integer:
        words[finite], flags[finite] = round_to_integer(
            dec.negative[finite], dec.sig[finite], dec.exp[finite], d, mode, saturate)
        neg_inf = dec.negative[infinite]
        if saturate:
            words[infinite] = np.where(neg_inf, minimum_word(d), maximum_word(d))
            words[not_a_number] = U64(0)
        else:
            words[infinite] = indefinite_word(d)
            words[not_a_number] = indefinite_word(d)
        flags[infinite] = FLAG_NV
        flags[not_a_number] = FLAG_NV
        return words, flags
    words[finite], flags[finite] = round_to_float(
        dec.negative[finite], dec.sig[finite], dec.exp[finite], d, mode, saturate)
    if infinite.size:
        words[infinite] = overflow_result(dec.negative[infinite], d, RoundingMode.RNE, saturate)
        flags[infinite] = 0 if (d.fmt.has_inf and not saturate) else FLAG_OF | FLAG_NX
    if d.canonical_nan is not None:
        words[not_a_number] = U64(d.canonical_nan)
        flags[not_a_number] = np.where(invalid_operand[not_a_number], FLAG_NV, 0)
    else:
        words[not_a_number] = U64(0)
        flags[not_a_number] = FLAG_NV
    return words, flags


_KERNEL_ROW, _STRADDLING_ROW = 14, 15  # row codes of _NarrowingKernel._by_rows beyond the 14 band results


def _narrowing_applies(s: DataType, d: DataType) -> bool:
    """An IEEE-style source (NaN at the all-ones exponent, no constrained bits)
    into a binary destination with fewer fraction bits and no larger bias."""
    sf, df = s.fmt, d.fmt
    return (s.is_float and d.is_float and sf.kind == "binary" and sf.nan == "ieee" and sf.frac_shift == 0 and not s.must_be_zero
            and df.kind == "binary" and df.frac_bits < sf.frac_bits and df.bias <= sf.bias)


@lru_cache(maxsize=512)
def _narrowing_kernel(ct, s: DataType, d: DataType, mode: RoundingMode, saturate: bool, canonicalize: bool):
    """One kernel per pair and options: its constants (the far bands run the generic path on
    fourteen representatives) cost more than a small tile's conversion. The kernel holds no
    per-call state, so worker threads share it."""
    return _NarrowingKernel(ct, s, d, mode, saturate, canonicalize)


class _NarrowingKernel:
    """Rounds source normals that stay normal (and below the max finite) in the
    destination with a few in-place integer operations on the encoding bits;
    carries out of the fraction propagate into the exponent field.

    Called per block, it fills ``words``/``flags`` and returns the indices it
    leaves to the generic path (or None). Of the magnitudes outside that range
    it settles the bands where every value of a sign has one result (see
    ``_far_bands``); the generic path gets results in the destination's
    subnormal range and values near its max finite. A block where most lanes lie
    in the far bands (random encodings of a wider source) is classified by sign
    and exponent field first, and the rounding runs on the other lanes alone
    (``_by_rows``).
    Constants are prepared once per call.
    """

    def __init__(self, ct, s: DataType, d: DataType, mode: RoundingMode, saturate: bool, canonicalize: bool):
        self._far_bands(ct, s, d, mode, saturate, canonicalize)
        sf, df = s.fmt, d.fmt
        drop = sf.frac_bits - df.frac_bits
        self.mode = mode
        self.shift, self.half, self.low_mask = ct(drop), ct(1 << (drop - 1)), ct((1 << drop) - 1)
        self.sign_shift, self.sign_mask = ct(sf.sign_bit), ct((1 << sf.sign_bit) - 1)
        rebias = (sf.bias - df.bias) << df.frac_bits
        self.rebias = ct(rebias) if rebias else None
        self.frac_shift = ct(df.frac_shift) if df.frac_shift else None
        self.dst_sign = ct(df.sign_bit)
        lowest = (sf.bias - df.bias + 1) << sf.frac_bits  # smallest magnitude normal in d
        limit = (geometry(d).max_code + rebias) << drop  # from here on rounding may overflow
        # With the sign right above the kept bits (equal biases, e.g. FP32->BF16)
        # the whole lane is rounded and the sign lands in place by itself.
        self.in_place = rebias == 0 and sf.sign_bit - drop + df.frac_shift == df.sign_bit
        # in place, the magnitude test runs on lane << 1 (sign shifted out)
        scale = 2 if self.in_place else 1
        self.lowest, self.limit = ct(lowest * scale), ct(limit * scale)
        self.width = ct((limit - lowest) * scale)
        self.one = ct(1)
        # In place, source subnormals round on their bits as well (same exponent field and
        # bias): a result that stays below the smallest normal is tiny, so UF joins NX.
        # One that rounds up to the smallest normal is left to the generic path.
        self.source_normal = ct(lowest) if self.in_place else None
        self.result_magnitude = np.uint64((1 << df.sign_bit) - 1)
        self.result_normal = np.uint64(1 << (df.frac_bits + df.frac_shift))
        self._edge_constants(s, d, mode, saturate, lowest, limit)

    def __call__(self, lane, words, flags, scratch, by_rows=True):
        k = lane.size
        mag, n = scratch.a[:k], scratch.b[:k]
        inexact = flags.view(bool)
        if self.in_place:
            np.left_shift(lane, self.one, out=mag)
        else:
            np.bitwise_and(lane, self.sign_mask, out=mag)
        undecided = None
        if mag.min() < self.lowest or mag.max() >= self.limit:  # some magnitude outside [lowest, limit)
            np.subtract(mag, self.lowest, out=n)
            outside = np.greater_equal(n, self.width, out=inexact)  # (flags as scratch: NX is written below)
            if by_rows and 4 * np.count_nonzero(outside) > k:  # random wide encodings: most lanes lie in the far bands
                return self._by_rows(lane, words, flags, scratch)
            undecided = np.flatnonzero(outside)
        if self.in_place:
            source = lane
        else:
            source = mag
        mode = self.mode
        if mode is RoundingMode.RNE:
            np.right_shift(source, self.shift, out=n)
            n &= self.one
            n += source
            n += self.half - self.one
        elif mode is RoundingMode.RNA:
            np.add(source, self.half, out=n)
        elif mode is RoundingMode.RHB:  # a negative tie keeps the smaller magnitude
            np.right_shift(lane, self.sign_shift, out=n)
            np.subtract(source, n, out=n)
            n += self.half
        elif mode in (RoundingMode.RTP, RoundingMode.RTM):
            np.right_shift(lane, self.sign_shift, out=n)  # 1 for negative
            if mode is RoundingMode.RTP:
                n ^= self.one
            n *= self.low_mask
            n += source
        else:  # RTZ, RTO
            np.copyto(n, source)
        n >>= self.shift
        np.bitwise_and(lane, self.low_mask, out=mag)
        np.not_equal(mag, 0, out=inexact)
        if mode is RoundingMode.RTO:
            np.bitwise_or(n, inexact, out=n)
        if self.rebias is not None:
            n -= self.rebias
        if self.frac_shift is not None:
            n <<= self.frac_shift
        if not self.in_place:
            np.right_shift(lane, self.sign_shift, out=mag)
            mag <<= self.dst_sign
            n |= mag
        flags *= np.uint8(FLAG_NX)
        words[...] = n
        if undecided is not None and undecided.size:
            undecided = self._settle_far(lane, undecided, words, flags)
        return undecided

    def _far_bands(self, ct, s: DataType, d: DataType, mode: RoundingMode, saturate: bool, canonicalize: bool):
        """Magnitude bands of the source encoding whose results depend on the sign only:
        zero (exact), below half the destination's smallest subnormal (rounds to 0 or
        to that subnormal, per mode, with UF|NX), from ``2**(emax+1)`` up to the
        infinity code (overflow, per mode and Sat), infinity, signalling NaNs, quiet
        NaNs. Each band's two results are what the generic path gives one
        representative of each sign."""
        sf, g = s.fmt, geometry(d)
        inf_code = ((1 << sf.exp_bits) - 1) << sf.frac_bits

        def code_of_power(k):  # source encoding of 2**k, clamped to [1, inf_code]
            if k >= 1 - sf.bias:
                return min((k + sf.bias) << sf.frac_bits, inf_code)
            low = 1 - sf.bias - sf.frac_bits
            return 1 << (k - low) if k >= low else 1

        tiny_limit = code_of_power(g.q_floor - d.fmt.frac_bits - 1)
        huge_limit = code_of_power(g.emax + 1)
        quiet_nan = inf_code | (1 << (sf.frac_bits - 1))
        # band = searchsorted(edges, magnitude, "right"): 0 zero, 1 tiny, 2 left to the
        # generic path, 3 overflow, 4 infinity, 5 signalling NaN, 6 quiet NaN
        self.edges = np.array([1, tiny_limit, huge_limit, inf_code, inf_code + 1, quiet_nan], dtype=ct)
        self.settled = np.array([True, True, False, True, True, True, True])
        representatives = np.array([[0, 1, 0, huge_limit, inf_code, inf_code + 1, quiet_nan]] * 2, dtype=ct)
        representatives[1] |= ct(1 << sf.sign_bit)
        words, flags = _generic(representatives.reshape(-1), s, d, mode, saturate, canonicalize)
        self.band_words, self.band_flags = words.reshape(2, -1), flags.reshape(2, -1)
        self.magnitude_mask, self.sign_bit = ct((1 << sf.sign_bit) - 1), ct(sf.sign_bit)
        # By row (sign and exponent field): sign * 7 + band where the whole row lies in one
        # settled band, _KERNEL_ROW in band 2, _STRADDLING_ROW where an edge cuts the row.
        self.row_shift = ct(sf.frac_bits)
        row = np.arange(1 << (sf.exp_bits + 1), dtype=np.int64)
        exponent, sign = row & ((1 << sf.exp_bits) - 1), row >> sf.exp_bits
        first = np.searchsorted(self.edges, (exponent << sf.frac_bits).astype(ct), side="right")
        last = np.searchsorted(self.edges, (((exponent + 1) << sf.frac_bits) - 1).astype(ct), side="right")
        self.row_codes = np.where(first != last, _STRADDLING_ROW,
                                  np.where(self.settled[first], sign * self.settled.size + first, _KERNEL_ROW)).astype(np.intp)
        self.row_words = np.concatenate([self.band_words.reshape(-1), np.zeros(2, dtype=U64)])
        self.row_flags = np.concatenate([self.band_flags.reshape(-1), np.zeros(2, dtype=np.uint8)])

    def _settle_far(self, lane, undecided, words, flags):
        block = lane[undecided]
        magnitude = block & self.magnitude_mask
        band = np.searchsorted(self.edges, magnitude, side="right")
        settled = self.settled[band]
        if settled.any():
            sign = (block[settled] >> self.sign_bit).astype(np.intp)
            done = undecided[settled]
            words[done] = self.band_words[sign, band[settled]]
            flags[done] = self.band_flags[sign, band[settled]]
        return self._settle_subnormal(lane, undecided, magnitude, settled, words, flags)

    def _by_rows(self, lane, words, flags, scratch):
        """A block where most lanes lie in the far bands: each lane's sign and exponent field
        (its row) index ``row_codes``; the rows that straddle an edge (zero and the source
        subnormals, infinity and the NaNs) are classified lane by lane. Every lane takes
        its band's result, then the kernel reruns on the lanes of band 2 alone."""
        k = lane.size
        rows = np.right_shift(lane, self.row_shift, out=scratch.rows[:k], casting="unsafe")
        code = np.take(self.row_codes, rows, out=scratch.codes[:k], mode="wrap")  # ("wrap": no bounds pass)
        unsettled = np.flatnonzero(code >= _KERNEL_ROW)
        straddling = unsettled[code[unsettled] == _STRADDLING_ROW]
        if straddling.size:
            block = lane[straddling]
            band = np.searchsorted(self.edges, block & self.magnitude_mask, side="right")
            exact = (block >> self.sign_bit).astype(np.intp) * self.settled.size + band
            code[straddling] = np.where(self.settled[band], exact, _KERNEL_ROW)
            unsettled = unsettled[code[unsettled] == _KERNEL_ROW]
        np.take(self.row_words, code, out=words, mode="wrap")
        np.take(self.row_flags, code, out=flags, mode="wrap")
        if not unsettled.size:
            return None
        kept_words, kept_flags = np.empty(unsettled.size, dtype=U64), np.empty(unsettled.size, dtype=np.uint8)
        left = self(lane[unsettled], kept_words, kept_flags, scratch, by_rows=False)
        words[unsettled], flags[unsettled] = kept_words, kept_flags
        return unsettled[left] if left is not None else None

    def _settle_subnormal(self, lane, undecided, magnitude, settled, words, flags):
        """In place, source subnormals whose result stays subnormal are tiny: UF joins NX.
        Returns the lanes of ``undecided`` left to the generic path (after ``_settle_edges``)."""
        if self.source_normal is not None:
            subnormal = ~settled & (magnitude < self.source_normal)
            subnormal[subnormal] = (words[undecided[subnormal]] & self.result_magnitude) < self.result_normal
            done = undecided[subnormal]
            flags[done] |= (flags[done] != 0) * np.uint8(FLAG_UF)
            settled |= subnormal
        rest = undecided[~settled]
        return self._settle_edges(lane, rest, magnitude[~settled], words, flags) if rest.size else rest

    def _edge_constants(self, s: DataType, d: DataType, mode, saturate: bool, lowest: int, limit: int):
        """The two bands next to the kernel's range, in source magnitude units:

        - below the destination's smallest normal (``lowest``), source normals that round on
          the destination's subnormal grid ``2**(emin - m)``: the significand (hidden bit
          included) shifted right by ``K - E`` (``E`` the source exponent field), one
          increment per mode from the bits shifted out; UF joins NX where the result stays
          below the smallest normal (tiny after rounding too: rounding on the finer grid of
          an unbounded exponent cannot end higher). A result that reaches the smallest
          normal is left to the generic path (its tininess needs the finer rounding);
        - from ``limit`` (where rounding may overflow) up to ``2**(emax+1)``: the kernel's own
          word is the rounding at the destination's precision; where its magnitude passes the
          max finite code the result overflows (``overflow_result``, OF|NX).
        """
        sf, df = s.fmt, d.fmt
        self.edge_lowest, self.edge_limit = lowest, limit  # (source magnitudes, sign out)
        self.source_frac_bits = sf.frac_bits
        # shift = K - E: the subnormal grid's exponent emin - m against the source's E - bias - m_s
        self.edge_k = (1 - df.bias - df.frac_bits) + sf.bias + sf.frac_bits
        self.subnormal_edges = (not self.in_place and lowest > (1 << sf.frac_bits))
        self.dst_frac_bits = df.frac_bits
        self.dst_frac_shift, self.dst_sign_bit = df.frac_shift, df.sign_bit
        self.max_code = np.uint64(geometry(d).max_code)
        self.overflow_words = overflow_result(np.array([False, True]), d, mode, saturate)
        self.code_rebias = np.uint64((sf.bias - df.bias) << df.frac_bits)
        self.drop = np.uint64(sf.frac_bits - df.frac_bits)

    def _rounded_codes(self, magnitude, negative):
        """The destination codes (sign out, unbounded above) of source normal magnitudes
        (uint64) rounded at the destination's precision: the kernel's rounding, recomputed
        without the sign so that a carry past the exponent field stays visible."""
        return self._rounded(magnitude, np.full(magnitude.shape, self.drop, np.int64), negative) - self.code_rebias

    def _rounded(self, sig, shift, negative):
        """``sig / 2**shift`` rounded under the kernel's mode (``split_shift`` and
        ``magnitude_increment``, as ``round_to_float``), as uint64."""
        whole, half, sticky = split_shift(sig, shift)
        return whole + magnitude_increment(self.mode, negative, (whole & np.uint64(1)) != 0, half, sticky)

    def _settle_edges(self, lane, rest, magnitude, words, flags):
        """Settle the lanes ``rest`` (their source magnitudes ``magnitude``) that lie in one of
        the bands of ``_edge_constants``; return those left to the generic path."""
        magnitude = magnitude.astype(np.uint64)
        left = np.ones(rest.shape, dtype=bool)
        near = magnitude >= np.uint64(self.edge_limit)
        if near.any():  # below 2**(emax+1): the other bands were settled before
            at = rest[near]
            negative = (lane[at] >> self.sign_bit) != 0
            over = self._rounded_codes(magnitude[near], negative) > self.max_code
            if over.any():
                words[at[over]] = self.overflow_words[negative[over].astype(np.intp)]
                flags[at[over]] = FLAG_OF | FLAG_NX
            left[near] = False
        tiny = ~near & (magnitude < np.uint64(self.edge_lowest)) if self.subnormal_edges else None
        if tiny is not None and tiny.any():
            at = rest[tiny]
            left[tiny] = ~self._subnormal_results(at, magnitude[tiny], (lane[at] >> self.sign_bit) != 0, words, flags)
        return rest[left]

    def _subnormal_results(self, at, magnitude, negative, words, flags):
        """Round source normals ``magnitude`` (lanes ``at``) on the destination's subnormal
        grid; returns the mask of those settled (not those reaching the smallest normal)."""
        one = np.uint64(1)
        m = self.source_frac_bits
        field = magnitude >> np.uint64(m)
        sig = (magnitude & np.uint64((1 << m) - 1)) | np.uint64(1 << m)
        shift = np.int64(self.edge_k) - field.astype(np.int64)  # drop + 1 .. m + 1
        n = self._rounded(sig, shift, negative)
        inexact = (sig & ((one << shift.astype(np.uint64)) - one)) != 0
        settled = n < np.uint64(1 << self.dst_frac_bits)  # stays subnormal: tiny
        done = at[settled]
        n = n[settled]
        if self.dst_frac_shift:
            n <<= np.uint64(self.dst_frac_shift)
        words[done] = n | (negative[settled].astype(np.uint64) << np.uint64(self.dst_sign_bit))
        flags[done] = inexact[settled] * np.uint8(FLAG_NX | FLAG_UF)
        return settled
