"""Fast exact paths for hw-ieee add, sub, mul, div and sqrt (FP32, FP16, BF16, E4M3, E5M2).

Same results, words and flags, as the exact integer kernels of ``ieee_float``
(which stay the reference and serve every lane a fast path cannot prove), at a
fraction of their cost.

FP32 add, sub, mul, div and sqrt run in binary32 itself (``ieee_fast32``: the
host's correctly rounded binary32 result plus an error-free residual); FP32 FMA
and FP16, BF16 take the binary64 path below.

FP32, FP16, BF16 (precision p <= 24): binary64 arithmetic on the exactly
converted operands, then one rounding into the type.

- Why binary64 is enough: 53 >= 2p + 2. The product of two p-bit significands
  has at most 2p <= 48 bits, so ``a*b`` is exact in binary64. For ``a+b``,
  ``a/b`` and ``sqrt(a)`` the binary64 result ``y = RN53(x)`` of the exact
  value ``x`` is either exact or strictly inside one cell between two adjacent
  rounding boundaries of the type (its representable values and their
  midpoints, all binary64 values): for a sum, the exact residual ``r = x - y``
  comes from TwoSum (Knuth), six binary64 operations, no branch; for a quotient
  or a root, a value that is not such a boundary lies at least ``2**-(2p+2)``
  (relative) from every boundary (``|a - M*b| >= 1 ulp`` of the integer
  significands; ``|a - M**2|`` likewise), farther than RN53's error
  ``2**-53``, so ``y`` equals a boundary only when ``x`` does (residual 0).
  Double rounding ``RN_p(RN53(x)) = RN_p(x)`` then holds for RNE (the same
  bound, Figueroa 1995), and the sign of ``c - x`` (``c`` the RNE result) is
  the sign of the binary64 ``(c - y) - r``: exact where ``c - y`` is
  (``c`` and ``y`` lie within a factor of two, Sterbenz) and a rounded
  difference keeps its sign (gradual underflow).
- The six other modes start from ``c`` and step to its neighbour with an
  integer increment or decrement of the word (encodings of one sign are
  ordered by magnitude): RTZ, RTP, RTM and RTO need only the sign of
  ``c - x``; RNA and RHB also need to know whether ``x`` is a tie (``y`` the
  midpoint of ``c`` and its neighbour, residual 0).
- Lanes are settled by magnitude bands of ``|y|``: between the smallest normal
  and the max finite (rounding as above, NX from ``c != x``); below
  ``2**emin - 2**(emin-p)`` (every mode's unbounded rounding stays tiny: UF
  joins NX); beyond ``max + ulp(max)`` (overflow in every mode: the overflow
  result of the sign, OF|NX); zeros, infinities and NaNs from binary64's own
  IEEE rules (canonical NaN; NV for a signalling operand or an invalid
  operation; DZ for x/0; exact cancellation -0 under RTM). The two narrow
  bands left, ``[2**emin - 2**(emin-p), 2**emin]`` and
  ``[max, max + ulp(max)]`` where tininess or overflow depends on the mode,
  go to the exact kernel.
- BF16's result ``c`` is RN8(RN24(y)): RN24(y) = RN24(x) and RN8 of that is
  RN8(x) by the same bound (24 >= 2*8 + 2).

E4M3 and E5M2: a table of all 65,536 operand pairs (256 operands for sqrt) per
operation and mode, computed once by the exact kernel on first use by an array
of at least ``TABLE_MIN`` elements (smaller arrays run the exact kernel).

The float arithmetic decides nothing it was not proven to decide: every
rounding decision is the sign of an exactly computed difference, and the
exhaustive and random checks in tests/numeric/test_numeric_ieee_fast.py pin
words and flags to the exact kernels.
"""
from __future__ import annotations

from functools import lru_cache

import numpy as np

from ..dtypes import DataType
from . import ieee_fast32
from .encode import overflow_result
from .flags import FLAG_DZ, FLAG_NV, FLAG_NX, FLAG_OF, FLAG_UF
from .rounding import RoundingMode
from .words import U64

