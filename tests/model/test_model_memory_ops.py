"""TLOAD, TSTORE and TPREFETCH on the golden model (device_model/ops/memory_flow.py): the
strided footprint, the whole-footprint preflight (a data fault changes nothing), 4-bit
nibbles, the event log, the per-PE GPR files of TPREFETCH, and the forms that stop the run.

Expected bytes are written out here from the spec's address formula
(base + row * stride + column * element_bytes), not computed by the model."""
from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pto_avs.device_model.machine import Machine

LOAD_U64 = "BSTART.TLOAD U64; B.DIM LB0=2; B.DIM LB1=2; B.IOR R1, R2; B.IOT mask=1111, <last>, ->T<1>; BSTOP"


def loaded_machine() -> Machine:
    machine = Machine()
    for address, value in ((0x200, 1), (0x208, 2), (0x220, 3), (0x228, 4)):
        machine.write_memory(address, value.to_bytes(8, "little"))
    machine.set_gpr(1, 0x200)
    machine.set_gpr(2, 32)
    return machine


def test_tload_reads_the_strided_rectangle_and_records_loads():
    machine = loaded_machine()
    result = machine.run(LOAD_U64)
    assert result.fault is None
    snap = machine.snapshot()
    assert snap.tiles[0].words[:2, :2].tolist() == [[1, 2], [3, 4]]
    assert snap.tiles[0].defined[:2, :2].all() and not snap.tiles[0].defined[2:].any()
    assert [(e.kind, e.address, e.read) for e in snap.events] == [
        ("Load", 0x200, 1), ("Load", 0x208, 2), ("Load", 0x220, 3), ("Load", 0x228, 4)]


def test_tstore_writes_valid_elements_and_keeps_its_source():
    machine = loaded_machine()
    machine.run(LOAD_U64)
    machine.set_gpr(3, 0x300)
    before = machine.snapshot().tiles[0]
    assert machine.run("BSTART.TSTORE U64; B.IOR R3, R2; B.IOT T0, mask=1111, <last>; BSTOP").fault is None
    snap = machine.snapshot()
    assert snap.memory[0x300:0x310] == bytes.fromhex("0100000000000000" "0200000000000000")
    assert snap.memory[0x320:0x330] == bytes.fromhex("0300000000000000" "0400000000000000")
    assert snap.memory[0x310:0x320] == bytes(16)  # the padding columns are never stored
    assert (snap.tiles[0].words == before.words).all()
    assert [e.kind for e in snap.events[4:]] == ["Store"] * 4


def test_tstore_page_fault_is_precise_and_names_the_address():
    machine = loaded_machine()
    machine.run(LOAD_U64)
    machine.set_gpr(3, 4088)
    machine.write_memory(4088, (9).to_bytes(8, "little"))
    before = machine.snapshot()
    result = machine.run("BSTART.TSTORE U64; B.IOR R3, R2; B.IOT T0, mask=1111, <last>; BSTOP")
    assert (result.fault, result.fault_address) == ("Fault_DataPage", 4096)
    after = machine.snapshot()
    assert after.memory == before.memory and after.events == before.events


def test_alignment_is_checked_per_element_before_the_page():
    machine = loaded_machine()
    machine.set_gpr(1, 0x204)  # a U64 rectangle at a 4-byte boundary
    result = machine.run(LOAD_U64)
    assert (result.fault, result.fault_address) == ("Fault_DataAlignment", 0x204)
    machine.set_gpr(1, 0x200)
    machine.set_gpr(2, 36)  # row 1 starts misaligned
    result = machine.run(LOAD_U64)
    assert (result.fault, result.fault_address) == ("Fault_DataAlignment", 0x224)
    assert machine.snapshot().tiles == {} and machine.snapshot().events == ()


def test_four_bit_elements_use_nibbles_of_the_containing_byte():
    machine = Machine()
    machine.write_memory(0x40, bytes.fromhex("21 43 65"))
    machine.set_gpr(1, 0x40)
    assert machine.run("BSTART.TLOAD U4X2; B.DIM LB0=5; B.DIM LB2=8; B.IOR R1, zero; "
                       "B.IOT mask=1111, <last>, ->T<1>; BSTOP").fault is None
    assert machine.snapshot().tiles[0].words[0, :5].tolist() == [1, 2, 3, 4, 5]
    machine.write_memory(0x80, bytes.fromhex("ff ff ff"))
    machine.set_gpr(2, 0x80)
    assert machine.run("BSTART.TSTORE U4X2; B.IOR R2, zero; B.IOT T0, mask=1111, <last>; BSTOP").fault is None
    snap = machine.snapshot()
    assert snap.memory[0x80:0x83] == bytes.fromhex("21 43 f5")  # the sixth nibble keeps its old value
    # each store event carries the whole byte as stored at that moment (read-modify-write)
    assert [e.write for e in snap.events if e.kind == "Store"] == [0xF1, 0x21, 0xF3, 0x43, 0xF5]


