"""The CUBE flow (device_model/ops/cube.py) and its twelve declarations (ops/matmul.py):
function roles, input classes, both profiles' arithmetic on hand-derived values, the bias
after the dot product, M bounds, rejection leaving the state untouched, Shared operands (TransA/TransB, schema faults)."""
from __future__ import annotations

import numpy as np
import pytest

from pto_avs.device_model.machine import Machine
from pto_avs.device_model.ops import cube, registry

FP16 = {1: 0x3C00, 2: 0x4000, 3: 0x4200, 0.5: 0x3800, 0.75: 0x3A00}
FP32 = {0: 0x0, 1: 0x3F800000, 5: 0x40A00000, 6: 0x40C00000, 11: 0x41300000, 2**24: 0x4B800000}

ROLES = {  # name -> (function, MX, BIAS, ACC, GEMV) from matrix-functions.asl
    "TMATMUL": (0, 0, 0, 0, 0), "TMATMUL_BIAS": (1, 0, 1, 0, 0), "TMATMUL_ACC": (2, 0, 0, 1, 0),
    "TMATMUL_MX": (4, 1, 0, 0, 0), "TMATMUL_MX_BIAS": (5, 1, 1, 0, 0), "TMATMUL_MX_ACC": (6, 1, 0, 1, 0),
    "TGEMV": (16, 0, 0, 0, 1), "TGEMV_BIAS": (17, 0, 1, 0, 1), "TGEMV_ACC": (18, 0, 0, 1, 1),
    "TGEMV_MX": (20, 1, 0, 0, 1), "TGEMV_MX_BIAS": (21, 1, 1, 0, 1), "TGEMV_MX_ACC": (22, 1, 0, 1, 1),
}


@pytest.mark.parametrize("name", sorted(ROLES))
def test_each_declaration_takes_its_roles_from_its_function_number(name):
    op = registry.find(name)
    assert (op.FUNCTION, op.mx, op.bias, op.acc, op.gemv) == ROLES[name]
    assert op.MATRIX and registry.operation_of_form(op.BSTART) == name
    assert ("acc" in op.DIRECT_ARGUMENTS) == bool(op.acc) and ("bias" in op.DIRECT_ARGUMENTS) == bool(op.bias)


@pytest.mark.parametrize("left, right, expected", [
    ("FP16", "HiF8", "FP32"), ("TF32", "E2M1X2", "FP32"), ("S8", "S4X2", "S32"), ("U16", "U4X2", "U32"),
    ("S8", "U8", None), ("FP16", "S16", None), ("FP64", "FP64", None), ("S32", "S32", None), ("HiF4X2", "FP16", None),
])
def test_ordinary_pairs_accumulate_in_their_class(left, right, expected):
    assert cube.ordinary_accumulator(left, right) == expected


def _cube(m, index, dtype, layout, data):
    m.configure_tile(index, dtype=dtype, capacity=512, valid=(len(data), len(data[0])), layout=layout)
    m.write_tile(index, np.array(data, dtype=np.uint64))


def _machine(profile, a_type, a, b_type, b, layout="CUBE_M16", c=None, acc_type="FP32"):
    m = Machine(profile=profile)
    _cube(m, 1, a_type, layout, a)
    _cube(m, 2, b_type, "CUBE_N8", b)
    if c is not None:
        _cube(m, 3, acc_type, layout, c)
    return m


def _d(m, index=0):
    return m.snapshot().tiles[index].words.tolist()


def _block(bstart, m, n, k, sources, size=1, btype=None):
    lines = [bstart, "B.FPATR"] + ([f"B.DATR {btype}"] if btype else [])
    lines += [f"B.DIM LB0={m}", f"B.DIM LB1={n}", f"B.DIM LB2={k}"]
    lines += [f"B.IOT {', '.join(f'T{s}' for s in sources[i:i + 2])}, mask=1111" for i in range(0, len(sources), 2)]
    return "\n".join(lines + [f"B.IOT mask=1111, <last>, ->T<{size}>", "BSTOP"])


def test_pto_v0_multiplies_raw_words_the_spec_test_way():
    """TMATMUL-EXEC-001's operands: raw FP16 Words 2 and 3 give the Word 6 (MultiplyWord)."""
    m = _machine("pto-v0", "FP16", [[2]], "FP16", [[3]])
    assert m.run(_block("BSTART.TMATMUL FP16", 1, 1, 1, [1, 2], size=3)).fault is None
    assert _d(m)[0][0] == 6


