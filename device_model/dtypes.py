"""The 25 assigned Tile DataTypes: codes, widths, classes and format parameters.

Facts from the PTO ISA specification (asl/arch/data-types/tile-data-types.asl,
formats/*.asl, and spec/hardware-conformance-profile.json). This module holds
data only; decoding and rounding live in ``device_model.numeric``.

Terms used throughout the project:
- ``bits``: the width of one logical element (a lane). X2 types have 4-bit lanes,
  two to a storage byte (lane 2i in bits 3:0, lane 2i+1 in bits 7:4).
- ``payload_bits``: bits that carry the value; E3M2/E2M3 carry 6 bits in an 8-bit
  carrier whose bits 7:6 must be zero, TF32/HF32 keep their fraction in the top
  bits of a 32-bit carrier whose low 13/12 bits must be zero.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

DTYPE_NONE = 31
"""B.DATR.DataType sentinel: inherit the source type. Never a TileDataType."""

RESERVED_CODES = (15, 21, 22, 23, 29, 30, 31)


@dataclass(frozen=True)
class FloatFormat:
    """Parameters of a sign/exponent/fraction format.

    Value of a finite encoding with exponent field E and fraction field F:
    E == 0: (-1)^s * F * 2^(1 - bias - frac_bits)       (subnormal or zero)
    E > 0:  (-1)^s * (2^frac_bits + F) * 2^(E - bias - frac_bits)
    HiF8 is tapered and E8M0 is a bare exponent; both are marked by ``kind``.
    """

    kind: str  # "binary" | "hif8" | "e8m0"
    exp_bits: int
    frac_bits: int
    bias: int
    sign_bit: Optional[int]  # None: unsigned format (E8M0)
    frac_shift: int = 0  # fraction field starts at this bit (TF32 13, HF32 12)
    has_inf: bool = True
    nan: str = "ieee"  # "ieee": E all ones, F != 0; "allones": only E,F all ones (E4M3); "none"; "single" (HiF8 0x80, E8M0 0xFF)
    has_subnormal: bool = True  # exponent-0 codes with nonzero fraction are subnormal in classification


@dataclass(frozen=True)
class DataType:
    code: int
    name: str
    bits: int  # logical element (lane) width
    kind: str  # "float" | "signed" | "unsigned"
    fmt: Optional[FloatFormat] = None
    payload_bits: Optional[int] = None  # value-carrying bits; defaults to ``bits``
    must_be_zero: int = 0  # bit mask that must be zero for a valid encoding
    canonical_nan: Optional[int] = None
    max_finite: Optional[int] = None  # encoding of the largest finite value (floats)

    @property
    def packed(self) -> bool:
        """X2 types: two 4-bit lanes per storage byte."""
        return self.bits == 4

    @property
    def is_float(self) -> bool:
        return self.kind == "float"

    @property
    def is_integer(self) -> bool:
        return self.kind != "float"

    @property
    def signed(self) -> bool:
        return self.kind == "signed"

    @property
    def mask(self) -> int:
        return (1 << self.bits) - 1

    @property
    def int_min(self) -> int:
        return -(1 << (self.bits - 1)) if self.signed else 0

    @property
    def int_max(self) -> int:
        return (1 << (self.bits - 1)) - 1 if self.signed else (1 << self.bits) - 1

    def __str__(self) -> str:  # pragma: no cover - convenience
        return self.name


def _binary(exp_bits, frac_bits, bias, sign_bit, **kw):
    return FloatFormat("binary", exp_bits, frac_bits, bias, sign_bit, **kw)


_TYPES = (
    DataType(0, "FP64", 64, "float", _binary(11, 52, 1023, 63), canonical_nan=0x7FF8000000000000, max_finite=0x7FEFFFFFFFFFFFFF),
    DataType(1, "FP32", 32, "float", _binary(8, 23, 127, 31), canonical_nan=0x7FC00000, max_finite=0x7F7FFFFF),
    DataType(2, "TF32", 32, "float", _binary(8, 10, 127, 31, frac_shift=13), must_be_zero=0x1FFF, canonical_nan=0x7FC00000, max_finite=0x7F7FE000),
    DataType(3, "HF32", 32, "float", _binary(8, 11, 127, 31, frac_shift=12), must_be_zero=0xFFF, canonical_nan=0x7FC00000, max_finite=0x7F7FF000),
    DataType(4, "FP16", 16, "float", _binary(5, 10, 15, 15), canonical_nan=0x7E00, max_finite=0x7BFF),
    DataType(5, "BF16", 16, "float", _binary(8, 7, 127, 15), canonical_nan=0x7FC0, max_finite=0x7F7F),
    DataType(6, "HiF8", 8, "float", FloatFormat("hif8", 0, 3, 0, 7, nan="single"), canonical_nan=0x80, max_finite=0x6E),
    DataType(7, "E4M3", 8, "float", _binary(4, 3, 7, 7, has_inf=False, nan="allones"), canonical_nan=0x7F, max_finite=0x7E),
    DataType(8, "E5M2", 8, "float", _binary(5, 2, 15, 7), canonical_nan=0x7E, max_finite=0x7B),
    DataType(9, "E3M2", 8, "float", _binary(3, 2, 3, 5, has_inf=False, nan="none"), payload_bits=6, must_be_zero=0xC0, max_finite=0x1F),
    DataType(10, "E2M3", 8, "float", _binary(2, 3, 1, 5, has_inf=False, nan="none"), payload_bits=6, must_be_zero=0xC0, max_finite=0x1F),
    DataType(11, "E2M1X2", 4, "float", _binary(2, 1, 1, 3, has_inf=False, nan="none", has_subnormal=False), max_finite=0x7),
    DataType(12, "E1M2X2", 4, "float", _binary(1, 2, 1, 3, has_inf=False, nan="none", has_subnormal=False), max_finite=0x7),
    DataType(13, "E8M0", 8, "float", FloatFormat("e8m0", 8, 0, 127, None, has_inf=False, nan="single", has_subnormal=False), canonical_nan=0xFF, max_finite=0xFE),
    DataType(14, "HiF4X2", 4, "float", _binary(1, 2, 1, 3, has_inf=False, nan="none", has_subnormal=False), max_finite=0x7),
    DataType(16, "S64", 64, "signed"),
    DataType(17, "S32", 32, "signed"),
    DataType(18, "S16", 16, "signed"),
    DataType(19, "S8", 8, "signed"),
    DataType(20, "S4X2", 4, "signed"),
    DataType(24, "U64", 64, "unsigned"),
    DataType(25, "U32", 32, "unsigned"),
    DataType(26, "U16", 16, "unsigned"),
    DataType(27, "U8", 8, "unsigned"),
    DataType(28, "U4X2", 4, "unsigned"),
)

BY_NAME = {t.name: t for t in _TYPES}
BY_CODE = {t.code: t for t in _TYPES}
_BY_LOWER_NAME = {t.name.lower(): t for t in _TYPES}
ALL = _TYPES
NAMES = tuple(t.name for t in _TYPES)
INTEGER_TYPES = tuple(t for t in _TYPES if t.is_integer)


def dtype(spec) -> DataType:
    """Look up a DataType by name (case-insensitive), code, or DataType."""
    if isinstance(spec, DataType):
        return spec
    if isinstance(spec, int):
        try:
            return BY_CODE[spec]
        except KeyError:
            raise ValueError(f"DataType code {spec} is not an assigned Tile DataType") from None
    found = _BY_LOWER_NAME.get(str(spec).strip().lower())
    if found is None:
        raise ValueError(f"unknown Tile DataType {spec!r}")
    return found