def test_signed_loads_sign_extend_to_the_word():
    machine = Machine()
    machine.write_memory(0, bytes.fromhex("80 7f"))
    assert machine.run("BSTART.TLOAD S8; B.DIM LB0=2; B.IOT mask=1111, <last>, ->T<1>; BSTOP").fault is None
    assert machine.snapshot().tiles[0].words[0, :2].tolist() == [0xFFFFFFFFFFFFFF80, 0x7F]


def test_tprefetch_reads_each_pe_file_and_allocates_nothing():
    machine = Machine()
    machine.set_gpr(1, 0x180)
    machine.set_pe_gpr(3, 1, 0x190)
    result = machine.run("BSTART.TPREFETCH U8; B.DIM LB0=2; B.IOR R1, zero; BSTOP")
    assert result.fault is None
    snap = machine.snapshot()
    assert [(e.agent, e.address) for e in snap.events] == [
        (0, 0x180), (0, 0x181), (1, 0), (1, 1), (2, 0), (2, 1), (3, 0x190), (3, 0x191)]
    assert snap.tiles == {} and snap.tile_capacity_in_use == 0


def test_tprefetch_of_a_64_bit_type_or_with_a_binding_is_tile_legality():
    machine = Machine()
    assert machine.run("BSTART.TPREFETCH U64; B.DIM LB0=2; BSTOP").fault == "Fault_TileLegality"
    machine.configure_tile(0, "U8", capacity=128, cols=8, valid=(1, 1))
    machine.write_tile(0, [[1]])
    assert machine.run("BSTART.TPREFETCH U8; B.IOT T0, mask=1111, <last>; BSTOP").fault == "Fault_TileLegality"


def test_cube_transport_layouts_route_by_family():
    machine = Machine()
    assert machine.run("BSTART.TPREFETCH U8; B.DATR ND2M32, NONE, Null; B.DIM LB0=2; BSTOP").fault == "Fault_TileLegality"
    not_none = machine.run("BSTART.TLOAD FP16; B.DATR ND2N8, NONE, Null; B.DIM LB0=16; B.DIM LB1=16; "
                           "B.IOT mask=1111, <last>, ->N<3>; BSTOP")  # DataType field 0 is not DTYPE_NONE
    assert not_none.fault == "Fault_TileLegality"
    assert machine.run("BSTART.VEC TADD, U8; B.DATR ND2M16, NONE, Null; B.DIM LB0=1; "
                       "B.IOT T0, T1, mask=1111, <last>, ->T<1>; BSTOP").fault == "Fault_IllegalInstruction"


def test_cube_conversion_round_trip_keeps_the_bytes_and_pads_the_tail():
    machine = Machine()
    data = bytes((7 * i + 1) & 0xFF for i in range(16))
    machine.write_memory(0x100, data)
    machine.set_gpr(1, 0x100)
    machine.set_gpr(2, 8)
    machine.set_gpr(3, 0x200)
    loaded = machine.run("BSTART.TLOAD FP16; B.DATR {ND2M16, DTYPE_NONE, Zero, EQ, Default, 0, 0}; B.DIM LB0=4; "
                         "B.DIM LB1=2; B.IOR R1, R2; B.IOT mask=1111, <last>, ->T<2>; BSTOP")
    assert loaded.fault is None
    tile = machine.snapshot().tiles[0]
    assert (tile.layout, tile.location, tile.valid) == ("CUBE_M16", "Matrix", (2, 4)) and tile.defined.all()
    assert tile.words[0, :2].tolist() == [0x0801, 0x160F]
    stored = machine.run("BSTART.TSTORE FP16; B.DATR {M162ND, DTYPE_NONE, Zero, EQ, Default, 0, 0}; B.DIM LB0=4; "
                         "B.DIM LB1=2; B.IOR R3, R2; B.IOT T0, mask=1111, <last>; BSTOP")
    assert stored.fault is None and machine.snapshot().memory[0x200:0x210] == data
    wrong_shape = machine.run("BSTART.TSTORE FP16; B.DATR {M162ND, DTYPE_NONE, Zero, EQ, Default, 0, 0}; "
                              "B.DIM LB0=4; B.DIM LB1=1; B.IOR R3, R2; B.IOT T0, mask=1111, <last>; BSTOP")
    assert wrong_shape.fault == "Fault_TileLegality"


