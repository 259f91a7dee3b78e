"""Differential campaigns (avs/campaigns/fuzz.py, scenarios.py, reproducer.py).

The golden model compared with itself must agree on every generated example
(so the expectation built from an observation captures all of it); a mutant
with a known bug must disagree, and the reproducer written for it must replay
the disagreement through the ordinary loader and comparator. Where a
reproducer's value is checked, the expected value comes from integer arithmetic
on the reproducer's own inputs (TMULS integers wrap modulo 2^width), not from
the golden model.
"""
from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
import yaml

from pto_avs.contract import loader, spec_data
from pto_avs.avs.campaigns import fuzz
from pto_avs.avs.campaigns.reproducer import REPRODUCER_SOURCE
from pto_avs.avs.campaigns.scenarios import (ELEMENTWISE_CLASSES, HAND_WRITTEN, OPERATIONS, composition, elementwise_operations,
                                             scenarios, seeded_operations, shipped_seeds)
from pto_avs.contract.compare import compare
from pto_avs.device_model import dtypes
from pto_avs.device_model.ops import registry
from pto_avs.device_model.ops.elementwise import Elementwise
from pto_avs.device_model.ops.predicate import PredicateOperation
from pto_avs.plugins.base import open_device

pytestmark = pytest.mark.slow  # fuzz campaigns over every operation and device: minutes


def campaign(device: str, operation: str, examples: int, seed: int = 11) -> fuzz.CampaignResult:
    judge = fuzz.Judge(open_device(device), open_device(f"golden:{open_device(device).capabilities.profile}"))
    result = fuzz.CampaignResult()
    fuzz.generate(judge, scenarios(operation, judge.device.capabilities.dtypes), examples, seed, result)
    return result


@pytest.mark.parametrize("profile", ["pto-v0", "hw-ieee"])
@pytest.mark.parametrize("operation", HAND_WRITTEN)
def test_identical_devices_yield_no_disagreement(operation, profile):
    """No false alarms: the judge sees no disagreement, refusal or golden-model
    error when the device under test is the golden model itself, so every
    disagreement a real campaign reports is the device's."""
    result = campaign(f"golden:{profile}", operation, 40)
    assert result.examples == 40
    assert result.refused == 0 and not result.golden_errors, result.golden_errors[:1]
    assert result.disagreements == 0, [d.report for d in result.first.values()][:1]


