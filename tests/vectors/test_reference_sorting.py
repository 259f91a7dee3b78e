"""The independent sorting reference (vectors/reference/sorting.py) against the values the
spec's test points state, and against Python's stable sort wherever the order is consistent."""
from __future__ import annotations

import random

import pytest

from pto_avs.vectors.reference import sorting as ref

ONE, TWO, THREE, FOUR = 0x3F800000, 0x40000000, 0x40400000, 0x40800000


def test_the_spec_points_tsort():
    # tile-exec-tsort-bundle-001: LB0=3 over [3, 1, 2, 0]
    assert ref.tsort([[THREE, ONE, TWO, 0]], "FP32", 3, False, "pto-v0")[:2] == ([[ONE, TWO, THREE, 0]], [[1, 2, 0, 0]])
    # tile-exec-tsort-groups-001, row 1: [6, 4, 5, 7] in groups of 3
    values, indices, _ = ref.tsort([[0x40C00000, FOUR, 0x40A00000, 0x40E00000]], "FP32", 3, False, "pto-v0")
    assert values[0][:3] == [FOUR, 0x40A00000, 0x40C00000] and indices[0] == [1, 2, 0, 0]
    # tile-bound-tsort-snan-001
    assert ref.tsort([[0x7F800001, ONE]], "FP32", 2, False, "pto-v0") == ([[ONE, 0x7F800001]], [[1, 0]], ref.NV)


def test_the_spec_points_tmrgsort():
    assert ref.tmrgsort([ONE, THREE], [TWO, FOUR], "FP32", False, "pto-v0") == ([ONE, TWO, THREE, FOUR], 0)
    assert ref.tmrgsort([0, ONE], [0x80000000, TWO], "FP32", False, "pto-v0")[0] == [0, 0x80000000, ONE, TWO]
    assert ref.tmrgsort([0x7F800001], [ONE], "FP32", False, "pto-v0") == ([ONE, 0x7F800001], ref.NV)
    assert not ref.sequence_ordered([TWO, ONE], "FP32", False)  # tile-bound-tmrgsort-order-001
    for descending in (False, True):  # block-exec-b-ior-tmrgsort-end-to-end-001: equal keys, left first
        assert ref.left_before(ONE, ONE, "FP32", descending, "pto-v0")


def python_key(t, descending):
    """A sort key for Python's stable sort: numbers by value (zeros equal), NaNs last."""
    def key(word):
        if ref.is_nan(word, t):
            return (1, 0)
        if ref.is_zero(word, t):
            return (0, 0)
        k = ref.order_key(word, t) - ref.order_key(0, t)
        return (0, -k if descending else k)
    return key


@pytest.mark.parametrize("t", ["FP32", "FP16"])
def test_the_sort_is_pythons_stable_sort_without_carrier_clashes(t):
    rng = random.Random(t)
    specials = [0, 1, 0x7F800000 if t == "FP32" else 0x7C00, 0x7FC00000 if t == "FP32" else 0x7E00,
                0x7F800001 if t == "FP32" else 0x7C01, 0x80000000 if t == "FP32" else 0x8000]
    for _ in range(200):
        width, descending = rng.randint(1, 64), rng.random() < 0.5
        row = [rng.choice(specials + [rng.getrandbits(16 if t == "FP16" else 32)]) for _ in
               range(rng.randint(1, 90))]
        values, indices, _ = ref.tsort([row], t, width, descending, "hw-ieee")
        for begin in range(0, len(row), width):
            group = list(enumerate(row[begin:begin + width]))
            expected = sorted(group, key=lambda item: python_key(t, descending)(item[1]))
            assert values[0][begin:begin + width] == [w for _, w in expected]
            assert indices[0][begin:begin + width] == [i for i, _ in expected]


def test_the_merge_is_the_stable_sort_of_both_streams():
    rng = random.Random(2)
    key = python_key("FP16", False)
    for _ in range(200):
        left = sorted((rng.getrandbits(16) for _ in range(rng.randint(1, 30))), key=key)
        right = sorted((rng.getrandbits(16) for _ in range(rng.randint(1, 30))), key=key)
        assert ref.tmrgsort(left, right, "FP16", False, "hw-ieee")[0] == sorted(left + right, key=key)


def test_whole_word_equality_makes_the_passes_matter():
    """SPEC-CHOICE 42: 1.0 under three carriers; pto-v0's result is the 64 passes' own."""
    row = [0xA00000003F800000, ONE, 0xB00000003F800000]
    pto_v0 = ref.tsort([row], "FP32", 3, False, "pto-v0")[0][0]
    assert sorted(pto_v0) == sorted(row) and pto_v0 != row
    assert ref.tsort([row], "FP32", 3, False, "hw-ieee")[0][0] == row
