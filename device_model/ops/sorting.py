"""The sorting kinds: TSORT (a stable sort of every row group, with two destinations:
the values and their U32 within-group indices) and TMRGSORT (a stable merge of two
sorted single-row streams); each operation module is one declaration.

Facts from asl/tile/model/ordering/sorting.asl (TileSortDataTypeSupported,
TileSortLeftBefore, TileSortSequenceOrdered), legality/sorting.asl
(TileOperandsLegal_TSORT/_TMRGSORT), execution/sorting.asl (TSORT, TMRGSORT),
asl/block/model/dispatch/sorting-schema.asl (SelectedBundleClosedSortingSchemaLegal,
BundleSortingDescending), destination-shape.asl (ResolveBundleTileDestinationsForOperation),
scalar-schema.asl (the flag0 B.IOR value is 0 or 1) and tile-schema.asl (sort_width is
LB0 when 1..64, else 32):

- ``left before right`` (TileSortLeftBefore): a NaN goes after every number in both
  directions and two NaNs keep their order; two zeros, or two equal Words, keep their
  order; otherwise the floating order key (sign-magnitude) decides, increasing or
  decreasing. SPEC-CHOICE 42: the ASL's equality is of whole Words, so two elements with
  the same element bits but different carrier bits are not "equal" and neither goes
  first: the ASL's bubble passes swap them every time and a merge takes the right one;
  pto-v0 follows it, hw-ieee compares the element bits there (a stable sort, as the
  contracts say). TMRGSORT's sortedness check compares whole Words in both profiles (a
  block's closed schema runs it before the profile's execution), so a source holding
  such a pair side by side is unsorted in both;
- TSORT splits every valid row from column 0 into groups of sort_width (the last may be
  short; padding is never read) and sorts each group by 64 passes of adjacent
  compare-and-swap (the ASL's bubble sort: stable, since only a strict "right before
  left" swaps); each index is the element's original column within its group. Where the
  order is consistent (every group under hw-ieee, and under pto-v0 every group without
  the pairs of SPEC-CHOICE 42) that is a stable sort by rank, done at once for all
  groups; the pto-v0 groups with such a pair replay the passes, vectorized over them;
- TMRGSORT takes the left element unless the right one goes strictly before it: the left
  element i lands at i plus the number of right elements it does not go before (a
  searchsorted over ranks, plus the right elements of its rank that SPEC-CHOICE 42 puts
  first);
- a signaling NaN anywhere in a valid source region records NV (both profiles); the
  values are sorted, never changed;
- TSORT's value result starts from a copy of the source's TileInfo in the ASL; the operand
  checks make the destination's type, layout, rows, columns and valid region the source's
  (TileLogicalShapeMatch), and its allocation mask is kept apart from the TileInfo, so the
  result is the destination's descriptor with the sorted values;
- the destinations' padding is Null; B.DATR must be all zero; TSORT has no LB1/LB2 and
  an LB0 of at most 64, TMRGSORT no B.DIM; the merged destination is 1 x (left + right)
  valid columns in the smallest power-of-two physical columns. SPEC-CHOICE 41: more than
  32768 columns together is Fault_TileAllocation in the TMRGSORT contract; the ASL's closed
  schema rejects it first (Fault_TileLegality), which the model follows in both profiles.
"""
from __future__ import annotations

import numpy as np

from .. import block as blocks
from ..dtypes import dtype as data_type
from ..faults import tile_legality
from ..numeric import FLAG_NV, ValueClass, classify
from ..state import MachineState, descriptor_legal, logical_shape_match, source_contents_defined, source_encodings_valid
from .common import Publication, result_tile
from .minmax import order_key
from .operation import Operation
from .registry import REQUIRED

U64 = np.uint64
# SPEC-CHOICE 40: the TSORT contract lists BF16; TileSortDataTypeSupported (and the spec's
# tile-bound-tsort-types-001) accept FP32 and FP16 only. The executable set is used.
SORT_TYPES = frozenset({"FP32", "FP16"})
INDEX_TYPE = "U32"
DEFAULT_SORT_WIDTH = 32
MAX_SORT_WIDTH = 64
SORT_PASSES, SORT_OFFSETS = 64, 63  # TSORT's bubble: passes, and adjacent pairs a pass visits
MAX_MERGED_COLUMNS = 32768
NAN_RANK, FILLER_RANK = 1 << 40, 1 << 41  # above every order key (at most 32 bits)