FLOAT_PATH_TYPES = ("FP32", "FP16", "BF16")
TABLE_TYPES = ("E4M3", "E5M2")
BINARY_OPS = ("ADD", "SUB", "MUL", "DIV")
UNARY_OPS = ("SQRT",)
CHUNK = 1 << 15  # elements per block: the float64 temporaries stay in cache
SMALL_BLOCK = 512  # add/sub blocks of at most this many lanes always take TwoSum (no exactness test)
TABLE_MIN = 4096  # smaller FP8 arrays run the exact kernel (a table costs one exact run of 65,536 pairs)

_F64 = np.float64


class _Format:
    """One float-path type: exact binary64 values of its encodings, RNE rounding
    from binary64 to its words, and the band thresholds."""

    def __init__(self, t: DataType):
        f = t.fmt
        self.t = t
        self.word = np.uint32 if t.bits == 32 else np.uint16
        self.sign_bit = f.sign_bit
        p = f.frac_bits + 1
        emin = 1 - f.bias
        self.min_normal = 2.0 ** emin
        self.tiny_limit = 2.0 ** emin - 2.0 ** (emin - p)  # below: tiny in every mode
        self.max = float(self.values(np.array([t.max_finite], dtype=self.word))[0])
        emax = int(np.frexp(self.max)[1]) - 1
        self.beyond = self.max + 2.0 ** (emax - p + 1)  # above: overflow in every mode
        self.nan_word = U64(t.canonical_nan)
        self.exp_mask = ((1 << f.exp_bits) - 1) << f.frac_bits
        self.frac_mask = (1 << f.frac_bits) - 1
        self.quiet_bit = 1 << (f.frac_bits - 1)
        self.inf_word = self.exp_mask
        # codes in the normal band, on the word shifted left by one (sign out)
        smallest_normal_code = 1 << f.frac_bits
        self.low_code = (smallest_normal_code + 1) << 1
        self.band_width = (t.max_finite - 1 - (smallest_normal_code + 1)) << 1
        self.exact_gap = 52 - p  # exponent fields this far apart still add exactly in binary64
        self.sum_always_exact = (1 << f.exp_bits) - 2 <= self.exact_gap

    def values(self, words, out=None):
        """Exact binary64 values of encodings (NaN for NaNs): numpy's widening casts are exact."""
        if self.t.bits == 32:
            v = words.astype(np.uint32, copy=False).view(np.float32)
        elif self.t.name == "FP16":
            v = words.astype(np.uint16, copy=False).view(np.float16)
        else:  # BF16: the high half of an FP32 encoding
            v = (words.astype(np.uint32) << np.uint32(16)).view(np.float32)
        if out is None:
            return v.astype(_F64)
        np.copyto(out, v)
        return out

    def round_nearest(self, y, c64, any_value=False):
        """RNE words of ``y`` (in the type's width) and their values into ``c64``.

        BF16 goes through binary32: RN24 first, exact in one rounding for the results
        of add ... sqrt (24 >= 2*8 + 2); ``any_value`` (FMA's sums) rounds to odd at 24
        bits instead, which never double-rounds (24 >= 8 + 2)."""
        if self.t.name == "FP32":
            c = y.astype(np.float32)
            np.copyto(c64, c)
            return c.view(np.uint32)
        if self.t.name == "FP16":
            w = y.astype(np.float16).view(np.uint16)
        else:  # BF16: RN24 (or RO24) then RN8 on the bits (carries run into the exponent)
            u = y.astype(np.float32).view(np.uint32)
            if any_value:
                back = u.view(np.float32).astype(_F64)
                u = u - (np.abs(back) > np.abs(y))  # toward zero ...
                u |= (u.view(np.float32).astype(_F64) != y)  # ... and odd where inexact
                u = u.astype(np.uint32, copy=False)
            w = ((u + (np.uint32(0x7FFF) + ((u >> np.uint32(16)) & np.uint32(1)))) >> np.uint32(16)).astype(np.uint16)
        self.values(w, out=c64)
        return w

    def signalling(self, words):
        """Signalling NaN encodings: the all-ones exponent, a nonzero fraction, the quiet bit clear."""
        w = words & self.word(self.exp_mask | self.quiet_bit)
        return (w == self.word(self.exp_mask)) & ((words & self.word(self.frac_mask)) != 0)


@lru_cache(maxsize=None)
def _format(t: DataType) -> _Format:
    return _Format(t)


@lru_cache(maxsize=None)
def _overflow_words(t: DataType, mode: RoundingMode):
    return overflow_result(np.array([False, True]), t, mode, False).astype(U64)


