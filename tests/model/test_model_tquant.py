"""TQUANT through the Machine API (bundles and direct calls).

Expected values: the spec tests under
tests/asl/tile/irregular-and-complex/format-conversion/TQUANT/ (cited per test),
the reference arithmetic of asl/arch/profile/reference-quantization.asl
(digest §4.2: exact x*m + zp, one rounding, NaN -> 0 with NV, +-Inf -> the
endpoint with OF|NX regardless of Sat), and hand derivations noted per case.
"""
import pytest

from pto_avs.device_model.encoding import assemble
from pto_avs.device_model.encoding.names import TEPL_OPS
from pto_avs.device_model.machine import Machine

FP32_ONE, FP32_TWO = 0x3F800000, 0x40000000


def fp32_source(m, data, index=1, capacity=128, cols=None):
    cols = cols or len(data[0])
    m.configure_tile(index, dtype="FP32", capacity=capacity, cols=cols, valid=(len(data), len(data[0])))
    m.write_tile(index, data)


def bundle(datr="S8", lb0=2, lb2=2, ior=None, src_type="FP32", size=1, extra=""):
    parts = [f"BSTART.SFU TQUANT, {src_type}"]
    if datr is not None:
        parts.append(f"B.DATR {datr}")
    parts += [f"B.DIM LB0={lb0}", f"B.DIM LB2={lb2}"]
    if ior is not None:
        parts.append(f"B.IOR {ior}")
    parts.append(f"B.IOT T1, mask=1111, <last>, ->T<{size}>")
    return "; ".join(parts + ([extra] if extra else []) + ["BSTOP"])


def quantize_one(value, multiplier=FP32_ONE, zero_point=0, dtype="S8", rounding=None, sat=0, profile="pto-v0"):
    """Direct TQUANT of one FP32 element into a 1x1 destination."""
    m = Machine(profile)
    fp32_source(m, [[value]], cols=8)
    m.configure_tile(0, dtype=dtype, capacity=128, cols=8, valid=(1, 1))
    call = {"call": "TQUANT", "dst": 0, "src": 1, "multiplier": multiplier, "zero_point": zero_point,
            "sat": sat}
    if rounding:
        call["rounding"] = rounding
    result = m.run([call])
    assert result.fault is None, result.detail
    snap = m.snapshot()
    return int(snap.tiles[0].words[0, 0]), snap.flags


def test_static_001():
    # PTO-AVS-TILE-TQUANT-STATIC-001: TEPL code 0b000001101010 (Mode 3, Function 10), SFU
    assert TEPL_OPS["TQUANT"] == (3, 10, "SFU")
    assert assemble("BSTART.SFU TQUANT, FP32")[0].word == 0x0EA19181


def test_defaults_001_omitted_vs_explicit_zero():
    # PTO-AVS-TILE-TQUANT-DEFAULTS-001: omitted B.IOR selects multiplier 0x3F800000 and zero
    # point 0; an explicit all-zero B.IOR selects multiplier 0, which is illegal.
    m = Machine()
    fp32_source(m, [[FP32_ONE, FP32_TWO]])
    assert m.run(bundle()).fault is None
    assert m.snapshot().tiles[0].words[0, :2].tolist() == [1, 2]
    m = Machine()
    fp32_source(m, [[FP32_ONE, FP32_TWO]])
    before = m.snapshot()
    assert m.run(bundle(ior="zero, zero")).fault == "Fault_TileLegality"
    assert m.snapshot().same_as(before)


def test_types_001_direct():
    # PTO-AVS-TILE-TQUANT-TYPES-001: S8 (cap 128, cols 1), FP32 1.0, U64, U16 tiles;
    # TQUANT(S8 <- FP32) legal, (S8 <- U64) illegal, (U16 <- FP32) illegal.
    def run(dst, src):
        m = Machine()
        m.configure_tile(0, dtype="S8", capacity=128, cols=1, valid=(1, 1))
        m.configure_tile(1, dtype="FP32", capacity=128, cols=1, valid=(1, 1))
        m.configure_tile(2, dtype="U64", capacity=128, cols=1, valid=(1, 1))
        m.configure_tile(3, dtype="U16", capacity=128, cols=1, valid=(1, 1))
        m.write_tile(1, [[FP32_ONE]])
        m.write_tile(2, [[1]])
        return m.run([{"call": "TQUANT", "dst": dst, "src": src, "multiplier": FP32_ONE,
                       "zero_point": 0}]).fault
    assert run(0, 1) is None
    assert run(0, 2) == "Fault_TileLegality"
    assert run(3, 1) == "Fault_TileLegality"


def test_affine_001_direct():
    # PTO-AVS-TILE-TQUANT-AFFINE-001: FP32 [1.0, 2.0], m = 1.0, zp = 0 -> S8 [1, 2]
    m = Machine()
    m.configure_tile(0, dtype="S8", capacity=128, cols=2, valid=(1, 2))
    fp32_source(m, [[FP32_ONE, FP32_TWO]])
    assert m.run([{"call": "TQUANT", "dst": 0, "src": 1, "multiplier": FP32_ONE, "zero_point": 0}]).fault is None
    assert m.snapshot().tiles[0].words[0, :2].tolist() == [1, 2]


