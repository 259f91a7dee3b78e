"""Numeric layer of the golden model: exact decoding, rounding and conversion.

Public API (used by the operations and callable alone)::

    from . import convert, FLAG_NV, FLAG_DZ, FLAG_OF, FLAG_UF, FLAG_NX
    words, flags = convert(bits, "BF16", "E8M0", rounding="RNE", saturate=False,
                           profile="pto-v0", canonicalize=False)
    words, flags = arith("add", a, b, dtype="FP32", rounding="RTZ", profile="hw-ieee")

``arith`` (module ``arith``) is the element arithmetic of the tile operations:
add, sub, mul, div, rem, fma, sqrt, rsqrt, recip, exp, log, min, max, under both
profiles and the seven rounding modes, with the same calling rules as ``convert``.

``bits`` is a Python int in 0..2**64-1, a nested sequence of such ints, or an
unsigned numpy array at least as wide as the source encoding; ``saturate`` and
``canonicalize`` are bools. Anything else (negative or larger integers, bools,
floats, strings, signed or narrower arrays) raises TypeError or ValueError
rather than being reduced or extended. ``quantize`` rejects a multiplier that is
NaN, infinite or zero, as the reference quantizer does.

All decisions are integer arithmetic on exact ``(sign, significand, exponent)``
triples, vectorized with numpy; no host float decides a rounding.

Importing the package tunes the C allocator for large temporaries (module
``allocator``; ``PTO_AVS_MALLOC_TUNING=0`` leaves it alone).
"""
from . import allocator  # noqa: F401  (first: the tuning applies to everything below)
from .convert import PROFILES, UnsupportedConversion, convert
from .arith import arith
from .flags import FLAG_DZ, FLAG_NV, FLAG_NX, FLAG_OF, FLAG_UF, flag_names, flags_from_names
from .formats import ValueClass, canonical_nan, classify, decode, decompose, max_finite
from .quantize import quantize
from .rounding import RoundingMode, rounding_mode
from .scaled_fma import scaled_fma_fp32
from .tile_arithmetic import multiply
from .values import encode

__all__ = [
    "FLAG_DZ", "FLAG_NV", "FLAG_NX", "FLAG_OF", "FLAG_UF", "PROFILES", "RoundingMode",
    "UnsupportedConversion", "ValueClass", "arith", "canonical_nan", "classify", "convert", "decode",
    "decompose", "encode", "flag_names", "flags_from_names", "max_finite", "multiply",
    "quantize", "rounding_mode", "scaled_fma_fp32",
]
