"""How collection and execution of ``pytest avs/`` scale: the issue-17 table.

Run: ``.venv/bin/python tests/benchmarks/bench_collection.py [--repeat N] [--scale 10]
[--skip-run] [--skip-xdist] [--skip-plugin]``.

Every figure comes from a fresh process (``PYTHONDONTWRITEBYTECODE`` removed, so bytecode is
cached as on a user's machine); each is the best of ``--repeat`` runs, the least disturbed
by other load on the machine. Times are CPU seconds of the process (user + system) and, in
brackets, wall seconds; on a shared machine the CPU figure is the stable one.

- **parse**: PyYAML's ``CSafeLoader`` over every vector file, nothing else (the yardstick);
- **cold / warm collection**: the collection phase of ``pytest avs/ --collect-only -q``
  (session start to the end of collection, measured by a probe plugin) with an empty
  vector cache, and again with the cache filled; at today's vectors (1x) and at a
  synthetic set of ``--scale`` copies of every file (each renamed to a project ID);
- ratios against parse: the goals are warm <= 0.5 and cold <= 1.5;
- **selection**: one file by node ID and one ``-k`` match, cold: the files they read;
- **execution**: ``pytest avs/ --device golden:pto-v0`` cases per second; the model's own
  time per case (``execute_batch`` in one process, batches of 32) and the plugin's overhead
  per case (run-phase CPU minus model CPU); against the spec interpreter's cost per test
  point (/work/aslref/NOTES.md, measured on this kind of machine: 4.6 s to load and
  type-check the spec for any point; the TCVT bundle test point 31.4 s, the fault-schema one
  103 s);
- **xdist**: the whole suite (both golden profiles) with ``-n 0`` and ``-n auto``;
- **plugin load**: ``pytest --collect-only`` of a one-test project that knows nothing of
  pto-avs, with the entry-point plugins and with ``-p no:pto_avs -p no:pto_avs_reports``.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
VECTORS = ROOT / "vectors"
ASLREF_POINT_FLOOR_S = 4.6  # /work/aslref/NOTES.md: spec + empty shard + trivial main
ASLREF_TCVT_BUNDLE_S = 31.4  # /work/aslref/NOTES.md: tile-exec-tcvt-bundle-001

PROBE = '''
import json, sys, time
_marks = {}
def pytest_sessionstart(session):
    _marks["start"] = (time.process_time(), time.perf_counter())
def pytest_collection_finish(session):
    _marks["collected"] = (time.process_time(), time.perf_counter())
    _marks["items"] = len(session.items)
def pytest_unconfigure(config):
    if "collected" not in _marks or hasattr(config, "workerinput"):
        return
    end = (time.process_time(), time.perf_counter())
    start, collected = _marks["start"], _marks["collected"]
    sys.__stderr__.write("PTO-AVS-BENCH " + json.dumps({
        "items": _marks["items"], "collect_cpu": collected[0] - start[0], "collect_wall": collected[1] - start[1],
        "run_cpu": end[0] - collected[0], "run_wall": end[1] - collected[1]}) + "\\n")
'''

PARSE = '''
import json, sys, time, yaml
paths = sys.argv[1:]
best = None
for _ in range(REPEAT):
    cpu, wall = time.process_time(), time.perf_counter()
    for path in paths:
        with open(path, encoding="utf-8") as handle:
            yaml.load(handle.read(), Loader=yaml.CSafeLoader)
    figure = (time.process_time() - cpu, time.perf_counter() - wall)
    best = figure if best is None or figure[0] < best[0] else best
print(json.dumps({"cpu": best[0], "wall": best[1]}))
'''

MODEL = '''
import json, sys, time
from pathlib import Path
from pto_avs.contract.loader import load_paths
from pto_avs.plugins.golden import open_device
cases = [c for f in load_paths([Path(p) for p in sys.argv[1:]]) for c in f.cases if "pto-v0" in c.profiles]
device = open_device("pto-v0")
cases = [c for c in cases if device.supports(c) is None]
cpu, wall = time.process_time(), time.perf_counter()
for i in range(0, len(cases), 32):
    device.execute_batch(cases[i:i + 32])
print(json.dumps({"cases": len(cases), "cpu": time.process_time() - cpu, "wall": time.perf_counter() - wall}))
'''


class Bench:
    def __init__(self, repeat: int, work: Path):
        self.repeat = repeat
        self.work = work
        (work / "probe").mkdir()
        (work / "probe" / "pto_avs_bench_probe.py").write_text(PROBE)
        self.env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE" and not k.startswith("PYTEST_")}
        self.env["PYTHONPATH"] = str(work / "probe")

    def process(self, command: list[str], cache: Path | None = None, cwd: Path = ROOT) -> dict:
        """Run once: the probe's figures, the process's CPU and wall, and its output."""
        env = dict(self.env, PTO_AVS_CACHE_DIR=str(cache) if cache else "off")
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        run = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
        wall = time.perf_counter() - start
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        figures = {"process_cpu": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
                   "process_wall": wall, "stdout": run.stdout, "returncode": run.returncode}
        for line in run.stderr.splitlines():
            if line.startswith("PTO-AVS-BENCH "):
                figures.update(json.loads(line[len("PTO-AVS-BENCH "):]))
        if "items" not in figures and run.returncode not in (0, 1, 5):
            raise SystemExit(f"{' '.join(command)} failed ({run.returncode}):\n{run.stdout[-2000:]}{run.stderr[-2000:]}")
        return figures

    def best(self, runs: list[dict], key: str) -> dict:
        return min(runs, key=lambda figures: figures[key])

    def pytest(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "pytest", "avs/", "-q", "-p", "no:randomly", "-p", "pto_avs_bench_probe", *args]

    def parse(self, files: list[Path]) -> dict:
        code = PARSE.replace("REPEAT", str(self.repeat))
        run = subprocess.run([sys.executable, "-c", code, *map(str, files)], env=self.env, capture_output=True,
                             text=True, check=True)
        return json.loads(run.stdout)

    def collection(self, vector_args: list[str], label: str) -> tuple[dict, dict]:
        """(best cold, best warm) collection of the suite over the given vectors."""
        cold = []
        for i in range(self.repeat):
            cache = self.work / f"cache-{label}-cold-{i}"
            cold.append(self.process(self.pytest("--collect-only", *vector_args), cache))
        cache = self.work / f"cache-{label}-warm"
        self.process(self.pytest("--collect-only", *vector_args), cache)
        warm = [self.process(self.pytest("--collect-only", *vector_args), cache) for _ in range(self.repeat)]
        return self.best(cold, "collect_cpu"), self.best(warm, "collect_cpu")


def synthetic_set(scale: int, target: Path) -> list[Path]:
    """``scale`` copies of every shipped vector file, each a project vector of its own ID
    (spec IDs gain the catalog's ADRs as ``exercises``)."""
    sys.path.insert(0, str(ROOT))
    from pto_avs.contract.loader import PROJECT_PREFIX, default_catalog

    catalog = default_catalog()
    target.mkdir(parents=True)
    for path in sorted(VECTORS.glob("*.yaml")):
        text = path.read_text()
        vector_id = path.stem
        for copy in range(1, scale + 1):
            new_id = f"PTO-AVS-X-S{copy:02d}-{vector_id[len('PTO-AVS-'):]}"
            extra = "" if vector_id.startswith(PROJECT_PREFIX) else \
                f"exercises: [{', '.join(catalog.adrs_of(vector_id))}]\n"
            copied, count = re.subn(rf"^id: {re.escape(vector_id)}\n", f"id: {new_id}\n{extra}", text, flags=re.M)
            assert count == 1, path
            (target / f"{new_id}.yaml").write_text(copied)
    return sorted(target.glob("*.yaml"))


def cpu_wall(figures: dict, prefix: str) -> str:
    return f"{figures[prefix + '_cpu']:7.2f} s ({figures[prefix + '_wall']:6.2f} s)"


def collection(bench: Bench, args, shipped: list[Path], work: Path) -> None:
    scaled = synthetic_set(args.scale, work / "scaled")
    print(f"synthetic {args.scale}x: {len(scaled)} files, {sum(p.stat().st_size for p in scaled) / 1e6:.1f} MB")
    print()
    rows = []
    for label, files, vector_args in (("1x", shipped, []),
                                      (f"{args.scale}x", scaled, ["--vectors-only", f"--vectors={work / 'scaled'}"])):
        parse = bench.parse(files)
        cold, warm = bench.collection(vector_args, label)
        rows.append((label, parse, cold, warm))
    print("| set | items | parse (CSafeLoader) | cold collection | warm collection | cold/parse | warm/parse |")
    print("|---|---|---|---|---|---|---|")
    for label, parse, cold, warm in rows:
        print(f"| {label} | {warm['items']} | {parse['cpu']:.2f} s ({parse['wall']:.2f} s) | {cpu_wall(cold, 'collect')} "
              f"| {cpu_wall(warm, 'collect')} | {cold['collect_cpu'] / parse['cpu']:.2f} (goal <= 1.5) "
              f"| {warm['collect_cpu'] / parse['cpu']:.2f} (goal <= 0.5) |")
    print("whole pytest process, warm, 1x: "
          f"{rows[0][3]['process_cpu']:.2f} s CPU ({rows[0][3]['process_wall']:.2f} s wall), "
          "interpreter start, plugins and imports included")
    print()

    one_id = shipped[0].stem
    for what, selection in ((f"one file by node ID (avs/test_conformance.py::{one_id})",
                             [f"avs/test_conformance.py::{one_id}"]),
                            ("one -k match (-k 'u8-nd-to-u16-dn')", ["-k", "u8-nd-to-u16-dn"])):
        command = bench.pytest("--collect-only", *selection)
        if selection[0].startswith("avs/"):
            command.remove("avs/")
        runs = [bench.process(command, work / f"cache-select-{len(what)}-{i}") for i in range(args.repeat)]
        best = bench.best(runs, "collect_cpu")
        read = len(list((work / f"cache-select-{len(what)}-0").glob("*.marshal")))
        print(f"selection, cold: {what}: {best['items']} items, {cpu_wall(best, 'collect')}; "
              f"files loaded (validated and cached): {read} of {len(shipped)}")
    print()


def execution(bench: Bench, work: Path) -> None:
    cache = work / "cache-run"
    bench.process(bench.pytest("--collect-only"), cache)
    runs = [bench.process(bench.pytest("--device", "golden:pto-v0"), cache) for _ in range(bench.repeat)]
    run = bench.best(runs, "run_cpu")
    model = json.loads(subprocess.run([sys.executable, "-c", MODEL, str(VECTORS)], env=dict(
        bench.env, PTO_AVS_CACHE_DIR=str(cache)), capture_output=True, text=True, check=True).stdout)
    summary = [line for line in run["stdout"].splitlines() if line.startswith("pto-avs: ")]
    per_case_model = model["cpu"] / model["cases"]
    overhead = (run["run_cpu"] - model["cpu"]) / run["items"]
    # pytest's own cost per test in this environment: as many empty parametrized tests.
    trivial = work / "trivial"
    trivial.mkdir()
    (trivial / "test_empty.py").write_text(f"import pytest\n\n@pytest.mark.parametrize('i', range({run['items']}))\n"
                                           "def test_empty(i):\n    pass\n")
    floor = bench.best([bench.process([sys.executable, "-m", "pytest", "-q", "-p", "no:randomly", "-p", "no:cacheprovider",
                                       "-p", "pto_avs_bench_probe", "test_empty.py"], cwd=trivial)
                        for _ in range(bench.repeat)], "run_cpu")
    pytest_floor = floor["run_cpu"] / floor["items"]
    ours = overhead - pytest_floor
    print(f"execution: pytest avs/ --device golden:pto-v0: {run['items']} cases in {cpu_wall(run, 'run')}: "
          f"{run['items'] / run['run_wall']:.0f} cases/s wall, {run['items'] / run['run_cpu']:.0f} cases/s CPU "
          f"[{summary[0] if summary else 'no summary'}]")
    print(f"  the model alone: {model['cases']} cases in {model['cpu']:.2f} s CPU: {per_case_model * 1e3:.2f} ms per case")
    print(f"  in-process overhead per case (run CPU less the model's): {overhead * 1e3:.2f} ms "
          f"({'below' if overhead < per_case_model else 'ABOVE'} the model's time): pytest's own cost per test "
          f"(an empty parametrized test, same plugins) {pytest_floor * 1e3:.2f} ms, the pto-avs plugin, adapter and "
          f"comparator {ours * 1e3:.2f} ms ({'below' if ours < per_case_model else 'ABOVE'} the model's time)")
    print(f"  the spec interpreter (aslref, /work/aslref/NOTES.md): >= {ASLREF_POINT_FLOOR_S} s per test point "
          f"(loading the spec), {ASLREF_TCVT_BUNDLE_S} s for the TCVT bundle point: the golden run is "
          f"{ASLREF_POINT_FLOOR_S * run['items'] / run['run_wall']:.0f}x faster than the floor, "
          f"{ASLREF_TCVT_BUNDLE_S * run['items'] / run['run_wall']:.0f}x than the bundle point (wall)")
    print()


def xdist(bench: Bench, work: Path) -> None:
    cache = work / "cache-xdist"
    bench.process(bench.pytest("--collect-only"), cache)
    serial = bench.process(bench.pytest("-n", "0"), cache)
    parallel = bench.process(bench.pytest("-n", "auto"), cache)
    print(f"xdist, whole suite (both golden profiles, {serial['items']} items): -n 0 {serial['process_wall']:.1f} s, "
          f"-n auto {parallel['process_wall']:.1f} s wall: speedup {serial['process_wall'] / parallel['process_wall']:.2f}x")
    print()


def plugin_load(bench: Bench, args, work: Path) -> None:
    project = work / "unrelated"
    project.mkdir()
    (project / "test_one.py").write_text("def test_one():\n    assert True\n")
    base = [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"]
    with_plugin = [bench.process(base, cwd=project) for _ in range(max(args.repeat, 5))]
    without = [bench.process(base + ["-p", "no:pto_avs", "-p", "no:pto_avs_reports"], cwd=project)
               for _ in range(max(args.repeat, 5))]
    a, b = bench.best(with_plugin, "process_cpu"), bench.best(without, "process_cpu")
    own = subprocess.run([sys.executable, "-X", "importtime", "-c", "import pytest; import pto_avs.avs.pytest_plugin"],
                         env=bench.env, capture_output=True, text=True).stderr
    ours = sum(int(line.split("|")[0].split(":")[1]) for line in own.splitlines()
               if "pto_avs" in line.split("|")[-1])
    print(f"plugin load in an unrelated project (pytest --collect-only, one test): with the pto-avs entry points "
          f"{a['process_cpu']:.3f} s CPU ({a['process_wall']:.2f} s wall), without "
          f"{b['process_cpu']:.3f} s CPU ({b['process_wall']:.2f} s wall), best of {len(with_plugin)}; "
          f"importing the runner plugin's own modules: {ours / 1e3:.1f} ms")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--scale", type=int, default=10)
    parser.add_argument("--skip-collection", action="store_true", help="no collection or selection figures")
    parser.add_argument("--skip-run", action="store_true", help="no execution figures")
    parser.add_argument("--skip-xdist", action="store_true", help="no -n auto figure (two whole-suite runs)")
    parser.add_argument("--skip-plugin", action="store_true", help="no plugin-load figure")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="pto-avs-bench-") as folder:
        work = Path(folder)
        bench = Bench(args.repeat, work)
        shipped = sorted(VECTORS.glob("*.yaml"))
        size = sum(p.stat().st_size for p in shipped) / 1e6
        print(f"vectors: {len(shipped)} files, {size:.1f} MB; best of {args.repeat}; CPU seconds (wall seconds); "
              f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
        if not args.skip_collection:
            collection(bench, args, shipped, work)
        if not args.skip_run:
            execution(bench, work)
        if not args.skip_xdist:
            xdist(bench, work)
        if not args.skip_plugin:
            plugin_load(bench, args, work)
    return 0


if __name__ == "__main__":
    sys.exit(main())
