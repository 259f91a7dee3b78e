"""The TCMP, TCMPS, TSEL and TSELS vectors and their independent reference.

- the shipped files are what vectors/reference/generate_compare.py writes (one per spec
  test ID, 28, and PTO-AVS-X-<OP>-REF-001 per operation);
- the element reference (vectors/reference/compare_elements.py, exact values through
  numeric.py) gives every value the spec's test points assert, and agrees with the ASL's
  own order-key construction (TileFloatingOrderKey, rewritten here) over every pair of
  8-bit encodings and sampled 16/32-bit ones;
- the reference files cover every legal type x mode, hold signaling NaNs in tiles of
  their own, and every class of bug the vectors are meant to catch (packing order, NaN
  ordering, signed zeros, signed/unsigned order, sNaN invalid, select polarity, scalar
  normalisation, padding bits, whole-Word carrier equality) changes the expectation of
  some shipped case: a device with that bug fails it.
"""
from __future__ import annotations

import itertools
import random

import pytest
import yaml

from pto_avs.contract.loader import VECTORS_DIR
from pto_avs.vectors.reference import compare_elements as ref
from pto_avs.vectors.reference import generate_compare as gen

pytestmark = pytest.mark.slow  # the compare reference over every 8-bit pair and the shipped files under each bug class

Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
FILES = gen.files(gen.FAMILY.operations)  # shipped = generated: tests/vectors/test_vectors_generated.py


def test_one_file_per_spec_id_and_one_reference_file_per_operation():
    spec = {f"{t}.yaml" for op in ref.OPERATIONS for t in gen.UNITS[op]["tests"]}
    assert len(spec) == 28 and spec <= set(FILES)
    assert set(FILES) - spec == {f"PTO-AVS-X-{op}-REF-001.yaml" for op in ref.OPERATIONS}


# ---------------------------------------------------------------------------------------
# The spec's test points (tests/asl/tile/.../TCMP, TCMPS, TSEL, TSELS)

def test_reference_gives_what_the_spec_tests_assert():
    for profile in ("pto-v0", "hw-ieee"):
        # tile-exec-tcmp-order-001.asl
        assert ref.compare("LT", "S8", 0xFF, 1, profile) == (1, 0)
        assert ref.compare("LT", "U8", 0xFF, 1, profile) == (0, 0)
        assert ref.compare("EQ", "FP32", 0x80000000, 0, profile) == (1, 0)
        assert ref.compare("EQ", "FP32", 0x7F800001, 0x3F800000, profile) == (0, ref.NV)
        # tile-exec-tcmp-bundle-001.asl: U64 7, 9 EQ 7, 8 -> byte 00000001
        assert ref.pack([ref.compare("EQ", "U64", a, b, profile)[0] for a, b in ((7, 7), (9, 8))]) == [0b01]
        # tile-exec-tcmp-packed-001.asl: ten EQ comparisons -> 01010101, 00000001
        bits = [ref.compare("EQ", "U8", c, c if c % 2 == 0 else 0, profile)[0] for c in range(10)]
        assert ref.pack(bits) == [0b01010101, 0b00000001]
        # tile-exec-tcmps-packed-001.asl: 0..9 GE 5 -> 11100000, 00000011
        bits = [ref.compare("GE", "U8", c, ref.scalar_operand(5, "U8"), profile)[0] for c in range(10)]
        assert ref.pack(bits) == [0b11100000, 0b00000011]
    # tile-bound-tcmp-modes-001.asl: TileCompareBoolean(mode, left_less, equal)
    for mode, less, equal in (("EQ", 0, 1), ("NE", 0, 0), ("LT", 1, 0), ("GT", 0, 0), ("LE", 0, 1), ("GE", 0, 1)):
        a, b = (1, 2) if less else (2, 2) if equal else (3, 2)
        assert ref.compare(mode, "U8", a, b, "pto-v0") == (1, 0), mode
    # tile-exec-tsel-packed-001.asl, tile-exec-tsels-packed-001.asl, tile-exec-tsel-exact-001.asl
    assert [ref.select(m, 10 + c, 20 + c) for c, m in enumerate((1, 0, 1, 0))] == [10, 21, 12, 23]
    assert [ref.select(m, t, ref.scalar_operand(99, "FP32")) for m, t in ((0, 0x7FF8000000000001), (1, 11))] == \
        [99, 11]
    assert ref.select(1, 0x7F800123, 0x3F800000) == 0x7F800123
    # the type sets: TCMP-TYPES-001, TSEL-TYPES-001, TSELS-MASK-001
    assert len(ref.LEGAL_TYPES) == 16
    assert not {"HiF8", "U4X2", "E3M2", "E2M3", "E8M0", "S4X2"} & set(ref.LEGAL_TYPES)
    assert {"U64", "FP64", "S64"} <= set(ref.LEGAL_TYPES)
    # tile-state-tcmp-padding-001.asl: Max pads ones, Null undefined
    assert ref.PAD_BIT["Max"] == 1 and ref.PAD_BIT["Null"] is None


