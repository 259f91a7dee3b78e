"""The block state machine through the Machine API: header order, duplicates,
commit points, destination rename, capacity, rollback, strict no-ops, fault
classes, atomicity.

Expected behaviour: asl/block/model/dispatch/commands.asl, start.asl,
tile-execution.asl, destination-shape.asl (digest §4 steps 1-12, §5), and the
spec tests cited per test (tests/asl/tile/**, tests/asl/block/**).
"""
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from model_support import unregistered_tepl_operation
from pto_avs.device_model.machine import Machine

TCVT_U8 = "BSTART.VEC TCVT, U8"


def u8_source(m, index=1, cols=8, valid=(1, 2), data=((7, 9),)):
    m.configure_tile(index, dtype="U8", capacity=128, cols=cols, valid=valid)
    m.write_tile(index, [list(row) for row in data])


def machine_with_source():
    m = Machine()
    u8_source(m)
    return m


def test_tcvt_bundle_001_through_words():
    # PTO-AVS-TILE-TCVT-BUNDLE-001: BSTART 0xD9B19181; B.DATR (DT 26, layout 1, pad 11);
    # LB0 = 2, LB2 = 8; B.IOT(hand T, size 2, 1111, src 1, L).
    m = machine_with_source()
    result = m.run([0xD9B19181, 0x19A010A3, 0x00200043, 0x00802043, 0x00195E13, 0x00000001])
    assert result.fault is None
    snap = m.snapshot()
    dst = snap.tiles[0]  # renamed to the first free index of hand T
    assert (dst.dtype, dst.layout, dst.rows, dst.cols) == ("U16", "ColumnMajor", 16, 8)
    assert dst.words[0, 0] == 7 and dst.words[0, 1] == 9
    assert dst.storage[16] == 9  # payload[16]: ColumnMajor index of (0, 1) with 16 rows
    assert snap.tiles[1].words[0, 0] == 7 and snap.tiles[1].words[0, 1] == 9  # source persists
    assert dst.location == "Any" and dst.mask == "1111" and dst.capacity == 256


def test_bstop_without_block_is_bundle_control():
    assert Machine().run("BSTOP").fault == "Fault_BundleControl"
    assert Machine().run("C.BSTOP").fault == "Fault_BundleControl"


@pytest.mark.parametrize("program", [
    "B.DATR U8",  # outside an active header
    "B.DIM LB0=1",
    "B.IOR R1",
    "B.IOT T1, mask=1111, <last>, ->T<1>",
    "B.FPATR",
    f"{TCVT_U8}; B.DATR U8; B.DATR U8",  # duplicates
    f"{TCVT_U8}; B.DIM LB0=1; B.DIM LB0=2",
    f"{TCVT_U8}; B.DIM LB1=1; C.B.DIMI LB1=2",
    f"{TCVT_U8}; B.IOR zero; B.IOR zero",
    f"{TCVT_U8}; B.IOT T1, mask=1111, <last>, ->T<1>; B.IOT T2, mask=1111, <last>, ->T<1>",
    f"{TCVT_U8}; B.FPATR",  # B.FPATR in a TEPL (non-Matrix) block
    "BSTART.TGEMVMX.ACC FP16; B.IOT T1, mask=1111; B.FPATR",  # after a binding
    "BSTART.TGEMVMX.ACC FP16; B.IOR zero; B.FPATR",  # after B.IOR
    "BSTART.TGEMVMX.ACC FP16; B.FPATR; B.FPATR",  # duplicate
    "B.IOS S1, mask=1111",  # outside a header
])
def test_placement_and_duplicates_are_bundle_control(program):
    m = machine_with_source()
    before = m.snapshot()
    result = m.run(program)
    assert result.fault == "Fault_BundleControl", result.detail
    assert m.snapshot().same_as(before)


def test_binding_mask_mismatch_is_tile_legality():
    m = machine_with_source()
    result = m.run(f"{TCVT_U8}; B.IOT T1, mask=1111; B.IOT T2, mask=1100, <last>, ->T<1>")
    assert result.fault == "Fault_TileLegality"


def test_seventeenth_binding_is_tile_legality():
    # PTO_BUNDLE_TILE_BINDING_COUNT = 16 (digest §5.5)
    program = [TCVT_U8] + ["B.IOT T1, mask=1111"] * 16
    m = machine_with_source()
    assert m.run(program).fault is None
    assert Machine().run(program + ["B.IOT T1, mask=1111"]).fault == "Fault_TileLegality"