def test_bundle_001():
    # PTO-AVS-TILE-TQUANT-BUNDLE-001: BSTART 0x0EA19181; B.DATR DT 19, rest 0; LB0 = 2, LB2 = 2;
    # B.IOT(T, 1, 1111, src 1, L) -> destination S8 [1, 2]; source (0,0) still 0x3F800000.
    m = Machine()
    fp32_source(m, [[FP32_ONE, FP32_TWO]])
    result = m.run([0x0EA19181, "B.DATR S8", "B.DIM LB0=2", "B.DIM LB2=2",
                    "B.IOT T1, mask=1111, <last>, ->T<1>", "BSTOP"])
    assert result.fault is None
    snap = m.snapshot()
    assert snap.tiles[0].dtype == "S8" and snap.tiles[0].words[0, :2].tolist() == [1, 2]
    assert snap.tiles[1].words[0, 0] == FP32_ONE


def test_mask_zero_001():
    # PTO-AVS-TILE-TQUANT-MASK-ZERO-001: BSTART + B.IOT(T, 1, 0000, src 63, L) -> no fault,
    # tile 0 not allocated
    m = Machine()
    assert m.run([0x0EA19181, "B.IOT N15, mask=0000, <last>, ->T<1>", "BSTOP"]).fault is None
    assert 0 not in m.snapshot().tiles


def test_sat_001_direct():
    # PTO-AVS-TILE-TQUANT-SAT-001: 200.0 (0x43480000): Sat1 -> 127; Sat0 -> -56 =
    # 0xFFFFFFFFFFFFFFC8 (non-packed S8 keeps the sign-extended Word)
    assert quantize_one(0x43480000, sat=1)[0] == 127
    assert quantize_one(0x43480000, sat=0)[0] == 0xFFFFFFFFFFFFFFC8


def test_zero_scale_001():
    # PTO-AVS-TILE-TQUANT-ZERO-SCALE-001: FP32 1.0; B.DATR S8; LB0 = LB2 = 1; B.IOR all zero
    # -> Fault_TileLegality, not allocated, source unchanged
    m = Machine()
    fp32_source(m, [[FP32_ONE]], cols=1)
    before = m.snapshot()
    assert m.run(bundle(lb0=1, lb2=1, ior="zero, zero, zero")).fault == "Fault_TileLegality"
    assert m.snapshot().same_as(before) and 0 not in m.snapshot().tiles


def test_padding_001_direct():
    # PTO-AVS-TILE-TQUANT-PADDING-001: U8 dst cap 128 cols 2 valid 1x1 with (0,1) = 0xAA;
    # FP32 1.0 -> (0,0) defined, (0,1) undefined (padding is always Null)
    m = Machine()
    m.configure_tile(0, dtype="U8", capacity=128, cols=2, valid=(1, 1))
    m.write_tile(0, [[0] * 2] * 64)
    m.write_tile(0, [[0, 0xAA]] + [[0, 0]] * 63)
    fp32_source(m, [[FP32_ONE]], cols=2)
    assert m.run([{"call": "TQUANT", "dst": 0, "src": 1}]).fault is None
    view = m.snapshot().tiles[0]
    assert view.defined[0, 0] and not view.defined[0, 1] and view.words[0, 0] == 1


@pytest.mark.parametrize("value,multiplier,zero_point,rounding,expected,flags", [
    # exact x*m + zp with one rounding (hand derivations)
    (0x40200000, FP32_ONE, 0, "RNE", 2, 0x10),            # 2.5 -> ties to even 2
    (0x40200000, FP32_ONE, 0, "RNA", 3, 0x10),            # 2.5 -> away 3
    (0x40200000, FP32_ONE, 0, "RTZ", 2, 0x10),
    (0xC0200000, FP32_ONE, 0, "RTM", 0xFFFFFFFFFFFFFFFD, 0x10),  # -2.5 -> -3
    (0xC0200000, FP32_ONE, 0, "RHB", 0xFFFFFFFFFFFFFFFE, 0x10),  # -2.5 -> numerically greater -2
    (0x3FC00000, 0x40400000, 1, "RNE", 6, 0x10),          # 1.5 * 3 + 1 = 5.5 -> 6
    (0x3FC00000, 0x40400000, 0xFFFFFFFFFFFFFFFF, "RNE", 4, 0x10),  # 4.5 - 1 = 3.5 -> 4
    (0x40000000, 0x3F000000, 0, "RNE", 1, 0x00),          # 2 * 0.5 = 1 exactly
    (0x3F800001, 0x3F800000, 0, "RNE", 1, 0x10),          # 1 + 2**-23 is inexact
    (0x7FC00000, FP32_ONE, 0, "RNE", 0, 0x01),            # NaN -> 0, NV
    (0x7F800000, FP32_ONE, 0, "RNE", 127, 0x14),          # +Inf -> max, OF|NX
    (0xFF800000, FP32_ONE, 0, "RNE", 0xFFFFFFFFFFFFFF80, 0x14),  # -Inf -> -128
])
def test_reference_arithmetic(value, multiplier, zero_point, rounding, expected, flags):
    assert quantize_one(value, multiplier, zero_point, rounding=rounding) == (expected, flags)