def test_hw_ieee_rounds_once_per_k_step_in_increasing_k():
    """2^24 + 1*0.75 + 1*0.75: each fused step rounds back to 2^24 (NX); one rounding of the
    exact sum 2^24 + 1.5 would give 2^24 + 2."""
    m = _machine("hw-ieee", "FP16", [[FP16[1], FP16[1]]], "FP16", [[FP16[0.75]], [FP16[0.75]]],
                 c=[[FP32[2**24]]])
    assert m.run(_block("BSTART.TMATMUL.ACC FP16", 1, 1, 2, [3, 1, 2], size=3)).fault is None
    assert _d(m)[0][0] == FP32[2**24]
    assert m.snapshot().flags == 0x10  # NX


def test_bias_is_added_after_the_dot_product():
    """Products 0.5 + 0.5 = 1.0 exactly, then the bias 2^24 + 2: 2^24 + 3 ties to 2^24 + 4 (even).
    Added first, the bias would absorb each 0.5 (2^24 + 2.5 rounds to 2^24 + 2) and D stay 2^24 + 2."""
    m = _machine("hw-ieee", "FP16", [[FP16[1], FP16[1]]], "FP16", [[FP16[0.5]], [FP16[0.5]]])
    m.configure_tile(3, "FP32", capacity=128, cols=8, valid=(1, 1))
    m.write_tile(3, np.array([[0x4B800001]], dtype=np.uint64))  # 2^24 + 2
    assert m.run(_block("BSTART.TMATMUL.BIAS FP16", 1, 1, 2, [1, 2, 3], size=3)).fault is None
    assert _d(m)[0][0] == 0x4B800002


def test_hw_ieee_integer_accumulation_wraps_at_32_bits_and_pto_v0_does_not():
    a = [[0x7FFF, 0x7FFF]]  # S16 32767
    b = [[0x7FFF], [0x7FFF]]
    c = [[0x7FFFFFFF]]
    exact = 0x7FFFFFFF + 2 * 32767 * 32767
    hw = _machine("hw-ieee", "S16", a, "S16", b, c=c, acc_type="S32")
    assert hw.run(_block("BSTART.TMATMUL.ACC S16", 1, 1, 2, [3, 1, 2], size=3)).fault is None
    low = exact & 0xFFFFFFFF
    assert _d(hw)[0][0] == ((low - (1 << 32)) & (2**64 - 1) if low >> 31 else low)
    assert hw.snapshot().flags == 0
    v0 = _machine("pto-v0", "S16", a, "S16", b, c=c, acc_type="S32")
    assert v0.run(_block("BSTART.TMATMUL.ACC S16", 1, 1, 2, [3, 1, 2], size=3)).fault is None
    assert _d(v0)[0][0] == exact


def test_m_up_to_the_cube_m32_bound():
    a = [[FP16[1]]] * 32
    m = _machine("hw-ieee", "FP16", a, "FP16", [[FP16[3], FP16[2]]], layout="CUBE_M32")
    assert m.run(_block("BSTART.TMATMUL FP16", 32, 2, 1, [1, 2], size=3)).fault is None
    d = m.snapshot().tiles[0]
    assert d.layout == "CUBE_M32" and d.valid == (32, 2)
    assert d.words[:32, :2].tolist() == [[0x40400000, 0x40000000]] * 32


@pytest.mark.parametrize("bstart, m_rows, layout", [("BSTART.TGEMV FP16", 2, "CUBE_M16"),
                                                    ("BSTART.TMATMUL FP16", 17, "CUBE_M16")])
def test_m_past_the_form_or_layout_bound_faults_and_changes_nothing(bstart, m_rows, layout):
    m = _machine("pto-v0", "FP16", [[1]] * min(m_rows, 16), "FP16", [[1]], layout=layout)
    before = m.snapshot()
    result = m.run(_block(bstart, m_rows, 1, 1, [1, 2], size=3))
    assert result.fault == "Fault_TileLegality" and not before.differences(m.snapshot())


def _shared_block(bstart, m, n, k, ios, locals_=(), fpatr="B.FPATR", size=1):
    lines = [bstart, fpatr, f"B.DIM LB0={m}", f"B.DIM LB1={n}", f"B.DIM LB2={k}"]
    lines += [f"B.IOS S{s}, mask=1111" for s in ios]
    lines += [f"B.IOT T{t}, mask=1111" for t in locals_] + [f"B.IOT mask=1111, <last>, ->T<{size}>", "BSTOP"]
    return "\n".join(lines)


def _shared(m, index, dtype, rows):
    m.configure_shared_tile(index, dtype=dtype, capacity=128, cols=len(rows[0]), valid=(len(rows), len(rows[0])))
    m.write_shared_tile(index, np.array(rows, dtype=np.uint64))


A_S8 = [[1, 2, 3, 4], [5, 6, 7, 8]]
STORED_B = [[1, 0, 0, 1], [0, 1, 1, 0]]  # S5: N x K = 2 x 4


