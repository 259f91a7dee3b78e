"""The elementwise TEPL operations: their tables against the spec's operation
catalog, their type sets against the ASL legality, and element values the spec's
own test points assert (tests/asl/tile/elementwise-tile-tile/**,
tests/asl/tile/tile-scalar-and-immediate/**)."""
from __future__ import annotations

import pytest

from pto_avs.contract.spec_data import load
from pto_avs.device_model import dtypes
from pto_avs.device_model.encoding.names import TEPL_OPS
from pto_avs.device_model.machine import Machine
from pto_avs.device_model.ops import registry
from pto_avs.device_model.ops.elementwise import TYPE_SETS, Elementwise
from pto_avs.device_model.ops.expansion import TileExpand
from pto_avs.device_model.ops.partial import TilePartial

CATALOG = {op["name"]: op for op in load("tile-operations")["operations"]}
ELEMENTWISE_KINDS = sorted(name for name in registry.names() if isinstance(registry.find(name), Elementwise))
# the kinds whose sources share the destination's shape (broadcasts and partial operations have their own tests)
ELEMENTWISE = [name for name in ELEMENTWISE_KINDS if not isinstance(registry.find(name), (TileExpand, TilePartial))]
TEPL = sorted(name for name in registry.names() if registry.find(name).BSTART == "BSTART.TEPL")
DATR_NAMES = {"PadValueOrByteId": "PadValue"}  # the catalog's name -> the B.DATR field name


def test_the_families_of_part_one_are_registered():
    assert {"TAND", "TOR", "TXOR", "TNOT", "TSHL", "TSHR", "TMAX", "TMIN", "TABS", "TNEG", "TRELU",
            "TANDS", "TORS", "TXORS", "TSHLS", "TSHRS", "TMAXS", "TMINS", "TEXPANDS"} <= set(ELEMENTWISE)


@pytest.mark.parametrize("name", TEPL)
def test_tepl_tables_equal_the_catalog(name):
    entry, spec = registry.find(name), CATALOG[name]
    assert spec["command_mnemonic"] == "BSTART.TEPL" and entry.BSTART == "BSTART.TEPL"
    assert TEPL_OPS[name][:2] == (spec["mode"], spec["function"])
    # each operand field once (a broadcast COPY names its one source twice: ExecuteTileExpand's
    # source and broadcast arguments)
    operands = list(dict.fromkeys(a["operand"] for a in spec["arguments"] if "operand" in a))
    assert entry.SOURCES == sum(o.startswith("source") for o in operands)
    # BundleOperationGPRInputCount: the address, scalar, diagonal and flag0 operands each read a B.IOR slot
    assert entry.GPR_INPUTS == sum(o.startswith("scalar") or o in ("address", "diagonal", "flag0") for o in operands)
    allowed = {DATR_NAMES.get(f, f) for f in spec["datr_contract"]["allowed_nonzero_fields"]}
    assert set(entry.DATR_ALLOWED) == allowed


@pytest.mark.parametrize("name", ELEMENTWISE_KINDS)
def test_elementwise_kinds_equal_the_catalog(name):
    entry, spec = registry.find(name), CATALOG[name]
    assert (entry.HANDLER, entry.LEGALITY) == (spec["semantic_handler"], spec["legality_handler"])
    assert entry.ARGUMENTS == tuple(dict.fromkeys(a["operand"] for a in spec["arguments"] if "operand" in a))


