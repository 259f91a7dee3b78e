"""Pieces every operation shares: atomic publication, result tiles with
padding, element helpers and the numeric controls the operations receive.

Facts from asl/tile/model/definedness/elements.asl (TileWithValidRegionDefined,
TileWithPadding), asl/tile/model/numeric/formats.asl (NormalizeTileInteger,
TileQuantizationScaleLegal/ZeroPointLegal), asl/tile/model/execution/elementwise.asl
(TileRawElementValue) and asl/scalar/model/fsu/arithmetic.asl
(DecodeBundleRoundingSelection).
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

import numpy as np

from ..encoding.names import ROUNDING_NAMES
from ..padding import pad_defines, pad_word
from ..state import WORD_MASK, MachineState, Tile

U64 = np.uint64


@dataclass
class Publication:
    """Everything an accepted operation makes visible, published at once."""

    tiles: dict = field(default_factory=dict)  # TileIndex -> Tile (new or replaced)
    flags: int = 0  # NumericStatus bits ORed into the sticky status
    memory: Optional[bytes] = None  # the whole new memory image (memory operations), None: unchanged
    events: tuple = ()  # memory events the operation records, in order (appended to the log)
    shared_tiles: dict = field(default_factory=dict)  # SharedTileIndex -> Tile (a Shared register's new record)
    unpublished: Optional[frozenset] = None  # the new set of unpublished Shared registers (None: unchanged)

    def apply(self, state: MachineState) -> MachineState:
        new = state.copy()
        for index, tile in self.tiles.items():
            new.tiles[index] = tile
        new.status |= self.flags & 0x1F
        if self.memory is not None:
            new.memory = self.memory
        if self.events:
            new.memory_log = new.memory_log.extend(self.events)
        if self.shared_tiles:
            shared = list(new.shared_tiles)
            for index, tile in self.shared_tiles.items():
                shared[index] = tile
            new.shared_tiles = tuple(shared)
        if self.unpublished is not None:
            new.unpublished_shared = self.unpublished
        return new


def status_bits(flags) -> int:
    """The NumericStatus bits of element flags (an int or an array of flag bits): their OR."""
    return int(np.bitwise_or.reduce(np.asarray(flags, dtype=np.uint8).ravel(), initial=0))


def rounding_name(code: int) -> str:
    """B.DATR RMode code -> name (0 = NONE: the operation default)."""
    return ROUNDING_NAMES[code]


def as_u64(values) -> np.ndarray:
    return np.asarray(values, dtype=np.uint64)


def result_tile(destination: Tile, valid_words: np.ndarray, pad: str,
                location: str = None) -> Tile:
    """``destination`` with its valid region replaced by ``valid_words``
    (valid_rows x valid_cols Words), every other coordinate written with the
    pad value (defined unless pad is Null); writes keep only element bits of a
    packed carrier."""
    keep = U64(destination.element_mask)
    payload = np.full(destination.payload.shape, U64(pad_word(pad, destination.dtype)) & keep, dtype=np.uint64)
    defined = np.full(destination.defined.shape, pad_defines(pad), dtype=bool)
    index = destination.valid_index
    payload[index] = as_u64(valid_words) & keep
    defined[index] = True
    tile = destination.with_contents(payload, defined)
    return tile if location is None else tile.with_descriptor(location=location)


def cube_result_tile(destination: Tile, valid_words: np.ndarray) -> Tile:
    """MarkLocalTileValidRegionDefined: only the valid region is written and
    defined, no padding; CUBE results keep one Word per element."""
    payload = destination.payload.copy()
    defined = np.zeros(destination.defined.shape, dtype=bool)
    index = destination.valid_index
    payload[index] = as_u64(valid_words)
    defined[index] = True
    return destination.with_contents(payload, defined).with_descriptor(location="Matrix")


def normalize_integer(words: np.ndarray, dtype) -> np.ndarray:
    """NormalizeTileInteger: sign- (S types) or zero-extend the low bits."""
    words = as_u64(words)
    if dtype.bits == 64:
        return words
    low = words & U64(dtype.mask)
    if dtype.signed:
        sign = U64(1 << (dtype.bits - 1))
        return (low ^ sign) - sign  # wraps modulo 2**64
    return low


def normalize_integer_int(value: int, dtype) -> int:
    low = value & dtype.mask
    if dtype.signed and dtype.bits < 64 and low >> (dtype.bits - 1):
        return (low - (1 << dtype.bits)) & WORD_MASK
    return low if dtype.bits < 64 else value & WORD_MASK


def raw_element(value: int, dtype) -> int:
    """TileRawElementValue: the low element bits of a GPR value (64-bit types keep all)."""
    return value & WORD_MASK if dtype.bits == 64 else value & dtype.mask


def encoding_valid(value: int, dtype) -> bool:
    """TileNumericEncodingValid for one element."""
    return not value & dtype.must_be_zero


def fp32_class(word: int) -> str:
    """Class of the low 32 bits as FP32: nan, inf, zero, subnormal, normal."""
    exponent, fraction = (word >> 23) & 0xFF, word & 0x7FFFFF
    if exponent == 0xFF:
        return "nan" if fraction else "inf"
    if exponent == 0:
        return "subnormal" if fraction else "zero"
    return "normal"


def quantization_scale_legal(scale: int) -> bool:
    """TileQuantizationScaleLegal: the low 32 bits are a positive finite nonzero
    FP32 (subnormal is legal); bits 63:32 are ignored."""
    return not (scale >> 31) & 1 and fp32_class(scale) in ("normal", "subnormal")


def quantization_zero_point_legal(zero_point: int, dtype) -> bool:
    """TileQuantizationZeroPointLegal: S8/U8 and canonically extended."""
    if dtype is None or dtype.name not in ("S8", "U8"):
        return False
    return normalize_integer_int(zero_point, dtype) == zero_point & WORD_MASK
