"""The package reads one way, and the suite imports each module file under one name.

Layers, lowest first: the golden model (``device_model``) <- the contract (``contract``) <-
the devices (``plugins``) <- the reports (``reports``) <- the runner (``avs``). A module may
import its own layer and those below, never one above (any import, also one inside a
function). The vectors' reference generators share no code with anything: they import
only ``pto_avs.vectors``.
"""
from __future__ import annotations

import ast
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("device_model", "contract", "plugins", "reports", "avs")
FIXTURES = ROOT / "tests" / "runner" / "runner_vectors"


def project_imports(path: Path, module: str) -> set[str]:
    """The ``pto_avs.*`` modules a source file names in its import statements."""
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.rsplit(".", node.level - 1)[0] if node.level > 1 else package
                base = f"{anchor}.{base}" if base else anchor
            found.add(base)
    return {name for name in found if name.startswith("pto_avs.")}


def modules(folder: str):
    for path in sorted((ROOT / folder).rglob("*.py")):
        if "node_modules" in path.parts:
            continue
        name = ".".join(("pto_avs", *path.relative_to(ROOT).with_suffix("").parts)).removesuffix(".__init__")
        yield path, name


def test_no_package_imports_a_layer_above_it():
    upward = []
    for rank, layer in enumerate(LAYERS):
        for path, name in modules(layer):
            for target in project_imports(path, name):
                target_layer = target.split(".")[1]
                if target_layer in LAYERS and LAYERS.index(target_layer) > rank:
                    upward.append(f"{path.relative_to(ROOT)} imports {target}")
    assert upward == []


def test_the_scan_sees_an_upward_import(tmp_path):
    """The check can fail: an import of the runner from the contract is found, also inside a function."""
    source = tmp_path / "loader.py"
    source.write_text("def f():\n    from ..avs import pytest_plugin\n    import pto_avs.reports.coverage\n")
    assert project_imports(source, "pto_avs.contract.loader") == {"pto_avs.avs", "pto_avs.reports.coverage"}


def test_reference_generators_share_no_code():
    shared = [f"{path.relative_to(ROOT)} imports {target}" for path, name in modules("vectors")
              for target in project_imports(path, name) if not target.startswith("pto_avs.vectors")]
    assert shared == []


PROBE = """
import json, os, sys

def pytest_unconfigure(config):
    files = {}
    for name, module in list(sys.modules.items()):
        path = getattr(module, "__file__", None)
        if path:
            files.setdefault(os.path.realpath(path), set()).add(name)
    roots = tuple(os.environ["PTO_AVS_PROBE_ROOTS"].split(os.pathsep))
    ours = {path: sorted(names) for path, names in files.items() if path.startswith(roots)}
    with open(os.environ["PTO_AVS_PROBE_OUT"], "w") as out:
        json.dump(ours, out)
"""


@pytest.mark.slow  # a pytest run over the whole suite in a subprocess, twice
@pytest.mark.parametrize("how", ["checkout", "pyargs"])
def test_a_suite_run_imports_each_module_file_under_one_name(tmp_path, how):
    """``pytest avs/`` from the checkout and ``pytest --pyargs pto_avs.avs`` from elsewhere: each
    of our files that the run imports is in sys.modules under exactly one name (its pto_avs one)."""
    (tmp_path / "one_name_probe.py").write_text(PROBE)
    out = tmp_path / "modules.json"
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST_")}
    roots = os.pathsep.join(str(ROOT / folder) + os.sep for folder in (*LAYERS, "vectors", "tests"))
    env.update(PYTHONPATH=str(tmp_path), PTO_AVS_PROBE_ROOTS=roots, PTO_AVS_PROBE_OUT=str(out))
    target, cwd = (["avs/"], ROOT) if how == "checkout" else (["--pyargs", "pto_avs.avs"], tmp_path)
    run = subprocess.run([sys.executable, "-m", "pytest", *target, "-q", "-p", "one_name_probe", "-p", "no:randomly",
                          "--vectors-only", f"--vectors={FIXTURES}"], cwd=cwd, env=env, capture_output=True,
                         text=True, timeout=600)
    assert run.returncode == 0, run.stdout[-2000:] + run.stderr[-2000:]
    assert "6 passed" in run.stdout
    imported = json.loads(out.read_text())
    twice = {path: names for path, names in imported.items() if len(names) > 1}
    assert twice == {}
    conformance = imported[str((ROOT / "avs" / "test_conformance.py").resolve())]
    assert conformance == ["pto_avs.avs.test_conformance"]
    assert all(name.startswith("pto_avs.") for path, names in imported.items() for name in names
               if not path.startswith(str(ROOT / "tests")))
