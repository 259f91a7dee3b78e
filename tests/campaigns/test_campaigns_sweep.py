"""Exhaustive TCVT sweeps (avs/campaigns/sweep.py and the pytest items of sweep_suite.py)."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pto_avs.avs.campaigns import sweep
from pto_avs.plugins.base import open_device

pytestmark = pytest.mark.slow  # exhaustive sweeps and pytest runs of them

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name, count", [("U8", 256), ("S4X2", 16), ("E2M1X2", 16), ("E3M2", 64), ("E2M3", 64),
                                         ("HiF8", 256), ("FP16", 65536), ("BF16", 65536)])
def test_every_valid_encoding_is_swept(name, count):
    # E3M2/E2M3 carry 6 bits in an 8-bit carrier whose bits 7:6 must be zero (TileNumericEncodingValid).
    values = sweep.encodings(name)
    assert values.size == count and len(set(values.tolist())) == count
    cases = sweep.sweep_cases(name, "FP32")
    swept = sorted(v for case in cases if case.name.startswith("RNE-sat0-")
                   for row in case.state["tiles"][0]["data"] for v in row)
    assert swept == values.tolist()
    assert len(cases) == 16 * -(-count // (sweep.COLS if count <= sweep.COLS else 16 * sweep.COLS))


def test_levels_and_e8m0_pairs():
    level1, level2 = sweep.pairs(1), sweep.pairs(2)
    assert {s for s, _ in level1} == {"HiF8", "E4M3", "E5M2", "E3M2", "E2M3", "E2M1X2", "E1M2X2", "E8M0",
                                      "HiF4X2", "S8", "S4X2", "U8", "U4X2"}
    assert {s for s, _ in level2} - {s for s, _ in level1} == {"FP16", "BF16", "S16", "U16"}
    # HardwareTCVTTypePairSupported: an E8M0 destination only from FP16, BF16 or FP32.
    assert [p for p in level2 if p[1] == "E8M0"] == [("FP16", "E8M0"), ("BF16", "E8M0")]
    assert len(level1) == 13 * 24


def test_golden_model_sweeps_clean_against_itself():
    golden = open_device("golden:hw-ieee")
    for source, destination in [("E5M2", "E2M3"), ("S4X2", "U8"), ("E8M0", "FP32")]:
        result = sweep.sweep_pair(golden, golden, source, destination)
        assert result.disagreements == 0, result.line()
        assert result.elements == 16 * sweep.encodings(source).size


def test_rne_tie_mutant_differs_exactly_on_even_ties():
    """E4M3 -> S8 under hw-ieee: with RNE, x.5 ties with an even floor go down; the mutant rounds
    them away from zero. E4M3 (4 significant bits) holds +-0.5, +-2.5, +-4.5, +-6.5 (8.5 needs 5),
    so 8 elements differ per RNE case, Sat 0 and 1: 16. RMode NONE is RTZ for float -> integer."""
    mutant = open_device("mutant:rne-ties-away")
    golden = open_device("golden:hw-ieee")
    result = sweep.sweep_pair(mutant, golden, "E4M3", "S8")
    assert (result.element_diffs, result.flag_diffs, result.fault_diffs) == (16, 0, 0), result.line()
    assert result.first.startswith("RNE sat0: E4M3 0x30 -> golden 0x0, device 0x1")  # 0x30 = 0.5


def test_unsupported_cases_are_counted():
    device = open_device("ml_dtypes")
    result = sweep.sweep_pair(device, open_device("golden:hw-ieee"), "E5M2", "FP16")
    # ml_dtypes converts only with round-to-nearest-even and Sat=0: the RNE and NONE (TCVT's default,
    # RNE for a floating destination) Sat=0 cases run, every Sat=1 case and every directed mode is refused.
    refused = {c.name.rsplit("-", 1)[0] for c in sweep.sweep_cases("E5M2", "FP16") if device.supports(c)}
    assert not {"RNE-sat0", "NONE-sat0"} & refused and {f"{m}-sat1" for m in sweep.ROUNDINGS} <= refused
    assert {"RTZ-sat0", "RTM-sat0", "RTP-sat0", "RNA-sat0", "RTO-sat0", "RHB-sat0"} <= refused
    assert result.cases == 16 and result.unsupported == len(refused)
    assert result.elements == (16 - len(refused)) * 256
    # The one real divergence in the pair: the negative E5M2 NaNs 0xFD, 0xFE, 0xFF become the
    # canonical FP16 NaN 0x7E00 under hw-ieee (decision 5); ml_dtypes keeps their sign (0xFE00),
    # in each of the two cases that run.
    assert (result.element_diffs, result.flag_diffs, result.fault_diffs) == (6, 0, 0), result.line()
    assert result.first == "NONE sat0: E5M2 0xfd -> golden 0x7e00, device 0xfe00"


def test_cli_prints_table_and_wall_time(capsys):
    status = sweep.main(["--device", "mutant:rne-ties-away", "--source", "E4M3", "--dest", "S8", "--dest", "FP16"])
    out = capsys.readouterr().out
    assert status == 1
    assert sweep.HEADER in out
    assert any(line.startswith("E4M3->S8 ") and "16" in line.split()[3] for line in out.splitlines())
    assert "pairs: 2, with disagreements: 1" in out and "wall time:" in out


def test_cli_rejects_unknown_type(capsys):
    assert sweep.main(["--device", "golden", "--source", "FP8"]) == 2
    assert "unknown type FP8" in capsys.readouterr().err


def test_sweep_items_under_pytest():
    command = [sys.executable, "-m", "pytest", "avs/campaigns/sweep_suite.py", "-q", "--device",
               "mutant:rne-ties-away", "-k", "L1-E4M3-S8 or L1-E4M3-FP16"]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 failed, 1 passed" in run.stdout
    assert "E4M3->S8" in run.stdout and "first: RNE sat0: E4M3 0x30" in run.stdout


# ---------------------------------------------------------------------------
# a device that learns only by trying: the example C device answers `unsupported`


@pytest.fixture(scope="module")
def c_binary(tmp_path_factory):
    from pto_avs.plugins import c_device

    try:
        path, _ = c_device.build(tmp_path_factory.mktemp("c_device"))
    except c_device.CompilerMissing as exc:
        pytest.skip(str(exc))
    return path


def test_unsupported_answers_are_not_supported_not_device_errors(c_binary):
    """The C device (hw-ieee) converts U8 -> S16 bit-exactly and answers `unsupported` for U8 -> FP16
    (it converts floating types only among FP32, FP16 and BF16) and for E4M3 (a type it does not hold)."""
    from pto_avs.plugins.process import ProcessDevice

    device = ProcessDevice([str(c_binary)])
    try:
        golden = open_device("golden:hw-ieee")
        refused = sweep.sweep_pair(device, golden, "U8", "FP16")
        assert (refused.cases, refused.unsupported, refused.device_errors, refused.disagreements) == (16, 16, 0, 0)
        assert refused.unsupported_reason == "avs-c-device 1.0 (hw-ieee): TCVT U8 -> FP16 under hw-ieee"
        assert refused.first == "" and refused.elements == 0
        exact = sweep.sweep_pair(device, golden, "U8", "S16")
        assert (exact.unsupported, exact.disagreements, exact.elements) == (0, 0, 16 * 256)
    finally:
        device.close()


def test_cli_exits_zero_when_nothing_differs(c_binary, capsys):
    status = sweep.main(["--device", f"process:{c_binary}", "--source", "U8", "--dest", "S16", "--dest", "FP16",
                         "--dest", "E4M3"])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "pairs: 3, with disagreements: 0; cases: 48 (not supported 32)" in out
    assert "device errors: 0" in out
    rows = {line.split()[0]: line.split() for line in out.splitlines() if line.startswith("U8->")}
    assert rows["U8->FP16"][6:8] == ["16", "0"]  # unsup, errors


def test_sweep_items_the_device_cannot_run_are_skips(c_binary):
    command = [sys.executable, "-m", "pytest", "avs/campaigns/sweep_suite.py", "-q", "-rs", "-p", "no:randomly",
               "--device", f"process:{c_binary}", "-k", "L1-U8-S16 or L1-U8-FP16"]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed, 1 skipped" in run.stdout, run.stdout
    skips = [line for line in run.stdout.splitlines() if line.startswith("SKIPPED")]
    assert len(skips) == 1 and ": not supported: 16 of 16 cases of U8->FP16 on avs-c-device 1.0 (hw-ieee) " \
        "(avs-c-device 1.0 (hw-ieee): TCVT U8 -> FP16 under hw-ieee)" in skips[0], skips
