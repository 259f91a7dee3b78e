"""TCMP, TCMPS, TSEL, TSELS in the golden model: their tables against the spec's
operation catalog, their type sets against the ASL (and the spec's TYPES points),
the values the spec's own test points assert (tests/asl/tile/elementwise-tile-tile/
logical/{TCMP,TSEL}/*, tests/asl/tile/tile-scalar-and-immediate/logical/{TCMPS,TSELS}/*),
the hardware profile's comparison table, and fault classes worked by hand from the
closed schemas and ResolveBundlePredicateDestination."""
from __future__ import annotations

import numpy as np
import pytest

from pto_avs.contract.spec_data import load
from pto_avs.device_model import dtypes
from pto_avs.device_model.machine import Machine
from pto_avs.device_model.ops import registry
from pto_avs.device_model.ops.elementwise import TYPE_SETS
from pto_avs.device_model.ops.predicate import PredicateOperation

CATALOG = {op["name"]: op for op in load("tile-operations")["operations"]}
HARDWARE = load("hardware-conformance-profile")
OPERATIONS = ("TCMP", "TCMPS", "TSEL", "TSELS")
NV = 0x01


@pytest.mark.parametrize("name", OPERATIONS)
def test_kinds_equal_the_catalog(name):
    entry, spec = registry.find(name), CATALOG[name]
    assert isinstance(entry, PredicateOperation)
    assert (entry.HANDLER, entry.LEGALITY) == (spec["semantic_handler"], spec["legality_handler"])
    assert entry.ARGUMENTS == tuple(a["operand"] for a in spec["arguments"] if "operand" in a)


# tile-bound-tcmp-types-001 and tile-bound-tsel-types-001 (InstructionContractDataTypeLegal_*).
SPEC_TYPE_POINTS = {
    "TCMP": ("FP32 FP64 TF32 HF32 FP16 BF16 E4M3 E5M2 S64 S32 S16 S8 U64 U32 U16 U8", "HiF8 U4X2"),
    "TSEL": ("FP32 TF32 HF32 FP16 BF16 E4M3 E5M2 S32 S16 S8", ""),
}


def test_type_sets_are_the_executable_sets_and_hold_the_spec_points():
    for name in OPERATIONS:
        assert registry.find(name).types == TYPE_SETS["TileVecArithmeticDataTypeSupported"]
    for name, (legal, illegal) in SPEC_TYPE_POINTS.items():
        types = registry.find(name).types
        assert set(legal.split()) <= types and not set(illegal.split()) & types


# --- helpers -----------------------------------------------------------------

def numeric(m, index, type_name, data, capacity=128, cols=8, valid=None):
    valid = valid or (len(data), len(data[0]))
    m.configure_tile(index, type_name, capacity, cols=cols, valid=valid)
    m.write_tile(index, data)


def predicate(m, index, bits, rows, cols, capacity=128):
    m.configure_predicate_tile(index, capacity, rows, cols, valid=(len(bits), len(bits[0])))
    m.write_tile(index, bits)


def element_bytes(snapshot, index):
    return snapshot.tiles[index].bytes.tolist()


# --- the spec's own test points, as direct calls ------------------------------

def test_tcmp_packed_001():
    m = Machine()
    numeric(m, 0, "U8", [list(range(10))], cols=16)
    numeric(m, 1, "U8", [[c if c % 2 == 0 else 0 for c in range(10)]], cols=16)
    m.configure_predicate_tile(2, 128, 8, 16, valid=(1, 10))
    assert m.run([{"call": "TCMP", "dst": 2, "src": 0, "src1": 1, "cmode": "EQ"}]).fault is None
    snap = m.snapshot()
    assert element_bytes(snap, 2)[:2] == [0b01010101, 0b00000001]
    assert snap.tiles[2].defined[0, 9]


