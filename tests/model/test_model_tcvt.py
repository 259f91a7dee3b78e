"""TCVT through the Machine API (bundles and direct calls), both profiles.

Every expected value is cited: the spec tests under
tests/asl/tile/elementwise-tile-tile/format-conversion/TCVT/ (one test per spec
test ID below), the digest tables (§3.3 layouts, §3.5 padding, §4.1 TCVT), or a
hand derivation written next to the case.
"""
import numpy as np
import pytest

from pto_avs.device_model import dtypes
from pto_avs.device_model.encoding import assemble
from pto_avs.device_model.encoding.names import LAYOUT_TRANSFORMS, TEPL_OPS
from pto_avs.device_model.machine import Machine

def bundle(src_type, datr, lb0, lb2=None, lb1=None, source="T1", size=1, mask="1111", hand="T"):
    lines = [f"BSTART.VEC TCVT, {src_type}"]
    if datr is not None:
        lines.append(f"B.DATR {datr}")
    lines.append(f"B.DIM LB0={lb0}")
    if lb1 is not None:
        lines.append(f"B.DIM LB1={lb1}")
    if lb2 is not None:
        lines.append(f"B.DIM LB2={lb2}")
    lines += [f"B.IOT {source}, mask={mask}, <last>, ->{hand}<{size}>", "BSTOP"]
    return "; ".join(lines)


def capacity_32x8(name) -> int:
    """Bytes of a 32-row x 8-column tile of ``name``: 32 * bits (128 B for 4-bit types)."""
    return 32 * dtypes.dtype(name).bits


def size_code(capacity: int) -> int:
    """B.IOT SizeCode of a TSize: 128 B -> 1 ... 64 KiB -> 10."""
    return capacity.bit_length() - 7


def machine(profile="pto-v0"):
    return Machine(profile)


def source_tile(m, index, dtype, capacity, cols, valid, data, layout="RowMajor", location=None, mask="1111"):
    m.configure_tile(index, dtype=dtype, capacity=capacity, cols=cols, valid=valid, layout=layout,
                     location=location, mask=mask)
    m.write_tile(index, np.asarray(data, dtype=np.uint64))


def test_static_001_decode():
    # PTO-AVS-TILE-TCVT-STATIC-001: TEPL code 0b000000011011 (Mode 0, Function 27) is TCVT on VEC
    assert TEPL_OPS["TCVT"] == (0, 27, "VEC")
    word = assemble("BSTART.VEC TCVT, FP64")[0].word
    assert (word >> 25) & 3 == 0 and (word >> 20) & 31 == 0b11011


def test_canonical_001_private_source_needs_canonicalize_and_norm():
    # PTO-AVS-TILE-TCVT-CANONICAL-001: FP32 src cap 256 cols 8 valid 2x2 location Matrix,
    # FP16 dst cap 128 cols 8 valid 2x2; B.DATR DT 4 layout 0 pad 11 canon 1 -> legal;
    # canon 0 -> illegal; canon 1 + layout 1 -> illegal; source location Any + canon 1 -> illegal.
    def run(location, canonicalize, layout):
        m = machine()
        source_tile(m, 0, "FP32", 256, 8, (2, 2), [[0, 0], [0, 0]], location=location)
        m.configure_tile(1, dtype="FP16", capacity=128, cols=8, valid=(2, 2))
        return m.run([{"call": "TCVT", "dst": 1, "src": 0, "dtype": "FP16", "pad": "Null",
                       "canonicalize": canonicalize, "layout": layout}]).fault
    assert run("Matrix", 1, "NORM") is None
    assert run("Matrix", 0, "NORM") == "Fault_TileLegality"
    assert run("Matrix", 1, "ND2DN") == "Fault_TileLegality"
    assert run("Any", 1, "NORM") == "Fault_TileLegality"
    # the same rule in a bundle: the canonicalized private source publishes location Any
    m = machine()
    source_tile(m, 1, "FP32", 256, 8, (2, 2), [[0x3F800000, 1], [2, 3]], location="Matrix")
    assert m.run(bundle("FP32", "FP16, Null, Canon=1", 2, lb1=2, lb2=8, size=1)).fault is None
    assert m.snapshot().tiles[0].location == "Any"
    assert m.run(bundle("FP32", "FP16, Null", 2, lb1=2, lb2=8, size=1)).fault == "Fault_TileLegality"