@pytest.mark.parametrize("operation", HAND_WRITTEN)
def test_scenarios_are_mostly_legal_with_some_faults(operation):
    """The generator exercises both the numeric paths (no fault) and the fault paths. Seeded: a
    hypothesis run now and then dwells on defects (an unseeded TCVT run once drew fewer than half legal)."""
    golden = open_device("golden:pto-v0")
    judge = fuzz.Judge(golden, golden)
    faults = Counter()

    from hypothesis import HealthCheck, given, seed, settings

    @seed(1)
    @settings(max_examples=120, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(scenarios(operation))
    def tally(scenario):
        observation = golden.execute(judge.case(scenario))
        assert observation.error is None, observation.error
        faults[observation.fault] += 1

    tally()
    legal = faults[None]
    assert legal >= sum(faults.values()) // 2, faults
    assert len(faults) >= 2, faults  # at least one fault class besides "no fault"


def _load_reproducer(path: Path, monkeypatch):
    """Load a reproducer with the loader. Until vectors/schema.json lists the source
    'golden-model', the schema is extended by exactly that value (nothing else)."""
    schema = json.loads(loader.SCHEMA_PATH.read_text())
    sources = schema["$defs"]["case"]["properties"]["source"]["enum"]
    if REPRODUCER_SOURCE not in sources:
        sources.append(REPRODUCER_SOURCE)
        extended = path.parent / "schema-with-golden-model.json"
        extended.write_text(json.dumps(schema))
        validator = loader.schema_validator(extended)
        monkeypatch.setattr(loader, "schema_validator", lambda *args: validator)
    loaded = loader.load_file(path)
    assert loaded.error is None, loaded.error
    assert [type(e).__name__ for e in loaded.entries] == ["Case"], [getattr(e, "message", e) for e in loaded.entries]
    return loaded.cases[0]


def test_campaign_against_mutant_writes_replayable_reproducer(tmp_path, monkeypatch):
    result = fuzz.run_campaign("mutant:tmuls-int-saturates", "TMULS", 120, 3, tmp_path, "pto-avs fuzz (test)")
    assert result.examples == 120 and result.disagreements > 0
    assert result.written and all(p.parent == tmp_path for p in result.written)
    kinds = {signature[1] for signature in result.kinds}
    assert ("payload",) in kinds  # a saturated product differs from the wrapped one

    payload_kind = next(s for s in result.kinds if s[1] == ("payload",))
    disagreement, _ = result.shrunk[payload_kind]
    path = tmp_path / f"{fuzz.disagreement_id(disagreement)}.yaml"
    raw = yaml.safe_load(path.read_text())
    assert raw["id"].startswith("PTO-AVS-X-FUZZ-TMULS-")
    assert raw["cases"][0]["source"] == REPRODUCER_SOURCE and "GOLDEN MODEL" in raw["provenance"]
    case = _load_reproducer(path, monkeypatch)

    golden, mutant = open_device("golden:pto-v0"), open_device("mutant:tmuls-int-saturates")
    assert compare(case, golden.execute(case), golden.capabilities.aspects).outcome == "pass"
    verdict = compare(case, mutant.execute(case), mutant.capabilities.aspects)
    assert verdict.outcome == "fail" and "payload" in verdict.failed

    # The reproducer's expected products are the wrapped integer products (TMULS contract).
    source = case.state["tiles"][0]
    t = dtypes.dtype(source["dtype"])
    scalar = case.state["gprs"][5] & t.mask
    destination = next(tile for tile in case.expect["tiles"] if tile["index"] not in
                       {s["index"] for s in case.state["tiles"]})
    wrapped = [[(a & t.mask) * scalar & t.mask for a in row] for row in source["data"]]
    if not t.signed:
        assert destination["data"] == wrapped
    else:
        def signed(v):
            return v - (1 << t.bits) if v >> (t.bits - 1) else v

        assert destination["data"] == [[(signed(a & t.mask) * signed(scalar)) & t.mask for a in row]
                                       for row in source["data"]]


def test_ml_dtypes_campaign_counts_unsupported_examples():
    result = campaign("ml_dtypes", "TCVT", 60)
    assert result.examples == 60
    assert result.unsupported > 0  # rounding modes other than RNE and Sat=1 are outside ml_dtypes
    assert result.examples == result.agreed + result.unsupported + result.refused + result.disagreements


def test_cli_reports_counts_and_writes_reproducers(tmp_path, capsys):
    out = tmp_path / "fuzz-out"
    status = fuzz.main(["--device", "mutant:legality-as-allocation", "--op", "TCVT", "--examples", "100",
                        "--seed", "2", "--out", str(out)])
    text = capsys.readouterr().out
    assert status == 1
    assert "--seed 2" in text.splitlines()[0]
    assert "examples: 100 (" in text
    assert "fault differ (golden Fault_TileLegality, device Fault_TileAllocation)" in text
    assert "distinct shrunk reproducers:" in text and "time: generation" in text
    written = sorted(out.glob("PTO-AVS-X-FUZZ-TCVT-*.yaml"))
    assert written and f"{len(written)} written" in text


def test_cli_golden_against_itself_exits_zero(tmp_path, capsys):
    assert fuzz.main(["--device", "golden:pto-v0", "--op", "TQUANT", "--examples", "30", "--seed", "4",
                      "--out", str(tmp_path)]) == 0
    assert "disagreements: 0 in 0 kind(s)" in capsys.readouterr().out
    assert not list(tmp_path.iterdir())


def test_cli_refuses_unknown_device(tmp_path, capsys):
    assert fuzz.main(["--device", "no-such-device", "--op", "TCVT", "--out", str(tmp_path)]) == 2
    assert "unknown device 'no-such-device'" in capsys.readouterr().err


def _reproducer_inputs():
    from pto_avs.avs.campaigns import sweep
    from pto_avs.avs.campaigns.reproducer import expectation, reproducer_id

    case = sweep.sweep_cases("U4X2", "U8")[0]
    return case, expectation(open_device("golden:pto-v0").execute(case)), reproducer_id("TCVT", case)


def test_reproducer_writer_follows_no_symlink(tmp_path):
    """A link planted at the old predictable temporary name, or at the target name, is never
    written through: the file is created exclusively beside the target and renamed over it."""
    from pto_avs.avs.campaigns.reproducer import write_reproducer

    case, expect, vector_id = _reproducer_inputs()
    victim = tmp_path / "victim.txt"
    victim.write_text("precious\n")
    out = tmp_path / "out"
    out.mkdir()
    (out / f"{vector_id}.yaml.tmp").symlink_to(victim)
    (out / f"{vector_id}.yaml").symlink_to(victim)
    path = write_reproducer(out, case, expect, device="mutant:x", profile="pto-v0", command="test",
                            disagreement="payload differs")
    assert victim.read_text() == "precious\n"
    assert path == out / f"{vector_id}.yaml" and path.is_file() and not path.is_symlink()
    assert yaml.safe_load(path.read_text())["id"] == vector_id
    # nothing else left behind: the planted link, the reproducer
    assert sorted(p.name for p in out.iterdir()) == [f"{vector_id}.yaml", f"{vector_id}.yaml.tmp"]


def test_reproducer_writer_writes_whole_or_nothing(tmp_path, monkeypatch):
    """A failure while the file is written leaves the previous reproducer as it was and no temporary file."""
    from pto_avs.avs.campaigns import reproducer

    case, expect, vector_id = _reproducer_inputs()
    path = reproducer.write_reproducer(tmp_path, case, expect, device="d", profile="pto-v0", command="first",
                                       disagreement="x")
    before = path.read_bytes()

    dump = yaml.dump

    def fail(document, **kwargs):
        return dump(document, **kwargs)[:10] + "\udcff"  # not encodable: the write fails part way

    monkeypatch.setattr(reproducer.yaml, "dump", fail)
    with pytest.raises(UnicodeEncodeError):
        reproducer.write_reproducer(tmp_path, case, expect, device="d", profile="pto-v0", command="second",
                                    disagreement="x")
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


# ---------------------------------------------------------------------------
# the generic builder of the elementwise TEPL operations


def test_every_registered_elementwise_operation_is_drawable():
    """--op takes every operation of the model's elementwise and compare/select kinds, and the
    generic builder's binding structure (from the spec's block composition) agrees with the
    registry entry."""
    kinds = (Elementwise, PredicateOperation)
    table = {o["name"]: o for o in spec_data.load("tile-operations")["operations"]}
    registered = {name for name, entry in registry.OPERATIONS.items() if isinstance(entry, kinds)}
    elementwise = {name for name in registered if table[name]["classification"] in ELEMENTWISE_CLASSES}
    assert len(elementwise) >= 38 and elementwise <= set(OPERATIONS)
    # The reduce-and-expand and partial kinds sit on the same base but have no fuzz builder yet:
    # they are named by their catalog class, so an operation of another class is not left out silently.
    assert {table[name]["classification"] for name in registered - elementwise} <= {
        "reduce-and-expand", "irregular-and-complex"}
    assert set(elementwise_operations()) == elementwise - set(HAND_WRITTEN)
    for name in elementwise_operations():
        entry, shape = registry.find(name), composition(name)
        assert len(shape.sources) == entry.SOURCES and len(shape.gpr_inputs) == entry.GPR_INPUTS, name
        assert shape.unit in ("BSTART.VEC", "BSTART.SFU") and shape.cmode == ("CMode" in entry.DATR_ALLOWED), name
        assert (shape.destination == "Predicate") == (name in ("TCMP", "TCMPS")), name
    # TFMA's and TSEL's two B.IOT (the first without destination), as the spec composes them
    assert composition("TFMA").bindings == (("SrcLeft", "SrcRight"), ("SrcAddend",))
    assert composition("TSEL").bindings == (("Predicate", "SrcTrue"), ("SrcFalse",))
    assert composition("TEXPANDS").bindings == ((),) and composition("TEXPANDS").gpr_inputs == ("ScalarGPR",)


def test_unknown_operation_is_refused():
    with pytest.raises(ValueError, match="unknown operation 'TNOSUCH'"):
        scenarios("TNOSUCH")


def test_every_registered_operation_is_drawable_and_every_seeded_one_has_seeds():
    """--op takes all 109 operations: the builders' and the seeded ones together are the registry,
    and each seeded operation has shipped cases with a text program to start from."""
    assert set(OPERATIONS) == set(registry.OPERATIONS) and len(OPERATIONS) == len(set(OPERATIONS)) == 109
    assert not set(seeded_operations()) & (set(HAND_WRITTEN) | set(elementwise_operations()))
    assert {"TLOAD", "TSTORE", "MSCATTER", "TMATMUL", "TSORT", "TROWSUM", "TIMG2COL"} <= set(seeded_operations())
    assert all(shipped_seeds(operation) for operation in seeded_operations())


def test_seeded_scenarios_run_on_the_golden_model_of_both_profiles():
    """Every seeded operation's draws run on the golden model of both profiles without a golden
    error; the perturbed programs reach faults as well as legal runs."""
    devices = [open_device("golden:pto-v0"), open_device("golden:hw-ieee")]
    judge = fuzz.Judge(devices[0], devices[0])
    faults, defects = Counter(), Counter()
    for operation in seeded_operations():
        for scenario in _drawn(operation, 4):
            for device in devices:
                observation = device.execute(judge.case(scenario))
                assert observation.error is None or observation.error.startswith(fuzz.REFUSED_STATE), \
                    (operation, observation.error, scenario.program)
                faults[observation.fault] += 1
            defects[scenario.defect] += 1
    assert faults[None] >= sum(faults.values()) // 2, faults
    assert len(faults) >= 3 and {"none", "line-dropped", "line-doubled", "lines-swapped"} <= set(defects), (faults, defects)


def test_seeded_campaign_compares_memory_and_its_reproducer_keeps_the_memory(tmp_path, monkeypatch):
    """A mutant TSTORE that also writes the padding Words past the valid region disagrees on
    memory (and on the store events that write those Words), never on a tile; the reproducer
    carries the initial memory and replays the disagreement."""
    result = fuzz.run_campaign("mutant:tstore-stores-padding@pto-v0", "TSTORE", 120, 3, tmp_path, "pto-avs fuzz (test)",
                               shrink_budget=0)
    assert result.disagreements > 0 and not result.golden_errors
    memory_kind = next(s for s in result.kinds if "memory" in s[1])
    assert all(set(s[1]) <= {"memory", "events"} for s in result.kinds), result.kinds
    disagreement, _ = result.shrunk[memory_kind]
    case = _load_reproducer(tmp_path / f"{fuzz.disagreement_id(disagreement)}.yaml", monkeypatch)
    assert case.state["memory"]["size"] >= 256 and case.expect["memory"]
    golden, mutant = open_device("golden:pto-v0"), open_device("mutant:tstore-stores-padding@pto-v0")
    assert compare(case, golden.execute(case), golden.capabilities.aspects).outcome == "pass"
    verdict = compare(case, mutant.execute(case), mutant.capabilities.aspects)
    assert verdict.outcome == "fail" and "memory" in verdict.failed and set(verdict.failed) <= {"memory", "events"}


def _drawn(operation: str, examples: int, seed: int = 5) -> list:
    from hypothesis import HealthCheck, given, settings
    from hypothesis import seed as seeded

    drawn = []

    @seeded(seed)
    @settings(max_examples=examples, database=None, deadline=None, suppress_health_check=list(HealthCheck))
    @given(scenarios(operation))
    def collect(scenario):
        drawn.append(scenario)

    collect()
    return drawn


def test_generic_scenarios_run_on_the_golden_model_of_both_profiles():
    """Every elementwise operation's drawn bundles assemble and run on the golden model of both
    profiles without an error or a refused initial state; over all of them most are legal,
    legality and bundle-control faults both occur, and each operation has legal draws."""
    devices = [open_device("golden:pto-v0"), open_device("golden:hw-ieee")]
    judge = fuzz.Judge(devices[0], devices[0])
    faults, defects = Counter(), Counter()
    for operation in elementwise_operations():
        legal = 0
        for scenario in _drawn(operation, 8):
            for device in devices:
                observation = device.execute(judge.case(scenario))
                assert observation.error is None, (operation, observation.error, scenario.program)
            faults[observation.fault] += 1
            defects[scenario.defect] += 1
            legal += observation.fault is None
        assert legal, operation
    assert faults[None] >= sum(faults.values()) // 2, faults
    assert {"Fault_TileLegality", "Fault_BundleControl"} <= set(faults), faults
    assert len(defects) >= 10, defects


@pytest.mark.parametrize("operation", ["TFMA", "TMAXS", "TEXPANDS", "TCMP", "TSELS"])
def test_generic_scenarios_agree_with_themselves_and_load(operation, tmp_path, monkeypatch):
    """The golden model judged against itself agrees on every draw (so the expectation holds all
    it observes), and a drawn case written as a reproducer loads and passes on the golden model."""
    from pto_avs.avs.campaigns.reproducer import expectation, write_reproducer

    result = campaign("golden:pto-v0", operation, 15)
    assert result.examples == 15 and result.agreed == 15, [d.report for d in result.first.values()][:1]
    golden = open_device("golden:pto-v0")
    judge = fuzz.Judge(golden, golden)
    for number, scenario in enumerate(_drawn(operation, 4, seed=9)):
        case = judge.case(scenario)
        path = write_reproducer(tmp_path / str(number), case, expectation(golden.execute(case)), device="test",
                                profile="pto-v0", command="test", disagreement="none")
        loaded = _load_reproducer(path, monkeypatch)
        assert loaded.program[0].strip() == case.program[0] and loaded.operation == operation
        assert compare(loaded, golden.execute(loaded), golden.capabilities.aspects).outcome == "pass"


def test_campaign_finds_an_elementwise_mutant(tmp_path, monkeypatch):
    """A short campaign on TXOR against a mutant whose XOR unit is miswired fails, and its
    reproducer holds the exclusive or of its own two source tiles (a ^ b, computed here)."""
    result = fuzz.run_campaign("mutant:xor-as-or", "TXOR", 40, 1, tmp_path, "pto-avs fuzz (test)", shrink_budget=40)
    assert result.disagreements > 0 and not result.golden_errors
    payload_kind = next(s for s in result.kinds if s[1] == ("payload",))
    disagreement, _ = result.shrunk[payload_kind]
    case = _load_reproducer(tmp_path / f"{fuzz.disagreement_id(disagreement)}.yaml", monkeypatch)
    assert case.operation == "TXOR"
    mutant = open_device("mutant:xor-as-or")
    assert compare(case, mutant.execute(case), mutant.capabilities.aspects).outcome == "fail"
    left, right = (tile for tile in case.state["tiles"])
    width = dtypes.dtype(left["dtype"]).mask
    destination = next(t for t in case.expect["tiles"] if t["index"] not in {left["index"], right["index"]})
    assert destination["data"] == [[(a ^ b) & width for a, b in zip(ra, rb)]
                                   for ra, rb in zip(left["data"], right["data"])]
