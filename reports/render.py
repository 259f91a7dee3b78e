"""Render an Allure results directory to HTML with Allure 3 (npm package ``allure``, no Java).

``pto-avs allure-html RESULTS_DIR OUT_DIR`` writes one report with two views:
``OUT_DIR/adr/`` groups the case runs by operation, then the set of ADRs they trace to,
then spec test ID (labels ``feature``/``adrs``/``story``: each case run is listed once,
and the search box narrows the tree to the failures of one ADR by its ID and title, e.g.
``ADR-0047 Numeric rounding semantics``, the name of a failing result's link to it), and
``OUT_DIR/suites/`` by device, operation and spec test ID (``parentSuite``/``suite``/
``subSuite``). ``OUT_DIR/index.html`` shows a summary card per view linking to it.
The categories are the results directory's ``categories.json``.

By default the report is self-contained (Allure's ``singleFile``: no fetch of any
file), so it opens from disk (``file://``) and can be mailed or archived as it is. Allure
inlines every data file of a view, base64-encoded, into that view's page, so each view
held the whole data again (62 MB a view for 5,748 runs); ``share_view_data`` then moves
the data of both views into one gzip-compressed ``report-data.js`` beside the pages, each
data file once however many views hold it, and the one Allure application script into
``allure-app.js``; a view page loads both with ``<script src>`` (allowed from disk),
decompresses the data in the browser (``DecompressionStream``) and hands Allure each
file, base64-encoded when first asked for. ``--served`` writes Allure's multi-file report
instead (smaller, one JSON file per result, loaded with fetch), which must be served
over http: ``python3 -m http.server -d OUT_DIR -b 127.0.0.1``. In both, the summary
cards link ``<view>/index.html`` and Allure's web-analytics tag is removed: opening a
report makes no request outside it.

Node.js 20+ must be on PATH; the pinned npm packages live in ``reports/allure/``
and are installed there with ``npm ci`` the first time they are missing.
"""
from __future__ import annotations

import argparse
import base64
import gzip
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional, Sequence

from . import atomic
from . import case_report as cr
from .allure_files import CATEGORIES, CATEGORIES_FILE
from .progress import Progress

NODE_DIR = Path(__file__).resolve().parent / "allure"
ALLURE_CLI = NODE_DIR / "node_modules" / "allure" / "cli.js"
VIEWS = {
    "adr": ("by ADR", ["feature", cr.ADR_SET, "story"]),
    "suites": ("by device", ["parentSuite", "suite", "subSuite"]),
}
# Not shown on a test's page (nor kept in the report): one chip per ADR is unreadable, the
# page names the ADRs in the ``adrs`` label (a failing result also links each ADR document);
# allure-pytest's host, thread, framework, language and package say nothing about a case.
HIDDEN_LABELS = [cr.ADR, "host", "thread", "framework", "language", "package"]
GENERATE_TIMEOUT_S = 600
# What Allure 3.18 puts in every view page: Google Analytics' loader and its call.
_ANALYTICS = re.compile(r'\s*<script async src="https://www\.googletagmanager\.com/gtag/js\?id=[^"]*">'
                        r'</script>\s*<script>[^<]*?gtag\([^<]*?</script>')
_SUMMARIES = "window.reportSummaries = "


class RenderError(RuntimeError):
    """Allure could not be found, installed or run; the message says which and how to fix it."""


def node_executable() -> str:
    node = shutil.which(os.environ.get("PTO_AVS_NODE", "node"))
    if node is None:
        raise RenderError("node (Node.js 20 or newer) is not on PATH; install it or set "
                          "PTO_AVS_NODE to its path")
    return node


def install_node_packages() -> None:
    """``npm ci`` in reports/allure: the exact versions of package-lock.json."""
    npm = shutil.which("npm")
    if npm is None:
        raise RenderError(f"npm is not on PATH; it is needed once to install {NODE_DIR}/node_modules")
    print(f"installing Allure 3: npm ci in {NODE_DIR}", file=sys.stderr)
    done = subprocess.run([npm, "ci", "--no-audit", "--no-fund"], cwd=NODE_DIR,
                          stdout=sys.stderr, stderr=sys.stderr)
    if done.returncode != 0 or not ALLURE_CLI.is_file():
        raise RenderError(f"npm ci in {NODE_DIR} failed (exit {done.returncode})")


