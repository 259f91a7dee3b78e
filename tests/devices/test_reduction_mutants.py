"""The reduction mutants (plugins/mutants.py, ``reduction-*``) are each killed by the
reduction vectors, and by the kind of case written for their mechanism."""
from __future__ import annotations

import pytest

from pto_avs.avs.campaigns import mutation
from pto_avs.contract.loader import VECTORS_DIR
from pto_avs.vectors.reference import reductions

# mutant -> a case-name part of the vectors written for its mechanism
MECHANISMS = {
    "reduction-fold-reassociated": "::order-",  # lines a tree or reversed fold gets wrong
    "reduction-tie-last-index": "-TIE-001::",  # the spec's tie points
    "reduction-nan-propagates": "::pairs-",  # NaN against every special value
    "reduction-reads-padding": "::partial-region-",  # a defined, poisoned source padding
    "reduction-extreme-from-zero": "::pairs-",  # negative values and NaNs
    "reduction-status-dropped": "-nv",  # a signaling NaN isolated with its NV
}


@pytest.fixture(scope="module")
def reduction_cases():
    files = sorted(path for path in VECTORS_DIR.glob("*.yaml")
                   if any(f"-{op}-" in path.name for op in reductions.OPERATIONS))
    cases, errors = mutation.load_cases(files)
    assert not errors, errors
    return cases


@pytest.fixture(scope="module")
def golden_verdicts():
    return mutation.GoldenVerdicts()


@pytest.mark.parametrize("name", sorted(MECHANISMS))
def test_the_reduction_vectors_kill_the_mutant(name, reduction_cases, golden_verdicts):
    result = mutation.run_mutant(name, reduction_cases, golden_verdicts)
    assert result.killed, f"{name} survived {result.cases_run} reduction cases"
    assert any(MECHANISMS[name] in killer for killer in result.killers), result.killers[:5]
