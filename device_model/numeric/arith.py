"""Element arithmetic as public API, beside ``convert``, with the same calling rules.

::

    from pto_avs.device_model.numeric import arith
    words, flags = arith("add", a, b, dtype="FP32", rounding="RTZ", profile="hw-ieee")

Operands are raw encodings exactly as ``convert`` takes them (``convert.source_words``):
a Python int in 0..2**64-1, a nested sequence of such ints, or an unsigned numpy
array at least as wide as the element type; anything else (negative or larger
ints, bools, floats, strings, signed or narrower arrays) raises TypeError or
ValueError. Operands broadcast; the result is ``(words uint64, flags uint8)`` in
the broadcast shape, flags in CORE_STATE order (``FLAG_NV`` ... ``FLAG_NX``).

Operations (``OPERATIONS``: name -> operand count): add, sub, mul, div, rem, fma
(``a*b + c``, rounded once), sqrt, rsqrt, recip, exp, log, min, max.

- ``hw-ieee``, floating types: IEEE 754-2019 under any of the seven rounding
  modes with the five flags (``ieee_float``, fast exact paths in ``ieee_fast``;
  exp and log correctly rounded, ``transcendental``). The unary SFU operations
  (sqrt, rsqrt, recip, exp, log) take TileSFUUnarySpecialValue's special values
  first, as the tile operations do.
- ``pto-v0``, floating types: the reference profile's raw carrier operations
  (``tile_arithmetic``): no rounding happens, so ``rounding`` is checked and
  changes nothing.
- integer types, both profiles: TileIntegerBinaryValue and friends (wrap,
  truncating division, floor modulo, no flags); the SFU operations are not
  defined on integers (ValueError).
- min, max: HardwareNumericFloatingMinMax / TileIntegerMinMaxValue, the same
  in both profiles; ``rounding`` changes nothing.

The tile operations run these same element functions under RNE
(DefaultNumericExecutionControl); this entry point adds the rounding mode.
"""
from __future__ import annotations

import numpy as np

from ..dtypes import dtype as _dtype
from . import ieee_float, tile_arithmetic, transcendental
from .convert import resolve_profile, source_words
from .rounding import rounding_mode
from .words import U64, lanes

OPERATIONS = {"add": 2, "sub": 2, "mul": 2, "div": 2, "rem": 2, "fma": 3, "sqrt": 1, "rsqrt": 1, "recip": 1,
              "exp": 1, "log": 1, "min": 2, "max": 2}
_IEEE_BINARY = {"add": ieee_float.add, "sub": ieee_float.sub, "mul": ieee_float.mul, "div": ieee_float.div,
                "rem": ieee_float.rem}
_IEEE_UNARY = {"sqrt": ieee_float.sqrt, "rsqrt": ieee_float.rsqrt, "recip": ieee_float.recip,
               "exp": transcendental.exp_finite, "log": transcendental.log_finite}


def _operation(op) -> str:
    key = op.strip().lower() if isinstance(op, str) else None
    if key not in OPERATIONS:
        raise ValueError(f"unknown arithmetic operation {op!r}; expected one of {', '.join(OPERATIONS)}")
    return key


def arith(op, *operands, dtype, rounding="RNE", profile="pto-v0"):
    """Element ``op`` on raw encodings of ``dtype``. Returns ``(words uint64, flags uint8)``.

    See the module docstring for the operations, profiles and calling rules.
    """
    name = _operation(op)
    t = _dtype(dtype)
    prof = resolve_profile(profile)
    mode = rounding_mode(rounding)
    if len(operands) != OPERATIONS[name]:
        raise TypeError(f"arith({name!r}) takes {OPERATIONS[name]} operand(s), got {len(operands)}")
    words = [source_words(v, t) for v in operands]
    if not (t.is_float and prof == "hw-ieee" and name not in ("min", "max")):
        words = [w.astype(U64, copy=False) for w in words]  # the carrier words those paths take
    # (the IEEE kernels take the encodings' own width: an unsigned array is used as it is)
    shape = np.broadcast_shapes(*(w.shape for w in words))
    flat = [np.ascontiguousarray(np.broadcast_to(w, shape)).reshape(-1) for w in words]
    out_words, out_flags = _evaluate(name, t, prof, mode, flat)
    return np.asarray(out_words, dtype=U64).reshape(shape), np.asarray(out_flags, dtype=np.uint8).reshape(shape)


def _evaluate(name, t, prof, mode, flat):
    if name in ("min", "max"):
        from ..ops import minmax  # the min/max element functions live with their operations

        words, flags = (minmax.maximum if name == "max" else minmax.minimum)(t, prof, flat[0], flat[1])
        return words, np.broadcast_to(np.asarray(flags, dtype=np.uint8), words.shape)
    if name == "fma":
        if t.is_float and prof == "hw-ieee":
            return ieee_float.fma(*(lanes(w, t.bits) for w in flat), t, mode)
        return tile_arithmetic.fma(*flat, t, prof)
    if OPERATIONS[name] == 2:
        if t.is_float and prof == "hw-ieee":
            return _IEEE_BINARY[name](lanes(flat[0], t.bits), lanes(flat[1], t.bits), t, mode)
        return tile_arithmetic.binary(name.upper(), flat[0], flat[1], t, prof)
    if t.is_integer:
        raise ValueError(f"{name} is an SFU operation on floating types; {t.name} is an integer type")
    if prof == "pto-v0":
        return tile_arithmetic.unary(name.upper(), flat[0], t, prof)
    if tile_arithmetic.sqrt_settles_specials(name.upper(), t, prof):
        return _IEEE_UNARY[name](lanes(flat[0], t.bits), t, mode)
    handled, words, flags = tile_arithmetic.sfu_special(name.upper(), flat[0], t)
    rest = np.flatnonzero(~handled)
    if rest.size:
        words[rest], flags[rest] = _IEEE_UNARY[name](lanes(flat[0][rest], t.bits), t, mode)
    return words, flags