def applies(op: str, t: DataType) -> bool:
    if op == "FMA":
        return t.name in FLOAT_PATH_TYPES
    return (op in BINARY_OPS or op in UNARY_OPS) and t.name in FLOAT_PATH_TYPES + TABLE_TYPES


# ----------------------------------------------------------------------------- float path


def _step(op, fmt: _Format, mode: RoundingMode, w, c64, y, diff):
    """Move the RNE word ``w`` to the mode's result; ``diff`` has the sign of ``c - x``."""
    if mode is RoundingMode.RNE:
        return w
    negative = (w >> fmt.word(fmt.sign_bit)).astype(bool)
    if mode in (RoundingMode.RTZ, RoundingMode.RTO):
        w = w - ((diff * y) > 0)  # |c| > |x|: one step toward zero
        if mode is RoundingMode.RTO:
            w |= (diff != 0).astype(fmt.word)
        return w.astype(fmt.word, copy=False)
    if mode is RoundingMode.RTP:
        below = diff < 0
        return (w + (below & ~negative) - (below & negative)).astype(fmt.word, copy=False)
    if mode is RoundingMode.RTM:
        above = diff > 0
        return (w + (above & negative) - (above & ~negative)).astype(fmt.word, copy=False)
    # RNA, RHB: only exact ties move. The neighbour of c on x's side, in magnitude:
    toward_zero = (diff * y) < 0  # |c| < |x|
    neighbour = (w + toward_zero - (~toward_zero & (diff != 0))).astype(fmt.word)
    tie = ((c64 + fmt.values(neighbour)) == 2.0 * y) & (diff != 0)
    if mode is RoundingMode.RNA:
        return np.where(tie & toward_zero, neighbour, w)
    return np.where(tie & (diff < 0), neighbour, w)  # RHB: the greater of the two


class _Scratch:
    """Block-sized binary64 work arrays, reused block after block."""

    def __init__(self, size):
        self.a, self.b, self.y, self.c, self.d, self.t = (np.empty(size) for _ in range(6))


def _sum_is_exact(fmt: _Format, la, lb) -> bool:
    """Every ``a + b`` of the block is exact in binary64: the exponent fields differ by
    at most ``52 - p`` (field 0, a subnormal, counts as 0: one more than its worth)."""
    if fmt.sum_always_exact:
        return True
    shift, mask = fmt.word(fmt.t.fmt.frac_bits), fmt.word(fmt.exp_mask >> fmt.t.fmt.frac_bits)
    ea = ((la >> shift) & mask).astype(np.int16)
    eb = ((lb >> shift) & mask).astype(np.int16)
    ea -= eb
    return int(ea.max()) <= fmt.exact_gap and int(ea.min()) >= -fmt.exact_gap


def _off_midpoint(fmt: _Format, w, c64, y, residual, diff):
    """FMA only (a 2p-bit product plus a p-bit addend can put ``y`` on a midpoint that
    ``x`` is not on): where ``y`` is the midpoint of ``c`` and its neighbour and the
    residual is not zero, the nearest value is the candidate on the residual's side.
    Updates ``c64`` and ``diff`` for the lanes it moves."""
    neighbour = (w + (np.abs(c64) < np.abs(y)) - (np.abs(c64) > np.abs(y))).astype(fmt.word)
    midpoint = np.flatnonzero(((c64 + fmt.values(neighbour)) == 2.0 * y) & (residual != 0) & (c64 != y))
    if midpoint.size:
        wrong_side = np.signbit(c64[midpoint] - y[midpoint]) != np.signbit(residual[midpoint])
        move = midpoint[wrong_side]
        w = w.copy()
        w[move] = neighbour[move]
        c64[move] = fmt.values(neighbour[move])
        diff[move] = (c64[move] - y[move]) - residual[move]
    return w


