"""Bring-up comparison: the vectors on one or more devices and on the golden model, side by side.

    pto-avs compare --device NAME[:ARG] [--device ...] [--vectors PATH ...] [--out FILE.md|FILE.html]

Every device (and ``golden:<profile>`` for each profile among them, unless ``--no-golden``)
runs every case that holds under its profile. The report gives, per device, per operation
and per ADR (the ADRs a case traces to, from the catalog), the counts of pass, fail (and
which aspects failed), not supported, device error and not observable; the cases that do
not pass everywhere, one column per device; the reasons cases were not supported; and
for every failing case the comparator's account: the first divergence and a bit-level
diff. Plain text goes to the terminal; ``--out`` also writes Markdown (``.md``) or HTML
(``.html``), whole or not at all. Exit status: 0 when no device (the golden model aside)
has a failing case or a device error, 1 when one has, 2 when the run cannot be set up.
"""
from __future__ import annotations

import argparse
import collections
import html
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from .case_report import first_divergence

DESCRIPTION = "run the vectors on devices and the golden model; write a bring-up divergence report"
OUTCOMES = ("pass", "fail", "not supported", "device error", "not observable")
PROBLEMS = ("fail", "device error")
DEFAULT_BATCH = 32


# ---------------------------------------------------------------------------
# running


@dataclass
class Result:
    outcome: str
    failing: tuple = ()  # aspects that failed
    first: str = ""  # the first divergence, or the reason / error
    detail: str = ""  # the comparator's full account


@dataclass
class Column:
    """One device of the comparison and what it answered."""

    label: str  # as given on the command line (golden: golden:<profile>)
    name: str
    profile: str
    aspects: frozenset
    golden: bool
    results: dict = field(default_factory=dict)  # case id -> Result
    evidence: str = ""  # a replayed recording: its file, digest and the device line it came from


def _supports(device, case) -> Optional[str]:
    try:
        return device.supports(case)
    except Exception as exc:  # a device's own check failing is that device's problem
        return f"supports raised {type(exc).__name__}: {exc}"


def observe(device, cases: list, batch_size: int, progress=None) -> dict:
    """Run ``cases`` on ``device``; case id -> Result. ``progress`` (a ``reports.progress.Progress``)
    advances by each case answered."""
    from ..contract.case import Observation
    from ..contract.compare import compare

    results, runnable = {}, []
    for case in cases:
        reason = _supports(device, case)
        if reason is not None:
            results[case.id] = Result("not supported", first=reason, detail=reason)
        else:
            runnable.append(case)
    for start in range(0, len(runnable), batch_size):
        chunk = runnable[start:start + batch_size]
        try:
            observations = list(device.execute_batch(chunk))
        except Exception as exc:
            observations = [Observation.device_error(f"execute_batch raised {type(exc).__name__}: {exc}")] * len(chunk)
        if len(observations) != len(chunk):
            observations = [Observation.device_error(
                f"execute_batch returned {len(observations)} answers for {len(chunk)} cases")] * len(chunk)
        for case, observation in zip(chunk, observations):
            if observation.error is not None:
                late = _supports(device, case)  # a device may learn only by running a case that it cannot
                if late is not None:
                    results[case.id] = Result("not supported", first=late, detail=late)
                    continue
            verdict = compare(case, observation, device.capabilities.aspects, device.capabilities.profile)
            outcome = verdict.outcome
            first = first_divergence(verdict)  # a failing memory aspect first: the bytes a kernel stored
            results[case.id] = Result(outcome, tuple(verdict.failed), first, verdict.report())
        if progress is not None:
            progress.advance(len(chunk))
    return results


def recording_evidence(caps) -> str:
    """For a replayed recording (``Capabilities.extras`` of the replay device): the digest and the
    device line the answers came from; empty for any other device."""
    extras = getattr(caps, "extras", None) or {}
    if "recording.digest" not in extras:
        return ""
    return f"digest {extras['recording.digest']}; recorded from {extras.get('recording.device', '?')}"