def allure_config(results: Path, output: Path, name: str, single_file: bool = True) -> dict:
    categories_path = results / CATEGORIES_FILE
    try:
        categories = (json.loads(categories_path.read_text(encoding="utf-8"))
                      if categories_path.is_file() else CATEGORIES)
    except (OSError, json.JSONDecodeError) as exc:
        raise RenderError(f"{categories_path}: unreadable categories ({exc})") from None
    return {
        "name": name,
        "output": str(output),
        "categories": categories,
        "hideLabels": HIDDEN_LABELS,
        "plugins": {view: {"import": "@allurereport/plugin-awesome",
                           "options": {"reportName": f"{name} {title}", "groupBy": group_by,
                                       "singleFile": single_file}}
                    for view, (title, group_by) in VIEWS.items()},
    }


def finish_pages(report: Path) -> None:
    """Point the summary cards at ``<view>/index.html`` (a folder link opens a directory
    listing from disk) and take the analytics tag out of the view pages."""
    index = report / "index.html"
    text = index.read_text(encoding="utf-8")
    start = text.find(_SUMMARIES)
    end = text.find("\n", start)
    line = text[start:end]
    for view in VIEWS:
        link = f'"href":"{view}/"'
        if start < 0 or line.count(link) != 1:
            raise RenderError(f"{index}: no summary card linking {view}/ (Allure's summary page changed?)")
        line = line.replace(link, f'"href":"{view}/index.html"')
    index.write_text(text[:start] + line + text[end:], encoding="utf-8")
    for view in VIEWS:
        page = report / view / "index.html"
        text = _ANALYTICS.sub("", page.read_text(encoding="utf-8"), count=1)
        if "googletagmanager" in text:
            raise RenderError(f"{page}: analytics tag left in the page (Allure's template changed?)")
        page.write_text(text, encoding="utf-8")


SHARED_DATA = "report-data.js"  # every view's data files, gzip-compressed, each once
SHARED_APP = "allure-app.js"  # the Allure application script of the view pages
UNREAD_REGISTRY, UNREAD_SUMMARY = "test-results.json", "summary.json"  # left out of a report read from disk
_DATA_SCRIPTS = re.compile(r'<script async>\s*window\.allureReportDataReady = false;.*?</script>\s*'
                           r'<script defer>\s*Promise\.allSettled\(\[(?P<entries>.*?)\]\)\s*'
                           r'\.then\(function\(\)\{\s*window\.allureReportDataReady = true;\s*\}\)\s*</script>', re.S)
_ENTRY = re.compile(r'd\(("(?:[^"\\]|\\.)*"),"([A-Za-z0-9+/=]*)"\)')
_APP_SCRIPT = re.compile(r'<script( [^>]*)? src="data:text/javascript;base64,([A-Za-z0-9+/=]+)"></script>')
# Before the application runs: it reads its data from window.allureReportData (waiting until
# it is ready) only when that is set when it starts, else it fetches files, which disk forbids.
_DATA_FIRST = "<script>window.allureReportDataReady = false; window.allureReportData = {};</script>"
_LOADER = """<script src="../%(data)s"></script>
<script>
(function () {
  // pto-avs: this view's Allure data files, from the report's shared, gzip-compressed data
  function base64(bytes) {
    var text = "";
    for (var i = 0; i < bytes.length; i += 32768) text += String.fromCharCode.apply(null, bytes.subarray(i, i + 32768));
    return btoa(text);
  }
  // Set now, so the application asks for its data here (and waits until it is ready), not with fetch.
  window.allureReportDataReady = false;
  var data = window.allureReportData = window.allureReportData || {};
  var packed = atob(window.ptoAvsReportData), bytes = new Uint8Array(packed.length);
  for (var i = 0; i < packed.length; i++) bytes[i] = packed.charCodeAt(i);
  var stream = new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"));
  new Response(stream).text().then(function (text) {
    var shared = JSON.parse(text), names = shared.views[%(view)s], encoder = new TextEncoder();
    Object.keys(names).forEach(function (name) {
      var file = shared.files[names[name]], encoded = null;
      Object.defineProperty(data, name, {enumerable: true, get: function () {
        if (encoded === null) encoded = file[0] === "b" ? file[1] : base64(encoder.encode(file[1]));
        return encoded;
      }});
    });
    window.ptoAvsReportData = null;
    window.allureReportDataReady = true;
  });
})();
</script>"""


