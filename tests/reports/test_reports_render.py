"""pto-avs allure-html: configuration and the whole-or-nothing report directory.

Rendering itself (Allure 3 in Node.js) is checked end to end by test_reports_browser.py;
these tests need neither Node.js nor a browser.
"""
import base64
import gzip
import json
from pathlib import Path

import pytest

from pto_avs.reports import allure_files, render


def _results(folder: Path) -> Path:
    folder.mkdir()
    (folder / "0-result.json").write_text(json.dumps({"name": "t", "status": "passed", "labels": []}))
    return folder


def test_config_groups_views_by_adr_and_by_device_with_the_run_categories(tmp_path):
    results = _results(tmp_path / "res")
    custom = [{"name": "Only this", "matchedStatuses": ["failed"]}]
    (results / "categories.json").write_text(json.dumps(custom))
    config = render.allure_config(results, tmp_path / "out", "pto-avs")
    assert config["categories"] == custom
    plugins = config["plugins"]
    # ADR view: operation > ADR set > spec test ID, so each case run is one leaf.
    assert plugins["adr"]["options"]["groupBy"] == ["feature", "adrs", "story"]
    assert plugins["suites"]["options"]["groupBy"] == ["parentSuite", "suite", "subSuite"]
    assert {p["import"] for p in plugins.values()} == {"@allurereport/plugin-awesome"}
    # Self-contained pages unless the served report is asked for; one chip per ADR hidden.
    assert {p["options"]["singleFile"] for p in plugins.values()} == {True}
    served = render.allure_config(results, tmp_path / "out", "pto-avs", single_file=False)
    assert {p["options"]["singleFile"] for p in served["plugins"].values()} == {False}
    assert config["hideLabels"] == ["adr", "host", "thread", "framework", "language", "package"]
    # Without a categories.json (results not written by our plugin) ours are used.
    (results / "categories.json").unlink()
    assert render.allure_config(results, tmp_path / "out", "x")["categories"] == allure_files.CATEGORIES


def test_results_without_any_result_are_refused(tmp_path, capsys):
    (tmp_path / "res").mkdir()
    assert render.main([str(tmp_path / "res"), str(tmp_path / "out")]) == 2
    assert "holds no *-result.json" in capsys.readouterr().err
    assert not (tmp_path / "out").exists()


def test_a_failing_generator_leaves_the_previous_report_as_it_was(tmp_path, monkeypatch, capsys):
    results = _results(tmp_path / "res")
    out = tmp_path / "out"
    out.mkdir()
    (out / "index.html").write_text("previous report")
    (out / render.atomic.MARKER).write_text("")  # an earlier report of ours
    monkeypatch.setenv("PTO_AVS_NODE", "false")  # a "node" that exits 1 at once
    monkeypatch.setattr(render, "ALLURE_CLI", Path(render.__file__))  # present, never run
    assert render.main([str(results), str(out), "--no-install"]) == 2
    assert "allure generate failed (exit 1" in capsys.readouterr().err
    assert sorted(p.name for p in out.iterdir()) == [render.atomic.MARKER, "index.html"]
    assert (out / "index.html").read_text() == "previous report"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out", "res"]  # no staging left behind


# As Allure 3.18 writes them: the summary page's card data and a view page's analytics tag.
SUMMARY_PAGE = """<html><head><script>
      window.reportSummaries = [{"name":"pto-avs by ADR","href":"adr/"},{"name":"pto-avs by device","href":"suites/"}]
    </script></head><body></body></html>"""
VIEW_PAGE = """<body>
    <div id="app"></div>
    <script async src="https://www.googletagmanager.com/gtag/js?id=G-LNDJ3J7WT0"></script>
    <script>
        window.dataLayer = window.dataLayer || [];
        function gtag(){dataLayer.push(arguments);}
        gtag('js', new Date());
        gtag('config', 'G-LNDJ3J7WT0', {
          "report": "awesome",
          "single_file": "true"
        });
    </script>
    <script>data</script>
</body>"""


def _pages(folder: Path, summary: str = SUMMARY_PAGE) -> Path:
    folder.mkdir()
    (folder / "index.html").write_text(summary)
    for view in render.VIEWS:
        (folder / view).mkdir()
        (folder / view / "index.html").write_text(VIEW_PAGE)
    return folder


def test_finished_pages_link_each_view_page_and_carry_no_analytics(tmp_path):
    report = _pages(tmp_path / "report")
    render.finish_pages(report)
    summary = (report / "index.html").read_text()
    assert '"href":"adr/index.html"' in summary and '"href":"suites/index.html"' in summary
    assert '"href":"adr/"' not in summary
    for view in render.VIEWS:
        assert (report / view / "index.html").read_text() == (
            '<body>\n    <div id="app"></div>\n    <script>data</script>\n</body>')