def test_tcmps_packed_001():
    m = Machine()
    numeric(m, 0, "U8", [list(range(10))], cols=16)
    m.configure_predicate_tile(1, 128, 8, 16, valid=(1, 10))
    assert m.run([{"call": "TCMPS", "dst": 1, "src": 0, "scalar": 5, "cmode": "GE"}]).fault is None
    snap = m.snapshot()
    assert element_bytes(snap, 1)[:2] == [0b11100000, 0b00000011]
    assert snap.tiles[1].defined[0, 9]


def test_tsel_exact_001_copies_the_carrier_and_keeps_the_status():
    m = Machine()
    predicate(m, 0, [[1]], 32, 1)
    numeric(m, 1, "FP32", [[0x7F800123]], cols=1)
    numeric(m, 2, "FP32", [[0x3F800000]], cols=1)
    m.configure_tile(3, "FP32", 128, cols=1, valid=(1, 1))
    m.set_status(0b00100)
    assert m.run([{"call": "TSEL", "dst": 3, "src": 0, "src1": 1, "src2": 2}]).fault is None
    snap = m.snapshot()
    assert int(snap.tiles[3].words[0, 0]) == 0x7F800123 and snap.flags == 0b00100


def test_tsels_packed_001_copies_the_whole_true_word_and_the_scalar():
    m = Machine()
    predicate(m, 0, [[0, 1]], 16, 2)
    numeric(m, 1, "FP32", [[0x7FF8000000000001, 11]], cols=2)
    m.configure_tile(2, "FP32", 128, cols=2, valid=(1, 2))
    assert m.run([{"call": "TSELS", "dst": 2, "src": 0, "src1": 1, "scalar": 99}]).fault is None
    assert m.snapshot().tiles[2].words[0, :2].tolist() == [99, 11]


def test_tsel_mask_001_a_numeric_mask_is_illegal_a_predicate_one_legal():
    m = Machine()
    for index, data in ((0, [[0, 1]]), (1, [[1, 2]]), (2, [[3, 4]])):
        numeric(m, index, "U8", data, cols=16)
    m.configure_tile(3, "U8", 128, cols=16, valid=(1, 2))
    call = {"call": "TSEL", "dst": 3, "src": 0, "src1": 1, "src2": 2}
    assert m.run([call]).fault == "Fault_TileLegality"
    predicate(m, 0, [[0, 1]], 8, 16)
    assert m.run([call]).fault is None
    assert m.snapshot().tiles[3].words[0, :2].tolist() == [3, 2]


@pytest.mark.parametrize("pad, value, defined", [("Zero", 0, True), ("Min", 0, True), ("Max", 1, True),
                                                 ("Null", 0, False)])
def test_predicate_padding(pad, value, defined):
    """PredicateTileWithPadding (tile-state-tcmp-padding-001 for Max and Null)."""
    m = Machine()
    numeric(m, 0, "U8", [[1, 2]], cols=16)
    m.configure_predicate_tile(1, 128, 8, 16, valid=(1, 2))
    assert m.run([{"call": "TCMPS", "dst": 1, "src": 0, "scalar": 2, "cmode": "EQ", "pad": pad}]).fault is None
    tile = m.snapshot().tiles[1]
    assert tile.words[0, :2].tolist() == [0, 1]
    outside = np.ones((8, 16), bool)
    outside[0, :2] = False
    assert (tile.defined[outside] == defined).all()
    if defined:
        assert (tile.words[outside] == value).all()


def test_tcmp_capacity_001_packed_bits_exceeding_tsize_fault_allocation():
    m = Machine()
    for index in (1, 2):
        m.configure_tile(index, "U8", 8192, cols=128, valid=(64, 128))
        m.write_tile(index, np.ones((64, 128), dtype=np.uint64))
    before = m.snapshot()
    result = m.run("BSTART.TEPL TCMP, U8; B.DIM LB0=128; B.DIM LB1=64; B.DIM LB2=128; "
                   "B.IOT T1, T2, mask=0001, <last>, ->T<1>; BSTOP")
    assert result.fault == "Fault_TileAllocation"
    assert m.snapshot().same_as(before)


# --- the hardware profile's comparison table, both profiles --------------------

