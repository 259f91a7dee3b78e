"""The independent reference of the bit-copy rearrangements TFILLPAD, TCONCAT, TEXTRACT,
TINSERT and TTRANS: plain Python over logical coordinates, written from the executable
ASL (asl/tile/model/execution/rearrangement.asl, generation.asl TFILLPAD, and
asl/tile/model/legality/layout-rearrangement.asl). It shares no code with device_model.

A tile here is a ``Grid``: its type, its physical rows x cols, its valid region and the
Word and definedness at every logical coordinate. Each operation returns the new
destination ``Grid`` (every Word as the destination stores it) or raises ``Illegal``
with the operand rule that fails, in the order the ASL checks them. No operation
computes a value: each element is the Word TileReadLogicalElement returns (a packed
carrier's element bits, else the whole Word), stored as the destination stores it.
"""
from __future__ import annotations

from dataclasses import dataclass, field

from .numeric import FORMATS

WORD = (1 << 64) - 1
MODEL_TILE_ELEMENTS = 32768  # PTO_MODEL_TILE_ELEMENTS: more logical elements use the packed carrier
OPERATIONS = ("TFILLPAD", "TCONCAT", "TEXTRACT", "TINSERT", "TTRANS")

# TileMove24DataTypeSupported: every assigned type but HiF4X2.
MOVE24 = tuple(name for name in FORMATS if name != "HiF4X2")
# TileCarrierOnlyDataTypeSupported: not 4-bit, at most 4 bytes.
CARRIER_ONLY = tuple(name for name in FORMATS if FORMATS[name].width not in (4, 64))
# The operand rule's type set of each operation.
TYPES = {"TFILLPAD": CARRIER_ONLY, "TCONCAT": MOVE24, "TEXTRACT": MOVE24, "TINSERT": MOVE24, "TTRANS": MOVE24}
# TileFillPadDataTypeSupported (TileVecArithmeticDataTypeSupported): the TFILLPAD contract's own set.
FILL_CONTRACT_TYPES = ("FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2",
                       "S64", "S32", "S16", "S8", "U64", "U32", "U16", "U8")


class Illegal(Exception):
    """An operand rule fails: Fault_TileLegality, nothing written."""


def mask(t: str) -> int:
    return (1 << FORMATS[t].width) - 1


def packed(t: str, rows: int, cols: int) -> bool:
    """TileUsesPackedCarrierRepresentation (ordinary layouts): 4-bit, or more elements than the Word slots."""
    return FORMATS[t].width == 4 or rows * cols > MODEL_TILE_ELEMENTS


def carrier_only(t: str) -> bool:
    return t in CARRIER_ONLY


@dataclass
class Grid:
    """One tile at logical coordinates: ``words[r][c]`` and ``defined[r][c]`` over rows x cols."""

    dtype: str
    rows: int
    cols: int
    valid: tuple
    words: list = field(default_factory=list)
    defined: list = field(default_factory=list)
    predicate: bool = False

    def __post_init__(self):
        if not self.words:
            self.words = [[0] * self.cols for _ in range(self.rows)]
        if not self.defined:
            self.defined = [[False] * self.cols for _ in range(self.rows)]

    @property
    def packed(self) -> bool:
        return packed(self.dtype, self.rows, self.cols)

    def read(self, r: int, c: int) -> int:
        """TileReadLogicalElement."""
        word = self.words[r][c]
        return word & mask(self.dtype) if self.packed else word

    def write(self, r: int, c: int, word: int, defined: bool = True) -> None:
        """TileInfoWithLogicalElementAndDefined: a packed carrier keeps the element bits."""
        self.words[r][c] = word & (mask(self.dtype) if self.packed else WORD)
        self.defined[r][c] = defined

    def valid_defined(self) -> bool:
        return all(self.defined[r][c] for r in range(self.valid[0]) for c in range(self.valid[1]))

    def copy(self) -> "Grid":
        return Grid(self.dtype, self.rows, self.cols, tuple(self.valid), [list(r) for r in self.words],
                    [list(r) for r in self.defined], self.predicate)

    def valid_words(self) -> list:
        return [[self.words[r][c] for c in range(self.valid[1])] for r in range(self.valid[0])]


def blank(dtype: str, rows: int, cols: int, valid) -> Grid:
    return Grid(dtype, rows, cols, tuple(valid))


def _sources_defined(*sources: Grid) -> None:
    """TileSourceContentsDefined (the dispatch checks it first; the operand rules again)."""
    for s in sources:
        if not s.valid_defined():
            raise Illegal("a source's valid region is not fully defined")


def _numeric(*tiles: Grid) -> bool:
    return not any(t.predicate for t in tiles)


def _valid_region_defined(g: Grid) -> None:
    """TileWithValidRegionDefined."""
    for r in range(g.valid[0]):
        for c in range(g.valid[1]):
            g.defined[r][c] = True


def _padding(g: Grid, pad_word: int | None) -> None:
    """TileWithPadding: every coordinate outside the valid region holds ``pad_word``
    (None: Null, undefined)."""
    for r in range(g.rows):
        for c in range(g.cols):
            if r >= g.valid[0] or c >= g.valid[1]:
                g.write(r, c, pad_word or 0, pad_word is not None)


