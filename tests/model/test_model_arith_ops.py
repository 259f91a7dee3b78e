"""The arithmetic and SFU elementwise operations (TADD ... TREMS): type sets and
element values the spec's own test points assert
(tests/asl/tile/elementwise-tile-tile/{arithmetic,transcendental}/**,
tests/asl/tile/tile-scalar-and-immediate/arithmetic/**), the integer-zero divisor
rule and the status each operation records in each profile."""
from __future__ import annotations

import pytest

from pto_avs.device_model.machine import Machine
from pto_avs.device_model.ops import registry

PART_TWO = ("TADD", "TSUB", "TMUL", "TDIV", "TFMA", "TREM", "TSQRT", "TRSQRT", "TRECIP", "TEXP", "TLOG",
            "TADDS", "TSUBS", "TDIVS", "TREMS")
SIXTEEN = "FP64 FP32 TF32 HF32 FP16 BF16 E4M3 E5M2 S64 S32 S16 S8 U64 U32 U16 U8"
FLOATS = "FP64 FP32 TF32 HF32 FP16 BF16 E4M3 E5M2"

# (legal, illegal) types of each operation's TYPES point (InstructionContractDataTypeLegal_<op>);
# TADD's and TFMA's points list all sixteen types, TSQRT's and TEXP's the floating ones.
SPEC_TYPE_POINTS = {
    "TADD": (SIXTEEN, "HiF8 U4X2"),  # tile-bound-tadd-data-types-001
    "TSUB": ("FP32 U8 FP64", "HiF8"),  # tile-bound-tsub-types-001
    "TMUL": ("FP16 S16 S8", "U4X2"),  # tile-bound-tmul-types-001
    "TFMA": (SIXTEEN, "HiF8 U4X2"),  # tile-bound-tfma-types-001
    "TREM": ("S64 FP32", "HiF8"),  # tile-bound-trem-zero-types-001
    "TDIV": ("U64 FP32", ""),  # tile-bound-tdiv-zero-types-001
    "TSQRT": ("FP32 FP16 BF16 FP64 E4M3 E5M2", "U64 E8M0 E3M2 U4X2"),  # tile-bound-tsqrt-types-001
    "TEXP": ("FP32 FP16 BF16 FP64 E4M3 E5M2", "U64 E8M0 E3M2 U4X2"),  # tile-bound-texp-types-001
    "TRECIP": ("FP32", "U64"),  # tile-bound-trecip-zero-001
    "TADDS": ("FP32 U8", "HiF8"),  # tile-bound-tadds-types-001
    "TSUBS": ("U8", "HiF8 U4X2"),  # tile-bound-tsubs-types-001
    "TDIVS": ("U32 FP32", ""),  # tile-bound-tdivs-zero-001
    "TREMS": ("U16 U8", "HiF8 U4X2"),  # tile-bound-trems-types-001
}


def test_part_two_is_registered():
    assert set(PART_TWO) <= set(registry.names())


@pytest.mark.parametrize("name", sorted(SPEC_TYPE_POINTS))
def test_type_sets_hold_the_spec_type_points(name):
    legal, illegal = SPEC_TYPE_POINTS[name]
    types = registry.find(name).types
    assert set(legal.split()) <= types and not set(illegal.split()) & types


def test_type_sets_are_the_asl_sets():
    """TileVecArithmeticDataTypeSupported (binary, scalar, TFMA) and
    TileFloatingElementwiseDataTypeSupported (the SFU unary operations)."""
    for name in PART_TWO:
        unary = registry.find(name).SOURCES == 1 and registry.find(name).GPR_INPUTS == 0
        assert registry.find(name).types == set((FLOATS if unary else SIXTEEN).split()), name


def _call(name, dtype, sources, scalar=None, profile="pto-v0", alias=False):
    """Direct call of ``name`` over one-row source tiles; returns (result, words, flags)."""
    m = Machine(profile)
    cols = len(sources[0])
    for index, row in enumerate(sources):
        m.configure_tile(index, dtype, 128, cols=cols, valid=(1, cols))
        m.write_tile(index, [row])
    dst = 0 if alias else len(sources)
    if not alias:
        m.configure_tile(dst, dtype, 128, cols=cols, valid=(1, cols))
    call = {"call": name, "dst": dst}
    call.update(dict(zip(("src", "src1", "src2"), range(len(sources)))))
    if scalar is not None:
        call["scalar"] = scalar
    result = m.run([call])
    snapshot = m.snapshot()
    words = [int(w) for w in snapshot.tiles[dst].words[0, :cols]] if result.outcome == "completed" else None
    return result, words, snapshot.flags


NEG = (1 << 64) - 1  # Word -1