FP32 = {"qnan": 0x7FC00000, "snan": 0x7F800001, "one": 0x3F800000, "pz": 0, "nz": 0x80000000}


@pytest.mark.parametrize("profile", ["pto-v0", "hw-ieee"])
@pytest.mark.parametrize("cmode", ["EQ", "NE", "LT", "GT", "LE", "GE"])
@pytest.mark.parametrize("nan", ["qnan", "snan"])
def test_nan_is_unordered_and_a_signaling_nan_reports_invalid(profile, cmode, nan):
    table = HARDWARE["comparisons"]["nan"]
    m = Machine(profile)
    numeric(m, 0, "FP32", [[FP32[nan], FP32["one"]]])
    numeric(m, 1, "FP32", [[FP32["one"], FP32[nan]]])
    m.configure_predicate_tile(2, 128, 4, 8, valid=(1, 2))
    assert m.run([{"call": "TCMP", "dst": 2, "src": 0, "src1": 1, "cmode": cmode}]).fault is None
    snap = m.snapshot()
    assert snap.tiles[2].words[0, :2].tolist() == [int(table[cmode])] * 2
    assert snap.flags == (NV if nan == "snan" and table["signaling_nan_reports_invalid"] else 0)


@pytest.mark.parametrize("profile", ["pto-v0", "hw-ieee"])
def test_signed_zeros_compare_equal(profile):
    m = Machine(profile)
    numeric(m, 0, "FP32", [[FP32["nz"], FP32["pz"]]])
    numeric(m, 1, "FP32", [[FP32["pz"], FP32["nz"]]])
    m.configure_predicate_tile(2, 128, 4, 8, valid=(1, 2))
    got = {}
    for cmode in ("EQ", "NE", "LT", "GT", "LE", "GE"):
        m.run([{"call": "TCMP", "dst": 2, "src": 0, "src1": 1, "cmode": cmode}])
        got[cmode] = m.snapshot().tiles[2].words[0, :2].tolist()
    assert got == {"EQ": [1, 1], "NE": [0, 0], "LT": [0, 0], "GT": [0, 0], "LE": [1, 1], "GE": [1, 1]}


def test_integer_order_is_signed_or_unsigned_by_type():
    for type_name, expected in (("S8", 1), ("U8", 0)):  # 0xFF is -1 as S8, 255 as U8; LT 1
        m = Machine()
        numeric(m, 0, type_name, [[0xFF]])
        m.configure_predicate_tile(1, 128, 16, 8, valid=(1, 1))
        m.run([{"call": "TCMPS", "dst": 1, "src": 0, "scalar": 1, "cmode": "LT"}])
        assert int(m.snapshot().tiles[1].words[0, 0]) == expected, type_name


# --- bundles: every type, fault classes, PE mask 0000 ---------------------------

def _setup(name: str, type_name: str) -> Machine:
    m = Machine()
    value = 1 if dtypes.dtype(type_name).is_integer else 0
    for index in (0, 1):
        m.configure_tile(index, type_name, 128, cols=2, valid=(1, 2))
        m.write_tile(index, [[value, value]])
    rows = 128 * 8 // (2 * dtypes.dtype(type_name).bits)
    if rows <= 16384 // 2:
        m.configure_predicate_tile(5, 128, rows, 2, valid=(1, 2))
        m.write_tile(5, [[1, 0]])
    return m


BLOCKS = {
    "TCMP": "B.DIM LB0=2; B.IOT T0, T1, mask=1111, <last>, ->T<1>",
    "TCMPS": "B.DIM LB0=2; B.IOT T0, mask=1111, <last>, ->T<1>",
    "TSEL": "B.DIM LB0=2; B.IOT T5, T0, mask=1111; B.IOT T1, mask=1111, <last>, ->T<1>",
    "TSELS": "B.DIM LB0=2; B.IOT T5, T0, mask=1111, <last>, ->T<1>",
}


