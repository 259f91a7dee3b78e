"""The spec device and the memory state of issue 23 (plugins/aslref): global memory, per-PE GPR
files and shared tiles set through the spec's own functions, memory, events, the fault address
and shared tiles read back, a memory size other than the spec build's refused.

The adapter's parts are checked without the interpreter (the ASL written for a case, the printed
lines read back); the live tests (``PTO_AVS_ASLREF`` and ``PTO_AVS_SPEC`` set) run one batch on
the real spec. Expected values are worked by hand from the case's own bytes: a TLOAD of U32
elements reads four little-endian bytes each (asl/tile/model/memory/load-store.asl), the first
access of a row-major preflight that does not end inside 4096 bytes faults with its own address
(asl/scalar/model/agu/memory.asl ProbeDataAccess)."""
from __future__ import annotations

import os

import pytest

from pto_avs.contract.case import Case
from pto_avs.plugins.aslref import output, program
from pto_avs.plugins.aslref.device import AslrefDevice
from pto_avs.plugins.aslref.spec import ASLREF_ENV, SPEC_ENV
from pto_avs.plugins.base import open_device

LOAD = "BSTART.TLOAD U32; B.DIM LB0=4; B.DIM LB1=2; B.DIM LB2=4; B.IOR R5, R6; B.IOT mask=1111, <last>, ->T<1>; BSTOP"
STORE = "BSTART.TSTORE U32; B.IOR R7, R6; B.IOT T0, mask=1111, <last>; BSTOP"
DATA = bytes(range(1, 33))  # 32 bytes at 0x100: two rows of four U32 with a 16-byte row stride
STATE = {"tile_capacity": 262144, "status": 0, "gprs": {5: 0x100, 6: 16, 7: 0x200}, "tiles": [],
         "memory": {"size": 4096, "regions": [{"address": 0x100, "bytes": DATA.hex()}]}}
SHARED = {"index": 3, "dtype": "U32", "capacity": 128, "cols": 4, "valid": [1, 4], "layout": "RowMajor",
          "location": "Any", "mask": "1111", "defined": "valid", "data": [[1, 2, 3, 4]]}


def case(name: str, state: dict, program_text, expect: dict) -> Case:
    return Case("PTO-AVS-X-ASLREF-MEMORY", name, "TLOAD", "execution", ("pto-v0",), (), (), state,
                tuple(program_text), expect)


LOAD_STORE = case("load-store", STATE, (LOAD, STORE), {"memory": [{"address": 0x200, "bytes": DATA.hex()}],
                                                         "events": []})
PAGE = case("page", dict(STATE, gprs={5: 0xFF8, 6: 16}), (LOAD,), {"fault": "Fault_DataPage",
                                                                   "fault_address": 0x1000})
WITH_SHARED = case("shared", dict(STATE, shared_tiles=[SHARED], pe_gprs={1: {5: 7}}), (LOAD,),
                   {"shared_tiles": {}})


# ---------------------------------------------------------------------------
# the ASL written for a case


def test_memory_regions_are_written_in_nonzero_eight_byte_pieces_little_endian():
    memory = {"size": 4096, "regions": [{"address": 0x100, "bytes": "01 02 03 04 05 06 07 08 09"},
                                        {"address": 0x200, "bytes": "00000000"},
                                        {"address": 0xFFE, "bytes": "aabb"}]}
    lines = program._memory_lines(memory)
    assert lines == ["AVSSetMemory(256, Zeros{PTO_XLEN} + 0x807060504030201, 8);",
                     "AVSSetMemory(264, Zeros{PTO_XLEN} + 0x9, 8);",  # 0x108: 09 then seven zeros
                     "AVSSetMemory(4088, Zeros{PTO_XLEN} + 0xBBAA000000000000, 8);"]  # the zero region: nothing
    with pytest.raises(ValueError, match="memory region at 0xfff of 2 bytes does not fit 4096 bytes"):
        program._memory_lines({"size": 4096, "regions": [{"address": 0xFFF, "bytes": "aabb"}]})
    assert program._memory_lines(None) == []


