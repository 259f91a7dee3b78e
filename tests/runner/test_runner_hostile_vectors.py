"""A hostile user's vector folder: malformed files of every known kind beside good ones, run in
one ``pytest avs/ --vectors-only --vectors DIR`` under a memory cap.

The run must complete; every good case passes; every bad file is its own ``vector error``
(one item or more, all of them vector errors, each naming the file); nothing else fails.
The campaign prints the counts, the wall time and the run's peak memory. Run it alone with
``pytest -s tests/runner/test_runner_hostile_vectors.py`` or ``python tests/runner/test_runner_hostile_vectors.py``.
"""
from __future__ import annotations

import os
import resource
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "runner" / "runner_vectors"
MEMORY_CAP = 3 * 1024 ** 3  # address space of the pytest process (numpy's thread pools reserve some)
GOOD_CASE = """  - name: seven-times-three
    profiles: [pto-v0]
    source: hand
    reference: 7 * 3 = 21
    state:
      tiles:
        - {index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], data: [[7]]}
        - {index: 1, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], defined: none}
    program: [{call: TMULS, dst: 1, src: 0, scalar: 3}]
    expect:
      tiles: [{index: 1, data: [[21]]}]
"""


def header(vector_id: str) -> str:
    return (f"format: pto-avs-vector/1\nid: {vector_id}\noperation: TMULS\nkind: execution\n"
            "exercises: [ADR-0081]\nprovenance: hostile-vector campaign\n")


def case_with(state: str = "{}", program: str = "[1]", expect: str = "{}", name: str = "bad") -> str:
    return (f"  - name: {name}\n    source: hand\n    reference: r\n    state: {state}\n"
            f"    program: {program}\n    expect: {expect}\n")


def tile(**fields) -> str:
    base = {"index": 0, "dtype": "U8", "capacity": 128, "cols": 8, "valid": "[1, 1]"}
    base.update(fields)
    return "{" + ", ".join(f"{k}: {v}" for k, v in base.items()) + "}"


def bomb(levels: int, fan: int) -> str:
    lines = ["a0: &a0 [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * fan)}]" for i in range(1, levels)]
    return "\n".join(lines) + "\n"


