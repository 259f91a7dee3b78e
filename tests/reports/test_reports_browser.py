"""The Allure 3 HTML report of a real run, rendered and read back in headless Chromium:
the self-contained report from disk (file://) and the served multi-file report over http.

Needs Node.js 20+, the npm packages of reports/allure (installed here with ``npm ci``
when missing) and Debian's Chromium (``apt-get install -y chromium``); ``tests/run.sh``
installs both. Missing tools fail the test; only ``PTO_AVS_SKIP_BROWSER=1`` outside CI
skips it. Expected titles come from the catalog, expected counts from the fixture
recording (tests/reports/reports_support.py).
"""
import functools
import json
import os
import re
import shutil
import subprocess
import threading
import uuid
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import reports_support as rs
from pto_avs.reports import allure_figures, render

pytestmark = pytest.mark.slow  # renders the Allure 3 report and drives headless Chromium

READER = rs.ROOT / "reports/allure/read_report.mjs"
CHROMIUM = os.environ.get("PTO_AVS_CHROMIUM", "/usr/bin/chromium")
ADR_47 = f"ADR-0047 {rs.ADR_TITLES['ADR-0047']}"  # a link name: the search box matches it
ADR_SETS = {"TMULS": "ADRs 0035, 0052, 0057, 0059, 0081",  # the catalog's TMULS readiness subjects
            "TCVT": "ADRs 0035, 0047"}  # what the project vector names


def _require(ok: bool, problem: str) -> None:
    if ok:
        return
    if os.environ.get("PTO_AVS_SKIP_BROWSER") == "1" and not os.environ.get("CI"):
        pytest.skip(problem)
    pytest.fail(f"{problem} (tests/run.sh installs it; outside CI, PTO_AVS_SKIP_BROWSER=1 skips this test)")


