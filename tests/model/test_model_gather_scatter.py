"""MGATHER, MGATHER_MASK, MGATHER_CAS, MSCATTER and MSCATTER_MASK on the golden model
(device_model/ops/gather_scatter.py): byte displacements, pads, masks, the compare-and-swap,
duplicates (the model's row-major pick, and the comparator accepting every other outcome the
spec allows), the block rules, and the never-crash and atomicity properties.

Expected values are the spec tests' own (tests/asl/tile/memory-and-data-movement/irregular/)
or written out here by hand from the ASL; none is computed by the model."""
from __future__ import annotations

from pathlib import Path
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pto_avs.contract import loader
from pto_avs.contract.compare import compare
from pto_avs.device_model.machine import Machine
from pto_avs.device_model.ops import gather_scatter
from pto_avs.plugins.golden import open_device

VECTORS = Path(__file__).resolve().parents[2] / "vectors"
GATHER = "BSTART.MGATHER {t}; {datr}B.DIM LB0={n}; B.IOT T1, mask=1111, <last>, ->T<1>; B.IOR R1; BSTOP"
MASKED = "BSTART.MGATHER.MASK {t}; {datr}B.DIM LB0={n}; B.IOT T1, T2, mask=1111, <last>, ->T<1>; B.IOR R1; BSTOP"
CAS = ("BSTART.MGATHER.CAS {t}; B.DIM LB0={n}; B.IOT T1, T2, mask=1111; B.IOT T3, mask=1111, <last>, ->T<1>; "
       "B.IOR R1; BSTOP")
SCATTER = "BSTART.MSCATTER {t}; B.DIM LB0={n}{lb2}; B.IOT T0, T1, mask=1111, <last>; B.IOR R1; BSTOP"
SCATTER_MASK = ("BSTART.MSCATTER.MASK {t}; B.DIM LB0={n}{lb2}; B.IOT T0, T1, mask=1111; B.IOT T2, mask=1111, <last>; "
                "B.IOR R1; BSTOP")


def machine_with(tiles: dict, memory: dict, base: int) -> Machine:
    """``tiles``: index -> (dtype, [words]) as one row (``"P"``: a predicate row)."""
    m = Machine()
    for index, (dtype, row) in tiles.items():
        if dtype == "P":
            m.configure_predicate_tile(index, 128, 1, len(row), valid=(1, len(row)))
        else:
            m.configure_tile(index, dtype, 128, cols=_pow2(len(row)), valid=(1, len(row)))
        m.write_tile(index, [row])
    for address, data in memory.items():
        m.write_memory(address, bytes(data))
    m.set_gpr(1, base)
    return m


def _pow2(n: int) -> int:
    return 1 << max(0, (n - 1).bit_length())


def lb2(n: int) -> str:
    return "" if _pow2(n) == n else f"; B.DIM LB2={_pow2(n)}"


# ---------------------------------------------------------------------------------------
# The spec tests, as blocks

def test_mgather_bytes_spec_test():
    m = machine_with({1: ("S32", [0, 3])}, {0x200: [0x11], 0x203: [0x44]}, 0x200)
    assert m.run(GATHER.format(t="U8", n=2, datr="B.DATR NONE, NORM, Max; ")).fault is None
    snap = m.snapshot()
    tile = snap.tiles[0]
    assert tile.words[0, :2].tolist() == [0x11, 0x44] and (tile.words[1:] == 0xFF).all()
    assert tile.defined.all()
    assert [(e.kind, e.address, e.read) for e in snap.events] == [("Load", 0x200, 0x11), ("Load", 0x203, 0x44)]


def test_mgather_null_pad_still_defines_the_physical_region():
    m = machine_with({1: ("S32", [0, 3])}, {0x200: [0x11, 0, 0, 0x44]}, 0x200)
    assert m.run(GATHER.format(t="U8", n=2, datr="")).fault is None
    tile = m.snapshot().tiles[0]
    assert tile.defined.all() and (tile.words[1:] == 0).all()


