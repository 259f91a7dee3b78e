"""TGEMV_MX_ACC through the Machine API (bundles and direct calls), both profiles.

Expected values: the spec tests under
tests/asl/tile/matrix-and-matrix-vector/matrix-vector/TGEMV_MX_ACC/ (cited),
the pto-v0 arithmetic of asl/arch/profile/reference-profile.asl
(TileProfileMatrixScaledAccumulate: raw 64-bit products and sums), the
hardware vectors of spec/evidence/pto-isa-0583-hardware-numeric-vectors.json
group "matrix" (copied below with their ids), the bundle legality of
asl/block/model/dispatch/cube-tmatmul.asl (digest §4.4), and hand derivations.
"""
import itertools

import numpy as np
import pytest

from pto_avs.device_model.encoding import assemble
from pto_avs.device_model.machine import Machine

MX = ["FP16", "BF16", "E4M3", "E5M2", "E2M1X2", "E1M2X2"]
SCALED = {"E4M3", "E5M2", "E2M1X2", "E1M2X2"}
FP32_ONE = 0x3F800000


def cube(m, index, dtype, valid, layout, data, capacity=128):
    m.configure_tile(index, dtype=dtype, capacity=capacity, valid=valid, layout=layout)
    m.write_tile(index, np.asarray(data, dtype=np.uint64))


def scale(m, index, valid, data):
    m.configure_tile(index, dtype="E8M0", capacity=128, cols=_pow2(valid[1]), valid=valid)
    m.write_tile(index, np.asarray(data, dtype=np.uint64))


def _pow2(n):
    return 1 << max(0, (n - 1).bit_length())


def fp16_setup(profile="pto-v0", c=5, a=2, b=3):
    """TGEMV-MX-ACC-EXEC-001 operands: A = tile 1 FP16 CUBE_M16 1x1, B = tile 2 FP16 CUBE_N8
    1x1, C = tile 3 FP32 CUBE_M16 1x1."""
    m = Machine(profile)
    cube(m, 1, "FP16", (1, 1), "CUBE_M16", [[a]])
    cube(m, 2, "FP16", (1, 1), "CUBE_N8", [[b]])
    cube(m, 3, "FP32", (1, 1), "CUBE_M16", [[c]])
    return m


FP16_BUNDLE = ("BSTART.TGEMVMX.ACC FP16; B.FPATR; B.IOT T3, T1, mask=1111; "
               "B.IOT T2, mask=1111, <last>, ->T<1>; BSTOP")


def test_static_001():
    # PTO-AVS-TILE-TGEMV-MX-ACC-STATIC-001: CUBE Function 22 via BSTART.TGEMVMX.ACC
    assert assemble("BSTART.TGEMVMX.ACC FP16")[0].word == 0x21631181
    assert (0x01631181 >> 20) & 0x1F == 0x16  # match bits 24:20 carry Function 22


def test_exec_001_direct():
    # PTO-AVS-TILE-TGEMV-MX-ACC-EXEC-001: D = tile 4 FP32 CUBE_M16 1x1; legal; D(0,0) = 11
    # (raw 5 + 2*3); the scale operands (tile 0) are unused for FP16.
    m = fp16_setup()
    m.configure_tile(4, dtype="FP32", capacity=128, valid=(1, 1), layout="CUBE_M16")
    result = m.run([{"call": "TGEMV_MX_ACC", "dst": 4, "acc": 3, "a": 1, "a_scale": 0, "b": 2,
                     "b_scale": 0, "atype": "FP16"}])
    assert result.fault is None
    snap = m.snapshot()
    assert snap.tiles[4].words[0, 0] == 11 and snap.tiles[4].defined[0, 0]
    assert snap.tiles[3].words[0, 0] == 5  # C persists


def test_exec_001_bundle():
    # tests/asl/block/execution/BSTART.TGEMVMX.ACC/block-exec-bstart-tgemvmx-acc-add-001.asl:
    # BSTART.TGEMVMX.ACC FP16, all-zero B.FPATR, bindings (C 3, A 1) then (B 2, ->D, L) -> D = 11
    m = fp16_setup()
    before = m.snapshot()
    result = m.run(FP16_BUNDLE)
    assert result.fault is None
    d = m.snapshot().tiles[0]
    assert (d.dtype, d.layout, d.location, d.valid) == ("FP32", "CUBE_M16", "Matrix", (1, 1))
    assert d.words[0, 0] == 11 and d.defined.sum() == 1  # only the valid region, no padding
    for index in (1, 2, 3):  # sources persist
        assert not m.snapshot().differences(before) or index in m.snapshot().tiles
        assert np.array_equal(m.snapshot().tiles[index].words, before.tiles[index].words)


