"""Checks of the independent layout/padding reference (vectors/reference/legality_layout.py).

Expected values come from the spec: the TCVT test points (tile-exec-tcvt-fractal-001.asl,
tile-exec-tcvt-bundle-001.asl), the pad table of TilePadValueForDataType (digest 3.5) and
the format encodings (digest section 1); the bijection checks need no oracle.
"""
from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from pto_avs.vectors.reference import legality_layout as ref

ROOT = Path(__file__).resolve().parents[2]


# PTO-AVS-TILE-TCVT-FRACTAL-001: U8 32x64 ZN and NZ, U4X2 16x64 ZN.
@pytest.mark.parametrize("layout, rc, index", [
    ("ZN", (0, 0), 0), ("ZN", (1, 0), 1), ("ZN", (0, 1), 16), ("ZN", (0, 32), 512), ("ZN", (16, 0), 1024),
    ("NZ", (0, 1), 1), ("NZ", (1, 0), 32), ("NZ", (0, 32), 1024), ("NZ", (16, 0), 512),
])
def test_fractal_indices_of_the_spec_test(layout, rc, index):
    assert ref.storage_index(layout, 32, 64, 8, *rc) == index


def test_packed_fractal_index_of_the_spec_test():
    assert ref.fractal_inner(4) == 64
    assert ref.storage_index("ZN", 16, 64, 4, 0, 63) == 1008


def test_column_major_index_of_the_bundle_test():
    # PTO-AVS-TILE-TCVT-BUNDLE-001: U16 DN destination of 16 rows, (0,1) lives at payload[16].
    assert ref.storage_index("ColumnMajor", 16, 8, 16, 0, 1) == 16


@pytest.mark.parametrize("bits", [4, 8, 16, 32, 64])
@pytest.mark.parametrize("layout", ["RowMajor", "ColumnMajor", "ZN", "NZ"])
def test_every_layout_is_a_bijection(layout, bits):
    rows, cols = 32, 2 * ref.fractal_inner(bits)
    seen = {ref.storage_index(layout, rows, cols, bits, r, c) for r in range(rows) for c in range(cols)}
    assert seen == set(range(rows * cols))


def test_fractal_shape_rule():
    assert ref.fractal_shape_legal("ZN", 32, 64, 8)
    assert not ref.fractal_shape_legal("ZN", 24, 64, 8)  # rows not a multiple of 16
    assert not ref.fractal_shape_legal("NZ", 32, 48, 8)  # columns not a multiple of 32
    assert ref.fractal_shape_legal("RowMajor", 3, 5, 8)


# Digest 3.5 (TilePadValueForDataType): the Words, including the "otherwise" rows.
@pytest.mark.parametrize("pad, dtype, word", [
    ("Max", "FP64", 0x7FEFFFFFFFFFFFFF), ("Max", "TF32", 0x7F7FE000), ("Max", "HF32", 0x7F7FF000),
    ("Max", "BF16", 0x7F7F), ("Max", "E4M3", 0x7E), ("Max", "E5M2", 0x7B), ("Max", "S64", 0x7FFFFFFFFFFFFFFF),
    ("Max", "U64", 0xFFFFFFFFFFFFFFFF), ("Max", "HiF8", 0xFFFFFFFFFFFFFFFF), ("Max", "E8M0", 0xFFFFFFFFFFFFFFFF),
    ("Max", "S4X2", 0xFFFFFFFFFFFFFFFF), ("Max", "U4X2", 0xFFFFFFFFFFFFFFFF), ("Max", "E3M2", 0xFFFFFFFFFFFFFFFF),
    ("Min", "FP32", 0xFF7FFFFF), ("Min", "FP16", 0xFBFF), ("Min", "E4M3", 0xFE), ("Min", "E5M2", 0xFB),
    ("Min", "S8", 0x80), ("Min", "S16", 0x8000), ("Min", "S32", 0x80000000), ("Min", "S64", 0x8000000000000000),
    ("Min", "U4X2", 0), ("Min", "U32", 0), ("Min", "S4X2", 0x8000000000000000),
    ("Min", "HiF8", 0x8000000000000000), ("Min", "E2M1X2", 0x8000000000000000),
    ("Zero", "FP32", 0), ("Null", "S8", 0),
])
def test_pad_words_of_the_spec_table(pad, dtype, word):
    assert ref.pad_word(pad, dtype) == word


def test_pad_expectations_reduce_to_element_bits():
    assert ref.pad_expectation("Max", "HiF8") == {"defined": True, "value": 0xFF}
    assert ref.pad_expectation("Min", "E8M0") == {"defined": True, "value": 0x00}
    assert ref.pad_expectation("Max", "S4X2") == {"defined": True, "value": 0xF}
    assert ref.pad_expectation("Min", "S32") == {"defined": True, "value": 0x80000000}
    assert ref.pad_expectation("Null", "FP32") == {"defined": False}


