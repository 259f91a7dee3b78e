"""A command that writes a folder replaces only a folder that is recognisably an earlier report
of ours (or an empty one); anything else is refused, saying how to force it, and left as it was.
Before: ``pto-avs allure-html RESULTS OUT`` deleted whatever OUT held."""
from __future__ import annotations

import subprocess
import sys

import pytest

from pto_avs.reports import atomic, render


def staged(tmp_path, text="new report"):
    folder = tmp_path / "staged"
    folder.mkdir()
    (folder / "index.html").write_text(text)
    return folder


def test_a_folder_of_someone_elses_files_is_refused_and_kept(tmp_path):
    out = tmp_path / "d"
    out.mkdir()
    (out / "thesis.tex").write_text("x\n")
    with pytest.raises(atomic.NotOurs, match="is not a report written by pto-avs.*force"):
        atomic.replace_dir(staged(tmp_path), out)
    assert (out / "thesis.tex").read_text() == "x\n" and (tmp_path / "staged" / "index.html").is_file()


def test_an_earlier_report_an_empty_folder_or_force_is_replaced(tmp_path):
    out = tmp_path / "report"
    atomic.replace_dir(staged(tmp_path, "first"), out)  # missing: written, with the marker
    assert (out / atomic.MARKER).is_file() and (out / "index.html").read_text() == "first"
    atomic.replace_dir(staged(tmp_path, "second"), out)  # ours: replaced
    assert (out / "index.html").read_text() == "second"
    empty = tmp_path / "empty"
    empty.mkdir()
    atomic.replace_dir(staged(tmp_path), empty)
    assert (empty / "index.html").is_file()
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    atomic.replace_dir(staged(tmp_path), other, force=True)
    assert not (other / "notes.txt").exists()


def test_a_report_from_before_the_marker_is_recognised_by_its_pages(tmp_path):
    out = tmp_path / "old-report"
    for page in ["index.html", *(f"{view}/index.html" for view in render.VIEWS)]:
        (out / page).parent.mkdir(parents=True, exist_ok=True)
        (out / page).write_text("old")
    assert atomic.ours(out, render._earlier_report)
    (out / next(iter(render.VIEWS)) / "index.html").unlink()
    assert not atomic.ours(out, render._earlier_report)


def test_a_link_or_a_file_at_the_target_is_not_ours(tmp_path):
    (tmp_path / "real").mkdir()
    (tmp_path / "link").symlink_to(tmp_path / "real")
    (tmp_path / "file").write_text("x")
    assert not atomic.ours(tmp_path / "link") and not atomic.ours(tmp_path / "file")


def test_allure_html_refuses_before_any_work_and_keeps_the_folder(tmp_path):
    results = tmp_path / "allure-results"
    results.mkdir()
    (results / "a-result.json").write_text("{}")
    out = tmp_path / "d"
    out.mkdir()
    (out / "thesis.tex").write_text("x\n")
    done = subprocess.run([sys.executable, "-m", "pto_avs.avs.cli", "allure-html", str(results), str(out),
                           "--no-install"], capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and (out / "thesis.tex").read_text() == "x\n"
    assert f"pto-avs allure-html: {out.resolve()} exists and is not a report written by pto-avs" in done.stderr
    assert "--force" in done.stderr