def _float_block(op, fmt: _Format, mode, la, lb, out_w, out_f, scratch: _Scratch, lc=None):
    """Fill one block's words and flags; return the block indices left to the exact
    kernel (or None). FMA runs as the sum of the exact binary64 product and the addend."""
    k = la.size
    a, y, c64, diff = scratch.a[:k], scratch.y[:k], scratch.c[:k], scratch.d[:k]
    fmt.values(la, out=a)
    b = None
    if op == "FMA":
        a *= fmt.values(lb, out=scratch.b[:k])  # exact: 2p <= 48 bits
        b = fmt.values(lc, out=scratch.b[:k])
        np.add(a, b, out=y)
    elif op == "SQRT":
        np.sqrt(a, out=y)
    else:
        b = fmt.values(lb, out=scratch.b[:k])
        if op == "SUB":
            np.negative(b, out=b)
        if op in ("ADD", "SUB"):
            np.add(a, b, out=y)
        elif op == "MUL":
            np.multiply(a, b, out=y)
        else:
            np.divide(a, b, out=y)
    w = fmt.round_nearest(y, c64, any_value=op == "FMA")
    np.subtract(c64, y, out=diff)
    residual = None
    # TwoSum (y + residual == a + b, exact whatever the operands) unless every sum is known exact;
    # on a small block the test costs more than TwoSum itself
    if op == "FMA" or (op in ("ADD", "SUB") and (k <= SMALL_BLOCK or not _sum_is_exact(fmt, la, lb))):
        bv = scratch.t[:k]
        np.subtract(y, a, out=bv)
        residual = y - bv
        np.subtract(a, residual, out=residual)
        np.subtract(b, bv, out=bv)
        residual += bv
        diff -= residual
        if op == "FMA" and mode in (RoundingMode.RNE, RoundingMode.RNA, RoundingMode.RHB):
            w = _off_midpoint(fmt, w, c64, y, residual, diff)
    if mode in (RoundingMode.RNA, RoundingMode.RHB) and residual is not None:
        # a tie is y itself a midpoint with residual 0; 0 here moves nothing
        stepped = _step(op, fmt, mode, w, c64, y, np.where(residual == 0, diff, 0.0))
    else:
        stepped = _step(op, fmt, mode, w, c64, y, diff)
    inexact = diff != 0
    np.left_shift(inexact.view(np.uint8), np.uint8(4), out=out_f)
    # every RNE result strictly between the smallest normal and the max finite (NaN and
    # infinity codes lie above): every lane is in the normal band
    band = np.left_shift(w, fmt.word(1))
    band -= fmt.word(fmt.low_code)
    if int(band.max()) <= fmt.band_width:
        np.copyto(out_w, stepped)
        return None
    stepped, hard = _settle_bands(op, fmt, mode, la, lb, a, b, y, np.abs(y), stepped, out_f)
    np.copyto(out_w, stepped)
    return hard


def _settle_bands(op, fmt: _Format, mode, la, lb, a, b, y, ay, w, out_f):
    """Overlay the results of the lanes outside the normal band on the words ``w``
    (the type's width) and ``out_f``. Dense bands (tiny, overflow: half the lanes of
    random encodings can be such) by whole-block operations, sparse ones (zeros,
    infinities, NaNs) by index. Returns ``(words, indices left to the exact kernel or None)``."""
    tiny = ay < fmt.tiny_limit  # tiny in every mode: UF joins NX (0x10 -> 0x08)
    out_f |= ((out_f >> np.uint8(1)) & np.uint8(FLAG_UF)) * tiny
    over = ay > fmt.beyond  # infinities too: settled below
    if over.any():
        low, high = (fmt.word(v) for v in _overflow_words(fmt.t, mode))
        words = np.signbit(y) * fmt.word(high - low)  # the negative result where the sign is set
        words += low
        w = np.where(over, words, w)
        np.bitwise_or(out_f, over.view(np.uint8) * np.uint8(FLAG_OF | FLAG_NX), out=out_f)
    special = np.flatnonzero(np.isnan(y) | (ay == np.inf) | (y == 0))
    hard_nan = special[:0]
    if special.size:
        ys = y[special]
        nan, infinite = np.isnan(ys), np.isinf(ys)
        negative = np.signbit(ys)
        where = special[infinite]
        w[where] = fmt.word(fmt.inf_word) | (negative[infinite].astype(fmt.word) << fmt.word(fmt.sign_bit))
        if op == "DIV":  # binary64 does not overflow here: x/0 with x finite, or an infinite operand
            out_f[where] = np.where(np.isfinite(a[where]), FLAG_DZ, 0)
        else:
            out_f[where] = 0
        where = special[nan]
        if op == "FMA":  # its invalid cases need the operand classes: the exact kernel decides
            hard_nan = where
            where = where[:0]
        signals = fmt.signalling(la[where])
        operand_nan = np.isnan(a[where])
        if b is not None:
            signals |= fmt.signalling(lb[where])
            operand_nan |= np.isnan(b[where])
        w[where] = fmt.word(fmt.t.canonical_nan)
        out_f[where] = np.where(signals | ~operand_nan, FLAG_NV, 0)
        if op in ("ADD", "SUB", "FMA") and mode is RoundingMode.RTM:  # exact cancellation gives -0
            where = special[ys == 0]
            w[where] = (np.signbit(a[where]) | np.signbit(b[where])).astype(fmt.word) << fmt.word(fmt.sign_bit)
    hard = ((ay >= fmt.max) & (ay <= fmt.beyond)) | ((ay >= fmt.tiny_limit) & (ay <= fmt.min_normal))
    if op == "FMA" and special.size and hard_nan.size:
        hard[hard_nan] = True
    return w, (np.flatnonzero(hard) if hard.any() else None)