def _binary_value(word: int, exp_bits: int, frac_bits: int, bias: int, sign_bit: int, frac_lsb: int = 0,
                  ieee_specials: bool = True):
    """Exact value of a sign/exponent/fraction encoding (digest section 1).

    With ``ieee_specials`` an all-ones exponent is Inf/NaN (None); the small formats
    without Inf and NaN (E3M2, E2M3, the X2 lanes) use it for finite values.
    """
    frac = (word >> frac_lsb) & ((1 << frac_bits) - 1)
    exp = (word >> (frac_lsb + frac_bits)) & ((1 << exp_bits) - 1)
    sign = -1 if (word >> sign_bit) & 1 else 1
    if ieee_specials and exp == (1 << exp_bits) - 1:
        return None
    if exp == 0:
        return sign * Fraction(frac, 1 << frac_bits) * Fraction(2) ** (1 - bias)
    return sign * (1 + Fraction(frac, 1 << frac_bits)) * Fraction(2) ** (exp - bias)


IEEE_LIKE = {"FP64": (11, 52, 1023, 63), "FP32": (8, 23, 127, 31), "FP16": (5, 10, 15, 15),
             "BF16": (8, 7, 127, 15), "E5M2": (5, 2, 15, 7)}


@pytest.mark.parametrize("dtype", sorted(ref.SAMPLES))
def test_samples_are_finite_nonzero_valid_encodings(dtype):
    samples = ref.SAMPLES[dtype]
    assert len(samples) == 6 and len(set(samples)) == 6
    bits = ref.bits_of(dtype)
    for word in samples:
        low = word & ((1 << bits) - 1)
        assert low != 0
        if dtype in IEEE_LIKE:
            assert _binary_value(low, *IEEE_LIKE[dtype]) not in (None, 0)
        elif dtype == "TF32":
            assert low & 0x1FFF == 0 and _binary_value(low, 8, 23, 127, 31) is not None
        elif dtype == "HF32":
            assert low & 0xFFF == 0 and _binary_value(low, 8, 23, 127, 31) is not None
        elif dtype == "E4M3":
            assert low & 0x7F != 0x7F  # only E=15, M=7 is NaN
        elif dtype in ("E3M2", "E2M3"):
            assert low & 0xC0 == 0  # bits 7:6 must be zero
        elif dtype == "HiF8":
            assert low not in (0x80, 0x6F, 0xEF)  # NaN, +Inf, -Inf
        elif ref.DTYPES[dtype][2] == "signed" and bits < 64:
            # a sign-extended Word: the bits above the element repeat its sign bit
            upper = word >> bits
            assert upper in (0, (1 << (64 - bits)) - 1)
            assert (upper != 0) == bool(low >> (bits - 1)) or bits == 4


def test_e8m0_sources_are_exact_powers_of_two():
    for fp32, code in ref.E8M0_FROM_FP32:
        assert _binary_value(fp32, 8, 23, 127, 31) == Fraction(2) ** (code - 127)


def test_sample_values_named_in_comments():
    # HiF8 (digest 1): 0x08 = 1, 0x10 = 2, 0x18 = 0.5, 0x0C = 1.5, 0x20 = 4.
    assert ref.SAMPLES["HiF8"] == [0x08, 0x10, 0x88, 0x18, 0x0C, 0x20]
    # E3M2: bias 3, 2 fraction bits, sign bit 5; E2M3: bias 1, 3 fraction bits.
    small = {"ieee_specials": False}
    assert [_binary_value(w, 3, 2, 3, 5, **small) for w in ref.SAMPLES["E3M2"]] == \
        [1, 2, -1, Fraction(1, 2), Fraction(3, 2), 3]
    assert [_binary_value(w, 2, 3, 1, 5, **small) for w in ref.SAMPLES["E2M3"]] == [1, 2, -1, Fraction(3, 2), 3, 4]
    assert [_binary_value(w, 2, 1, 1, 3, **small) for w in ref.SAMPLES["E2M1X2"]] == [1, 2, -1, Fraction(3, 2), 3, 4]
    # E1M2X2 and HiF4X2 lanes: 1 exponent bit (bias 1), 2 fraction bits.
    e1m2 = [1, Fraction(5, 4), -1, Fraction(3, 2), Fraction(7, 4), Fraction(-5, 4)]
    assert [_binary_value(w, 1, 2, 1, 3, **small) for w in ref.SAMPLES["E1M2X2"]] == e1m2
    assert ref.SAMPLES["HiF4X2"] == ref.SAMPLES["E1M2X2"]


def test_carrier_words():
    assert ref.carrier_word("S8", 0xFFFFFFFFFFFFFFFE, packed=False) == 0xFFFFFFFFFFFFFFFE
    assert ref.carrier_word("S8", 0xFE, packed=False) == 0xFFFFFFFFFFFFFFFE
    assert ref.carrier_word("S8", 0xFFFFFFFFFFFFFFFE, packed=True) == 0xFE
    assert ref.carrier_word("S4X2", 0xE, packed=True) == 0xE
    assert ref.carrier_word("U16", 0xFFFE, packed=False) == 0xFFFE


@pytest.mark.slow  # every generated file through the JSON schema
def test_generated_files_validate_against_the_schema():
    jsonschema = pytest.importorskip("jsonschema")
    import json
    import yaml
    schema = json.loads((ROOT / "vectors/schema.json").read_text(encoding="utf-8"))
    validator = jsonschema.Draft202012Validator(schema)
    for name in ref.documents():
        document = yaml.safe_load((ROOT / "vectors" / f"{name}.yaml").read_text(encoding="utf-8"))
        errors = sorted(validator.iter_errors(document), key=lambda e: list(e.path))
        assert not errors, f"{name}: {errors[0].message} at {list(errors[0].path)}"