def share_view_data(report: Path) -> None:
    """Move the data files Allure inlined into each view page into one shared, compressed
    ``report-data.js`` (each file once) and the application script into ``allure-app.js``."""
    files: dict[str, list] = {}  # digest -> ["t", UTF-8 text] or ["b", base64 of other bytes]
    views: dict[str, dict] = {}
    pages = {}
    apps = set()
    for view in VIEWS:
        page = report / view / "index.html"
        text = page.read_text(encoding="utf-8")
        found = _DATA_SCRIPTS.search(text)
        app = _APP_SCRIPT.findall(text)
        if found is None or len(app) != 1:
            raise RenderError(f"{page}: no inlined data or application script where Allure writes them "
                              f"(Allure's single-file page changed?)")
        entries = _ENTRY.findall(found.group("entries"))
        if len(entries) != found.group("entries").count('d("'):
            raise RenderError(f"{page}: a data file pto-avs cannot read back (Allure's single-file page changed?)")
        names = views[view] = {}
        for quoted, value in entries:
            raw = base64.b64decode(value)
            digest = hashlib.sha256(raw).hexdigest()[:24]
            if digest not in files:
                try:
                    files[digest] = ["t", raw.decode("utf-8")]
                except UnicodeDecodeError:
                    files[digest] = ["b", value]
            names[json.loads(quoted)] = digest
        apps.add(app[0][1])
        loader = _LOADER % {"data": SHARED_DATA, "view": json.dumps(view)}
        page_text = text[:found.start()] + loader + text[found.end():]
        pages[page] = _APP_SCRIPT.sub(lambda m: f'{_DATA_FIRST}<script{m.group(1) or ""} src="../{SHARED_APP}"></script>',
                                      page_text)
    if len(apps) != 1:
        raise RenderError(f"the views' pages carry {len(apps)} different Allure application scripts, not one")
    packed = gzip.compress(json.dumps({"files": files, "views": views}, separators=(",", ":")).encode(), 9, mtime=0)
    (report / SHARED_DATA).write_text(f'window.ptoAvsReportData="{base64.b64encode(packed).decode()}";\n',
                                      encoding="utf-8")
    (report / SHARED_APP).write_bytes(base64.b64decode(apps.pop()))
    for page, text in pages.items():
        page.write_text(text, encoding="utf-8")
    # Files a page opened from disk cannot read (file:// refuses fetch; the summary page has its
    # cards inlined): Allure's registry of every result and each view's summary, 7 MB for 25,000 runs.
    for unread in [report / UNREAD_REGISTRY, *(report / view / UNREAD_SUMMARY for view in VIEWS)]:
        unread.unlink(missing_ok=True)


def report_files(out: Path) -> list[tuple[Path, int]]:
    """The report's files and their sizes in bytes."""
    return [(p, p.stat().st_size) for p in sorted(Path(out).rglob("*")) if p.is_file()]


def render(results: Path, out: Path, name: str = "pto-avs", install: bool = True,
           single_file: bool = True, force: bool = False, quiet: bool = True, notes: Optional[list] = None) -> Path:
    """Generate the HTML report of ``results`` into ``out`` (replaced whole, or left as it was):
    self-contained pages by default, Allure's served multi-file report with ``single_file=False``
    or when the self-contained one would be larger than SELF_CONTAINED_BYTES (said in ``notes``).
    Unless ``quiet``, how long ``allure generate`` has run so far goes to stderr."""
    results, out = Path(results).resolve(), Path(out).resolve()
    if not force and not atomic.ours(out, _earlier_report):  # before any work: nothing of it is lost
        raise RenderError(f"{out} exists and is not a report written by pto-avs: nothing was replaced; "
                          f"choose another folder, empty it, or pass --force to replace it whole")
    if not results.is_dir():
        raise RenderError(f"{results}: not a directory of Allure results")
    if not any(results.glob("*-result.json")):
        raise RenderError(f"{results}: holds no *-result.json (run pytest with --alluredir {results})")
    node = node_executable()
    if not ALLURE_CLI.is_file():
        if not install:
            raise RenderError(f"{ALLURE_CLI} is missing: run 'npm ci' in {NODE_DIR}")
        install_node_packages()
    out.parent.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix=f".{out.name}.", dir=out.parent))
    try:
        staged = _generate_report(node, results, work, name, single_file, quiet)
        size = sum(n for _, n in report_files(staged))
        if single_file and size > SELF_CONTAINED_BYTES:
            shutil.rmtree(staged)
            staged = _generate_report(node, results, work, name, False, quiet)
            if notes is not None:
                notes.append(f"the self-contained report would be {size / 1e6:.1f} MB, above its bound of "
                             f"{SELF_CONTAINED_BYTES / 1e6:.0f} MB: wrote the served form instead")
        atomic.replace_dir(staged, out, force=force, recognise=_earlier_report, how_to_force="--force")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return out


