"""TMULS through the Machine API (bundles and direct calls), both profiles.

Expected values: the spec tests under
tests/asl/tile/tile-scalar-and-immediate/arithmetic/TMULS/ (cited per test),
the digest §4.3 (integer wrap at the element width, pto-v0 raw 64-bit carrier
products, type set, B.IOR and B.DATR rules), and hand derivations per case.
"""
import pytest

from pto_avs.device_model import dtypes
from pto_avs.device_model.encoding.names import TEPL_OPS
from pto_avs.device_model.machine import Machine

# TileVecArithmeticDataTypeSupported (the executable 16-type set, digest §4.3)
SUPPORTED = {"FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2",
             "S64", "S32", "S16", "S8", "U64", "U32", "U16", "U8"}


def source(m, dtype, data, index=1, cols=8):
    capacity = max(128, 16 * cols * dtypes.dtype(dtype).bits // 8)  # 16 rows
    m.configure_tile(index, dtype=dtype, capacity=capacity, cols=cols, valid=(len(data), len(data[0])))
    m.write_tile(index, data)
    return capacity


def bundle(dtype, lb0, size, ior=None, datr=None, lb2=8):
    parts = [f"BSTART.VEC TMULS, {dtype}"]
    if datr is not None:
        parts.append(f"B.DATR {datr}")
    parts += [f"B.DIM LB0={lb0}", f"B.DIM LB2={lb2}", f"B.IOT T1, mask=1111, <last>, ->T<{size}>"]
    if ior is not None:
        parts.append(f"B.IOR {ior}")
    return "; ".join(parts + ["BSTOP"])


def size_code(capacity):
    return capacity.bit_length() - 7


def run_bundle(dtype, values, scalar, profile="pto-v0", datr=None):
    m = Machine(profile)
    capacity = source(m, dtype, [values])
    m.set_gpr(1, scalar)
    result = m.run(bundle(dtype, len(values), size_code(capacity), ior="R1", datr=datr))
    return m, result


def test_static_001():
    # PTO-AVS-TILE-TMULS-STATIC-001: TEPL code 0b000000100010 (Mode 1, Function 2), VEC
    assert TEPL_OPS["TMULS"] == (1, 2, "VEC")


@pytest.mark.parametrize("name", dtypes.NAMES)
def test_types_001(name):
    # PTO-AVS-TILE-TMULS-TYPES-001: FP32, S16, U8 legal; HiF8, U4X2 illegal; the executable
    # set is the 16 TileVecArithmeticDataTypeSupported types.
    m = Machine()
    capacity = source(m, name, [[0]])
    m.set_gpr(1, 0)
    result = m.run(bundle(name, 1, size_code(capacity), ior="R1"))
    assert result.fault == (None if name in SUPPORTED else "Fault_TileLegality")


def test_width_001_direct():
    # PTO-AVS-TILE-TMULS-WIDTH-001: U8 [7, 86] x 3 -> [21, 2] (258 wraps), source (0,0) still 7
    m = Machine()
    m.configure_tile(0, dtype="U8", capacity=128, cols=2, valid=(1, 2))
    m.configure_tile(1, dtype="U8", capacity=128, cols=2, valid=(1, 2))
    m.write_tile(0, [[7, 86]])
    assert m.run([{"call": "TMULS", "dst": 1, "src": 0, "scalar": 3}]).fault is None
    snap = m.snapshot()
    assert snap.tiles[1].words[0].tolist() == [21, 2] and snap.tiles[0].words[0, 0] == 7


def test_bundle_scalar_from_gpr_and_omitted_is_zero():
    m, result = run_bundle("U8", [7, 86], 3)
    assert result.fault is None and m.snapshot().tiles[0].words[0, :2].tolist() == [21, 2]
    m = Machine()
    source(m, "U8", [[7, 86]])
    assert m.run(bundle("U8", 2, 1)).fault is None  # no B.IOR: scalar 0
    assert m.snapshot().tiles[0].words[0, :2].tolist() == [0, 0]
    # the scalar is the GPR's low element bits: 0x103 reads as 3 for U8
    m, result = run_bundle("U8", [7, 86], 0x103)
    assert m.snapshot().tiles[0].words[0, :2].tolist() == [21, 2]


@pytest.mark.parametrize("dtype,values,scalar,expected", [
    # integers are sign/zero-extended, multiplied, normalized to the element width
    ("S8", [0xFFFFFFFFFFFFFFFD], 50, [0x6A]),                    # -3 * 50 = -150 -> 106
    ("S8", [0x7F], 2, [0xFFFFFFFFFFFFFFFE]),                     # 254 -> -2, sign-extended Word
    ("S16", [0xFFFFFFFFFFFFFF00], 0xFFFF, [0x100]),              # -256 * -1 = 256
    ("U16", [0xFFFF], 0xFFFF, [1]),                              # 0xFFFE0001 mod 2**16
    ("S32", [0x7FFFFFFF], 2, [0xFFFFFFFFFFFFFFFE]),
    ("U64", [0xFFFFFFFFFFFFFFFF], 2, [0xFFFFFFFFFFFFFFFE]),
    ("S64", [0x8000000000000000], 0xFFFFFFFFFFFFFFFF, [0x8000000000000000]),
])
def test_integer_wrap_at_element_width(dtype, values, scalar, expected):
    for profile in ("pto-v0", "hw-ieee"):
        m, result = run_bundle(dtype, values, scalar, profile)
        assert result.fault is None
        assert m.snapshot().tiles[0].words[0, : len(values)].tolist() == expected
        assert m.snapshot().flags == 0


def test_pto_v0_floating_is_the_raw_carrier_product():
    # digest §4.3 / §7.1: pto-v0 multiplies the raw encodings as 64-bit integers and keeps
    # the whole product (non-packed tile). 0x3FC00000 * 0x40000000 = 0x0FF0000000000000.
    m, result = run_bundle("FP32", [0x3FC00000], 0x40000000)
    assert result.fault is None
    assert m.snapshot().tiles[0].words[0, 0] == 0x3FC00000 * 0x40000000
    assert m.snapshot().flags == 0


@pytest.mark.parametrize("dtype,value,scalar,expected,flags", [
    ("FP32", 0x3FC00000, 0x40000000, 0x40400000, 0x00),   # 1.5 * 2 = 3
    ("FP32", 0x3F800001, 0x3F800001, 0x3F800002, 0x10),   # (1+u)^2 = 1+2u+u^2 -> 1+2u, inexact
    ("FP16", 0x7BFF, 0x4000, 0x7C00, 0x14),               # 65504 * 2 overflows to +Inf
    ("FP16", 0x7C00, 0x0000, 0x7E00, 0x01),               # Inf * 0 -> canonical NaN, NV
    ("BF16", 0x3FC0, 0xC000, 0xC040, 0x00),               # 1.5 * -2 = -3
])
def test_hw_ieee_floating_multiplication(dtype, value, scalar, expected, flags):
    m, result = run_bundle(dtype, [value], scalar, "hw-ieee")
    assert result.fault is None
    assert m.snapshot().tiles[0].words[0, 0] == expected and m.snapshot().flags == flags


def test_padvalue_datr_selects_fp64_destination():
    # SPEC-CHOICE (digest §7.4): a present B.DATR carrying only PadValue encodes DataType 0 =
    # FP64, which becomes the destination type; for a U8 source the destination/source type
    # match fails after allocation -> Fault_TileLegality, rolled back. DTYPE_NONE counts as a
    # nonzero DataType and is rejected by field applicability.
    m = Machine()
    source(m, "U8", [[7, 86]])
    before = m.snapshot()
    assert m.run(bundle("U8", 2, 1, datr="Max")).fault == "Fault_TileLegality"
    assert m.run(bundle("U8", 2, 1, datr="DTYPE_NONE, Max")).fault == "Fault_TileLegality"
    assert m.snapshot().same_as(before)
    # an FP64 source is the one case a PadValue bundle completes: Max pads 0x7FEFFFFFFFFFFFFF
    m = Machine()
    capacity = source(m, "FP64", [[0x3FF0000000000000]])
    m.set_gpr(1, 0x4000000000000000)
    assert m.run(bundle("FP64", 1, size_code(capacity), ior="R1", datr="Max")).fault is None
    view = m.snapshot().tiles[0]
    assert view.defined[0, 1] and view.words[0, 1] == 0x7FEFFFFFFFFFFFFF


def test_direct_padding_and_aliasing():
    # Direct TMULS(dst == src) reads the source before writing (ExecuteTileScalar snapshot);
    # pad Max for U8 stores 0xFF and defines the padding.
    m = Machine()
    m.configure_tile(0, dtype="U8", capacity=128, cols=8, valid=(1, 2))
    m.write_tile(0, [[7, 86]])
    assert m.run([{"call": "TMULS", "dst": 0, "src": 0, "scalar": 3, "pad": "Max"}]).fault is None
    view = m.snapshot().tiles[0]
    assert view.words[0, :3].tolist() == [21, 2, 0xFF] and view.defined.all()
    m = Machine()
    m.configure_tile(0, dtype="U8", capacity=128, cols=8, valid=(1, 2))
    m.write_tile(0, [[7, 86]])
    assert m.run([{"call": "TMULS", "dst": 0, "src": 0, "scalar": 1}]).fault is None
    assert not m.snapshot().tiles[0].defined[0, 2]  # pad omitted: Null


@pytest.mark.parametrize("program,fault", [
    (bundle("U8", 2, 1, ior="R1, R2"), "Fault_BundleControl"),          # RegSrc1 is surplus
    (bundle("U8", 2, 1, ior="R1, ->R3"), "Fault_BundleControl"),        # RegDst is surplus
    (bundle("U8", 2, 1, datr="U8"), "Fault_TileLegality"),              # DataType is not applicable
    (bundle("U8", 2, 1, datr="FP64, RNE"), "Fault_TileLegality"),       # nor RMode
    (bundle("U8", 2, 1, datr="FP64, Sat=1"), "Fault_TileLegality"),     # nor Sat
    (bundle("U8", 1, 1), "Fault_TileLegality"),                         # LB0 differs from the source
    (bundle("U8", 2, 1, lb2=16), "Fault_TileLegality"),                 # LB2 differs from its columns
    (bundle("U8", 2, 2), "Fault_TileLegality"),                         # 256 B gives 32 rows, not 16
    (bundle("S8", 2, 1), "Fault_TileLegality"),                         # source type is not the BSTART type
])
def test_bundle_schema_faults(program, fault):
    m = Machine()
    source(m, "U8", [[7, 86]])
    m.set_gpr(1, 3)
    before = m.snapshot()
    assert m.run(program).fault == fault
    assert m.snapshot().same_as(before)


def test_scalar_encoding_must_be_valid():
    # TileNumericEncodingValid(TF32, TileRawElementValue(scalar)): bits 12:0 must be zero
    m, result = run_bundle("TF32", [0x3F800000], 0x3F800001)
    assert result.fault == "Fault_TileLegality"
    m, result = run_bundle("TF32", [0x3F800000], 0x3F802000, "hw-ieee")
    assert result.fault is None


def test_source_persists_and_destination_matches_source_shape():
    m, result = run_bundle("S16", [5, 0xFFFFFFFFFFFFFFFF, 3], 7)
    snap = m.snapshot()
    assert snap.tiles[0].words[0, :3].tolist() == [35, 0xFFFFFFFFFFFFFFF9, 21]
    assert (snap.tiles[0].rows, snap.tiles[0].cols) == (snap.tiles[1].rows, snap.tiles[1].cols)
    assert snap.tiles[1].words[0, :3].tolist() == [5, 0xFFFFFFFFFFFFFFFF, 3]
    assert not snap.tiles[0].defined[0, 3]  # B.DATR omitted: Null padding