def test_fpatr_cross_field_rules_are_tile_legality():
    for fields in ("RowMaxInit=1", "GroupMaxEn=1", "GroupNCode=1", "MaxAbsEn=1"):
        result = Machine().run(f"BSTART.TGEMVMX.ACC FP16; B.FPATR {fields}")
        assert result.fault == "Fault_TileLegality", fields
    assert Machine().run("BSTART.TGEMVMX.ACC FP16; B.FPATR RowMaxEn=1, RowMaxInit=1, MaxAbsEn=1").fault is None


def test_b_dim_adds_gpr_and_keeps_low_16_bits():
    # block-bound-b-dim-gpr-001: GPR23 = 5, uimm 7 -> LB0 = 12 (a 12-column source matches;
    # 12 is no power of two, so the destination shape fails allocation, after the schema passed).
    m = Machine()
    u8_source(m, cols=16, valid=(1, 12), data=[range(12)])
    m.set_gpr(23, 5)
    result = m.run(f"{TCVT_U8}; B.DIM LB0=R23+7; B.DIM LB2=16; B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP")
    assert result.fault is None and m.snapshot().tiles[0].valid == (1, 12)
    # block-bound-b-dim-low-16-001: GPR23 = 65535, uimm 1 -> LB0 = 0 -> TCVT schema rejects LB0 = 0
    m = machine_with_source()
    m.set_gpr(23, 65535)
    result = m.run(f"{TCVT_U8}; B.DIM LB0=R23+1; B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP")
    assert result.fault == "Fault_TileLegality"


def test_c_b_dimi_sets_dimensions():
    m = machine_with_source()
    result = m.run(f"{TCVT_U8}; C.B.DIMI LB0=2; C.B.DIMI LB2=8; B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP")
    assert result.fault is None and m.snapshot().tiles[0].valid == (1, 2)


def test_unassigned_tepl_selector_is_illegal_instruction():
    # block-fault-bstart-tepl-reserved-001: Mode 0 Function 5 (0x00519181) is a selector hole;
    # DataType 15 (0x78019181) and 31 (0xF8019181) are reserved.
    for word in (0x00519181, 0x78019181, 0xF8019181):
        m = machine_with_source()
        before = m.snapshot()
        result = m.run([word])
        assert result.fault == "Fault_IllegalInstruction"
        assert m.snapshot().same_as(before)


def test_reserved_field_in_open_block_is_illegal_instruction_and_keeps_state():
    m = machine_with_source()
    before = m.snapshot()
    result = m.run([0xD9B19181, 0x00001023 | 6 << 29])  # B.DATR CMode 6
    assert result.fault == "Fault_IllegalInstruction" and result.step == 1
    assert m.snapshot().same_as(before)


def test_mask_zero_is_a_strict_no_op():
    # PTO-AVS-TILE-TQUANT-MASK-ZERO-001: only BSTART and a zero-mask B.IOT (src 63) -> completes,
    # no fault, tile 0 not allocated; nothing about the (absent) source is checked.
    m = Machine()
    result = m.run("BSTART.SFU TQUANT, FP32; B.IOT N15, mask=0000, <last>, ->T<1>; BSTOP")
    assert result.fault is None and 0 not in m.snapshot().tiles
    # still a no-op with every other header field present and illegal for the operation
    result = m.run("BSTART.SFU TQUANT, FP32; B.DATR U16, CMode=NE; B.DIM LB0=0; B.IOR R5, R6, R7, ->R1; "
                   "B.IOT N15, mask=0000, <last>, ->T<1>; BSTOP")
    assert result.fault is None and not m.snapshot().tiles
    # block-exec-b-fpatr-zero-mask-order-001: zero-mask B.IOT/B.IOS install nothing, so a
    # B.FPATR may still follow them
    result = m.run("BSTART.TGEMVMX.ACC FP16; B.IOT T0, mask=0000; B.IOS S0, mask=0000; B.FPATR; BSTOP")
    assert result.fault is None and not m.snapshot().tiles


@pytest.mark.parametrize("start", ["BSTART.VEC TCVT, U8", "BSTART.SFU TQUANT, FP32", "BSTART.VEC TMULS, U8",
                                   "BSTART.TGEMVMX.ACC FP16"])
