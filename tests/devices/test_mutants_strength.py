"""The issue-30 mutants (plugins/mutants.py: sticky status, broadcast carriers, scalar NaN
classes, predicate tiles at their size bound) are killed by the strength vectors
(vectors/PTO-AVS-X-<OP>-STRENGTH-001.yaml, vectors/reference/strength.py) and by nothing
else of their operations: the other shipped files of the same operations let each one pass,
so the strength cases are what makes the bug visible."""
from __future__ import annotations

import pytest

from pto_avs.avs.campaigns import mutation
from pto_avs.contract.loader import VECTORS_DIR

pytestmark = pytest.mark.slow  # the strength vectors against each of their mutants

INDEXED = ("MGATHER", "MGATHER_MASK", "MGATHER_CAS", "MSCATTER", "MSCATTER_MASK")
# mutant -> (its operations, case names of the strength files that must kill it)
KILLERS = {
    "arith-status-overwritten": (("TADD", "TADDS", "TEXP", "TFMA"), {"flags-status-survives", "blocks-accumulate"}),
    "expands-sign-extended": (("TEXPANDS",), {"carrier-fp16-words-and-pad-word"}),
    "expands-nan-canonicalized": (("TEXPANDS",), {"scalar-fp32-snan", "scalar-fp32-qnan-payload"}),
    "scalar-qnan-payload-kept": (("TADDS", "TSUBS"), {"scalar-fp32-qnan-payload-hw-ieee"}),
    "predicate-index-wraps": (("TCMP", "TCMPS", "TSEL", "TSELS"), {"size-bound-fp32"}),
    "tlsu-status-overwritten": (("TLOAD", "TSTORE", "TPREFETCH", "MGATHER", "MGATHER_MASK", "MGATHER_CAS", "MSCATTER",
                                 "MSCATTER_MASK", "TMOV", "GMOV"), {"status-base-survives", "blocks-accumulate"}),
    "indexed-lane-index-wraps": (INDEXED, {"size-bound-u32"}),
    "move-element-index-wraps": (("TMOV", "GMOV"), {"size-bound-u32", "size-largest-u16"}),
    "indexed-address-wraps-64k": (INDEXED, {"memory-top-lane-past-faults"}),
    "move-pad-element-bits": (("TMOV", "GMOV"), {"carrier-pad-words"}),
}


def _files(operations, strength: bool) -> list:
    out = []
    for path in sorted(VECTORS_DIR.glob("*.yaml")):
        is_strength = path.name.endswith("-STRENGTH-001.yaml")
        text = path.read_text()
        if is_strength == strength and any(f"\noperation: {op}\n" in text for op in operations):
            out.append(path)
    return out


@pytest.fixture(scope="module")
def golden():
    return mutation.GoldenVerdicts()


@pytest.mark.parametrize("name", sorted(KILLERS))
def test_the_strength_vectors_kill_the_mutant(name, golden):
    operations, names = KILLERS[name]
    cases, errors = mutation.load_cases(_files(operations, strength=True))
    assert not errors and cases
    result = mutation.run_mutant(name, cases, golden)
    killed = {case_id.split("::", 1)[1].removesuffix("-pto-v0") for case_id in result.killers}
    assert names <= killed, (name, sorted(killed))


@pytest.mark.parametrize("name", sorted(KILLERS))
def test_the_other_vectors_of_its_operations_let_the_mutant_pass(name, golden):
    operations, _ = KILLERS[name]
    cases, errors = mutation.load_cases(_files(operations, strength=False))
    assert not errors and cases
    result = mutation.run_mutant(name, cases, golden)
    assert not result.killed, (name, result.killers[:5])