def test_gprs_are_pe_zeros_file_and_pe_gprs_each_pes_own():
    lines = program._state_lines({"gprs": {5: 0x100}, "pe_gprs": {"3": {"5": 0x300}, 1: {6: 16}}, "tiles": []})
    assert lines[2:] == ["AVSSetGPR(5, Zeros{PTO_XLEN} + 0x100);",
                         "AVSSetPEGPR(1, 6, Zeros{PTO_XLEN} + 0x10);",
                         "AVSSetPEGPR(3, 5, Zeros{PTO_XLEN} + 0x300);"]
    harness = program.HARNESS.read_text()
    body = harness[harness.index("func AVSSetGPR"):harness.index("func AVSSetPEGPR")]
    assert "WritePEGPR(0, index, value);" in body and "for pe" not in body  # PE 1..3 keep their reset zeros
    with pytest.raises(ValueError, match="PE 4 is outside 0..3"):
        program._state_lines({"pe_gprs": {4: {5: 1}}, "tiles": []})


def test_a_shared_tile_is_built_in_the_scratch_register_and_installed_by_the_spec():
    lines = program._shared_tile_lines([SHARED])
    assert lines[:2] == ["let AVSScratchTile = _Tiles[[0]];", "let AVSScratchMask = _TileAllocationMasks[[0]];"]
    assert lines[2] == ("AVSConfigureTile(0, 128, 4, 1, 4, TileDataType_U32, TileLayout_RowMajor, "
                        "TileLocation_Any, '1111');")
    assert lines[-1] == ("if !AVSInstallSharedTile('00000011', 0, '1111', AVSScratchTile, AVSScratchMask) "
                         "then return FALSE; end;")
    state = program._state_lines({"shared_tiles": [SHARED], "tiles": [dict(SHARED, index=5)]})
    # Shared tiles first, so the scratch register is back at reset before the case's own tiles.
    assert state.index(lines[-1]) < state.index("AVSConfigureTile(5, 128, 4, 1, 4, TileDataType_U32, "
                                                "TileLayout_RowMajor, TileLocation_Any, '1111');")
    with pytest.raises(ValueError, match="does not map a B.IOS binding"):
        program._shared_tile_lines([dict(SHARED, binding={"pe_mask": "1111"})])


def test_events_are_captured_only_for_a_case_that_expects_them():
    text, _ = program.case_function(4, LOAD_STORE, {})
    body = text[text.index("func AVSCase4()"):text.index("func AVSObserveCase4()")]
    capture = body.index("StartMemoryEventCapture(0);")
    assert body.index("AVSSetMemory(") < capture < body.index("AVSStep(")
    observe = text[text.index("func AVSObserveCase4()"):]
    assert observe.split("\n")[2:6] == ["    AVSObserve();", "    AVSObserveFaultAddress();",
                                        "    AVSObserveMemory();", "    AVSObserveEvents();"]
    page_text, _ = program.case_function(1, PAGE, {})
    assert "StartMemoryEventCapture" not in page_text and "AVSObserveEvents" not in page_text
    assert "AVSObserveMemory();" in page_text  # a fault address is a memory expectation
    batch = program.batch_program([(4, text)], [], "snapshot")
    assert "    if AVSCase4() then AVSObserveCase4(); end;" in batch


def test_the_memory_size_of_the_build_is_the_only_one_accepted():
    device = AslrefDevice.__new__(AslrefDevice)  # the size rule alone (no interpreter)
    device.memory_bytes = 4096
    assert device._memory_reason(LOAD_STORE) is None
    assert device._memory_reason(case("no-memory", {"tiles": []}, (LOAD,), {})) is None  # the default, 4096
    big = case("big", dict(STATE, memory={"size": 8192, "regions": []}), (LOAD,), {})
    assert device._memory_reason(big) == ("the case's memory is 8192 bytes; this spec build's "
                                          "PTO_MODEL_MEMORY_BYTES is 4096 (a config bound fixed when the spec "
                                          "is built)")
    device.memory_bytes = None  # a build whose text states no memory bound
    assert device._memory_reason(case("no-memory", {"tiles": []}, (LOAD,), {})) is None
    assert device._memory_reason(LOAD_STORE) == ("this spec build states no PTO_MODEL_MEMORY_BYTES; the case's "
                                                 "memory is 4096 bytes")


# ---------------------------------------------------------------------------
# the printed lines read back


def printed(*extra: str, fault: str = "Fault_None") -> list[str]:
    return [f"F {fault}", "N 0", "U 0", *extra]


