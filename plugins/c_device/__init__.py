"""The example external device in C (``avs_c_device.c``) and how to build it.

Build by hand: ``cc -O2 -std=c11 -Wall -Wextra -o avs_c_device avs_c_device.c``
(or ``make -C plugins/c_device``), then ``--device 'process:./avs_c_device'``.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path
from typing import Optional

SOURCE = Path(__file__).with_name("avs_c_device.c")
CFLAGS = ("-O2", "-std=c11", "-Wall", "-Wextra")


class CompilerMissing(RuntimeError):
    """No C compiler to build the example device with."""


def compiler() -> Optional[str]:
    """The C compiler: ``$CC`` if set, else ``cc`` on PATH; None when there is none."""
    return shutil.which(os.environ.get("CC", "cc"))


def build(dest: Path) -> tuple[Path, str]:
    """Compile the device into ``dest`` (a folder); returns (binary, compiler diagnostics).

    Raises CompilerMissing without a compiler and RuntimeError when compilation fails.
    """
    cc = compiler()
    if cc is None:
        raise CompilerMissing(f"no C compiler: neither $CC nor 'cc' is on PATH (needed for {SOURCE.name})")
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    binary = dest / "avs_c_device"
    proc = subprocess.run([cc, *CFLAGS, "-o", str(binary), str(SOURCE)], capture_output=True, text=True)
    if proc.returncode != 0:
        raise RuntimeError(f"{cc} failed to build {SOURCE}:\n{proc.stderr}")
    return binary, proc.stderr
