"""FP32 add, sub, mul, div and sqrt in binary32 itself: the fast path of ``ieee_fast`` for FP32.

Same words and flags as the exact integer kernels of ``ieee_float`` in all seven
rounding modes; the lanes it cannot decide go back to the exact kernel.

The host's binary32 operations (numpy float32 arrays: IEEE 754 with gradual
underflow) give the round-to-nearest-even result ``c = RN24(x)`` of the exact
value ``x`` directly. What a flag or another mode needs beyond ``c`` is the sign
of ``x - c`` and, for the two tie modes, whether ``x`` is the midpoint of ``c``
and a neighbour; each comes from an error-free computation:

- add, sub: TwoSum (Knuth) in binary32: ``r = x - c`` exactly, six operations,
  no branch, for every pair whose sum does not overflow (those are settled
  apart). A tie is ``2r`` equal to the step from ``c`` to its neighbour on
  ``r``'s side (both exact in binary32).
- mul: the binary64 product ``p = a*b`` is exact (2 * 24 <= 53 bits); the sign
  of ``p - c`` is that of ``x - c``; a tie is ``2p == c + n`` (exact: ``c + n``
  has 25 bits).
- div: ``q = c*b`` in binary64 is exact (48 bits), ``a - q`` has the sign of
  ``(x - c) * b``, and ``|x| < |c|`` exactly when ``|a| < |q|``. A quotient of
  two p-bit values is never the midpoint of two normal neighbours (the midpoint's
  odd part has p + 1 bits, the dividend's at most p), so ties exist only where
  ``|c|`` is at most the smallest normal: there ``2a == (c + n)*b`` (49 bits,
  exact) decides.
- sqrt: ``c*c`` in binary64 is exact; ``a - c*c`` has the sign of ``x - c``.
  A square root is never a midpoint (the midpoint's square would need 2p + 1
  bits), so RNA and RHB give RNE's result.

The other modes step from ``c`` to its neighbour by an integer increment or
decrement of the word (encodings of one sign are ordered by magnitude): RTZ
toward zero where ``|c| > |x|``; RTO likewise and then sets the last bit where
inexact; RTP up and RTM down in value where ``x`` lies above or below ``c``;
RNA away from zero at a tie; RHB up at a tie.

Flags: NX where ``x != c``. Tininess (after rounding) is decided from ``c``:
``|c|`` below the smallest normal means ``|x|`` is below the midpoint of the
largest subnormal and the smallest normal, tiny in every mode (UF joins NX);
``|c|`` equal to the smallest normal (tininess depends on the mode) and
``|c| >= max finite`` with finite operands (overflow depends on the mode) go to
the exact kernel. A sum whose ``|c|`` is below the smallest normal is exact (both
operands lie on the subnormal grid), so add and sub have no tiny band. NaN
results are the canonical NaN (NV for a signalling operand or an invalid
operation: no NaN operand); infinite results from an infinite operand are exact;
x/0 with x finite and nonzero raises DZ; an exact zero sum is -0 under RTM
(SPEC-CHOICE 19), numpy's +0/-0 otherwise.

All of this needs gradual underflow in the host's binary32 arithmetic; each call
checks it first (``gradual_underflow``) and takes the exact kernel where a
flush-to-zero mode is set.
"""
from __future__ import annotations

import numpy as np

import threading
from functools import lru_cache

from ..dtypes import dtype as _dtype
from .encode import overflow_result
from .flags import FLAG_DZ, FLAG_NV, FLAG_NX, FLAG_OF, FLAG_UF
from .rounding import RoundingMode