def test_signed_index_types_displace_below_the_base():
    m = machine_with({1: ("S8", [0xFE, 0x02])}, {0x1FE: [0x34, 0x12, 0, 0, 0x78, 0x56]}, 0x200)
    assert m.run(GATHER.format(t="U16", n=2, datr="")).fault is None
    assert m.snapshot().tiles[0].words[0, :2].tolist() == [0x1234, 0x5678]
    m = machine_with({1: ("U8", [0xFE])}, {0x2FE: [0x9A, 0xBC]}, 0x200)  # unsigned: +254
    assert m.run(GATHER.format(t="U16", n=1, datr="")).fault is None
    assert m.snapshot().tiles[0].words[0, 0] == 0xBC9A


@pytest.mark.parametrize("index_type, lane0, address0", [("S4X2", 0xC, 0x204), ("U4X2", 0x4, 0x20C)])
def test_a_four_bit_index_lane_reads_the_low_nibble_of_its_payload_carrier(index_type, lane0, address0):
    """SPEC-CHOICE 90 (gather-scatter.asl reads index_payload[[TileLinearIndex]]): lane i of a
    4-bit index tile reads logical element 16 * i (S4X2 sign-extended, U4X2 not); the valid
    region's own elements 1 and 2 (the decoys 6 and 4) are not read."""
    m = Machine()
    m.configure_tile(1, index_type, 128, cols=4, valid=(1, 3))  # 64 rows: element 16 * i is (4 * i, 0)
    grid = [[0] * 4 for _ in range(64)]
    grid[0][:3], grid[4][0], grid[8][0] = [lane0, 6, 4], 0x0, 0x2
    m.write_tile(1, grid)
    m.write_memory(0x204, bytes([0x34, 0x12, 0, 0, 0x78, 0x56, 0xBC, 0x9A, 0xF0, 0xDE]))
    m.set_gpr(1, 0x208)
    program = "BSTART.MGATHER U16; B.DIM LB0=3; B.DIM LB2=4; B.IOT T1, mask=1111, <last>, ->T<1>; B.IOR R1; BSTOP"
    assert m.run(program).fault is None
    snap = m.snapshot()
    assert [e.address for e in snap.events] == [address0, 0x208, 0x20A]
    assert snap.tiles[0].words[0, 1:3].tolist() == [0x5678, 0x9ABC]


def test_mgather_mask_lanes_spec_test_and_disabled_lanes_are_not_probed():
    m = machine_with({1: ("U32", [0, 1]), 2: ("P", [1, 0])}, {0x280: [0x62, 0x73]}, 0x280)
    assert m.run(MASKED.format(t="U8", n=2, datr="B.DATR NONE, NORM, Zero; ")).fault is None
    snap = m.snapshot()
    assert snap.tiles[0].words[0, :2].tolist() == [0x62, 0] and len(snap.events) == 1
    m = machine_with({1: ("U32", [0, 0xFFFFF]), 2: ("P", [1, 0])}, {0x280: [1, 2, 3, 4]}, 0x280)
    assert m.run(MASKED.format(t="U32", n=2, datr="")).fault is None  # lane 1 would be a page fault


def test_mgather_cas_rmw_spec_test():
    m = machine_with({1: ("U32", [0, 1]), 2: ("U8", [5, 7]), 3: ("U8", [9, 10])}, {0x300: [5, 6]}, 0x300)
    assert m.run(CAS.format(t="U8", n=2)).fault is None
    snap = m.snapshot()
    assert snap.memory[0x300:0x302] == bytes([9, 6])
    assert snap.tiles[0].words[0, :2].tolist() == [5, 6]
    assert [(e.kind, e.read, e.write) for e in snap.events] == [("Atomic", 5, 9), ("Atomic", 6, 10)]


