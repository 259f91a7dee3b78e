"""The comparator: per-aspect verdicts, element-bit versus carrier comparison, padding,
sources, observability, malformed observations and the failure report.

Cases and observations are written here by hand; every expected verdict follows from
the rules of vectors/FORMAT.md and the values named in the comments.
"""
from __future__ import annotations

from pto_avs.contract.case import ASPECTS, Case, Observation, TileObservation
from pto_avs.contract.compare import FAIL, NOT_OBSERVABLE, PASS, compare, describe_bits, expected_aspects

EVERYTHING = frozenset(ASPECTS)


def case(expect, state_tiles=(), profiles=("pto-v0",)):
    return Case(vector_id="PTO-AVS-X-RUNNER-COMPARE-001", name="c", operation="TCVT", kind="execution",
                profiles=profiles, adrs=("ADR-0047",), requirements=(),
                state={"tile_capacity": 262144, "status": 0, "gprs": {}, "tiles": list(state_tiles)},
                program=("BSTOP",), expect={"fault": None, **expect})


def tile(dtype, valid, values, *, rows=16, cols=8, defined=None, **descriptor):
    """An observed tile; ``defined``: set of coordinates (default: the valid region)."""
    vr, vc = valid
    words = [[values.get((r, c), 0) for c in range(cols)] for r in range(rows)]
    flags = [[(r, c) in defined if defined is not None else (r < vr and c < vc) for c in range(cols)]
             for r in range(rows)]
    fields = {"layout": "RowMajor", "location": "Any", "capacity": 128, "mask": "1111", **descriptor}
    return TileObservation(dtype=dtype, rows=rows, cols=cols, valid=valid, words=words, defined=flags, **fields)


def test_payload_compares_element_bits_and_carrier_whole_words():
    # pto-v0 TQUANT Sat=0 of 200.0 to S8 leaves -56 as the sign-extended Word 0xFFFFFFFFFFFFFFC8
    # (spec test TQUANT-SAT-001); its S8 element bits are 0xC8.
    expect = {"tiles": [{"index": 0, "dtype": "S8", "data": [[0xC8]], "words": [[0xFFFFFFFFFFFFFFC8]]}]}
    sign_extended = Observation(fault=None, flags=0, tiles={0: tile("S8", (1, 1), {(0, 0): 0xFFFFFFFFFFFFFFC8})})
    verdict = compare(case(expect), sign_extended, EVERYTHING)
    assert {a: v.status for a, v in verdict.aspects.items()} == {
        "fault": PASS, "descriptor": PASS, "payload": PASS, "carrier": PASS}
    truncated = Observation(fault=None, flags=0, tiles={0: tile("S8", (1, 1), {(0, 0): 0xC8})})
    verdict = compare(case(expect), truncated, EVERYTHING)
    assert verdict.failed == ["carrier"]
    assert str(verdict.aspects["carrier"].first) == (
        "tile 0 (0,0): expected 0xFFFFFFFFFFFFFFC8, observed 0xC8")


def test_padding_definedness_and_values_are_separate_aspects():
    # Null padding (FORMAT.md: padding {defined: false}) versus a device that defined (0,2) with 0xAA.
    expect = {"tiles": [{"index": 0, "data": [[7, 9]], "padding": {"defined": False}}]}
    valid_only = {(0, 0), (0, 1)}
    good = Observation(fault=None, tiles={0: tile("U8", (1, 2), {(0, 0): 7, (0, 1): 9, (0, 2): 0xAA},
                                                 defined=valid_only)})
    assert compare(case(expect), good, EVERYTHING).outcome == PASS
    bad = Observation(fault=None, tiles={0: tile("U8", (1, 2), {(0, 0): 7, (0, 1): 9, (0, 2): 0xAA},
                                                defined=valid_only | {(0, 2)})})
    verdict = compare(case(expect), bad, EVERYTHING)
    assert verdict.failed == ["padding_defined"]
    padding = verdict.aspects["padding_defined"]
    assert (padding.checked, padding.mismatches) == (16 * 8 - 2, 1)
    assert str(padding.first) == "tile 0 (0,2): expected undefined, observed defined"
    assert padding.diff[1:] == ["      01234567", "    0   d.....", " 1-15 (no differences)"]
    # Zero padding: values are checked only where the device reports the coordinate defined.
    zero = {"tiles": [{"index": 0, "data": [[7, 9]], "padding": {"defined": True, "value": 0}}]}
    everywhere = {(r, c) for r in range(16) for c in range(8)}
    dirty = Observation(fault=None, tiles={0: tile("U8", (1, 2), {(0, 0): 7, (0, 1): 9, (15, 7): 0x80},
                                                  defined=everywhere - {(3, 3)})})
    verdict = compare(case(zero), dirty, EVERYTHING)
    assert verdict.failed == ["padding_defined", "padding_value"]
    assert str(verdict.aspects["padding_defined"].first) == "tile 0 (3,3): expected defined, observed undefined"
    assert verdict.aspects["padding_value"].checked == 16 * 8 - 2 - 1
    assert str(verdict.aspects["padding_value"].first) == "tile 0 (15,7): expected 0x00 (0), observed 0x80 (128)"


