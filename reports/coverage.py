"""The ADR coverage report: which ADRs the vectors exercise, with what outcome on which device.

``pto-avs coverage RESULTS_DIR [--out DIR] [--vectors DIR]`` reads an Allure results
directory written by a ``pytest avs/ --alluredir RESULTS_DIR`` run and writes
``adr-coverage.md`` (for reading), ``adr-coverage.json`` (for tools) and
``adr-coverage.html`` (self-contained: a table and a bar chart), all three or none.

First, per spec family (the catalog's classification), how many of its spec test IDs
have a vector, and the total over all 444. Then one row per ADR any tile operation
traces to (the catalog's readiness subjects), plus any other ADR a project vector
names. A case traces to several ADRs (a TCVT spec test to 11) and counts in the row
of each, so the rows overlap and their sum means nothing; the first row, "all ADRs",
counts every case run once: that is the number to sum or quote. Below: every spec
test ID without a vector.
"""
from __future__ import annotations

import argparse
import html
import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence

from . import atomic, traceability
from . import case_report as cr
from .allure_results import Results, ResultsError, read

FORMAT = "pto-avs-adr-coverage/1"
BASENAME = "adr-coverage"


@dataclass
class AdrRow:
    adr: traceability.Adr
    operations: list[str]
    spec_tests: list[str]  # catalog test IDs of its operations
    with_vector: list[str] = field(default_factory=list)  # those of spec_tests that have a vector
    vectors: list[str] = field(default_factory=list)  # vector IDs that ran a case tracing to it
    cases: int = 0  # distinct (vector, case) pairs
    outcomes: dict[str, Counter] = field(default_factory=dict)  # device key -> verdict counts

    def to_json(self) -> dict:
        return {
            "id": self.adr.id, "title": self.adr.title, "status": self.adr.status,
            "url": self.adr.url if self.adr.path else None,
            "operations": self.operations, "spec_tests": self.spec_tests,
            "spec_tests_with_vector": self.with_vector,
            "vector_files": len(self.vectors), "vectors": self.vectors, "cases": self.cases,
            "outcomes": {dev: {v: counts.get(v, 0) for v in cr.VERDICTS}
                         for dev, counts in self.outcomes.items()},
        }


def _tally(row: AdrRow, runs, devices: list[str]) -> AdrRow:
    """Fill a row's vectors, distinct cases and per-device verdict counts from its case runs."""
    row.vectors = sorted({r.spec_test for r in runs})
    row.cases = len({(r.spec_test, r.case) for r in runs})
    for dev in devices:
        row.outcomes[dev] = Counter(r.verdict for r in runs if r.device_key == dev)
    return row


ALL_ADRS = traceability.Adr("all ADRs", "every case run once", "", "")
ALL_FAMILIES = "all families"


@dataclass
class FamilyRow:
    family: str
    operations: list[str]
    spec_tests: list[str]
    with_vector: list[str]

    def to_json(self) -> dict:
        return {"family": self.family, "operations": self.operations, "spec_tests": len(self.spec_tests),
                "spec_tests_with_vector": len(self.with_vector),
                "operations_with_vector": self.operations_with_vector()}

    def operations_with_vector(self) -> list[str]:
        return [op for op in self.operations if set(traceability.operation_tests(op)) & set(self.with_vector)]

    def fraction(self) -> str:
        return f"{len(self.with_vector)} of {len(self.spec_tests)}"


def _families(have: set[str]) -> list[FamilyRow]:
    """One row per spec family in catalog order, then the row of all families."""
    by_family: dict[str, list[str]] = {}
    for op in traceability.operations():
        by_family.setdefault(traceability.operation_family(op), []).append(op)
    rows = []
    for family, ops in [*by_family.items(), (ALL_FAMILIES, list(traceability.operations()))]:
        tests = [t for op in ops for t in traceability.operation_tests(op)]
        rows.append(FamilyRow(family, ops, tests, [t for t in tests if t in have]))
    return rows


