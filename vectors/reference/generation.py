"""Element reference for the generation group of issue 25: TCI, TTRI, THISTOGRAM,
TDEQUANT, TGATHER and TSCATTER. Plain Python integers and Fractions, one element at a
time, written from the executable ASL; no code shared with device_model.

- TCI (asl/tile/model/execution/generation.asl): column k holds ``start + k`` or
  ``start - k`` modulo 2**width, ``start`` cut to the element width first.
- TTRI: [r, c] is the type's one (FP32 0x3F800000, FP16 0x3C00, integers 1) when
  ``c <= r + diagonal`` (lower) or ``c >= r + diagonal`` (upper), else 0.
- THISTOGRAM (asl/tile/model/execution/complex.asl): per row, count byte ``byte_id``
  of the elements whose filter bytes match, then the inclusive running sum over bins.
- TDEQUANT (asl/arch/profile/reference-quantization.asl, TileProfileDequantize): the
  exact ``(q - zp) * m`` rounded once to FP32 (numeric.encode_value: IEEE rounding, the
  hw-ieee reading); SPEC-CHOICE 46: pto-v0 follows ReferenceFP32FiniteEncoding, whose
  overflow is the signed infinity with OF|NX under every rounding mode.
- TGATHER, TSCATTER (asl/tile/model/execution/indexed-rearrangement.asl, legality in
  asl/tile/model/legality/indexed-rearrangement.asl): an index element names a logical
  row at its own column, read from its low 16/32/64 bits, negative when a signed index's
  top bit of that width is set; gather reads source[index, c], scatter writes
  destination[index, c] over a zero-filled destination, a repeated target is illegal.
"""
from __future__ import annotations

from fractions import Fraction

from . import numeric

MASK64 = (1 << 64) - 1
TCI_TYPES = ("S32", "S16", "U32", "U16")
TTRI_TYPES = ("FP32", "FP16", "S32", "S16", "U32", "U16")
TTRI_ONE = {"FP32": 0x3F800000, "FP16": 0x3C00}
HISTOGRAM_SOURCES = ("U16", "U32")
# source type -> ByteId -> ((filter logical row or "row" for the element's own row, source byte), ...)
HISTOGRAM_FILTERS = {"U16": {0: (("row", 1),), 1: ()},
                     "U32": {0: ((0, 3), (1, 2), (2, 1)), 1: ((0, 3), (1, 2)), 2: ((0, 3),), 3: ()}}
INDEX_TYPES = ("S16", "U16", "S32", "U32", "S64", "U64")
VALUE_TYPES = tuple(name for name, f in numeric.FORMATS.items() if f.width != 4)
DEQUANT_SOURCES = ("S8", "U8")


def width(t: str) -> int:
    return numeric.FORMATS[t].width


# --- TCI, TTRI --------------------------------------------------------------------------

def tci(t: str, start: int, count: int, descending: bool) -> list:
    modulus = 1 << width(t)
    first = start % modulus
    return [(first - k if descending else first + k) % modulus for k in range(count)]


def ttri(t: str, rows: int, cols: int, upper: bool, diagonal: int) -> list:
    one = TTRI_ONE.get(t, 1)
    out = []
    for r in range(rows):
        out.append([one if ((c >= r + diagonal) if upper else (c <= r + diagonal)) else 0 for c in range(cols)])
    return out


# --- THISTOGRAM --------------------------------------------------------------------------

def byte(word: int, index: int) -> int:
    return (word >> (8 * index)) & 0xFF


def histogram_row(t: str, row: int, words: list, filter_column: list, byte_id: int) -> list:
    """One destination row: 256 inclusive prefix counts. ``filter_column`` holds the
    filter's logical [r, 0] elements (only the rows the ByteId reads need be given)."""
    counts = [0] * 256
    for word in words:
        passes = all(byte(word, source_byte) == filter_column[row if f_row == "row" else f_row] & 0xFF
                     for f_row, source_byte in HISTOGRAM_FILTERS[t][byte_id])
        if passes:
            counts[byte(word, byte_id)] += 1
    running, out = 0, []
    for count in counts:
        running += count
        out.append(running)
    return out


def histogram(t: str, rows: list, filter_column: list, byte_id: int) -> list:
    return [histogram_row(t, r, words, filter_column, byte_id) for r, words in enumerate(rows)]


def filter_rows_read(t: str, byte_id: int, source_rows: int) -> int:
    """How many filter rows (at column 0) must be defined."""
    pairs = HISTOGRAM_FILTERS[t][byte_id]
    if not pairs:
        return 0
    return source_rows if pairs[0][0] == "row" else len(pairs)


# --- TDEQUANT ------------------------------------------------------------------------------

def integer_value(t: str, word: int) -> int:
    v = numeric.decode(t, word)
    return -int(v.magnitude) if v.negative else int(v.magnitude)


def scale_legal(word: int) -> bool:
    """TileQuantizationScaleLegal: the low 32 bits a positive, finite, nonzero FP32."""
    low = word & 0xFFFFFFFF
    return not low >> 31 and (low >> 23) & 0xFF != 0xFF and low & 0x7FFFFFFF != 0


def zero_point_legal(t: str, word: int) -> bool:
    """TileQuantizationZeroPointLegal: the Word is the canonical (sign- or zero-extended) S8/U8 value."""
    return (integer_value(t, word) & MASK64) == word & MASK64


def dequantize(t: str, q_word: int, multiplier: int, zero_point: int, mode: str, profile: str) -> tuple:
    """(FP32 Word, flags) of one element."""
    mode = "RNE" if mode == "NONE" else mode
    m = numeric.decode("FP32", multiplier & 0xFFFFFFFF).magnitude
    exact = (integer_value(t, q_word) - integer_value(t, zero_point)) * m
    bits, flags = numeric.encode_value("FP32", exact < 0, abs(Fraction(exact)), mode, False)
    if profile == "pto-v0" and flags & numeric.OF:
        bits, flags = (0xFF800000 if exact < 0 else 0x7F800000), numeric.OF | numeric.NX
    return bits, flags


# --- TGATHER, TSCATTER ---------------------------------------------------------------------

def index_row(index_type: str, word: int) -> tuple:
    """(negative, row) of one index Word (TileIndexedRowIsNegative, TileIndexedRowValue)."""
    w = width(index_type)
    low = word & ((1 << w) - 1)
    negative = numeric.FORMATS[index_type].kind == "signed" and bool(low >> (w - 1))
    return negative, low


def gather(values: list, indices: list, index_type: str) -> list:
    """Destination rows: values[row(index[r][c])][c]; the caller checked legality."""
    return [[values[index_row(index_type, word)[1]][c] for c, word in enumerate(row)] for row in indices]


def gather_legal(index_type: str, indices: list, source_rows: int) -> bool:
    return all(not neg and row < source_rows for neg, row in (index_row(index_type, w) for r in indices for w in r))


def scatter(values: list, indices: list, index_type: str, rows: int, cols: int) -> list:
    """The whole rows x cols destination (physical coordinates): zeros, then the writes."""
    out = [[0] * cols for _ in range(rows)]
    for r, row in enumerate(indices):
        for c, word in enumerate(row):
            out[index_row(index_type, word)[1]][c] = values[r][c]
    return out


def scatter_legal(index_type: str, indices: list, destination_rows: int) -> bool:
    targets = set()
    for row in indices:
        for c, word in enumerate(row):
            negative, target = index_row(index_type, word)
            if negative or target >= destination_rows or (target, c) in targets:
                return False
            targets.add((target, c))
    return True
