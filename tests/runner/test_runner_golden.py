"""The golden-model device adapter: state set-up, observation, refusals as device errors,
the default devices of `pytest avs/`, and record/replay of a golden run.

Expected values come from the spec tests named in the fixture vectors
(tests/runner/runner_vectors/) and, for the bundle case, tile-exec-tcvt-bundle-001.asl.
"""
from __future__ import annotations

import dataclasses
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest

# Imported before pytester's in-process runs (they unload what they import; numpy cannot reload).
from pto_avs.contract.case import ASPECTS, Case
from pto_avs.contract.compare import compare
from pto_avs.contract.loader import load_paths
from pto_avs.plugins.golden import open_device
from pto_avs.device_model.encoding.names import TEPL_OPS

pytest_plugins = ["pytester"]

FIXTURES = Path(__file__).resolve().parent / "runner_vectors"


def fixture_case(vector_id):
    [loaded] = [f for f in load_paths([FIXTURES]) if f.vector_id == vector_id]
    return loaded.cases[0]


def bundle_case():
    """PTO-AVS-TILE-TCVT-BUNDLE-001 (tile-exec-tcvt-bundle-001.asl): U8 ND [7, 9] in tile 1 becomes
    a U16 ColumnMajor destination, tile 0, 16x8, (0,0)=7, (0,1)=9, payload[16]=9; BSTART word 0xD9B19181."""
    return Case(vector_id="PTO-AVS-TILE-TCVT-BUNDLE-001", name="u8-nd-to-u16-dn", operation="TCVT",
                kind="execution", profiles=("pto-v0", "hw-ieee"), adrs=(), requirements=(),
                state={"tile_capacity": 262144, "status": 0, "gprs": {}, "tiles": [
                    {"index": 1, "dtype": "U8", "capacity": 128, "cols": 8, "valid": [1, 2], "data": [[7, 9]],
                     "layout": "RowMajor", "location": "Any", "mask": "1111", "defined": "valid"}]},
                program=("BSTART.VEC TCVT, U8; B.DATR U16, ND2DN, Null; B.DIM LB0=2; B.DIM LB2=8; "
                         "B.IOT T1, mask=1111, <last>, ->T0<2>; BSTOP",),
                expect={"fault": None})


def test_golden_observation_of_the_bundle_spec_test():
    observation = open_device("pto-v0").execute(bundle_case())
    assert observation.error is None and observation.fault is None
    assert observation.encoding[0] == 0xD9B19181
    assert sorted(observation.tiles) == [0, 1]
    dst = observation.tiles[0]
    assert (dst.dtype, dst.layout, dst.rows, dst.cols, dst.valid) == ("U16", "ColumnMajor", 16, 8, (1, 2))
    seen = dst.to_json()  # (the golden device answers its grids as arrays; the JSON view is lists)
    assert seen["words"][0][:2] == [7, 9] and seen["defined"][0][:2] == [True, True]
    assert dst.words.dtype == np.uint64 and dst.defined.dtype == bool and dst.words.shape == (16, 8)
    assert dst.storage[16] == 9  # ColumnMajor: (0,1) is stored at 1 * rows + 0
    assert observation.tiles[1].to_json()["words"][0][:2] == [7, 9]


@pytest.mark.parametrize("profile", ["pto-v0", "hw-ieee"])
def test_fixture_vectors_pass_on_the_golden_model(profile):
    device = open_device(profile)
    assert device.capabilities.profile == profile and device.capabilities.aspects == frozenset(ASPECTS)
    for loaded in load_paths([FIXTURES]):
        for case in loaded.cases:
            if profile in case.profiles:
                verdict = compare(case, device.execute(case), device.capabilities.aspects)
                assert verdict.outcome == "pass", verdict.report()


def test_refusals_are_device_errors_not_exceptions():
    device = open_device("pto-v0")
    case = fixture_case("PTO-AVS-TILE-TMULS-WIDTH-001")
    tiles = [dict(case.state["tiles"][0], capacity=100)]  # capacities are multiples of 128
    bad_state = dataclasses.replace(case, state=dict(case.state, tiles=tiles))
    assert device.execute(bad_state).error.startswith("initial state rejected: configure_tile(0): capacity 100")
    bad_text = dataclasses.replace(case, program=("BSTART.VEC NOSUCHOP, U8",))
    assert device.execute(bad_text).error.startswith("program rejected: ")
    # A real TEPL operation the model does not implement: every catalog operation is modelled now, so
    # the catalog's last one is taken out of the registry for the run; its run stops, which is no verdict.
    from unittest import mock

    from pto_avs.device_model.ops import registry
    name = list(TEPL_OPS)[-1]
    unmodelled = dataclasses.replace(case, program=(f"BSTART.{TEPL_OPS[name][2]} {name}, FP32; BSTOP",))
    without = {k: v for k, v in registry.OPERATIONS.items() if k != name}
    with mock.patch.object(registry, "OPERATIONS", without):
        assert device.execute(unmodelled).error.startswith("the golden model does not model ")


def test_golden_profile_argument():
    assert open_device(None).capabilities.profile == "pto-v0"
    with pytest.raises(ValueError, match="golden profile 'ieee' is not one of pto-v0, hw-ieee"):
        open_device("ieee")


def outcomes(junit: Path) -> dict:
    result = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        failed = any(child.tag in ("failure", "error") for child in case)
        skipped = any(child.tag == "skipped" for child in case)
        result[case.get("name")] = "failed" if failed else "skipped" if skipped else "passed"
    return result


def test_default_devices_then_record_and_replay(pytester):
    pytester.makepyfile(test_avs="from pto_avs.avs.test_conformance import test_conformance  # replaced by the plugin\n")
    wrong = pytester.mkdir("wrong")
    # The spec's 86 * 3 wraps to 2; this copy claims 3, so it fails on the golden model.
    text = (FIXTURES / "PTO-AVS-X-RUNNER-TMULS-001.yaml").read_text()
    (wrong / "PTO-AVS-X-RUNNER-TMULS-002.yaml").write_text(
        text.replace("RUNNER-TMULS-001", "RUNNER-TMULS-002").replace("data: [[21]]", "data: [[22]]"))
    vectors = ["-p", "no:cacheprovider", "--vectors-only", f"--vectors={FIXTURES}", f"--vectors={wrong}"]
    record = pytester.path / "golden.json"
    first = pytester.runpytest(*vectors, "--record", str(record), f"--junitxml={pytester.path / 'a.xml'}")
    # Default devices golden:pto-v0 and golden:hw-ieee; ALIAS and TMULS-WIDTH hold under pto-v0 only.
    first.assert_outcomes(passed=6, failed=2)
    first.stdout.fnmatch_lines([
        "*payload: 1 of 1 differ; first divergence tile 1 (0,0): expected 0x16 (22), observed 0x15 (21)",
        "pto-avs: 6 pass, 2 fail"])
    names = outcomes(pytester.path / "a.xml")
    assert "u8-seven-times-three[golden:hw-ieee]" in names and "u8-in-place-zero-pad[golden:pto-v0]" in names
    for label in ("golden:pto-v0", "golden:hw-ieee"):
        pytester.runpytest(*vectors, "--device", f"replay:{record}@{label}",
                           f"--junitxml={pytester.path / 'b.xml'}")
        replayed = outcomes(pytester.path / "b.xml")
        assert replayed == {name.replace(f"[{label}]", ""): outcome for name, outcome in names.items()
                            if name.endswith(f"[{label}]")}