def test_mgather_cas_duplicate_lanes_serialize_row_major():
    """The model's pick: lane 0 (5 -> 9) then lane 1 (expects 9 -> 11) at one address."""
    m = machine_with({1: ("U32", [0, 0]), 2: ("U8", [5, 9]), 3: ("U8", [9, 11])}, {0x300: [5]}, 0x300)
    assert m.run(CAS.format(t="U8", n=2)).fault is None
    snap = m.snapshot()
    assert snap.memory[0x300] == 11 and snap.tiles[0].words[0, :2].tolist() == [5, 9]


def test_mgather_cas_compares_low_bytes_and_observes_sign_extended():
    m = machine_with({1: ("U32", [0]), 2: ("S16", [0xFFFFFFFFFFFF8001]), 3: ("S16", [0x1234])},
                     {0x300: [0x01, 0x80]}, 0x300)
    assert m.run(CAS.format(t="S16", n=1)).fault is None
    snap = m.snapshot()
    assert snap.memory[0x300:0x302] == bytes([0x34, 0x12]) and snap.tiles[0].words[0, 0] == 0xFFFFFFFFFFFF8001


def test_mscatter_bytes_spec_test_and_duplicates_take_the_last_lane():
    m = machine_with({0: ("U8", [0x21, 0x54]), 1: ("S64", [0, 3])}, {}, 0x240)
    assert m.run(SCATTER.format(t="U8", n=2, lb2="")).fault is None
    snap = m.snapshot()
    assert snap.memory[0x240] == 0x21 and snap.memory[0x243] == 0x54 and len(snap.events) == 2
    m = machine_with({0: ("U16", [1, 2, 3]), 1: ("U32", [4, 0, 4])}, {}, 0x240)
    assert m.run(SCATTER.format(t="U16", n=3, lb2=lb2(3))).fault is None
    assert m.snapshot().memory[0x244:0x246] == bytes([3, 0])  # row-major: lane 2 lands last


def test_mscatter_mask_lanes_spec_test():
    m = machine_with({0: ("U8", [0x35, 0x46]), 1: ("U32", [0, 1]), 2: ("P", [1, 0])}, {0x2C0: [0xAA, 0xBB]}, 0x2C0)
    assert m.run(SCATTER_MASK.format(t="U8", n=2, lb2="")).fault is None
    snap = m.snapshot()
    assert snap.memory[0x2C0:0x2C2] == bytes([0x35, 0xBB]) and len(snap.events) == 1


# ---------------------------------------------------------------------------------------
# Faults and the block rules

@pytest.mark.parametrize("program, tiles", [
    (GATHER.format(t="U32", n=4, datr=""), {1: ("U32", [0, 4, 8, 12])}),
    (MASKED.format(t="U32", n=4, datr=""), {1: ("U32", [0, 4, 8, 12]), 2: ("P", [1, 1, 1, 1])}),
    (CAS.format(t="U32", n=4), {1: ("U32", [0, 4, 8, 12]), 2: ("U32", [0] * 4), 3: ("U32", [1] * 4)}),
    (SCATTER.format(t="U32", n=4, lb2=""), {0: ("U32", [1, 2, 3, 4]), 1: ("U32", [0, 4, 8, 12])}),
    (SCATTER_MASK.format(t="U32", n=4, lb2=""), {0: ("U32", [1, 2, 3, 4]), 1: ("U32", [0, 4, 8, 12]),
                                                 2: ("P", [1, 1, 1, 1])}),
])
def test_a_fault_in_the_last_lane_has_no_effect(program, tiles):
    m = machine_with(tiles, {4080: [0xEE] * 16}, 4084)
    before = m.snapshot()
    result = m.run(program)
    assert (result.fault, result.fault_address) == ("Fault_DataPage", 4096)
    assert m.snapshot().same_as(before)
    m.set_gpr(1, 4082)  # every lane misaligned: the first one is named
    assert (m.run(program).fault, m.run(program).fault_address) == ("Fault_DataAlignment", 4082)