# ---------------------------------------------------------------------------
# TileSortLeftBefore and the ranks that realise it

def words_equal(left, right, dtype, profile: str):
    """The Word equality TileSortLeftBefore tests: whole Words in pto-v0, element bits in
    hw-ieee (SPEC-CHOICE 42)."""
    if profile == "pto-v0":
        return left == right
    return (left & U64(dtype.mask)) == (right & U64(dtype.mask))


def is_nan(classes):
    return classes >= ValueClass.QUIET_NAN


def is_zero(classes):
    return (classes == ValueClass.POSITIVE_ZERO) | (classes == ValueClass.NEGATIVE_ZERO)


def left_before(left, right, dtype, descending: bool, profile: str):
    """TileSortLeftBefore of every pair (left, right), as bools."""
    lc, rc = classify(left, dtype), classify(right, dtype)
    lk, rk = order_key(left, dtype), order_key(right, dtype)
    strict = lk > rk if descending else lk < rk
    numeric = (is_zero(lc) & is_zero(rc)) | words_equal(left, right, dtype, profile) | strict
    return np.where(is_nan(lc), is_nan(rc), is_nan(rc) | numeric)


def ranks(words, dtype, descending: bool):
    """An int64 rank per element whose order is TileSortLeftBefore's wherever it is
    consistent: equal for two NaNs and for two zeros, a NaN above every number."""
    classes = classify(words, dtype)
    zero_key = order_key(np.zeros(1, dtype=U64), dtype)[0]
    key = np.where(is_zero(classes), zero_key, order_key(words, dtype)).astype(np.int64)
    key = -key if descending else key
    return np.where(is_nan(classes), NAN_RANK, key)


def signaling_nan_seen(*tiles) -> bool:
    return any(bool((classify(t.valid_words(), t.dtype) == ValueClass.SIGNALING_NAN).any()) for t in tiles)


def ordered(words, dtype, descending: bool) -> bool:
    """TileSortSequenceOrdered of one row of Words (whole Words compared: SPEC-CHOICE 42)."""
    return bool(left_before(words[:-1], words[1:], dtype, descending, "pto-v0").all())


# ---------------------------------------------------------------------------
# TSORT's groups