_F32 = np.float32
_U32 = np.uint32
_I32 = np.int32
_SIGN = _U32(0x80000000)
_MAX_CODE = 0x7F7FFFFF  # max finite, the sign out
_MIN_NORMAL_CODE = 0x00800000
_NAN = 0x7FC00000  # the canonical NaN
_QUIET = 0x00400000
_EXP = 0x7F800000
_MAX2 = _U32(_MAX_CODE << 1)  # the codes shifted left by one (sign out)
_MIN_NORMAL2 = _U32(_MIN_NORMAL_CODE << 1)
_ONE = _I32(1)
_SIXTEEN = np.uint8(FLAG_NX)
_EIGHT = np.uint8(FLAG_UF)
_BEYOND = 2.0 ** 128  # max finite + ulp(max finite): beyond it every mode overflows
_BINARY64 = {"ADD": np.add, "SUB": np.subtract, "MUL": np.multiply, "DIV": np.divide}
_BINARY32 = {"ADD": np.add, "SUB": np.subtract}
OPS = ("ADD", "SUB", "MUL", "DIV", "SQRT")
CHUNK = 1 << 15  # lanes per block: the temporaries stay in the second-level cache


class Scratch:
    """Block-sized work arrays, reused block after block."""

    def __init__(self, size):
        self.c, self.f1, self.f2 = (np.empty(size, _F32) for _ in range(3))
        self.d1, self.d2, self.d3, self.d4 = (np.empty(size) for _ in range(4))
        self.i1, self.i2, self.i3 = (np.empty(size, _I32) for _ in range(3))
        self.nz, self.m1, self.m2 = (np.empty(size, bool) for _ in range(3))


@lru_cache(maxsize=None)
def _overflow_words(mode):
    """The overflow results (int32 words) of a positive and of a negative value."""
    low, high = overflow_result(np.array([False, True]), _dtype("FP32"), mode, False)
    return _I32(np.uint32(low).view(_I32)), _I32(np.uint32(high).view(_I32))


# The smallest subnormal doubled (a subnormal operand: zero under denormals-are-zero) and the
# smallest normal halved (a subnormal result: zero under flush-to-zero), in one multiply.
_TINY = np.array([2.0 ** -149, 2.0 ** -126], dtype=_F32)
_TINY_SCALE = np.array([2.0, 0.5], dtype=_F32)
_TINY_SCALED = np.array([2.0 ** -148, 2.0 ** -127], dtype=_F32).tobytes()


def gradual_underflow() -> bool:
    """The host's binary32 arithmetic keeps subnormals, operands and results (no
    flush-to-zero or denormals-are-zero mode, which a library loaded into the process
    may have set): otherwise the caller takes the exact kernel."""
    return (_TINY * _TINY_SCALE).tobytes() == _TINY_SCALED


_SCRATCH = threading.local()


def scratch(size) -> Scratch:
    """A cached block scratch of at least ``size`` lanes, one per thread (fresh pages cost)."""
    held = getattr(_SCRATCH, "held", None)
    if held is None or held.c.size < size:
        held = _SCRATCH.held = Scratch(size)
    return held


def _signalling(words):
    return ((words & _U32(_EXP | _QUIET)) == _U32(_EXP)) & ((words & _U32(0x007FFFFF)) != 0)


def _delta(ci, out):
    """+1 for a nonnegative ``c`` (sign bit clear), -1 for a negative one (int32)."""
    np.right_shift(ci, 31, out=out)
    np.bitwise_or(out, _ONE, out=out)
    return out


