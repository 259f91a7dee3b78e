"""Write report files whole or not at all: temporary file (or folder) beside the target, then rename."""
from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Callable, Mapping, Optional, Union

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


MARKER = ".pto-avs-report"  # in every folder replace_dir writes: "this folder is ours to replace"


class NotOurs(OSError):
    """The folder to replace holds something that is not an earlier report of ours."""


def ours(folder: Path, recognise: Optional[Callable[[Path], bool]] = None) -> bool:
    """Whether ``folder`` may be replaced: missing, empty, carrying our marker, or recognised by
    ``recognise`` (an earlier report written before the marker existed)."""
    folder = Path(folder)
    if not folder.exists() and not folder.is_symlink():
        return True
    if folder.is_symlink() or not folder.is_dir():
        return False
    if (folder / MARKER).is_file() or not any(folder.iterdir()):
        return True
    return bool(recognise and recognise(folder))


def replace_dir(staged: Path, target: Path, force: bool = False,
                recognise: Optional[Callable[[Path], bool]] = None, how_to_force: str = "force=True") -> None:
    """Move a fully written folder ``staged`` to ``target``, replacing what was there, but only
    when that is recognisably an earlier folder of ours (``ours``) or ``force``; otherwise raise
    NotOurs and leave both as they are. The new folder carries the marker."""
    staged, target = Path(staged), Path(target)
    if not force and not ours(target, recognise):
        raise NotOurs(f"{target} exists and is not a report written by pto-avs (no {MARKER} in it): "
                      f"nothing was replaced; choose another folder, empty it, or use {how_to_force}")
    (staged / MARKER).write_text("written by pto-avs; a later report may replace this folder whole\n")
    _plain_mode(staged, 0o777)
    target.parent.mkdir(parents=True, exist_ok=True)
    old = None
    if target.exists() or target.is_symlink():
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
