"""The independent matrix reference (vectors/reference/matrix.py) against the spec's own
values: the CUBE spec tests' assertions (pto-v0 raw Words), the hardware profile's matrix
section (input classes and accumulators) and the hardware numeric vectors of group "matrix"
(spec/evidence/pto-isa-0583-hardware-numeric-vectors.json, copied below with their ids)."""
from __future__ import annotations

import json
from fractions import Fraction

import pytest

from pto_avs.contract.loader import VECTORS_DIR
from pto_avs.vectors.reference import matrix as mx
from pto_avs.vectors.reference import numeric as ref

PROFILE = json.loads((VECTORS_DIR.parent / "contract" / "spec_data" / "hardware-conformance-profile.json")
                     .read_text())["matrix"]


def fp32(x) -> int:
    x = Fraction(x)
    bits, flags = ref.encode_value("FP32", x < 0, abs(x), "RNE", False)
    assert not flags
    return bits


@pytest.mark.parametrize("op, c, bias, expected", [
    ("TMATMUL", None, None, 6), ("TGEMV_MX", None, None, 6), ("TMATMUL_ACC", [[5]], None, 11),
    ("TGEMV_BIAS", None, [5], 11), ("TMATMUL_MX_BIAS", None, [5], 11)])
def test_pto_v0_gives_the_spec_tests_raw_words(op, c, bias, expected):
    """tests/asl/tile/matrix-and-matrix-vector/*/*/tile-exec-*-direct-001.asl: A = 2, B = 3 (raw
    FP16 Words), C or bias = 5: the reference profile commits 6 or 11."""
    words, flags = mx.product("pto-v0", op, "FP16", "FP16", [[2]], [[3]], c=c, bias=bias)
    assert (words, flags) == ([[expected]], 0)


def test_pto_v0_wraps_modulo_2_64():
    words = mx.raw_product([[1 << 63]], [[2]], c=[[5]])
    assert words == [[5]]


def test_the_input_classes_and_accumulators_are_the_hardware_profiles():
    ordinary = PROFILE["ordinary"]
    assert mx.FLOATING == tuple(ordinary["floating_input_types"])
    assert mx.SIGNED == tuple(ordinary["signed_input_types"])
    assert mx.UNSIGNED == tuple(ordinary["unsigned_input_types"])
    by_class = ordinary["accumulator_by_class"]
    for name, types in (("floating", mx.FLOATING), ("signed", mx.SIGNED), ("unsigned", mx.UNSIGNED)):
        assert {mx.accumulator("TMATMUL", t, t) for t in types} == {by_class[name]}
    assert set(mx.MX) == set(PROFILE["mx"]["allowed_operand_types"])
    assert mx.SCALE_BLOCK == PROFILE["mx"]["scale_block_logical_k_elements"]
    assert mx.accumulator("TMATMUL", "S8", "U8") is None and mx.accumulator("TMATMUL_MX", "FP32", "FP16") is None


def test_hardware_vector_fp32_matmul_2x2():
    """id fp32-matmul-2x2: [[1,2],[3,4]] x [[5,6],[7,8]] = [[19,22],[43,50]], K order 0, 1."""
    a = [[fp32(1), fp32(2)], [fp32(3), fp32(4)]]
    b = [[fp32(5), fp32(6)], [fp32(7), fp32(8)]]
    words, flags = mx.product("hw-ieee", "TMATMUL", "FP32", "FP32", a, b)
    assert words == [[fp32(19), fp32(22)], [fp32(43), fp32(50)]] and flags == 0


def test_hardware_vectors_bias_and_acc():
    """ids fp32-matmul-bias (dot products 19, 22 + bias 1, -2 = 20, 20) and fp32-matmul-acc
    (prior 10, 20 + dot products 19, 22 = 29, 42): row 0 of the 2x2 product."""
    a = [[fp32(1), fp32(2)]]
    b = [[fp32(5), fp32(6)], [fp32(7), fp32(8)]]
    words, _ = mx.product("hw-ieee", "TGEMV_BIAS", "FP32", "FP32", a, b, bias=[fp32(1), fp32(-2)])
    assert words == [[fp32(20), fp32(20)]]
    words, _ = mx.product("hw-ieee", "TGEMV_ACC", "FP32", "FP32", a, b, c=[[fp32(10), fp32(20)]])
    assert words == [[fp32(29), fp32(42)]]


