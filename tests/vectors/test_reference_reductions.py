"""The independent reduction reference (vectors/reference/reductions.py) against the spec's
own assertions and hand-derived folds, and its generator's files."""
from __future__ import annotations

import pytest

from pto_avs.vectors.reference import generate_reductions as generator
from pto_avs.vectors.reference import reductions as ref

WORD = (1 << 64) - 1
FP32_ONE, FP32_HALF_ULP = 0x3F800000, 0x33800000  # 1.0 and 2**-24


@pytest.mark.parametrize("operation, dtype, rows, expected", [
    ("TROWSUM", "U8", [[250, 10]], [[4]]),  # tile-exec-trowsum-u8-wrap-001
    ("TROWPROD", "U8", [[20, 20]], [[144]]),  # tile-exec-trowprod-one-001
    ("TROWMAX", "U16", [[0xFFFF, 1]], [[0xFFFF]]),  # tile-exec-trowmax-u16-001
    ("TROWMIN", "S8", [[0xFF, 1]], [[WORD]]),  # tile-exec-trowmin-s8-001: the sign-extended Word
    ("TROWARGMAX", "U8", [[1, 9, 9]], [[1]]),  # tile-exec-trowargmax-tie-001
    ("TROWARGMIN", "U8", [[4, 2, 2], [7, 3, 6]], [[1], [1]]),  # index-dtype-decoded-001
    ("TCOLSUM", "U8", [[1, 2], [3, 4]], [[4, 6]]),
    ("TCOLPROD", "U8", [[2, 3], [4, 5]], [[8, 15]]),
    ("TCOLMIN", "S8", [[0xFF, 5], [1, 0xFE]], [[WORD, WORD - 1]]),
    ("TCOLARGMAX", "U8", [[2, 7], [9, 7], [9, 3]], [[1, 0]]),
    ("TCOLARGMIN", "U8", [[2, 7], [2, 3], [4, 3]], [[0, 1]]),
])
@pytest.mark.parametrize("profile", ["pto-v0", "hw-ieee"])
def test_the_spec_points(operation, dtype, rows, expected, profile):
    assert ref.reduce_rows(operation, dtype, profile, rows) == (expected, 0)


def test_the_product_starts_from_the_one_encoding():
    assert ref.initial("PROD", "FP16", 0x1234) == 0x3C00 and ref.initial("PROD", "U8", 0x12) == 1
    assert ref.fold("PROD", "FP16", "hw-ieee", [0x4000]) == (0x4000, 0)
    assert ref.fold("PROD", "FP16", "pto-v0", [0x4000]) == (0x3C00 * 0x4000, 0)  # raw carriers


def test_the_sum_is_a_left_fold_each_step_rounded():
    line = [FP32_ONE, FP32_HALF_ULP, FP32_HALF_ULP, FP32_HALF_ULP]
    # 1 + 2**-24 ties to 1 three times (NX each); a tree would add 2**-23 to 1 exactly
    assert ref.fold("SUM", "FP32", "hw-ieee", line) == (FP32_ONE, 0x10)
    assert ref.fold_reassociated("SUM", "FP32", "hw-ieee", line)[0] == FP32_ONE + 1
    reversed_sum, _ = ref.fold("SUM", "FP32", "hw-ieee", line[::-1])
    assert reversed_sum == FP32_ONE + 2  # 3 * 2**-24 + 1 ties to even, 1 + 2**-22: the order decides


def test_the_sum_starts_from_the_word_zero():
    assert ref.fold("SUM", "FP32", "hw-ieee", [0x80000000]) == (0, 0)  # +0 + -0 = +0 under RNE


def test_max_min_start_from_the_first_element_and_ignore_nans():
    nan, snan = 0x7FC00000, 0x7F800001
    assert ref.fold("MAX", "S8", "pto-v0", [0xFD, 0xFF]) == (WORD, 0)  # -3, -1: not 0
    assert ref.fold("MAX", "FP32", "pto-v0", [nan, FP32_ONE]) == (FP32_ONE, 0)
    assert ref.fold("MAX", "FP32", "pto-v0", [FP32_ONE, snan]) == (FP32_ONE, 0x01)  # NV recorded in pto-v0
    assert ref.fold("MAX", "FP32", "hw-ieee", [nan]) == (nan, 0)  # one element: no step


def test_index_ties_and_nans_are_bit_level():
    nan = 0x7FC00000
    assert ref.fold("ARGMAX", "U8", "pto-v0", [9, 9, 9]) == (0, 0)
    assert ref.fold("ARGMAX", "FP32", "pto-v0", [nan, FP32_ONE, nan]) == (1, 0)  # a number replaces the NaN
    assert ref.fold("ARGMAX", "FP32", "pto-v0", [0x80000000, 0]) == (1, 0)  # max(-0, +0) is the Word 0
    assert ref.fold("ARGMAX", "FP32", "pto-v0", [0, 0x80000000]) == (0, 0)


def test_negative_signed_elements_in_pto_v0_and_hw_ieee():
    """SPEC-CHOICE: pto-v0 compares whole Words (the sign-extended result never equals an
    element written as its element bits); hw-ieee compares element bits."""
    line = [1, 0xFF, 0xFE]  # S8 1, -1, -2
    assert ref.fold("ARGMIN", "S8", "pto-v0", line) == (0, 0)
    assert ref.fold("ARGMIN", "S8", "hw-ieee", line) == (2, 0)
    extended = [1, WORD, WORD - 1]  # the same values as a producer leaves them: sign-extended
    assert ref.fold("ARGMIN", "S8", "pto-v0", extended) == (2, 0)


def test_the_generated_cases_split_where_the_profiles_disagree():
    files = generator.files(("TROWARGMIN",))
    text = files["PTO-AVS-X-TROWARGMIN-REF-001.yaml"]
    assert "-pto-v0\n" in text and "-hw-ieee\n" in text
    assert set(generator.UNITS["TROWARGMIN"]["tests"]) <= {name[:-5] for name in files}


def test_a_lone_nan_by_profile():
    """SPEC-CHOICE 35: pto-v0 returns a one-element line's NaN as it is (no step); hw-ieee
    gives the canonical NaN, NV for a signaling one (the hardware profile's all-NaN rule)."""
    assert ref.fold("MAX", "FP32", "pto-v0", [0xFFC00001]) == (0xFFC00001, 0)
    assert ref.fold("MAX", "FP32", "hw-ieee", [0xFFC00001]) == (0x7FC00000, 0)
    assert ref.fold("MIN", "BF16", "pto-v0", [0x7F81]) == (0x7F81, 0)
    assert ref.fold("MIN", "BF16", "hw-ieee", [0x7F81]) == (0x7FC0, 0x01)
    assert ref.fold("MAX", "FP32", "hw-ieee", [0xFFC00001, 0xFFC00001]) == (0x7FC00000, 0)  # a step: both