def _step_add(mode, c, ci, r, nz, sc, k):
    """The mode's word (int32) from ``c`` and the exact residual ``r = x - c`` (binary32)."""
    w = sc.i1[:k]
    if mode in (RoundingMode.RTZ, RoundingMode.RTO):
        rel = sc.i2[:k]  # r with its sign flipped where c is negative: below zero where |x| < |c|
        np.bitwise_and(ci, _I32(-0x80000000), out=rel)
        np.bitwise_xor(rel, r.view(_I32), out=rel)
        toward = np.less(rel.view(_F32), 0, out=sc.m1[:k])
        np.subtract(ci, toward, out=w, dtype=_I32)
        if mode is RoundingMode.RTO:
            np.bitwise_or(w, nz, out=w, dtype=_I32)
        return w
    if mode in (RoundingMode.RTP, RoundingMode.RTM):
        moves = np.greater(r, 0, out=sc.m1[:k]) if mode is RoundingMode.RTP else np.less(r, 0, out=sc.m1[:k])
        delta = _delta(ci, sc.i2[:k])
        np.multiply(delta, moves, out=delta, dtype=_I32)
        return np.add(ci, delta, out=w) if mode is RoundingMode.RTP else np.subtract(ci, delta, out=w)
    # RNA, RHB: 2r equals the step to the neighbour (exact in binary32) only at a tie
    rr = np.add(r, r, out=sc.f2[:k])
    if mode is RoundingMode.RNA:
        np.add(ci, _ONE, out=w)  # the neighbour away from zero
        gap = np.subtract(w.view(_F32), c, out=sc.f1[:k])
        tie = np.equal(gap, rr, out=sc.m1[:k])
        return np.add(ci, tie, out=w, dtype=_I32)
    delta = _delta(ci, sc.i2[:k])
    np.add(ci, delta, out=w)  # the neighbour above
    gap = np.subtract(w.view(_F32), c, out=sc.f1[:k])
    tie = np.equal(gap, rr, out=sc.m1[:k])
    np.multiply(delta, tie, out=delta, dtype=_I32)
    return np.add(ci, delta, out=w)


def _step_f64(op, mode, ci, cb, a64, b64, x64, nz, sc, k):
    """The mode's word (int32) for mul, div, sqrt from binary64 quantities: ``cb`` is
    ``c``; mul: ``x64`` the exact product; div: ``x64 = c*b`` (exact), ``a64``, ``b64``;
    sqrt: ``x64 = c*c`` (exact), ``a64``. Div overwrites ``x64``."""
    w = sc.i1[:k]
    if mode in (RoundingMode.RNA, RoundingMode.RHB) and op != "MUL":
        return ci  # only mul has ties outside the bands settled apart (div: see _div_ties)
    moves = sc.m1[:k]
    if mode in (RoundingMode.RTZ, RoundingMode.RTO) or (op == "SQRT" and mode is RoundingMode.RTM):
        # |x| < |c|; mul: c and x have one sign (or c is 0), (c - x) * c > 0; div: likewise
        # for q = c*b and a: (q - a) * a > 0; magnitudes from 2**-447 to 2**384, no underflow
        if op == "MUL":
            d = np.subtract(cb, x64, out=sc.d3[:k])
            d *= cb
            np.greater(d, 0, out=moves)
        elif op == "DIV":
            x64 -= a64
            x64 *= a64
            np.greater(x64, 0, out=moves)
        else:
            np.greater(x64, a64, out=moves)
        np.subtract(ci, moves, out=w, dtype=_I32)
        if mode is RoundingMode.RTO:
            np.bitwise_or(w, nz, out=w, dtype=_I32)
        return w
    if op == "SQRT":  # RTP: c >= 0, up is away from zero
        return np.add(ci, np.less(x64, a64, out=moves), out=w, dtype=_I32)
    if mode in (RoundingMode.RNA, RoundingMode.RHB):  # mul: x is the midpoint of c and its neighbour
        delta = _delta(ci, sc.i2[:k]) if mode is RoundingMode.RHB else None
        np.add(ci, _ONE if delta is None else delta, out=w)  # the neighbour away from zero, or above
        mid = sc.d3[:k]
        np.copyto(mid, w.view(_F32))
        mid += cb
        mid *= 0.5  # exact: the midpoint has 25 bits and is above 2**-150
        np.equal(mid, x64, out=moves)
        if delta is None:
            return np.add(ci, moves, out=w, dtype=_I32)
        np.multiply(delta, moves, out=delta, dtype=_I32)
        return np.add(ci, delta, out=w)
    if op == "MUL":  # x above (RTP) or below (RTM) c
        (np.greater if mode is RoundingMode.RTP else np.less)(x64, cb, out=moves)
    else:  # div: x - c has the sign of (a - q) * b
        np.subtract(a64, x64, out=x64)
        x64 *= b64
        (np.greater if mode is RoundingMode.RTP else np.less)(x64, 0, out=moves)
    delta = _delta(ci, sc.i2[:k])
    np.multiply(delta, moves, out=delta, dtype=_I32)
    return np.add(ci, delta, out=w) if mode is RoundingMode.RTP else np.subtract(ci, delta, out=w)