# ---------------------------------------------------------------------------------------
# The reference against the ASL's order-key construction (independent method)

def _order_key(t: str, word: int) -> int:
    """TileFloatingOrderKey (comparison.asl): negative carriers inverted, positive ones
    with the sign bit set."""
    bits = ref.width(t)
    value, sign = word & ((1 << bits) - 1), 1 << (bits - 1)
    return (~value) & ((1 << bits) - 1) if value & sign else value | sign


def _asl_relation(t, left, right):
    """(nan, signaling, left_less, equal) as TileCompareElement / TileProfileFloatingCompare
    compute them (pto-v0)."""
    if t in ref.FLOAT_TYPES:
        a, b = ref.numeric.decode(t, left & ref.mask(t)), ref.numeric.decode(t, right & ref.mask(t))
        if a.cls == "nan" or b.cls == "nan":
            return True, (a.cls == "nan" and a.signalling) or (b.cls == "nan" and b.signalling), False, False
        both_zero = a.is_zero and b.is_zero
        return False, False, False if both_zero else _order_key(t, left) < _order_key(t, right), \
            both_zero or left == right
    bits = ref.width(t)
    signed = t.startswith("S")

    def value(w):
        w &= (1 << bits) - 1
        return w - (1 << bits) if signed and w >> (bits - 1) else w

    return False, False, value(left) < value(right), value(left) == value(right)


def _asl_modes(t, left, right) -> dict:
    """TileCompareBoolean for every mode: mode -> (bit, flags)."""
    nan, signaling, less, equal = _asl_relation(t, left, right)
    flags = ref.NV if signaling else 0
    if nan:
        return {mode: (int(mode == "NE"), flags) for mode in ref.MODES}
    return {mode: (int(v), 0) for mode, v in (("EQ", equal), ("NE", not equal), ("LT", less), ("LE", less or equal),
                                              ("GT", not less and not equal), ("GE", not less or equal))}


def _asl_compare(mode, t, left, right):
    return _asl_modes(t, left, right)[mode]


def _valid(t, w):
    return ref.encoding_valid(w, t)


@pytest.mark.parametrize("t", ["E4M3", "E5M2", "S8", "U8"])
def test_reference_equals_the_order_key_method_on_every_8_bit_pair(t):
    for a, b in itertools.product(range(256), repeat=2):
        profile = ("pto-v0", "hw-ieee")[(a + b) & 1]  # the profiles differ only on carrier bits, absent here
        for mode, expected in _asl_modes(t, a, b).items():
            assert ref.compare(mode, t, a, b, profile) == expected, (t, mode, hex(a), hex(b), profile)


@pytest.mark.parametrize("t", ["FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "S64", "S32", "S16", "U64", "U32",
                               "U16"])