def test_unmodelled_shared_forms_stop_the_run():
    result = Machine().run("BSTART.TPREFETCH U8; B.DIM LB0=2; B.IOS S5, mask=1111; BSTOP")
    assert result.outcome == "not modelled"


def test_shared_tload_loads_each_selected_quarter_from_its_own_pe():
    """TLOAD into S5 (memory_flow.shared_load): U32 of 128 B in 4 columns, valid 8x1, puts rows
    2k..2k+1 in PE k's quarter; mask 0100 loads only PE 1's, from PE 1's R1 + row * R2, and allocates
    S5 on PE 1 alone; a second load of the same descriptor on PE 1 updates it, one on PE 0 faults."""
    machine = Machine()
    machine.write_memory(0x200, bytes(range(1, 33)))
    for pe in range(4):
        machine.set_pe_gpr(pe, 1, 0x100 * (pe + 1))
        machine.set_pe_gpr(pe, 2, 4)
    load = "BSTART.TLOAD U32; B.DIM LB0=1; B.DIM LB1=8; B.DIM LB2=4; B.IOR R1, R2; B.IOS mask={m}, ->S5<1>; BSTOP"
    assert machine.run(load.format(m="0100")).fault is None
    snap = machine.snapshot()
    assert [(e.kind, e.agent, e.address) for e in snap.events] == [("Load", 1, 0x208), ("Load", 1, 0x20C)]
    register = snap.shared_tiles[5]
    assert register.mask == "0100" and register.words[2:4, 0].tolist() == [0x0C0B0A09, 0x100F0E0D]
    assert machine.run(load.format(m="1000")).fault == "Fault_TileLegality"  # PE 0: not allocated there
    assert machine.run(load.replace("LB0=1", "LB0=2").format(m="0100")).fault == "Fault_TileLegality"
    assert machine.run(load.replace("B.DIM LB2=4; ", "").format(m="0100")).fault == "Fault_TileLegality"
    assert machine.run(load.format(m="0000").replace("R1, R2", "R1, R3")).fault is None  # strict no-op


def test_tstore_of_an_undefined_source_is_tile_legality():
    machine = Machine()
    machine.configure_tile(0, "U8", capacity=128, cols=8, valid=(1, 2))
    result = machine.run("BSTART.TSTORE U8; B.IOT T0, mask=1111, <last>; BSTOP")
    assert result.fault == "Fault_TileLegality"


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["U8", "U16", "U32", "U64", "U4X2", "S16"]), st.integers(0, 5000), st.integers(0, 300),
       st.integers(1, 4), st.integers(1, 8))
def test_store_then_load_round_trips_or_faults_without_effect(dtype, base, stride, rows, cols):
    machine = Machine()
    machine.set_memory_size(4096)
    machine.configure_tile(0, dtype, capacity=512, cols=8, valid=(rows, cols))
    machine.write_tile(0, [[(7 * r + c + 1) % 16 for c in range(cols)] for r in range(rows)])
    machine.set_gpr(1, base)
    machine.set_gpr(2, stride)
    before = machine.snapshot()
    stored = machine.run(f"BSTART.TSTORE {dtype}; B.IOR R1, R2; B.IOT T0, mask=1111, <last>; BSTOP")
    after = machine.snapshot()
    if stored.fault is not None:
        assert stored.fault in ("Fault_DataAlignment", "Fault_DataPage") and stored.fault_address is not None
        assert after.memory == before.memory and after.events == before.events
        return
    aliased = stride < cols * 8  # rows may overlap: only a non-overlapping store reads back whole
    loaded = machine.run(f"BSTART.TLOAD {dtype}; B.DIM LB0={cols}; B.DIM LB1={rows}; B.DIM LB2=8; B.IOR R1, R2; "
                         f"B.IOT mask=1111, <last>, ->U<2>; BSTOP")
    assert loaded.fault is None
    if not aliased:
        words = machine.snapshot().tiles[16].words[:rows, :cols]
        assert (words == before.tiles[0].words[:rows, :cols]).all()


