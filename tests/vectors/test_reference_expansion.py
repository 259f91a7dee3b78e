"""The independent broadcast and partial-operation reference (vectors/reference/expansion.py):
the exact widening of EXPDIF's mixed pairs, the discriminator pairs, the broadcast axes and
the partial operations' tail copy, checked against values derived by hand from the ASL."""
from __future__ import annotations

from fractions import Fraction

import pytest

from pto_avs.vectors.reference import expansion as ref
from pto_avs.vectors.reference import numeric


def _value(t, bits):
    v = numeric.decode(t, bits)
    return v.cls, v.negative, v.magnitude if v.cls == "finite" else None


@pytest.mark.parametrize("profile", ["pto-v0", "hw-ieee"])
def test_fp16_normal_zero_and_infinite_values_widen_exactly_in_both_profiles(profile):
    for bits in range(0x10000):
        exponent = (bits >> 10) & 0x1F
        if exponent == 0 and bits & 0x3FF:
            continue  # subnormals: below
        wide = ref.widen_fp16(bits, profile)
        if exponent == 0x1F and bits & 0x3FF:
            assert wide == 0x7FC00000  # every FP16 NaN becomes the canonical FP32 NaN
        else:
            assert _value("FP32", wide) == _value("FP16", bits), hex(bits)


def test_fp16_subnormals_widen_value_preserving_under_hw_ieee():
    for fraction in range(1, 0x400):
        for sign in (0, 0x8000):
            assert _value("FP32", ref.widen_fp16(sign | fraction, "hw-ieee")) == _value("FP16", sign | fraction)


def test_fp16_subnormals_follow_the_asl_bits_under_pto_v0():
    # ExactWidenFP16ToFP32: normalized[8:0] lands at result[21:13] (SPEC-CHOICES row 32)
    assert ref.widen_fp16(0x0001, "pto-v0") == 0x33800000  # 2**-24: no fraction bits, exact
    assert ref.widen_fp16(0x0003, "pto-v0") == 0x34200000  # 1.25 * 2**-23 (the value is 1.5 * 2**-23)
    assert ref.widen_fp16(0x0003, "hw-ieee") == 0x34400000
    assert ref.widen_fp16(0x83FF, "pto-v0") == 0xB83FE000  # 9 fraction bits one place low
    assert ref.widen_fp16(0x83FF, "hw-ieee") == 0xB87FC000


def test_bf16_widens_by_shifting():
    assert ref.widen_bf16(0x3F80, "pto-v0") == 0x3F800000
    assert ref.widen_bf16(0xFF81, "hw-ieee") == 0xFF810000  # a signaling NaN keeps its payload


def test_the_discriminator_pairs_are_what_exact_fp32_sub_and_exp_give():
    # the profile's fixed pairs agree with hw-ieee's correctly rounded FP32 SUB then EXP
    assert ref.expdif("FP16", "FP32", "hw-ieee", 0x2000, 0x0001)[0] == 0x3F810100
    assert ref.expdif("BF16", "FP32", "hw-ieee", 0x3F80, 0x3B00)[0] == 0x402DA16E
    assert ref.expdif("FP16", "FP32", "pto-v0", 0x2000, 0x0001) == (0x3F810100, 0)
    # outside the pairs pto-v0 subtracts and exponentiates the raw FP32 carriers: +1
    assert ref.expdif("FP32", "FP32", "pto-v0", 0x40000000, 0x3F800000) == (0x00800001, 0)
    assert ref.expdif("FP32", "FP32", "hw-ieee", 0x40000000, 0x3F800000)[0] == 0x402DF854  # e


def test_row_and_column_broadcasts_read_their_own_element():
    source = [[1, 2, 3], [4, 5, 6]]
    rows, flags = ref.expand("TROWEXPANDADD", "pto-v0", "U16", "U16", (2, 3), source, [[10], [20]])
    assert rows == [[11, 12, 13], [24, 25, 26]] and flags == 0
    columns, _ = ref.expand("TCOLEXPANDSUB", "pto-v0", "U16", "U16", (2, 3), source, [[1, 2, 3]])
    assert columns == [[0, 0, 0], [3, 3, 3]]
    copy, _ = ref.expand("TCOLEXPAND", "hw-ieee", "S8", "S8", (2, 3), None, [[0xFF, 7, 0x80]])
    assert copy == [[0xFF, 7, 0x80]] * 2  # bit for bit, no sign extension


def test_expansion_records_the_flags_of_the_typed_operation():
    # unlike ExecuteTileBinary, ExecuteTileExpand keeps TileProfileBinaryWithFlags' flags
    _, flags = ref.expand("TROWEXPANDDIV", "pto-v0", "FP32", "FP32", (1, 1), [[0x3F800000]], [[0]])
    assert flags == numeric.DZ
    _, flags = ref.expand("TROWEXPANDMAX", "hw-ieee", "FP32", "FP32", (1, 1), [[0x3F800000]], [[0x7F800001]])
    assert flags == numeric.NV


def test_partial_operations_combine_the_overlap_and_copy_the_tail():
    rows, _ = ref.partial("TPARTADD", "pto-v0", "S16", (1, 3), [[1, 2, 7]], [[3, 4]])
    assert rows == [[4, 6, 7]]
    rows, _ = ref.partial("TPARTMUL", "pto-v0", "U8", (2, 2), [[16]], [[16, 9], [2, 3]])
    assert rows == [[0, 9], [2, 3]]  # 16 * 16 wraps to 0 at U8
    rows, _ = ref.partial("TPARTMIN", "hw-ieee", "S8", (1, 1), [[0xFF]], [[1]])
    assert rows == [[(1 << 64) - 1]]  # the chosen S8 -1 as its sign-extended Word


def test_legal_types():
    assert ref.legal_types("TPARTMUL") == ref.PARTIAL_TYPES and "S8" in ref.PARTIAL_TYPES
    assert ref.legal_types("TCOLEXPANDEXPDIF") == ("FP16", "BF16", "FP32")
    assert len(ref.legal_types("TROWEXPAND")) == 16
    assert Fraction(1) == numeric.decode("FP32", 0x3F800000).magnitude
