"""Write report files whole or not at all: temporary file (or folder) beside the target, then rename."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Mapping, Union

Content = Union[str, bytes]


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _plain_mode(path: Path, mode: int) -> None:
    """Give a staged file or folder the mode a plain ``open``/``mkdir`` would have
    (tempfile makes them private: 0600 / 0700)."""
    os.chmod(path, mode & ~_umask())


def _stage(path: Path, content: Content) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        _plain_mode(Path(tmp), 0o666)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return Path(tmp)


def write_files(folder: Path, files: Mapping[str, Content]) -> None:
    """Write several files into ``folder``: every file is staged before the first rename,
    so a failure while writing leaves all of them as they were."""
    staged: dict[Path, Path] = {}
    try:
        for name, content in files.items():
            target = Path(folder) / name
            staged[target] = _stage(target, content)
    except BaseException:
        for tmp in staged.values():
            tmp.unlink(missing_ok=True)
        raise
    for target, tmp in staged.items():
        os.replace(tmp, target)


def replace_dir(staged: Path, target: Path) -> None:
    """Move a fully written folder ``staged`` to ``target``, replacing what was there."""
    staged, target = Path(staged), Path(target)
    _plain_mode(staged, 0o777)
    target.parent.mkdir(parents=True, exist_ok=True)
    old = None
    if target.exists():
        old = Path(tempfile.mkdtemp(prefix=f".{target.name}.old.", dir=target.parent))
        os.replace(target, old / target.name)
    try:
        os.replace(staged, target)
    except BaseException:
        if old is not None:
            os.replace(old / target.name, target)
        raise
    finally:
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
