"""Where numpy's large temporaries come from: the C allocator's two thresholds.

glibc's ``malloc`` serves a request at or above its mmap threshold (128 KiB at
start, raised only by freeing a larger mapped block) with fresh pages from the
kernel and unmaps them on ``free``. A block-sized temporary of the numeric kernels
(a 2**18-lane uint64 array is 2 MiB) then costs a page fault per 4 KiB each time it
is made, often more than the numpy pass that fills it, and how much depends on
what the process allocated before. ``tune`` raises the mmap threshold to glibc's
largest (32 MiB) and the trim threshold to 128 MiB, so that freed blocks stay in
the heap and are reused.

The numeric package calls ``tune`` once, at import. It changes nothing where the
C library is not glibc, and ``PTO_AVS_MALLOC_TUNING=0`` leaves the allocator as
it is. The results of every kernel are the same either way: only their cost moves.
"""
from __future__ import annotations

import ctypes
import os
import platform

M_TRIM_THRESHOLD = -1  # glibc's mallopt parameter numbers (malloc.h)
M_MMAP_THRESHOLD = -3
MMAP_THRESHOLD = 32 << 20  # glibc's largest (DEFAULT_MMAP_THRESHOLD_MAX on 64-bit hosts)
TRIM_THRESHOLD = 128 << 20
SWITCH = "PTO_AVS_MALLOC_TUNING"


def tune(environ=os.environ) -> bool:
    """Set both thresholds; True where glibc accepted them, False where they were
    left alone (switched off, another C library, or refused)."""
    if environ.get(SWITCH, "1").strip() == "0" or platform.libc_ver()[0] != "glibc":
        return False
    try:
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))


TUNED = tune()
