"""The SPEC-CHOICE index (vectors/SPEC-CHOICES.md) agrees with the code and the vectors.

Each row of the index table cites the code comment(s) that make a choice (`path:line`,
or `—` when no comment carries the tag) and the vectors that pin it (`ID` or `ID::case`,
or "none (gap)"). The checks:

- each cited line, or one of the SPEC_CHOICE_SLACK lines after it, says SPEC-CHOICE;
- each cited vector is a file vectors/<ID>.yaml, and each cited case is in its cases;
- each SPEC-CHOICE comment in device_model/, avs/ and plugins/ is cited by some row.
"""
import re
from functools import lru_cache
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "vectors" / "SPEC-CHOICES.md"
CODE_FOLDERS = ("device_model", "avs", "plugins")
SPEC_CHOICE_SLACK = 3  # a cite may name the comment's first line or up to 3 lines before the tag
CODE_REF = re.compile(r"`([\w./-]+\.py):(\d+)`")
VECTOR_REF = re.compile(r"`(PTO-AVS-[A-Z0-9-]+)(?:::([a-z0-9][a-z0-9._-]*))?`")


def _rows():
    """(number, code cell, vectors cell) for each numbered row of the table."""
    rows = []
    for line in INDEX.read_text(encoding="utf-8").splitlines():
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if line.startswith("|") and cells and cells[0].isdigit():
            assert len(cells) == 5, f"row {cells[0]} has {len(cells)} cells, not 5"
            rows.append((int(cells[0]), cells[3], cells[4]))
    return rows


ROWS = _rows()
CITED = {(path, int(line)) for _, code, _ in ROWS for path, line in CODE_REF.findall(code)}


@lru_cache(maxsize=None)
def _case_names(vector_id: str) -> frozenset:
    return frozenset(case["name"] for case in
                     yaml.safe_load((ROOT / "vectors" / f"{vector_id}.yaml").read_text())["cases"])


def test_rows_are_numbered_one_to_n():
    assert [number for number, _, _ in ROWS] == list(range(1, len(ROWS) + 1))


@pytest.mark.parametrize("number, code", [(n, c) for n, c, _ in ROWS], ids=[f"row{n}" for n, _, _ in ROWS])
def test_code_cell_names_spec_choice_lines(number, code):
    refs = CODE_REF.findall(code)
    if code.startswith("—"):
        assert refs == [], f"row {number}: a '—' code cell cites no line"
        return
    assert refs, f"row {number}: no `path:line` in the code cell"
    for path, line in refs:
        assert (ROOT / path).is_file(), f"row {number}: {path} does not exist"
        lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
        window = lines[int(line) - 1:int(line) + SPEC_CHOICE_SLACK]
        assert any("SPEC-CHOICE" in text for text in window), f"row {number}: no SPEC-CHOICE at {path}:{line}"


@pytest.mark.parametrize("number, vectors", [(n, v) for n, _, v in ROWS], ids=[f"row{n}" for n, _, _ in ROWS])
def test_vectors_cell_names_existing_files_and_cases(number, vectors):
    refs = VECTOR_REF.findall(vectors)
    assert refs or "gap" in vectors, f"row {number}: no vector and not marked as a gap"
    for vector_id, case in refs:
        path = ROOT / "vectors" / f"{vector_id}.yaml"
        assert path.is_file(), f"row {number}: no vectors/{vector_id}.yaml"
        assert not case or case in _case_names(vector_id), f"row {number}: no case {vector_id}::{case}"


def test_every_spec_choice_comment_in_code_is_indexed():
    missing = []
    for folder in CODE_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for number, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if "SPEC-CHOICE" in text and not any(
                        cited == rel and line <= number <= line + SPEC_CHOICE_SLACK for cited, line in CITED):
                    missing.append(f"{rel}:{number}")
    assert missing == [], "SPEC-CHOICE comments missing from vectors/SPEC-CHOICES.md"