@dataclass
class Coverage:
    families: list[FamilyRow]  # per spec family, the last row all families
    rows: list[AdrRow]
    total: AdrRow  # every case run once (the rows overlap: a case counts under each of its ADRs)
    devices: list[str]
    missing: list[traceability.SpecTest]  # spec tests with no vector
    missing_operation: dict[str, str]  # spec test ID -> operation
    vector_source: str  # where "has a vector" was decided
    results: Results

    def to_json(self) -> dict:
        env = self.results.environment
        return {
            "format": FORMAT,
            "spec": {"release": traceability.spec_release(), "commit": traceability.spec_commit(),
                     "repository": traceability.SPEC_REPOSITORY},
            "environment": env,
            "devices": self.devices,
            "case_runs": len(self.results.runs),
            "foreign_results": self.results.foreign,
            "unlabelled_results": self.results.unlabelled,
            "total": {"vector_files": len(self.total.vectors), "cases": self.total.cases,
                      "outcomes": self.total.to_json()["outcomes"]},
            "vector_source": self.vector_source,
            "families": [row.to_json() for row in self.families],
            "adrs": [row.to_json() for row in self.rows],
            "spec_tests_without_vector": [
                {"id": t.id, "operation": self.missing_operation[t.id], "kind": t.kind,
                 "spec_test_file": t.spec_test_file} for t in self.missing],
        }


def build(results: Results, vector_ids: Optional[set[str]] = None,
          vector_source: str = "the results") -> Coverage:
    """Coverage from the case runs. A spec test has a vector when the results show it ran or
    ``vector_ids`` (the files of the vectors directories, when given) hold it."""
    runs = results.runs
    devices = sorted({r.device_key for r in runs})
    adr_ids = list(traceability.covered_adrs())
    adr_ids += sorted({a for r in runs for a in r.adrs} - set(adr_ids))
    have = {r.spec_test for r in runs} | (vector_ids or set())
    rows = []
    for adr_id in adr_ids:
        ops = [op for op in traceability.operations() if adr_id in traceability.operation_adrs(op)]
        tests = [t for op in ops for t in traceability.operation_tests(op)]
        row = AdrRow(traceability.adr(adr_id), ops, tests, [t for t in tests if t in have])
        rows.append(_tally(row, [r for r in runs if adr_id in r.adrs], devices))
    all_tests = [t for op in traceability.operations() for t in traceability.operation_tests(op)]
    total = _tally(AdrRow(ALL_ADRS, list(traceability.operations()), all_tests,
                          [t for t in all_tests if t in have]), runs, devices)
    missing, missing_op = [], {}
    for op in traceability.operations():
        for test_id in traceability.operation_tests(op):
            if test_id not in have:
                missing.append(traceability.spec_tests()[test_id])
                missing_op[test_id] = op
    return Coverage(_families(have), rows, total, devices, missing, missing_op, vector_source, results)


def vector_ids_in(paths: Sequence[Path]) -> set[str]:
    """Vector IDs of vectors directories and files: the names ``<ID>.yaml`` (anywhere below a directory)."""
    ids = set()
    for path in paths:
        if path.is_file() and path.suffix == ".yaml":
            ids.add(path.stem)
        elif path.is_dir():
            ids |= {p.stem for p in path.rglob("*.yaml") if p.stem.startswith("PTO-AVS-")}
        else:
            raise ResultsError(f"{path}: neither a vectors directory nor a .yaml vector file")
    return ids


# ---------------------------------------------------------------- rendering

_VERDICT_COLOURS = {cr.PASS: "#2e9e44", cr.FAIL: "#d93a3a", cr.NOT_SUPPORTED: "#9aa3ad",
                    cr.NOT_OBSERVABLE: "#c9ced4", cr.DEVICE_ERROR: "#e0a100"}


def _outcome_text(counts: Counter) -> str:
    return " / ".join(str(counts.get(v, 0)) for v in cr.VERDICTS)


def _header(cov: Coverage) -> list[str]:
    env = cov.results.environment
    return [
        f"Spec PTO-ISA/pto-spec {traceability.spec_release()} at {traceability.spec_commit()}; "
        f"model {env.get('model.version', traceability.model_version())}.",
        f"{len(cov.results.runs)} case runs on {len(cov.devices)} device(s): "
        f"{', '.join(cov.devices) or 'none'}.",
        f"Outcome columns count case runs as {' / '.join(cr.VERDICTS)}.",
        "A case traces to several ADRs and counts in the row of each, so the ADR rows overlap; "
        "the first row, all ADRs, counts every case run once.",
    ]


def _operations_text(row: AdrRow, cov: Coverage) -> str:
    if row is cov.total:
        return f"all {len(row.operations)}"
    return ", ".join(row.operations) or "-"