@pytest.mark.parametrize("atype,btype", list(itertools.product(MX, MX)))
def test_every_mx_pairing_pto_v0(atype, btype):
    # Every ordered MX pair is legal; a side carries E8M0 scales exactly when it is not
    # FP16/BF16 (digest §4.4). pto-v0: D = C + (a*sa)*(b*sb) on raw Words; with K = 2,
    # a = [2, 3], b = [5, 7], sa = 10, sb = 11, C = 1: 1 + 2*5*(sa*sb) + 3*7*(sa*sb).
    m = Machine()
    cube(m, 1, atype, (1, 2), "CUBE_M16", [[2, 3]])
    cube(m, 2, btype, (2, 1), "CUBE_N8", [[5], [7]])
    cube(m, 3, "FP32", (1, 1), "CUBE_M16", [[1]])
    sources = ["T3", "T1"]
    if atype in SCALED:
        scale(m, 4, (1, 1), [[10]])
        sources.append("T4")
    sources.append("T2")
    if btype in SCALED:
        scale(m, 5, (1, 1), [[11]])
        sources.append("T5")
    bindings = [f"B.IOT {', '.join(sources[i:i + 2])}, mask=1111" for i in range(0, len(sources) - 1, 2)]
    last = sources[-1] if len(sources) % 2 else None
    tail = f"B.IOT {last}, mask=1111, <last>, ->U<1>" if last else "B.IOT mask=1111, <last>, ->U<1>"
    datr = f"B.DATR {btype}; " if btype != atype else ""
    program = (f"BSTART.TGEMVMX.ACC {atype}; {datr}B.FPATR; B.DIM LB2=2; " + "; ".join(bindings)
               + f"; {tail}; BSTOP")
    result = m.run(program)
    assert result.fault is None, result.detail
    sa = 10 if atype in SCALED else 1
    sb = 11 if btype in SCALED else 1
    assert m.snapshot().tiles[16].words[0, 0] == 1 + (2 * sa) * (5 * sb) + (3 * sa) * (7 * sb)


def test_pto_v0_raw_products_wrap_modulo_2_64():
    # MultiplyWord keeps the low 64 bits: 0x8000000000000001 * 2 = 2 (mod 2**64); + C 1 = 3
    m = fp16_setup(c=1, a=0x8000000000000001, b=2)
    assert m.run(FP16_BUNDLE).fault is None
    assert m.snapshot().tiles[0].words[0, 0] == 3


# spec/evidence/pto-isa-0583-hardware-numeric-vectors.json, group "matrix":
#   {"id": "mx-k-block-33", "left_type": "E4M3", "right_type": "E5M2",
#    "logical_shape": {"M": 1, "N": 1, "K": 33}, "scale_a": ["0x7F", "0x80"],
#    "scale_b": ["0x7F", "0x81"], "unscaled_inputs": "all-one", "expected_acc": "40",
#    "expected_acc_with_prior_3": "43"}
def mx_k_block_33(profile, c_bits, scale_a=(0x7F, 0x80), scale_b=(0x7F, 0x81)):
    m = Machine(profile)
    cube(m, 1, "E4M3", (1, 33), "CUBE_M16", [[0x38] * 33], capacity=1024)  # E4M3 1.0
    cube(m, 2, "E5M2", (33, 1), "CUBE_N8", [[0x3C]] * 33, capacity=1024)  # E5M2 1.0
    cube(m, 3, "FP32", (1, 1), "CUBE_M16", [[c_bits]])
    scale(m, 4, (1, 2), [list(scale_a)])
    scale(m, 5, (2, 1), [[scale_b[0]], [scale_b[1]]])
    result = m.run("BSTART.TGEMVMX.ACC E4M3; B.DATR E5M2; B.FPATR; B.DIM LB2=33; "
                   "B.IOT T3, T1, mask=1111; B.IOT T4, T2, mask=1111; B.IOT T5, mask=1111, <last>, ->U<1>; BSTOP")
    assert result.fault is None, result.detail
    return m.snapshot()