def hostile_files() -> dict[str, tuple[str, bytes]]:
    """{vector ID: (kind, file bytes)}: at least 90 malformed files."""
    files: dict[str, tuple[str, str | bytes]] = {}

    def add(kind: str, text: str | bytes) -> None:
        vector_id = f"PTO-AVS-X-HOSTILE-{len(files) + 1:03d}"
        files[vector_id] = (kind, text.replace("@ID@", vector_id) if isinstance(text, str) else text)

    doc = header("@ID@") + "cases:\n"
    # YAML the loader must refuse within bounded time and memory
    add("recursive alias", header("@ID@") + "cases: &r [*r]\n")
    add("recursive alias", doc + "  - &c {name: x, source: hand, reference: r, program: [1], expect: {x: *c}}\n")
    add("recursive alias", doc + case_with(state="&s {tiles: [*s]}"))
    add("complex key", "? [a, b]\n: 1\n" + header("@ID@"))
    add("complex key", doc + case_with(expect="{? {a: 1} : 2}"))
    for levels, fan in ((9, 10), (12, 6), (20, 3), (7, 64)):
        add("alias bomb", bomb(levels, fan) + header("@ID@") + "cases: [*a%d]\n" % (levels - 1))
    add("alias count", "a: &a [1]\n" + header("@ID@") + "cases: [" + ", ".join(["*a"] * 400) + "]\n")
    add("deep nesting", doc + case_with(expect="{x: " + "[" * 60 + "]" * 60 + "}"))
    add("deep nesting", header("@ID@") + "cases:\n" + "".join("  " * i + "- \n" for i in range(1, 60)))
    add("deep nesting", doc + case_with(expect="[" * 2000 + "]" * 2000))  # past libyaml's own limit
    for tag in ("!!python/object/apply:os.system [echo pwned]", "!!python/name:os.system", "!!set {a, b}",
                "!!omap [{a: 1}]", "!custom 1", "!!binary 'not base64!'", "!!timestamp nonsense"):
        add("tag", doc + case_with(expect=f"{{x: {tag}}}"))
    add("documents", header("@ID@") + "cases: []\n---\n" + header("@ID@"))
    add("syntax", header("@ID@") + "cases: [unclosed\n")
    add("syntax", header("@ID@") + "cases:\n  - name: x\n   bad: indentation\n")
    add("syntax", header("@ID@") + "cases:\n\t- name: tab\n")
    add("syntax", "format: pto-avs-vector/1\nid: '@ID@\n")
    add("duplicate key", header("@ID@") + "id: again\ncases: []\n")
    add("duplicate key", doc + case_with(expect="{flags: 1, flags: 2}"))
    add("duplicate key", doc + case_with(expect="{tiles: [{index: 0, storage: {1: 1, 0x1: 2}}]}"))
    add("encoding", (header("@ID@") + "cases: []\n").encode() + b"\xff\xfe\xfa")
    add("encoding", b"\x00\x01\x02" * 100)
    add("encoding", os.urandom(4096))
    add("encoding", header("@ID@").encode() + b"provenance: \x07bell\ncases: []\n")
    add("encoding", "\ufeff" + header("@ID@") + "cases: [\ufeff]\n")
    add("not a mapping", "")
    add("not a mapping", "# only a comment\n")
    add("not a mapping", "just a scalar\n")
    add("not a mapping", "- a\n- list\n")
    add("size", header("@ID@") + "cases: []\n# " + "x" * (5 * 1024 * 1024) + "\n")
    add("size", header("@ID@") + "cases: [" + ",".join(["0"] * 700_000) + "]\n")
    add("size", header("@ID@") + "provenance2: " + "y" * (3 * 1024 * 1024) + "\ncases: []\n")
    # schema and file rules
    add("schema", header("@ID@"))
    add("schema", header("@ID@") + "cases: []\n")
    add("schema", header("@ID@") + "cases: {a: 1}\n")
    add("schema", header("@ID@").replace("pto-avs-vector/1", "pto-avs-vector/2") + "cases:\n" + GOOD_CASE)
    add("schema", header("@ID@").replace("exercises: [ADR-0081]\n", "") + "cases:\n" + GOOD_CASE)
    add("schema", header("@ID@").replace("@ID@", "PTO-AVS-X-SOMEONE-ELSE-001") + "cases:\n" + GOOD_CASE)
    add("schema", doc + case_with(expect="{flags: 1.0}"))
    add("schema", doc + case_with(name="'a::b'"))
    add("schema", doc + case_with(name='"line\\nbreak"') + case_with(name='"nul\\0char"') + case_with(name="x" * 300))
    add("schema", doc + case_with(expect="{tiles: [{index: 99}]}"))
    add("schema", doc + case_with(program="'BSTART.VEC TCVT, U8; B.DIM LB7=2; BSTOP'"))
    add("schema", doc + case_with(program="[{call: TMULS, dst: 1, src: 0}]"))
    add("schema", doc + case_with(expect="{tiles: [{index: 0, dtype: S8, data: [[0x1FF]]}]}"))
    add("schema", doc + case_with(state="{gprs: {99: 1}}"))
    add("schema", doc + case_with(expect="{tiles: [{index: 0, data: [[" + ", ".join(['"x"'] * 5000) + "]]}]}"))
    # schema-valid states no machine can hold
    for fields in ({"capacity": "0x10000000000"}, {"capacity": "100"}, {"cols": "0"}, {"cols": "12"},
                   {"valid": "[1000000, 1]"}, {"valid": "[17, 1]"}, {"mask": "'0000'"},
                   {"elements": "{'1000000000000000000000000000000, 0': 1}"},
                   {"layout": "CUBE_M16", "location": "Vector"}):
        add("impossible state", doc + case_with(state="{tiles: [%s]}" % tile(**fields)))
    add("impossible state", doc + case_with(state="{tile_capacity: 0x10000000000}"))
    add("impossible state", doc + case_with(state="{tile_capacity: 256, tiles: [%s, %s]}"
                                                  % (tile(capacity=256), tile(index=1))))
    add("impossible state", doc + case_with(state="{tiles: [%s]}" % tile(valid="[1, 2]", data="[[1]]")))
    add("impossible expectation", doc + case_with(expect="{tiles: [{index: 0, storage: {99999999999999: 1}}]}"))
    add("impossible expectation", doc + case_with(
        expect="{tiles: [{index: 0, data: [%s]}]}" % ", ".join(["[0, 0, 0, 0, 0, 0, 0, 0]"] * 20000)))
    # direct calls the loader refuses before any device runs (issue 29)
    add("direct call", doc + case_with(program="[{call: TMULS, dst: 1}]"))  # missing src
    add("direct call", doc + case_with(program="[{call: TFOO, dst: 1, src: 0}]"))  # no such operation
    add("direct call", doc + case_with(program="[{call: TMULS, dst: 1, src: 0, scalar: 3, src2: 2}]"))
    add("direct call", doc + case_with(program="[{call: TMULS, dst: 1, src: 0, cmode: EQ}]"))
    add("direct call", header("@ID@") + "also_exercises: [TADD]\ncases:\n"
        + case_with(program="[{call: TADD, dst: 1, src: 0}]"))  # missing src1
    add("direct call", header("@ID@") + "also_exercises: [TFMA]\ncases:\n"
        + case_with(program="[{call: TFMA, dst: 1, src: 0, src1: 0}]"))  # missing src2
    # programs that run an operation the file's label does not declare
    add("label", doc + case_with(program="[{call: TADD, dst: 1, src: 0, src1: 0}]"))
    add("label", doc + case_with(program="'BSTART.VEC TCVT, U8; BSTOP'"))
    add("label", doc + case_with(program="'BSTART.VEC TCMP, U8; BSTOP'"))
    add("label", doc + case_with(program="[0xD9B19181]"))  # BSTART.VEC TCVT, U8 as a word
    add("label", doc + case_with(program="[{call: TMULS, dst: 1, src: 0, scalar: 3}, 'BSTART.VEC TADD, U8; BSTOP']"))
    add("label", header("@ID@") + "also_exercises: [TFOO]\ncases:\n" + GOOD_CASE)
    add("label", header("@ID@") + "also_exercises: [TMULS]\ncases:\n" + GOOD_CASE)
    add("label", header("@ID@") + "also_exercises: TCVT\ncases:\n" + GOOD_CASE)
    # a newline where Python's $ would have let it through
    add("newline", doc + case_with(name='"seven-times-three\\n"'))
    add("newline", header("@ID@").replace("id: @ID@", 'id: "@ID@\\n"') + "cases:\n" + GOOD_CASE)
    add("newline", header("@ID@").replace("operation: TMULS", 'operation: "TMULS\\n"') + "cases:\n" + GOOD_CASE)
    add("newline", doc + case_with(state="{tiles: [%s]}" % tile(mask='"1111\\n"')))
    add("newline", doc + case_with(state="{gprs: {\"5\\n\": 1}}"))
    add("newline", doc + case_with(state="{tiles: [%s]}" % tile(elements='{"0,0\\n": 1}')))
    add("newline", doc + case_with(expect="{tiles: [{index: 0, storage: {\"0\\n\": 1}}]}"))
    add("newline", doc + case_with(program="[{call: \"TMULS\\n\", dst: 1, src: 0}]"))
    return {vector_id: (kind, text if isinstance(text, bytes) else text.encode("utf-8"))
            for vector_id, (kind, text) in files.items()}


