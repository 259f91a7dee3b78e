"""The mutation self-test as pytest items, one per mutant, for pytest-xdist to spread.

    pytest avs/campaigns/mutants_suite.py -n 2                       # every mutant, two local workers
    pytest avs/campaigns/mutants_suite.py -k "select or nan" -n auto

Not collected by ``pytest avs/`` or ``pytest tests/`` (the file name does not start
with ``test_``); name the file to run it. An item is a mutant of ``plugins/mutants.py``
at its own profile (``pto-avs counts`` says how many): it passes when a case of the
vectors kills it (the golden model passes the case, the mutant fails it or cannot run
it; ``avs/campaigns/mutation.py``), stopping at the first killing case, and fails with
the mutant's bug when none does. The vectors are the shipped ones, or those of the
pto_avs options ``--vectors`` / ``--vectors-only``; each worker loads them once.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from . import mutation
from ...plugins.mutants import MUTANTS


@pytest.fixture(scope="module")
def vectors(request):
    """(cases, golden verdicts) of this worker."""
    from ...contract.loader import VECTORS_DIR

    extra = [Path(p) for p in request.config.getoption("avs_vectors")]
    paths = extra if request.config.getoption("avs_vectors_only") else [VECTORS_DIR, *extra]
    cases, _ = mutation.load_cases(paths)
    return cases, mutation.GoldenVerdicts()


@pytest.mark.parametrize("name", sorted(MUTANTS))
def test_mutant_is_killed(vectors, name):
    cases, golden = vectors
    result = mutation.run_mutant(name, cases, golden, first_only=True)
    if not result.killed:
        pytest.fail(mutation.format_line(result, len(result.label)), pytrace=False)
