"""A content-addressed cache of loaded (parsed, validated, normalized) vector files.

An entry's key is a SHA-256 over everything its result depends on: the file's name and
bytes, the schema, the catalog, the source of the loader and of every project module it
imports (its import closure, found by reading their import statements), and the Python,
PyYAML and libyaml versions. Change any of them and the key changes: the entry is never
consulted again (old entries are pruned after ``MAX_AGE_DAYS``).

Entries are ``marshal`` data (plain values, no code runs on reading) written to a
temporary file in the cache folder and renamed into place, so concurrent pytest-xdist
workers and interrupted runs never see half an entry; an entry that cannot be read is a
miss. The folder is ``$PTO_AVS_CACHE_DIR``, else ``$XDG_CACHE_HOME/pto-avs/vectors``
(``~/.cache/pto-avs/vectors``), created private to the user; outside the checkout, so a
read-only checkout is cached too. ``PTO_AVS_CACHE_DIR=off`` (or a folder that cannot be
written) turns caching off: every file is loaded from its text.
"""
from __future__ import annotations

import gc
import hashlib
import marshal
import os
import re
import stat
import sys
import tempfile
import time
from functools import lru_cache
from pathlib import Path
from typing import Optional

import yaml

FORMAT = "pto-avs-vector-cache/1"
MAX_AGE_DAYS = 30
_ROOT = Path(__file__).resolve().parent.parent  # the folder holding contract/, device_model/, ...
_IMPORT = re.compile(r"^[ \t]*(?:from[ \t]+([.\w]+)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)|import[ \t]+([\w.]+))",
                     re.MULTILINE)


def _module_file(name: str) -> Optional[Path]:
    """The source of project module ``pto_avs.X.Y`` (X/Y.py or X/Y/__init__.py), or None."""
    parts = name.split(".")
    if parts[0] != "pto_avs" or len(parts) < 2:
        return None
    base = _ROOT.joinpath(*parts[1:])
    for candidate in (base.with_suffix(".py"), base / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _imports(name: str, path: Path) -> set[str]:
    """Project modules named by the import statements of module ``name`` (at ``path``)."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found = set()
    for source, names, plain in _IMPORT.findall(path.read_text(encoding="utf-8")):
        if plain:
            found.add(plain)
            continue
        if source.startswith("."):
            dots = len(source) - len(source.lstrip("."))
            anchor = package.rsplit(".", dots - 1)[0] if dots > 1 else package
            source = f"{anchor}.{source[dots:]}" if source[dots:] else anchor
        found.add(source)
        found.update(f"{source}.{n.split(' as ')[0].strip()}" for n in names.strip("()").split(",") if n.strip())
    return {m for m in found if m.startswith("pto_avs.")}


def import_closure(module: str) -> dict[str, Path]:
    """``module`` and every project module it imports, directly or not, with their packages'
    ``__init__`` files: {module name: source file}."""
    todo, files = [module], {}
    while todo:
        name = todo.pop()
        parts = name.split(".")
        for i in range(2, len(parts) + 1):  # the packages on the way run too
            prefix = ".".join(parts[:i])
            if prefix in files:
                continue
            path = _module_file(prefix)
            if path is None:
                continue
            files[prefix] = path
            todo.extend(_imports(prefix, path))
    return files


@lru_cache(maxsize=None)
def code_digest(module: str = "pto_avs.contract.loader") -> str:
    """SHA-256 of the sources of ``module``'s import closure and the library versions."""
    digest = hashlib.sha256()
    for part in (FORMAT, sys.version, yaml.__version__, getattr(yaml, "__with_libyaml__", False)
                 and yaml._yaml.get_version_string()):
        digest.update(f"{part}\0".encode())
    for name, path in sorted(import_closure(module).items()):
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def default_directory() -> Optional[Path]:
    setting = os.environ.get("PTO_AVS_CACHE_DIR")
    if setting is not None:
        return None if setting.strip().lower() in ("", "off", "none", "0") else Path(setting)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "pto-avs" / "vectors"


class VectorCache:
    """Entries in one folder; ``get`` and ``put`` never raise (a failure is a miss)."""

    def __init__(self, directory: Path):
        self.directory = Path(directory)
        self.usable = True
        self.pruned = False  # entries past MAX_AGE_DAYS are removed once per process, at the first put
        self.hits = self.misses = 0

    @staticmethod
    def key(*parts: bytes | str) -> str:
        digest = hashlib.sha256()
        for part in parts:
            digest.update(part if isinstance(part, bytes) else part.encode())
            digest.update(b"\0")
        return digest.hexdigest()

    def _path(self, key: str) -> Path:
        return self.directory / f"{key}.marshal"

    def get(self, key: str, accept=None):
        """The value stored under ``key``, or None (a miss): also for an entry that is not a
        regular file, cannot be read or unmarshalled, holds another key, or whose value
        ``accept(value)`` (when given) refuses."""
        path = self._path(key)
        collecting = gc.isenabled()
        gc.disable()  # (thousands of fresh containers: the cycle collector would only slow this)
        try:
            stored_key, value = marshal.loads(_read_regular(path))
            if stored_key != key:
                raise ValueError("entry of another key")
            if accept is not None and not accept(value):
                raise ValueError("entry of another structure")
        except Exception:  # any bytes at all in the cache folder: a damaged entry is a miss
            self.misses += 1
            return None
        finally:
            if collecting:
                gc.enable()
        self.hits += 1
        self._touch(path)
        return value

    def put(self, key: str, value) -> None:
        if not self.usable:
            return
        try:
            self.directory.mkdir(mode=0o700, parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".marshal")
        except OSError:
            self.usable = False  # read-only or missing home: load from text, quietly
            return
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(marshal.dumps((key, value)))
            os.replace(temporary, self._path(key))
        except (OSError, ValueError):
            try:
                os.unlink(temporary)
            except OSError:
                pass
            return
        if not self.pruned:
            self.pruned = True
            self._prune()

    @staticmethod
    def _touch(path: Path) -> None:
        """Keep a used entry young (at most once a day, to spare the writes)."""
        try:
            if path.stat().st_mtime < time.time() - 86400:
                os.utime(path)
        except OSError:
            pass

    def _prune(self) -> None:
        limit = time.time() - MAX_AGE_DAYS * 86400
        try:
            with os.scandir(self.directory) as entries:
                for entry in entries:
                    if entry.name.endswith(".marshal") and entry.stat().st_mtime < limit:
                        os.unlink(entry.path)
        except OSError:
            pass


MAX_ENTRY_BYTES = 64 * 1024 * 1024  # far above any entry (a loaded 4 MB vector file is a few MB)


def _read_regular(path: Path) -> bytes:
    """The bytes of the regular file at ``path``, opened without blocking and without following
    a final symlink (a FIFO, a device or a link there is never read: OSError)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
    fd = os.open(path, flags)
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise OSError(f"{path}: not a regular file")
        if info.st_size > MAX_ENTRY_BYTES:
            raise OSError(f"{path}: {info.st_size} bytes, more than an entry holds")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(MAX_ENTRY_BYTES + 1)  # (marshal.load would read in small pieces)
    finally:
        os.close(fd)


@lru_cache(maxsize=None)
def _cache_for(directory: Path) -> VectorCache:
    return VectorCache(directory)


def default_cache() -> Optional[VectorCache]:
    """The cache of this process (one per folder), or None when caching is off."""
    directory = default_directory()
    return None if directory is None else _cache_for(directory)