def test_cube_transport_layout_routes_to_tlsu_and_is_illegal(start):
    # tile-execution.asl: BundleCubeTransportSelected (present B.DATR, Layout 21..26) is checked
    # right after the zero-participation no-op, before every operation-specific check; the
    # TLSU decode of these operations' codes fails (tlsu-layout-conversion.asl).
    m = machine_with_source()
    before = m.snapshot()
    assert m.run(f"{start}; B.DATR DTYPE_NONE, ND2M16; BSTOP").fault == "Fault_IllegalInstruction"
    assert m.snapshot().same_as(before)


def test_missing_binding_is_bundle_control():
    # BundleOperationBindingsComplete: one destination and one source are required
    m = machine_with_source()
    assert m.run(f"{TCVT_U8}; B.DIM LB0=2; BSTOP").fault == "Fault_BundleControl"
    assert m.run(f"{TCVT_U8}; B.DIM LB0=2; B.IOT T1, mask=1111; BSTOP").fault == "Fault_BundleControl"
    assert m.run(f"{TCVT_U8}; B.DIM LB0=2; B.IOT T1, mask=1111, ->T<1>; BSTOP").fault == \
        "Fault_BundleControl"  # stream not terminated (no L)
    assert m.run(f"{TCVT_U8}; B.DIM LB0=2; B.IOT T1, T2, mask=1111, <last>, ->T<1>; BSTOP").fault == \
        "Fault_BundleControl"  # two sources


def test_surplus_b_ior_field_is_bundle_control_before_schema():
    # digest §7.8: a nonzero B.IOR field fails the binding-completeness check (BundleControl)
    # before TCVT's closed schema rejects any B.IOR (TileLegality).
    m = machine_with_source()
    body = "B.DIM LB0=2; B.DIM LB2=8; B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP"
    assert m.run(f"{TCVT_U8}; B.IOR R1; {body}").fault == "Fault_BundleControl"
    assert m.run(f"{TCVT_U8}; B.IOR zero; {body}").fault == "Fault_TileLegality"
    assert m.run(f"{TCVT_U8}; B.IOR zero, ->R2; {body}").fault == "Fault_BundleControl"


def test_rename_picks_first_free_index_of_the_hand():
    m = machine_with_source()
    m.configure_tile(0, dtype="U8", capacity=128, cols=8, valid=(1, 1))
    m.configure_tile(2, dtype="U8", capacity=128, cols=8, valid=(1, 1))
    body = "B.DIM LB0=2; B.DIM LB2=8; B.IOT T1, mask=1111, <last>"
    assert m.run(f"{TCVT_U8}; {body}, ->T<1>; BSTOP").fault is None
    assert m.snapshot().tiles[3].dtype == "U8"  # 0, 1, 2 are allocated
    assert m.run(f"{TCVT_U8}; {body}, ->U<1>; BSTOP").fault is None
    assert 16 in m.snapshot().tiles
    assert m.run(f"{TCVT_U8}; {body}, ->N<1>; BSTOP").fault is None
    assert 48 in m.snapshot().tiles


def test_full_hand_is_tile_allocation():
    m = Machine()
    for index in range(16, 32):
        u8_source(m, index)
    before = m.snapshot()
    result = m.run(f"{TCVT_U8}; B.DIM LB0=2; B.DIM LB2=8; B.IOT U1, mask=1111, <last>, ->U<1>; BSTOP")
    assert result.fault == "Fault_TileAllocation"
    assert m.snapshot().same_as(before)


def test_capacity_accounting_over_pe_mask():
    # popcount(mask) * TSize is charged against tile_capacity (digest §3.6)
    m = Machine()
    m.set_tile_capacity(128 * 6)
    u8_source(m)  # mask 1111: 4 x 128
    assert m.snapshot().tile_capacity_in_use == 512
    body = "B.DIM LB0=2; B.DIM LB2=8; B.IOT T1, mask=1100, <last>, ->T<1>; BSTOP"
    # the source was allocated with mask 1111, so use a 1100 source for equal masks
    m.configure_tile(1, dtype="U8", capacity=128, cols=8, valid=(1, 2), mask="1100")
    m.write_tile(1, [[7, 9]])
    assert m.snapshot().tile_capacity_in_use == 256
    assert m.run(f"{TCVT_U8}; {body}").fault is None  # 256 + 2 x 128 <= 768
    assert m.snapshot().tile_capacity_in_use == 512
    assert m.run(f"{TCVT_U8}; {body}").fault is None  # 768
    before = m.snapshot()
    assert m.run(f"{TCVT_U8}; {body}").fault == "Fault_TileAllocation"  # 1024 > 768
    assert m.snapshot().same_as(before)


