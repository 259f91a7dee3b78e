"""The Allure 3 HTML report of a real run, rendered and read back in headless Chromium.

Needs Node.js 20+, the npm packages of reports/allure (installed here with ``npm ci``
when missing, as .ci/run does) and Debian's Chromium (``apt-get install -y chromium``).
Missing tools fail the test; only ``PTO_AVS_SKIP_BROWSER=1`` outside CI skips it.
Expected titles come from the catalog, expected counts from the fixture recording
(tests/reports_support.py).
"""
import functools
import json
import os
import shutil
import subprocess
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

import reports_support as rs
from pto_avs.reports import render

READER = rs.ROOT / "reports/allure/read_report.mjs"
CHROMIUM = os.environ.get("PTO_AVS_CHROMIUM", "/usr/bin/chromium")


def _require(ok: bool, problem: str) -> None:
    if ok:
        return
    if os.environ.get("PTO_AVS_SKIP_BROWSER") == "1" and not os.environ.get("CI"):
        pytest.skip(problem)
    pytest.fail(f"{problem} (outside CI, PTO_AVS_SKIP_BROWSER=1 skips this test)")


def _node_major() -> int:
    node = shutil.which("node")
    if node is None:
        return 0
    version = subprocess.run([node, "--version"], capture_output=True, text=True).stdout
    return int(version.strip().lstrip("v").split(".")[0] or 0)


@pytest.fixture(scope="module")
def tools():
    _require(_node_major() >= 20, "Node.js 20 or newer is not on PATH (the machine image has it; "
                                  "Debian bookworm's own nodejs package is 18, too old)")
    _require(Path(CHROMIUM).is_file(), f"no Chromium at {CHROMIUM} (apt-get install -y chromium)")
    if not (render.NODE_DIR / "node_modules/playwright-core").is_dir() or not render.ALLURE_CLI.is_file():
        _require(shutil.which("npm") is not None, "npm is not on PATH (apt-get install -y npm)")
        render.install_node_packages()


def _render(tmp: Path) -> Path:
    done, results = rs.run_avs(tmp)
    assert "2 failed, 3 passed, 1 skipped" in done.stdout, done.stdout + done.stderr
    out = tmp / "report"
    assert render.main([str(results), str(out), "--no-install"]) == 0
    return out


def _read_back(out: Path) -> dict:
    """Serve the report on 127.0.0.1 and read it with read_report.mjs in Chromium."""
    handler = functools.partial(_QuietHandler, directory=str(out))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        done = subprocess.run(["node", str(READER), f"http://127.0.0.1:{server.server_port}/"],
                              capture_output=True, text=True, timeout=120)
    finally:
        server.shutdown()
        server.server_close()
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    print(json.dumps({name: {"total": view["total"],
                             "groups": [("  " * (s["depth"] - 1)) + f"{s['title']} {s['counts']}"
                                        for s in view["sections"]]}
                      for name, view in seen["views"].items()}, indent=1))
    return seen


def test_rendered_report_read_back_in_chromium(tools, tmp_path):
    """One run, one render, one browser session (a few seconds each), then every check."""
    seen = _read_back(_render(tmp_path))
    labels = rs.device_labels(tmp_path / "recording.json")
    _check_summary(seen)
    _check_environment(seen, labels)
    _check_adr_view(seen["views"]["adr"])
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


def _check_summary(seen):
    assert [card["href"] for card in seen["summary"]] == ["adr/", "suites/"]
    assert "pto-avs by ADR" in seen["summary"][0]["text"]
    assert "pto-avs by device" in seen["summary"][1]["text"]
    assert seen["pageErrors"] == []


def _check_environment(seen, labels):
    for name in ("adr", "suites"):
        shown = seen["views"][name]["metadata"]
        assert shown["spec.release"] == "0.58.3"
        assert shown["spec.commit"] == "e599a3d36ebfad43362ff591ea5e128816c684c7"
        assert shown["device"] == ", ".join(sorted(labels.values()))
        assert shown["profile"] == "pto-v0"


def _check_adr_view(view):
    """Grouped by ADR, then operation, then spec test ID."""
    assert view["total"] == "6"
    tree = _tree(view["sections"])
    heading = {a: f"{a} {rs.ADR_TITLES[a]}" for a in rs.ADR_TITLES}
    tmuls = rs.UNITS["TMULS"]["readiness_subjects"]  # ADR-0035 0052 0057 0059 0081
    assert set(tree) == {heading[a] for a in (*tmuls, *rs.PROJECT_ADRS)}
    assert len(tree) == 6
    # ADR-0035 holds both vectors: 3 pass (good), 2 fail and 1 not supported (bad).
    counts, ops = tree[heading["ADR-0035"]]
    assert _outcomes(counts) == (3, 2, 1)
    assert set(ops) == {"TMULS", "TCVT"}
    assert set(ops["TMULS"][1]) == {rs.WIDTH} and set(ops["TCVT"][1]) == {rs.PROJECT}
    assert _outcomes(ops["TMULS"][0]) == (2, 1, 1)
    # ADR-0081 (TMULS only) and ADR-0047 (the project vector only).
    assert _outcomes(tree[heading["ADR-0081"]][0]) == (2, 1, 1)
    counts, ops = tree[heading["ADR-0047"]]
    assert _outcomes(counts) == (1, 1, 0) and set(ops) == {"TCVT"}
    # Every case on every device is a leaf under each ADR it traces to: 4 under each TMULS ADR,
    # 2 under ADR-0047, 6 under ADR-0035 = 4*4 + 2 + 6 leaves.
    assert len(view["leaves"]) == 4 * 4 + 2 + 6


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
    """Its category, parameters, links, attachments and description."""
    # The first failing leaf of the first ADR group (ADR-0035, TMULS before TCVT in run order).
    assert failed["title"] == f"two-lanes on {labels[rs.BAD]}"
    text = failed["text"]
    for shown in ("Category: Payload mismatch", "payload: 1 of 2 differ", "bit-level diff",
                  "aspect verdicts", f"spec test {rs.WIDTH}",
                  "ADR-0081 Tile scalar and immediate operations", "T[1] FP32 RowMajor 1x2"):
        assert shown in text, shown
    # The description: the catalog's summary of the spec test.
    assert rs.TESTS[rs.WIDTH]["summary"] in failed["description"]