def test_reference_equals_the_order_key_method_on_sampled_pairs(t):
    rng = random.Random(t)
    bits = ref.width(t)
    specials = gen.quiet_values(t) + (gen.float_values(t).get("snan", []) if t in ref.FLOAT_TYPES else [])
    words = specials + [rng.getrandbits(bits) for _ in range(60)]
    words = [w for w in words if _valid(t, w)]
    for a, b in itertools.product(words, repeat=2):
        for mode, expected in _asl_modes(t, a, b).items():
            for profile in ("pto-v0", "hw-ieee"):
                assert ref.compare(mode, t, a, b, profile) == expected, (t, mode, hex(a), hex(b))


def test_whole_word_equality_differs_only_in_pto_v0():
    dirty = 0xA5A5A5A500000000 | 0x3F800000
    assert ref.compare("EQ", "FP32", dirty, 0x3F800000, "pto-v0") == (0, 0)
    assert ref.compare("GT", "FP32", dirty, 0x3F800000, "pto-v0") == (1, 0)
    assert ref.compare("EQ", "FP32", dirty, 0x3F800000, "hw-ieee") == (1, 0)
    assert _asl_compare("EQ", "FP32", dirty, 0x3F800000) == (0, 0)
    assert ref.compare("EQ", "S16", 0xA5A5A5A500008000, 0x8000, "pto-v0") == (1, 0)


# ---------------------------------------------------------------------------------------
# Coverage and flag isolation of the reference files

def _doc(op):
    return yaml.load((VECTORS_DIR / f"PTO-AVS-X-{op}-REF-001.yaml").read_text(), Loader=Loader)


@pytest.mark.parametrize("op", ["TCMP", "TCMPS"])
def test_every_legal_type_and_mode_runs(op):
    seen = set()
    for c in _doc(op)["cases"]:
        tiles = c["state"]["tiles"]
        if c["expect"].get("fault") is None and not isinstance(c["program"], list):
            mode = next((w.split("=")[1].split(",")[0] for w in c["program"].split() if w.startswith("CMode=")), "EQ")
            seen.add((tiles[0]["dtype"], mode))
    assert seen >= {(t, m) for t in ref.LEGAL_TYPES for m in ref.MODES}


@pytest.mark.parametrize("op", ["TSEL", "TSELS"])
def test_every_legal_type_selects(op):
    seen = {c["expect"]["tiles"][0]["dtype"] for c in _doc(op)["cases"] if c["expect"].get("fault") is None
            and c["expect"].get("tiles")}
    assert seen >= set(ref.LEGAL_TYPES)


def _is_snan(t, w):
    v = ref.numeric.decode(t, w & ref.mask(t))
    return v.cls == "nan" and v.signalling


@pytest.mark.parametrize("op", ["TCMP", "TCMPS"])
def test_invalid_comes_from_a_signaling_nan_only_tile_and_quiet_nans_raise_nothing(op):
    """A case expecting NV has a source tile (or scalar) of signaling NaNs only; no other
    tile holds a signaling NaN; and every floating type with signaling NaNs has, per mode,
    an NV case and a quiet-NaN case expecting no flag."""
    nv_cases, quiet_nan_cases = set(), set()
    for c in _doc(op)["cases"]:
        if c["expect"].get("fault") is not None:
            continue
        t = c["state"]["tiles"][0].get("dtype")
        if t not in ref.FLOAT_TYPES:
            continue
        sources = [[w for row in tile["data"] for w in row] for tile in c["state"]["tiles"] if "data" in tile]
        scalars = list(c["state"].get("gprs", {}).values())
        groups = sources + [[s] for s in scalars]
        snan_only = [g for g in groups if g and all(_is_snan(t, w) for w in g)]
        mixed = [g for g in groups if any(_is_snan(t, w) for w in g) and not all(_is_snan(t, w) for w in g)]
        assert not mixed, c["name"]
        mode = next((w.split("=")[1].rstrip(",") for w in str(c["program"]).split() if w.startswith("CMode=")), "EQ")
        if c["expect"]["flags"]:
            assert c["expect"]["flags"] == ref.NV and snan_only, c["name"]
            nv_cases.add((t, mode))
        else:
            assert not snan_only, c["name"]
            if "qnan" in c["name"]:
                quiet_nan_cases.add((t, mode))
    with_snan = [t for t in ref.FLOAT_TYPES if "snan" in gen.float_values(t)]
    assert nv_cases >= {(t, m) for t in with_snan for m in ref.MODES}
    assert quiet_nan_cases >= {(t, m) for t in ref.FLOAT_TYPES for m in ref.MODES}