# The types each operation's spec TYPES test point asserts legal and illegal
# (tests/asl/tile/**/tile-bound-<op>-types-001.asl, InstructionContractDataTypeLegal_<op>).
# TMAX's and TNOT's points list every member of the two ASL type sets.
SPEC_TYPE_POINTS = {
    "TMAX": ("FP32 FP64 TF32 HF32 FP16 BF16 E4M3 E5M2 S64 S32 S16 S8 U64 U32 U16 U8", "HiF8 U4X2"),
    "TMIN": ("FP32 FP64 TF32 HF32 FP16 BF16 E4M3 E5M2 S64 S32 S16 S8 U64 U32 U16 U8", "HiF8 U4X2"),
    "TABS": ("FP32 FP16 BF16 FP64 S32 U8", "HiF8 U4X2"),
    "TAND": ("S64 U8", "FP32 U4X2"),
    "TNEG": ("FP32 FP16 BF16 S32 S16 S8 U32 FP64", "HiF8 S4X2"),
    "TNOT": ("S32 S16 S8 U32 U16 U8 S64 U64", "FP32 U4X2"),
    "TOR": ("S8 U64", "BF16 S4X2"),
    "TRELU": ("FP32 FP16 BF16 S32 S16 FP64", "E8M0 S4X2"),
    "TSHL": ("S16 U32", "FP16 U4X2"),
    "TSHR": ("S32 U32 S8 U8 U64", "BF16 S4X2"),
    "TXOR": ("S32 U16", "E4M3 HiF4X2"),
    "TMAXS": ("FP32 U8", "HiF8 U4X2"),
    "TMINS": ("FP32 U8", "HiF8 U4X2"),
    "TEXPANDS": ("FP32 U8", "HiF8 U4X2"),
    "TANDS": ("S8 U8", "FP32 U4X2"),
    "TORS": ("S8 U8", "FP32 U4X2"),
    "TSHLS": ("S8 U8", "FP32 U4X2"),
    "TSHRS": ("S8 U8 S32 U64", "FP32 U4X2"),
    "TXORS": ("S8 U8", "FP32 U4X2"),
}


def test_the_type_sets_are_the_spec_points_of_tmax_and_tnot():
    assert TYPE_SETS["TileVecArithmeticDataTypeSupported"] == set(SPEC_TYPE_POINTS["TMAX"][0].split())
    assert TYPE_SETS["TileVecScalarIntegerDataTypeSupported"] == set(SPEC_TYPE_POINTS["TNOT"][0].split())


@pytest.mark.parametrize("name", sorted(SPEC_TYPE_POINTS))
def test_type_sets_hold_the_spec_type_points(name):
    legal, illegal = SPEC_TYPE_POINTS[name]
    types = registry.find(name).types
    assert set(legal.split()) <= types and not set(illegal.split()) & types


def _block(name: str, type_name: str, scalar_gpr: bool = True) -> str:
    entry = registry.find(name)
    sources = ", ".join(f"T{i}" for i in range(entry.SOURCES))
    binding = f"B.IOT {sources}, mask=1111, <last>, ->T<1>" if sources else "B.IOT mask=1111, <last>, ->T<1>"
    if entry.SOURCES == 3:  # TFMA: the multiplicands, then the addend and the destination
        binding = "B.IOT T0, T1, mask=1111; B.IOT T2, mask=1111, <last>, ->T<1>"
    ior = "; B.IOR R5" if entry.GPR_INPUTS and scalar_gpr else ""
    return f"BSTART.TEPL {name}, {type_name}; B.DIM LB0=2; {binding}{ior}; BSTOP"


def _machine_with_sources(count: int, type_name: str) -> Machine:
    m = Machine()
    for index in range(count):
        m.configure_tile(index, type_name, 128, cols=2, valid=(1, 2))
        m.write_tile(index, [[1, 1]] if dtypes.dtype(type_name).is_integer else [[0, 0]])  # DIV/REM: nonzero
    return m


@pytest.mark.parametrize("name", ELEMENTWISE)
@pytest.mark.parametrize("type_name", dtypes.NAMES)
def test_every_accepted_type_runs_and_every_other_faults(name, type_name):
    """The BSTART type and sources of one type: accepted types complete, every other
    type is Fault_TileLegality with nothing published (whether the operation's
    closed schema or its operand legality after allocation rejects it)."""
    entry = registry.find(name)
    m = _machine_with_sources(entry.SOURCES, type_name)
    m.set_gpr(5, 1 if dtypes.dtype(type_name).is_integer else 0)  # TDIVS, TREMS: a nonzero integer
    before = m.snapshot()
    result = m.run(_block(name, type_name))
    if type_name in entry.types:
        assert result.outcome == "completed", result.detail
        assert entry.SOURCES in m.snapshot().tiles  # renamed to the first free T index
    else:
        assert result.fault == "Fault_TileLegality", result.detail
        assert m.snapshot().same_as(before)