def test_capacity_001_packed_u4x2_through_tcvt():
    # PTO-AVS-TILE-TCVT-CAPACITY-001: 8 KiB U4X2, 128 columns -> 128 rows, 16384 nibbles.
    m = machine()
    data = (np.arange(128 * 128, dtype=np.uint64) % 16).reshape(128, 128)
    source_tile(m, 1, "U4X2", 8192, 128, (128, 128), data)
    assert m.run(bundle("U4X2", None, 128, lb1=128, lb2=128, size=7)).fault is None
    dst = m.snapshot().tiles[0]
    assert (dst.rows, dst.cols) == (128, 128) and dst.defined.sum() == 16384 and dst.defined[127, 127]
    assert np.array_equal(dst.words, data)  # U4X2 -> U4X2 keeps every nibble


def test_datr_001_field_applicability():
    # PTO-AVS-TILE-TCVT-DATR-001: PadValue, Sat, Canonicalize, DataType, RMode and Layout may
    # be nonzero in a TCVT B.DATR; CMode may not. PadValue's union is the pad value.
    m = machine()
    source_tile(m, 1, "FP32", 256, 8, (1, 2), [[1, 2]])
    assert m.run(bundle("FP32", "FP32, RNE, ND2DN, Max, Sat=1", 2, lb2=8, size=2)).fault is None
    dst = m.snapshot().tiles[0]
    assert dst.layout == "ColumnMajor" and dst.words[1, 0] == 0x7F7FFFFF  # FP32 Max padding
    m = machine()
    source_tile(m, 1, "FP32", 256, 8, (1, 2), [[1, 2]], location="Matrix")
    assert m.run(bundle("FP32", "FP32, Canon=1", 2, lb2=8, size=2)).fault is None
    m = machine()
    source_tile(m, 1, "FP32", 256, 8, (1, 2), [[1, 2]])
    before = m.snapshot()
    assert m.run(bundle("FP32", "FP32, CMode=NE", 2, lb2=8, size=2)).fault == "Fault_TileLegality"
    assert m.snapshot().same_as(before)


def test_defaults_001_destination_type():
    # PTO-AVS-TILE-TCVT-DEFAULTS-001: (U8, B.DATR absent) -> U8; (U8, DTYPE_NONE) -> U8;
    # (U8, encoded 0) -> FP64.
    for datr, expected, size in ((None, "U8", 1), ("DTYPE_NONE", "U8", 1), ("FP64", "FP64", 4)):  # 16 rows x 8 FP64 = 1 KiB (code 4)
        m = machine()
        source_tile(m, 1, "U8", 128, 8, (1, 2), [[7, 9]])
        assert m.run(bundle("U8", datr, 2, lb2=8, size=size)).fault is None, datr
        assert m.snapshot().tiles[0].dtype == expected
    # an omitted B.DATR pads Null (undefined); a present one with PadValue 00 pads Zero
    m = machine()
    source_tile(m, 1, "U8", 128, 8, (1, 2), [[7, 9]])
    m.run(bundle("U8", None, 2, lb2=8))
    assert not m.snapshot().tiles[0].defined[0, 2]
    m.run(bundle("U8", "U8", 2, lb2=8, hand="U"))
    assert m.snapshot().tiles[16].defined[0, 2] and m.snapshot().tiles[16].words[0, 2] == 0


