"""The executable spec as a device (plugins/aslref).

Three kinds of tests:

- the adapter's own parts, without the interpreter: the program written for a case
  (checked against the spec's own test point for the same case), the interpreter's
  output read back, ASL errors mapped to the spec's sources, option handling;
- the committed recording of the spec's answers (``vectors/recordings/aslref-pto-v0.json.gz``,
  written by ``pto-avs spec-check --record``): every shipped ``pto-v0`` case must have a
  recorded answer for its current state and program, and the answer must agree with the
  vector (the few known disagreements are listed with their explanation);
- live tests on the real interpreter and spec checkout, run when ``PTO_AVS_ASLREF`` and
  ``PTO_AVS_SPEC`` are set and skipped (saying why) otherwise.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from pto_avs.avs import spec_check
from pto_avs.contract.case import Case
from pto_avs.contract.compare import compare
from pto_avs.plugins.aslref import output, program
from pto_avs.plugins.aslref.spec import ASLREF_ENV, SPEC_ENV, Spec, describe_error, locate, source_lines
from pto_avs.plugins.base import open_device
from pto_avs.plugins.replay import Recording

pytestmark = pytest.mark.slow  # replays the spec device's recording over every shipped pto-v0 case

RECORDING = spec_check.RECORDING
# Direct-call contracts as Spec.direct_contracts reads them from build/pto-spec.asl (a few of them).
CONTRACTS = {"TMULS": ("TileIndex", "TileIndex", "Word"), "TADD": ("TileIndex", "TileIndex", "TileIndex")}
# Shipped pto-v0 cases whose vector the executable spec contradicts, and why (see vectors/SPEC-CHOICES.md).
# A case listed here that agrees again fails the test, so the list cannot go stale.
KNOWN_DISAGREEMENTS: dict[str, str] = {
    "PTO-AVS-X-TCVT-LAYOUT-002::nd2n8-direct-call":
        "SPEC-CHOICE 7: for B.DATR Layout codes 21..26 TileOperandsLegal_TCVT reaches `unreachable` in "
        "TileDataLayoutSourceLayout (asl/block/model/state/control-state.asl:241), an ASL dynamic error, so the "
        "spec has no answer; the vector expects the project's choice, Fault_TileLegality.",
    "PTO-AVS-X-TGEMV-MX-ACC-FAULT-001::datr-datatype-none":
        "SPEC-CHOICE 3: B.DATR DataType 31 (DTYPE_NONE) reaches TileDataTypeFromEncoding(31), whose assertion "
        "fails (asl/arch/data-types/tile-data-types.asl:48), so the spec has no answer; the vector expects the "
        "project's choice, Fault_TileLegality.",
    **{f"PTO-AVS-X-{op}-REF-001::u16-divisor-upper-bits-only":
       "SPEC-CHOICE 25: a divisor Word with zero element bits and nonzero upper bits passes TilePayloadNonzero "
       "(whole Words), then TileIntegerDivRemValue asserts a nonzero divisor (asl/tile/model/execution/"
       "elementwise.asl:254), so the spec has no answer; the vector expects the project's choice, "
       "Fault_TileLegality." for op in ("TDIV", "TREM", "TROWEXPANDDIV", "TCOLEXPANDDIV")},
    **{f"PTO-AVS-X-{op}-REF-001::predicate-destination-over-16384-elements":
       "SPEC-CHOICE 30: a predicate destination of 32768 elements is allocated, then TilePredicateLogicalIndex "
       "(range 0..16383) stops the ASL with a type error (asl/tile/model/definedness/elements.asl:263); the "
       "vector expects the project's choice, Fault_TileAllocation." for op in ("TCMP", "TCMPS")},
}

def spec_test_case(name: str = "spec-words") -> Case:
    """tests/asl/tile/elementwise-tile-tile/format-conversion/TCVT/tile-exec-tcvt-bundle-001.asl as a case:
    U8 T1 (128 B, 8 columns, valid 1x2, values 7 and 9) converted by the bundle words the spec's
    test point and PTO-AVS-TILE-TCVT-BUNDLE-001 use."""
    state = {"tile_capacity": 262144, "status": 0, "gprs": {},
             "tiles": [{"index": 1, "dtype": "U8", "capacity": 128, "cols": 8, "valid": [1, 2],
                        "layout": "RowMajor", "location": "Any", "mask": "1111", "defined": "valid",
                        "data": [[7, 9]]}]}
    program_words = (0xD9B19181, 0x19A010A3, 0x00200043, 0x00802043, 0x00195E13, 0x00000001)
    expect = {"fault": None, "flags": 0, "allocated": [0, 1], "unchanged": [1],
              "tiles": [{"index": 0, "dtype": "U16", "layout": "ColumnMajor", "rows": 16, "cols": 8,
                         "valid": [1, 2], "data": [[7, 9]], "padding": {"defined": False},
                         "storage": {0: 7, 16: 9}}]}
    return Case("PTO-AVS-X-ASLREF-TEST", name, "TCVT", "execution", ("pto-v0",), (), (), state,
                program_words, expect)


# ---------------------------------------------------------------------------
# the program written for a case


def test_case_function_configures_writes_and_steps_like_the_spec_test_point():
    text, steps = program.case_function(3, spec_test_case(), CONTRACTS)
    # The spec's test point: ConfigureTile(1, 128, 16, 8, 1, 2, TileDataType_U8, RowMajor, Any) and
    # WriteTileElement(1, 0, 0, 7), (1, 0, 1, 9); rows (16) are derived by the spec from capacity and columns.
    assert "AVSConfigureTile(1, 128, 8, 1, 2, TileDataType_U8, TileLayout_RowMajor, TileLocation_Any, '1111');" in text
    assert "AVSPut(1, 0, 0, Zeros{PTO_XLEN} + 0x7, TRUE);" in text
    assert "AVSPut(1, 0, 1, Zeros{PTO_XLEN} + 0x9, TRUE);" in text
    calls = [line.strip() for line in text.splitlines() if "AVSStep(" in line]
    assert calls == [f"if !AVSStep({n}, Zeros{{PTO_XLEN}} + 0x{w:X}, 32) then return TRUE; end;"
                     for n, w in enumerate(spec_test_case().program)]
    assert text.startswith("// PTO-AVS-X-ASLREF-TEST::spec-words\nfunc AVSCase3() => boolean")
    assert len(steps) == 6 and steps[0] == ".word 0xd9b19181"


def test_initial_state_modes_write_what_the_vector_format_defines():
    tile = {"index": 2, "dtype": "FP16", "capacity": 256, "cols": 8, "valid": [2, 3], "layout": "RowMajor",
            "location": "Any", "mask": "1000", "defined": "all", "fill": 0x3C00, "elements": {"5,7": 0x1234}}
    state = {"tile_capacity": 4096, "status": 0x14, "gprs": {5: -1}, "tiles": [tile]}
    lines = program._state_lines(state)
    assert lines[:3] == ["_SystemRegisters.tile_capacity = Zeros{PTO_XLEN} + 0x1000;",
                         "_SystemRegisters.core_state[36:32] = '10100';",
                         "AVSSetGPR(5, Zeros{PTO_XLEN} + 0xFFFFFFFFFFFFFFFF);"]
    # defined: all -> every coordinate defined (fill inside the valid region, 0 outside), then the element.
    assert lines[4] == "AVSDefine(2, -1, -1, Zeros{PTO_XLEN} + 0x3C00);"
    assert lines[5] == "AVSPut(2, 5, 7, Zeros{PTO_XLEN} + 0x1234, TRUE);"
    none = dict(tile, defined="none")
    lines = program._tile_lines(none)
    assert lines[1:] == ["AVSStoreValid(2, Zeros{PTO_XLEN} + 0x3C00);",
                         "AVSPut(2, 5, 7, Zeros{PTO_XLEN} + 0x1234, FALSE);"]
    valid = dict(tile, defined="valid", fill=0, data=[[1, 0, 2], [0, 0, 3]], elements={"0,4": 9, "1,1": 8})
    del valid["fill"]
    lines = program._tile_lines(valid)
    assert lines[1:7] == [f"AVSPut(2, {r}, {c}, Zeros{{PTO_XLEN}} + 0x{v:X}, TRUE);"
                          for r, row in enumerate(valid["data"]) for c, v in enumerate(row)]
    assert lines[7:] == ["AVSPut(2, 0, 4, Zeros{PTO_XLEN} + 0x9, FALSE);",  # outside the valid region
                         "AVSPut(2, 1, 1, Zeros{PTO_XLEN} + 0x8, TRUE);"]


def test_cube_tiles_and_direct_calls():
    cube = {"index": 3, "dtype": "FP32", "capacity": 128, "valid": [1, 1], "layout": "CUBE_M16",
            "location": "Matrix", "mask": "1111", "defined": "valid", "data": [[5]]}
    assert program._tile_lines(cube)[0] == ("if !AVSConfigureCubeTile(3, 128, 1, 1, TileDataType_FP32, "
                                            "TileLayout_CUBE_M16, TileLocation_Matrix, '1111') then return FALSE; end;")
    calls = program.program_steps([
        {"call": "TCVT", "dst": 0, "src": 0, "dtype": "U8", "rounding": "RNE", "sat": 0, "canonicalize": 0,
         "layout": "NORM", "pad": "Zero"},
        {"call": "TQUANT", "dst": 0, "src": 1, "multiplier": 0x3F800000, "zero_point": 0},
        {"call": "TMULS", "dst": "T1", "src": 0, "scalar": 3, "pad": "Null"},
        {"call": "TGEMV_MX_ACC", "dst": 4, "acc": 3, "a": 1, "a_scale": 0, "b": 2, "b_scale": 0,
         "atype": "FP16", "btype": "FP16"}], CONTRACTS, "AVSCase9")
    # B.DATR fields as the spec's TCVT alias test point sets them: DataType 27 (U8), Layout 0, PadValue 00.
    assert calls[0][0] == ("AVSDirectTCVT(0, 0, 0, '11011', FALSE, '00000', '00', '001', NumericRound_RNE, FALSE, "
                           "FALSE, FALSE)")
    # rounding omitted: the operation default (RNE for TQUANT).
    assert calls[1][0] == ("AVSDirectTQUANT(1, 0, 1, Zeros{PTO_XLEN} + 0x3F800000, Zeros{PTO_XLEN} + 0x0, "
                           "NumericRound_RNE, FALSE)")
    # other operations: a function calling the contract's legality and the contract, operands in order.
    assert calls[2][0] == "AVSCase9Step2()"
    assert "    legal = legal && InstructionContractOperandsLegal_TMULS(1, 0, Zeros{PTO_XLEN} + 0x3);\n" in calls[2][2]
    assert "    if legal then InstructionContractExecute_TMULS(1, 0, Zeros{PTO_XLEN} + 0x3); end;\n" in calls[2][2]
    assert "AVSSetDataAttributes" not in calls[2][2]  # PadValue Null: no B.DATR
    padded = program.program_steps([{"call": "TADD", "dst": 2, "src": 0, "src1": 1, "pad": "Max"}], CONTRACTS)
    assert "InstructionContractExecute_TADD(2, 0, 1);" in padded[0][2]
    assert ("legal = AVSSetDataAttributes(TileDataTypeToEncoding(_Tiles[[0]].data_type), Zeros{5}, '01', "
            "Zeros{3}, FALSE, FALSE);") in padded[0][2]
    # DataType 4 (FP16) for both sides, as the spec's TGEMV_MX_ACC direct test point selects.
    assert calls[3][0] == "AVSDirectTGEMV_MX_ACC(3, 4, 3, 1, 0, 2, 0, '00100', FALSE, '00100', TRUE)"
    assert [d for _, d, _ in calls] == ["direct TCVT", "direct TQUANT", "direct TMULS", "direct TGEMV_MX_ACC"]


def test_generation_histogram_and_dequantize_direct_calls_have_their_shims():
    # booleans, TTRI's integer {-65535..65535} diagonal (a signed Word too) and THISTOGRAM's {0..3} ByteId
    calls = program.program_steps([
        {"call": "TCI", "dst": 0, "start": (1 << 64) - 1, "descending": 1},
        {"call": "TTRI", "dst": 1, "upper": 0, "diagonal": -65535},
        {"call": "TTRI", "dst": 1, "upper": 1, "diagonal": (1 << 64) - 3},
        {"call": "THISTOGRAM", "dst": 0, "src": 1, "src1": 2, "selected_byte": 3},
        {"call": "TDEQUANT", "dst": 0, "src": 1, "multiplier": 0x3F800000, "zero_point": 0, "sat": 1}], CONTRACTS)
    assert [c for c, _, _ in calls] == [
        "AVSDirectTCI(0, 0, Zeros{PTO_XLEN} + 0xFFFFFFFFFFFFFFFF, TRUE)", "AVSDirectTTRI(1, 1, FALSE, -65535)",
        "AVSDirectTTRI(2, 1, TRUE, -3)", "AVSDirectTHISTOGRAM(3, 0, 1, 2, 3)",
        "AVSDirectTDEQUANT(4, 0, 1, Zeros{PTO_XLEN} + 0x3F800000, Zeros{PTO_XLEN} + 0x0, NumericRound_RNE, TRUE)"]
    assert all(f"func {c.split('(')[0]}(" in program.HARNESS.read_text() for c, _, _ in calls)
    for item, words in (({"call": "TTRI", "dst": 0, "diagonal": 65536}, "diagonal 65536 is outside -65535..65535"),
                        ({"call": "THISTOGRAM", "dst": 0, "src": 1, "src1": 2, "selected_byte": 4},
                         "selected_byte 4 is outside 0..3")):
        with pytest.raises(ValueError, match=words):
            program.program_steps([item], CONTRACTS)
    case = spec_test_case()
    direct = Case(case.vector_id, "tci", "TCI", "execution", ("pto-v0",), (), (), case.state,
                  ({"call": "TCI", "dst": 0, "start": 5, "descending": 0},), {})
    assert program.unsupported(direct, CONTRACTS) is None


def test_cases_the_spec_cannot_take_are_refused_before_any_run():
    case = spec_test_case()
    too_big = Case(case.vector_id, "big", "TCVT", "execution", ("pto-v0",), (), (),
                   dict(case.state, tiles=[dict(case.state["tiles"][0], capacity=1 << 20)]), case.program, {})
    with pytest.raises(ValueError, match="capacity 1048576 is outside 0..262144"):
        program.case_function(0, too_big, CONTRACTS)
    post = Case(case.vector_id, "post", "TGEMV_MX_ACC", "execution", ("pto-v0",), (), (), case.state,
                ({"call": "TGEMV_MX_ACC", "dst": 4, "acc": 3, "a": 1, "b": 2, "fpatr": {"PreQuantMode": 1}},), {})
    assert "post-processing" in program.unsupported(post, CONTRACTS)
    unknown = Case(case.vector_id, "sel", "TSEL", "execution", ("pto-v0",), (), (), case.state,
                   ({"call": "TSEL", "dst": 4, "src": 1, "src1": 2, "src2": 3},), {})
    assert "no direct-call contract InstructionContractExecute_TSEL" in program.unsupported(unknown, CONTRACTS)


def test_batch_program_restores_the_snapshot_before_every_case():
    globals_ = [("_Tiles", "array [[PTO_TILE_REGISTER_COUNT]] of TileInfo"), ("_LastFault", "FaultCode")]
    text = program.batch_program([(0, "f0"), (5, "f5")], globals_, "snapshot")
    assert "var AVSShadow_Tiles : array [[PTO_TILE_REGISTER_COUNT]] of TileInfo;" in text
    assert "    AVSShadow_LastFault = _LastFault;" in text and "    _LastFault = AVSShadow_LastFault;" in text
    main = text[text.index("func main()"):].splitlines()
    assert main[2:5] == ["    ResetProfileState();", "    AVSSnapshot();", "    AVSRestore();"]
    assert main.count("    AVSRestore();") == 2 and main.count("    ResetProfileState();") == 1
    fresh = program.batch_program([(5, "f5")], globals_, "fresh")
    assert "AVSSnapshot" not in fresh and "AVSRestore" not in fresh
    with pytest.raises(ValueError):
        program.batch_program([(0, "f0"), (5, "f5")], globals_, "fresh")


def test_spec_globals_and_config_bounds_are_read_from_the_spec_text():
    text = ("config PTO_MODEL_TILE_ELEMENTS : integer {1..32768} = 32768;\n"
            "var _PC : Word;\nfunc F()\nbegin\n    var local : integer = 0;\nend;\n"
            "var _GQMQueueHead : array [[PTO_MODEL_GQM_QUEUE_SLOTS]]\n    of GQMQueueEntryIndex;\n")
    spec = Spec(Path("/nonexistent"), "aslref", text)
    assert spec.globals() == [("_PC", "Word"), ("_GQMQueueHead", "array [[PTO_MODEL_GQM_QUEUE_SLOTS]] of GQMQueueEntryIndex")]
    assert spec.config() == {"PTO_MODEL_TILE_ELEMENTS": 32768}
    contracts = Spec(Path("/nonexistent"), "aslref", (
        "readonly func InstructionContractOperandsLegal_TADDS(\n    destination: TileIndex,\n    source: TileIndex,\n"
        "    scalar: Word) => boolean\nfunc InstructionContractExecute_TADDS(\n    destination: TileIndex,\n"
        "    source: TileIndex,\n    scalar: Word)\nbegin\nend;\n"
        "func InstructionContractExecute_TCVT(destination: TileIndex, source: TileIndex,\n"
        "    control: NumericExecutionControl)\nfunc InstructionContractExecute_TNOLEGAL(d: TileIndex)\n"))
    assert contracts.direct_contracts() == {"TADDS": ("TileIndex", "TileIndex", "Word")}


# ---------------------------------------------------------------------------
# the interpreter's output read back


PRINTED = """C 3
F Fault_None
N 16
U 1536
T 0 TileStorage_Numeric TileDataType_U16 TileLayout_ColumnMajor TileLocation_Any 2 2 1 2 256 15
R 0:1:7 2:1:65545
R 1:0:0 3:0:0
T 1 TileStorage_Numeric TileDataType_U8 TileLayout_RowMajor TileLocation_Any 1 2 1 2 128 8
R 0:1:7 1:1:9
Q 3
C 4
X 2 Fault_TileLegality
F Fault_TileLegality
N 0
U 512
Q 4
C 5
Z ConfigureCubeTileForMask refused tile 3
Q 5
C 6
X 0 Fault_InstructionPC
F Fault_InstructionPC
N 0
U 0
Q 6
C 7
F Fault_None
"""


def test_output_becomes_observations():
    printed = output.split_cases(PRINTED)
    assert sorted(printed) == [3, 4, 5, 6, 7] and not printed[7].complete
    first = output.observation(printed[3], [])
    assert (first.fault, first.flags, first.error, sorted(first.tiles)) == (None, 16, None, [0, 1])
    tile = first.tiles[0]
    assert (tile.dtype, tile.layout, tile.location, tile.rows, tile.cols, tile.valid, tile.capacity, tile.mask) == \
        ("U16", "ColumnMajor", "Any", 2, 2, (1, 2), 256, "1111")
    assert tile.words == [[7, 65545], [0, 0]] and tile.defined == [[True, True], [False, False]]
    assert tile.storage == [7, 0, 9, 0]  # by printed storage index, reduced to the 16 element bits
    assert first.tiles[1].mask == "1000"
    rejected = output.observation(printed[4], ["a", "b", "B.IOT T1, ...", "d"])
    assert rejected.fault == "Fault_TileLegality" and rejected.tiles == {}
    assert rejected.detail == "step 2 (B.IOT T1, ...) not executed: Fault_TileLegality; capacity in use 512 B"
    assert output.observation(printed[5], []).error.startswith("initial state rejected by the spec: ConfigureCube")
    assert "Fault_InstructionPC, a fault class outside" in output.observation(printed[6], ["BSTART"]).error


def test_truncated_tile_output_is_a_device_error_for_that_case():
    broken = output.split_cases("C 1\nF Fault_None\nN 0\nU 0\nT 0 TileStorage_Numeric TileDataType_U8 "
                                "TileLayout_RowMajor TileLocation_Any 2 2 1 1 128 15\nR 0:1:1 1:0:0\nQ 1\n")
    assert "1 rows printed for 2" in output.observation(broken[1], []).error


def test_asl_errors_name_the_spec_source_line():
    assembled = "\n".join(["// Generated", "", "// Source: build/pto-spec.asl", "x", "// Source: asl/a.asl",
                           "func F()", "begin", "    assert FALSE;", "end;", "// Source: /tmp/run/batch.asl", "y"])
    origin = source_lines(assembled)
    assert origin[8] == ("asl/a.asl", 3) and origin[11] == ("/tmp/run/batch.asl", 1)
    stderr = ("File program.asl, line 3, characters 1 to 2:\nASL Warning: Removing some values\n"
              "File program.asl, line 8, characters 11 to 16:\n    assert FALSE;\n           ^^^^^\n"
              "ASL Dynamic error: Assertion failed: FALSE.\n")
    assert describe_error(stderr, origin) == "ASL Dynamic error: Assertion failed: FALSE. (at asl/a.asl:3)"
    assert describe_error("File program.asl, line 11, characters 1 to 2:\nASL Typing error: bad.\n", origin) == \
        "ASL Typing error: bad. (at batch.asl:1)"


def test_device_needs_a_checkout_and_an_interpreter(monkeypatch, tmp_path):
    monkeypatch.delenv(SPEC_ENV, raising=False)
    monkeypatch.delenv(ASLREF_ENV, raising=False)
    with pytest.raises(ValueError, match=f"no spec checkout.*{SPEC_ENV}"):
        open_device("aslref")
    with pytest.raises(ValueError, match=f"no interpreter.*{ASLREF_ENV}"):
        open_device(f"aslref:{tmp_path}")
    with pytest.raises(ValueError, match="make build"):
        open_device(f"aslref:{tmp_path},aslref=/bin/true")
    with pytest.raises(ValueError, match="aslref option 'speed=9'"):
        open_device(f"aslref:{tmp_path},speed=9")


# ---------------------------------------------------------------------------
# the committed recording of the spec's answers


@pytest.fixture(scope="module")
def shipped():
    return spec_check.shipped_cases()


# Shipped pto-v0 cases the spec build cannot run by design: their memory size differs from the
# build's PTO_MODEL_MEMORY_BYTES (4096, a config bound fixed when the spec is built), so the
# spec device answers "not supported" (recorded as such); the golden model runs them.
OTHER_MEMORY_SIZE = {
    "PTO-AVS-X-TLOAD-REF-001::memory-256-top", "PTO-AVS-X-TLOAD-REF-001::memory-256-page-fault",
    "PTO-AVS-X-TLOAD-REF-001::memory-65536-top", "PTO-AVS-X-TSTORE-REF-001::memory-256-top",
    "PTO-AVS-X-TSTORE-REF-001::memory-65536-page-fault",
} | {f"PTO-AVS-X-{op}-REF-001::memory-256-{where}"  # the gather/scatter files: the top lane and a page fault
     for op in ("MGATHER", "MGATHER-MASK", "MGATHER-CAS", "MSCATTER", "MSCATTER-MASK") for where in ("top", "page-fault")}


def test_the_cases_of_another_memory_size_are_those_the_recording_does_not_support(shipped):
    device = open_device(f"replay:{RECORDING}")
    refused = {case.id for case in shipped if device.supports(case) is not None}
    assert refused == OTHER_MEMORY_SIZE
    assert all(case.state["memory"]["size"] != 4096 for case in shipped if case.id in OTHER_MEMORY_SIZE)


def test_recording_answers_every_shipped_pto_v0_case_as_its_vector_expects(shipped):
    device = open_device(f"replay:{RECORDING}")
    assert device.capabilities.profile == "pto-v0" and "encoding" not in device.capabilities.aspects
    missing, disagreeing, agreeing_again = [], [], []
    for case in shipped:
        reason = device.supports(case) or (None if case.id in device.cases else "not in the recording")
        if case.id in OTHER_MEMORY_SIZE:
            continue
        if reason is not None:
            missing.append(f"{case.id}: {reason}")
            continue
        verdict = compare(case, device.execute(case), device.capabilities.aspects)
        if verdict.outcome in ("fail", "device error") and case.id not in KNOWN_DISAGREEMENTS:
            disagreeing.append(f"{case.id}: {verdict.report().splitlines()[0]}")
        elif verdict.outcome not in ("fail", "device error") and case.id in KNOWN_DISAGREEMENTS:
            agreeing_again.append(case.id)
    refresh = "refresh it: pto-avs spec-check --record " + str(RECORDING.relative_to(RECORDING.parents[2]))
    assert not missing, f"{len(missing)} shipped pto-v0 case(s) without a recorded spec answer ({refresh}):\n" + \
        "\n".join(missing[:20])
    assert not disagreeing, f"{len(disagreeing)} case(s) where the spec disagrees with the vector:\n" + \
        "\n".join(disagreeing[:20])
    assert not agreeing_again, f"listed as known disagreements but the spec agrees: {agreeing_again}"


def test_recording_holds_only_the_spec_device():
    recording = Recording.read(RECORDING)
    assert list(recording.devices) == [spec_check.RECORDING_LABEL]


def test_spec_check_on_the_recording_prints_agreement_per_operation(capsys, shipped):
    args = spec_check.build_parser().parse_args(["--device", f"replay:{RECORDING}", "--no-golden"])
    status = spec_check.run(args)
    lines = capsys.readouterr().out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.split()[:2] == ["operation", "pass"])
    table = lines[header + 1:next(i for i, line in enumerate(lines) if line.startswith("all "))]
    rows = {line.split()[0]: [int(v) for v in line.split()[1:]] for line in table}
    assert set(rows) == {case.operation for case in shipped}
    assert sum(row[0] for row in rows.values()) == len(shipped) - len(KNOWN_DISAGREEMENTS) - len(OTHER_MEMORY_SIZE)
    assert sum(row[-1] for row in rows.values()) == len(OTHER_MEMORY_SIZE)  # the not-supported column
    assert status == (1 if KNOWN_DISAGREEMENTS else 0)


# ---------------------------------------------------------------------------
# live: the real interpreter and spec checkout

LIVE_REASON = (f"live aslref tests need {ASLREF_ENV} (the aslref interpreter) and {SPEC_ENV} (a pto-spec checkout "
               "after 'make build'); see plugins/aslref/README.md")
live = pytest.mark.skipif(not (os.environ.get(ASLREF_ENV) and os.environ.get(SPEC_ENV)), reason=LIVE_REASON)


def broken_state_case() -> Case:
    """A tile the spec's ConfigureTileForMask asserts against: four PEs of 128 B in a 256 B core capacity."""
    case = spec_test_case("capacity-assertion")
    return Case(case.vector_id, case.name, case.operation, case.kind, case.profiles, (), (),
                dict(case.state, tile_capacity=256), case.program, {})