def test_memory_operations_take_no_direct_call():
    with pytest.raises(ValueError, match="runs through its block"):
        Machine().run([{"call": "TLOAD"}])


def test_a_tload_with_a_datr_gets_the_effective_fp64_destination():
    """SPEC-CHOICE 60: B.DATR's DataType field must be 0 on TLOAD, and code 0 is FP64."""
    machine = Machine()
    machine.write_memory(0x100, (0x1122334455667788).to_bytes(8, "little"))
    machine.set_gpr(1, 0x100)
    result = machine.run("BSTART.TLOAD U32; B.DATR NONE, NORM, Zero; B.DIM LB0=1; B.IOR R1, zero; "
                         "B.IOT mask=1111, <last>, ->T<1>; BSTOP")
    assert result.fault is None
    tile = machine.snapshot().tiles[0]
    assert tile.dtype == "FP64" and tile.words[0, 0] == 0x1122334455667788


# --- GMOV and TMOV (ops/movement.py): tile-to-tile copies, no memory access -----------------

def moving_machine(dtype="U8", valid=(1, 2), data=((0x31, 0x42),)) -> Machine:
    machine = Machine()
    machine.configure_tile(1, dtype, capacity=128, cols=4, valid=valid)
    machine.write_tile(1, [list(row) for row in data])
    return machine


def test_gmov_copies_the_fragment_and_checks_every_pe_peer():
    machine = moving_machine()
    for pe, peer in enumerate((2, 0, 3, 3)):
        machine.set_pe_gpr(pe, 1, peer)
    block = "BSTART.GMOV U8; B.IOT T1, mask=1111, <last>, ->T<1>; B.IOR R1, zero; BSTOP"
    assert machine.run(block).fault is None
    snap = machine.snapshot()
    assert snap.tiles[0].words[0, :2].tolist() == [0x31, 0x42] and snap.events == ()
    assert (snap.tiles[0].defined == snap.tiles[1].defined).all()
    machine.set_pe_gpr(3, 1, 4)  # PE 3 alone names a peer outside 0..3
    before = machine.snapshot()
    assert machine.run(block).fault == "Fault_TileLegality"
    assert sorted(machine.snapshot().tiles) == sorted(before.tiles)


def test_gmov_schema_failures_are_tile_legality_not_bundle_control():
    machine = moving_machine()
    assert machine.run("BSTART.GMOV U8; B.IOT T1, mask=1111, <last>, ->T<1>; B.IOR zero, R2; BSTOP").fault \
        == "Fault_TileLegality"
    assert machine.run("BSTART.GMOV U8; B.DIM LB0=2; B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP").fault \
        == "Fault_TileLegality"


def test_tmov_copies_padding_and_definedness_and_infers_dtype_none():
    machine = moving_machine("U16", data=((0x1234, 0xBEEF),))
    assert machine.run("BSTART.TMOV DTYPE_NONE; B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP").fault is None
    snap = machine.snapshot()
    assert snap.tiles[0].dtype == "U16" and snap.tiles[0].words[0, :2].tolist() == [0x1234, 0xBEEF]
    assert (snap.tiles[0].defined == snap.tiles[1].defined).all()
    assert Machine().run("BSTART.TMOV DTYPE_NONE; B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP").fault \
        == "Fault_TileLegality"  # no configured source to take the type from


def test_tmov_direct_call_accepts_a_partially_defined_source_and_a_block_does_not():
    """SPEC-CHOICE 71: the direct-call contract asks shape and type only."""
    machine = Machine()
    machine.configure_tile(1, "U8", capacity=128, cols=4, valid=(1, 2))
    machine.configure_tile(2, "U8", capacity=128, cols=4, valid=(1, 2))
    machine.write_tile(2, [[5, 6]])
    assert machine.run("BSTART.TMOV U8; B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP").fault == "Fault_TileLegality"
    assert machine.run([{"call": "TMOV", "dst": 2, "src": 1}]).fault is None
    assert not machine.snapshot().tiles[2].defined.any()
    with pytest.raises(ValueError, match="GMOV"):  # no direct-call contract: a block only
        Machine().run([{"call": "GMOV", "dst": 0, "src": 1}])


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(["GMOV", "TMOV"]), st.sampled_from(["U8", "U16", "U64", "U4X2", "DTYPE_NONE"]),
       st.sampled_from(["", "B.DIM LB0=1; ", "B.DATR NONE, NORM, Zero; ", "B.IOS S3, mask=1111; "]),
       st.sampled_from(["1111", "1100", "0000"]), st.integers(1, 3), st.sampled_from([0, 3, 4, 1 << 40]),
       st.booleans())