def sort_groups(words, dtype, width: int, descending: bool, profile: str):
    """(sorted Words, within-group indices) of every row of ``words`` (valid_rows x
    valid_cols), each row sorted in groups of ``width`` from column 0."""
    rows, cols = words.shape
    groups = -(-cols // width)
    span = groups * width
    padded = np.zeros((rows, span), dtype=U64)
    padded[:, :cols] = words
    real = np.zeros((rows, span), dtype=bool)
    real[:, :cols] = True
    values = padded.reshape(rows * groups, width)
    present = real.reshape(rows * groups, width)
    rank = np.where(present, ranks(values, dtype, descending), FILLER_RANK)
    order = np.argsort(rank, axis=1, kind="stable")
    values = np.take_along_axis(values, order, axis=1)
    indices = order.astype(U64)
    if profile == "pto-v0":
        replay = inconsistent_groups(values, np.take_along_axis(rank, order, axis=1), dtype)
        if replay.any():
            start = padded.reshape(rows * groups, width)[replay]
            lengths = present[replay].sum(axis=1)
            values[replay], indices[replay] = bubble_passes(start, lengths, dtype, descending, profile)
    return values.reshape(rows, span)[:, :cols], indices.reshape(rows, span)[:, :cols]


def inconsistent_groups(values, sorted_ranks, dtype):
    """Groups holding two numbers of one rank with different Words (SPEC-CHOICE 42, pto-v0):
    after the sort by rank such a pair has a neighbour of its rank with another Word."""
    same_rank = sorted_ranks[:, 1:] == sorted_ranks[:, :-1]
    numeric = (sorted_ranks[:, 1:] < NAN_RANK) & ~is_zero(classify(values[:, 1:], dtype))
    return (same_rank & numeric & (values[:, 1:] != values[:, :-1])).any(axis=1)


def bubble_passes(values, lengths, dtype, descending: bool, profile: str):
    """The ASL's 64 passes of adjacent compare-and-swap over each group (rows of
    ``values``, ``lengths`` real elements each), every group at once: (values, indices)."""
    values = values.copy()
    indices = np.tile(np.arange(values.shape[1], dtype=U64), (values.shape[0], 1))
    for _ in range(SORT_PASSES):
        for offset in range(min(SORT_OFFSETS, values.shape[1] - 1)):
            left, right = values[:, offset], values[:, offset + 1]
            swap = (offset + 1 < lengths) & ~left_before(left, right, dtype, descending, profile)
            values[swap, offset], values[swap, offset + 1] = right[swap], left[swap]
            li, ri = indices[:, offset].copy(), indices[:, offset + 1].copy()
            indices[swap, offset], indices[swap, offset + 1] = ri[swap], li[swap]
    return values, indices


def merge(left, right, dtype, descending: bool, profile: str):
    """TMRGSORT's merged row of two sorted rows of Words."""
    left_rank, right_rank = ranks(left, dtype, descending), ranks(right, dtype, descending)
    low = np.searchsorted(right_rank, left_rank, side="left")
    high = np.searchsorted(right_rank, left_rank, side="right")
    # SPEC-CHOICE 42: right elements of the left one's rank go first when their Word differs
    # (a sorted source holds one Word per numeric rank, so the first of them stands for all)
    numeric = (left_rank < NAN_RANK) & ~is_zero(classify(left, dtype))
    block_word = right[np.minimum(low, len(right) - 1)]
    differs = (high > low) & numeric & ~words_equal(left, block_word, dtype, profile)
    position = np.arange(len(left)) + np.where(differs, high, low)
    out = np.zeros(len(left) + len(right), dtype=U64)
    taken = np.zeros(len(out), dtype=bool)
    out[position], taken[position] = left, True
    out[~taken] = right
    return out


# ---------------------------------------------------------------------------
# The kinds

class SortingOperation(Operation):
    """What TSORT and TMRGSORT share: the closed sorting schema's common part, the flag0
    B.IOR value, the all-zero B.DATR and the operand checks' common part."""

    BSTART = "BSTART.TEPL"
    GPR_INPUTS = 1  # flag0 (BundleOperationGPRInputCount counts it)
    DATR_ALLOWED = frozenset()  # datr_contract: must-zero
    types = SORT_TYPES
    types_name = "TileSortDataTypeSupported"

    def __init__(self, name: str):
        self.NAME = name

    def gpr_values_check(self, state: MachineState, block) -> None:
        """BundleOperationGPRBindingValuesLegal: a present B.IOR's flag0 GPR holds 0 or 1."""
        if block.ior is not None and block.gpr_inputs(state)[0] not in (0, 1):
            raise tile_legality(f"{self.NAME}: the B.IOR direction must be 0 (ascending) or 1 (descending)")

    @staticmethod
    def descending(state: MachineState, block) -> bool:
        """BundleSortingDescending: B.IOR RegSrc0's GPR is 1 (B.IOR omitted: ascending)."""
        return block.ior is not None and block.gpr_inputs(state)[0] == 1

    def stream_source_legal(self, state: MachineState, block, index: int) -> bool:
        """A sorting schema source: legal, numeric, of the BSTART type, RowMajor, not
        empty, defined and validly encoded."""
        tile = state.tiles[index]
        return (descriptor_legal(tile, state.tile_capacity) and not tile.predicate
                and tile.dtype == block.data_type and tile.layout == "RowMajor"
                and tile.valid_rows > 0 and tile.valid_cols > 0
                and source_encodings_valid(tile, state.tile_capacity))

    def schema_legal(self, state: MachineState, block) -> bool:
        return (block.data_type.name in self.types and self.dims_legal(block)
                and self.stream_source_legal(state, block, block.sources()[0]))

    def sources_defined(self, tiles, sources, limit: int) -> None:
        """The dispatch's first check: every source's valid region defined."""
        if not all(source_contents_defined(tiles[s], limit) for s in sources):
            raise tile_legality(f"{self.NAME}: a source is not a legal, fully defined tile")

    def check_types(self, tiles, destinations, sources, limit: int) -> None:
        """Every operand a legal RowMajor tile, the first source of a sorting type."""
        everything = [tiles[i] for i in (*destinations, *sources)]
        if not all(descriptor_legal(t, limit) for t in everything):
            raise tile_legality(f"{self.NAME}: every operand must be a legal tile")
        if tiles[sources[0]].dtype.name not in self.types:
            raise tile_legality(f"{self.NAME} sorts {' or '.join(sorted(self.types))} values "
                                f"({self.types_name}), not {tiles[sources[0]].dtype.name}")
        if any(t.layout != "RowMajor" for t in everything):
            raise tile_legality(f"{self.NAME}: every operand must be RowMajor")


class TileSort(SortingOperation):
    """TSORT: every valid row sorted in groups of sort_width (LB0, default 32), published
    as two new destinations, the values and their original within-group U32 indices."""

    HANDLER, LEGALITY = "TSORT", "TileOperandsLegal_TSORT"
    ARGUMENTS = ("destination0", "destination1", "source0", "sort_width", "flag0")
    SOURCES, DESTINATIONS = 1, 2
    DIRECT_ARGUMENTS = {"dst": REQUIRED, "dst1": REQUIRED, "src": REQUIRED, "sort_width": DEFAULT_SORT_WIDTH,
                        "descending": False}

    def dims_legal(self, block) -> bool:
        """No LB1 or LB2; an LB0 of at most 64."""
        return block.dims[1] is None and block.dims[2] is None and (block.dims[0] or 0) <= MAX_SORT_WIDTH

    def schema_summary(self) -> str:
        return ("FP32|FP16 BSTART type, no LB1/LB2, LB0 <= 64, a legal defined RowMajor numeric source "
                "of that type")

    @staticmethod
    def sort_width(block) -> int:
        """LB0 when it is 1..64, else 32 (omitted or 0)."""
        return block.dims[0] if block.dims[0] and block.dims[0] <= MAX_SORT_WIDTH else DEFAULT_SORT_WIDTH

    def resolve_destinations(self, state: MachineState, block) -> list:
        """Both destinations in the source's shape: the values of its type, then U32 indices."""
        source = state.tiles[block.sources()[0]]
        shape = (source.valid_rows, source.valid_cols, source.cols)
        return blocks.resolve_destinations(state, block, [(shape, source.dtype), (shape, data_type(INDEX_TYPE))])

    def execute_destinations(self, state: MachineState, block, destinations: list, profile: str) -> Publication:
        tiles = list(state.tiles)
        for index, tile in destinations:
            tiles[index] = tile
        (values, _), (indices, _) = destinations
        return self.run(tiles, values, indices, block.sources()[0], self.sort_width(block),
                        self.descending(state, block), profile, state.tile_capacity)

    def check_call(self, call: dict) -> None:
        if not 1 <= call["sort_width"] <= MAX_SORT_WIDTH:
            raise ValueError(f"direct TSORT: sort_width {call['sort_width']} must be 1..{MAX_SORT_WIDTH}")

    def direct(self, state: MachineState, call: dict, profile: str) -> Publication:
        return self.run(state.tiles, call["dst"], call["dst1"], call["src"], call["sort_width"],
                        call["descending"], profile, state.tile_capacity)

    def operands_check(self, tiles, values: int, indices: int, source: int, limit: int) -> None:
        """TileOperandsLegal_TSORT, after the source's definedness."""
        self.sources_defined(tiles, [source], limit)
        if len({values, indices, source}) != 3:
            raise tile_legality("TSORT: the two destinations and the source must be three tiles")
        self.check_types(tiles, [values, indices], [source], limit)
        src = tiles[source]
        if tiles[values].dtype != src.dtype or tiles[indices].dtype.name != INDEX_TYPE:
            raise tile_legality(f"TSORT: the value destination must be {src.dtype.name} and the index "
                                f"destination {INDEX_TYPE}")
        if not (logical_shape_match(tiles[values], src, limit) and logical_shape_match(tiles[indices], src, limit)):
            raise tile_legality("TSORT: both destinations must have the source's rows, columns and valid region")
        if not source_encodings_valid(src, limit):
            raise tile_legality("TSORT: the source holds an invalid encoding")

    def run(self, tiles, values: int, indices: int, source: int, width: int, descending: bool, profile: str,
            limit: int) -> Publication:
        self.operands_check(tiles, values, indices, source, limit)
        src = tiles[source]
        words, order = sort_groups(src.valid_words(), src.dtype, width, descending, profile)
        value_tile = result_tile(tiles[values], words, "Null", location="Any")
        index_tile = result_tile(tiles[indices], order, "Null", location="Any")
        return Publication({values: value_tile, indices: index_tile}, FLAG_NV if signaling_nan_seen(src) else 0)


class TileMerge(SortingOperation):
    """TMRGSORT: two sorted single-row streams merged, stably and left first, into one new
    destination of 1 x (left + right) valid columns."""

    HANDLER, LEGALITY = "TMRGSORT", "TileOperandsLegal_TMRGSORT"
    ARGUMENTS = ("destination0", "source0", "source1", "flag0")
    SOURCES = 2
    DIRECT_ARGUMENTS = {"dst": REQUIRED, "src": REQUIRED, "src1": REQUIRED, "descending": False}

    def dims_legal(self, block) -> bool:
        return all(d is None for d in block.dims)

    def schema_summary(self) -> str:
        return ("FP32|FP16 BSTART type, no B.DIM, two legal defined single-row RowMajor numeric sources of that "
                "type, at most 32768 columns together, each sorted in the B.IOR direction")

    def schema_legal(self, state: MachineState, block) -> bool:
        if not super().schema_legal(state, block):
            return False
        left, right = (state.tiles[i] for i in block.sources())
        if not (self.stream_source_legal(state, block, block.sources()[1])
                and left.valid_rows == 1 and right.valid_rows == 1
                and left.valid_cols + right.valid_cols <= MAX_MERGED_COLUMNS):  # SPEC-CHOICE 41
            return False
        descending = self.descending(state, block)
        return all(ordered(t.valid_words()[0], t.dtype, descending) for t in (left, right))

    def destination_shape(self, state: MachineState, block):
        left, right = (state.tiles[i] for i in block.sources())
        columns = left.valid_cols + right.valid_cols
        return 1, columns, 1 << (columns - 1).bit_length()

    def resolve_destination(self, state: MachineState, block):
        """The merged destination of the left source's type."""
        left = state.tiles[block.sources()[0]]
        return blocks.resolve_destination(state, block, self.destination_shape(state, block), left.dtype)

    def execute_bundle(self, state: MachineState, block, index: int, destination, profile: str) -> Publication:
        tiles = list(state.tiles)
        tiles[index] = destination
        return self.run(tiles, index, block.sources(), self.descending(state, block), profile, state.tile_capacity)

    def direct(self, state: MachineState, call: dict, profile: str) -> Publication:
        return self.run(state.tiles, call["dst"], [call["src"], call["src1"]], call["descending"], profile,
                        state.tile_capacity)

    def operands_check(self, tiles, dst: int, sources, descending: bool, profile: str, limit: int) -> None:
        """TileOperandsLegal_TMRGSORT, after the sources' definedness."""
        self.sources_defined(tiles, sources, limit)
        if dst in sources:
            raise tile_legality("TMRGSORT: the destination must be neither source")
        self.check_types(tiles, [dst], sources, limit)
        left, right, result = tiles[sources[0]], tiles[sources[1]], tiles[dst]
        if right.dtype != left.dtype or result.dtype != left.dtype:
            raise tile_legality("TMRGSORT: both sources and the destination must share one type")
        if (left.valid_rows, right.valid_rows, result.valid_rows) != (1, 1, 1) or \
                result.valid_cols != left.valid_cols + right.valid_cols:
            raise tile_legality("TMRGSORT: single-row sources and a destination of their columns together")
        if not all(source_encodings_valid(t, limit) for t in (left, right)):
            raise tile_legality("TMRGSORT: a source holds an invalid encoding")
        if not all(ordered(t.valid_words()[0], t.dtype, descending) for t in (left, right)):
            raise tile_legality(f"TMRGSORT: a source is not sorted {'descending' if descending else 'ascending'}")

    def run(self, tiles, dst: int, sources, descending: bool, profile: str, limit: int) -> Publication:
        self.operands_check(tiles, dst, sources, descending, profile, limit)
        left, right = tiles[sources[0]], tiles[sources[1]]
        words = merge(left.valid_words()[0], right.valid_words()[0], left.dtype, descending, profile)
        result = result_tile(tiles[dst], words[None, :], "Null", location="Any")
        return Publication({dst: result}, FLAG_NV if signaling_nan_seen(left, right) else 0)