def test_hw_mx_k_block_33():
    assert mx_k_block_33("hw-ieee", 0).tiles[16].words[0, 0] == 0x42200000  # 40.0
    snap = mx_k_block_33("hw-ieee", 0x40400000)  # prior C = 3.0
    assert snap.tiles[16].words[0, 0] == 0x422C0000  # 43.0
    assert snap.flags == 0
    assert snap.tiles[3].words[0, 0] == 0x40400000  # C persists


def test_hw_nan_scale_gives_canonical_nan():
    # matrix.mx.scale_order: a 0xFF scale makes the FP32 term and the ACC lane canonical NaN
    snap = mx_k_block_33("hw-ieee", 0, scale_a=(0x7F, 0xFF))
    assert snap.tiles[16].words[0, 0] == 0x7FC00000


def test_hw_e8m0_scale_decodes():
    # group "matrix" {"id": "mx-e8m0-scale", "base": "1.5", "e8m0": "0x80", "expected": "3.0"}:
    # E4M3 1.5 (0x3C) scaled by 2**(0x80-127) times FP16 1.0 into C = 0 -> 3.0
    m = Machine("hw-ieee")
    cube(m, 1, "E4M3", (1, 1), "CUBE_M16", [[0x3C]])
    cube(m, 2, "FP16", (1, 1), "CUBE_N8", [[0x3C00]])
    cube(m, 3, "FP32", (1, 1), "CUBE_M16", [[0]])
    scale(m, 4, (1, 1), [[0x80]])
    result = m.run("BSTART.TGEMVMX.ACC E4M3; B.DATR FP16; B.FPATR; "
                   "B.IOT T3, T1, mask=1111; B.IOT T4, T2, mask=1111, <last>, ->T<1>; BSTOP")
    assert result.fault is None and m.snapshot().tiles[0].words[0, 0] == 0x40400000


def test_hw_fp16_fma_rounds_each_step():
    # hw-ieee, K = 2 FP16 x FP16 into C = 2**24 (0x4B800000): 2**24 + 1 rounds (RNE, tie to
    # even) back to 2**24 and sets NX; the second + 1 likewise -> 2**24, flags NX. A single
    # exact dot product would give 2**24 + 2 (0x4B800001): the FMA order is observable.
    m = Machine("hw-ieee")
    cube(m, 1, "FP16", (1, 2), "CUBE_M16", [[0x3C00, 0x3C00]])
    cube(m, 2, "FP16", (2, 1), "CUBE_N8", [[0x3C00], [0x3C00]])
    cube(m, 3, "FP32", (1, 1), "CUBE_M16", [[0x4B800000]])
    result = m.run("BSTART.TGEMVMX.ACC FP16; B.FPATR; B.DIM LB2=2; B.IOT T3, T1, mask=1111; "
                   "B.IOT T2, mask=1111, <last>, ->T<1>; BSTOP")
    assert result.fault is None
    assert m.snapshot().tiles[0].words[0, 0] == 0x4B800000 and m.snapshot().flags == 0x10


def test_mask_zero_is_a_no_op():
    m = fp16_setup()
    before = m.snapshot()
    assert m.run("BSTART.TGEMVMX.ACC FP16; B.IOT T3, mask=0000, <last>, ->T<1>; BSTOP").fault is None
    assert m.snapshot().same_as(before)


