"""The indexed-TLSU reference (vectors/reference/gather_scatter.py) against the spec's facts:
TileIndexByteDisplacement, the spec tests' own values for the five operations, and the
outcome sets the ARBITRARY lane order allows."""
from __future__ import annotations

import pytest

from pto_avs.vectors.reference import gather_scatter as ref
from pto_avs.vectors.reference import memory as mem

WORD = (1 << 64) - 1


@pytest.mark.parametrize("value, index_type, displacement", [
    (0xFE, "S8", WORD - 1),                # SignExtend(index_value[7:0])
    (0xFE, "U8", 0xFE),                    # ZeroExtend
    (0xC, "S4X2", WORD - 3),               # SignExtend(index_value[3:0])
    (0xC, "U4X2", 0xC),
    (0x1_0000_0003, "U32", 3),             # only the element's 32 bits
    (0xFFFF_FFFF, "S32", WORD),
    (0x8000, "S16", WORD - 0x7FFF),
    (WORD - 7, "S64", WORD - 7),           # the Word itself
    (WORD - 7, "U64", WORD - 7),
])
def test_byte_displacement(value, index_type, displacement):
    assert ref.displacement(value, index_type) == displacement


def test_index_and_transfer_type_rules():
    assert set(ref.INTEGER) == {"S4X2", "S8", "S16", "S32", "S64", "U4X2", "U8", "U16", "U32", "U64"}
    assert not ref.index_legal("FP32") and ref.index_legal("S4X2")
    assert [t for t in ("U4X2", "S4X2", "E2M1X2", "E1M2X2", "HiF4X2", "U8", "FP64") if not ref.transfer_legal(t)] == [
        "U4X2", "S4X2", "E2M1X2", "E1M2X2", "HiF4X2"]


def test_mgather_bytes_spec_values():
    """tile-exec-mgather-bytes-001: indices 0, 3 from 0x200 read 0x11, 0x44 with two events."""
    image = mem.Memory(4096, [(0x200, bytes([0x11])), (0x203, bytes([0x44]))])
    active = ref.lanes(0x200, [[0, 3]], "S32")
    assert ref.probe(active, "U8", 4096) is None
    assert ref.gather(image, "U8", active) == {0: 0x11, 1: 0x44} and len(image.events) == 2


def test_mgather_mask_lanes_spec_values():
    active = ref.lanes(0x280, [[0, 1]], "U32", [[1, 0]])
    image = mem.Memory(4096, [(0x280, bytes([0x62, 0x73]))])
    assert ref.gather(image, "U8", active) == {0: 0x62} and len(image.events) == 1


def test_mgather_cas_rmw_spec_values():
    """tile-atomic-mgather-cas-rmw-001: 0x300 becomes 9, 0x301 keeps 6, observed 5 and 6."""
    image = mem.Memory(4096, [(0x300, bytes([5, 6]))])
    active = ref.lanes(0x300, [[0, 1]], "U32")
    observed = ref.compare_and_swap(image, "U8", active, {0: 5, 1: 7}, {0: 9, 1: 10}, [0, 1])
    assert observed == {0: 5, 1: 6} and bytes(image.bytes[0x300:0x302]) == bytes([9, 6])
    assert [e["kind"] for e in image.events] == ["Atomic", "Atomic"]


def test_mscatter_spec_values():
    """tile-exec-mscatter-bytes-001 and tile-exec-mscatter-mask-lanes-001."""
    image = mem.Memory(4096)
    active = ref.lanes(0x240, [[0, 3]], "S64")
    ref.scatter(image, "U8", active, {0: 0x21, 1: 0x54}, [0, 1])
    assert image.bytes[0x240] == 0x21 and image.bytes[0x243] == 0x54 and len(image.events) == 2
    image = mem.Memory(4096, [(0x2C0, bytes([0xAA, 0xBB]))])
    active = ref.lanes(0x2C0, [[0, 1]], "U32", [[1, 0]])
    ref.scatter(image, "U8", active, {0: 0x35, 1: 0x46}, [0])
    assert bytes(image.bytes[0x2C0:0x2C2]) == bytes([0x35, 0xBB]) and len(image.events) == 1


def test_outcome_sets_cover_every_winner_and_serialization():
    active = ref.lanes(0x200, [[0, 0, 8, 0]], "U32")
    winners = {order[-1] for order in ref.scatter_orders(active)}
    assert winners == {0, 1, 3}  # each duplicate lane can land last; lane 2 is alone
    assert len(ref.cas_orders(ref.lanes(0x200, [[0, 0, 0]], "U32"))) == 6
    assert ref.scatter_orders(ref.lanes(0x200, [[0, 4]], "U32")) == [[0, 1]]


def test_cas_serializations_give_different_outcomes():
    outcomes = set()
    for order in ref.cas_orders(ref.lanes(0x300, [[0, 0]], "U32")):
        image = mem.Memory(4096, [(0x300, bytes([5]))])
        observed = ref.compare_and_swap(image, "U8", ref.lanes(0x300, [[0, 0]], "U32"), {0: 5, 1: 9},
                                        {0: 9, 1: 11}, order)
        outcomes.add((image.bytes[0x300], observed[0], observed[1]))
    assert outcomes == {(11, 5, 9), (9, 5, 5)}


def test_faults_in_lane_order_alignment_first():
    assert ref.probe(ref.lanes(4084, [[0, 4, 8, 12]], "U32"), "U32", 4096) == ("Fault_DataPage", 4096)
    assert ref.probe(ref.lanes(0x100, [[8, 4098 - 0x100]], "U32"), "U32", 4096) == ("Fault_DataAlignment", 4098)
    assert ref.probe(ref.lanes(0, [[(1 << 32) - 2]], "S32"), "U16", 4096) == ("Fault_DataPage", WORD - 1)


def test_lane_index_words_reads_the_low_element_of_each_payload_carrier():
    """SPEC-CHOICE 90: a packed-carrier index tile (4-bit, or past 32768 elements) gives lane i
    logical element i * 64/bits; a slot past the tile's elements is zero; other tiles give each
    lane its own element."""
    elements = {(0, 0): 0xC, (0, 1): 6, (0, 2): 4, (4, 0): 1, (8, 0): 2}
    assert ref.lane_index_words(elements, 64, 4, (1, 3), "S4X2") == [[0xC, 1, 2]]
    assert ref.lane_index_words(elements, 64, 4, (1, 3), "U8") == [[0xC, 6, 4]]
    assert ref.lane_index_words({(0, 0): 5}, 2, 4, (1, 2), "U4X2") == [[5, 0]]  # element 16 is past 2 x 4
    big = {(0, 8): 7}  # U8, 256 x 256 = 65536 elements: eight to a carrier, lane 1 reads element 8
    assert ref.lane_index_words(big, 256, 256, (1, 2), "U8") == [[0, 7]]
