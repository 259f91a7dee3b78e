"""Every shipped generated vector file is byte for byte what its generator family writes.

The families are the modules named in ``vectors/reference/engine.py`` ``FAMILY_MODULES``
(regenerate with ``.venv/bin/python -m pto_avs.vectors.reference generate``). For each
family: every file it writes is shipped and equal to the output, and no file matching its
``owns`` globs is left over from an earlier run. The engine's ``check`` itself is tested on
a folder with a changed, a missing and a stale file.
"""
from __future__ import annotations

import pytest

from pto_avs.vectors.reference import engine

FAMILIES = {family.name: family for family in engine.families()}


@pytest.mark.slow
@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_shipped_files_equal_the_generator_output(family):
    files, owns = engine.generated_files(among=[FAMILIES[family]])
    assert files, f"{family} writes no file"
    differ = engine.differing_files(files, engine.VECTORS_DIR, owns)
    assert not differ, (f"{family}: {len(differ)} of {len(files)} files differ (run "
                        f"`.venv/bin/python -m pto_avs.vectors.reference generate`): {differ[:10]}")


def _fake_family(text="a: 1\n"):
    return engine.Family("fake", ("TFAKE",), lambda operations: {"PTO-AVS-X-TFAKE-001.yaml": text},
                         owns=("PTO-AVS-X-TFAKE-*.yaml",))


def test_check_names_each_file_that_differs_is_missing_or_is_stale(tmp_path, capsys):
    family = _fake_family()
    assert engine.run("check", tmp_path, among=[family]) == 1
    assert "differs: PTO-AVS-X-TFAKE-001.yaml" in capsys.readouterr().out  # missing
    assert engine.run("generate", tmp_path, among=[family]) == 0
    assert (tmp_path / "PTO-AVS-X-TFAKE-001.yaml").read_text() == "a: 1\n"
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temporary file left
    assert engine.run("check", tmp_path, among=[family]) == 0
    assert engine.run("check", tmp_path, among=[_fake_family("a: 2\n")]) == 1
    assert "differs: PTO-AVS-X-TFAKE-001.yaml" in capsys.readouterr().out  # changed
    (tmp_path / "PTO-AVS-X-TFAKE-002.yaml").write_text("old\n")
    assert engine.run("check", tmp_path, among=[family]) == 1
    assert "differs: PTO-AVS-X-TFAKE-002.yaml" in capsys.readouterr().out  # stale
    assert engine.run("generate", tmp_path, among=[family]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["PTO-AVS-X-TFAKE-001.yaml"]


def test_a_run_narrowed_to_some_operations_removes_no_file(tmp_path):
    family = engine.Family("fake", ("TFAKE", "TOTHER"), lambda operations: {
        f"PTO-AVS-X-{op}-001.yaml": f"{op}\n" for op in operations}, owns=("PTO-AVS-X-T*-001.yaml",))
    engine.write_files({"PTO-AVS-X-TOTHER-001.yaml": "TOTHER\n"}, tmp_path)
    files, owns = engine.generated_files(["TFAKE"], among=[family])
    assert files == {"PTO-AVS-X-TFAKE-001.yaml": "TFAKE\n"} and owns == ()
    assert engine.differing_files(files, tmp_path, owns) == ["PTO-AVS-X-TFAKE-001.yaml"]


def test_one_family_run_alone_keeps_the_file_another_family_writes_under_its_glob(tmp_path, monkeypatch):
    # A family's PTO-AVS-X-TFAKE-* also matches the strength-like family's own file: run alone,
    # the first neither flags it as stale nor removes it; run together, nothing is stale either.
    broad = _fake_family()
    strength = engine.Family("fake_strength", ("TFAKE",), lambda operations: {"PTO-AVS-X-TFAKE-STRENGTH-001.yaml": "s\n"},
                             owns=("PTO-AVS-X-TFAKE-STRENGTH-001.yaml",))
    monkeypatch.setattr(engine, "families", lambda: [broad, strength])
    assert engine.run("generate", tmp_path) == 0
    assert engine.run("check", tmp_path, among=[broad]) == 0
    assert engine.run("generate", tmp_path, among=[broad]) == 0
    assert sorted(p.name for p in tmp_path.iterdir()) == ["PTO-AVS-X-TFAKE-001.yaml", "PTO-AVS-X-TFAKE-STRENGTH-001.yaml"]
    (tmp_path / "PTO-AVS-X-TFAKE-002.yaml").write_text("old\n")  # still stale: no family writes it
    assert engine.run("check", tmp_path, among=[broad]) == 1


def test_the_command_line_rejects_an_operation_no_family_writes(capsys):
    with pytest.raises(SystemExit) as stop:
        engine.main(["check", "TNOSUCHOP"])
    assert stop.value.code == 2
    assert "TNOSUCHOP" in capsys.readouterr().err


def test_every_family_is_named_once_and_writes_its_own_operations():
    assert len(FAMILIES) == len(engine.FAMILY_MODULES)
    for family in FAMILIES.values():
        assert family.operations and len(set(family.operations)) == len(family.operations), family.name