def test_special_values_ignore_sat_and_overflow_has_no_of():
    # digest §4.2 / §7.11: NaN and Inf results do not depend on Sat; a finite clamp or wrap
    # raises no OF (200 -> 127 or -56, flags 0).
    assert quantize_one(0x7F800000, sat=0) == (127, 0x14)
    assert quantize_one(0x7FC00001, sat=1) == (0, 0x01)
    assert quantize_one(0x43480000, sat=1) == (127, 0)
    assert quantize_one(0xFF800000, dtype="U8") == (0, 0x14)
    assert quantize_one(0x7F800000, dtype="U8") == (255, 0x14)


def test_multiplier_and_zero_point_legality():
    # TileQuantizationScaleLegal ignores bits 63:32 and accepts a positive subnormal;
    # TileQuantizationZeroPointLegal needs the canonical S8/U8 value (digest §4.2).
    def run(multiplier, zero_point, dtype="S8"):
        m = Machine()
        fp32_source(m, [[FP32_ONE, FP32_TWO]])
        m.set_gpr(1, multiplier)
        m.set_gpr(2, zero_point)
        return m.run(bundle(datr=dtype, ior="R1, R2")).fault
    assert run(0xDEAD00003F800000, 0) is None
    assert run(0x00000001, 0) is None  # smallest positive subnormal
    for bad in (0xBF800000, 0x7FC00000, 0x7F800000, 0x80000000, 0):
        assert run(bad, 0) == "Fault_TileLegality", hex(bad)
    assert run(FP32_ONE, 0xFFFFFFFFFFFFFFFB) is None  # S8 -5, sign-extended
    assert run(FP32_ONE, 0xFB) == "Fault_TileLegality"  # not canonical for S8
    assert run(FP32_ONE, 0xFB, dtype="U8") is None
    assert run(FP32_ONE, 0x100, dtype="U8") == "Fault_TileLegality"


def test_zero_point_shifts_the_result():
    m = Machine()
    fp32_source(m, [[FP32_ONE, FP32_TWO]])
    m.set_gpr(1, FP32_TWO)
    m.set_gpr(2, 0xFFFFFFFFFFFFFFFD)  # -3
    assert m.run(bundle(ior="R1, R2")).fault is None
    assert m.snapshot().tiles[0].words[0, :2].tolist() == [0xFFFFFFFFFFFFFFFF, 1]  # 2-3, 4-3


@pytest.mark.parametrize("program,fault", [
    (bundle(src_type="S8"), "Fault_TileLegality"),           # BSTART type must be FP32
    (bundle(datr=None), "Fault_TileLegality"),               # B.DATR is mandatory
    (bundle(datr="DTYPE_NONE"), "Fault_TileLegality"),       # ... with a concrete DataType
    (bundle(datr="U16"), "Fault_TileLegality"),              # ... S8 or U8
    (bundle(datr="S8, Max"), "Fault_TileLegality"),          # PadValue is not applicable
    (bundle(datr="S8, ND2DN"), "Fault_TileLegality"),        # nor Layout
    (bundle(datr="S8, Canon=1"), "Fault_TileLegality"),
    (bundle(lb0=1), "Fault_TileLegality"),                   # LB0 differs from the source
    (bundle(lb2=4), "Fault_TileLegality"),                   # LB2 differs from the source columns
    (bundle(ior="R1, R2, R3"), "Fault_BundleControl"),       # RegSrc2 is surplus
    (bundle(ior="R1, R2, ->R4"), "Fault_BundleControl"),     # RegDst is surplus
])
def test_bundle_schema_faults(program, fault):
    m = Machine()
    fp32_source(m, [[FP32_ONE, FP32_TWO]])
    m.set_gpr(1, FP32_ONE)
    before = m.snapshot()
    assert m.run(program).fault == fault
    assert m.snapshot().same_as(before)


def test_u8_destination_and_hw_profile_agree_in_range():
    for profile in ("pto-v0", "hw-ieee"):
        m = Machine(profile)
        fp32_source(m, [[0x40400000, 0x42F60000]])  # 3.0, 123.0
        assert m.run(bundle(datr="U8, RNE")).fault is None
        assert m.snapshot().tiles[0].words[0, :2].tolist() == [3, 123]
        assert m.snapshot().tiles[0].dtype == "U8" and m.snapshot().flags == 0