@pytest.mark.parametrize("name", OPERATIONS)
@pytest.mark.parametrize("type_name", dtypes.NAMES)
def test_every_accepted_type_runs_and_every_other_faults(name, type_name):
    m = _setup(name, type_name)
    before = m.snapshot()
    result = m.run(f"BSTART.TEPL {name}, {type_name}; {BLOCKS[name]}; BSTOP")
    if type_name in registry.find(name).types:
        assert result.outcome == "completed", result.detail
        new = set(m.snapshot().tiles) - set(before.tiles)
        assert len(new) == 1
        assert m.snapshot().tiles[new.pop()].storage_kind == ("predicate" if name.startswith("TCMP") else "numeric")
    else:
        assert result.fault == "Fault_TileLegality", result.detail
        assert m.snapshot().same_as(before)


@pytest.mark.parametrize("name", OPERATIONS)
def test_a_zero_pe_mask_is_a_strict_no_op(name):
    m = Machine()  # nothing configured: any check would fault
    before = m.snapshot()
    block = BLOCKS[name].replace("mask=1111", "mask=0000")
    assert m.run(f"BSTART.TEPL {name}, FP32; {block}; BSTOP").outcome == "completed"
    assert m.snapshot().same_as(before)


@pytest.mark.parametrize("program, fault", [
    # B.IOR on TCMP: the closed TCMP schema forbids it (after the binding-count check).
    ("BSTART.TEPL TCMP, FP32; B.DIM LB0=2; B.IOT T0, T1, mask=1111, <last>, ->T<1>; B.IOR zero; BSTOP",
     "Fault_TileLegality"),
    # RMode is not an applicable B.DATR field (SelectedBundleTileDataAttributesLegal).
    ("BSTART.TEPL TCMP, FP32; B.DATR RTZ; B.DIM LB0=2; B.IOT T0, T1, mask=1111, <last>, ->T<1>; BSTOP",
     "Fault_TileLegality"),
    # LB0 disagrees with the sources' valid columns.
    ("BSTART.TEPL TCMP, FP32; B.DIM LB0=1; B.IOT T0, T1, mask=1111, <last>, ->T<1>; BSTOP", "Fault_TileLegality"),
    # Masks differ between the two TSEL bindings.
    ("BSTART.TEPL TSEL, FP32; B.DIM LB0=2; B.IOT T5, T0, mask=1111; B.IOT T1, mask=0001, <last>, ->T<1>; BSTOP",
     "Fault_TileLegality"),
    # TSEL with its bindings in one B.IOT: three sources is not the closed schema's shape.
    ("BSTART.TEPL TSELS, FP32; B.DIM LB0=2; B.IOT T0, T5, mask=1111, <last>, ->T<1>; BSTOP", "Fault_TileLegality"),
    # A second destination binding: bindings incomplete.
    ("BSTART.TEPL TCMPS, FP32; B.DIM LB0=2; B.IOT T0, mask=1111, ->T<1>; B.IOT T0, mask=1111, <last>, ->T<1>; BSTOP",
     "Fault_BundleControl"),
    # A full hand: no free TileIndex in N for the predicate destination.
    ("BSTART.TEPL TCMP, FP32; B.DIM LB0=2; B.IOT T0, T1, mask=1111, <last>, ->N<1>; BSTOP", "Fault_TileAllocation"),
])
def test_fault_classes(program, fault):
    m = _setup("TCMP", "FP32")
    if "->N<" in program:
        for index in range(48, 64):
            m.configure_tile(index, "U8", 128, cols=8, valid=(1, 1))
    before = m.snapshot()
    result = m.run(program)
    assert result.fault == fault, result.detail
    assert m.snapshot().same_as(before)