def test_elements_inside_the_valid_region_are_payload_outside_padding():
    expect = {"tiles": [{"index": 0, "valid": [1, 2], "elements": {"0,1": {"value": 9}, "0,2": {"defined": True},
                                                                   "3,0": {"value": 0}}}]}
    assert expected_aspects(case(expect)) == ["fault", "descriptor", "payload", "padding_defined",
                                              "padding_value"]
    without_valid = {"tiles": [{"index": 0, "elements": {"0,2": {"defined": True}}}]}
    # Without an expected valid region the observed one decides: (0,2) lies outside 1x2.
    observation = Observation(fault=None, tiles={0: tile("U8", (1, 2), {})})
    assert expected_aspects(case(without_valid), observation) == ["fault", "padding_defined"]


def test_undefined_valid_element_is_reported_as_undefined_not_as_a_value():
    expect = {"tiles": [{"index": 0, "data": [[7, 9]]}]}
    observation = Observation(fault=None, tiles={0: tile("U8", (1, 2), {(0, 0): 7}, defined={(0, 0)})})
    payload = compare(case(expect), observation, EVERYTHING).aspects["payload"]
    assert (payload.checked, payload.mismatches) == (2, 1)
    assert str(payload.first) == "tile 0 (0,1): expected defined, observed undefined"


def test_sources_compare_the_initial_state_where_it_was_defined():
    source = {"index": 1, "dtype": "S8", "capacity": 128, "cols": 8, "valid": [1, 2], "layout": "RowMajor",
              "location": "Any", "mask": "1111", "defined": "valid", "data": [[0xFFFFFFFFFFFFFFC8, 5]],
              "elements": {"4,4": 0x55}}
    expect = {"unchanged": [1]}
    # The undefined (4,4) may hold anything; the S8 Word reads back as written.
    same = Observation(fault=None, tiles={1: tile("S8", (1, 2), {(0, 0): 0xFFFFFFFFFFFFFFC8, (0, 1): 5})})
    assert compare(case(expect, [source]), same, EVERYTHING).outcome == PASS
    overwritten = Observation(fault=None, tiles={1: tile("S8", (1, 2), {(0, 0): 0xC8, (0, 1): 6})})
    sources = compare(case(expect, [source]), overwritten, EVERYTHING).aspects["sources"]
    assert sources.status == FAIL and sources.mismatches == 1
    assert str(sources.first) == "tile 1 (0,1): expected 0x05 (5), observed 0x06 (6)"
    freed = Observation(fault=None, tiles={})
    assert str(compare(case(expect, [source]), freed, EVERYTHING).aspects["sources"].first) == (
        "tile 1: expected an allocated tile, observed no tile")