def test_late_fault_rolls_back_the_allocation():
    # TSize 256 gives the U8 destination 32 rows while the source has 16: the closed
    # schema passes, allocation succeeds, TileOperandsLegal_TCVT rejects (digest §7.8).
    m = machine_with_source()
    before = m.snapshot()
    result = m.run(f"{TCVT_U8}; B.DIM LB0=2; B.DIM LB2=8; B.IOT T1, mask=1111, <last>, ->T<2>; BSTOP")
    assert result.fault == "Fault_TileLegality"
    assert m.snapshot().same_as(before)


def test_too_small_tsize_or_bad_columns_is_tile_allocation():
    # digest §7.8: TCVT's closed schema never compares LB2 with the source; a TSize
    # that cannot hold Col columns, or a Col that is not a power of two, fails the
    # destination shape check before allocation (Fault_TileAllocation).
    m = Machine()
    m.configure_tile(1, dtype="FP32", capacity=512, cols=8, valid=(1, 8))
    m.write_tile(1, [list(range(8))])
    before = m.snapshot()
    for lb2 in (64, 12):  # 64 FP32 columns need 256 B per row (TSize 128 B); 12 is no power of two
        result = m.run(f"BSTART.VEC TCVT, FP32; B.DIM LB0=8; B.DIM LB2={lb2}; "
                       "B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP")
        assert result.fault == "Fault_TileAllocation", lb2
        assert m.snapshot().same_as(before)


def test_next_bstart_commits_the_open_block():
    m = machine_with_source()
    body = "B.DIM LB0=2; B.DIM LB2=8; B.IOT T1, mask=1111, <last>, ->U<1>"
    result = m.run(f"{TCVT_U8}; {body}; {TCVT_U8}; {body}; BSTOP")
    assert result.fault is None
    assert {16, 17} <= set(m.snapshot().tiles)


def test_open_block_at_end_is_not_committed():
    m = machine_with_source()
    result = m.run(f"{TCVT_U8}; B.DIM LB0=2; B.DIM LB2=8; B.IOT T1, mask=1111, <last>, ->U<1>")
    assert result.fault is None and "open" in result.detail
    assert 16 not in m.snapshot().tiles
    assert m.run("BSTOP").fault is None  # a later run may close it
    assert 16 in m.snapshot().tiles


def test_unmodelled_instructions_stop_without_fault():
    m = machine_with_source()
    with unregistered_tepl_operation() as unmodelled:
        result = m.run([f"BSTART.TEPL {unmodelled}, FP32", "BSTOP"])
    assert result.fault is None and result.stopped and result.step == 0
    result = m.run([0x00001001])  # BSTART.STD FALL (catalog form 28)
    assert result.fault is None and result.stopped


def test_assembly_errors_raise_before_executing():
    m = machine_with_source()
    before = m.snapshot()
    with pytest.raises(ValueError, match="B.IOT"):
        m.run(f"{TCVT_U8}; B.DIM LB0=2; B.IOT T1, mask=11, <last>, ->T<1>; BSTOP")
    with pytest.raises(ValueError, match="direct"):
        m.run([{"call": "TCVT", "dst": 0}])
    with pytest.raises(ValueError):
        m.run([1 << 32])
    assert m.snapshot().same_as(before)


def test_setup_errors_are_value_errors():
    m = Machine()
    with pytest.raises(ValueError, match="capacity"):
        m.configure_tile(0, dtype="U8", capacity=100, cols=8)
    with pytest.raises(ValueError, match="columns"):
        m.configure_tile(0, dtype="U8", capacity=128, cols=6)
    with pytest.raises(ValueError, match="ZN"):
        m.configure_tile(0, dtype="U8", capacity=128, cols=8, layout="ZN")
    with pytest.raises(ValueError, match="Matrix"):
        m.configure_tile(0, dtype="FP16", capacity=128, valid=(1, 1), layout="CUBE_M16", location="Any")
    with pytest.raises(ValueError, match="profile"):
        Machine(profile="ieee")
    with pytest.raises(ValueError, match="not configured"):
        m.write_tile(5, [[1]])


