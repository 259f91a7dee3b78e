"""The SPEC-CHOICE index (vectors/SPEC-CHOICES.md) agrees with the code and the vectors.

A code comment (a `#` comment or a string statement such as a docstring) that implements a
row of the index's table names the row: `SPEC-CHOICE 27: ...`, or `SPEC-CHOICE 22, 23: ...`
for several rows. A place that follows one of the hw-ieee decisions listed in
vectors/reference/README.md says `SPEC-CHOICE (decision 12)` or `(decisions 1-4)`. A word in
backquotes (``SPEC-CHOICE``) only mentions the convention. Other strings, such as the vector
descriptions the generators write, are vector text and not tags.

Each row's code cell cites the files that carry its tag (`device_model/ops/tcvt.py`; `—` when
no code carries it, saying why); its vectors cell cites the vectors that pin the choice (`ID` or
`ID::case`, or "none (gap)"). The checks, tag to row rather than by line number:

- every SPEC-CHOICE comment in CODE_FOLDERS names a row or a decision;
- every row number tagged in code is a row of the table, and every decision tagged is listed;
- every file a row cites exists and carries a tag for that row, and every file carrying a tag
  for a row is cited by that row;
- every cited vector is a file vectors/<ID>.yaml, and every cited case is in its cases.
"""
import ast
import io
import re
import tokenize
from functools import lru_cache
from pathlib import Path

import pytest

from pto_avs.contract.loader import peek_file

ROOT = Path(__file__).resolve().parents[2]
INDEX = ROOT / "vectors" / "SPEC-CHOICES.md"
DECISIONS = ROOT / "vectors" / "reference" / "README.md"
CODE_FOLDERS = ("device_model", "avs", "plugins", "contract", "reports", "vectors/reference")

# The word SPEC-CHOICE (not SPEC-CHOICES, the index's name), unless it follows a backquote.
WORD = re.compile(r"(?<!`)\bSPEC-CHOICE\b(?!S)")
ROW_TAG = re.compile(r"\s+(\d+(?:\s*,\s*\d+\b(?!\.))*)")
DECISION_TAG = re.compile(r"\s*\(decisions?\s+(\d+(?:\s*[-,]\s*\d+)*)\)")
FILE_CITE = re.compile(r"`([\w./-]+\.py)`")
LINE_CITE = re.compile(r"`([\w./-]+\.py):(\d+)`")
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


def _decisions():
    """The numbers of the hw-ieee decisions listed in vectors/reference/README.md."""
    numbers, listing = set(), False
    for line in DECISIONS.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            listing = line.startswith("## hw-ieee decisions")
        elif listing and re.match(r"\d+\. ", line):
            numbers.add(int(line.split(".")[0]))
    return numbers


def _numbers(listed: str) -> set:
    """{1, 2, 3, 4, 7} from "1-4, 7"."""
    found = set()
    for part in re.split(r"\s*,\s*", listed):
        low, _, high = part.partition("-")
        found.update(range(int(low), int(high or low) + 1))
    return found


def _comment_lines(source: str):
    """(line number, text) of each `#` comment and each line of each string statement."""
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            yield token.start[0], token.string
    lines = source.splitlines()
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)):
            for number in range(node.lineno, node.end_lineno + 1):
                yield number, lines[number - 1]


@lru_cache(maxsize=None)
def _tags():
    """(tags, unnamed): tags are (path, line, rows, decisions) for each SPEC-CHOICE that names
    rows or decisions; unnamed are "path:line: text" of each SPEC-CHOICE comment that names none."""
    tags, unnamed = [], []
    for folder in CODE_FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            source = path.read_text(encoding="utf-8")
            if "SPEC-CHOICE" not in source:
                continue  # (parsing only the files that mention it keeps the test quick)
            for number, text in sorted(set(_comment_lines(source))):
                for word in WORD.finditer(text):
                    rest = text[word.end():]
                    rows, decisions = ROW_TAG.match(rest), DECISION_TAG.match(rest)
                    if rows or decisions:
                        tags.append((rel, number, _numbers(rows.group(1)) if rows else set(),
                                     _numbers(decisions.group(1)) if decisions else set()))
                    else:
                        unnamed.append(f"{rel}:{number}: {text.strip()}")
    return tags, unnamed


ROWS = _rows()
ROW_NUMBERS = {number for number, _, _ in ROWS}
CITES = {number: set(FILE_CITE.findall(code)) for number, code, _ in ROWS}


def _tagged_files(row: int) -> set:
    return {path for path, _, rows, _ in _tags()[0] if row in rows}