def _div_ties(mode, ci, cb, a64, b64, w, where):
    """RNA/RHB quotients in the tiny band (the only ones that can be ties): ``w`` at ``where``."""
    c = ci[where]
    if mode is RoundingMode.RNA:
        step = np.ones(c.shape, _I32)
    else:
        step = (c >> 31) | _ONE
    n = (c + step).view(_F32).astype(np.float64)
    tie = (a64[where] * 2.0) == (cb[where] + n) * b64[where]
    w[where] = c + step * tie


def _blend(w, mask, value):
    """``w`` (int32) takes ``value`` where ``mask``, without a branch per lane."""
    m = np.subtract(_I32(0), mask, dtype=_I32)  # -1 where mask
    d = np.bitwise_xor(w, value)
    d &= m
    w ^= d


def run(op, mode, la, lb, words, flags):
    """Fill ``words`` (uint64) and ``flags`` of the operand words ``la``, ``lb`` (uint32;
    ``lb`` None for sqrt), block by block; return the indices left to the exact kernel
    (or None). The sums' special lanes (NaN and infinite results, overflow) are collected
    over all blocks and settled in one pass at the end (``_sum_specials``): their fixed
    cost is paid once, not per block."""
    size = la.size
    sc = scratch(min(size, CHUNK))
    hard, special = [], []
    with np.errstate(all="ignore"):
        for first in range(0, size, CHUNK):
            part = slice(first, first + CHUNK)
            left, odd = block(op, mode, la[part], None if lb is None else lb[part], words[part], flags[part], sc)
            if left is not None:
                hard.append(left + first)
            if odd is not None:
                special.append(odd + first)
        if special:
            where = np.concatenate(special)
            w, f, left = _sum_specials(op, mode, la[where], lb[where])
            words[where] = w.view(_U32)
            flags[where] = f
            if left.size:
                hard.append(where[left])
    return np.concatenate(hard) if hard else None


def block(op, mode, la, lb, out_w, out_f, sc: Scratch):
    """Fill one block's words (uint64) and flags; return ``(hard, special)``: the block
    indices left to the exact kernel and, for add and sub, those left to
    ``_sum_specials`` (each None when there are none)."""
    if op == "SQRT":
        return _sqrt_block(mode, la, out_w, out_f, sc), None
    if op in ("ADD", "SUB"):
        return None, _sum_block(op, mode, la, lb, out_w, out_f, sc)
    k = la.size
    a = la.view(_F32)
    b = lb.view(_F32)
    c, nz = sc.c[:k], sc.nz[:k]
    ci = c.view(_I32)
    a64, b64, cb = None, None, sc.d1[:k]
    if op == "MUL":
        np.multiply(a, b, out=c)
        x64, t = sc.d2[:k], sc.d3[:k]
        np.copyto(x64, a)
        np.copyto(t, b)
        x64 *= t  # exact
        np.copyto(cb, c)
        np.not_equal(x64, cb, out=nz)
    else:
        np.divide(a, b, out=c)
        a64, b64, x64 = sc.d2[:k], sc.d3[:k], sc.d4[:k]
        np.copyto(a64, a)
        np.copyto(b64, b)
        np.copyto(cb, c)
        np.multiply(cb, b64, out=x64)  # exact
        np.not_equal(x64, a64, out=nz)
    w = ci if mode is RoundingMode.RNE else _step_f64(op, mode, ci, cb, a64, b64, x64, nz, sc, k)
    np.multiply(nz.view(np.uint8), _SIXTEEN, out=out_f)
    shifted = np.left_shift(c.view(_U32), _U32(1), out=sc.i3[:k].view(_U32))
    high = shifted.max()
    low = shifted.min()
    hard = None
    if low <= _MIN_NORMAL2 or high >= _MAX2:
        w, hard = _bands(op, mode, la, lb, a, b, c, ci, cb, a64, b64, x64, w, nz, shifted, low, high, out_f)
    np.copyto(out_w, w.view(_U32))
    return hard, None


