"""Compact state and program summaries shown as Allure parameters (expected strings by hand)."""
from pto_avs.contract.case import Case
from pto_avs.reports import case_report


def test_program_summary_lists_assembly_words_and_direct_calls():
    program = ("BSTART.VEC TCVT, U8\nB.DATR U16, ND2DN, Null; B.DIM LB0=2\n", 0x00000001,
               {"call": "TCVT", "dst": 0, "src": 1, "dtype": "U16"})
    assert case_report.program_summary(program) == (
        "5 items: BSTART.VEC TCVT, U8; B.DATR U16, ND2DN, Null; B.DIM LB0=2; 0x00000001; "
        "TCVT(dst=0, src=1, dtype=U16)")


def test_state_summary_names_tiles_status_gprs_and_a_non_default_capacity():
    state = {"tile_capacity": 4096, "status": 0x04, "gprs": {7: 0x10, 5: 0x3F800000},
             "tiles": [{"index": 1, "dtype": "U8", "layout": "ColumnMajor", "valid": [1, 2]},
                       {"index": 33, "dtype": "FP8E4M3", "layout": "CUBE_M16", "valid": [16, 32]}]}
    assert case_report.state_summary(state) == (
        "T[1] U8 ColumnMajor 1x2; T[33] FP8E4M3 CUBE_M16 16x32; status=0x04; R5=0x3F800000; "
        "R7=0x10; tile_capacity=4096")
    # The loader's defaults (capacity 262144, status 0, no GPRs, no tiles) say nothing.
    assert case_report.state_summary({"tile_capacity": 262144, "status": 0, "gprs": {},
                                      "tiles": []}) == "reset state"


def test_long_summaries_are_clipped():
    text = case_report.program_summary(["B.DIM LB0=1"] * 40)
    assert len(text) == case_report.SUMMARY_LIMIT and text.endswith("…")
    assert text.startswith("40 items: B.DIM LB0=1; B.DIM LB0=1")


def test_labels_of_a_project_case_without_spec_test_link():
    case = Case(vector_id="PTO-AVS-X-TCVT-HW-FP32-FP16-001", name="overflow", operation="TCVT",
                kind="execution", profiles=("hw-ieee",), adrs=("ADR-0083", "ADR-0047"),
                requirements=("PTO-INST-TILE-TCVT",), state={}, path="vectors/x.yaml")
    labels = case_report.labels(case, "golden:hw-ieee", "hw-ieee")
    # One label per ADR, and one naming the set (sorted): the ADR view lists the case once.
    assert [v for n, v in labels if n == "adr"] == ["ADR-0083", "ADR-0047"]
    assert [v for n, v in labels if n == "adrs"] == ["ADRs 0047, 0083"]
    assert not [n for n, _ in labels if n == "epic"]
    assert ("parentSuite", "golden:hw-ieee (hw-ieee)") in labels
    assert ("vectorFile", "vectors/x.yaml") in labels
    assert case_report.links(case) == []  # a project vector has no spec test file
    assert case_report.adr_links(case) == [  # titles from the catalog
        ("ADR-0083 Tile conversion, layout, and partial operations",
         "https://github.com/PTO-ISA/pto-spec/blob/e599a3d36ebfad43362ff591ea5e128816c684c7/"
         "docs/status/decisions/0083-tile-conversion-layout-and-partial-operations.md"),
        ("ADR-0047 Numeric rounding semantics",
         "https://github.com/PTO-ISA/pto-spec/blob/e599a3d36ebfad43362ff591ea5e128816c684c7/"
         "docs/status/decisions/0047-numeric-rounding-semantics.md")]


def test_adr_set_label_is_short_sorted_and_says_when_there_is_none():
    assert case_report.adr_set(("ADR-0081", "ADR-0035", "ADR-0035")) == "ADRs 0035, 0081"
    assert case_report.adr_set(("ADR-0047", "X-1")) == "ADRs 0047, X-1"
    assert case_report.adr_set(()) == "no ADR"