@lru_cache(maxsize=None)
def _case_names(vector_id: str) -> frozenset:
    """The file's case names, as the loader reads them without validating (from its cache
    when the file was loaded before: the largest reference files are a megabyte of YAML)."""
    peek = peek_file(ROOT / "vectors" / f"{vector_id}.yaml")
    assert peek is not None, f"vectors/{vector_id}.yaml cannot be read as YAML"
    return frozenset(peek.labels)


# Row numbers handed out to parallel work and never used (a row is never renumbered: code,
# vectors and notes cite the numbers); any other gap, a repeat or a row out of order fails.
UNUSED_NUMBERS = (frozenset(range(36, 40)) | frozenset(range(54, 60)) | frozenset(range(61, 65))
                  | frozenset(range(67, 71)) | frozenset({73, 74, 75, 76, 77, 80, 81, 82, 83, 84})
                  | frozenset({86, 87, 88, 89, 91}))


def test_rows_are_numbered_one_to_n_in_order():
    numbers = [number for number, _, _ in ROWS]
    assert numbers == sorted(set(range(1, numbers[-1] + 1)) - UNUSED_NUMBERS)


def test_every_spec_choice_comment_names_a_row():
    unnamed = _tags()[1]
    assert unnamed == [], ("SPEC-CHOICE comments that name no row (write `SPEC-CHOICE <row>`, a row of "
                           "vectors/SPEC-CHOICES.md, or `SPEC-CHOICE (decision <n>)`):\n" + "\n".join(unnamed))


def test_every_tagged_row_is_in_the_table():
    stray = [f"{path}:{line} names row {row}" for path, line, rows, _ in _tags()[0]
             for row in sorted(rows - ROW_NUMBERS)]
    assert stray == [], "SPEC-CHOICE tags naming rows vectors/SPEC-CHOICES.md does not have:\n" + "\n".join(stray)


def test_every_tagged_decision_is_listed():
    listed = _decisions()
    assert listed, f"no numbered list under '## hw-ieee decisions' in {DECISIONS.relative_to(ROOT)}"
    stray = [f"{path}:{line} names decision {decision}" for path, line, _, decisions in _tags()[0]
             for decision in sorted(decisions - listed)]
    assert stray == [], (f"SPEC-CHOICE tags naming decisions {DECISIONS.relative_to(ROOT)} does not list:\n"
                         + "\n".join(stray))


def test_every_tagged_file_is_cited_by_its_row():
    uncited = [f"{path}:{line} says SPEC-CHOICE {row}, but row {row} does not cite `{path}`"
               for path, line, rows, _ in _tags()[0] for row in sorted(rows & ROW_NUMBERS)
               if path not in CITES[row]]
    assert uncited == [], "tagged files missing from the code cells of vectors/SPEC-CHOICES.md:\n" + "\n".join(uncited)


@pytest.mark.parametrize("number, code", [(n, c) for n, c, _ in ROWS], ids=[f"row{n}" for n, _, _ in ROWS])
def test_code_cell_cites_files_carrying_the_tag(number, code):
    assert LINE_CITE.findall(code) == [], (
        f"row {number}: cite the file, not `path:line` (the tag `SPEC-CHOICE {number}` finds the place)")
    cites = sorted(CITES[number])
    if code.startswith("—"):
        assert cites == [], f"row {number}: a '—' code cell cites no file"
        return
    assert cites, f"row {number}: no `path` in the code cell (or '—' and why no code carries the tag)"
    tagged = sorted(_tagged_files(number))
    for path in cites:
        assert (ROOT / path).is_file(), (
            f"row {number} cites {path}, which does not exist (renamed or moved?); "
            f"the files that say SPEC-CHOICE {number} are {tagged}")
        assert path in tagged, (
            f"row {number} cites {path}, but no comment there says SPEC-CHOICE {number}; "
            f"the files that do are {tagged}")


@pytest.mark.parametrize("number, vectors", [(n, v) for n, _, v in ROWS], ids=[f"row{n}" for n, _, _ in ROWS])
def test_vectors_cell_names_existing_files_and_cases(number, vectors):
    refs = VECTOR_REF.findall(vectors)
    assert refs or "gap" in vectors, f"row {number}: no vector and not marked as a gap"
    for vector_id, case in refs:
        path = ROOT / "vectors" / f"{vector_id}.yaml"
        assert path.is_file(), f"row {number}: no vectors/{vector_id}.yaml"
        assert not case or case in _case_names(vector_id), f"row {number}: no case {vector_id}::{case}"