@pytest.mark.parametrize("profile", ["pto-v0", "hw-ieee"])
def test_a_shared_b_under_transb_is_read_transposed(profile):
    m = Machine(profile=profile)
    _cube(m, 1, "S8", "CUBE_M16", A_S8)
    _shared(m, 5, "S8", STORED_B)
    result = m.run(_shared_block("BSTART.TMATMUL S8", 2, 2, 4, [5], [1], "B.FPATR TransB=1"))
    assert result.fault is None
    d = m.snapshot().tiles[0]
    assert d.dtype == "S32" and d.layout == "CUBE_M16"
    assert d.words[:2, :2].tolist() == [[5, 5], [13, 13]]  # B = S5^T: columns (1,0,0,1) and (0,1,1,0)


def test_both_groups_shared_take_the_layout_of_m_and_transa():
    m = Machine(profile="pto-v0")
    _shared(m, 5, "S8", [[1, 5], [2, 6], [3, 7], [4, 8]])  # A stored K x M under TransA
    _shared(m, 6, "S8", [[1, 0], [0, 1], [0, 1], [1, 0]])  # B as stored, K x N
    assert m.run(_shared_block("BSTART.TMATMUL S8", 2, 2, 4, [5, 6], (), "B.FPATR TransA=1")).fault is None
    d = m.snapshot().tiles[0]
    assert d.layout == "CUBE_M16" and d.words[:2, :2].tolist() == [[5, 5], [13, 13]]


@pytest.mark.parametrize("bstart, m_, n, k, ios, locals_, fpatr", [
    ("BSTART.TMATMUL S8", 2, 3, 4, [5], [1], "B.FPATR TransB=1"),      # N not a power of two
    ("BSTART.TMATMUL S8", 2, 2, 4, [5], [1], "B.FPATR TransA=1"),      # TransA with a Local A
    ("BSTART.TMATMUL S8", 2, 2, 4, [5], [1], "B.FPATR"),               # S5 stores N x K, read K x N
    ("BSTART.TMATMUL S8", 2, 2, 4, [9], [1], "B.FPATR TransB=1"),      # S9 not configured
    ("BSTART.TMATMUL S8", 2, 2, 4, [5, 6, 7], (), "B.FPATR TransB=1"),  # neither one group nor both
    ("BSTART.TGEMV S8", 1, 2, 4, [5], [1], "B.FPATR TransB=1"),        # TGEMV is Local-only
])
def test_shared_schema_faults_change_nothing(bstart, m_, n, k, ios, locals_, fpatr):
    m = Machine(profile="pto-v0")
    _cube(m, 1, "S8", "CUBE_M16", A_S8 if m_ == 2 else A_S8[:1])
    _shared(m, 5, "S8", STORED_B)
    before = m.snapshot()
    result = m.run(_shared_block(bstart, m_, n, k, ios, locals_, fpatr))
    assert result.fault == "Fault_TileLegality" and not before.differences(m.snapshot())


def test_a_shared_register_on_three_pes_is_not_cooperative_ready():
    m = Machine(profile="pto-v0")
    _cube(m, 1, "S8", "CUBE_M16", A_S8)
    m.configure_shared_tile(5, dtype="S8", capacity=128, cols=4, valid=(2, 4), mask="0111")
    m.write_shared_tile(5, np.array(STORED_B, dtype=np.uint64))
    assert m.run(_shared_block("BSTART.TMATMUL S8", 2, 2, 4, [5], [1], "B.FPATR TransB=1")).fault == \
        "Fault_TileLegality"


@pytest.mark.parametrize("form, fault", [("INSERT", "Fault_TileLegality"), ("PUBLISH", None)])
def test_a_new_register_left_unpublished_by_insert_is_not_a_shared_source(form, fault):
    # SharedTileCooperativeMatrixReady asks `published`: TMOV.L2S.INSERT into a new register
    # leaves it unpublished (AtomicUpdateSharedTileWithPublication), .PUBLISH publishes it.
    m = Machine(profile="pto-v0")
    _cube(m, 1, "S8", "CUBE_M16", A_S8)
    m.configure_tile(2, dtype="S8", capacity=128, cols=4, valid=(2, 4), layout="RowMajor", location="Any", mask="1111")
    rows, cols = m.tile_shape(2)
    words = np.zeros((rows, cols), dtype=np.uint64)
    words[:2] = STORED_B
    m.write_tile(2, words, np.ones((rows, cols), dtype=bool))
    assert m.run(f"BSTART.TMOV.L2S.{form} S8\nB.IOT T2, mask=1111, <last>\nB.IOS mask=1111, ->S5<1>\nBSTOP").fault is None
    before = m.snapshot()
    result = m.run(_shared_block("BSTART.TMATMUL S8", 2, 2, 4, [5], [1], "B.FPATR TransB=1"))
    assert result.fault == fault
    if fault:
        assert not before.differences(m.snapshot())
    else:
        assert m.snapshot().tiles[0].words[:2, :2].tolist() == [[5, 5], [13, 13]]