def test_block_rules_are_tile_legality():
    tiles = {1: ("S32", [0, 1])}
    for program in (
        "BSTART.MGATHER U8; B.DIM LB0=2; B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP",  # no B.IOR
        "BSTART.MGATHER U8; B.DIM LB0=2; B.IOT T1, mask=1111, <last>, ->T<1>; B.IOR R1, R2; BSTOP",
        "BSTART.MGATHER U8; B.IOT T1, mask=1111, <last>, ->T<1>; B.IOR R1; BSTOP",  # no LB0
        "BSTART.MGATHER U4X2; B.DIM LB0=2; B.IOT T1, mask=1111, <last>, ->T<1>; B.IOR R1; BSTOP",
        "BSTART.MGATHER U8; B.DIM LB0=2; B.DIM LB2=3; B.IOT T1, mask=1111, <last>, ->T<1>; B.IOR R1; BSTOP",
        "BSTART.MGATHER U8; B.DATR U16, NORM, Zero; B.DIM LB0=2; B.IOT T1, mask=1111, <last>, ->T<1>; B.IOR R1; BSTOP",
        "BSTART.MSCATTER U8; B.DATR NONE, NORM, Null; B.DIM LB0=2; B.IOT T0, T1, mask=1111, <last>; B.IOR R1; BSTOP",
    ):
        m = machine_with({0: ("U8", [1, 2]), **tiles}, {}, 0x100)
        before = m.snapshot()
        assert m.run(program).fault == "Fault_TileLegality", program
        assert m.snapshot().same_as(before)


def test_float_index_and_mismatched_source_type_are_tile_legality():
    m = machine_with({1: ("FP32", [0, 1])}, {}, 0x100)
    assert m.run(GATHER.format(t="U8", n=2, datr="")).fault == "Fault_TileLegality"
    m = machine_with({0: ("S8", [1, 2]), 1: ("U32", [0, 1])}, {}, 0x100)
    assert m.run(SCATTER.format(t="U8", n=2, lb2="")).fault == "Fault_TileLegality"


def test_zero_pe_mask_is_a_strict_no_op():
    m = machine_with({1: ("S32", [0, 1])}, {}, 0x101)
    before = m.snapshot()
    assert m.run("BSTART.MGATHER U16; B.DIM LB0=2; B.IOT T1, mask=0000, <last>, ->T<1>; BSTOP").fault is None
    assert m.snapshot().same_as(before)


# ---------------------------------------------------------------------------------------
# Outcome sets: a device answering another order the spec allows passes

def _case(file_id: str, name: str):
    loaded = loader.load_file(VECTORS / f"{file_id}.yaml", cache=None)
    return next(c for c in loaded.entries if c.name == name)


OBSERVABLE = {"fault", "flags", "memory", "events", "payload", "carrier", "descriptor", "sources", "padding_defined",
              "padding_value", "storage"}


@pytest.mark.parametrize("file_id, name", [
    ("PTO-AVS-TILE-MSCATTER-BYTES-001", "duplicate-either-lane-wins"),
    ("PTO-AVS-X-MSCATTER-REF-001", "duplicates-three-lanes"),
    ("PTO-AVS-TILE-MSCATTER-MASK-LANES-001", "enabled-duplicates-either-wins"),
    ("PTO-AVS-TILE-MGATHER-CAS-RMW-001", "rmw-duplicate-lanes-either-order"),
    ("PTO-AVS-X-MGATHER-CAS-REF-001", "three-lanes-one-address"),
])
def test_every_allowed_lane_order_passes(file_id, name):
    """The golden model with its lane order reversed (or rotated) is another device the spec
    allows: its observation differs from the model's own and passes the same case."""
    case = _case(file_id, name)
    device = open_device("pto-v0")
    own = device.execute(case)
    assert compare(case, own, OBSERVABLE).outcome == "pass"
    seen = {own.memory["hex"] if own.memory else None}
    for order in (lambda n: list(range(n))[::-1], lambda n: list(range(1, n)) + [0]):
        with mock.patch.object(gather_scatter, "lane_order", order):
            other = device.execute(case)
        assert compare(case, other, OBSERVABLE).outcome == "pass", name
        seen.add(other.memory["hex"] if other.memory else None)
    assert len(seen) > 1, "the other orders changed nothing: the case does not test an outcome set"


