"""The vector cache under hostile bytes: whatever lies in the cache folder at an entry's path
(a FIFO, a symlink to one, a symlink to a file, an entry of the right key but another
structure), loading never blocks and never raises; such an entry is a miss."""
from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
import textwrap

import pytest

from pto_avs.contract import loader, vector_cache

GOOD_FILE = """format: pto-avs-vector/1
id: PTO-AVS-X-RUNNER-CACHE-001
operation: TMULS
kind: execution
exercises: [ADR-0081]
provenance: cache tests
cases:
  - name: seven-times-three
    source: hand
    reference: 7 * 3 = 21
    state:
      tiles:
        - {index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], data: [[7]]}
    program: [{call: TMULS, dst: 1, src: 0, scalar: 3}]
    expect:
      tiles: [{index: 1, data: [[21]]}]
"""


def entry_path(tmp_path):
    """A vector file loaded once through a cache in ``tmp_path/cache``: (file, cache, its entry)."""
    path = tmp_path / "PTO-AVS-X-RUNNER-CACHE-001.yaml"
    path.write_text(GOOD_FILE)
    cache = vector_cache.VectorCache(tmp_path / "cache")
    loader.load_file(path, cache=cache)
    [entry] = (tmp_path / "cache").glob("*.marshal")
    return path, cache, entry


def load_in_child(path, cache_dir, timeout=60):
    """Load ``path`` in a fresh interpreter (so a blocking open cannot hang the test run)."""
    probe = textwrap.dedent(f"""
        import json
        from pathlib import Path
        from pto_avs.contract import loader, vector_cache
        cache = vector_cache.VectorCache(Path({str(cache_dir)!r}))
        peek = loader.peek_file(Path({str(path)!r}), cache=cache)
        loaded = loader.load_file(Path({str(path)!r}), cache=cache)
        print(json.dumps([list(peek.labels), [c.name for c in loaded.cases], loaded.error, cache.hits, cache.misses]))
    """)
    return subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=timeout)


@pytest.mark.parametrize("kind", ["fifo", "symlink-to-fifo"])
def test_a_fifo_at_an_entrys_path_is_a_miss_not_a_hang(tmp_path, kind):
    path, _cache, entry = entry_path(tmp_path)
    entry.unlink()
    if kind == "fifo":
        os.mkfifo(entry)
    else:
        os.mkfifo(tmp_path / "pipe")
        entry.symlink_to(tmp_path / "pipe")
    done = load_in_child(path, tmp_path / "cache", timeout=30)  # before the fix: blocked in open()
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [["seven-times-three"], ["seven-times-three"], None, 0, 2]


def test_a_symlink_at_an_entrys_path_is_not_followed(tmp_path):
    path, cache, entry = entry_path(tmp_path)
    real = tmp_path / "elsewhere.marshal"
    os.replace(entry, real)
    entry.symlink_to(real)
    assert loader.load_file(path, cache=cache).cases[0].name == "seven-times-three"
    assert (cache.hits, cache.misses) == (0, 2)


@pytest.mark.parametrize("value", [
    {},  # before the fix: KeyError: 'entries' from load_file's _from_result
    {"id": None, "operation": None, "kind": None, "adrs": (), "error": None, "entries": [["case", {"name": "x"}]]},
    {"id": None, "operation": None, "kind": None, "adrs": (), "error": None, "entries": [["other"]]},
    {"id": 5, "operation": None, "kind": None, "adrs": (), "error": None, "entries": []},
    [1, 2, 3],
    "text",
])
def test_an_entry_of_the_right_key_and_another_structure_is_a_miss(tmp_path, value):
    path, cache, entry = entry_path(tmp_path)
    key = marshal.loads(entry.read_bytes())[0]
    entry.write_bytes(marshal.dumps((key, value)))
    peek = loader.peek_file(path, cache=cache)
    assert peek is not None and peek.labels == ("seven-times-three",)
    loaded = loader.load_file(path, cache=cache)
    assert loaded.error is None and [c.name for c in loaded.cases] == ["seven-times-three"]
    assert cache.hits == 0


def test_a_good_entry_is_still_a_hit(tmp_path):
    path, cache, _entry = entry_path(tmp_path)
    assert loader.load_file(path, cache=cache).cases[0].name == "seven-times-three"
    assert cache.hits == 1


def test_entries_past_their_age_are_pruned_once_per_process_and_young_ones_kept(tmp_path):
    cache = vector_cache.VectorCache(tmp_path)
    cache.put(cache.key("young"), [1])
    old = tmp_path / f"{cache.key('old')}.marshal"
    old.write_bytes(marshal.dumps((cache.key("old"), [2])))
    past = os.path.getmtime(old) - (vector_cache.MAX_AGE_DAYS + 1) * 86400
    os.utime(old, (past, past))
    fresh = vector_cache.VectorCache(tmp_path)  # a new process: its first put prunes
    fresh.put(cache.key("other"), [3])
    assert not old.exists()
    assert fresh.get(cache.key("young")) == [1] and fresh.get(cache.key("other")) == [3]
    old.write_bytes(marshal.dumps((cache.key("old"), [2])))
    os.utime(old, (past, past))
    fresh.put(cache.key("more"), [4])  # later puts of the same process do not scan the folder again
    assert old.exists()