def test_defaults_001_rounding_defaults_hw_ieee():
    # PTO-AVS-TILE-TCVT-DEFAULTS-001: RMode NONE is RTZ for FP32 -> S32 and RNE for FP32 -> FP16.
    # Hand derivation: 2.7 (0x402CCCCD) -> RTZ 2 (RNE would give 3); 1 + 3*2**-12
    # (0x3F801800) is 0.75 FP16 ulp above 1.0 -> RNE 0x3C01 (RTZ would give 0x3C00); both inexact.
    m = machine("hw-ieee")
    source_tile(m, 1, "FP32", 256, 8, (1, 2), [[0x402CCCCD, 0x3F801800]])  # 8 rows
    assert m.run(bundle("FP32", "S32", 2, lb2=8, size=2)).fault is None
    assert m.snapshot().tiles[0].words[0, 0] == 2
    assert m.run(bundle("FP32", "FP16", 2, lb2=8, size=1, hand="U")).fault is None
    fp16 = m.snapshot().tiles[16]
    assert fp16.words[0, 1] == 0x3C01
    assert m.snapshot().flags == 0x10


@pytest.mark.parametrize("mode,expected", [("RNE", 128), ("RTM", 127), ("RTP", 128), ("RTZ", 127),
                                           ("RNA", 128), ("RTO", 128), ("RHB", 128)])
def test_e8m0_round_003_one_point_five(mode, expected):
    # PTO-AVS-TILE-TCVT-E8M0-ROUND-003: BF16 0x3FC0 (1.5) under every RMode, flags 0x10
    for profile in ("pto-v0", "hw-ieee"):
        m = machine(profile)
        source_tile(m, 1, "BF16", 256, 8, (1, 1), [[0x3FC0]])
        assert m.run(bundle("BF16", f"E8M0, {mode}", 1, lb2=8)).fault is None
        assert m.snapshot().tiles[0].words[0, 0] == expected
        assert m.snapshot().flags == 0x10


@pytest.mark.parametrize("mode,expected", [("RTM", 126), ("RTP", 127), ("RTZ", 127)])
def test_e8m0_round_003_zero_point_seven_five(mode, expected):
    # PTO-AVS-TILE-TCVT-E8M0-ROUND-003: BF16 0x3F40 (0.75), flags 0x10
    m = machine()
    source_tile(m, 1, "BF16", 256, 8, (1, 1), [[0x3F40]])
    assert m.run(bundle("BF16", f"E8M0, {mode}", 1, lb2=8)).fault is None
    assert m.snapshot().tiles[0].words[0, 0] == expected and m.snapshot().flags == 0x10


@pytest.mark.parametrize("src,value,sat,expected,flags", [
    # PTO-AVS-TILE-TCVT-E8M0-SPECIAL-004 (RNE)
    ("BF16", 0x0000, 0, 0xFF, 0x01), ("BF16", 0xBF80, 1, 0xFF, 0x01), ("BF16", 0x7FC0, 0, 0xFF, 0x01),
    ("BF16", 0x7F80, 0, 0xFF, 0x14), ("BF16", 0x7F80, 1, 0xFE, 0x14),
    ("FP32", 0x00400000, 0, 0x00, 0x00), ("FP32", 0x00200000, 0, 0xFF, 0x18),
    ("FP32", 0x00200000, 1, 0x00, 0x18), ("FP32", 0x7F000000, 0, 0xFE, 0x00),
    ("FP32", 0x7F7FFFFF, 0, 0xFF, 0x14), ("FP32", 0x7F7FFFFF, 1, 0xFE, 0x14),
])
def test_e8m0_special_004(src, value, sat, expected, flags):
    for profile in ("pto-v0", "hw-ieee"):
        m = machine(profile)
        capacity = 256 if src == "BF16" else 512
        source_tile(m, 1, src, capacity, 8, (1, 1), [[value]])
        datr = "E8M0, RNE" + (", Sat=1" if sat else "")
        assert m.run(bundle(src, datr, 1, lb2=8)).fault is None
        assert m.snapshot().tiles[0].words[0, 0] == expected
        assert m.snapshot().flags == flags


