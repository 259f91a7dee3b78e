"""A failing case on a mutant device names its inputs at the first divergence: in the bring-up
report (``pto-avs compare``), in pytest's failure message and in the Allure attachment.

The mutant ``tmuls-int-saturates`` saturates TMULS U8: the spec test point TMULS-WIDTH-001 (U8
[[7, 0x56]] times R5 = 3 wraps to [[0x15, 0x02]]) reads 0xFF at (0,1). The source element 0x56, the
scalar, the controls and the words below are those the shipped vector file writes.
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from pto_avs.reports import bringup

ROOT = Path(__file__).resolve().parents[2]
VECTOR = ROOT / "vectors" / "PTO-AVS-TILE-TMULS-WIDTH-001.yaml"
MUTANT = "mutant:tmuls-int-saturates"
INPUTS = [
    "inputs at the first divergence (tile 1 (0,1)):",
    "profile: pto-v0",
    "source T[0] (B.IOT) U8 at (0,1): 0x56 (86)",
    "scalars: B.IOR a3 (R5)=0x3 (low 8 bits as U8: 0x03 (3))",
    "no B.DATR: rounding the operation default, Sat 0",
    "0xDA219181  BSTART.VEC TMULS, U8",
    "0x0008DE13  B.IOT T#1, mask=1111, <last>, ->T<1>",
]


def stripped(text: str) -> list[str]:
    return [line.strip() for line in text.splitlines()]


def in_order(wanted: list[str], lines: list[str]) -> bool:
    """Every wanted line appears, in this order."""
    it = iter(lines)
    return all(any(line == want for line in it) for want in wanted)


def test_the_bring_up_report_shows_the_inputs_of_a_mutant_failure(tmp_path, capsys):
    out = tmp_path / "bringup.md"
    status = bringup.main(["--device", MUTANT, "--vectors", str(VECTOR), "--no-golden", "--out", str(out), "-q"])
    assert status == 1
    text = capsys.readouterr().out
    block = text[text.index("PTO-AVS-TILE-TMULS-WIDTH-001::bundle-u8-times-3 on " + MUTANT):]
    assert in_order(INPUTS, stripped(block))
    markdown = out.read_text()
    block = markdown[markdown.index("### PTO-AVS-TILE-TMULS-WIDTH-001::bundle-u8-times-3 on"):]
    assert in_order(INPUTS, stripped(block))


def test_pytest_and_allure_show_the_inputs_of_a_mutant_failure(tmp_path):
    results = tmp_path / "allure"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    run = subprocess.run([sys.executable, "-m", "pytest", "avs/", "-q", "-p", "no:randomly", "-p", "no:xdist",
                          "--vectors-only", f"--vectors={VECTOR}", "--device", MUTANT, "-k", "bundle-u8-times-3",
                          f"--alluredir={results}"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-2000:]
    assert in_order(INPUTS, stripped(run.stdout)), run.stdout[-3000:]
    attachments = [p.read_text() for p in results.glob("*-attachment.txt")]
    diffs = [text for text in attachments if text.startswith("payload: 1 of 2 differ")]
    assert len(diffs) == 1 and in_order(INPUTS, stripped(diffs[0]))
