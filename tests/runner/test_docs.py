"""The manual stays true: README.md, docs/ and the READMEs beside the code.

- every relative link and every path named in backticks exists in the tree (a test node ID
  names a test that exists; a ``pto_avs.`` name imports);
- every command of README's shell blocks is a real program of the checkout, and every
  ``pto-avs`` / ``pytest`` command of the manual parses (its subcommand and options exist);
  an ``asm``/``disasm`` example prints what its comment says;
- counts that change (operations modelled, spec test points with a vector, vector files,
  cases, mutants) are printed by ``pto-avs counts``, computed here from the registry, the
  catalog, the vectors and the mutants, and never typed into the documents' prose;
- the numbers a document must state (the loader's input limits, catalog facts) equal the
  constants and data they describe.
"""
from __future__ import annotations

import contextlib
import importlib
import io
import itertools
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from pto_avs.avs.cli import build_parser, main
from pto_avs.contract import loader, yaml_reader
from pto_avs.contract.spec_data import load
from pto_avs.device_model import dtypes
from pto_avs.device_model.ops import installed, registry  # noqa: F401  (installed: every operation registers)
from pto_avs.plugins.mutants import MUTANTS

ROOT = Path(__file__).resolve().parents[2]
README = ROOT / "README.md"
MANUAL = sorted([README, *(ROOT / "docs").glob("*.md"), ROOT / "plugins" / "README.md",
                 ROOT / "plugins" / "aslref" / "README.md", ROOT / "tests" / "README.md",
                 ROOT / "vectors" / "FORMAT.md", ROOT / "plugins" / "protocol.md"])
# Paths of the spec's checkout (its ASL, test points, scripts and build output) and of
# herdtools7: the documents name them, this tree does not hold them.
SPEC_CHECKOUT = ("asl/", "tests/asl/", "spec/", "scripts/", "build/", "asllib/")
# Backticked paths a command writes (a report, an output folder) or examples of a name:
# not in this tree.
OUTSIDE_THE_TREE = {"adr/index.html", "suites/index.html", "fuzz-out/", "./adr-coverage", "index.html"}
# Backticked pto_avs.* names that are not modules: entry-point groups (of pyproject.toml).
ENTRY_POINT_GROUPS = {"pto_avs.devices"}
PATH_LIKE = re.compile(r"^[\w.\-/]+(::[\w.\-\[\]]+)?$")
FILE_NAME = re.compile(r"^[\w.\-]+\.(?:py|md|yaml|json|asl|c|sh|toml|gz)$")
SKIPPED_FOLDERS = {".venv", ".git", "node_modules", ".hypothesis"}
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
BACKTICKED = re.compile(r"`([^`\n]+)`")


def _text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def _prose(path: Path) -> str:
    """The document without its fenced code blocks."""
    return re.sub(r"^```.*?^```", "", _text(path), flags=re.S | re.M)


def _shell_blocks(path: Path) -> list[list[str]]:
    """The lines of each ```sh block, continuation lines joined."""
    blocks = re.findall(r"^```sh\n(.*?)^```", _text(path), flags=re.S | re.M)
    return [block.replace("\\\n", " ").splitlines() for block in blocks]


def _is_path(token: str) -> bool:
    """A file (its last part has an extension) or a folder (it ends in /), relative, or a
    bare file name (`tadd.py`)."""
    file = token.partition("::")[0]
    if FILE_NAME.match(file):
        return True
    return ("/" in file and PATH_LIKE.match(token) is not None and not file.startswith(("/", "~"))
            and (file.endswith("/") or "." in file.rsplit("/", 1)[-1]) and not file.startswith(SPEC_CHECKOUT))


def _exists(token: str, doc: Path):
    """Where a backticked path is: from the root, from the document's folder, or (a bare
    folder name such as `numeric/` in a table row) a folder of that name in the tree."""
    for base in (ROOT, doc.parent):
        if (base / token).exists():
            return base / token
    if (token.count("/") == 1 and token.endswith("/")) or "/" not in token:
        name = token.rstrip("/")
        return next((p for p in ROOT.rglob(name) if not SKIPPED_FOLDERS & set(p.relative_to(ROOT).parts)), None)
    return None


def test_the_manual_is_where_the_readme_says():
    assert all(path.is_file() for path in MANUAL)
    assert 100 <= len(_text(README).splitlines()) <= 220  # a front door, not the whole manual