_LOW12 = _I32(0xFFF)  # the low 12 bits of a root's significand: 0 in every exact root
_ROOT_OF_NORMAL = _F32(2.0 ** -63)  # roots of normal operands are at least this
_MAXF = _F32(np.finfo(np.float32).max)


def _sqrt_block(mode, la, out_w, out_f, sc: Scratch):
    """Square roots of one block (see the module docstring: NX from the root's low bits)."""
    k = la.size
    a = la.view(_F32)
    c, nz = sc.c[:k], sc.nz[:k]
    ci = c.view(_I32)
    np.sqrt(a, out=c)
    if mode in (RoundingMode.RNE, RoundingMode.RNA, RoundingMode.RHB):  # no ties: NX alone decides
        np.not_equal(np.multiply(c, c, out=sc.f1[:k]), a, out=nz)
        odd = np.not_equal(np.bitwise_and(ci, _LOW12, out=sc.i2[:k]), 0, out=sc.m1[:k])
        nz |= odd
        w = ci
        if np.fmin.reduce(c) <= _ROOT_OF_NORMAL:  # a subnormal operand (or a zero) in the block
            small = np.less(c, _ROOT_OF_NORMAL, out=sc.m2[:k])  # (NaN: no)
            np.greater(small, odd, out=small)  # the others are inexact already
            where = np.flatnonzero(small)
            if where.size:  # c*c may have rounded: decide in binary64 (exact there)
                root = c[where].astype(np.float64)
                nz[where] = root * root != a[where].astype(np.float64)
    else:
        cb, a64, x64 = sc.d1[:k], sc.d2[:k], sc.d3[:k]
        np.copyto(a64, a)
        np.copyto(cb, c)
        np.multiply(cb, cb, out=x64)  # exact
        np.not_equal(x64, a64, out=nz)
        w = _step_f64("SQRT", mode, ci, cb, a64, None, x64, nz, sc, k)
    top = c.max()
    if top != top:  # NaN results (negative operands, NaNs): half of all encodings, whole-block
        nan = np.isnan(c, out=sc.m2[:k])
        _blend(w, nan, _I32(_NAN))
        np.greater(nz, nan, out=nz)  # no NX on a NaN result
        quiet = np.equal(np.bitwise_and(la, _U32(_NAN), out=sc.i2[:k].view(_U32)), _U32(_NAN), out=sc.m1[:k])
        np.greater(nan, quiet, out=nan)  # NV: a signalling NaN or a negative operand
        np.multiply(nz.view(np.uint8), _SIXTEEN, out=out_f)
        out_f |= nan.view(np.uint8)
    else:
        np.multiply(nz.view(np.uint8), _SIXTEEN, out=out_f)
    np.copyto(out_w, w.view(_U32))
    return None


