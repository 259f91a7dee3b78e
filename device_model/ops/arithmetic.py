"""Element functions of the arithmetic families: add/sub, mul, div/rem (TADD,
TSUB, TMUL, TDIV, TREM and the tile-scalar TADDS, TSUBS, TDIVS, TREMS) and fma (TFMA).

Facts from asl/tile/model/execution/elementwise.asl (TileProfileBinaryWithFlags,
TileIntegerBinaryValue, TileIntegerDivRemValue) and fused-multiply-add.asl
(TileFixedFusedMultiplyAddValue), computed by ``numeric.tile_arithmetic`` (its
docstring states the rules): integer types wrap, truncate (DIV) or take the
floor modulo (signed REM) in both profiles; pto-v0 floating types work on the
raw 64-bit carriers; hw-ieee rounds once under DefaultNumericExecutionControl
(RNE) with IEEE status. A zero integer divisor never reaches these functions:
the operations reject it first.

SPEC-CHOICE 24: the operation documents give smaller type sets than the executable
legality (TileVecArithmeticDataTypeSupported, 16 types): TADD, TSUB, TADDS and
TSUBS list nine (no FP64, TF32, HF32, E4M3, E5M2, S64, U64), TMUL, TDIV, TREM,
TDIVS and TREMS seven (no S8, U8 either), TFMA three (FP16, FP32, BF16, while the
same text describes integer results). The executable sets are used, as the spec
points TADD-DATA-TYPES-001, TFMA-TYPES-001, TMUL-TYPES-001 (S8) and TREMS-TYPES-001
(U8) assert.
"""
from __future__ import annotations

from ..numeric import tile_arithmetic


def add(dtype, profile, left, right):
    return tile_arithmetic.binary("ADD", left, right, dtype, profile)


def subtract(dtype, profile, left, right):
    return tile_arithmetic.binary("SUB", left, right, dtype, profile)


def multiply(dtype, profile, left, right):
    return tile_arithmetic.binary("MUL", left, right, dtype, profile)


def divide(dtype, profile, left, right):
    return tile_arithmetic.binary("DIV", left, right, dtype, profile)


def remainder(dtype, profile, left, right):
    return tile_arithmetic.binary("REM", left, right, dtype, profile)


def fused_multiply_add(dtype, profile, left, right, addend):
    return tile_arithmetic.fma(left, right, addend, dtype, profile)
