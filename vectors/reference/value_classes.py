"""Value classes of single elements, for flag isolation.

NumericStatus is the sticky OR over every element of a bundle, so a tile mixing
value classes hides a device that forgets a flag for one class (another class
raises it anyway) or raises a wrong flag for one class (another class expects
it). The generated vectors therefore add, per configuration (operation, types,
rounding mode, Sat, parameters), cases whose tiles hold the elements of one
*isolation key* only: a value class together with the flags the exact reference
gives its elements, or ``noflag`` for every element that raises no flag (see
``isolation_key``). ``tests/vectors/test_vectors_isolation.py`` checks every shipped
configuration with that rule.

Classes (by the source operand first, then by what the exact result does):

- ``qnan``, ``snan``, ``pos-inf``, ``neg-inf``, ``pos-zero``, ``neg-zero``: the source
  class;
- ``negative-to-unsigned``: a negative value whose rounded result lies below an
  unsigned range; ``small-negative-to-unsigned``: a negative value that rounds to
  0 in an unsigned type; ``negative-to-e8m0``: a negative finite E8M0 source;
- ``overflow``: the rounded result lies beyond the destination's range;
- ``underflow-to-zero``: a nonzero value that rounds to a (signed) zero;
- ``subnormal``: a result below the smallest normal; ``underflow``: an E8M0
  destination below 2^-127;
- ``tie``: exactly halfway between two neighbouring destination values;
- ``inexact``: any other rounded value; ``exact``: any other value;
- TMULS only: ``inf-times-zero``; post-processing only: ``relu-zeroed``.

Only ``vectors/reference/numeric.py`` is used (no ``device_model`` code).
"""
from __future__ import annotations

from fractions import Fraction

from . import numeric as ref
from . import postprocess

FLAG_NAMES = ((ref.NV, "nv"), (ref.DZ, "dz"), (ref.OF, "of"), (ref.UF, "uf"), (ref.NX, "nx"))


def flag_text(flags: int) -> str:
    """``of-nx`` for OF|NX, ``noflag`` for none (used in case names)."""
    return "-".join(name for bit, name in FLAG_NAMES if flags & bit) or "noflag"


def source_class(v: ref.Value):
    """The class a NaN, infinity or zero operand gives, else None."""
    if v.cls == "nan":
        return "snan" if v.signalling else "qnan"
    if v.cls == "inf":
        return "neg-inf" if v.negative else "pos-inf"
    if v.is_zero:
        return "neg-zero" if v.negative else "pos-zero"
    return None


def float_tie(dst: str, mag: Fraction) -> bool:
    """mag > 0 lies exactly halfway between two neighbouring finite values of dst."""
    down, _ = ref.encode_value(dst, False, mag, "RTZ", False)
    up, up_flags = ref.encode_value(dst, False, mag, "RTP", False)
    if up_flags & ref.OF:
        return False
    low, high = ref.decode(dst, down), ref.decode(dst, up)
    if low.cls != "finite" or high.cls != "finite":
        return False
    return low.magnitude != mag and low.magnitude + high.magnitude == 2 * mag


def float_result_class(dst: str, x: Fraction, bits: int, flags: int) -> str:
    """Class of a nonzero finite exact value x rounded into the floating type dst."""
    if flags & ref.OF:
        return "overflow"
    result = ref.decode(dst, bits)
    if result.cls == "finite" and result.is_zero:
        return "underflow-to-zero"
    if result.cls == "finite" and result.magnitude < ref.min_normal(dst):
        return "subnormal"
    if flags & ref.NX:
        return "tie" if float_tie(dst, abs(x)) else "inexact"
    return "exact"


def integer_result_class(dst: str, x: Fraction, n: int) -> str:
    """Class of the exact value x whose rounded integer is n, for an integer destination."""
    lo, hi = ref.fmt(dst).int_range
    if n < lo or n > hi:
        return "negative-to-unsigned" if lo == 0 and n < 0 else "overflow"
    if n == x:
        return "exact"
    if lo == 0 and x < 0:
        return "small-negative-to-unsigned"
    return "tie" if x.denominator == 2 else "inexact"


def tcvt_class(src: str, dst: str, bits: int, mode: str, sat: bool = False,
               canonicalize: bool = False) -> str:
    """The value class of one TCVT source element (hw-ieee)."""
    v = ref.decode(src, bits)
    first = source_class(v)
    if first is not None:
        return first
    s, d = ref.fmt(src), ref.fmt(dst)
    x = v.exact
    if d.kind == "e8m0":
        if v.negative:
            return "negative-to-e8m0"
        _, flags = ref.convert(src, dst, bits, mode, sat, canonicalize)
        if flags & ref.OF:
            return "overflow"
        if flags & ref.UF:
            return "underflow"
        return "inexact" if flags & ref.NX else "exact"
    if d.is_int:
        n = int(x) if s.is_int else ref.round_to_integer(x, ref.resolve_mode(mode, src, dst))
        return integer_result_class(dst, x, n)
    out, flags = ref.convert(src, dst, bits, mode, sat, canonicalize)
    return float_result_class(dst, x, out, flags)