def test_e8m0_finite_002_direct():
    # PTO-AVS-TILE-TCVT-E8M0-FINITE-002: BF16 cap 256 cols 8 1x4 [1, 2, 0.5, 1.5] -> E8M0 cap 128
    # [127, 128, 126, 128], status 0x10, source (0,3) still 0x3FC0 (control: RNE).
    m = machine()
    source_tile(m, 0, "BF16", 256, 8, (1, 4), [[0x3F80, 0x4000, 0x3F00, 0x3FC0]])
    m.configure_tile(1, dtype="E8M0", capacity=128, cols=8, valid=(1, 4))
    assert m.run([{"call": "TCVT", "dst": 1, "src": 0, "rounding": "RNE"}]).fault is None
    snap = m.snapshot()
    assert snap.tiles[1].words[0, :4].tolist() == [127, 128, 126, 128]
    assert snap.flags == 0x10 and snap.tiles[0].words[0, 3] == 0x3FC0


@pytest.mark.parametrize("src,legal", [("FP16", True), ("BF16", True), ("FP32", True), ("FP64", False),
                                       ("E4M3", False), ("S32", False), ("E8M0", False)])
def test_e8m0_pairs_005_direct(src, legal):
    # PTO-AVS-TILE-TCVT-E8M0-PAIRS-005 PairLegal: src cap = TileStorageBytes(16, 8, T), 1x1 = 1
    m = machine()
    bits = dtypes.dtype(src).bits
    source_tile(m, 0, src, 16 * 8 * bits // 8, 8, (1, 1), [[1]])
    m.configure_tile(1, dtype="E8M0", capacity=128, cols=8, valid=(1, 1))
    fault = m.run([{"call": "TCVT", "dst": 1, "src": 0, "rounding": "RNE"}]).fault
    assert fault == (None if legal else "Fault_TileLegality")


def test_e8m0_pairs_005_bundle():
    # FP64 src cap 1024 cols 8 = 1.0; BSTART 0x01B19181; B.DATR DT 13 pad 11; LB0 1, LB1 1,
    # LB2 8; B.IOT(T, size 1, 0001, src 0, L) -> Fault_TileLegality, capacity unchanged,
    # not allocated.
    m = machine()
    source_tile(m, 0, "FP64", 1024, 8, (1, 1), [[0x3FF0000000000000]], mask="0001")
    before = m.snapshot()
    result = m.run([0x01B19181, "B.DATR E8M0, Null", "B.DIM LB0=1", "B.DIM LB1=1", "B.DIM LB2=8",
                    "B.IOT T0, mask=0001, <last>, ->T<1>", "BSTOP"])
    assert result.fault == "Fault_TileLegality"
    assert m.snapshot().same_as(before) and m.snapshot().tile_capacity_in_use == 1024


# PTO-AVS-TILE-TCVT-LAYOUT-001: the 13 transforms (digest §4.1 table)
TRANSFORMS = {"NORM": ("RowMajor", "RowMajor"), "ND2DN": ("RowMajor", "ColumnMajor"),
              "ND2ZN": ("RowMajor", "ZN"), "ND2NZ": ("RowMajor", "NZ"), "DN2ND": ("ColumnMajor", "RowMajor"),
              "DN2ZN": ("ColumnMajor", "ZN"), "DN2NZ": ("ColumnMajor", "NZ"), "ZN2ND": ("ZN", "RowMajor"),
              "ZN2DN": ("ZN", "ColumnMajor"), "ZN2NZ": ("ZN", "NZ"), "NZ2ND": ("NZ", "RowMajor"),
              "NZ2DN": ("NZ", "ColumnMajor"), "NZ2ZN": ("NZ", "ZN")}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_layout_001_transforms(name):
    source_layout, destination_layout = TRANSFORMS[name]
    data = (np.arange(32 * 64, dtype=np.uint64) % 251).reshape(32, 64)
    m = machine()
    source_tile(m, 1, "U8", 2048, 64, (32, 64), data, layout=source_layout)
    assert m.run(bundle("U8", f"U8, {name}, Null", 64, lb1=32, lb2=64, size=5)).fault is None
    dst = m.snapshot().tiles[0]
    assert dst.layout == destination_layout
    assert np.array_equal(dst.words, data)  # same logical values, new physical order
    # the source layout must be the transform's source layout
    wrong = "ColumnMajor" if source_layout == "RowMajor" else "RowMajor"
    m = machine()
    source_tile(m, 1, "U8", 2048, 64, (32, 64), data, layout=wrong)
    assert m.run(bundle("U8", f"U8, {name}, Null", 64, lb1=32, lb2=64, size=5)).fault == "Fault_TileLegality"


def test_layout_cube_transport_codes():
    # Layout codes 21..26 (ND2M32 .. N82ND) decode, but a present B.DATR carrying one routes
    # the block to the CUBE transport path (asl/block/model/dispatch/tlsu-layout-conversion.asl
    # BundleCubeTransportSelected), where TCVT's code 0x01B is no TLSU operation:
    # Fault_IllegalInstruction before any TCVT check (a zero mask is still a no-op).
    # A direct call reaches the layout mapping, which has no meaning for them (SPEC-CHOICE,
    # digest §7.7): Fault_TileLegality.
    for code in range(21, 27):
        m = machine()
        source_tile(m, 1, "U8", 128, 8, (1, 2), [[7, 9]])
        before = m.snapshot()
        assert m.run(bundle("U8", f"U8, {LAYOUT_TRANSFORMS[code]}", 2, lb2=8)).fault == "Fault_IllegalInstruction"
        assert m.run(bundle("U8", f"U8, {LAYOUT_TRANSFORMS[code]}", 2, lb2=8, mask="0000")).fault is None
        assert m.snapshot().same_as(before)
        m.configure_tile(0, dtype="U8", capacity=128, cols=8, valid=(1, 2))
        assert m.run([{"call": "TCVT", "dst": 0, "src": 1, "layout": code}]).fault == "Fault_TileLegality"


def test_fractal_001_storage_through_tcvt():
    # PTO-AVS-TILE-TCVT-FRACTAL-001: U8 32x64 ZN: (1,0)=1, (0,1)=16, (0,32)=512, (16,0)=1024;
    # NZ: (0,1)=1, (1,0)=32, (0,32)=1024, (16,0)=512.
    data = (np.arange(32 * 64, dtype=np.uint64) % 256).reshape(32, 64)
    m = machine()
    source_tile(m, 1, "U8", 2048, 64, (32, 64), data)
    assert m.run(bundle("U8", "U8, ND2ZN", 64, lb1=32, lb2=64, size=5)).fault is None
    assert m.run(bundle("U8", "U8, ND2NZ", 64, lb1=32, lb2=64, size=5, hand="U")).fault is None
    zn, nz = m.snapshot().tiles[0].storage, m.snapshot().tiles[16].storage
    for (r, c), index in {(1, 0): 1, (0, 1): 16, (0, 32): 512, (16, 0): 1024}.items():
        assert zn[index] == data[r, c]
    for (r, c), index in {(0, 1): 1, (1, 0): 32, (0, 32): 1024, (16, 0): 512}.items():
        assert nz[index] == data[r, c]


def test_types_001_every_pair():
    # PTO-AVS-TILE-TCVT-TYPES-001: all 25 types are legal TCVT types; the only rejected pairs
    # are E8M0 destinations from anything but FP16/BF16/FP32 (PAIRS-005).
    for src in dtypes.ALL:
        for dst in dtypes.ALL:
            m = machine()
            source_tile(m, 1, src.name, capacity_32x8(src.name), 8, (1, 1), [[0]])
            result = m.run(bundle(src.name, dst.name, 1, lb2=8, size=size_code(capacity_32x8(dst.name))))
            rejected = dst.name == "E8M0" and src.name not in ("FP16", "BF16", "FP32")
            assert result.fault == ("Fault_TileLegality" if rejected else None), (src.name, dst.name)


def test_alias_001_direct_in_place():
    # PTO-AVS-TILE-TCVT-ALIAS-001: U8 tile 0 cap 128 cols 8 (16 rows) 1x2 = [7, 9]; B.DATR DT 27,
    # pad 00. TCVT(0, 0): (0,0)=7, (0,1)=9, (0,2) defined = 0, (15,7) defined.
    m = machine()
    source_tile(m, 0, "U8", 128, 8, (1, 2), [[7, 9]])
    m.write_tile(0, np.full((16, 8), 0x55, dtype=np.uint64), np.zeros((16, 8), dtype=bool))
    m.write_tile(0, [[7, 9]])
    assert m.run([{"call": "TCVT", "dst": 0, "src": 0, "dtype": "U8", "pad": "Zero"}]).fault is None
    view = m.snapshot().tiles[0]
    assert view.words[0, 0] == 7 and view.words[0, 1] == 9
    assert view.defined[0, 2] and view.words[0, 2] == 0 and view.defined[15, 7]


def test_integer_001():
    # PTO-AVS-TILE-TCVT-INTEGER-001: S4X2 0xF -> S8 = all ones; U16 300 -> U8 Sat0 44, Sat1 255;
    # S64 -1 -> U4X2 Sat1 = 0 (non-packed destinations keep the whole Word).
    cases = [("S4X2", 0xF, "S8", 0, 0xFFFFFFFFFFFFFFFF), ("U16", 300, "U8", 0, 44), ("U16", 300, "U8", 1, 255),
             ("S64", 0xFFFFFFFFFFFFFFFF, "U4X2", 1, 0)]
    for src, value, dst, sat, expected in cases:
        m = machine()
        source_tile(m, 1, src, capacity_32x8(src), 8, (1, 1), [[value]])
        datr = dst + (", Sat=1" if sat else "")
        assert m.run(bundle(src, datr, 1, lb2=8, size=size_code(capacity_32x8(dst)))).fault is None
        assert m.snapshot().tiles[0].words[0, 0] == expected, (src, dst, sat)


def test_schema_001():
    # PTO-AVS-TILE-TCVT-SCHEMA-001: U8 tile 1 cap 128 cols 2 (64 rows) 1x2 = [3, 4];
    # BSTART 0xD9B19181; LB0 = 2; B.IOT(T, 1, 1111, src 1, L) is legal.
    def run(extra="", binding="B.IOT T1, mask=1111, <last>, ->T<1>", dims="B.DIM LB0=2", src_type="U8"):
        m = machine()
        capacity = 128
        source_tile(m, 1, src_type, capacity, 2, (1, 2), [[3, 4]])
        return m, m.run(f"BSTART.VEC TCVT, U8; {extra}{dims}; {binding}; BSTOP")
    m, result = run()
    assert result.fault is None and m.snapshot().tiles[0].words[0].tolist()[:2] == [3, 4]
    # A B.IOR (dst 0, src0 1) makes the schema fail; in a whole bundle the surplus RegSrc0
    # is caught first by the binding-completeness check (Fault_BundleControl, digest §7.8);
    # an all-zero B.IOR reaches the schema.
    assert run("B.IOR R1; ")[1].fault == "Fault_BundleControl"
    assert run("B.IOR zero; ")[1].fault == "Fault_TileLegality"
    # source1 present: a second source also fails the binding count first
    assert run(binding="B.IOT T1, T1, mask=1111, <last>, ->T<1>")[1].fault == "Fault_BundleControl"
    assert run(src_type="U16")[1].fault == "Fault_TileLegality"  # source type differs from BSTART U8
    assert run(dims="B.DIM LB2=2")[1].fault == "Fault_TileLegality"  # LB0 absent


def test_flags_001_sticky_or_at_commit():
    # PTO-AVS-TILE-TCVT-FLAGS-001: status OF (0x04) before, a conversion raising a flag ORs
    # into it and publishes the payload. (The spec test commits DZ through an internal
    # helper; through the API an E8M0 conversion of 1.5 raises NX.)
    m = machine()
    m.set_status(0x04)
    source_tile(m, 1, "BF16", 256, 8, (1, 1), [[0x3FC0]])
    assert m.run(bundle("BF16", "E8M0", 1, lb2=8)).fault is None
    assert m.snapshot().flags == 0x14 and m.snapshot().tiles[0].words[0, 0] == 128


# Pad Words (Max, Min) from TilePadValueForDataType, asl/tile/model/definedness/elements.asl
# (digest §3.5): S4X2, E8M0 and HiF8 take the "otherwise" rows (all ones; 0x8000000000000000).
PAD_WORDS = {"U8": (0xFF, 0), "S8": (0x7F, 0x80), "FP16": (0x7BFF, 0xFBFF),
             "S4X2": (2**64 - 1, 1 << 63), "E8M0": (2**64 - 1, 1 << 63), "HiF8": (2**64 - 1, 1 << 63)}


@pytest.mark.parametrize("pad", ["Zero", "Max", "Min", "Null"])
@pytest.mark.parametrize("dst", sorted(PAD_WORDS))
def test_padding_values(pad, dst):
    # digest §3.5: padding stores TilePadValueForDataType (element bits on packed tiles),
    # defined unless Null; the valid region is always defined.
    t = dtypes.dtype(dst)
    src = "FP16" if dst == "E8M0" else dst
    m = machine()
    source_tile(m, 1, src, capacity_32x8(src), 8, (1, 1), [[0x3C00 if src == "FP16" else 1]])
    assert m.run(bundle(src, f"{dst}, {pad}", 1, lb2=8, size=size_code(capacity_32x8(dst)))).fault is None
    view = m.snapshot().tiles[0]
    assert view.defined[0, 0]
    padding = ~np.pad(np.ones((1, 1), bool), ((0, 31), (0, 7)))
    assert (view.defined[padding] == (pad != "Null")).all()
    if pad == "Null":
        return
    word = {"Zero": 0, "Max": PAD_WORDS[dst][0], "Min": PAD_WORDS[dst][1]}[pad]
    if t.bits == 4:  # packed tiles keep element bits only
        assert (view.words[padding] == word & t.mask).all()
        assert (view.storage[1:] == word & t.mask).all()
    else:
        assert (view.words[padding] == word).all()


def test_hw_ieee_narrowing_flags():
    # hw-ieee FP32 -> BF16 RNE: 1 + 2**-8 + 2**-9 (0x3F80C000) is 1.5 BF16 ulps above 1.0 ->
    # rounds to 1 + 2**-7 (0x3F81), inexact (hand derivation); pto-v0 keeps the raw carrier.
    for profile, expected, flags in (("hw-ieee", 0x3F81, 0x10), ("pto-v0", 0x3F80C000, 0)):
        m = machine(profile)
        source_tile(m, 1, "FP32", 512, 8, (1, 1), [[0x3F80C000]])
        assert m.run(bundle("FP32", "BF16, RNE", 1, lb2=8, size=2)).fault is None
        assert m.snapshot().tiles[0].words[0, 0] == expected and m.snapshot().flags == flags


def test_source_undefined_or_invalid_encoding_is_rejected():
    m = machine()
    m.configure_tile(1, dtype="U8", capacity=128, cols=8, valid=(1, 2))
    m.write_tile(1, [[7, 9]], [[True, False]])
    assert m.run(bundle("U8", None, 2, lb2=8)).fault == "Fault_TileLegality"
    # TF32 needs bits 12:0 zero (TileNumericEncodingValid)
    m = machine()
    source_tile(m, 1, "TF32", 256, 8, (1, 1), [[0x3F800001]])
    assert m.run(bundle("TF32", "FP32", 1, lb2=8, size=2)).fault == "Fault_TileLegality"


def test_large_tiles_use_the_packed_carrier():
    # digest §3.4/§7.2: a tile of more than 32768 elements keeps only element bits (reads
    # zero-extend), so S8 -56 reads back 0xC8 there and 0xFFFFFFFFFFFFFFC8 in a small tile.
    for capacity, cols, size, expected in ((65536, 256, 10, 0xC8), (128, 8, 1, 0xFFFFFFFFFFFFFFC8)):
        m = machine()
        m.configure_tile(1, dtype="S8", capacity=capacity, cols=cols, valid=(1, 1), mask="0001")
        m.write_tile(1, [[0xFFFFFFFFFFFFFFC8]])
        assert m.run(bundle("S8", None, 1, lb2=cols, size=size, mask="0001")).fault is None
        assert m.snapshot().tiles[0].words[0, 0] == expected, capacity
