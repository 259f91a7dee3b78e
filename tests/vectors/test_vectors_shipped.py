"""Properties of the shipped vector set that the catalog and the house rules fix."""
from collections import Counter

from pto_avs.contract.loader import VECTORS_DIR, load_paths
from pto_avs.contract.spec_data import load
from pto_avs.device_model.ops import installed, registry  # noqa: F401  (installed: every operation registers)

MODELLED = registry.names()

FOUR = ("TCVT", "TQUANT", "TMULS", "TGEMV_MX_ACC")
FILES = load_paths([VECTORS_DIR])
CASES = [case for loaded in FILES for case in loaded.cases]


def test_every_file_and_case_loads():
    problems = [e.message for loaded in FILES for e in ([loaded.error] if loaded.error else [])
                + [e for e in loaded.entries if not hasattr(e, "vector_id")]]
    assert problems == []


def test_every_spec_test_of_the_four_operations_has_its_file():
    catalog = load("tile-avs-catalog")
    spec_ids = {t for unit in catalog["units"] if unit["mnemonic"] in FOUR for t in unit["tests"]}
    assert len(spec_ids) == 31  # TCVT 17, TQUANT 9, TMULS 3, TGEMV_MX_ACC 2
    assert spec_ids <= {loaded.vector_id for loaded in FILES}


def test_every_spec_test_of_every_modelled_operation_has_its_file():
    catalog = load("tile-avs-catalog")
    spec_ids = {t for unit in catalog["units"] if unit["mnemonic"] in MODELLED for t in unit["tests"]}
    assert len(MODELLED) == 109 and len(spec_ids) == 444
    assert spec_ids <= {loaded.vector_id for loaded in FILES}


def test_no_shipped_expectation_comes_from_the_golden_model():
    assert [case.id for case in CASES if case.source == "golden-model"] == []


def test_both_profiles_every_operation_and_at_least_400_cases():
    assert len(CASES) >= 400
    per_profile = Counter(p for case in CASES for p in case.profiles)
    assert per_profile["pto-v0"] > 0 and per_profile["hw-ieee"] > 0
    assert set(MODELLED) == {case.operation for case in CASES}  # every modelled operation, no other
