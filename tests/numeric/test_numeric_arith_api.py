"""The public ``arith`` entry point: calling rules shared with ``convert``, every operation
under both profiles, and the rounding mode reaching the hw-ieee kernels.

Expected words are IEEE facts written out by hand (binary32 encodings of small
exact values and their neighbours), not results of the model under test.
"""
import numpy as np
import pytest

from pto_avs.device_model.numeric import FLAG_DZ, FLAG_NV, FLAG_NX, FLAG_OF, FLAG_UF, arith
from pto_avs.device_model.numeric.arith import OPERATIONS

ONE, TWO, THREE, FOUR = 0x3F800000, 0x40000000, 0x40400000, 0x40800000
EPS_HALF = 0x33800000  # 2**-24: half an ulp of 1.0
MAX32, INF32, QNAN32 = 0x7F7FFFFF, 0x7F800000, 0x7FC00000


def ieee(op, *operands, dtype="FP32", rounding="RNE"):
    words, flags = arith(op, *operands, dtype=dtype, rounding=rounding, profile="hw-ieee")
    return [int(w) for w in np.ravel(words)], [int(f) for f in np.ravel(flags)]


def test_the_documented_example():
    assert ieee("add", [ONE], [EPS_HALF], rounding="RTZ") == ([ONE], [FLAG_NX])
    assert ieee("div", [ONE], [THREE], rounding="RTP") == ([0x3EAAAAAB], [FLAG_NX])


@pytest.mark.parametrize("rounding, expected", [("RNE", ONE), ("RTZ", ONE), ("RTM", ONE), ("RTP", ONE + 1),
                                                ("RNA", ONE + 1), ("RTO", ONE + 1), ("RHB", ONE + 1),
                                                ("RDN", ONE), ("rup", ONE + 1)])
def test_a_tie_rounds_per_mode(rounding, expected):
    # 1 + 2**-24 is the midpoint of 1.0 and its successor
    assert ieee("add", ONE, EPS_HALF, rounding=rounding) == ([expected], [FLAG_NX])


def test_negative_tie_under_rhb_takes_the_greater_value():
    assert ieee("sub", ONE | 1 << 31, EPS_HALF, rounding="RHB") == ([ONE | 1 << 31], [FLAG_NX])
    assert ieee("sub", ONE | 1 << 31, EPS_HALF, rounding="RNA") == ([(ONE + 1) | 1 << 31], [FLAG_NX])


def test_flags_of_special_results():
    assert ieee("div", [ONE, 0], [0, 0]) == ([INF32, QNAN32], [FLAG_DZ, FLAG_NV])
    assert ieee("mul", MAX32, TWO, rounding="RTZ") == ([MAX32], [FLAG_OF | FLAG_NX])
    assert ieee("mul", MAX32, TWO) == ([INF32], [FLAG_OF | FLAG_NX])
    assert ieee("mul", 0x00800000, 0x3F000001) == ([0x00400000], [FLAG_UF | FLAG_NX])  # 2**-126 * (0.5 + ulp)
    assert ieee("sqrt", [FOUR, ONE | 1 << 31]) == ([TWO, QNAN32], [0, FLAG_NV])
    assert ieee("sub", ONE, ONE, rounding="RTM") == ([1 << 31], [0])  # exact cancellation: -0 toward -inf
    assert ieee("sub", ONE, ONE) == ([0], [0])


def test_fma_rounds_once():
    # (1 + 2**-23) * (1 - 2**-24) - 1 = 2**-24 - 2**-47: one rounding keeps the 2**-47
    words, flags = ieee("fma", ONE + 1, 0x3F7FFFFF, ONE | 1 << 31)
    assert words == [0x337FFFFE] and flags == [0]
    assert ieee("fma", TWO, THREE, ONE) == ([0x40E00000], [0])  # 2*3 + 1 = 7


def test_sfu_operations_and_their_special_values():
    assert ieee("recip", [FOUR, 0]) == ([0x3E800000, INF32], [0, FLAG_DZ])
    assert ieee("rsqrt", [FOUR]) == ([0x3F000000], [0])
    assert ieee("exp", [0]) == ([ONE], [0])
    assert ieee("log", [ONE, 0]) == ([0, INF32 | 1 << 31], [0, FLAG_DZ])
    assert ieee("exp", [ONE], rounding="RTZ") == ([0x402DF854], [FLAG_NX])  # e = 2.71828182...
    assert ieee("exp", [ONE], rounding="RTP") == ([0x402DF855], [FLAG_NX])
    assert ieee("rem", [0x40A00000], [THREE]) == ([TWO], [0])  # 5 mod 3


def test_min_max_follow_the_nan_rules():
    assert ieee("max", [QNAN32, 5], [THREE, 0x7F800001]) == ([THREE, 5], [0, FLAG_NV])
    assert ieee("min", [0], [1 << 31]) == ([1 << 31], [0])


def test_pto_v0_is_the_raw_carrier_and_ignores_the_mode():
    for rounding in ("RNE", "RTZ"):
        words, flags = arith("add", [ONE], [ONE], dtype="FP32", rounding=rounding)
        assert [int(w) for w in words] == [2 * ONE] and int(flags[0]) == 0  # the 64-bit sum of the words
    words, flags = arith("div", [5], [0], dtype="FP16", profile="pto-v0")
    assert int(words[0]) == (1 << 64) - 1 and int(flags[0]) == FLAG_DZ


def test_integer_types():
    assert [int(w) for w in arith("add", [0x7F], [1], dtype="S8")[0]] == [(1 << 64) - 128]  # wraps, sign-extended
    assert [int(w) for w in arith("div", [7], [2], dtype="U8")[0]] == [3]
    assert int(arith("fma", 2, 3, 4, dtype="U16")[0]) == 10
    with pytest.raises(ValueError, match="integer"):
        arith("sqrt", 4, dtype="S32")


def test_operands_broadcast():
    words, flags = arith("add", [ONE], np.array([[ONE], [TWO]], dtype=np.uint32), dtype="FP32", profile="hw-ieee")
    assert words.shape == (2, 1) and [int(w) for w in words.ravel()] == [TWO, 0x40400000]
    assert flags.dtype == np.uint8 and words.dtype == np.uint64


@pytest.mark.parametrize("bad, error", [
    (-1, ValueError), (1 << 64, ValueError), (True, TypeError), (1.0, TypeError), ("1", TypeError),
    (np.array([1], dtype=np.int32), TypeError), (np.array([1], dtype=np.uint16), ValueError),
])
def test_operands_follow_the_convert_rules(bad, error):
    with pytest.raises(error):
        arith("add", bad, 1, dtype="FP32", profile="hw-ieee")


def test_bad_calls():
    with pytest.raises(ValueError, match="unknown arithmetic operation"):
        arith("pow", 1, 1, dtype="FP32")
    with pytest.raises(TypeError, match="operand"):
        arith("add", 1, dtype="FP32")
    with pytest.raises(ValueError, match="rounding"):
        arith("add", 1, 1, dtype="FP32", rounding="NEAREST")
    with pytest.raises(ValueError, match="profile"):
        arith("add", 1, 1, dtype="FP32", profile="ieee")
    assert set(OPERATIONS) == {"add", "sub", "mul", "div", "rem", "fma", "sqrt", "rsqrt", "recip", "exp", "log",
                               "min", "max"}