# --- element values asserted by the spec's own test points -------------------

def _direct(name, type_name, *sources, scalar=None, valid=(1, 1)):
    m = Machine()
    indices = []
    for index, data in enumerate(sources):
        m.configure_tile(index, type_name, 128, cols=valid[1], valid=valid)
        m.write_tile(index, data)
        indices.append(index)
    dst = len(sources)
    m.configure_tile(dst, type_name, 128, cols=valid[1], valid=valid)
    call = {"call": name, "dst": dst}
    call.update({key: index for key, index in zip(("src", "src1"), indices)})
    if scalar is not None:
        call["scalar"] = scalar
    result = m.run([call])
    return result, m.snapshot().tiles[dst]


@pytest.mark.parametrize("name, type_name, sources, scalar, expected", [
    ("TAND", "U8", ([[240]], [[90]]), None, 80),  # tile-exec-tand-bits-001
    ("TMAX", "S8", ([[0xFF]], [[1]]), None, 1),  # tile-exec-tmax-integers-001
    ("TMAX", "U8", ([[0xFF]], [[1]]), None, 0xFF),
    ("TMAX", "FP32", ([[0xC0000000]], [[0xBF800000]]), None, 0xBF800000),  # tile-exec-tmax-float-001
])
def test_spec_test_point_values(name, type_name, sources, scalar, expected):
    result, tile = _direct(name, type_name, *sources, scalar=scalar)
    assert result.outcome == "completed", result.detail
    assert int(tile.words[0, 0]) == expected


@pytest.mark.parametrize("maximum, left, right, expected, flags", [
    (True, 0x7FC00001, 0x3F800000, 0x3F800000, 0),  # tile-exec-tmax-nan-001: one NaN
    (True, 0x7FC00001, 0x7FC00001, 0x7FC00000, 0),  # two NaNs: canonical
    (True, 0x7F800001, 0x3F800000, 0x3F800000, 1),  # signaling NaN: invalid
    (True, 0x80000000, 0x00000000, 0x00000000, 0),  # tile-exec-tmax-zero-001
    (True, 0x00000000, 0x80000000, 0x00000000, 0),
    (True, 0x80000000, 0x80000000, 0x80000000, 0),
    (False, 0x00000000, 0x80000000, 0x80000000, 0),
    (False, 0x80000000, 0x00000000, 0x80000000, 0),
])
def test_floating_minmax_special_values(maximum, left, right, expected, flags):
    """TileFloatingMinMaxValue through TMAXS/TMINS, which record the flags in both
    profiles (the tile-tile forms record them only under hw-ieee)."""
    name = "TMAXS" if maximum else "TMINS"
    for profile in ("pto-v0", "hw-ieee"):
        m = Machine(profile)
        m.configure_tile(0, "FP32", 128, cols=1, valid=(1, 1))
        m.write_tile(0, [[left]])
        m.configure_tile(1, "FP32", 128, cols=1, valid=(1, 1))
        result = m.run([{"call": name, "dst": 1, "src": 0, "scalar": right}])
        assert result.outcome == "completed"
        assert int(m.snapshot().tiles[1].words[0, 0]) == expected and m.snapshot().flags == flags


@pytest.mark.parametrize("profile, flags", [("pto-v0", 0), ("hw-ieee", 1)])
def test_tile_tile_max_status_follows_the_profile(profile, flags):
    m = Machine(profile)
    for index, value in ((0, 0x7F800001), (1, 0x3F800000)):
        m.configure_tile(index, "FP32", 128, cols=1, valid=(1, 1))
        m.write_tile(index, [[value]])
    m.configure_tile(2, "FP32", 128, cols=1, valid=(1, 1))
    assert m.run([{"call": "TMAX", "dst": 2, "src": 0, "src1": 1}]).outcome == "completed"
    assert int(m.snapshot().tiles[2].words[0, 0]) == 0x3F800000 and m.snapshot().flags == flags