def test_memory_events_fault_address_and_shared_tiles_are_read_back():
    image = bytearray(256)
    image[7] = 0xAB
    lines = printed("A 4096", "M 256 " + " ".join(str(b) for b in image), "V 1",
                    "E MemoryEvent_Store 2 7 1 0 171 MemoryOrder_Release", "G",
                    "S 3 TileStorage_Numeric TileDataType_U32 TileLayout_RowMajor TileLocation_Any 1 2 1 2 128 10 8",
                    "R 0:1:5 1:0:6")
    observation = output.observation(output.CaseOutput(0, lines, True), [])
    assert observation.error is None
    assert observation.fault_address is None  # no data fault: _FaultAddress is not this case's
    assert observation.memory == {"size": 256, "hex": image.hex()}
    assert observation.events == [{"kind": "Store", "agent": 2, "address": 7, "size": 1, "read": 0, "write": 0xAB,
                                   "order": "Release"}]
    shared = observation.shared_tiles[3]
    assert (shared.dtype, shared.mask, shared.words, shared.defined) == ("U32", "1010", [[5, 6]], [[True, False]])
    faulted = output.observation(output.CaseOutput(0, printed("A 4096", fault="Fault_DataPage"), True), [])
    assert (faulted.fault, faulted.fault_address) == ("Fault_DataPage", 4096)
    none_shared = output.observation(output.CaseOutput(0, printed("A 0", "G"), True), [])
    assert none_shared.shared_tiles == {}  # observed: no shared tile has a descriptor
    assert output.observation(output.CaseOutput(0, printed("A 0"), True), []).shared_tiles is None  # not observed


def test_a_short_memory_image_or_event_list_is_an_unreadable_output():
    short = output.observation(output.CaseOutput(0, printed("M 256 1 2 3"), True), [])
    assert short.error == "unreadable interpreter output for this case: memory: 3 bytes printed for 256"
    events = output.observation(output.CaseOutput(0, printed("V 2", "E MemoryEvent_Load 0 0 1 0 0 "
                                                             "MemoryOrder_Relaxed"), True), [])
    assert events.error == "unreadable interpreter output for this case: events: 1 printed for 2"


# ---------------------------------------------------------------------------
# live


live = pytest.mark.skipif(not (os.environ.get(ASLREF_ENV) and os.environ.get(SPEC_ENV)),
                          reason=f"live aslref tests need {ASLREF_ENV} and {SPEC_ENV} (plugins/aslref/README.md)")


@live
@pytest.mark.slow
def test_live_memory_set_up_and_read_back_on_the_spec():
    device = open_device("aslref")
    assert (device.capabilities.memory, device.capabilities.events, device.capabilities.shared_tiles) == (
        True, True, True)
    load_store, page, shared = device.execute_batch([LOAD_STORE, PAGE, WITH_SHARED])
    assert load_store.error is None and load_store.fault is None, load_store.error
    image = bytes.fromhex(load_store.memory["hex"])
    assert image[0x100:0x120] == DATA and image[0x200:0x220] == DATA  # TLOAD then TSTORE copied the 32 bytes
    assert image.count(0) == 4096 - 64
    words = [int.from_bytes(DATA[i:i + 4], "little") for i in range(0, 32, 4)]
    addresses = [0x100 + 16 * row + 4 * column for row in range(2) for column in range(4)]
    # 16 events, the spec's bound: eight loads, then eight stores of the same words, row-major.
    assert load_store.events == (
        [{"kind": "Load", "agent": 0, "address": a, "size": 4, "read": w, "write": 0, "order": "Relaxed"}
         for a, w in zip(addresses, words)]
        + [{"kind": "Store", "agent": 0, "address": a + 0x100, "size": 4, "read": 0, "write": w, "order": "Relaxed"}
           for a, w in zip(addresses, words)])
    # 0xFF8 and 0xFFC fit; column 2 of row 0, at 0x1000, is the first access not ending inside memory.
    assert (page.fault, page.fault_address) == ("Fault_DataPage", 0x1000)
    assert bytes.fromhex(page.memory["hex"]) == bytes(0x100) + DATA + bytes(4096 - 0x120)  # unchanged
    assert page.tiles == {}  # no partial effect: the destination was never published
    assert shared.error is None, shared.error
    assert shared.shared_tiles[3].words[0] == [1, 2, 3, 4] and shared.shared_tiles[3].mask == "1111"
    assert shared.shared_tiles[3].defined[0] == [True] * 4
    assert shared.tiles[0].words[0] == words[:4]  # the scratch register was given back: TLOAD renamed into T0