def test_descriptor_storage_flags_encoding_fault():
    expect = {"fault": "Fault_TileLegality", "flags": 0x10, "encoding": [0xD9B19181, 0x00000001],
              "allocated": [0, 1],
              "tiles": [{"index": 0, "dtype": "U16", "layout": "ColumnMajor", "valid": [1, 2],
                         "storage": {16: 9}}]}
    storage = [0] * 128
    storage[16] = 8
    observed = tile("U16", (1, 2), {}, layout="RowMajor", capacity=256)
    observed.storage = storage
    observation = Observation(fault=None, flags=0x14, encoding=[0xD9B19181], tiles={0: observed})
    verdict = compare(case(expect), observation, EVERYTHING)
    assert verdict.failed == ["fault", "flags", "descriptor", "storage", "encoding"]
    text = verdict.report()
    assert "fault: 1 of 1 differ; first divergence fault: expected Fault_TileLegality, observed no fault" in text
    assert "flags: 1 of 1 differ; first divergence NumericStatus: expected 0x10 (NX), observed 0x14 (OF NX)" in text
    assert ("descriptor: 2 of 4 differ; first divergence allocated tiles: expected [0, 1], observed [0]" in text
            and "also tile 0 layout: expected ColumnMajor, observed RowMajor" in text)
    assert "storage: 1 of 1 differ; first divergence tile 0 storage[16]: expected 0x0009 (9), observed 0x0008 (8)" in text
    assert "encoding: 1 of 2 differ; first divergence encoding[1]: expected 0x00000001, observed no word" in text


def test_unobservable_aspects_are_not_checked_and_not_passed():
    expect = {"flags": 0x10, "tiles": [{"index": 0, "data": [[1]]}]}
    observation = Observation(fault=None, flags=None, tiles={0: tile("E8M0", (1, 1), {(0, 0): 1})})
    verdict = compare(case(expect), observation, frozenset({"payload", "fault"}))
    assert verdict.outcome == PASS
    assert verdict.unobserved == ["flags"]
    blind = compare(case(expect), observation, frozenset({"storage"}))
    assert blind.outcome == NOT_OBSERVABLE and blind.passed == []
    # Declared observable but left out: a failure, not a silent pass.
    assert compare(case(expect), observation, EVERYTHING).failed == ["flags"]


def test_device_error_and_malformed_observations():
    expect = {"tiles": [{"index": 0, "data": [[1]]}]}
    assert compare(case(expect), Observation.device_error("hung"), EVERYTHING).outcome == "device error"
    ragged = tile("U8", (1, 1), {(0, 0): 1})
    ragged.words = [[1, 2], [3]]
    verdict = compare(case(expect), Observation(fault=None, tiles={0: ragged}), EVERYTHING)
    assert verdict.outcome == "device error" and verdict.error.startswith("malformed observation: tile 0 words")
    not_a_tile = Observation(fault=None, tiles={0: {"words": [[1]]}})
    assert compare(case(expect), not_a_tile, EVERYTHING).error == (
        "malformed observation: tile entry 0 is not a TileIndex with a TileObservation")
    negative = tile("U8", (1, 1), {(0, 0): -1})
    assert compare(case(expect), Observation(fault=None, tiles={0: negative}), EVERYTHING).error.startswith(
        "malformed observation: tile 0 words:")


def test_grids_given_as_arrays_are_judged_as_the_same_lists_are():
    """An in-process device may answer numpy arrays (the golden device does): the verdicts are
    those of the same values as lists, a signed array is judged value by value (a negative Word
    is malformed, not wrapped to 2**64 - 1), and ``to_json`` writes lists."""
    import json

    import numpy as np

    expect = {"tiles": [{"index": 0, "data": [[7, 9]], "padding": {"defined": False}}]}
    for values in ({(0, 0): 7, (0, 1): 9}, {(0, 0): 7, (0, 1): 8}):
        listed = tile("U8", (1, 2), values)
        arrays = tile("U8", (1, 2), values)
        arrays.words, arrays.defined = np.array(arrays.words, np.uint64), np.array(arrays.defined)
        got = [compare(case(expect), Observation(fault=None, tiles={0: t}), EVERYTHING) for t in (listed, arrays)]
        assert [v.outcome for v in got] == ["pass", "pass"] if values[(0, 1)] == 9 else ["fail", "fail"]
        assert got[0].report() == got[1].report()
        assert json.dumps(arrays.to_json()) == json.dumps(listed.to_json())
    stored = {"tiles": [{"index": 0, "dtype": "U8", "storage": {1: 9}}]}
    for storage in ([7, 9, 0], [7, 8, 0]):
        listed = tile("U8", (1, 2), {(0, 0): 7, (0, 1): 9}, storage=storage)
        arrays = tile("U8", (1, 2), {(0, 0): 7, (0, 1): 9}, storage=np.array(storage, np.uint64))
        got = [compare(case(stored), Observation(fault=None, tiles={0: t}), EVERYTHING) for t in (listed, arrays)]
        assert [v.aspects["storage"].status for v in got] == [PASS, PASS] if storage[1] == 9 else [FAIL, FAIL]
        assert got[0].report() == got[1].report()
    signed = tile("U8", (1, 2), {(0, 0): 7, (0, 1): 9})
    signed.words = np.array(signed.words, np.int64)
    signed.words[0, 0] = -1
    verdict = compare(case(expect), Observation(fault=None, tiles={0: signed}), EVERYTHING)
    assert verdict.outcome == "device error" and verdict.error.startswith("malformed observation: tile 0 words:")