def _node_major() -> int:
    node = shutil.which("node")
    if node is None:
        return 0
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    return int(version.strip().lstrip("v").split(".")[0] or 0)


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    """The tools, then one pytest run of the fixture vectors with --alluredir."""
    _require(_node_major() >= 20, "Node.js 20 or newer is not on PATH (the machine image has it; "
                                  "Debian bookworm's own nodejs package is 18, too old)")
    _require(Path(CHROMIUM).is_file(), f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")
    if not (render.NODE_DIR / "node_modules/playwright-core").is_dir() or not render.ALLURE_CLI.is_file():
        _require(shutil.which("npm") is not None, "npm is not on PATH (apt-get install -y npm)")
        render.install_node_packages()
    tmp = tmp_path_factory.mktemp("avs-run")
    done, results = rs.run_avs(tmp)
    assert "2 failed, 3 passed, 1 skipped" in done.stdout, done.stdout + done.stderr
    return results, rs.device_labels(tmp / "recording.json")


def _sizes(out: Path) -> dict[str, int]:
    return {str(p.relative_to(out)): n for p, n in render.report_files(out)}


def test_self_contained_report_opens_from_disk(run, tmp_path):
    """Rendered as self-contained pages (the default) and read back from file://."""
    results, labels = run
    out = tmp_path / "report"
    assert render.main([str(results), str(out), "--no-install"]) == 0
    sizes = _sizes(out)
    # One HTML file per page; the views' data in one shared compressed script and Allure's
    # application in another (no data or widget folders: nothing is fetched).
    assert sorted(p for p in sizes if p.endswith(".html")) == ["adr/index.html", "index.html",
                                                               "suites/index.html"]
    assert sorted(p for p in sizes if p.endswith(".js")) == [render.SHARED_APP, render.SHARED_DATA]
    assert not [p for p in sizes if "/data/" in p or "/widgets/" in p]
    for view in render.VIEWS:  # the data is no longer inlined in each view page
        assert sizes[f"{view}/index.html"] < 100_000
    shots = tmp_path / "screenshots"
    shots.mkdir()
    seen = _read_back(out.as_uri() + "/", shots)
    print(f"screenshots: {shots}; sizes: {sizes}")
    _check_everything(seen, labels)
    for name in ("summary.png", "adr.png", "failed-test.png"):
        assert (shots / name).stat().st_size > 10_000, name  # a rendered page, not a blank one


def test_served_report_reads_the_same_over_http(run, tmp_path):
    """``--served``: Allure's multi-file report (data loaded with fetch), read over http."""
    results, labels = run
    out = tmp_path / "report"
    assert render.main([str(results), str(out), "--no-install", "--served"]) == 0
    sizes = _sizes(out)
    assert [p for p in sizes if p.startswith("adr/data/test-results/")]  # one file per result
    handler = functools.partial(_QuietHandler, directory=str(out))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        seen = _read_back(f"http://127.0.0.1:{server.server_port}/")
    finally:
        server.shutdown()
        server.server_close()
    _check_everything(seen, labels)


REPORT_BOUND_BYTES = 50_000_000


def _whole_suite_runs() -> int:
    """The runs of `pytest avs/` on its two default devices (golden:pto-v0 and golden:hw-ieee: a
    shipped case once per profile it holds under, what `pto-avs counts` prints as its golden-model
    items), counted from the shipped vectors now, so the report checked grows with the suite."""
    from pto_avs.contract.loader import VECTORS_DIR, load_paths
    runs = sum(len({"pto-v0", "hw-ieee"} & set(case.profiles)) for loaded in load_paths([VECTORS_DIR])
               for case in loaded.cases)
    assert runs > 20_000, runs  # the shipped vectors (26,852 runs in December 2026), not a part of them
    return runs


def _results_of_size(results: Path, out: Path, runs: int) -> Path:
    """An Allure results folder of ``runs`` results: the real run's results again and again, each
    copy its own test (uuid, name, history and test-case IDs) with its own attachments."""
    out.mkdir()
    originals = [json.loads(p.read_text()) for p in sorted(results.glob("*-result.json"))]
    for extra in results.iterdir():
        if not extra.name.endswith(("-result.json", "-attachment.txt")):
            shutil.copy(extra, out / extra.name)
    for k in range(runs):
        result = json.loads(json.dumps(originals[k % len(originals)]))
        tag = f"{k:06d}"
        result.update(uuid=str(uuid.uuid4()), name=f"{result['name']} {tag}", fullName=f"{result['fullName']}-{tag}",
                      historyId=uuid.uuid4().hex, testCaseId=uuid.uuid4().hex)
        for attachment in result.get("attachments", []):
            text = (results / attachment["source"]).read_text()
            attachment["source"] = f"{uuid.uuid4()}-attachment.txt"
            (out / attachment["source"]).write_text(f"{text}\n(run {tag})\n")
        (out / f"{result['uuid']}-result.json").write_text(json.dumps(result))
    return out


def test_a_report_the_size_of_the_whole_suite_on_two_devices_opens_from_disk(run, tmp_path):
    """The self-contained report of as many case runs as the whole suite on two devices stays under
    50 MB in all and every page opens from file://. The bound on opening is generous (300 s a page),
    so a loaded machine does not fail it; the times are printed."""
    results, _ = run
    runs = _whole_suite_runs()
    big = _results_of_size(results, tmp_path / "results", runs)
    out = tmp_path / "report"
    assert render.main([str(big), str(out), "--no-install", "-q"]) == 0
    sizes = _sizes(out)
    assert sum(sizes.values()) < REPORT_BOUND_BYTES, sizes
    assert allure_figures.runs_in(out) == runs
    times = allure_figures.open_times(out, timeout_ms=300_000)
    print(f"{runs} runs: {sum(sizes.values()) / 1e6:.1f} MB, {sizes}; opened: {times}")
    assert set(times) == {"summary", "adr", "suites"}
    assert all(t["ms"] is not None and not t["errors"] for t in times.values()), times


def _read_back(base: str, shots: Path = None) -> dict:
    """Read the report at ``base`` with read_report.mjs in Chromium."""
    done = subprocess.run(["node", str(READER), base, ADR_47, *([str(shots)] if shots else [])],
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    print(json.dumps({name: {"total": view["total"],
                             "groups": [("  " * (s["depth"] - 1)) + f"{s['title']} {s['counts']}"
                                        for s in view["sections"]]}
                      for name, view in seen["views"].items()}, indent=1))
    return seen


def _check_everything(seen, labels):
    _check_page(seen)
    _check_summary(seen)
    _check_environment(seen, labels)
    _check_adr_view(seen["views"]["adr"])
    _check_adr_search(seen["searched"], labels)
    _check_suites_view(seen["views"]["suites"], labels)
    _check_failed_case_page(seen["failedTest"], labels)


class _QuietHandler(SimpleHTTPRequestHandler):
    def log_message(self, format, *args):
        pass


def _tree(sections):
    """Nest the DOM's groups (depth, title, counts) as {title: (counts, children)}."""
    root: dict = {}
    stack = [root]
    for section in sections:
        del stack[section["depth"]:]
        children: dict = {}
        stack[-1][section["title"]] = (section["counts"], children)
        stack.append(children)
    return root


def _outcomes(counts):
    """Status-bar counts as pass / fail / skipped (a mismatch shows as failed or broken)."""
    return (counts.get("passed", 0), counts.get("failed", 0) + counts.get("broken", 0),
            counts.get("skipped", 0))


def _check_page(seen):
    """Rendered, not a spinner; nothing fetched from outside the report; no script error."""
    assert seen["spinner"] is False
    assert seen["outsideRequests"] == []
    assert seen["pageErrors"] == []


def _check_summary(seen):
    """One card per view linking its page; the card counts each case run once."""
    assert [card["href"] for card in seen["summary"]] == ["adr/index.html", "suites/index.html"]
    assert seen["firstCardOpens"].endswith("/adr/index.html")
    for card, title in zip(seen["summary"], ("pto-avs by ADR", "pto-avs by device")):
        assert title in card["text"]
        # 6 case runs: 3 pass, 2 fail, 1 not supported (reports_support.OUTCOMES).
        assert re.search(r"Total 6 Failed 2 Passed 3 Skipped 1", card["text"]), card["text"]


def _check_environment(seen, labels):
    for name in ("adr", "suites"):
        shown = seen["views"][name]["metadata"]
        assert shown["spec.release"] == "0.58.3"
        assert shown["spec.commit"] == "e599a3d36ebfad43362ff591ea5e128816c684c7"
        assert shown["device"] == ", ".join(sorted(labels.values()))
        assert shown["profile"] == "pto-v0"


def _check_adr_view(view):
    """Grouped by operation, then the set of ADRs, then spec test ID: each case run once,
    so the groups' counts add up to the header's."""
    assert (view["total"], view["failed"], view["passed"]) == ("6", "2", "3")
    tree = _tree(view["sections"])
    assert set(tree) == {"TMULS", "TCVT"}
    counts, sets = tree["TMULS"]
    assert _outcomes(counts) == (2, 1, 1)
    assert set(sets) == {ADR_SETS["TMULS"]} and set(sets[ADR_SETS["TMULS"]][1]) == {rs.WIDTH}
    counts, sets = tree["TCVT"]
    assert _outcomes(counts) == (1, 1, 0)
    assert set(sets) == {ADR_SETS["TCVT"]} and set(sets[ADR_SETS["TCVT"]][1]) == {rs.PROJECT}
    # Summed over the top groups: 3 pass, 2 fail, 1 skipped, the header's numbers.
    assert tuple(map(sum, zip(*(_outcomes(c) for c, _ in tree.values())))) == (3, 2, 1)
    assert len(view["leaves"]) == 6


def _check_adr_search(searched, labels):
    """Typing an ADR's ID and title keeps the failing case runs that trace to it (they link
    the ADR's document): for ADR-0047, the project vector's on the bad device. (Allure's
    search is fuzzy: a bare ID also matches its neighbours.)"""
    assert searched["text"] == ADR_47
    assert searched["leaves"] == [f"nx-flag on {labels[rs.BAD]}"]


def _check_suites_view(view, labels):
    """Grouped by device (profile), then operation, then spec test ID."""
    assert view["total"] == "6"
    tree = _tree(view["sections"])
    good, bad = f"{labels[rs.GOOD]} (pto-v0)", f"{labels[rs.BAD]} (pto-v0)"
    assert set(tree) == {good, bad}
    assert _outcomes(tree[good][0]) == (3, 0, 0)
    assert _outcomes(tree[bad][0]) == (0, 2, 1)
    assert set(tree[bad][1]) == {"TMULS", "TCVT"}
    assert set(tree[bad][1]["TMULS"][1]) == {rs.WIDTH}
    assert len(view["leaves"]) == 6


def _check_failed_case_page(failed, labels):
    """Its category, parameters, links, attachments, description, and readable labels."""
    # The first failing leaf of the ADR view (TMULS before TCVT in run order).
    assert failed["title"] == f"two-lanes on {labels[rs.BAD]}"
    text = failed["text"]
    for shown in ("Category: Payload mismatch", "payload: 1 of 2 differ", "bit-level diff",
                  "aspect verdicts", f"spec test {rs.WIDTH}",
                  "ADR-0081 Tile scalar and immediate operations", "T[1] FP32 RowMajor 1x2"):
        assert shown in text, shown
    # The ADRs as one label naming the set and as titled links; no chip per ADR.
    shown = {item["key"]: item for item in failed["labels"]}
    assert shown["adrs"]["values"] == [ADR_SETS["TMULS"]]
    assert "adr" not in shown and "epic" not in shown
    assert not shown["adrs"]["cut"]
    # Cut short: only single long values (the fixture's device and vector paths, state, program).
    cut = {key for key, item in shown.items() if item["cut"]}
    assert cut <= {"device", "parentSuite", "vectorFile", "state", "program"}, cut
    assert {"device", "state"} <= cut  # the check sees a cut chip
    # The description: the catalog's summary of the spec test.
    assert rs.TESTS[rs.WIDTH]["summary"] in failed["description"]
