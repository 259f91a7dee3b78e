"""The numeric Python API rejects input it cannot mean (issue 12).

``convert`` takes carrier words as Python ints in 0..2**64-1 or unsigned numpy
arrays at least as wide as the source encoding; ``saturate``/``canonicalize``
are bools. ``quantize`` rejects a zero multiplier like NaN and infinities
(TileProfileQuantize asserts the scale class is not NaN, infinity or zero).
"""
from __future__ import annotations

import numpy as np
import pytest

from pto_avs.device_model.numeric import convert, quantize

ONE_FP16 = 0x3C00
ONE_FP32 = 0x3F800000


@pytest.mark.parametrize("bits, error, words", [
    (-1, ValueError, "outside 0..2\\*\\*64-1"),
    ([1 << 64], ValueError, "outside 0..2\\*\\*64-1"),
    ([ONE_FP16, -5], ValueError, "-5 is outside"),
    (True, TypeError, "not bool"),
    ([ONE_FP16, True], TypeError, "bool"),
    (1.0, TypeError, "float"),
    ([1.5], TypeError, "float"),
    ("0x3c00", TypeError, "str"),
    (["0x3c00"], TypeError, "str"),
    (None, TypeError, "NoneType"),
    (np.array([ONE_FP16], dtype=np.int32), TypeError, "signed int32"),
    (np.int64(ONE_FP16), TypeError, "signed int64"),
    (np.array([1.0]), TypeError, "float64"),
    (np.array([True]), TypeError, "bool"),
    (np.array([ONE_FP16 & 0xFF], dtype=np.uint8), ValueError, "uint8 array cannot hold FP16"),
    ([[1, 2], [3]], TypeError, "not list"),
])
def test_convert_rejects_what_it_cannot_mean(bits, error, words):
    with pytest.raises(error, match=words):
        convert(bits, "FP16", "FP32", profile="hw-ieee")


@pytest.mark.parametrize("name, value", [("saturate", 1), ("saturate", "yes"), ("saturate", None),
                                         ("canonicalize", 0), ("canonicalize", 1.0)])
def test_convert_flags_are_bools(name, value):
    with pytest.raises(TypeError, match=f"{name} must be True or False"):
        convert([ONE_FP16], "FP16", "FP32", profile="hw-ieee", **{name: value})


def test_one_word_means_one_thing_in_every_container():
    """The S8 word 0xFF (-1) converts to S16 -1 (0xFFFF...FF sign-extended) whether given as a
    Python int, a uint8, uint16 or uint64 array; the carrier bits above the lane are ignored."""
    expected = [0xFFFFFFFFFFFFFFFF]
    assert convert([0xFF], "S8", "S16")[0].tolist() == expected
    for container in (np.uint8, np.uint16, np.uint64):
        assert convert(np.array([0xFF], dtype=container), "S8", "S16")[0].tolist() == expected
    assert convert([0xFFFFFFFFFFFFFFFF], "S8", "S16")[0].tolist() == expected
    assert convert(np.uint8(0xFF), "S8", "S16")[0].tolist() == 0xFFFFFFFFFFFFFFFF
    assert convert([ONE_FP16], "FP16", "FP32", saturate=np.bool_(True), profile="hw-ieee")[0].tolist() \
        == [ONE_FP32]


@pytest.mark.parametrize("multiplier", [0x00000000, 0x80000000, 0xFFFFFFFF_00000000])
def test_quantize_rejects_a_zero_multiplier(multiplier):
    # bits 63:32 of the word are ignored: 0xFFFFFFFF_00000000 is FP32 +0
    with pytest.raises(ValueError, match="is zero"):
        quantize([ONE_FP32], multiplier, 0, "S8")


def test_quantize_keeps_rejecting_nan_and_infinities_and_takes_the_smallest_subnormal():
    for multiplier in (0x7FC00000, 0x7F800000, 0xFF800000):
        with pytest.raises(ValueError, match="not a finite FP32 value"):
            quantize([ONE_FP32], multiplier, 0, "S8")
    # 1.0 * 2**-149 + 3 = 3.000...: rounds to 3 under RNE, inexact
    words, flags = quantize([ONE_FP32], 0x00000001, 3, "S8")
    assert words.tolist() == [3] and flags.tolist() == [0x10]