def _sum_block(op, mode, la, lb, out_w, out_f, sc: Scratch):
    """Sums and differences of one block by TwoSum; returns the block indices whose
    residual is not finite (NaN and infinite operands, overflow, an intermediate that
    overflowed) or whose ``|c|`` is the max finite (None when there are none): their
    words and flags here are placeholders that ``_sum_specials`` replaces."""
    k = la.size
    a, b = la.view(_F32), lb.view(_F32)
    c = sc.c[:k]
    ci = c.view(_I32)
    t1, r = sc.f1[:k], sc.f2[:k]
    if op == "ADD":  # TwoSum
        np.add(a, b, out=c)
        np.subtract(c, a, out=t1)  # the part of b in c
        np.subtract(c, t1, out=r)  # the part of a in c
        np.subtract(a, r, out=r)
        np.subtract(b, t1, out=t1)
        np.add(r, t1, out=r)
    else:  # TwoSum of a and -b, signs carried through
        np.subtract(a, b, out=c)
        np.subtract(a, c, out=t1)  # the part of b in c
        np.add(c, t1, out=r)  # the part of a in c
        np.subtract(a, r, out=r)
        np.subtract(b, t1, out=t1)
        np.subtract(r, t1, out=r)
    finite = np.isfinite(r, out=sc.m2[:k])
    clean = bool(finite.all()) and c.max() < _MAXF and c.min() > -_MAXF
    special = None
    if not clean:
        np.logical_not(finite, out=finite)
        if mode not in _MAX_IS_SETTLED:  # and |c| the max finite: the step may overflow
            edge = np.equal(np.bitwise_and(ci, _I32(0x7FFFFFFF), out=sc.i3[:k]), _MAX_CODE, out=sc.m1[:k])
            np.logical_or(finite, edge, out=finite)
        special = np.flatnonzero(finite)
    if mode is RoundingMode.RNE:
        w = ci
        flags = out_f.view(bool)
        np.not_equal(r, 0, out=flags)
        np.left_shift(out_f, 4, out=out_f)  # NX
    else:
        nz = np.not_equal(r, 0, out=sc.nz[:k])
        w = _step_add(mode, c, ci, r, nz, sc, k)
        np.multiply(nz.view(np.uint8), _SIXTEEN, out=out_f)
    if mode is RoundingMode.RTM:  # an exact zero sum: -0 unless both terms are +0
        zero = np.equal(c, 0, out=sc.m2[:k])
        if zero.any():
            where = np.flatnonzero(zero)
            sa, sb = la[where] >> _U32(31), lb[where] >> _U32(31)
            w = w.copy() if w is ci else w
            w[where] = ((sa | (sb ^ _U32(1) if op == "SUB" else sb)) << _U32(31)).view(_I32)
    np.copyto(out_w, w.view(_U32))
    return special if special is not None and special.size else None


# A sum whose c = RN24(x) is the max finite (r finite) is settled by TwoSum in these modes:
# x < max + ulp/2 < 2**128, so RNE, RTZ and RTO (max is odd) round it to max without overflow.
_MAX_IS_SETTLED = frozenset({RoundingMode.RNE, RoundingMode.RTZ, RoundingMode.RTO})


def _sum_specials(op, mode, wa, wb):
    """Words (int32), flags and the undecided lanes (a bool mask, for the exact kernel)
    of the sums of the operand words ``wa``, ``wb`` (uint32) that ``_sum_block`` left:
    NaN results, exact infinities, overflow of finite operands."""
    a, b = wa.view(_F32), wb.view(_F32)
    c = _BINARY32[op](a, b)
    w = c.view(_I32).copy()
    f = np.zeros(c.size, np.uint8)
    nan = np.isnan(c)
    if nan.any():
        signals = _signalling(wa[nan]) | _signalling(wb[nan])
        operand_nan = np.isnan(a[nan]) | np.isnan(b[nan])
        w[nan] = _NAN
        f[nan] = np.where(signals | ~operand_nan, FLAG_NV, 0)
    # an infinite operand (and no NaN): c is the exact infinity, no flag
    finite = np.isfinite(a) & np.isfinite(b)
    left = np.zeros(c.size, bool)
    if finite.any():  # c infinite or the max finite, or a TwoSum intermediate overflowed;
        # beyond 2**128 overflow in every mode, the rest is the exact kernel's
        at = np.flatnonzero(finite)
        y = _BINARY64[op](a[at].astype(np.float64), b[at].astype(np.float64))
        over = np.abs(y) > _BEYOND  # RN53 is monotone and 2**128 is a binary64 value
        low_word, high_word = _overflow_words(mode)
        w[at[over]] = np.where(np.signbit(y[over]), high_word, low_word)
        f[at[over]] = FLAG_OF | FLAG_NX
        left[at[~over]] = True
    return w, f, np.flatnonzero(left)


