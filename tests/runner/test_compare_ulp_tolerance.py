"""The per-vector ULP tolerance of TEXP and TLOG under hw-ieee (expect.ulp_tolerance).

The loader takes it only for TEXP/TLOG cases run under hw-ieee alone and without
``words``; the comparator passes a payload element whose finite value lies 1..N
representable values from the expected one and says "within N ULP"; a NaN, an
infinity, the other zero or a farther value still fails. The values are FP32
encodings worked out by hand (0x3F800000 = 1.0, its neighbours 0x3F800001 and
0x3F800002; 0x7F7FFFFF the largest finite value, 0x7F800000 +inf).
"""
from __future__ import annotations

import pytest

from pto_avs.contract import loader
from pto_avs.contract.case import ASPECTS, Case, Observation, TileObservation
from pto_avs.contract.compare import FAIL, PASS, compare

EVERYTHING = frozenset(ASPECTS)


def case(expected: list, tolerance=1):
    expect = {"fault": None, "tiles": [{"index": 1, "dtype": "FP32", "data": [expected]}]}
    if tolerance:
        expect["ulp_tolerance"] = tolerance
    return Case(vector_id="PTO-AVS-X-TEXP-TOLERANCE-001", name="c", operation="TEXP", kind="execution",
                profiles=("hw-ieee",), adrs=("ADR-0080",), requirements=(),
                state={"tile_capacity": 262144, "status": 0, "gprs": {}, "tiles": []},
                program=("BSTOP",), expect=expect)


def observed(values: list):
    cols = len(values)
    tile = TileObservation(dtype="FP32", rows=1, cols=cols, valid=[1, cols], words=[list(values)],
                           defined=[[True] * cols], layout="RowMajor", location="Any", capacity=128, mask="1111")
    return Observation(fault=None, flags=0, tiles={1: tile})


def test_values_within_the_tolerance_pass_and_say_so():
    verdict = compare(case([0x3F800000, 0x3F800001, 0x40000000]), observed([0x3F800001, 0x3F800000, 0x40000000]),
                      EVERYTHING)
    assert verdict.aspects["payload"].status == PASS
    assert verdict.notes == {"payload": "within 1 ULP: 2 element(s) not bit-exact, at most 1 ULP"}


def test_bit_exact_results_carry_no_note():
    verdict = compare(case([0x3F800000]), observed([0x3F800000]), EVERYTHING)
    assert verdict.aspects["payload"].status == PASS and verdict.notes == {}


@pytest.mark.parametrize("expected, got", [
    (0x3F800000, 0x3F800002),  # 2 ULP
    (0x00000000, 0x80000000),  # the other zero (0 ULP apart, different bits)
    (0x7F7FFFFF, 0x7F800000),  # +inf next to the largest finite value
    (0x3F800000, 0x7FC00000),  # NaN
])
def test_values_outside_the_tolerance_fail(expected, got):
    verdict = compare(case([expected]), observed([got]), EVERYTHING)
    assert verdict.aspects["payload"].status == FAIL and verdict.notes == {}


def test_without_a_tolerance_one_ulp_fails():
    verdict = compare(case([0x3F800000], tolerance=None), observed([0x3F800001]), EVERYTHING)
    assert verdict.aspects["payload"].status == FAIL


def _vector(tmp_path, operation: str, profiles: str, extra_tile: str = ""):
    text = f"""format: pto-avs-vector/1
id: PTO-AVS-X-TOLERANCE-001
operation: {operation}
kind: execution
exercises: [ADR-0080]
provenance: tolerance loader test
cases:
  - name: c
    profiles: {profiles}
    source: hand
    reference: r
    program: [1]
    expect:
      ulp_tolerance: 1
      tiles: [{{index: 1, data: [[0x3F800000]]{extra_tile}}}]
"""
    path = tmp_path / "PTO-AVS-X-TOLERANCE-001.yaml"
    path.write_text(text)
    return loader.load_file(path, cache=None).entries[0]


def test_the_loader_takes_a_tolerance_for_hw_ieee_texp_and_tlog_only(tmp_path):
    assert isinstance(_vector(tmp_path, "TEXP", "[hw-ieee]"), Case)
    assert isinstance(_vector(tmp_path, "TLOG", "[hw-ieee]"), Case)
    assert "exactly specified" in _vector(tmp_path, "TADD", "[hw-ieee]").message
    assert "never pto-v0" in _vector(tmp_path, "TEXP", "[pto-v0, hw-ieee]").message
    assert "leave words out" in _vector(tmp_path, "TEXP", "[hw-ieee]", ", words: [[0x3F800000]]").message