def test_moves_never_crash_and_a_rejection_changes_nothing(op, dtype, extra, mask, size, peer, defined):
    machine = Machine()
    machine.configure_tile(1, "U8", capacity=128, cols=4, valid=(1, 2))
    if defined:
        machine.write_tile(1, [[1, 2]])
    machine.set_pe_gpr(2, 1, peer)
    if op == "GMOV" and dtype == "DTYPE_NONE":
        dtype = "U8"
    before = machine.snapshot()
    result = machine.run(f"BSTART.{op} {dtype}; {extra}B.IOT T1, mask={mask}, <last>, ->T<{size}>; "
                         f"B.IOR R1, zero; BSTOP".replace("B.IOR R1, zero; ", "B.IOR R1, zero; " if op == "GMOV"
                                                          else ""))
    after = machine.snapshot()
    assert result.outcome in ("completed", "fault")
    if result.fault is not None:
        assert sorted(after.tiles) == sorted(before.tiles) and after.events == before.events


def test_shared_tstore_stores_each_quarter_from_its_own_pe():
    """Function 1 and TSTORE.SPART (memory_flow.shared_store): U32 S5 of 128 B in 4 columns puts rows
    2k..2k+1 in PE k's quarter; PE k stores them at its own R1 + row * R2."""
    machine = Machine()
    machine.configure_shared_tile(5, "U32", capacity=128, cols=4, valid=(8, 1))
    machine.write_shared_tile(5, [[0x11 * (r + 1)] for r in range(8)])
    for pe in range(4):
        machine.set_pe_gpr(pe, 1, 0x100 * (pe + 1))
        machine.set_pe_gpr(pe, 2, 4)
    assert machine.run("BSTART.TSTORE.SPART U32; B.IOR R1, R2; B.IOS S5, mask=0100; BSTOP").fault is None
    snap = machine.snapshot()
    assert [(e.agent, e.address, e.write) for e in snap.events] == [(1, 0x208, 0x33), (1, 0x20C, 0x44)]
    assert snap.memory[0x100:0x120] == bytes(32)
    assert machine.run("BSTART.TSTORE U32; B.IOR R1, R2; B.IOS S5, mask=0100; BSTOP").fault == "Fault_TileLegality"
    assert machine.run("BSTART.TSTORE U32; B.IOR R1, R2; B.IOS S5, mask=1111; BSTOP").fault is None
    assert [e.agent for e in machine.snapshot().events[2:]] == [0, 0, 1, 1, 2, 2, 3, 3]


@pytest.mark.parametrize("catr, order", [("", "Relaxed"), ("B.CATR {aq}; ", "Acquire"), ("B.CATR {rl}; ", "Release"),
                                         ("B.CATR {aqrl, far, dr}; ", "AcquireRelease"),
                                         ("B.CATR {atomic}; ", "Relaxed")])
def test_catr_sets_the_order_of_every_event_of_its_block(catr, order):
    machine = Machine()
    machine.set_gpr(1, 0x100)
    result = machine.run(f"BSTART.TLOAD U8; {catr}B.DIM LB0=2; B.IOR R1, zero; B.IOT mask=1111, <last>, ->T<1>; "
                         "BSTOP; BSTART.TPREFETCH U8; B.DIM LB0=1; BSTOP")
    assert result.fault is None
    assert [e.order for e in machine.snapshot().events] == [order, order] + ["Relaxed"] * 4  # the next block's own


def test_catr_rules():
    machine = Machine()
    assert machine.run("BSTART.TLOAD U8; B.CATR {aq}; B.CATR {rl}; B.DIM LB0=1; BSTOP").fault == "Fault_BundleControl"
    assert machine.run("BSTART.TMATMUL FP16; B.CATR {dr}; BSTOP").fault == "Fault_BundleControl"  # DR: not CUBE
    assert machine.run("BSTART.TLOAD U8; B.CATR {trap}; B.DIM LB0=1; BSTOP").outcome == "not modelled"