@pytest.mark.parametrize("doc", MANUAL, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_relative_link_exists(doc):
    missing = [target for target in LINK.findall(_text(doc))
               if "://" not in target and not target.startswith("#")
               and not (doc.parent / target.split("#")[0]).exists()]
    assert missing == []


@pytest.mark.parametrize("doc", MANUAL, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_backticked_path_exists(doc):
    missing = []
    for token in set(BACKTICKED.findall(_text(doc))):
        if not _is_path(token) or token in OUTSIDE_THE_TREE:
            continue
        file, _, test = token.partition("::")
        where = _exists(file, doc)
        if where is None or (test and f"def {test}(" not in _text(where)):
            missing.append(token)
    assert missing == []


def test_outside_the_tree_lists_only_names_the_manual_uses():
    named = {token for doc in MANUAL for token in BACKTICKED.findall(_text(doc))}
    assert OUTSIDE_THE_TREE <= named
    pyproject = _text(ROOT / "pyproject.toml")
    assert all(f'entry-points."{group}"' in pyproject for group in ENTRY_POINT_GROUPS)


@pytest.mark.parametrize("doc", MANUAL, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_pto_avs_name_imports(doc):
    unresolved = []
    for name in set(re.findall(r"`(pto_avs(?:\.\w+)+)`", _text(doc))) - ENTRY_POINT_GROUPS:
        module, attribute = name, None
        while True:
            try:
                found = importlib.import_module(module)
                break
            except ImportError:
                module, _, attribute = module.rpartition(".")
        if attribute is not None and not hasattr(found, name[len(module) + 1:].split(".")[0]):
            unresolved.append(name)
    assert unresolved == []


def test_the_numeric_api_the_manual_lists_is_exported():
    from pto_avs.device_model import numeric
    paragraph = _text(ROOT / "docs" / "numerics.md").split("`pto_avs.device_model.numeric` exports")[1]
    listed = [name for name in re.findall(r"`(\w+)`", paragraph.split("\n\n")[0]) if name != "__all__"]
    assert len(listed) >= 10 and sorted(set(listed) - set(numeric.__all__)) == []


# --- commands ---------------------------------------------------------------------------

PROGRAMS_OF_THE_README = {"pto-avs", "pytest", ".venv/bin/pytest", ".venv/bin/pip", "sh", "make", "python3"}


def _words(line: str) -> list[str]:
    return shlex.split(line, comments=True)


def _commands(doc: Path) -> list[list[str]]:
    """Every command of the document's shell blocks, split like a shell (`&&` separates)."""
    out = []
    for block in _shell_blocks(doc):
        for line in block:
            words = _words(line)
            while words:
                head, sep, words = (words[:words.index("&&")], "&&", words[words.index("&&") + 1:]) \
                    if "&&" in words else (words, "", [])
                out.append(head)
    return out


def test_readme_runs_only_programs_of_the_checkout():
    programs = {words[0] for words in _commands(README)}
    assert programs <= PROGRAMS_OF_THE_README
    for words in _commands(README):
        if words[0] == "sh":
            assert (ROOT / words[1]).is_file()
        if words[0] == "make":
            assert (ROOT / words[words.index("-C") + 1] / "Makefile").is_file()
        if words[0] == "python3":
            assert words[1:3] == ["-m", "venv"]
        if words[0] == ".venv/bin/pip":
            assert words[1:] == ["install", "-e", "."] and (ROOT / "pyproject.toml").is_file()


def test_the_quick_start_is_the_two_commands():
    quick_start = _text(README).split("## Quick start")[1].split("\n## ")[0]
    commands = re.findall(r"^```sh\n(.*?)\n```", quick_start, flags=re.S | re.M)
    assert commands == ["python3 -m venv .venv && .venv/bin/pip install -e . && .venv/bin/pytest avs/",
                        "sh tests/run.sh"]
    assert "sh tests/run.sh" in _text(ROOT / ".ci" / "run")


@pytest.mark.parametrize("doc", [README, *(ROOT / "docs").glob("*.md"), ROOT / "plugins" / "README.md",
                                 ROOT / "plugins" / "aslref" / "README.md", ROOT / "tests" / "README.md"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_pto_avs_command_parses(doc, cli_parser):
    parser = cli_parser
    for words in _commands(doc):
        if words[0] == "pto-avs":
            with contextlib.redirect_stderr(io.StringIO()) as err:
                try:
                    parser.parse_args(words[1:])
                except SystemExit:
                    pytest.fail(f"{doc.name}: {shlex.join(words)}: {err.getvalue().strip()}")


@pytest.fixture(scope="module")
def cli_parser():
    return build_parser()


@pytest.fixture(scope="module")
def pytest_options() -> set:
    """The long options `pytest --help` lists with our plugins loaded (the suite's options)."""
    text = subprocess.run([sys.executable, "-m", "pytest", "--help"], cwd=ROOT, capture_output=True,
                          text=True, check=True).stdout
    return set(re.findall(r"(--[a-z][\w-]*)", text))


@pytest.mark.parametrize("doc", [README, *(ROOT / "docs").glob("*.md"), ROOT / "plugins" / "README.md",
                                 ROOT / "plugins" / "aslref" / "README.md", ROOT / "tests" / "README.md"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_every_pytest_option_exists(doc, pytest_options):
    unknown = []
    for words in _commands(doc):
        if Path(words[0]).name == "pytest":
            for word in words[1:]:
                option = word.split("=")[0]
                # the suite's options are listed as --avs-X and taken as --X too (docs/running.md)
                if option.startswith("--") and not {option, "--avs-" + option[2:]} & pytest_options:
                    unknown.append(f"{shlex.join(words)}: {option}")
    assert unknown == []


def _run_cli(args: list[str]) -> list[str]:
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert main(args) == 0
    return out.getvalue().splitlines()


@pytest.mark.parametrize("doc", [README, ROOT / "docs" / "assembly.md", ROOT / "docs" / "adding-an-operation.md"],
                         ids=lambda p: str(p.relative_to(ROOT)))
def test_assembly_examples_print_what_their_comments_say(doc):
    checked = 0
    for block in _shell_blocks(doc):
        for number, line in enumerate(block):
            words = _words(line)
            if words[:2] not in (["pto-avs", "asm"], ["pto-avs", "disasm"]):
                continue
            comment = line.partition(" #")[2].strip()
            following = [follow[1:].strip() for follow in
                         itertools.takewhile(lambda f: f.startswith("#"), block[number + 1:])]
            expected = [comment] if comment else following
            if expected:
                out = _run_cli(words[1:])
                assert [s.lower() for s in out] == [s.lower() for s in expected], line
                checked += 1
    assert checked >= 2


# --- counts -----------------------------------------------------------------------------

def _current_counts() -> dict:
    units = load("tile-avs-catalog")["units"]
    spec_tests = {test for unit in units for test in unit["tests"]}
    vector_files = sorted(loader.VECTORS_DIR.rglob("*.yaml"))
    ids = {path.stem for path in vector_files}
    files = loader.load_paths([loader.VECTORS_DIR])
    cases = [case for loaded in files for case in loaded.cases]
    return {
        "operations": len(registry.names()),
        "catalog operations": len(units),
        "spec test points": len(spec_tests & ids),
        "catalog test points": len(spec_tests),
        "vector files": len(vector_files),
        "spec-ID files": len([i for i in ids if not i.startswith(loader.PROJECT_PREFIX)]),
        "cases": len(cases),
        "pto-v0 cases": sum("pto-v0" in case.profiles for case in cases),
        "hw-ieee cases": sum("hw-ieee" in case.profiles for case in cases),
        "items": sum(len(case.profiles) for case in cases),
        "mutants": len(MUTANTS),
    }


@pytest.fixture(scope="module")
def counts() -> dict:
    return _current_counts()


def test_pto_avs_counts_prints_the_current_figures(counts):
    printed = "\n".join(_run_cli(["counts"]))
    c = counts
    assert printed.splitlines() == [
        f"operations modelled: {c['operations']} of the catalog's {c['catalog operations']}",
        f"spec test points with a vector file: {c['spec test points']} of the catalog's {c['catalog test points']}",
        f"vector files: {c['vector files']} ({c['spec-ID files']} spec test IDs, "
        f"{c['vector files'] - c['spec-ID files']} {loader.PROJECT_PREFIX}*)",
        f"cases: {c['cases']} (pto-v0 {c['pto-v0 cases']}, hw-ieee {c['hw-ieee cases']})",
        f"golden-model items of pytest avs/ (a case once per profile it holds under): {c['items']}",
        f"mutants: {c['mutants']}",
    ]
    assert c["operations"] > 0 and c["cases"] > c["vector files"] > c["spec-ID files"] > 0


# What each count is called in prose; a document that types the current value before one of
# these words is a count that will go stale (print it with `pto-avs counts` instead).
COUNT_NOUNS = {
    "operations": r"(?:tile |modelled |elementwise )?operations",
    "spec test points": r"(?:of \d+ )?(?:spec |tile )?test (?:points|IDs)",
    "vector files": r"(?:vector |spec-ID )?files",
    "cases": r"(?:shipped |pto-v0 )?cases",
    "pto-v0 cases": r"(?:shipped )?(?:`?pto-v0`? )?cases",
    "items": r"(?:case-profile )?items",
    "mutants": r"mutants",
}


def _spelled(value: int) -> str:
    return rf"(?<![\d,.]){value:,}(?![\d,])|(?<![\d,.]){value}(?![\d,])".replace(",", ",?")


@pytest.mark.parametrize("doc", MANUAL, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_document_types_a_count_that_changes(doc, counts):
    prose = re.sub(r"\s+", " ", _text(doc))
    typed = [match.group(0) for name, noun in COUNT_NOUNS.items()
             for match in re.finditer(rf"(?:{_spelled(counts[name])}) {noun}", prose)]
    assert typed == []


def test_the_count_check_finds_a_typed_count(counts):
    prose = f"The model has {counts['operations']} operations and {counts['cases']:,} cases."
    found = [noun for name, noun in COUNT_NOUNS.items()
             if re.search(rf"(?:{_spelled(counts[name])}) {noun}", prose)]
    assert len(found) >= 2


# --- numbers a document states ----------------------------------------------------------

def _stated(doc: str, phrase: str, value: int) -> bool:
    text = re.sub(r"\s+", " ", _text(ROOT / doc))
    return phrase.format(f"{value:,}") in text or phrase.format(value) in text


def test_format_states_the_loaders_input_limits():
    assert loader.MAX_FILE_BYTES % (1024 * 1024) == 0
    stated = {
        "at most {} MiB of UTF-8 YAML": loader.MAX_FILE_BYTES // (1024 * 1024),
        "at most {} separators": loader.MAX_SEPARATORS,
        "at most {} values (scalars and collections": yaml_reader.MAX_VALUES,
        "at most {} uses of aliases": yaml_reader.MAX_ALIASES,
        "nested at most {} deep": yaml_reader.MAX_DEPTH,
        "at most {} cases in a file": loader.MAX_CASES,
        "past {} cases that break the schema": loader.MAX_BAD_CASES,
        "an expected tile holds at most {} values": loader.MAX_TILE_ELEMENTS,
    }
    assert [phrase for phrase, value in stated.items() if not _stated("vectors/FORMAT.md", phrase, value)] == []
    limits = _text(ROOT / "vectors" / "FORMAT.md").split("## Input limits")[1].split("\n## ")[0]
    named = set(re.findall(r"`(MAX_\w+)`", limits))
    assert named and all(hasattr(loader, n) or hasattr(yaml_reader, n) for n in named)


def test_plugins_readme_states_the_replay_bound():
    from pto_avs.plugins import replay
    assert replay.MAX_RECORDING_BYTES % (1024 * 1024) == 0
    assert _stated("plugins/README.md", "at most {} MiB of JSON text", replay.MAX_RECORDING_BYTES // (1024 * 1024))


def test_the_spec_device_readme_states_its_bounds():
    from pto_avs.plugins.aslref import device
    mib = 1024 * 1024
    stated = {
        "the wall-time bound of a run is {} s": int(device.RUN_SECONDS),
        "seconds per case of its batch (default {})": int(device.DEFAULT_CASE_TIME),
        "before a run is given up (default {})": int(device.DEFAULT_TIMEOUT),
        "at most {} MiB on stdout per case": device.MAX_CASE_OUTPUT_BYTES // mib,
        "and {} MiB on stderr": device.MAX_STDERR_BYTES // mib,
    }
    assert [phrase for phrase, value in stated.items()
            if not _stated("plugins/aslref/README.md", phrase, value)] == []
    options = re.findall(r"(\w+)=", _text(ROOT / "plugins" / "aslref" / "README.md").split("Options follow")[1]
                         .split("\n\n")[0])
    assert tuple(options) == device.OPTIONS


def test_format_lists_the_direct_call_arguments_of_the_registry():
    prose = re.sub(r"\s+", " ", _text(ROOT / "vectors" / "FORMAT.md").split("Direct-call arguments per operation")[1])
    listed = {op: args.split(", ") for op, args in
              re.findall(r"\b(T[A-Z_]+) `([a-z_0-9, ]+)`", prose.split("The other operations")[0])}
    assert set(listed) == {"TCVT", "TQUANT", "TMULS", "TGEMV_MX_ACC"}
    assert {op: list(registry.find(op).DIRECT_ARGUMENTS) for op in listed} == listed


def test_catalog_facts_the_documents_state():
    catalog = load("tile-avs-catalog")
    tcvt = next(unit for unit in catalog["units"] if unit["mnemonic"] == "TCVT")
    families = {unit["classification"][0] for unit in catalog["units"]}
    assert _stated("docs/reports.md", "each of its {} ADRs", len(tcvt["readiness_subjects"]))
    assert "the spec's seven operation families" in _text(ROOT / "docs" / "reports.md") and len(families) == 7
    assert _stated("docs/numerics.md", "for all {} data types", len(dtypes.NAMES))