def to_markdown(cov: Coverage) -> str:
    lines = ["# ADR coverage", ""] + [f"{line}  " for line in _header(cov)] + [""]
    lines += ["## Spec tests with a vector, per family", "",
              "| Family | Operations | Operations with a vector | Spec tests with vector |", "|---|---|---|---|"]
    for row in cov.families:
        cells = [row.family, str(len(row.operations)), str(len(row.operations_with_vector())), row.fraction()]
        lines.append("| " + " | ".join(f"**{c}**" if row.family == ALL_FAMILIES else c for c in cells) + " |")
    lines += ["", "## ADRs", ""]
    cols = ["ADR", "Title", "Status", "Operations", "Spec tests with vector", "Vector files", "Cases"]
    cols += cov.devices
    lines += ["| " + " | ".join(cols) + " |", "|" + "---|" * len(cols)]
    for row in [cov.total, *cov.rows]:
        cells = [row.adr.id, row.adr.title, row.adr.status or "-", _operations_text(row, cov),
                 f"{len(row.with_vector)} of {len(row.spec_tests)}", str(len(row.vectors)),
                 str(row.cases)]
        cells += [_outcome_text(row.outcomes[d]) for d in cov.devices]
        if row is cov.total:
            cells = [f"**{c}**" for c in cells]
        lines.append("| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |")
    lines += ["", "## Vectors per ADR", ""]
    for row in cov.rows:
        ran = ", ".join(row.vectors) or "none"
        lines.append(f"- **{row.adr.id}** {row.adr.title}: spec tests with a vector "
                     f"{', '.join(row.with_vector) or 'none'}; vectors run: {ran}")
    lines += ["", f"## Spec tests without a vector ({len(cov.missing)}, from {cov.vector_source})", ""]
    lines += [f"- {t.id} ({cov.missing_operation[t.id]}, {t.kind})" for t in cov.missing] or ["- none"]
    return "\n".join(lines) + "\n"


_CSS = """
body{font-family:system-ui,sans-serif;margin:2rem;color:#1d232a;background:#fff}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}
table{border-collapse:collapse;font-size:.85rem}th,td{border:1px solid #d6dbe0;padding:.3rem .5rem;
text-align:left;vertical-align:top}th{background:#f1f3f5}td.num{text-align:right}
td:first-child,td.num{white-space:nowrap}tr.total td{font-weight:600;background:#f8f9fa}
.legend span{display:inline-block;margin-right:1rem}.sw{display:inline-block;width:.8rem;height:.8rem;
margin-right:.3rem;vertical-align:middle}svg text{font-size:11px;fill:#1d232a}
"""


def _bar_chart(cov: Coverage) -> str:
    """Horizontal stacked bars split by verdict: first every case run once (all ADRs), then
    per ADR its case runs on all devices (a gap between: those bars overlap)."""
    label_w, bar_w, row_h, gap = 90, 480, 20, 10
    rows = [cov.total, *cov.rows]
    totals = [sum(sum(c.values()) for c in row.outcomes.values()) for row in rows]
    scale = bar_w / max(totals + [1])
    height = row_h * len(rows) + gap + 10
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{label_w + bar_w + 60}" '
             f'height="{height}" role="img" aria-label="Case runs per ADR by verdict">']
    for i, (row, total) in enumerate(zip(rows, totals)):
        y = 5 + i * row_h + (gap if i else 0)
        parts.append(f'<text x="0" y="{y + 13}">{html.escape(row.adr.id)}</text>')
        x = float(label_w)
        for verdict in cr.VERDICTS:
            n = sum(c.get(verdict, 0) for c in row.outcomes.values())
            if n:
                w = n * scale
                parts.append(f'<rect x="{x:.1f}" y="{y}" width="{w:.1f}" height="{row_h - 4}" '
                             f'fill="{_VERDICT_COLOURS[verdict]}"><title>{html.escape(row.adr.id)}: '
                             f'{n} {verdict}</title></rect>')
                x += w
        parts.append(f'<text x="{x + 4:.1f}" y="{y + 13}">{total}</text>')
    parts.append("</svg>")
    return "".join(parts)