@pytest.mark.parametrize("name, dtype, sources, scalar, expected, flags", [
    ("TADD", "U64", [[7, 9], [5, 2]], None, [12, 11], 0),  # tile-exec-tadd-elements-001
    ("TSUB", "U64", [[19], [7]], None, [12], 0),  # tile-exec-tsub-order-001
    ("TDIV", "S64", [[NEG - 6], [3]], None, [NEG - 1], 0),  # tile-exec-tdiv-signed-001
    ("TDIV", "U64", [[8, 9], [2, 3]], None, [4, 3], 0),  # tile-exec-tdiv-dim-defaults-001
    ("TREM", "S64", [[NEG - 6, 7], [3, NEG - 2]], None, [2, NEG - 1], 0),  # tile-exec-trem-divisor-sign-001
    ("TFMA", "U64", [[2], [3], [4]], None, [10], 0),  # tile-exec-tfma-alias-001
    ("TFMA", "S8", [[0xFF], [2], [3]], None, [1], 0),  # tile-exec-tfma-width-001
    ("TFMA", "U8", [[0x80], [2], [1]], None, [1], 0),
    ("TFMA", "FP32", [[0x7F800001], [0x3F800000], [0]], None, [0x7FC00000], 1),  # tile-state-tfma-invalid-001
    ("TFMA", "FP32", [[0], [0x7F800000], [0]], None, [0x7FC00000], 1),
    ("TFMA", "FP32", [[0x7F800000], [0x3F800000], [0xFF800000]], None, [0x7FC00000], 1),
    ("TEXP", "FP32", [[0x80000000]], None, [0x3F800000], 0),  # tile-exec-texp-zero-001
    ("TLOG", "E4M3", [[0]], None, [0x7F], 2),  # tile-exec-tlog-e4m3-zero-001
    ("TLOG", "FP32", [[0]], None, [0xFF800000], 2),  # tile-exec-tlog-zero-001
    ("TRECIP", "E4M3", [[0, 0x80]], None, [0x7F, 0x7F], 2),  # tile-exec-trecip-e4m3-zero-001
    ("TRECIP", "FP32", [[0x80000000]], None, [0xFF800000], 2),  # tile-exec-trecip-zero-001
    ("TRSQRT", "E4M3", [[0, 0x80]], None, [0x7F, 0x7F], 2),  # tile-exec-trsqrt-e4m3-zero-001
    ("TRSQRT", "FP32", [[0x7F800000]], None, [0], 0),  # tile-exec-trsqrt-infinity-001
    ("TSQRT", "FP32", [[0xBF800000]], None, [0x7FC00000], 1),  # tile-exec-tsqrt-negative-001
    ("TADDS", "U64", [[7, 9]], 5, [12, 14], 0),  # tile-exec-tadds-bundle-001
    ("TSUBS", "U8", [[3, 9]], 5, [254, 4], 0),  # tile-exec-tsubs-order-001
    ("TDIVS", "U8", [[9, 255]], 2, [4, 127], 0),  # tile-exec-tdivs-order-001
    ("TREMS", "S8", [[251, 5]], 3, [1, 2], 0),  # tile-exec-trems-signed-001
])
@pytest.mark.parametrize("profile", ["pto-v0", "hw-ieee"])
def test_spec_test_point_values(name, dtype, sources, scalar, expected, flags, profile):
    result, words, status = _call(name, dtype, sources, scalar, profile)
    assert result.outcome == "completed", result.detail
    assert words == expected and status == flags


@pytest.mark.parametrize("name, dtype, sources, expected", [
    ("TMUL", "U64", [[3, 5], [7, 11]], [21, 55]),  # tile-state-tmul-alias-001
    ("TEXP", "FP32", [[0x80000000]], [0x3F800000]),  # tile-order-texp-alias-001
    ("TSQRT", "FP32", [[0x80000000]], [0x80000000]),  # tile-order-tsqrt-alias-001
])
def test_destination_aliasing_a_source_reads_the_old_payload(name, dtype, sources, expected):
    result, words, _ = _call(name, dtype, sources, alias=True)
    assert result.outcome == "completed" and words == expected


@pytest.mark.parametrize("name, dtype, sources, scalar, legal", [
    ("TDIV", "U64", [[8], [0]], None, False),  # tile-bound-tdiv-zero-types-001
    ("TDIV", "FP32", [[8], [0]], None, True),
    ("TREM", "S64", [[7], [0]], None, False),  # tile-bound-trem-zero-types-001
    ("TREM", "FP32", [[7], [0]], None, True),
    ("TDIVS", "U32", [[1, 2]], 0, False),  # tile-bound-tdivs-zero-001
    ("TDIVS", "FP32", [[1, 2]], 0, True),
    ("TDIVS", "FP32", [[1, 2]], 0x80000000, True),
    ("TREMS", "S8", [[1, 2]], 0x100, False),  # the scalar's element bits (TileRawElementValue) are zero
    ("TDIV", "U16", [[1], [0x10000]], None, False),  # the divisor's element bits are zero (a SPEC-CHOICE)
])
def test_integer_zero_divisors_fault_floating_zeros_do_not(name, dtype, sources, scalar, legal):
    result, _, _ = _call(name, dtype, sources, scalar)
    assert (result.outcome == "completed") == legal
    assert legal or result.fault == "Fault_TileLegality"


@pytest.mark.parametrize("name, sources, scalar", [
    ("TADD", [[0x7F7FFFFF], [0x7F7FFFFF]], None),
    ("TMUL", [[0x7F7FFFFF], [0x40000000]], None),
    ("TADDS", [[0x7F7FFFFF]], 0x7F7FFFFF),
])
def test_status_per_profile(name, sources, scalar):
    """FLT_MAX + FLT_MAX (x 2): hw-ieee rounds to +inf with OF|NX; pto-v0 adds or
    multiplies raw carriers. The tile-tile forms record nothing under pto-v0
    (ExecuteTileBinary drops TileProfileBinaryWithFlags' status)."""
    _, words, status = _call(name, "FP32", sources, scalar, "hw-ieee")
    assert words == [0x7F800000] and status == 0x14
    _, words, status = _call(name, "FP32", sources, scalar, "pto-v0")
    assert status == 0 and words[0] != 0x7F800000