def test_packed_tile_keeps_element_bits_and_u4x2_capacity():
    # PTO-AVS-TILE-TCVT-CAPACITY-001: 8 KiB U4X2 with 128 columns has 128 rows (16384 nibbles);
    # after the valid region is written, all 16384 are defined and (127, 127) is defined.
    m = Machine()
    m.configure_tile(0, dtype="U4X2", capacity=8192, cols=128, valid=(128, 128))
    m.write_tile(0, np.full((128, 128), 0x1F, dtype=np.uint64))
    view = m.snapshot().tiles[0]
    assert (view.rows, view.cols) == (128, 128)
    assert view.defined.sum() == 16384 and view.defined[127, 127]
    assert view.words[0, 0] == 0xF  # packed carrier: only the 4 element bits are kept


def test_non_packed_tile_keeps_the_whole_word():
    # digest §3.4: a non-packed S8 tile keeps the 64-bit Word written (-56 sign-extended)
    m = Machine()
    m.configure_tile(0, dtype="S8", capacity=128, cols=8, valid=(1, 1))
    m.write_tile(0, [[0xFFFFFFFFFFFFFFC8]])
    view = m.snapshot().tiles[0]
    assert view.words[0, 0] == 0xFFFFFFFFFFFFFFC8 and view.storage[0] == 0xC8


# ----------------------------------------------------------------------------
# Properties

WORDS_OF_INTEREST = [
    0xD9B19181, 0x19A010A3, 0x00200043, 0x00802043, 0x00195E13, 0x00185E13, 0x00000001, 0x0000,
    0x0EA19181, 0x0A219181, 0x21631181, 0x00002023, 0x00000013, 0x00105013, 0x00001023, 0x003C,
    0x00001013, 0x01B19181, 0x00519181,
]


def _program_items():
    word = st.one_of(st.sampled_from(WORDS_OF_INTEREST), st.integers(0, 0xFFFFFFFF),
                     st.integers(0, 0xFFFF).map(lambda w: w & ~1))
    return st.lists(word, min_size=1, max_size=12)


def _setup(profile="pto-v0"):
    m = Machine(profile)
    u8_source(m)
    m.configure_tile(2, dtype="FP32", capacity=128, cols=2, valid=(1, 2))
    m.write_tile(2, [[0x3F800000, 0x40000000]])
    m.set_gpr(1, 3)
    return m


@pytest.mark.slow  # hypothesis: many random word sequences
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_program_items())
def test_any_word_sequence_ends_in_observation_or_fault(items):
    m = _setup()
    result = m.run(items)
    assert result.fault in (None, "Fault_IllegalInstruction", "Fault_BundleControl", "Fault_TileLegality",
                            "Fault_TileAllocation")
    if result.fault is not None or result.stopped:
        # the faulting/stopping instruction published nothing: replaying only the steps
        # before it gives the same architectural state
        replay = _setup()
        replay.run(items[: result.step])
        assert m.snapshot().same_as(replay.snapshot()), m.snapshot().differences(replay.snapshot())


def test_machines_configured_alike_share_no_contents():
    """configure_tile hands every machine the same blank tile for a descriptor (cached): a write
    on one machine must leave another machine's tile, and a later configuration, blank."""
    first, second = Machine(), Machine()
    for machine in (first, second):
        machine.configure_tile(3, dtype="U32", capacity=256, cols=16, valid=(4, 16))
    first.write_tile(3, np.full((4, 16), 7, dtype=np.uint64))
    assert (first.snapshot().tiles[3].words[:4] == 7).all()
    for machine in (second, Machine()):
        machine.configure_tile(3, dtype="U32", capacity=256, cols=16, valid=(4, 16))
        view = machine.snapshot().tiles[3]
        assert not view.defined.any() and not view.words.any()


def test_a_refused_configuration_names_its_caller_even_when_cached():
    for _ in range(2):  # the second refusal comes from the cache's path
        with pytest.raises(ValueError, match=r"^configure_tile\(5\): capacity 100 must be a multiple of 128"):
            Machine().configure_tile(5, dtype="U32", capacity=100, cols=16, valid=(1, 16))
    with pytest.raises(ValueError, match=r"^configure_shared_tile\(2\): capacity 100"):
        Machine().configure_shared_tile(2, dtype="U32", capacity=100, cols=16, valid=(1, 16))