def run_columns(specs: list[str], cases: list, golden: bool, batch_size: Optional[int],
                quiet: bool = True) -> tuple[list, list]:
    """Open and run every device; (columns, notes). ValueError when a device cannot be opened.
    Unless ``quiet``, each device's progress goes to stderr."""
    from ..plugins.base import open_device
    from .progress import Progress

    devices = []
    try:
        for spec in specs:
            try:
                devices.append((spec, open_device(spec), False))
            except Exception as exc:
                raise ValueError(f"cannot open device {spec!r}: {exc}") from None
        notes = []
        if golden:
            have = {spec for spec, _, _ in devices}
            for profile in sorted({d.capabilities.profile for _, d, _ in devices}):
                spec = f"golden:{profile}"
                if spec in have:
                    continue
                try:
                    devices.append((spec, open_device(spec), True))
                except Exception as exc:
                    notes.append(f"golden model ({spec}) unavailable: {type(exc).__name__}: {exc}")
        columns = []
        for spec, device, is_golden in devices:
            caps = device.capabilities
            column = Column(spec, getattr(device, "name", spec), caps.profile, frozenset(caps.aspects),
                            is_golden or spec.startswith("golden"), evidence=recording_evidence(caps))
            mine = [c for c in cases if caps.profile in c.profiles]
            size = batch_size or getattr(device, "batch_size", DEFAULT_BATCH)
            with Progress(f"compare {spec}", len(mine), "cases", quiet=quiet) as progress:
                column.results = observe(device, mine, size, progress)
                problems = sum(r.outcome in PROBLEMS for r in column.results.values())
                progress.finish(f"{problems} failing or in error")
            columns.append(column)
        return columns, notes
    finally:
        for _, device, _ in devices:
            try:
                device.close()
            except Exception:
                pass


# ---------------------------------------------------------------------------
# the report as blocks: ("title"|"heading"|"para"|"pre", text) or ("table", headers, rows)


def _counts_row(column: Column, cases: list) -> list[str]:
    mine = [c for c in cases if c.id in column.results]
    counts = collections.Counter(column.results[c.id].outcome for c in mine)
    aspects = collections.Counter(a for c in mine for a in column.results[c.id].failing)
    failing = ", ".join(f"{a} {n}" for a, n in sorted(aspects.items(), key=lambda kv: (-kv[1], kv[0])))
    return [str(len(mine))] + [str(counts.get(o, 0)) for o in OUTCOMES] + [failing or "-"]


COUNT_HEADERS = ["cases", *OUTCOMES, "failing aspects"]


def _outcome_cell(column: Column, cases: list) -> str:
    """``"430 pass, 2 fail (payload 2), 5 not supported"``: the non-zero counts of one device."""
    results = [column.results[c.id] for c in cases if c.id in column.results]
    if not results:
        return "-"
    counts = collections.Counter(r.outcome for r in results)
    parts = []
    for outcome in OUTCOMES:
        if counts.get(outcome):
            part = f"{counts[outcome]} {outcome}"
            if outcome == "fail":
                aspects = collections.Counter(a for r in results for a in r.failing)
                part += " (" + ", ".join(f"{a} {n}" for a, n in sorted(aspects.items(),
                                                                      key=lambda kv: (-kv[1], kv[0]))) + ")"
            parts.append(part)
    return ", ".join(parts)