# The self-contained form above this many bytes in all is written served instead, and the
# command says so: a report past it no longer opens from disk within seconds.
SELF_CONTAINED_BYTES = 50_000_000


def _generate_report(node: str, results: Path, work: Path, name: str, single_file: bool, quiet: bool) -> Path:
    """``allure generate`` of ``results`` into ``work/report``, its pages finished (and, when
    ``single_file``, its views' data shared): the staged report."""
    staged = work / "report"
    config = work / "allurerc.json"
    config.write_text(json.dumps(allure_config(results, staged, name, single_file), indent=2))
    count = sum(1 for _ in results.glob("*-result.json"))
    with Progress(f"allure-html: generating the report of {count} results", None, quiet=quiet) as progress:
        done = _generate([node, str(ALLURE_CLI), "generate", str(results), "--config", str(config)], work,
                         progress)
    missing = [v for v in VIEWS if not (staged / v / "index.html").is_file()]
    if done.returncode != 0 or missing or not (staged / "index.html").is_file():
        raise RenderError(f"allure generate failed (exit {done.returncode}"
                          + (f", no view {', '.join(missing)}" if missing else "")
                          + f"):\n{done.stdout}{done.stderr}")
    finish_pages(staged)
    if single_file:
        share_view_data(staged)
    return staged


def _generate(command: list, cwd: Path, progress: Progress) -> subprocess.CompletedProcess:
    """Run ``allure generate``, showing the time so far while it runs (RenderError past the limit)."""
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + GENERATE_TIMEOUT_S
    while True:
        try:
            stdout, stderr = process.communicate(timeout=1.0)
            return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)
        except subprocess.TimeoutExpired:
            if time.monotonic() > deadline:
                process.kill()
                process.communicate()
                raise RenderError(f"allure generate ran past {GENERATE_TIMEOUT_S} s") from None
            progress.tick()
        except BaseException:  # an interrupt: the subprocess does not outlive the command
            process.kill()
            process.communicate()
            raise


def _earlier_report(folder: Path) -> bool:
    """A report of ours from before the marker: its summary page and every view page."""
    return (folder / "index.html").is_file() and all((folder / v / "index.html").is_file() for v in VIEWS)


DESCRIPTION = ("render Allure results to an HTML report with Allure 3 (views by ADR and by device), "
               "self-contained pages that open from disk")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", type=Path, help="Allure results directory (pytest --alluredir)")
    parser.add_argument("out", type=Path, help="report directory (replaced whole when it is an earlier "
                                               "pto-avs report or empty; anything else is refused)")
    parser.add_argument("--force", action="store_true",
                        help="replace OUT whole even when it is not an earlier pto-avs report")
    parser.add_argument("--name", default="pto-avs", help="report name (default: pto-avs)")
    parser.add_argument("--served", action="store_true",
                        help="Allure's multi-file report, to be served over http (default: "
                             "self-contained single-file pages that open from disk)")
    parser.add_argument("--no-install", action="store_true",
                        help="fail instead of running 'npm ci' when Allure 3 is not installed")
    parser.add_argument("-q", "--quiet", action="store_true", help="no progress lines on stderr")


def run(args: argparse.Namespace) -> int:
    notes: list = []
    try:
        out = render(args.results, args.out, args.name, install=not args.no_install,
                     single_file=not args.served, force=args.force, quiet=getattr(args, "quiet", False), notes=notes)
    except (RenderError, OSError) as exc:
        print(f"pto-avs allure-html: {exc}", file=sys.stderr)
        return 2
    files = report_files(out)
    served = args.served or bool(notes)
    for note in notes:
        print(f"pto-avs allure-html: {note}")
    print(f"{out / 'index.html'}: {len(files)} files, {sum(n for _, n in files) / 1e6:.1f} MB"
          + (f"; serve it over http: python3 -m http.server -d {out} -b 127.0.0.1" if served else "; opens from disk"))
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="pto-avs allure-html", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