def test_a_summary_page_without_the_expected_cards_is_an_error(tmp_path):
    report = _pages(tmp_path / "report", SUMMARY_PAGE.replace('"href":"suites/"', '"href":""'))
    with pytest.raises(render.RenderError, match="no summary card linking suites/"):
        render.finish_pages(report)


def _single_file_view(entries: dict, app: bytes = b"console.log('allure');") -> str:
    """A view page as Allure 3.18's single-file mode writes it: the application inlined as a data
    URL, then the data files, base64, in d(name, value) calls."""
    calls = ",".join(f'd({json.dumps(name)},"{base64.b64encode(value).decode()}")' for name, value in entries.items())
    return (f'<body><div id="app"></div>\n<script  src="data:text/javascript;base64,{base64.b64encode(app).decode()}">'
            f'</script>\n    <script async>\n      window.allureReportDataReady = false;\n      window.allureReportData = '
            f'window.allureReportData || {{}};\n      function d(name, value){{ window.allureReportData[name] = value; }}\n'
            f'    </script>\n    <script defer>\n      Promise.allSettled([{calls}])\n        .then(function(){{\n'
            f'          window.allureReportDataReady = true;\n        }})\n    \n</script>\n</body>')


def test_views_share_one_compressed_copy_of_their_data(tmp_path):
    result = json.dumps({"name": "case on golden:pto-v0", "status": "passed"}).encode()
    picture = bytes(range(256))  # not UTF-8: kept as base64
    per_view = {"adr": {"data/test-results/1.json": result, "widgets/tree.json": b'{"by":"adr"}',
                        "data/attachments/p.png": picture},
                "suites": {"data/test-results/1.json": result, "widgets/tree.json": b'{"by":"device"}'}}
    report = tmp_path / "report"
    report.mkdir()
    for view, entries in per_view.items():
        (report / view).mkdir()
        (report / view / "index.html").write_text(_single_file_view(entries))
        (report / view / render.UNREAD_SUMMARY).write_text("{}")
    (report / render.UNREAD_REGISTRY).write_text("{}")
    render.share_view_data(report)
    # what a page opened from disk cannot fetch is left out
    assert not list(report.rglob(render.UNREAD_SUMMARY)) and not (report / render.UNREAD_REGISTRY).exists()
    assert (report / render.SHARED_APP).read_bytes() == b"console.log('allure');"
    text = (report / render.SHARED_DATA).read_text()
    shared = json.loads(gzip.decompress(base64.b64decode(text[text.index('"') + 1:text.rindex('"')])))
    # The result both views hold is stored once; each view names its own files.
    assert len(shared["files"]) == 4
    for view, entries in per_view.items():
        names = shared["views"][view]
        assert sorted(names) == sorted(entries)
        for name, value in entries.items():
            kind, content = shared["files"][names[name]]
            assert (content.encode() if kind == "t" else base64.b64decode(content)) == value
        page = (report / view / "index.html").read_text()
        assert "d(" not in page and "base64," not in page
        assert f'src="../{render.SHARED_DATA}"' in page and f'src="../{render.SHARED_APP}"' in page
        # the data object exists before the application starts (so it never fetches)
        assert page.index("window.allureReportData = {}") < page.index(render.SHARED_APP)


def test_a_view_page_in_another_shape_is_an_error_not_a_broken_report(tmp_path):
    report = _pages(tmp_path / "report")
    with pytest.raises(render.RenderError, match="Allure's single-file page changed"):
        render.share_view_data(report)


@pytest.mark.parametrize("bound, served", [(10_000, True), (10_000_000, False)])
def test_a_self_contained_report_past_its_bound_is_written_served_and_the_command_says_so(
        tmp_path, monkeypatch, capsys, bound, served):
    results, out = _results(tmp_path / "res"), tmp_path / "out"
    forms = []

    def generate(node, results_dir, work, name, single_file, quiet):  # stands in for allure generate
        forms.append("self-contained" if single_file else "served")
        staged = _pages(work / "report")
        (staged / ("report-data.js" if single_file else "data.json")).write_bytes(b"x" * 20_000)
        return staged

    monkeypatch.setattr(render, "_generate_report", generate)
    monkeypatch.setattr(render, "ALLURE_CLI", Path(render.__file__))  # present, never run
    monkeypatch.setattr(render, "node_executable", lambda: "node")
    monkeypatch.setattr(render, "SELF_CONTAINED_BYTES", bound)
    assert render.main([str(results), str(out), "--no-install"]) == 0
    printed = capsys.readouterr().out
    assert forms == (["self-contained", "served"] if served else ["self-contained"])
    assert (out / "data.json").is_file() == served and (out / "report-data.js").is_file() != served
    if served:
        assert "would be 0.0 MB, above its bound of 0 MB: wrote the served form instead" in printed
        assert "serve it over http: python3 -m http.server" in printed
    else:
        assert "opens from disk" in printed and "served form" not in printed