def tquant_class(x_bits: int, multiplier_bits: int, zero_point: int, dst: str, mode: str) -> str:
    """The value class of one TQUANT FP32 source element: of x*m + zp rounded once."""
    v = ref.decode("FP32", x_bits)
    first = source_class(v)
    if first is not None:
        return first
    m = ref.decode("FP32", multiplier_bits & 0xFFFFFFFF).magnitude
    exact = v.exact * m + zero_point
    n = ref.round_to_integer(exact, "RNE" if mode == "NONE" else mode)
    return integer_result_class(dst, exact, n)


def tmuls_class(dtype: str, a_bits: int, scalar_bits: int) -> str:
    """The value class of one floating TMULS element a * scalar (hw-ieee, RNE)."""
    a, s = ref.decode(dtype, a_bits), ref.decode(dtype, scalar_bits)
    if a.cls == "nan" or s.cls == "nan":
        return "snan" if a.signalling or s.signalling else "qnan"
    negative = a.negative != s.negative
    if a.cls == "inf" or s.cls == "inf":
        if a.is_zero or s.is_zero:
            return "inf-times-zero"
        return "neg-inf" if negative else "pos-inf"
    if a.is_zero or s.is_zero:
        return "neg-zero" if negative else "pos-zero"
    bits, flags = ref.multiply(dtype, a_bits, scalar_bits)
    x = a.exact * s.exact
    return float_result_class(dtype, x, bits, flags)


NOFLAG = ("noflag", 0)


def isolation_key(value_class: str, flags: int) -> tuple:
    """Elements raising flags are keyed by (class, flags); flag-free elements share
    ``NOFLAG``: a tile of them expects no flag, so a flag any one of them wrongly
    raises shows (and there is no flag to forget)."""
    return (value_class, flags) if flags else NOFLAG


def key_label(key: tuple) -> str:
    """``overflow-of-nx``, ``qnan-nv``, ``noflag``."""
    return "noflag" if key == NOFLAG else f"{key[0]}-{flag_text(key[1])}"


def postprocess_class(steps, config) -> str:
    """The value class of one TGEMV_MX_ACC post-processing element (``postprocess.transform``
    steps): the accumulator's class, ``relu-zeroed`` when the activation multiplier is 0,
    else the class of the activated value in the output type (for S8: of the S9
    intermediate, and ``overflow`` when it or the offset sum leaves its range)."""
    first = source_class(steps.value)
    if first is not None:
        return first
    if steps.multiplier == 0:
        return "relu-zeroed"
    x, out = steps.activated, config.output
    if ref.fmt(out).is_int:
        n = postprocess.floating_to_integer(x, config.rounding)
        lo, hi = ref.fmt(out).int_range
        if not -256 <= n <= 255 or not lo <= n + steps.offset <= hi:
            return "overflow"
        if n == x:
            return "exact"
        return "tie" if x.denominator == 2 else "inexact"
    return float_result_class(out, x, steps.word & ((1 << ref.fmt(out).width) - 1), steps.flags)


def capped(tagged, limit: int) -> list:
    """[(element, tag), ...] -> at most ``limit`` elements in input order, keeping the first
    element of every tag (so that no class drops out of a capped tile)."""
    tagged = list(tagged)
    seen, first = set(), set()
    for i, (_, tag) in enumerate(tagged):
        if tag not in seen:
            seen.add(tag)
            first.add(i)
    room = limit - len(first)
    out = []
    for i, (element, _) in enumerate(tagged):
        if i in first or room > 0:
            room -= i not in first
            out.append(element)
    return out


def isolation_sets(items, limit: int) -> dict:
    """[(element, class, flags), ...] -> {isolation key: its elements (at most ``limit``,
    every class kept)}, keys in first-seen order; empty when the configuration needs no
    isolation (no element raises a flag, or all fall under one key)."""
    groups: dict = {}
    for element, value_class, flags in items:
        groups.setdefault(isolation_key(value_class, flags), []).append((element, value_class))
    if len(groups) < 2 or list(groups) == [NOFLAG]:
        return {}
    return {key: capped(members, limit) for key, members in groups.items()}
