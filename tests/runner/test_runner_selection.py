"""pto-avs compare and spec-check take the suite's selection (IDs, --op, --adr, -k, -m), meaning
what it means to pytest avs/: the expected case sets below come from the loader (which cases a file
holds, their operation and ADRs) or from pytest's own collection, never from the selection code."""
from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

import pytest

from pto_avs.avs.campaigns import selection
from pto_avs.avs.cli import main
from pto_avs.contract.loader import load_paths

VECTORS = Path(__file__).resolve().parent / "runner_vectors"
ALL_CASES = [case for loaded in load_paths([VECTORS]) for case in loaded.cases]


def picked(*argv, profiles=("pto-v0", "hw-ieee")) -> list[str]:
    parser = argparse.ArgumentParser()
    selection.add_arguments(parser)
    return sorted(case.id for case in selection.collect(parser.parse_args(argv), [VECTORS], profiles).cases)


def test_op_selects_the_cases_of_that_operation_whatever_its_case():
    expected = sorted(case.id for case in ALL_CASES if case.operation == "TMULS")
    assert len(expected) == 2
    assert picked("--op", "tmuls") == expected
    assert picked("--op", "TMULS", "--op", "TCVT") == sorted(case.id for case in ALL_CASES)


def test_adr_and_ids_and_profiles():
    only_0081 = sorted(case.id for case in ALL_CASES if "ADR-0081" in case.adrs)
    assert picked("--adr", "ADR-0081") == only_0081 and len(only_0081) == 2
    assert picked("PTO-AVS-TILE-TCVT-ALIAS-001") == ["PTO-AVS-TILE-TCVT-ALIAS-001::u8-in-place-zero-pad"]
    assert picked("PTO-AVS-X-RUNNER-TMULS-001::u8-seven-times-three") == ["PTO-AVS-X-RUNNER-TMULS-001::u8-seven-times-three"]
    hw = sorted(case.id for case in ALL_CASES if "hw-ieee" in case.profiles)
    assert picked("--op", "TMULS", "--op", "TCVT", profiles=("hw-ieee",)) == hw and len(hw) == 2


def test_keyword_and_marker_selection_is_pytests_own():
    """-k and -m pick exactly the cases pytest avs/ collects for the same expressions."""
    def pytest_collects(*argv):
        out = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:randomly",
                              str(selection.CONFORMANCE_MODULE), "--vectors-only", f"--vectors={VECTORS}", *argv],
                             capture_output=True, text=True, timeout=300)
        ids = {line.split("test_conformance.py::", 1)[1].split("[")[0]
               for line in out.stdout.splitlines() if "test_conformance.py::" in line}
        return sorted(ids)

    for argv in (("-k", "u8 and not wraps"), ("-m", "tcvt and execution"), ("-k", "TMULS", "--adr", "ADR-0052")):
        expected = pytest_collects(*argv)
        assert expected, argv
        assert picked(*argv) == expected, argv


def test_unknown_names_are_said_with_a_did_you_mean():
    with pytest.raises(selection.SelectionError, match=r"--op TMULSS: not an operation of the catalog \(did you mean 'TMULS'\?\)"):
        picked("--op", "TMULSS")
    with pytest.raises(selection.SelectionError, match=r"no vector file with ID PTO-AVS-TILE-TCVT-ALIAS-01 \(did you mean "
                                                       r"'PTO-AVS-TILE-TCVT-ALIAS-001'\?\)"):
        picked("PTO-AVS-TILE-TCVT-ALIAS-01")
    with pytest.raises(selection.SelectionError, match=r"--adr ADR-9999 is not an ADR of the catalog"):
        picked("--adr", "ADR-9999")
    assert picked("-k", "no-such-case-name") == []


def test_compare_runs_only_the_selected_cases(capsys):
    assert main(["compare", "--device", "golden:pto-v0", "--no-golden", "--vectors", str(VECTORS), "-q",
                 "--op", "TMULS"]) == 0
    out = capsys.readouterr().out
    assert ": 2 cases." in out and "TMULS" in out and "TCVT" not in out.split("By operation", 1)[1]
    assert main(["compare", "--device", "golden:pto-v0", "--vectors", str(VECTORS), "-q", "-k", "nothing-has-this"]) == 2
    assert "the selection holds no case" in capsys.readouterr().err


def test_spec_check_runs_only_the_selected_pto_v0_cases(capsys):
    assert main(["spec-check", "--device", "golden:pto-v0", "--no-golden", "--vectors", str(VECTORS), "-q",
                 "--op", "TMULS"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("2 pto-v0 cases, 2 run on golden:pto-v0")
    assert "TMULS" in out and "TCVT" not in out