@pytest.mark.parametrize("program,fault", [
    # B.FPATR absent in a Matrix block
    ("BSTART.TGEMVMX.ACC FP16; B.IOT T3, T1, mask=1111; B.IOT T2, mask=1111, <last>, ->T<1>; BSTOP",
     "Fault_BundleControl"),
    # a present B.DATR must name an MX BType: 0 = FP64, FP32 and DTYPE_NONE are rejected
    (FP16_BUNDLE.replace("B.FPATR;", "B.DATR RNE; B.FPATR;"), "Fault_TileLegality"),
    (FP16_BUNDLE.replace("B.FPATR;", "B.DATR FP32; B.FPATR;"), "Fault_TileLegality"),
    (FP16_BUNDLE.replace("B.FPATR;", "B.DATR DTYPE_NONE; B.FPATR;"), "Fault_TileLegality"),
    (FP16_BUNDLE.replace("B.FPATR;", "B.DATR FP16, ND2DN; B.FPATR;"), "Fault_TileLegality"),
    (FP16_BUNDLE.replace("TGEMVMX.ACC FP16", "TGEMVMX.ACC FP32"), "Fault_TileLegality"),
    # M is fixed to 1; TransA/TransB must be 0; the accumulator is FP32 (no S32 modes)
    (FP16_BUNDLE.replace("B.FPATR;", "B.FPATR; B.DIM LB0=2;"), "Fault_TileLegality"),
    (FP16_BUNDLE.replace("B.FPATR;", "B.FPATR TransA=1;"), "Fault_TileLegality"),
    (FP16_BUNDLE.replace("B.FPATR;", "B.FPATR PreQuantMode=4;"), "Fault_TileLegality"),
    # binding stream: one source too many / missing / no terminating L / B.IOS present
    (FP16_BUNDLE.replace("B.IOT T2,", "B.IOT T2, T2,"), "Fault_TileLegality"),
    (FP16_BUNDLE.replace("B.IOT T3, T1, mask=1111;", "B.IOT T1, mask=1111;"), "Fault_TileLegality"),
    (FP16_BUNDLE.replace(", <last>", ""), "Fault_TileLegality"),
    (FP16_BUNDLE.replace("B.IOT T3,", "B.IOS S1, mask=1111; B.IOT T3,"), "Fault_TileLegality"),
    # dimensions that the operands do not have
    (FP16_BUNDLE.replace("B.FPATR;", "B.FPATR; B.DIM LB1=2;"), "Fault_TileLegality"),
    (FP16_BUNDLE.replace("B.FPATR;", "B.FPATR; B.DIM LB2=0;"), "Fault_TileLegality"),
    # C's encoded index (T3 = 3) equals D's hand value (N = 3): rejected (SPEC-CHOICE)
    (FP16_BUNDLE.replace("->T<1>", "->N<1>"), "Fault_TileLegality"),
    # mode 0: C's capacity must equal D's TSize (128 B vs 256 B)
    (FP16_BUNDLE.replace("->T<1>", "->T<2>"), "Fault_TileLegality"),
    # the postprocess needs a scalar parameter word that is legal (FP19 scale, low bits 0)
    (FP16_BUNDLE.replace("B.FPATR;", "B.FPATR PreQuantMode=27; B.IOR R1;"), "Fault_TileLegality"),
])
def test_bundle_faults_leave_state_unchanged(program, fault):
    m = fp16_setup()
    m.set_gpr(1, 1)  # an illegal QuantParam word
    before = m.snapshot()
    result = m.run(program)
    assert result.fault == fault, result.detail
    assert m.snapshot().same_as(before)


def test_c_index_versus_d_hand():
    # digest §7.6: C = tile 1 with DstTile = T (0) is fine; the rename then gives D tile 0.
    m = Machine()
    cube(m, 2, "FP16", (1, 1), "CUBE_M16", [[2]])
    cube(m, 4, "FP16", (1, 1), "CUBE_N8", [[3]])
    cube(m, 1, "FP32", (1, 1), "CUBE_M16", [[5]])
    assert m.run("BSTART.TGEMVMX.ACC FP16; B.FPATR; B.IOT T1, T2, mask=1111; "
                 "B.IOT T4, mask=1111, <last>, ->T<1>; BSTOP").fault is None
    assert m.snapshot().tiles[0].words[0, 0] == 11


def test_operand_layout_and_type_faults():
    def run(a_layout="CUBE_M16", b_layout="CUBE_N8", c_layout="CUBE_M16", a_type="FP16"):
        m = Machine()
        cube(m, 1, a_type, (1, 1), a_layout, [[2]])
        cube(m, 2, "FP16", (1, 1), b_layout, [[3]])
        cube(m, 3, "FP32", (1, 1), c_layout, [[5]])
        return m.run(FP16_BUNDLE).fault
    assert run() is None
    assert run(a_layout="CUBE_M32", c_layout="CUBE_M32") is None  # D follows A: M32
    assert run(c_layout="CUBE_M32") == "Fault_TileLegality"  # C not in A's layout
    assert run(a_layout="CUBE_N8") == "Fault_TileLegality"
    assert run(b_layout="CUBE_M16") == "Fault_TileLegality"
    assert run(a_type="BF16") == "Fault_TileLegality"  # A is not the BSTART type


