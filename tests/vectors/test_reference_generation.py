"""The element reference of the generation group (vectors/reference/generation.py): every value
the spec's own tests state, and numpy's float32 arithmetic as a third party for the RNE
dequantization (the exact product of a nine-bit integer and an FP32 multiplier fits a float64,
so numpy's float64 -> float32 cast rounds it once)."""
from __future__ import annotations

import numpy as np
import pytest

from pto_avs.vectors.reference import generation as ref

WORD = (1 << 64) - 1


def test_tci_values_the_spec_states():
    # tile-exec-tci-wrap-001: start all ones, U16, ascending and descending
    assert ref.tci("U16", WORD, 2, False) == [0xFFFF, 0]
    assert ref.tci("U16", WORD, 2, True) == [0xFFFF, 0xFFFE]
    # tile-exec-tci-bundle-001: the defaults
    assert ref.tci("U16", 0, 2, False) == [0, 1]
    assert ref.tci("S32", 0, 3, True) == [0, 0xFFFFFFFF, 0xFFFFFFFE]


def test_ttri_values_the_spec_states():
    # tile-exec-ttri-typed-001 and tile-exec-ttri-bundle-001: FP16 lower, diagonal 0
    assert ref.ttri("FP16", 2, 3, False, 0) == [[0x3C00, 0, 0], [0x3C00, 0x3C00, 0]]
    # tile-exec-ttri-edge-001: diagonal -65535
    assert ref.ttri("FP16", 2, 3, False, -65535) == [[0, 0, 0], [0, 0, 0]]
    assert ref.ttri("FP16", 2, 3, True, -65535) == [[0x3C00] * 3] * 2
    assert ref.ttri("U32", 1, 2, True, 1) == [[0, 1]]


def test_histogram_values_the_spec_states():
    # tile-exec-thistogram-prefix-001
    row = ref.histogram("U16", [[0x0100, 0x0200, 0x0201, 0xFF00]], [0], 1)[0]
    assert (row[0], row[1], row[2], row[254], row[255]) == (0, 1, 3, 3, 4)
    # tile-exec-thistogram-u16-filter-001
    rows = ref.histogram("U16", [[0xAA01, 0xBB02], [0xBB03, 0xAA04]], [0xAA, 0xBB], 0)
    assert (rows[0][0], rows[0][1], rows[0][255], rows[1][2], rows[1][3], rows[1][255]) == (0, 1, 1, 0, 1, 1)
    # tile-exec-thistogram-u32-prefix-001
    row = ref.histogram("U32", [[0xAABBCC01, 0xAABBCC02, 0xAABBDD01, 0x11223301]], [0xAA, 0xBB, 0xCC], 0)[0]
    assert (row[0], row[1], row[2], row[255]) == (0, 1, 2, 2)
    # tile-exec-thistogram-bundle-001
    row = ref.histogram("U16", [[0x0100, 0x0200]], [0], 1)[0]
    assert (row[1], row[2]) == (1, 2)


def test_dequantize_values_the_spec_states():
    # tile-exec-tdequant-affine-001 and -bundle-001: S8 [1, 2], multiplier 1.0, zero point 0
    assert ref.dequantize("S8", 1, 0x3F800000, 0, "RNE", "pto-v0") == (0x3F800000, 0)
    assert ref.dequantize("S8", 2, 0x3F800000, 0, "RNE", "pto-v0") == (0x40000000, 0)


def as_float32(word: int) -> np.float32:
    return np.frombuffer(np.uint32(word).tobytes(), dtype=np.float32)[0]


@pytest.mark.parametrize("source", ref.DEQUANT_SOURCES)
def test_rne_dequantize_agrees_with_numpy(source):
    zero_points = (0, 0x7F, WORD - 127) if source == "S8" else (0, 0x80, 0xFF)
    with np.errstate(over="ignore"):
        for multiplier in (0x3F800000, 0x3DCCCCCD, 0x3F7FFFFF, 0x7F7FFFFF, 0x00000001, 0x00800000, 0x4B7FFFFF):
            for zero_point in zero_points:
                for q in range(256):
                    k = ref.integer_value(source, q) - ref.integer_value(source, zero_point)
                    expected = np.float32(np.float64(k) * np.float64(as_float32(multiplier))).view(np.uint32)
                    for profile in ("pto-v0", "hw-ieee"):
                        assert ref.dequantize(source, q, multiplier, zero_point, "RNE", profile)[0] == int(expected)


def test_dequantize_profiles_differ_only_in_directed_overflow():
    """SPEC-CHOICE 46: pto-v0 overflows to infinity in every mode, hw-ieee to the largest
    finite value in the modes that round toward zero."""
    assert ref.dequantize("U8", 255, 0x7F7FFFFF, 0, "RTZ", "pto-v0") == (0x7F800000, 0x14)
    assert ref.dequantize("U8", 255, 0x7F7FFFFF, 0, "RTZ", "hw-ieee") == (0x7F7FFFFF, 0x14)
    assert ref.dequantize("S8", 0x80, 0x7F7FFFFF, 0, "RTP", "hw-ieee") == (0xFF7FFFFF, 0x14)
    assert ref.dequantize("S8", 0x80, 0x7F7FFFFF, 0, "RTP", "pto-v0") == (0xFF800000, 0x14)
    assert ref.dequantize("U8", 3, 0x3DCCCCCD, 0, "RTZ", "pto-v0") == ref.dequantize("U8", 3, 0x3DCCCCCD, 0, "RTZ",
                                                                                       "hw-ieee")


def test_gather_scatter_values_the_spec_states():
    # tile-exec-tgather-rows-001
    values = [[r * 10 + c for c in range(2)] for r in range(3)]
    assert ref.gather(values, [[2, 0], [1, 2]], "U32") == [[20, 1], [10, 21]]
    # tile-bound-tgather-negative-001: S32 0xffffffff is negative
    assert ref.index_row("S32", 0xFFFFFFFF) == (True, 0xFFFFFFFF)
    assert not ref.gather_legal("S32", [[0xFFFFFFFF]], 2)
    # tile-exec-tgather-stage2-decoded-001: U64 0x100000001 is out of range, not row 1
    assert not ref.gather_legal("U64", [[0x100000001], [0]], 2)
    # tile-exec-tscatter-rows-001
    out = ref.scatter([[10, 11], [20, 21]], [[2, 0], [3, 1]], "U16", 4, 2)
    assert (out[2][0], out[0][1], out[3][0], out[1][1], out[0][0], out[3][1]) == (10, 11, 20, 21, 0, 0)
    # tile-bound-tscatter-duplicate-001
    assert not ref.scatter_legal("U16", [[1], [1]], 3)
    assert ref.scatter_legal("U16", [[1, 1]], 3)  # the same row in two columns is two coordinates
    # an S16 index reads bits 15:0 only
    assert ref.index_row("S16", 0xFFFF0001) == (False, 1)


def test_value_types_are_the_twenty_non_four_bit_types():
    assert len(ref.VALUE_TYPES) == 20
    assert not {"E2M1X2", "E1M2X2", "HiF4X2", "S4X2", "U4X2"} & set(ref.VALUE_TYPES)
