"""Mutation self-test: the shipped vectors kill every mutant device (plugins/mutants.py).

A mutant is killed by a case the golden model passes and the mutant fails. The
expected values are the vectors' own (spec, hand derivation, independent
reference); the golden model is only asked whether it passes a case, so that a
case the golden model currently fails can never count as a kill.
"""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pto_avs.avs.campaigns import mutation
from pto_avs.contract.loader import VECTORS_DIR
from pto_avs.plugins import mutants
from pto_avs.plugins.base import open_device

pytestmark = pytest.mark.slow  # the shipped vectors against every mutant: minutes

ROOT = Path(__file__).resolve().parents[2]
E8M0_ROUND = VECTORS_DIR / "PTO-AVS-TILE-TCVT-E8M0-ROUND-003.yaml"


@pytest.fixture(scope="module")
def shipped_cases():
    cases, errors = mutation.load_cases([VECTORS_DIR])
    assert not errors, errors
    return cases


@pytest.fixture(scope="module")
def golden_verdicts():
    return mutation.GoldenVerdicts()


def test_at_least_fifteen_mutants_each_documented():
    assert len(mutants.MUTANTS) >= 15
    for mutant in mutants.MUTANTS.values():
        assert mutant.bug and mutant.profile in ("pto-v0", "hw-ieee")
        assert mutant.patches or mutant.observe, mutant.name


@pytest.mark.parametrize("name", sorted(mutants.MUTANTS))
def test_shipped_vectors_kill_the_mutant(name, shipped_cases, golden_verdicts):
    """The first killing case is found in-process, then ``pytest avs/ --device
    mutant:NAME`` on that case's vector file must fail that case through the plugin."""
    result = mutation.run_mutant(name, shipped_cases, golden_verdicts, first_only=True)
    assert result.killed, (f"mutant {result.label} survived {result.cases_run} cases: a vector is missing "
                           f"for the bug '{result.bug}'")
    killer = result.killers[0]
    vector_file = VECTORS_DIR / f"{killer.split('::', 1)[0]}.yaml"
    command = [sys.executable, "-m", "pytest", "avs/", "-q", "-p", "no:cacheprovider", "--device", f"mutant:{name}",
               "--vectors-only", "--vectors", str(vector_file)]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stdout[-2000:] + run.stderr[-2000:]
    assert f"FAILED avs/test_conformance.py::{killer}" in run.stdout, run.stdout[-2000:]


def test_mutant_spec_selects_profile():
    assert open_device("mutant:missing-nx").capabilities.profile == "pto-v0"
    assert open_device("mutant:rne-ties-away").capabilities.profile == "hw-ieee"
    device = open_device("mutant:missing-nx@hw-ieee")
    assert device.capabilities.profile == "hw-ieee" and device.name == "mutant:missing-nx@hw-ieee"


@pytest.mark.parametrize("spec, words", [
    ("mutant", ["name a mutant", "missing-nx"]),
    ("mutant:no-such-bug", ["'no-such-bug' is not defined", "rne-ties-away"]),
    ("mutant:missing-nx@ieee", ["profile must be one of pto-v0, hw-ieee"]),
])
def test_bad_mutant_spec_names_the_choices(spec, words):
    with pytest.raises(ValueError) as error:
        open_device(spec)
    for word in words:
        assert word in str(error.value)


def test_patches_are_undone_and_golden_unaffected(shipped_cases):
    """After a mutant ran, every patched attribute is the original object again and the
    golden model still passes the case the mutant failed."""
    from pto_avs.contract.compare import compare

    case = next(c for c in shipped_cases if c.id == "PTO-AVS-TILE-TCVT-E8M0-FINITE-002::bf16-inexact-nearest-in-log2")
    golden = open_device("golden:pto-v0")
    for name in ("e8m0-linear-midpoint", "missing-nx", "rename-last-free", "flags-not-sticky"):
        device = open_device(f"mutant:{name}")
        before = [getattr(*p.owner_and_name()) for p in device.mutant.patches]
        device.execute(case)
        after = [getattr(*p.owner_and_name()) for p in device.mutant.patches]
        assert all(a is b for a, b in zip(before, after)), name
    assert compare(case, golden.execute(case), golden.capabilities.aspects).outcome == "pass"
    killed = compare(case, open_device("mutant:e8m0-linear-midpoint").execute(case), golden.capabilities.aspects)
    assert killed.failed == ["payload"]


def test_observation_filter_changes_only_the_fault():
    case_id = "PTO-AVS-X-TCVT-FAULT-001::e8m0-from-e8m0"
    cases, _ = mutation.load_cases([VECTORS_DIR / "PTO-AVS-X-TCVT-FAULT-001.yaml"])
    case = next(c for c in cases if c.id == case_id)
    golden = open_device("golden:pto-v0").execute(case)
    mutant = open_device("mutant:legality-as-allocation").execute(case)
    # The vector expects Fault_TileLegality (closed schema, HardwareTCVTTypePairSupported).
    assert (golden.fault, mutant.fault) == ("Fault_TileLegality", "Fault_TileAllocation")
    assert mutant.tiles.keys() == golden.tiles.keys() and mutant.flags == golden.flags


def test_pytest_avs_fails_on_a_mutant():
    """`pytest avs/ --device mutant:NAME` through the plugin: the E8M0 rounding vector
    (spec expected flags include NX) fails on the mutant that never raises NX."""
    command = [sys.executable, "-m", "pytest", "avs/", "-q", "--device", "mutant:missing-nx",
               "--vectors-only", "--vectors", str(E8M0_ROUND)]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "NumericStatus: expected 0x10 (NX), observed 0x00 (none)" in run.stdout
    summary = [line for line in run.stdout.splitlines() if line.startswith("pto-avs: ")]
    assert summary and " fail" in summary[0], run.stdout


def test_cli_prints_kill_rate_and_killing_vectors(capsys):
    status = mutation.main(["--mutant", "missing-nx", "--mutant", "tmuls-int-saturates",
                            "--vectors-only", "--vectors", str(E8M0_ROUND)])
    out = capsys.readouterr().out
    assert status == 1  # a TCVT-only vector file cannot kill the TMULS mutant
    assert "missing-nx@pto-v0" in out and "PTO-AVS-TILE-TCVT-E8M0-ROUND-003 (" in out
    assert "tmuls-int-saturates@pto-v0" in out and "SURVIVED" in out
    assert "kill rate: 1/2 mutants killed (50.0%)" in out


def test_cli_refuses_unknown_mutant(capsys):
    assert mutation.main(["--mutant", "no-such-bug"]) == 2
    assert "no-such-bug" in capsys.readouterr().err
