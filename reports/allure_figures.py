"""The size and opening time of a rendered Allure report, measured, and written into a document.

    python -m pto_avs.reports.allure_figures REPORT_DIR [--runs N] [--write docs/reports.md]

Measures the report folder ``pto-avs allure-html`` wrote: its files and their sizes, the
case runs it holds (from its summary page's data) and how long each page takes to open
from disk in headless Chromium (``reports/allure/open_time.mjs``: the summary until its
cards show, each view until its tree shows). Prints the figures; with ``--write DOC`` they
replace the lines between ``<!-- allure-figures -->`` and ``<!-- /allure-figures -->`` in
DOC, so no document types them. Exit status 0, or 2 when the report cannot be measured.
"""
from __future__ import annotations

import argparse
import json
import platform
import re
import subprocess
import sys
from pathlib import Path
from typing import Optional, Sequence

from .render import _SUMMARIES, NODE_DIR, RenderError, node_executable, report_files

OPEN_TIME = NODE_DIR / "open_time.mjs"
START, END = "<!-- allure-figures -->", "<!-- /allure-figures -->"


def runs_in(report: Path) -> Optional[int]:
    """The case runs of the report's first view (the summary page's card data), or None."""
    try:
        text = (Path(report) / "index.html").read_text(encoding="utf-8")
        start = text.index(_SUMMARIES) + len(_SUMMARIES)
        cards = json.loads(text[start:text.index("\n", start)].strip().rstrip(";"))
        total = cards[0]["stats"]["total"]
    except (OSError, ValueError, LookupError, TypeError):
        return None
    return total if isinstance(total, int) else None


def open_times(report: Path, timeout_ms: int = 120_000) -> dict:
    """{page: milliseconds to open from disk, or None past ``timeout_ms``}."""
    done = subprocess.run([node_executable(), str(OPEN_TIME), Path(report).resolve().as_uri() + "/", str(timeout_ms)],
                          capture_output=True, text=True, timeout=timeout_ms / 1000 * 4 + 60)
    if done.returncode != 0:
        raise RenderError(f"open_time.mjs failed (exit {done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def figures(report: Path, runs: Optional[int], timeout_ms: int) -> list[str]:
    files = report_files(report)
    total = sum(n for _, n in files)
    times = open_times(report, timeout_ms)
    largest = sorted(files, key=lambda item: -item[1])[:3]
    shown = ", ".join(f"`{p.relative_to(report)}` {n / 1e6:.1f} MB" for p, n in largest)
    opened = ", ".join(f"{page} {t['ms'] / 1000:.1f} s" if t["ms"] is not None else f"{page} did not open"
                       for page, t in times.items())
    return [f"Measured by `python -m pto_avs.reports.allure_figures` on a self-contained report of "
            f"{runs if runs is not None else 'an unknown number of'} case runs "
            f"(Python {platform.python_version()}, {platform.machine()}): "
            f"{len(files)} files, {total / 1e6:.1f} MB in all (largest: {shown}); opened from disk in "
            f"headless Chromium: {opened}."]


def write_into(doc: Path, lines: list[str]) -> None:
    text = doc.read_text(encoding="utf-8")
    pattern = re.compile(re.escape(START) + r"\n.*?" + re.escape(END), re.S)
    if not pattern.search(text):
        raise RenderError(f"{doc}: no {START} ... {END} block to replace")
    doc.write_text(pattern.sub(lambda _: "\n".join([START, *lines, END]), text, count=1), encoding="utf-8")


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m pto_avs.reports.allure_figures", description=__doc__.split("\n")[0])
    parser.add_argument("report", type=Path, help="a report folder written by pto-avs allure-html")
    parser.add_argument("--runs", type=int, default=None, help="the case runs it holds (default: read from the report)")
    parser.add_argument("--write", type=Path, default=None, metavar="DOC", help="replace the figures block of DOC")
    parser.add_argument("--timeout-ms", type=int, default=120_000, help="bound on opening each page (default 120000)")
    args = parser.parse_args(argv)
    try:
        lines = figures(args.report, args.runs if args.runs is not None else runs_in(args.report), args.timeout_ms)
        if args.write is not None:
            write_into(args.write, lines)
    except (RenderError, OSError, subprocess.TimeoutExpired, json.JSONDecodeError) as exc:
        print(f"allure_figures: {exc}", file=sys.stderr)
        return 2
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