def test_an_outcome_the_spec_does_not_allow_fails():
    """MSCATTER_MASK with lanes 0, 1, 2 at one address and lane 1 disabled: a device that lets
    the disabled lane win fails."""
    case = _case("PTO-AVS-TILE-MSCATTER-MASK-LANES-001", "enabled-duplicates-either-wins")
    observed = open_device("pto-v0").execute(case)
    image = bytearray.fromhex(observed.memory["hex"])
    lane1 = next(t for t in case.state["tiles"] if t["index"] == 0)["data"][0][1]
    image[0x2C8:0x2CC] = int(lane1).to_bytes(4, "little")
    forged = type(observed)(**{**observed.__dict__, "memory": {**observed.memory, "hex": image.hex()}})
    verdict = compare(case, forged, OBSERVABLE)
    assert verdict.outcome == "fail" and "memory" in verdict.failed


# ---------------------------------------------------------------------------------------
# Properties: never a crash, and a fault changes nothing

TYPES = st.sampled_from(["U8", "S8", "U16", "FP16", "U32", "S32", "FP32", "U64", "FP64", "U4X2"])
INDEX_TYPES = st.sampled_from(["U8", "S8", "S16", "U32", "S32", "S64", "U64", "S4X2", "FP32"])


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(op=st.sampled_from(["gather", "masked", "cas", "scatter", "scatter_mask"]), t=TYPES, index_type=INDEX_TYPES,
       n=st.integers(1, 6), base=st.one_of(st.integers(0, 4200), st.integers(0, (1 << 64) - 1)),
       data=st.data())
def test_any_block_is_an_observation_or_a_fault_and_a_fault_changes_nothing(op, t, index_type, n, base, data):
    index_bits = 4 if index_type.endswith("X2") else int("".join(ch for ch in index_type if ch.isdigit()))
    indices = data.draw(st.lists(st.one_of(st.integers(0, 40), st.integers(0, (1 << index_bits) - 1)),
                                 min_size=n, max_size=n))
    mask = data.draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    word_bits = 4 if t.endswith("X2") else int("".join(ch for ch in t if ch.isdigit()))
    values = data.draw(st.lists(st.integers(0, (1 << word_bits) - 1), min_size=n, max_size=n))
    tiles = {1: (index_type, indices)}
    if op in ("scatter", "scatter_mask"):
        tiles[0] = (t, values)
    if op in ("masked", "scatter_mask"):
        tiles[2] = ("P", mask)
    if op == "cas":
        tiles[2], tiles[3] = (t, values), (t, values[::-1])
    m = machine_with(tiles, {base % 4096: [0x5A] * 8} if base < 4096 else {}, base)
    program = {"gather": GATHER.format(t=t, n=n, datr=""), "masked": MASKED.format(t=t, n=n, datr=""),
               "cas": CAS.format(t=t, n=n), "scatter": SCATTER.format(t=t, n=n, lb2=lb2(n)),
               "scatter_mask": SCATTER_MASK.format(t=t, n=n, lb2=lb2(n))}[op]
    if op in ("gather", "masked", "cas"):
        program = program.replace("B.DIM LB0", f"B.DIM LB2={_pow2(n)}; B.DIM LB0") if _pow2(n) != n else program
    before = m.snapshot()
    result = m.run(program)
    assert result.stopped is None
    if result.fault is not None:
        assert m.snapshot().same_as(before)
    else:
        snap = m.snapshot()
        assert len(snap.events) <= 16
        if op in ("gather", "masked"):
            assert snap.memory == before.memory