@pytest.mark.parametrize("prior, bias, expected", [(None, None, 40), ([[fp32(3)]], None, 43),
                                                   (None, [fp32(2)], 42)])
def test_hardware_vector_mx_k_block_33(prior, bias, expected):
    """id mx-k-block-33: E4M3 x E5M2, K = 33, inputs all one, scales A [0x7F, 0x80] and B
    [0x7F, 0x81]: 32 * 1 + 1 * (2 * 4) = 40; with prior 3: 43; with bias 2: 42."""
    op = "TMATMUL_MX_ACC" if prior else "TMATMUL_MX_BIAS" if bias else "TMATMUL_MX"
    words, flags = mx.product("hw-ieee", op, "E4M3", "E5M2", [[0x38] * 33], [[0x3C]] * 33, c=prior,
                              sa=[[0x7F, 0x80]], sb=[[0x7F], [0x81]], bias=bias)
    assert words == [[fp32(expected)]] and flags == 0


def test_hw_ieee_rounds_each_k_step_not_the_exact_sum():
    """2^24 + 0.75 + 0.75: each fused step rounds back to 2^24 (NX); one rounding of the exact
    sum 2^24 + 1.5 would give 2^24 + 2."""
    three_quarters, one = 0x3A00, 0x3C00
    words, flags = mx.product("hw-ieee", "TMATMUL_ACC", "FP16", "FP16", [[one, one]],
                              [[three_quarters], [three_quarters]], c=[[fp32(2 ** 24)]])
    assert words == [[fp32(2 ** 24)]] and flags == ref.NX


def test_hw_ieee_integer_sum_wraps_at_32_bits_into_a_normalized_word():
    words, flags = mx.product("hw-ieee", "TMATMUL_ACC", "S16", "S16", [[0x7FFF, 0x7FFF]], [[0x7FFF], [0x7FFF]],
                              c=[[0x7FFFFFFF]])
    total = (0x7FFFFFFF + 2 * 32767 * 32767) % (1 << 32)
    assert words == [[(total - (1 << 32)) % (1 << 64)]] and flags == 0
    words, _ = mx.product("hw-ieee", "TMATMUL", "U8", "U4X2", [[0xFF]], [[0xF]])
    assert words == [[255 * 15]]


def test_cube_geometry_matches_the_shipped_tgemv_vectors():
    """The CUBE_M16 FP32 1x1 destination of PTO-AVS-TILE-TGEMV-MX-ACC-EXEC-001 is 16 x 2 in 128 B."""
    assert mx.cube_shape("CUBE_M16", "FP32", 1, 1) == (16, 2, 128)
    assert mx.cube_shape("CUBE_N8", "FP16", 33, 1) == (40, 8, 1024)
    assert mx.cube_shape("CUBE_M32", "FP32", 32, 3) == (32, 3, 512)


def test_a_transposed_shared_primary_reads_the_stored_element_n_k():
    stored = [[1, 2, 3, 4], [5, 6, 7, 8]]  # N x K = 2 x 4
    assert mx.shared_primary(stored, 4, 2, True) == [[1, 5], [2, 6], [3, 7], [4, 8]]
    assert mx.shared_primary(stored, 2, 3, False) == [[1, 2, 3], [5, 6, 7]]  # the top-left at its own stride


@pytest.mark.parametrize("op, a_type, b_type, both, groups", [
    ("TMATMUL", "FP16", "FP16", False, ["B"]), ("TMATMUL_ACC", "S8", "S8", True, ["A", "B"]),
    ("TMATMUL_MX", "E4M3", "E5M2", True, ["A", "A-scale", "B", "B-scale"]),
    ("TMATMUL_MX_BIAS", "FP16", "E5M2", True, ["A", "B", "B-scale"]),
    ("TMATMUL_MX", "E4M3", "BF16", False, ["B"])])
def test_shared_groups_follow_the_left_then_right_group_order(op, a_type, b_type, both, groups):
    assert mx.shared_groups(op, a_type, b_type, both) == groups


def test_a_shared_a_takes_c_s_layout_or_the_least_cube_m_layout():
    assert [mx.shared_layout(m) for m in (1, 16, 17, 32, 64)] == ["CUBE_M16"] * 2 + ["CUBE_M32"] * 2 + [None]
    assert mx.shared_layout(4, "CUBE_M32") == "CUBE_M32"
    assert [mx.power_of_two(x) for x in (0, 1, 3, 64)] == [False, True, False, True]