def test_large_tile_diff_shows_a_window_around_the_first_divergence():
    expect = {"tiles": [{"index": 0, "fill": 0}]}
    values = {(40, 100): 0xF0, (41, 101): 0x0F}
    observation = Observation(fault=None, tiles={0: tile("U8", (64, 128), values, rows=64, cols=128,
                                                         capacity=8192)})
    payload = compare(case(expect), observation, EVERYTHING).aspects["payload"]
    assert (payload.checked, payload.mismatches) == (64 * 128, 2)
    assert payload.diff[0].startswith("tile 0 rows 40..55 x cols 96..127 of 64x128 [U8]")
    assert payload.diff[1:] == [
        "      " + "67890123456789012345678901234567",  # columns 96..127, last digit
        "   40 ....X" + "." * 27,
        "   41 .....X" + "." * 26,
        "42-55 (no differences)",
        "XOR expected^observed: (40,100) 0xF0, (41,101) 0x0F"]


def test_values_are_shown_decoded():
    # IEEE 754 binary16/bfloat16/binary32 encodings and OCP MX E8M0 (value 2^(e-127)).
    assert describe_bits(0x3FC0, "BF16") == "0x3FC0 (1.5)"
    assert describe_bits(0xFC00, "FP16") == "0xFC00 (-Inf)"
    assert describe_bits(0x7FC00000, "FP32") == "0x7FC00000 (qNaN)"
    assert describe_bits(0x80, "E8M0") == "0x80 (2)"
    assert describe_bits(0x7E, "E8M0") == "0x7E (0.5)"
    assert describe_bits(0xC8, "S8") == "0xC8 (-56)"
    assert describe_bits(0xF, "U4X2") == "0xF (15)"
    assert describe_bits(0x1FF, "U8") == "0x1FF (wider than the element)"


# ---------------------------------------------------------------------------
# the inputs shown at the first divergence


def bundle_case(program, expect_tiles, state_tiles, gprs=None):
    return Case(vector_id="PTO-AVS-X-RUNNER-COMPARE-001", name="inputs", operation="TMULS", kind="execution",
                profiles=("pto-v0", "hw-ieee"), adrs=(), requirements=(),
                state={"tile_capacity": 262144, "status": 0, "gprs": gprs or {}, "tiles": list(state_tiles)},
                program=program, expect={"fault": None, "tiles": expect_tiles})


