"""The exhaustive TCVT sweep as pytest items, one per (source, destination) pair.

    pytest avs/campaigns/sweep_suite.py --device NAME -k L1 -n auto

Not collected by ``pytest avs/`` or ``pytest tests/`` (the file name does not start
with ``test_``); name the file to run it. Item IDs are ``L<level>-<SRC>-<DST>``
(level 1: sources of 8 bits or fewer; level 2: the 16-bit sources), so ``-k L1``
selects level 1. The device is the first ``--device`` (the pto_avs option); each
xdist worker opens it once. An item fails when the device disagrees with the
golden model of its profile anywhere in the pair (or reports a device error), and
its message is the sweep table row (counts and the first difference). Otherwise a
pair with cases the device does not support is skipped with a reason starting
``not supported:``; only a pair whose every case ran and agreed passes.
"""
from __future__ import annotations

import pytest

from . import sweep

LEVEL_ONE = set(sweep.pairs(1))
PAIRS = [pytest.param(s, d, id=f"L{1 if (s, d) in LEVEL_ONE else 2}-{s}-{d}") for s, d in sweep.pairs(2)]


@pytest.fixture(scope="module")
def devices(request):
    from ...plugins.base import open_device

    specs = request.config.getoption("avs_device")
    if not specs:
        pytest.skip("the sweep needs --device NAME[:ARG] (it compares that device with the golden model)")
    device = open_device(specs[0])
    yield device, open_device(f"golden:{device.capabilities.profile}")
    device.close()


@pytest.mark.parametrize("source, destination", PAIRS)
def test_sweep_pair(devices, source, destination):
    device, golden = devices
    result = sweep.sweep_pair(device, golden, source, destination)
    assert result.cases > 0
    if result.disagreements:
        pytest.fail(f"{device.name} disagrees with the golden model:\n{sweep.HEADER}\n{result.line()}", pytrace=False)
    if result.unsupported:
        ran = result.cases - result.unsupported
        pytest.skip(f"not supported: {result.unsupported} of {result.cases} cases of {source}->{destination} on "
                    f"{device.name} ({result.unsupported_reason})" + (f"; the other {ran} agree" if ran else ""))