def to_html(cov: Coverage) -> str:
    e = html.escape
    out = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
           "<title>ADR coverage</title>", f"<style>{_CSS}</style></head><body>",
           "<h1>ADR coverage</h1>"]
    out += [f"<p>{e(line)}</p>" for line in _header(cov)]
    out.append('<h2>Case runs, all ADRs and per ADR</h2><p class="legend">' + "".join(
        f'<span><i class="sw" style="background:{_VERDICT_COLOURS[v]}"></i>{e(v)}</span>'
        for v in cr.VERDICTS) + "</p>")
    out.append(_bar_chart(cov))
    out.append('<h2>Spec tests with a vector, per family</h2><table id="families"><thead><tr><th>Family</th>'
               '<th>Operations</th><th>Operations with a vector</th><th>Spec tests with vector</th></tr></thead><tbody>')
    for row in cov.families:
        tr = '<tr class="total">' if row.family == ALL_FAMILIES else f'<tr data-family="{e(row.family)}">'
        out.append(tr + f"<td>{e(row.family)}</td><td class=\"num\">{len(row.operations)}</td>"
                   f'<td class="num">{len(row.operations_with_vector())}</td><td class="num">{row.fraction()}</td></tr>')
    out.append("</tbody></table>")
    heads = ["ADR", "Title", "Status", "Operations", "Spec tests with vector", "Vector files",
             "Cases"]
    heads += [f"{d}<br><small>{' / '.join(cr.VERDICTS)}</small>" for d in map(e, cov.devices)]
    out.append('<h2>Coverage table</h2><table id="coverage"><thead><tr>'
               + "".join(f"<th>{h}</th>" for h in heads) + "</tr></thead><tbody>")
    for row in [cov.total, *cov.rows]:
        adr_cell = (f'<a href="{e(row.adr.url)}">{e(row.adr.id)}</a>' if row.adr.path
                    else e(row.adr.id))
        tests = (f"<details><summary>{len(row.with_vector)} of {len(row.spec_tests)}</summary>"
                 + "<br>".join(e(t) + ("" if t in row.with_vector else " <small>(no vector)</small>")
                               for t in row.spec_tests) + "</details>") if row.spec_tests else "-"
        cells = [adr_cell, e(row.adr.title), e(row.adr.status or "-"),
                 e(_operations_text(row, cov)), tests]
        tr = '<tr class="total">' if row is cov.total else f'<tr data-adr="{e(row.adr.id)}">'
        out.append(tr + "".join(f"<td>{c}</td>" for c in cells)
                   + f'<td class="num">{len(row.vectors)}</td><td class="num">{row.cases}</td>'
                   + "".join(f'<td class="num">{_outcome_text(row.outcomes[d])}</td>'
                             for d in cov.devices) + "</tr>")
    out.append("</tbody></table>")
    out.append(f"<h2>Spec tests without a vector ({len(cov.missing)}, from "
               f"{e(cov.vector_source)})</h2><ul id=\"missing\">")
    out += [f'<li><a href="{e(t.url)}">{e(t.id)}</a> ({e(cov.missing_operation[t.id])}, '
            f"{e(t.kind)})</li>" for t in cov.missing] or ["<li>none</li>"]
    out.append("</ul></body></html>")
    return "\n".join(out) + "\n"


def write(cov: Coverage, out_dir: Path) -> list[Path]:
    """Write the three files, all or none."""
    files = {f"{BASENAME}.md": to_markdown(cov),
             f"{BASENAME}.json": json.dumps(cov.to_json(), indent=2) + "\n",
             f"{BASENAME}.html": to_html(cov)}
    atomic.write_files(out_dir, files)
    return [Path(out_dir) / name for name in files]


DESCRIPTION = "write the ADR coverage report (Markdown, JSON, HTML) from an Allure results directory"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("results", type=Path, help="Allure results directory (pytest --alluredir)")
    parser.add_argument("--out", type=Path, default=Path("adr-coverage"),
                        help="output directory (default: ./adr-coverage)")
    parser.add_argument("--vectors", type=Path, action="append",
                        help="vectors directory or .yaml file (repeatable): a spec test whose "
                             "<ID>.yaml is there has a vector even if no case of it ran (default: "
                             "the paths the run recorded in environment.properties, if they exist)")


def run(args: argparse.Namespace) -> int:
    try:
        results = read(args.results)
        vectors = args.vectors
        recorded = [Path(p) for p in results.environment.get("vectors", "").split(", ") if p]
        if not vectors and recorded and all(p.exists() for p in recorded):
            vectors = recorded
        ids = vector_ids_in(vectors) if vectors else None
        source = "the results" + (" and the vector files in " + ", ".join(map(str, vectors))
                                  if vectors else "")
        paths = write(build(results, ids, source), args.out)
    except (ResultsError, OSError) as exc:
        print(f"pto-avs coverage: {exc}", file=sys.stderr)
        return 2
    for path in paths:
        print(path)
    if results.unlabelled:
        print(f"pto-avs coverage: skipped {results.unlabelled} result file(s) without labels in {args.results} "
              f"(left by a killed run?)", file=sys.stderr)
    return 0


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="pto-avs coverage", description=DESCRIPTION)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