@pytest.fixture(scope="module")
def live_batch():
    """One batch on the real spec: a good case, one the spec asserts on, two more good ones."""
    device = open_device("aslref")
    cases = [spec_test_case("first"), broken_state_case(), spec_test_case("third"),
             Case("PTO-AVS-X-ASLREF-TEST", "illegal-word", "TCVT", "fault", ("pto-v0",), (), (),
                  spec_test_case().state, (0xFFFFFFFF,), {"fault": "Fault_IllegalInstruction", "unchanged": "all"})]
    observations = device.execute_batch(cases)
    return device, cases, observations


@live
def test_live_spec_answers_and_an_asl_assertion_is_a_device_error_for_that_case_only(live_batch):
    device, cases, observations = live_batch
    for index in (0, 2, 3):
        verdict = compare(cases[index], observations[index], device.capabilities.aspects)
        assert verdict.outcome == "pass", verdict.report()
    error = observations[1].error
    assert error.startswith("ASL error in this case: ASL Dynamic error: Assertion failed")
    assert "(at asl/tile/model/state/allocation.asl:" in error
    assert len(device.runs) == 2  # the run ended in case 1; cases 2 and 3 ran in a second run


@live
def test_live_snapshot_restore_gives_the_same_answers_as_a_fresh_reset(live_batch):
    device, cases, _ = live_batch
    fresh = open_device("aslref:,reset=fresh")
    sample = [0, 3]
    fresh.execute_batch([cases[i] for i in sample])
    assert len(fresh.runs) == len(sample)  # one interpreter run (and ResetProfileState) per case
    for position, number in enumerate(sample):
        snapshot_lines = next(output.split_cases(run.stdout)[number].lines for run in device.runs
                              if number in output.split_cases(run.stdout))
        # the fresh device numbers the cases by their place in its own batch
        assert output.split_cases(fresh.runs[position].stdout)[position].lines == snapshot_lines


@live
def test_live_model_size_bounds_equal_the_golden_models_copies():
    from pto_avs.device_model.layouts import MODEL_TILE_ELEMENTS

    spec = locate(None, None)
    assert spec.config()["PTO_MODEL_TILE_ELEMENTS"] == MODEL_TILE_ELEMENTS
    assert spec.globals() and all(name.startswith("_") for name, _ in spec.globals())
