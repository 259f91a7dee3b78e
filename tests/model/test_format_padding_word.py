"""The `padding.word` expectation: the whole carrier Word of every padded coordinate.

Values follow TilePadValueForDataType (asl/tile/model/definedness/elements.asl): an S8
Min pad is the Word 0x80 (not sign-extended), a HiF8 Max pad in a small tile is the
all-ones Word. The loader accepts and checks the field, the comparator judges it as the
`carrier` aspect, and the example C device (protocol: `words` over all rows x cols)
reports the full Words of the padding of the shipped pad vectors.
"""
from __future__ import annotations

import pytest

from pto_avs.contract import loader
from pto_avs.contract.case import ASPECTS, Case, Observation, TileObservation
from pto_avs.contract.compare import FAIL, PASS, compare, expected_aspects
from pto_avs.plugins import c_device
from pto_avs.plugins.process import ProcessDevice

EVERYTHING = frozenset(ASPECTS)
PAD_VECTORS = loader.VECTORS_DIR / "PTO-AVS-X-TCVT-PAD-001.yaml"


def project_file(tmp_path, padding: str):
    text = f"""format: pto-avs-vector/1
id: PTO-AVS-X-FORMAT-PADDING-WORD-001
operation: TCVT
kind: execution
exercises: [ADR-0083]
provenance: padding word loader tests
cases:
  - name: s8-min
    source: hand
    reference: TilePadValueForDataType(Min, S8) = 0x80
    program: BSTOP
    expect:
      tiles: [{{index: 0, dtype: S8, valid: [1, 1], padding: {padding}}}]
"""
    path = tmp_path / "PTO-AVS-X-FORMAT-PADDING-WORD-001.yaml"
    path.write_text(text)
    return loader.load_file(path)


def test_loader_keeps_the_padding_word():
    (case,) = [c for c in loader.load_file(PAD_VECTORS).cases if c.name == "s8-min"]
    assert case.expect["tiles"][0]["padding"] == {"defined": True, "value": 0x80, "word": 0x80}
    (hif8,) = [c for c in loader.load_file(PAD_VECTORS).cases if c.name == "hif8-max"]
    assert hif8.expect["tiles"][0]["padding"]["word"] == 0xFFFFFFFFFFFFFFFF


@pytest.mark.parametrize("padding, message", [
    ("{defined: false, word: 0}",
     "expect.tiles[0].padding.word: an undefined padding has no word to check (drop word or set defined: true)"),
    ("{defined: true, value: 0x80, word: 0xFFFFFFFFFFFFFF7F}",
     "expect.tiles[0].padding.word: 0xffffffffffffff7f does not hold the element bits padding.value 0x80 of S8"),
    ("{defined: true, word: -1}", "expect.tiles[0].padding.word"),
])
def test_loader_rejects_a_padding_word_that_cannot_hold(tmp_path, padding, message):
    loaded = project_file(tmp_path, padding)
    (error,) = loaded.entries
    assert not isinstance(error, Case)
    assert "case 's8-min'" in error.message and message in error.message, error.message


def test_loader_accepts_a_word_without_a_value(tmp_path):
    (case,) = project_file(tmp_path, "{defined: true, word: 0x80}").cases
    assert case.expect["tiles"][0]["padding"] == {"defined": True, "word": 0x80}


def pad_case(padding: dict) -> Case:
    return Case(vector_id="PTO-AVS-X-FORMAT-PADDING-WORD-001", name="c", operation="TCVT", kind="execution",
                profiles=("pto-v0",), adrs=("ADR-0083",), requirements=(),
                state={"tile_capacity": 262144, "status": 0, "gprs": {}, "tiles": []}, program=("BSTOP",),
                expect={"fault": None, "tiles": [{"index": 0, "dtype": "S8", "valid": [1, 2],
                                                  "data": [[1, 2]], "padding": padding}]})


def observed(pad_word: int, undefined=()) -> Observation:
    """A 16 x 8 S8 tile: valid region [1, 2] holding 1, 2; padding ``pad_word`` (defined
    except at ``undefined``)."""
    words = [[pad_word] * 8 for _ in range(16)]
    words[0][:2] = [1, 2]
    defined = [[(r, c) not in undefined for c in range(8)] for r in range(16)]
    return Observation(fault=None, flags=0, tiles={0: TileObservation(
        dtype="S8", layout="RowMajor", location="Any", rows=16, cols=8, valid=(1, 2), capacity=128,
        mask="1111", words=words, defined=defined)})


def test_the_padding_word_is_the_carrier_aspect():
    expect = {"defined": True, "value": 0x80, "word": 0x80}
    assert "carrier" in expected_aspects(pad_case(expect))
    assert "carrier" not in expected_aspects(pad_case({"defined": True, "value": 0x80}))
    verdict = compare(pad_case(expect), observed(0x80), EVERYTHING)
    assert verdict.outcome == PASS and verdict.aspects["carrier"].checked == 16 * 8 - 2


def test_a_sign_extended_min_pad_fails_only_the_carrier():
    # The element bits of 0xFFFFFFFFFFFFFF80 are 0x80: padding_value cannot see the difference.
    verdict = compare(pad_case({"defined": True, "value": 0x80, "word": 0x80}),
                      observed(0xFFFFFFFFFFFFFF80), EVERYTHING)
    assert verdict.failed == ["carrier"]
    carrier = verdict.aspects["carrier"]
    assert (carrier.checked, carrier.mismatches) == (16 * 8 - 2, 16 * 8 - 2)
    assert str(carrier.first) == "tile 0 (0,2): expected 0x80, observed 0xFFFFFFFFFFFFFF80"
    assert verdict.aspects["padding_value"].status == PASS


def test_an_undefined_padded_coordinate_has_no_word_to_check():
    verdict = compare(pad_case({"defined": True, "value": 0x80, "word": 0x80}),
                      observed(0x80, undefined={(3, 3)}), EVERYTHING)
    assert verdict.aspects["padding_defined"].status == FAIL
    assert verdict.aspects["carrier"].status == PASS
    assert verdict.aspects["carrier"].checked == 16 * 8 - 3


@pytest.fixture(scope="module")
def pto_v0_c_device(tmp_path_factory):
    try:
        path, _ = c_device.build(tmp_path_factory.mktemp("c_device"))
    except c_device.CompilerMissing as exc:
        pytest.skip(str(exc))
    device = ProcessDevice([str(path), "--profile", "pto-v0"])
    yield device
    device.close()


@pytest.mark.slow  # builds and runs the C device
def test_the_c_device_reports_whole_pad_words(pto_v0_c_device):
    """Every integer, FP32, FP16 and BF16 pad case of PTO-AVS-X-TCVT-PAD-001 with a pad Word
    (S8/S16/S32 Min among them) passes its carrier aspect on the C device."""
    cases = [c for c in loader.load_file(PAD_VECTORS).cases
             if "word" in c.expect["tiles"][0]["padding"] and pto_v0_c_device.supports(c) is None]
    names = {c.name for c in cases}
    assert {"s8-min", "s16-min", "s32-min", "u8-max", "fp32-min"} <= names
    for case in cases:
        verdict = compare(case, pto_v0_c_device.execute(case), pto_v0_c_device.capabilities.aspects)
        assert verdict.outcome == PASS and verdict.aspects["carrier"].status == PASS, (case.name, verdict.report())