def test_a_failure_shows_the_source_elements_scalars_controls_and_words_at_its_first_divergence():
    # TMULS U8 of T0 [[7, 0x56]] by R5 = 3 (the TMULS-WIDTH-001 spec test point; its vector lists the
    # words 0xDA219181 0x00200043 0x0008DE13 0x00028013 0x00000001). The device answers 0xFF at (0,1).
    source = {"index": 0, "dtype": "U8", "capacity": 128, "cols": 2, "valid": [1, 2], "data": [[0x7, 0x56]]}
    program = ("BSTART.VEC TMULS, U8\nB.DIM LB0=2\nB.IOT T0, mask=1111, <last>, ->T<1>\nB.IOR R5\nBSTOP",)
    expect = [{"index": 1, "dtype": "U8", "data": [[0x15, 0x02]]}]
    observed = Observation(fault=None, tiles={1: tile("U8", (1, 2), {(0, 0): 0x15, (0, 1): 0xFF}, rows=64, cols=2)})
    verdict = compare(bundle_case(program, expect, [source], {5: 0x3}), observed, EVERYTHING, "pto-v0")
    lines = verdict.report().splitlines()
    at = lines.index("inputs at the first divergence (tile 1 (0,1)):")
    assert lines[at + 1:] == [
        "  profile: pto-v0",
        "  source T[0] (B.IOT) U8 at (0,1): 0x56 (86)",
        "  scalars: B.IOR a3 (R5)=0x3 (low 8 bits as U8: 0x03 (3))",
        "  no B.DATR: rounding the operation default, Sat 0",
        "  instruction words (5):",
        "    0xDA219181  BSTART.VEC TMULS, U8",
        "    0x00200043  B.DIM zero, 2, ->LB0",
        "    0x0008DE13  B.IOT T#1, mask=1111, <last>, ->T<1>",
        "    0x00028013  B.IOR a3",
        "    0x00000001  BSTOP",
    ]
    passing = Observation(fault=None, tiles={1: tile("U8", (1, 2), {(0, 0): 0x15, (0, 1): 0x02}, rows=64, cols=2)})
    clean = compare(bundle_case(program, expect, [source], {5: 0x3}), passing, EVERYTHING, "pto-v0")
    assert clean.outcome == PASS and clean.inputs == []


def test_the_inputs_name_a_datr_rounding_mode_and_sat_and_a_direct_calls_scalars():
    source = {"index": 0, "dtype": "FP32", "capacity": 128, "cols": 2, "valid": [1, 2],
              "data": [[0x3F800000, 0x3FC00000]]}
    program = ("BSTART.VEC TMULS, FP32\nB.DATR RMode=RTZ, Sat=1\nB.DIM LB0=2\n"
               "B.IOT T0, mask=1111, <last>, ->T<1>\nB.IOR R5\nBSTOP",)
    expect = [{"index": 1, "data": [[0x3F800000, 0x3FC00000]]}]
    observed = Observation(fault=None, tiles={1: tile("FP32", (1, 2), {(0, 0): 0x3F800000, (0, 1): 0}, cols=2)})
    report = compare(bundle_case(program, expect, [source], {5: 0x3F800000}), observed, EVERYTHING).report()
    assert "  source T[0] (B.IOT) FP32 at (0,1): 0x3FC00000 (1.5)" in report
    assert "  B.DATR: rounding RTZ (RMode 2), Sat 1" in report
    assert "  profile: not given (the case holds under pto-v0, hw-ieee)" in report
    direct = ({"call": "TMULS", "dst": 1, "src": 0, "scalar": 0x40000000},)
    report = compare(bundle_case(direct, expect, [source]), observed, EVERYTHING, "hw-ieee").report()
    assert "  source T[0] (src) FP32 at (0,1): 0x3FC00000 (1.5)" in report
    assert "  scalars: scalar=0x40000000" in report
    assert "  TMULS call: rounding the operation default, Sat 0" in report
    assert "  direct calls (no instruction words): TMULS(dst=1, src=0, scalar=1073741824)" in report


def test_a_failure_without_a_coordinate_still_names_the_words_and_a_bad_program_says_so():
    expect_fault = Case(vector_id="PTO-AVS-X-RUNNER-COMPARE-001", name="fault", operation="TMULS",
                        kind="execution", profiles=("pto-v0",), adrs=(), requirements=(),
                        state={"tiles": []}, program=(0xFFFFFFFF, "NOT AN INSTRUCTION"),
                        expect={"fault": "Fault_IllegalInstruction"})
    report = compare(expect_fault, Observation(fault=None), EVERYTHING, "pto-v0").report()
    assert "inputs of the case:" in report
    assert "    0xFFFFFFFF  .word 0xffffffff  # matches no command form" in report
    assert "the program does not assemble:" in report