def test_shared_tmov_forms_move_the_selected_quarters_and_keep_publication():
    """TMOV.S2L.EXTRACT copies only the selected quarters (the rest of the new tile undefined);
    TMOV.L2S.INSERT makes a new register unpublished, so BROADCAST refuses it until PUBLISH."""
    machine = Machine()
    machine.configure_shared_tile(5, "U32", capacity=128, cols=4, valid=(8, 1))
    machine.write_shared_tile(5, [[0x11 * (r + 1)] for r in range(8)])
    extract = "BSTART.TMOV.S2L.EXTRACT U32; B.IOS S5, mask=0100; B.IOT mask=0100, <last>, ->T<1>; BSTOP"
    assert machine.run(extract).fault is None
    tile = machine.snapshot().tiles[0]
    assert tile.words[2:4, 0].tolist() == [0x33, 0x44] and tile.defined[:, 0].tolist() == [0, 0, 1, 1, 0, 0, 0, 0]
    broadcast = "BSTART.TMOV.S2L.BROADCAST U32; B.IOS S{s}, mask=1111; B.IOT mask=1111, <last>, ->T<1>; BSTOP"
    assert machine.run(broadcast.format(s=5)).fault is None
    assert machine.snapshot().tiles[1].words[:, 0].tolist() == [0x11 * (r + 1) for r in range(8)]
    assert machine.run("BSTART.TMOV.L2S.INSERT U32; B.IOT T1, mask=1111, <last>; B.IOS mask=1111, ->S7<1>; "
                       "BSTOP").fault is None
    assert machine.run(broadcast.format(s=7)).fault == "Fault_TileLegality"  # INSERT never publishes
    assert machine.run("BSTART.TMOV.L2S.PUBLISH U32; B.IOT T1, mask=1100, <last>; B.IOS mask=1100, ->S7<1>; "
                       "BSTOP").fault is None
    assert machine.run(broadcast.format(s=7)).fault is None
    assert machine.run("BSTART.TMOV.L2S.INSERT U32; B.IOT T1, mask=1111, <last>; BSTOP").fault == "Fault_TileLegality"


SHARED_FORMS = ("BSTART.TLOAD {t}; {dims}B.IOR R1, R2; B.IOS mask={m}, ->S{s}<{c}>; BSTOP",
                "BSTART.TMOV.L2S.{pub} {t}; {dims}B.IOT T0, mask={m}, <last>; B.IOS mask={m}, ->S{s}<{c}>; BSTOP",
                "BSTART.TMOV.S2L.{cast} {t}; {dims}B.IOS S{s}, mask={m}; B.IOT mask={m}, <last>, ->T<{c}>; BSTOP")


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(SHARED_FORMS), st.sampled_from(["U8", "U32", "U4X2", "S16"]),
                          st.sampled_from(["0000", "0100", "1100", "1111"]), st.sampled_from([3, 5]),
                          st.integers(1, 3), st.sampled_from(["", "B.DIM LB0=2; B.DIM LB1=4; B.DIM LB2=4; ",
                                                              "B.DIM LB0=4; B.DIM LB1=8; B.DIM LB2=4; "]),
                          st.booleans()), min_size=1, max_size=4),
       st.integers(0, 4095))
def test_shared_forms_never_crash_and_a_fault_changes_nothing(blocks, base):
    """TLOAD into, and TMOV to and from, Shared registers: every program is an observation or an
    architectural fault, and a faulting block leaves tiles, Shared registers and memory as they were."""
    machine = Machine()
    machine.configure_tile(0, "U32", capacity=128, cols=4, valid=(8, 4))
    machine.write_tile(0, [[r * 4 + c for c in range(4)] for r in range(8)])
    machine.write_memory(0, bytes(range(256)) * 16)
    for pe in range(4):
        machine.set_pe_gpr(pe, 1, (base + 0x40 * pe) % 4096)
        machine.set_pe_gpr(pe, 2, 16)
    for form, t, mask, sid, code, dims, flag in blocks:
        before = machine.snapshot()
        program = form.format(t=t, m=mask, s=sid, c=code, dims=dims, pub="PUBLISH" if flag else "INSERT",
                              cast="BROADCAST" if flag else "EXTRACT")
        result = machine.run(program)
        assert result.outcome in ("completed", "fault"), (program, result.outcome, result.detail)
        if result.fault is not None:
            after = machine.snapshot()
            for views, olds in ((after.tiles, before.tiles), (after.shared_tiles, before.shared_tiles)):
                assert sorted(views) == sorted(olds)
                assert all((views[i].words == olds[i].words).all() and views[i].mask == olds[i].mask for i in views)
            assert after.memory == before.memory and after.events == before.events