def fillpad(destination: Grid, source: Grid, padding: int) -> Grid:
    """TFILLPAD: the source's valid rectangle, the low element bits of ``padding`` everywhere else."""
    _sources_defined(source)
    d, s = destination, source
    if not (_numeric(d, s) and carrier_only(d.dtype) and d.dtype == s.dtype and d.rows >= s.rows
            and d.cols >= s.cols and d.valid[0] >= s.valid[0] and d.valid[1] >= s.valid[1]):
        raise Illegal("TFILLPAD: numeric tiles of one carrier-only type, every destination dimension >= the source's")
    fill = padding & mask(d.dtype)  # TileRawElementValue (no 64-bit type reaches here)
    out = d.copy()
    for r in range(d.rows):
        for c in range(d.cols):
            inside = r < s.valid[0] and c < s.valid[1]
            out.write(r, c, s.read(r, c) if inside else fill)
    return out


def concat(destination: Grid, left: Grid, right: Grid) -> Grid:
    """TCONCAT: each row is the left source's valid row, then the right's; Null padding."""
    _sources_defined(left, right)
    d = destination
    if not (d.dtype == left.dtype == right.dtype and _numeric(d, left, right) and d.dtype in MOVE24
            and left.valid[0] > 0 and left.valid[0] == right.valid[0] == d.valid[0]
            and d.valid[1] == left.valid[1] + right.valid[1]):
        raise Illegal("TCONCAT: one Move24 type, equal valid rows, destination columns = left + right")
    out = d.copy()
    for r in range(d.valid[0]):
        for c in range(d.valid[1]):
            out.write(r, c, left.read(r, c) if c < left.valid[1] else right.read(r, c - left.valid[1]))
    _valid_region_defined(out)
    _padding(out, None)
    return out


def extract(destination: Grid, source: Grid, row_offset: int, column_offset: int, pad_word: int | None) -> Grid:
    """TEXTRACT: destination [r, c] = source [r + row_offset, c + column_offset]; padding
    ``pad_word`` (CurrentBundlePadValue's Word, None for Null)."""
    _sources_defined(source)
    d = destination
    if not (_numeric(d, source) and d.dtype in MOVE24 and d.dtype == source.dtype
            and row_offset + d.valid[0] <= source.valid[0] and column_offset + d.valid[1] <= source.valid[1]):
        raise Illegal("TEXTRACT: one Move24 type, the window inside the source's valid region")
    out = d.copy()
    for r in range(d.valid[0]):
        for c in range(d.valid[1]):
            out.write(r, c, source.read(r + row_offset, c + column_offset))
    _valid_region_defined(out)
    _padding(out, pad_word)
    return out


def insert(destination: Grid, old: Grid, source: Grid, row_offset: int, column_offset: int) -> Grid:
    """TINSERT: the old destination's Words and definedness, the source's valid region at
    the offsets; the padding stays the old destination's."""
    _sources_defined(old, source)
    d = destination
    same_shape = (d.rows, d.cols, tuple(d.valid), d.dtype, d.predicate) == (
        old.rows, old.cols, tuple(old.valid), old.dtype, old.predicate)
    if not (_numeric(d, old, source) and d.dtype in MOVE24 and same_shape and d.dtype == source.dtype
            and row_offset + source.valid[0] <= d.valid[0] and column_offset + source.valid[1] <= d.valid[1]):
        raise Illegal("TINSERT: one Move24 type, the old destination of the destination's shape, the window inside")
    out = d.copy()
    out.words = [list(r) for r in old.words]
    out.defined = [list(r) for r in old.defined]
    for r in range(source.valid[0]):
        for c in range(source.valid[1]):
            out.write(r + row_offset, c + column_offset, source.read(r, c))
    _valid_region_defined(out)
    return out


def transpose(destination: Grid, source: Grid) -> Grid:
    """TTRANS: destination [c, r] = source [r, c]; Null padding."""
    _sources_defined(source)
    d = destination
    if not (_numeric(d, source) and d.dtype in MOVE24 and tuple(d.valid) == (source.valid[1], source.valid[0])
            and d.dtype == source.dtype):
        raise Illegal("TTRANS: one Move24 type, the destination's valid region the source's transposed")
    out = d.copy()
    for r in range(source.valid[0]):
        for c in range(source.valid[1]):
            out.write(c, r, source.read(r, c))
    _valid_region_defined(out)
    _padding(out, None)
    return out


def valid_encodings(t: str) -> int:
    """The bits a valid encoding of ``t`` may set (TF32/HF32 keep low fraction bits zero,
    E3M2/E2M3 their top two carrier bits)."""
    f = FORMATS[t]
    if f.kind != "binary":
        return mask(t)
    return ((1 << (1 + f.exp_bits + f.frac_bits)) - 1) << f.frac_lsb


def patterns(t: str) -> list:
    """Distinct element bit patterns of ``t``: zero, one, all ones, the sign bit, the largest
    positive, alternating bits and, for binary floats, the infinities, quiet and signalling
    NaNs, negative zero and the smallest subnormal (all valid encodings)."""
    f, m = FORMATS[t], mask(t)
    w = 1 + f.exp_bits + f.frac_bits if f.kind == "binary" else f.width
    lsb = f.frac_lsb if f.kind == "binary" else 0
    top = 1 << (w - 1 + lsb)
    alternating = int("01" * 32, 2) & m & valid_encodings(t)
    values = [0, 1 << lsb, valid_encodings(t), top, valid_encodings(t) ^ top, alternating,
              valid_encodings(t) ^ alternating]
    if f.kind == "binary":
        exponent = ((1 << f.exp_bits) - 1) << (f.frac_bits + lsb)
        quiet = 1 << (f.frac_bits - 1 + lsb)
        values += [exponent, exponent | top, exponent | quiet, exponent | (1 << lsb), top | (1 << lsb)]
    seen = []
    for v in values:
        if v not in seen:
            seen.append(v)
    return seen
