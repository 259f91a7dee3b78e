"""The allocator tuning of the numeric package (``allocator``): on glibc, freed
block-sized temporaries are reused instead of being mapped afresh. The observable is
the process's minor page faults while it makes four 2 MiB arrays and frees them, twenty
times over, in a fresh interpreter per setting. Untuned, the freed 8 MiB at the top of
the heap exceed glibc's trim threshold (twice the 2 MiB the mmap threshold has risen
to), go back to the kernel, and fault in again: 4 * 512 pages a round."""
from __future__ import annotations

import os
import platform
import subprocess
import sys

import pytest

from pto_avs.device_model.numeric import allocator

PROBE = """
import resource, numpy as np
import pto_avs.device_model.numeric as numeric
def faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt
def round():
    arrays = [np.ones(1 << 18) for _ in range(4)]  # 2 MiB each, written whole
    del arrays
round()  # the first round faults in any setting
before = faults()
for _ in range(20):
    round()
print(numeric.allocator.TUNED, faults() - before)
"""

glibc_only = pytest.mark.skipif(platform.libc_ver()[0] != "glibc", reason="the thresholds are glibc's")


def _probe(switch):
    env = dict(os.environ)
    env.pop(allocator.SWITCH, None)
    if switch is not None:
        env[allocator.SWITCH] = switch
    out = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True).stdout
    tuned, faults = out.split()
    return tuned == "True", int(faults)


@glibc_only
def test_tuned_by_default_freed_blocks_are_reused():
    tuned, faults = _probe(None)
    assert tuned
    assert faults < 512  # fewer than one array's pages over all twenty rounds


@glibc_only
def test_switched_off_every_array_is_mapped_afresh():
    tuned, faults = _probe("0")
    assert not tuned
    assert faults >= 20 * 4 * 512 * 9 // 10


def test_switch_off_and_other_libraries_leave_the_allocator_alone(monkeypatch):
    assert allocator.tune({allocator.SWITCH: "0"}) is False
    monkeypatch.setattr(allocator.platform, "libc_ver", lambda: ("", ""))
    assert allocator.tune({}) is False