# ---------------------------------------------------------------------------------------
# Vectors that can fail: each bug class changes some shipped expectation

def _packed_high_first(bits):
    out = [0] * ((len(bits) + 7) // 8)
    for i, bit in enumerate(bits):
        out[i // 8] |= (bit & 1) << (7 - i % 8)
    return out


def _nan_ordered(mode, t, left, right, profile, real=ref.compare):
    a, b = ref.numeric.decode(t, left & ref.mask(t)), ref.numeric.decode(t, right & ref.mask(t))
    if a.cls == "nan" or b.cls == "nan":
        return _asl_compare(mode, "U64" if t == "FP64" else "U32", _order_key(t, left), _order_key(t, right))[0], 0
    return real(mode, t, left, right, profile)


def _zeros_unequal(mode, t, left, right, profile, real=ref.compare):
    if t in ref.FLOAT_TYPES and ref.numeric.decode(t, left & ref.mask(t)).is_zero \
            and ref.numeric.decode(t, right & ref.mask(t)).is_zero and left != right:
        return _asl_compare(mode, "U64", _order_key(t, left), _order_key(t, right))[0], 0
    return real(mode, t, left, right, profile)


def _unsigned_for_signed(mode, t, left, right, profile, real=ref.compare):
    return real(mode, "U" + t[1:] if t.startswith("S") else t, left, right, profile)


def _no_invalid(mode, t, left, right, profile, real=ref.compare):
    return real(mode, t, left, right, profile)[0], 0


def _element_equality(mode, t, left, right, profile, real=ref.compare):
    return real(mode, t, left & ref.mask(t), right & ref.mask(t), profile)


MUTANTS = {
    "packing-high-first": ("pack", _packed_high_first),
    "nan-ordered-as-bits": ("compare", _nan_ordered),
    "signed-zeros-unequal": ("compare", _zeros_unequal),
    "signed-compared-unsigned": ("compare", _unsigned_for_signed),
    "snan-no-invalid": ("compare", _no_invalid),
    "pto-v0-element-equality": ("compare", _element_equality),
    "select-polarity-inverted": ("select", lambda bit, true, false: false if bit else true),
    "select-scalar-sign-extended": ("scalar_operand", lambda scalar, t: (
        (scalar & ref.mask(t)) | (ref.numeric.FORMATS[t].kind == "signed" and scalar >> (ref.width(t) - 1) & 1
                                  and ((1 << 64) - 1) ^ ref.mask(t) or 0))),
    "max-padding-zero": ("PAD_BIT", {"Zero": 0, "Min": 0, "Max": 0, "Null": None}),
    "min-padding-one": ("PAD_BIT", {"Zero": 0, "Min": 1, "Max": 1, "Null": None}),
}


@pytest.mark.parametrize("mutant", sorted(MUTANTS))
def test_each_bug_class_changes_a_shipped_expectation(mutant, monkeypatch):
    name, replacement = MUTANTS[mutant]
    monkeypatch.setattr(ref, name, replacement)
    monkeypatch.setattr(gen, "check", lambda *a: None)  # the spec-value check would stop the mutant first
    mutated = gen.files(gen.FAMILY.operations)
    changed = [n for n in FILES if mutated[n] != FILES[n]]
    assert changed, f"no shipped case sees {mutant}"