def test_elements_beyond_the_descriptor_capacity_fault_legality_after_allocation():
    """ResolveBundlePredicateDestination accepts a TSize that holds the packed bits, but
    TileDescriptorConfigured also wants rows*cols <= capacity (U8 elements), so operand
    legality rejects the new destination: Fault_TileLegality, rolled back."""
    m = Machine()
    for index in (0, 1):
        m.configure_tile(index, "U8", 2048, cols=64, valid=(1, 4))
        m.write_tile(index, [[1, 2, 3, 4]])
    before = m.snapshot()
    result = m.run("BSTART.TEPL TCMP, U8; B.DIM LB0=4; B.DIM LB2=64; B.IOT T0, T1, mask=1111, <last>, ->T<2>; BSTOP")
    assert result.fault == "Fault_TileLegality", result.detail
    assert m.snapshot().same_as(before)
    ok = m.run("BSTART.TEPL TCMP, U8; B.DIM LB0=4; B.DIM LB2=64; B.IOT T0, T1, mask=1111, <last>, ->T<5>; BSTOP")
    assert ok.fault is None and m.snapshot().tiles[2].bytes.tolist()[:1] == [0b1111]


@pytest.mark.parametrize("name, call", [
    ("TCVT", {"call": "TCVT", "dst": 3, "src": 5}),
    ("TMULS", {"call": "TMULS", "dst": 3, "src": 5, "scalar": 1}),
    ("TAND", {"call": "TAND", "dst": 3, "src": 5, "src1": 4}),
    ("TEXPANDS", {"call": "TEXPANDS", "dst": 5, "scalar": 1}),
    ("TSEL", {"call": "TSEL", "dst": 5, "src": 5, "src1": 4, "src2": 4}),
    ("TCMPS", {"call": "TCMPS", "dst": 5, "src": 5, "scalar": 1}),
])
def test_predicate_tiles_are_refused_where_numeric_ones_are_needed(name, call):
    """TileShapeAndTypeMatch compares storage kinds, and TCVT, tile-scalar, fill, compare and
    select operand rules want numeric tiles (operand-schema.asl)."""
    m = Machine()
    predicate(m, 5, [[1, 0]], 8, 16)
    numeric(m, 4, "U8", [[1, 2]], cols=16)
    m.configure_tile(3, "U8", 128, cols=16, valid=(1, 2))
    before = m.snapshot()
    assert m.run([call]).fault == "Fault_TileLegality"
    assert m.snapshot().same_as(before)


def test_aliasing_reads_the_old_sources():
    """TSEL into its own true source equals TSEL into a separate tile."""
    aliased, separate = Machine(), Machine()
    for m in (aliased, separate):
        predicate(m, 0, [[1, 0, 1]], 8, 16)
        numeric(m, 1, "U8", [[1, 2, 3]], cols=16)
        numeric(m, 2, "U8", [[7, 8, 9]], cols=16)
    separate.configure_tile(3, "U8", 128, cols=16, valid=(1, 3))
    assert aliased.run([{"call": "TSEL", "dst": 1, "src": 0, "src1": 1, "src2": 2}]).fault is None
    assert separate.run([{"call": "TSEL", "dst": 3, "src": 0, "src1": 1, "src2": 2}]).fault is None
    assert aliased.snapshot().tiles[1].words[0, :3].tolist() == separate.snapshot().tiles[3].words[0, :3].tolist() \
        == [1, 8, 3]


@pytest.mark.parametrize("profile, expected", [("pto-v0", {"EQ": 0, "GT": 1, "GE": 1}),
                                               ("hw-ieee", {"EQ": 1, "GT": 0, "GE": 1})])
def test_floating_words_with_bits_above_the_element(profile, expected):
    """SPEC-CHOICES row 27: TileProfileFloatingCompare's equality takes whole Words (pto-v0), so
    1.0 with a bit above the element is unequal to 1.0 and, not less, greater; hw-ieee compares values."""
    m = Machine(profile)
    numeric(m, 0, "FP32", [[0x1_3F800000]])
    numeric(m, 1, "FP32", [[0x3F800000]])
    m.configure_predicate_tile(2, 128, 4, 8, valid=(1, 1))
    got = {}
    for cmode in expected:
        assert m.run([{"call": "TCMP", "dst": 2, "src": 0, "src1": 1, "cmode": cmode}]).fault is None
        got[cmode] = int(m.snapshot().tiles[2].words[0, 0])
    assert got == expected
