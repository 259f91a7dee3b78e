"""Element functions of the SFU unary families: the sqrt family (TSQRT, TRSQRT,
TRECIP) and exp/log (TEXP, TLOG); floating types only, status in both profiles.

Facts from asl/tile/model/execution/unary.asl (ExecuteTileUnary,
TileSFUUnarySpecialValue, TileProfileUnary) and elementwise.asl (the
TileSquareRoot ... TileExponential hooks), computed by
``numeric.tile_arithmetic.unary``: the special operands (NaN, zeros,
infinities, negative values, LOG's one) take the spec's fixed results and
flags; pto-v0 returns the reference profile's raw-carrier hooks for the rest,
hw-ieee the correctly rounded value (RNE; TEXP/TLOG: ``numeric.transcendental``).

SPEC-CHOICE 24: the documents of these five operations accept exactly FP16, FP32 and
BF16; the executable TileUnaryDataTypeSupported accepts the eight floating types of
TileFloatingElementwiseDataTypeSupported, as TSQRT-TYPES-001 and TEXP-TYPES-001
assert (FP64, E4M3, E5M2 legal). The executable set is used.
"""
from __future__ import annotations

from ..numeric import tile_arithmetic


def square_root(dtype, profile, value):
    return tile_arithmetic.unary("SQRT", value, dtype, profile)


def reciprocal_square_root(dtype, profile, value):
    return tile_arithmetic.unary("RSQRT", value, dtype, profile)


def reciprocal(dtype, profile, value):
    return tile_arithmetic.unary("RECIP", value, dtype, profile)


def exponential(dtype, profile, value):
    return tile_arithmetic.unary("EXP", value, dtype, profile)


def logarithm(dtype, profile, value):
    return tile_arithmetic.unary("LOG", value, dtype, profile)