def test_m32_destination_layout():
    m = Machine()
    cube(m, 1, "FP16", (1, 1), "CUBE_M32", [[2]])
    cube(m, 2, "FP16", (1, 1), "CUBE_N8", [[3]])
    cube(m, 3, "FP32", (1, 1), "CUBE_M32", [[5]])
    assert m.run(FP16_BUNDLE).fault is None
    assert m.snapshot().tiles[0].layout == "CUBE_M32" and m.snapshot().tiles[0].words[0, 0] == 11


def test_destination_shape_needs_room():
    # D is M x N FP32 in A's layout; N = 9 needs 5 M16 cells (640 B) > TSize 128 B -> allocation
    m = Machine()
    cube(m, 1, "FP16", (1, 1), "CUBE_M16", [[2]])
    cube(m, 2, "FP16", (1, 9), "CUBE_N8", [[3] * 9], capacity=256)
    cube(m, 3, "FP32", (1, 9), "CUBE_M16", [[5] * 9], capacity=1024)
    before = m.snapshot()
    result = m.run(FP16_BUNDLE.replace("B.FPATR;", "B.FPATR PreQuantMode=27; B.IOR R1; B.DIM LB1=9;"))
    assert result.fault == "Fault_TileLegality"  # R1 = 0 is no legal scale word
    assert m.snapshot().same_as(before)
    m.set_gpr(1, 0x3F800000)  # FP19 1.0 in bits 31:13 with low bits 0: legal
    before = m.snapshot()
    result = m.run(FP16_BUNDLE.replace("B.FPATR;", "B.FPATR PreQuantMode=27; B.IOR R1; B.DIM LB1=9;"))
    assert result.fault == "Fault_TileAllocation"
    assert m.snapshot().same_as(before)


def test_postprocess_in_bundle_fp16_output_and_relu():
    # A = 0 makes the raw accumulator equal C, so D = postprocess(C): C = [1.5, -2.0, 3.0] FP32;
    # mode 1 (FP16) gives [0x3E00, 0xC000, 0x4200]; with ReLU 1 the negative lane becomes +0.
    def run(fpatr):
        m = Machine()
        cube(m, 1, "FP16", (1, 1), "CUBE_M16", [[0]])
        cube(m, 2, "FP16", (1, 3), "CUBE_N8", [[0, 0, 0]])
        cube(m, 3, "FP32", (1, 3), "CUBE_M16", [[0x3FC00000, 0xC0000000, 0x40400000]], capacity=256)
        result = m.run(FP16_BUNDLE.replace("B.FPATR;", f"B.FPATR {fpatr}; B.DIM LB1=3;"))
        assert result.fault is None, result.detail
        return m.snapshot().tiles[0]
    d = run("PreQuantMode=1")
    assert d.dtype == "FP16" and d.words[0, :3].tolist() == [0x3E00, 0xC000, 0x4200]
    d = run("PreQuantMode=1, ReluMode=1")
    assert d.words[0, :3].tolist() == [0x3E00, 0x0000, 0x4200]