def good_files() -> dict[str, bytes]:
    """The runner fixtures, and project copies of a good case."""
    files = {path.stem: path.read_bytes() for path in sorted(FIXTURES.glob("*.yaml"))}
    for i in range(1, 7):
        vector_id = f"PTO-AVS-X-GOOD-{i:03d}"
        files[vector_id] = (header(vector_id) + "cases:\n" + GOOD_CASE).encode()
    return files


def cap_memory():
    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP))


def run_campaign(folder: Path) -> dict:
    bad, good = hostile_files(), good_files()
    folder.mkdir(parents=True, exist_ok=True)
    for vector_id, (_, data) in bad.items():
        (folder / f"{vector_id}.yaml").write_bytes(data)
    for vector_id, data in good.items():
        (folder / f"{vector_id}.yaml").write_bytes(data)
    junit = folder.parent / "hostile.xml"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    env["PTO_AVS_CACHE_DIR"] = str(folder.parent / "cache")
    before = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    start = time.perf_counter()
    run = subprocess.run([sys.executable, "-m", "pytest", "avs/", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                          "--device", "golden:pto-v0", "--vectors-only", f"--vectors={folder}",
                          f"--junitxml={junit}"], cwd=ROOT, env=env, capture_output=True, text=True,
                         timeout=900, preexec_fn=cap_memory)
    seconds = time.perf_counter() - start
    peak = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss  # KiB, the largest child so far
    by_file: dict[str, Counter] = {}
    messages: dict[str, list[str]] = {}
    for case in ET.parse(junit).getroot().iter("testcase"):
        stem = case.get("classname").rsplit(".", 1)[-1]
        failure = next((child for child in case if child.tag in ("failure", "error")), None)
        if failure is None:
            outcome = "skipped" if any(child.tag == "skipped" for child in case) else "passed"
        else:
            text = failure.get("message", "") + (failure.text or "")
            outcome = "vector error" if "vector error: " in text else "other failure"
            messages.setdefault(stem, []).append(text)
        by_file.setdefault(stem, Counter())[outcome] += 1
    return {"run": run, "seconds": seconds, "peak_kib": max(peak, before), "bad": bad, "good": good,
            "by_file": by_file, "messages": messages}