def _bands(op, mode, la, lb, a, b, c, ci, cb, a64, b64, x64, w, nz, shifted, low, high, out_f):
    """Overlay the lanes outside the normal band; returns ``(words, hard indices or None)``."""
    w = w.copy() if w is ci else w
    hard = []
    if low <= _MIN_NORMAL2:
        if op in ("MUL", "DIV"):
            tiny = shifted < _MIN_NORMAL2  # tiny in every mode: UF joins NX
            tiny &= nz
            np.bitwise_or(out_f, np.multiply(tiny.view(np.uint8), _EIGHT), out=out_f)
            if op == "DIV" and mode in (RoundingMode.RNA, RoundingMode.RHB):
                where = np.flatnonzero(tiny)
                if where.size:
                    _div_ties(mode, ci, cb, a64, b64, w, where)
            hard.append(np.flatnonzero(shifted == _MIN_NORMAL2))
            if op == "DIV":  # x/inf with x finite: an exact zero (c*b was 0*inf)
                where = np.flatnonzero(np.isinf(b))
                where = where[np.isfinite(a[where])]
                w[where] = ci[where]
                out_f[where] = 0
        elif mode is RoundingMode.RTM:  # an exact zero sum: -0 unless both terms are +0
            where = np.flatnonzero(shifted == 0)
            sa, sb = la[where] >> _U32(31), lb[where] >> _U32(31)
            w[where] = ((sa | (sb ^ _U32(1) if op == "SUB" else sb)) << _U32(31)).view(_I32)
    if high < _MAX2:
        pass
    elif op == "SQRT":  # NaN results (half of all encodings): whole-block; +inf is exact already
        nan = np.isnan(c)
        quiet = (la & _U32(_NAN)) == _U32(_NAN)
        _blend(w, nan, _I32(_NAN))
        nz &= ~nan
        np.multiply(nz.view(np.uint8), _SIXTEEN, out=out_f)
        nan &= ~quiet
        out_f |= nan.view(np.uint8)  # NV: a signalling NaN or a negative operand
    else:
        special = shifted >= _MAX2
        if op in ("MUL", "DIV"):  # overflow from finite operands is dense in random encodings: whole-block
            y = x64 if op == "MUL" else np.divide(a64, b64)  # exact product; RN53 quotient
            y = np.abs(y, out=y if op == "DIV" else None)
            over = (y > _BEYOND) & (y < np.inf)  # beyond 2**128 (RN53 is monotone, 2**128 a binary64 value)
            if over.any():
                low_word, high_word = _overflow_words(mode)
                words = np.right_shift(ci.view(_U32), _U32(31))  # the sign of c is that of x
                words *= _U32((int(high_word) - int(low_word)) & 0xFFFFFFFF)
                words += _U32(int(low_word) & 0xFFFFFFFF)
                _blend(w, over, words.view(_I32))
                out_f |= np.multiply(over.view(np.uint8), np.uint8(FLAG_OF))  # NX is there already
                special &= ~over
        where = np.flatnonzero(special)
        av, bv = a[where], b[where]
        nan = np.isnan(c[where])
        finite = np.isfinite(av) & np.isfinite(bv)
        if nan.any():
            at = where[nan]
            signals = _signalling(la[at]) | _signalling(lb[at])
            operand_nan = np.isnan(a[at]) | np.isnan(b[at])
            w[at] = _NAN
            out_f[at] = np.where(signals | ~operand_nan, FLAG_NV, 0)
        exact = ~nan & ~finite  # an infinite operand: an exact infinity
        if op == "DIV":  # x/0 with x finite and nonzero: an exact infinity, DZ
            by_zero = ~nan & finite & (bv == 0)
            w[where[by_zero]] = ci[where[by_zero]]
            out_f[where[by_zero]] = FLAG_DZ
            finite &= ~by_zero
        w[where[exact]] = ci[where[exact]]
        out_f[where[exact]] = 0
        finite &= ~nan
        if finite.any():  # |c| >= max from finite operands: beyond 2**128 overflow in every mode
            at = where[finite]
            y = _BINARY64[op](av[finite].astype(np.float64), bv[finite].astype(np.float64))
            over = np.abs(y) > _BEYOND  # RN53 is monotone and 2**128 is a binary64 value
            low_word, high_word = _overflow_words(mode)
            w[at[over]] = np.where(np.signbit(y[over]), high_word, low_word)
            out_f[at[over]] = FLAG_OF | FLAG_NX
            hard.append(at[~over])
    hard = np.concatenate(hard) if hard else None
    return w, (hard if hard is not None and hard.size else None)
