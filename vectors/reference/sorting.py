"""Independent reference of TSORT and TMRGSORT, one comparison at a time.

Words are Python ints (0 .. 2**64-1) as the Tile payload holds them. Written from the
PTO ISA 0.58.3 specification, sharing no code with ``device_model/``:

- asl/tile/model/ordering/sorting.asl, TileSortLeftBefore: a NaN goes after every
  number in both directions and two NaNs keep their order; two zeros, or two equal
  Words, keep their order; otherwise the sign-magnitude order key decides (increasing,
  or decreasing when descending). SPEC-CHOICE 42: the ASL's equality is of whole Words
  (pto-v0); hw-ieee compares the element bits, so only pto-v0 lets two elements of the
  same element bits and different carrier bits both refuse to go first.
- asl/tile/model/execution/sorting.asl, TSORT: each valid row split from column 0 into
  groups of ``width``; per group 64 passes over the adjacent pairs at offsets 0..62 that
  lie inside the group, swapping a pair (and its indices) whenever the left one is not
  before the right one; each index starts as the column's offset in its group. A pass
  that swaps nothing leaves the group as every later pass finds it, so the reference
  stops there (the same result, sooner).
- TMRGSORT: the left stream's next element is taken while it is before the right one's
  (or the right stream is spent); TileSortSequenceOrdered (always whole Words) says
  whether a stream is sorted.
- A signaling NaN in a valid source region records NV (asl: RecordNumericStatusFlags 1).
"""
from __future__ import annotations

from . import elementwise as elements

NV = 0x01
SORT_TYPES = ("FP32", "FP16")  # TileSortDataTypeSupported (SPEC-CHOICE 40: no BF16)
DEFAULT_WIDTH = 32
PASSES, OFFSETS = 64, 63


def order_key(word: int, t: str) -> int:
    """TileFloatingOrderKey: a negative value's complement, a positive value with its sign set."""
    value, sign = elements.element(word, t), 1 << (elements.bits(t) - 1)
    return (~value & elements.mask(t)) if value & sign else value | sign


def is_nan(word: int, t: str) -> bool:
    return elements.float_class(word, t) in ("qnan", "snan")


def is_zero(word: int, t: str) -> bool:
    return elements.float_class(word, t).endswith("zero")


def left_before(left: int, right: int, t: str, descending: bool, profile: str) -> bool:
    """TileSortLeftBefore."""
    if is_nan(left, t):
        return is_nan(right, t)
    if is_nan(right, t):
        return True
    same = left == right if profile == "pto-v0" else elements.element(left, t) == elements.element(right, t)
    if (is_zero(left, t) and is_zero(right, t)) or same:
        return True
    if descending:
        return order_key(left, t) > order_key(right, t)
    return order_key(left, t) < order_key(right, t)


def status(t: str, *regions) -> int:
    """NV when any valid source element is a signaling NaN."""
    return NV if any(elements.float_class(w, t) == "snan" for rows in regions for row in rows for w in row) else 0


def tsort(rows, t: str, width: int, descending: bool, profile: str):
    """(value rows, index rows, flags) of TSORT over the source's valid region ``rows``."""
    values_out, indices_out = [], []
    for row in rows:
        values, indices = list(row), [column % width for column in range(len(row))]
        for begin in range(0, len(row), width):
            end = min(begin + width, len(row))
            for _ in range(PASSES):
                swapped = False
                for offset in range(OFFSETS):
                    left = begin + offset
                    if left + 1 < end and not left_before(values[left], values[left + 1], t, descending, profile):
                        values[left], values[left + 1] = values[left + 1], values[left]
                        indices[left], indices[left + 1] = indices[left + 1], indices[left]
                        swapped = True
                if not swapped:
                    break
        values_out.append(values)
        indices_out.append(indices)
    return values_out, indices_out, status(t, rows)


def sequence_ordered(row, t: str, descending: bool) -> bool:
    """TileSortSequenceOrdered (whole Words: the closed schema knows no profile)."""
    return all(left_before(a, b, t, descending, "pto-v0") for a, b in zip(row, row[1:]))


def tmrgsort(left, right, t: str, descending: bool, profile: str):
    """(merged row, flags) of TMRGSORT over two sorted single rows of Words."""
    out, i, j = [], 0, 0
    while i < len(left) or j < len(right):
        take_left = j >= len(right) or (i < len(left) and left_before(left[i], right[j], t, descending, profile))
        if take_left:
            out.append(left[i])
            i += 1
        else:
            out.append(right[j])
            j += 1
    return out, status(t, [left], [right])
