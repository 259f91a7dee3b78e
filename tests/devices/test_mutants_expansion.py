"""The broadcast and partial-operation mutants (plugins/mutants.py) and the vector case that
kills each: the mutant fails the case, the golden model passes it."""
from __future__ import annotations

import pytest

from pto_avs.avs.campaigns import mutation
from pto_avs.contract.loader import VECTORS_DIR

KILLERS = {  # mutant -> the case that kills it (the mechanism it pins)
    "broadcast-shape-unchecked": "PTO-AVS-X-TROWEXPANDADD-REF-001::broadcast-shape-direct",
    "broadcast-first-element": "PTO-AVS-X-TROWEXPANDSUB-REF-001::region-bundle",
    "broadcast-padding-skipped": "PTO-AVS-X-TCOLEXPANDMUL-REF-001::region-pad-max",
    "broadcast-status-dropped": "PTO-AVS-X-TROWEXPANDDIV-REF-001::float-zero-divisor-pto-v0",
    "expdif-no-discriminator": "PTO-AVS-TILE-EXPDIF-STAGE3-DECODED-001::04-row-fp16-fp32-fp32-pto-v0",
    "expdif-source-precision": "PTO-AVS-TILE-EXPDIF-STAGE3-DECODED-001::09-column-fp16-fp32-fp32-hw-ieee",
    "partial-tail-zeroed": "PTO-AVS-TILE-TPARTADD-OVERLAP-001::direct-call",
}


@pytest.fixture(scope="module")
def golden_verdicts():
    return mutation.GoldenVerdicts()


@pytest.mark.parametrize("name", sorted(KILLERS))
def test_the_named_case_kills_the_mutant(name, golden_verdicts):
    killer = KILLERS[name]
    cases, errors = mutation.load_cases([VECTORS_DIR / f"{killer.split('::', 1)[0]}.yaml"])
    assert not errors, errors
    case = [c for c in cases if c.id == killer]
    assert case, f"{killer} is not a shipped case"
    result = mutation.run_mutant(name, case, golden_verdicts)
    assert result.killers == [killer], f"{name} survives {killer}"