def summary(result: dict) -> str:
    kinds = Counter(kind for kind, _ in result["bad"].values())
    outcomes = Counter()
    for counts in result["by_file"].values():
        outcomes.update(counts)
    summary_line = [line for line in result["run"].stdout.splitlines() if line.startswith("pto-avs: ")]
    return "\n".join([
        f"hostile-vector campaign: {len(result['bad'])} malformed files ({', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))}) "
        f"beside {len(result['good'])} good files",
        f"one pytest run under a {MEMORY_CAP // 1024 ** 3} GiB address-space cap: exit {result['run'].returncode}, "
        f"{result['seconds']:.1f} s, peak memory {result['peak_kib'] / 1024:.0f} MiB",
        f"items: {dict(outcomes)}; {summary_line[0] if summary_line else 'no pto-avs summary'}",
    ])


def check(result: dict) -> None:
    run, by_file = result["run"], result["by_file"]
    assert run.returncode == 1, run.stdout[-3000:] + run.stderr[-3000:]  # tests failed, the run completed
    assert "error during collection" not in run.stdout and "Interrupted" not in run.stdout
    for vector_id in result["good"]:
        counts = by_file.get(vector_id, Counter())
        assert counts and set(counts) == {"passed"}, (vector_id, counts, result["messages"].get(vector_id))
    for vector_id, (kind, _) in result["bad"].items():
        counts = by_file.get(vector_id, Counter())
        assert counts and set(counts) == {"vector error"}, (vector_id, kind, counts, result["messages"].get(vector_id))
        assert all(f"{vector_id}.yaml" in message for message in result["messages"][vector_id])


@pytest.mark.slow  # a pytest run over the whole hostile folder
def test_hostile_vector_folder_runs_to_the_end(tmp_path):
    result = run_campaign(tmp_path / "vectors")
    print("\n" + summary(result))
    assert len(result["bad"]) >= 90
    kinds = Counter(kind for kind, _ in result["bad"].values())
    assert (kinds["direct call"], kinds["label"], kinds["newline"]) >= (6, 8, 8)
    check(result)


if __name__ == "__main__":
    import tempfile

    with tempfile.TemporaryDirectory() as folder:
        outcome = run_campaign(Path(folder) / "vectors")
        print(summary(outcome))
        check(outcome)