def test_rowmax_and_groupmax_outputs():
    # RowMax over the raw accumulator (FP32 MAX), GroupMax per 8 columns: C = 10 values
    # [-1, 5, 2, -7, 0, 3, 1, 4, 6, -2] (FP32) with A = 0 -> RowMax 6.0, GroupMax [5.0, 6.0];
    # with MaxAbsEn -> RowMax |-7| = 7.0, GroupMax [7.0, 6.0].
    def fp32(v):
        return int(np.float32(v).view(np.uint32))
    values = [-1, 5, 2, -7, 0, 3, 1, 4, 6, -2]

    def run(fields):
        m = Machine()
        cube(m, 1, "FP16", (1, 1), "CUBE_M16", [[0]])
        cube(m, 2, "FP16", (1, 10), "CUBE_N8", [[0] * 10], capacity=256)
        cube(m, 3, "FP32", (1, 10), "CUBE_M16", [[fp32(v) for v in values]], capacity=1024)
        program = ("BSTART.TGEMVMX.ACC FP16; B.FPATR RowMaxEn=1, GroupMaxEn=1, GroupNCode=1" + fields
                   + "; B.DIM LB1=10; B.IOT T3, T1, mask=1111; B.IOT T2, mask=1111, ->T<4>; "
                   "B.IOT mask=1111, ->U<1>; B.IOT mask=1111, <last>, ->U<1>; BSTOP")
        result = m.run(program)
        assert result.fault is None, result.detail
        return m.snapshot()
    snap = run("")
    d, row, group = snap.tiles[0], snap.tiles[16], snap.tiles[17]
    assert d.words[0, :10].tolist() == [fp32(v) for v in values]  # mode 0: identity
    assert (row.dtype, row.layout, row.valid) == ("FP32", "RowMajor", (1, 1))
    assert row.words[0, 0] == fp32(6)
    assert group.valid == (1, 2) and group.words[0, :2].tolist() == [fp32(5), fp32(6)]
    snap = run(", MaxAbsEn=1")
    assert snap.tiles[16].words[0, 0] == fp32(7)
    assert snap.tiles[17].words[0, :2].tolist() == [fp32(7), fp32(6)]


def test_vector_quant_parameter_mode_28_hif8():
    # mode 28: vector FP19 scale per column, HiF8 output, RHB rounding. C = [1.0, 1.0] with
    # scales [1.0, 2.0] (FP19 in bits 31:13 of each U64 word) -> HiF8 1.0 = 0x08 and
    # 2.0 = 0x10 (HiF8 D1 body 16: 2**1 * (1 + 0/8)).
    m = Machine()
    cube(m, 1, "FP16", (1, 1), "CUBE_M16", [[0]])
    cube(m, 2, "FP16", (1, 2), "CUBE_N8", [[0, 0]])
    cube(m, 3, "FP32", (1, 2), "CUBE_M16", [[FP32_ONE, FP32_ONE]])
    m.configure_tile(5, dtype="U64", capacity=128, cols=2, valid=(1, 2))
    m.write_tile(5, [[0x3F800000, 0x40000000]])  # FP32 1.0 / 2.0 bit patterns: FP19 in 31:13
    result = m.run("BSTART.TGEMVMX.ACC FP16; B.FPATR PreQuantMode=28; B.DIM LB1=2; "
                   "B.IOT T3, T1, mask=1111; B.IOT T2, T5, mask=1111, <last>, ->T<1>; BSTOP")
    assert result.fault is None, result.detail
    d = m.snapshot().tiles[0]
    assert d.dtype == "HiF8" and d.words[0, :2].tolist() == [0x08, 0x10]


def test_direct_rules():
    m = fp16_setup()
    m.configure_tile(4, dtype="FP32", capacity=128, valid=(1, 1), layout="CUBE_M16")
    # SPEC-CHOICE: the direct rule requires D != C
    assert m.run([{"call": "TGEMV_MX_ACC", "dst": 3, "acc": 3, "a": 1, "b": 2}]).fault == "Fault_TileLegality"
    # a scaled side needs a legal E8M0 scale tile
    m2 = Machine()
    cube(m2, 1, "E4M3", (1, 1), "CUBE_M16", [[0x38]])
    cube(m2, 2, "FP16", (1, 1), "CUBE_N8", [[0x3C00]])
    cube(m2, 3, "FP32", (1, 1), "CUBE_M16", [[0]])
    m2.configure_tile(4, dtype="FP32", capacity=128, valid=(1, 1), layout="CUBE_M16")
    call = {"call": "TGEMV_MX_ACC", "dst": 4, "acc": 3, "a": 1, "b": 2, "btype": "FP16"}
    assert m2.run([call]).fault == "Fault_TileLegality"
    scale(m2, 5, (1, 1), [[0x7F]])
    assert m2.run([dict(call, a_scale=5)]).fault is None
    assert m2.snapshot().tiles[4].words[0, 0] == 0x38 * 0x7F * 0x3C00  # pto-v0 raw products
