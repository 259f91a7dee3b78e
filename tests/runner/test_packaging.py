"""The installed distribution: one import package, ``pto_avs``, and nothing else on the top level.

Builds the wheel from the tracked files (as a fresh clone would) and reads its file list;
a lab's environment may hold its own ``plugins`` or ``reports`` package.
"""
import subprocess
import sys
import tarfile
import zipfile
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow  # builds the wheel

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel_files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("wheel")
    tracked = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True, check=True).stdout
    src = tmp / "src"
    src.mkdir()
    with tarfile.open(tmp / "tree.tar", "w") as tar:
        for name in tracked.decode().split("\0"):
            if name and (ROOT / name).is_file():
                tar.add(ROOT / name, arcname=name)
    with tarfile.open(tmp / "tree.tar") as tar:
        tar.extractall(src, filter="data")
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-q",
                    "-w", str(tmp / "dist"), str(src)], check=True, capture_output=True)
    (wheel,) = (tmp / "dist").glob("pto_avs-*.whl")
    with zipfile.ZipFile(wheel) as archive:
        names = archive.namelist()
        (entry_points,) = [n for n in names if n.endswith(".dist-info/entry_points.txt")]
        return names, archive.read(entry_points).decode()


def test_only_pto_avs_on_the_top_level(wheel_files):
    wheel_files, _ = wheel_files
    top = {name.split("/")[0] for name in wheel_files if not name.split("/")[0].endswith(".dist-info")}
    assert top == {"pto_avs"}


def test_every_layer_and_its_data_is_inside(wheel_files):
    wheel_files, _ = wheel_files
    for path in ("pto_avs/device_model/machine.py", "pto_avs/contract/case.py", "pto_avs/plugins/golden.py",
                 "pto_avs/reports/coverage.py", "pto_avs/avs/pytest_plugin.py", "pto_avs/avs/test_conformance.py",
                 "pto_avs/vectors/schema.json", "pto_avs/vectors/PTO-AVS-TILE-TCVT-BUNDLE-001.yaml",
                 "pto_avs/contract/spec_data/tile-avs-catalog.json", "pto_avs/plugins/c_device/avs_c_device.c",
                 "pto_avs/reports/allure/package.json"):
        assert path in wheel_files, path


def test_entry_points_name_the_package(wheel_files):
    """Every entry point (pytest11, devices, console script) names a module of pto_avs."""
    _, text = wheel_files
    targets = [line.split("=", 1)[1].strip() for line in text.splitlines() if "=" in line]
    assert {"pto_avs.avs.pytest_plugin", "pto_avs.avs.cli:main", "pto_avs.plugins.golden:open_device"} <= set(targets)
    assert all(target.startswith("pto_avs.") for target in targets), targets
