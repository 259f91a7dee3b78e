"""The independent memory reference (vectors/reference/memory.py) against the spec tests' own
values and the ASL's rules it is written from."""
from __future__ import annotations

from pto_avs.vectors.reference import memory as ref


def test_the_spec_tload_direct_values():
    """tile-exec-tload-direct-001: 1, 2 / 3, 4 at 0x200, 0x208, 0x220, 0x228 (stride 32)."""
    image = ref.Memory(4096, [(a, v.to_bytes(8, "little")) for a, v in ((0x200, 1), (0x208, 2), (0x220, 3), (0x228, 4))])
    accesses = ref.strided_accesses(0x200, 32, 2, 2, "U64")
    assert [a for a, _ in accesses] == [0x200, 0x208, 0x220, 0x228]
    assert image.tload("U64", accesses) == [1, 2, 3, 4]


def test_the_spec_tstore_precise_fault():
    """tile-fault-tstore-precise-001: the second U64 at 4096 is Fault_DataPage."""
    accesses = ref.strided_accesses(4088, 1, 1, 2, "U64")
    assert ref.probe((a for a, _ in accesses), 8, 4096) == ("Fault_DataPage", 4096)


def test_the_spec_tprefetch_requests():
    """tile-exec-tprefetch-requests-001: 8 events, agent 3 last, addresses 0x180/0x181 per PE."""
    accesses = ref.prefetch_accesses([0x180] * 4, [2] * 4, 1, 2, "U8")
    assert accesses == [(pe, a) for pe in range(4) for a in (0x180, 0x181)]


def test_alignment_comes_before_the_page_check_and_addresses_wrap():
    assert ref.probe([4098], 4, 4096) == ("Fault_DataAlignment", 4098)
    assert ref.probe([4096], 4, 4096) == ("Fault_DataPage", 4096)
    assert ref.strided_accesses((1 << 64) - 8, 0, 1, 2, "U64")[1][0] == 0


def test_nibbles_and_sign_extension():
    image = ref.Memory(256, [(0, bytes.fromhex("21 43 80"))])
    assert image.tload("U4X2", ref.strided_accesses(0, 0, 1, 4, "U4X2")) == [1, 2, 3, 4]
    assert image.tload("S8", [(2, False)]) == [0xFFFFFFFFFFFFFF80]
    image.tstore("U4X2", ref.strided_accesses(0, 0, 1, 3, "U4X2"), [0xA, 0xB, 0xC])
    assert bytes(image.bytes[:2]) == bytes.fromhex("ba 4c")  # the fourth nibble keeps its 4
    assert ref.dense_stride(5, "U4X2") == 3 and ref.dense_stride(5, "FP16") == 10


def test_shared_quarters_loads_and_moves():
    """TLOADShared / TMOVSharedToLocal / TMOVLocalToShared, written out by hand: a U32 register of
    128 B and 4 columns holds rows 2p and 2p + 1 in PE p's quarter."""
    assert [ref.quarter(e, 32, 128) for e in (0, 7, 8, 31)] == [0, 0, 1, 3]
    loads = ref.shared_store_accesses((0x100, 0x200, 0x300, 0x400), [16] * 4, 8, 1, 4, "U32", 128, "0100")
    assert [(agent, element, address) for agent, element, address, _ in loads] == [(1, 8, 0x220), (1, 12, 0x230)]
    image = ref.Memory(4096, [(0x220, (0xAB).to_bytes(4, "little")), (0x230, (0xCD).to_bytes(4, "little"))])
    assert ref.load_by_agents(image, "U32", loads) == {8: 0xAB, 12: 0xCD}
    assert [e["agent"] for e in image.events] == [1, 1]
    read = ref.shared_to_local(5, 32, 32, 128, "0010", {e: e + 100 for e in range(32)}, "1100")
    assert read == {e: 5 ^ e for e in range(16, 24)}  # PE 2's quarter is not initialized: undefined values
    words, allocated = ref.local_to_shared({e: 1 for e in range(32)}, "0001", 32, 128, {e: 0 for e in range(32)},
                                           "1111")
    assert allocated == "1111" and [words[e] for e in (0, 23, 24, 31)] == [0, 0, 1, 1]
    assert ref.local_to_shared({0: 7}, "1100", 32, 128) == ({0: 7}, "1100")