# ----------------------------------------------------------------------------- tables (FP8)


_TABLES: dict = {}


def _table(op: str, t: DataType, mode: RoundingMode, exact_kernel):
    key = (op, t.name, mode)
    if key not in _TABLES:
        _TABLES[key] = _build_table(op, exact_kernel)
    return _TABLES[key]


def _build_table(op: str, exact_kernel):
    if op in UNARY_OPS:
        words, flags = exact_kernel(np.arange(256, dtype=np.uint8))
    else:
        codes = np.arange(1 << 16, dtype=np.uint32)
        words, flags = exact_kernel((codes >> np.uint32(8)).astype(np.uint8), (codes & np.uint32(0xFF)).astype(np.uint8))
    return words.astype(np.uint8), flags.astype(np.uint8)


# ----------------------------------------------------------------------------- entry


def run(op: str, t: DataType, mode: RoundingMode, operands, exact_kernel):
    """``(words uint64, flags uint8)`` for flat lane arrays ``operands`` of type ``t``.

    ``exact_kernel(*lanes)`` is the exact reference on the same operation, type
    and mode; it serves the lanes (or whole arrays) no fast path decides.
    """
    size = operands[0].size
    if t.name in TABLE_TYPES:
        if size < TABLE_MIN and (op, t.name, mode) not in _TABLES:
            return exact_kernel(*operands)
        words, flags = _table(op, t, mode, exact_kernel)
        index = operands[0].astype(np.intp)  # np.take is slow on narrower index types
        if op not in UNARY_OPS:
            index <<= 8
            index |= operands[1]
        return np.take(words, index).astype(U64), np.take(flags, index)
    if t.name == "FP32" and op in ieee_fast32.OPS:
        return _run_fp32(op, mode, operands, exact_kernel)
    fmt = _format(t)
    words = np.empty(size, dtype=U64)
    flags = np.empty(size, dtype=np.uint8)
    la = operands[0]
    lb = operands[1] if len(operands) > 1 else None
    lc = operands[2] if len(operands) > 2 else None
    hard = []
    scratch = _Scratch(min(size, CHUNK))
    with np.errstate(all="ignore"):
        for first in range(0, size, CHUNK):
            block = slice(first, first + CHUNK)
            left = _float_block(op, fmt, mode, la[block], None if lb is None else lb[block], words[block], flags[block],
                                scratch, None if lc is None else lc[block])
            if left is not None:
                hard.append(left + first)
    if hard:  # one exact run for all of them (its fixed cost is that of a whole block)
        where = np.concatenate(hard)
        words[where], flags[where] = exact_kernel(*(o[where] for o in operands))
    return words, flags


def _run_fp32(op, mode, operands, exact_kernel):
    """FP32 add ... sqrt in binary32 (``ieee_fast32``), block by block."""
    if not ieee_fast32.gradual_underflow():
        return exact_kernel(*operands)
    size = operands[0].size
    words = np.empty(size, dtype=U64)
    flags = np.empty(size, dtype=np.uint8)
    la = operands[0].view(np.uint32)
    lb = operands[1].view(np.uint32) if len(operands) > 1 else None
    where = ieee_fast32.run(op, mode, la, lb, words, flags)
    if where is not None:
        words[where], flags[where] = exact_kernel(*(o[where] for o in operands))
    return words, flags
