"""Differential fuzzing as pytest items, one per (operation, part), for pytest-xdist to spread.

    pytest avs/campaigns/fuzz_suite.py --device ml_dtypes -k TCVT -n 2
    PTO_AVS_FUZZ_EXAMPLES=2000 PTO_AVS_FUZZ_SEED=7 pytest avs/campaigns/fuzz_suite.py --device D -n auto

Not collected by ``pytest avs/`` or ``pytest tests/`` (the file name does not start
with ``test_``); name the file to run it. Item IDs are ``<OP>-part<k>``, ``k`` from 0 to
``PARTS - 1``: part ``k`` is the campaign of ``pto-avs fuzz`` (``avs/campaigns/fuzz.py``)
for that operation with seed ``PTO_AVS_FUZZ_SEED + k`` (default 1) and
``PTO_AVS_FUZZ_EXAMPLES`` examples (default 125, so the four parts draw the 500 of one
``pto-avs fuzz`` run), so a part is repeated by its ID alone. The device is the first
``--device`` (the pto_avs option), compared with the golden model of its profile. Each
part shrinks its own disagreements and writes their reproducers to ``PTO_AVS_FUZZ_OUT``
(default ``fuzz-out/``; a reproducer's name is its content's hash, so parts that find the
same one write the same file). An item fails when its part finds a disagreement or the
golden model raises an error, naming the reproducers; it passes otherwise. Remote
workers get the variables through the gateway (``--tx ssh=host//env:PTO_AVS_FUZZ_SEED=7``).
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

from . import fuzz
from .scenarios import OPERATIONS

PARTS = 4


def _setting(name: str, default: int) -> int:
    text = os.environ.get(name, "")
    try:
        return int(text) if text else default
    except ValueError:
        raise pytest.UsageError(f"{name}={text!r}: expected an integer") from None


@pytest.mark.parametrize("operation, part", [pytest.param(op, k, id=f"{op}-part{k}")
                                             for op in OPERATIONS for k in range(PARTS)])
def test_fuzz_part(request, operation, part):
    specs = request.config.getoption("avs_device")
    if not specs:
        pytest.skip("the fuzz campaign needs --device NAME[:ARG] (it compares that device with the golden model)")
    examples = _setting("PTO_AVS_FUZZ_EXAMPLES", 125)
    seed = _setting("PTO_AVS_FUZZ_SEED", 1) + part
    out = Path(os.environ.get("PTO_AVS_FUZZ_OUT") or fuzz.DEFAULT_OUT)
    command = f"pto-avs fuzz --device {specs[0]} --op {operation} --examples {examples} --seed {seed}"
    result = fuzz.run_campaign(specs[0], operation, examples, seed, out, command)
    if result.disagreements or result.golden_errors:
        kinds = "; ".join(f"{count} x {result.shrunk[signature][0].describe()}"
                          for signature, count in result.kinds.items())
        pytest.fail(f"{command}: {result.disagreements} disagreement(s) ({kinds or 'none'}), "
                    f"{len(result.golden_errors)} golden model error(s); reproducers: "
                    f"{', '.join(map(str, result.written)) or 'none'}", pytrace=False)