def build(columns: list, cases: list, vector_errors: list, vectors: str, notes: list) -> list:
    from ..contract import spec_data

    adr_titles = {a["id"]: a["title"] for a in spec_data.load("tile-avs-catalog")["adrs"]}
    blocks: list = [("title", "Bring-up report")]
    blocks.append(("para", f"Vectors: {vectors}: {len(cases)} cases"
                           + (f", {len(vector_errors)} vector errors" if vector_errors else "")
                           + ". Each device runs the cases that hold under its profile."))
    for note in notes:
        blocks.append(("para", note))
    blocks.append(("table", ["device", "name", "profile", "not observable"],
                   [[c.label, c.name, c.profile,
                     ", ".join(sorted(set(_all_aspects()) - c.aspects)) or "-"] for c in columns]))
    replayed = [c for c in columns if c.evidence]
    if replayed:
        blocks.append(("para", "Replayed recordings (a digest detects edits made after the recording was written; "
                               "compare it with the digest published with the recording):"))
        blocks.append(("table", ["device", "recording"], [[c.label, c.evidence] for c in replayed]))

    blocks.append(("heading", "Summary"))
    blocks.append(("table", ["device", *COUNT_HEADERS], [[c.label, *_counts_row(c, cases)] for c in columns]))

    legend = ("Each cell: the device's outcomes for the cases of that row that hold under its profile "
              "(zero counts left out; '-': no such case); 'fail' lists the failing aspects.")
    blocks.append(("heading", "By operation"))
    blocks.append(("para", legend))
    blocks.append(("table", ["operation", *[col.label for col in columns]],
                   [[operation, *[_outcome_cell(col, [c for c in cases if c.operation == operation])
                                  for col in columns]]
                    for operation in sorted({c.operation for c in cases})]))

    blocks.append(("heading", "By ADR"))
    blocks.append(("para", legend + " A case counts under every ADR it traces to, so these rows "
                           "overlap: the Summary above counts each case once."))
    blocks.append(("table", ["ADR", *[col.label for col in columns]],
                   [[f"{adr} {adr_titles.get(adr, '')}".strip(),
                     *[_outcome_cell(col, [c for c in cases if adr in c.adrs]) for col in columns]]
                    for adr in sorted({a for c in cases for a in c.adrs})]))

    troubled = [c for c in cases if any(c.id in col.results and col.results[c.id].outcome in PROBLEMS
                                        for col in columns)]
    blocks.append(("heading", "Cases that fail or err on some device"))
    if troubled:
        blocks.append(("table", ["case", *[col.label for col in columns]],
                       [[c.id, *[_cell(col.results.get(c.id)) for col in columns]] for c in troubled]))
    else:
        blocks.append(("para", "None: every case that ran passed (or was not observable) on every device."))

    blocks.append(("heading", "Not supported, by reason"))
    rows = []
    for col in columns:
        reasons = collections.Counter(r.first for r in col.results.values() if r.outcome == "not supported")
        rows += [[col.label, str(n), reason] for reason, n in sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0]))]
    blocks.append(("table", ["device", "cases", "reason"], rows) if rows else ("para", "None."))

    blocks.append(("heading", "Failures"))
    any_failure = False
    for col in columns:
        for case in cases:
            result = col.results.get(case.id)
            if result is None or result.outcome not in PROBLEMS:
                continue
            any_failure = True
            blocks.append(("subheading", f"{case.id} on {col.label}: {result.outcome}"))
            blocks.append(("para", f"{case.path} ({case.operation}, {case.kind}; ADRs: "
                                   f"{', '.join(case.adrs) or 'none'})"))
            blocks.append(("pre", result.detail))
    if not any_failure:
        blocks.append(("para", "None."))

    if vector_errors:
        blocks.append(("heading", "Vector errors (not run)"))
        blocks += [("pre", error.message) for error in vector_errors]
    return blocks


def _all_aspects() -> tuple:
    from ..contract.case import ASPECTS
    return ASPECTS


def _cell(result: Optional[Result]) -> str:
    if result is None:
        return "n/a (profile)"
    if result.outcome == "fail":
        return "fail: " + ", ".join(result.failing)
    return result.outcome


# ---------------------------------------------------------------------------
# rendering


def _text_table(headers: list, rows: list) -> list[str]:
    widths = [max(len(str(x)) for x in column) for column in zip(headers, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return [line(headers), line(["-" * w for w in widths]), *map(line, rows)]


def render_text(blocks: list) -> str:
    out = []
    for block in blocks:
        kind = block[0]
        if kind == "title":
            out += [block[1], "=" * len(block[1])]
        elif kind == "heading":
            out += ["", block[1], "-" * len(block[1])]
        elif kind == "subheading":
            out += ["", block[1]]
        elif kind == "para":
            out.append(block[1])
        elif kind == "pre":
            out += ["    " + line for line in block[1].splitlines()]
        elif kind == "table":
            out += _text_table(block[1], block[2])
    return "\n".join(out) + "\n"


def _md_cell(value) -> str:
    return str(value).replace("|", "\\|").replace("\n", " ")


def render_markdown(blocks: list) -> str:
    out = []
    for block in blocks:
        kind = block[0]
        if kind == "title":
            out += [f"# {block[1]}", ""]
        elif kind == "heading":
            out += [f"## {block[1]}", ""]
        elif kind == "subheading":
            out += [f"### {block[1]}", ""]
        elif kind == "para":
            out += [block[1], ""]
        elif kind == "pre":
            out += ["```", *block[1].splitlines(), "```", ""]
        elif kind == "table":
            headers, rows = block[1], block[2]
            out.append("| " + " | ".join(map(_md_cell, headers)) + " |")
            out.append("|" + "|".join("---" for _ in headers) + "|")
            out += ["| " + " | ".join(map(_md_cell, row)) + " |" for row in rows]
            out.append("")
    return "\n".join(out)


_CSS = ("body{font-family:sans-serif;margin:2em}table{border-collapse:collapse;margin:1em 0}"
        "th,td{border:1px solid #bbb;padding:2px 8px;text-align:left}th{background:#eee}"
        "pre{background:#f6f6f6;padding:8px;overflow-x:auto}")


def render_html(blocks: list) -> str:
    e = html.escape
    out = ["<!DOCTYPE html>", "<html><head><meta charset=\"utf-8\"><title>Bring-up report</title>",
           f"<style>{_CSS}</style></head><body>"]
    for block in blocks:
        kind = block[0]
        if kind in ("title", "heading", "subheading"):
            tag = {"title": "h1", "heading": "h2", "subheading": "h3"}[kind]
            out.append(f"<{tag}>{e(block[1])}</{tag}>")
        elif kind == "para":
            out.append(f"<p>{e(block[1])}</p>")
        elif kind == "pre":
            out.append(f"<pre>{e(block[1])}</pre>")
        elif kind == "table":
            out.append("<table><tr>" + "".join(f"<th>{e(str(h))}</th>" for h in block[1]) + "</tr>")
            out += ["<tr>" + "".join(f"<td>{e(str(c))}</td>" for c in row) + "</tr>" for row in block[2]]
            out.append("</table>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


def write_report(path: Path, blocks: list) -> None:
    """Markdown for ``.md``, HTML for ``.html``/``.htm``: written whole or not at all."""
    from . import atomic

    suffix = path.suffix.lower()
    if suffix == ".md":
        content = render_markdown(blocks)
    elif suffix in (".html", ".htm"):
        content = render_html(blocks)
    else:
        raise ValueError(f"--out {path}: the file name must end in .md or .html")
    atomic.write_files(path.parent, {path.name: content})


# ---------------------------------------------------------------------------
# command line


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", action="append", required=True, metavar="NAME[:ARG]",
                        help="device to bring up (repeatable), e.g. 'process:./avs_c_device'")
    parser.add_argument("--vectors", action="append", type=Path, metavar="PATH",
                        help="vector directory or .yaml file (repeatable; default: the shipped vectors)")
    parser.add_argument("--out", type=Path, metavar="FILE.md|FILE.html",
                        help="also write the report as Markdown or HTML")
    parser.add_argument("--no-golden", action="store_true",
                        help="do not run the golden model beside the devices")
    parser.add_argument("--batch-size", type=int, metavar="N",
                        help="cases per execute_batch call (default: the device's own, else 32)")
    parser.add_argument("-q", "--quiet", action="store_true",
                        help="no progress lines on stderr (the report is printed all the same)")


def run(args: argparse.Namespace) -> int:
    from ..contract.loader import VECTORS_DIR, VectorError, load_paths

    if args.out is not None and args.out.suffix.lower() not in (".md", ".html", ".htm"):
        print(f"pto-avs compare: --out {args.out}: the file name must end in .md or .html", file=sys.stderr)
        return 2
    if args.batch_size is not None and args.batch_size < 1:
        print("pto-avs compare: --batch-size must be at least 1", file=sys.stderr)
        return 2
    paths = args.vectors or [VECTORS_DIR]
    missing = [p for p in paths if not Path(p).exists()]
    if missing:
        print(f"pto-avs compare: no such vector path: {missing[0]}", file=sys.stderr)
        return 2
    selected = getattr(args, "selected", None)  # (cases, vector errors) the caller selected (pto-avs compare -k ...)
    if selected is not None:
        cases, vector_errors = selected
    else:
        files = load_paths(paths)
        cases = [c for f in files for c in f.cases]
        vector_errors = [f.error for f in files if f.error is not None]
        vector_errors += [e for f in files for e in f.entries if isinstance(e, VectorError)]
    try:
        columns, notes = run_columns(args.device, cases, not args.no_golden, args.batch_size,
                                     quiet=getattr(args, "quiet", False))
    except ValueError as exc:
        print(f"pto-avs compare: {exc}", file=sys.stderr)
        return 2
    blocks = build(columns, cases, vector_errors, ", ".join(map(str, paths)), notes)
    sys.stdout.write(render_text(blocks))
    if args.out is not None:
        try:
            write_report(args.out, blocks)
        except OSError as exc:
            print(f"pto-avs compare: cannot write {args.out}: {exc}", file=sys.stderr)
            return 2
        print(f"report written to {args.out}")
    troubled = any(r.outcome in PROBLEMS for col in columns if not col.golden for r in col.results.values())
    return 1 if troubled else 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="pto-avs compare", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
