"""Checks the model's property tests share: what a run may change of the machine."""
import contextlib
from unittest import mock

import numpy as np
from hypothesis import event

FAULTS = {"Fault_IllegalInstruction", "Fault_BundleControl", "Fault_TileLegality", "Fault_TileAllocation"}


def check_run(m, before, result, new_tiles_allowed: int) -> None:
    """A fault (or a stop) leaves the machine as it was; otherwise flags only accumulate,
    every tile there before keeps its descriptor and contents, and at most
    ``new_tiles_allowed`` tiles are added."""
    assert result.fault is None or result.fault in FAULTS
    event(result.fault or ("stopped" if result.stopped else "completed"))
    after = m.snapshot()
    if result.fault is not None or result.stopped:
        assert after.same_as(before), after.differences(before)
        return
    assert after.flags & before.flags == before.flags  # sticky
    for index, view in before.tiles.items():  # sources and bystanders never change
        assert index in after.tiles
        mine = after.tiles[index]
        assert np.array_equal(mine.words, view.words) and np.array_equal(mine.defined, view.defined)
        assert (mine.storage_kind, mine.dtype, mine.layout, mine.valid, mine.capacity) == (
            view.storage_kind, view.dtype, view.layout, view.valid, view.capacity)
    assert len(set(after.tiles) - set(before.tiles)) <= new_tiles_allowed  # 0 for a zero-mask no-op


def check_direct_step(m, item: dict) -> None:
    """One direct call: a fault changes nothing; a completed call writes only its destination."""
    before = m.snapshot()
    result = m.run([item])
    assert result.fault is None or result.fault in FAULTS
    event(result.fault or "completed")
    after = m.snapshot()
    if result.fault is not None:
        assert after.same_as(before), after.differences(before)
        return
    changed = {line.split()[1] for line in after.differences(before) if line.startswith("tile ")}
    assert changed <= {str(item["dst"])}  # only the destination is written
    assert set(after.tiles) == set(before.tiles)


@contextlib.contextmanager
def unregistered_tepl_operation():
    """A TEPL operation the model does not execute: the first the registry lacks, or, once
    every TEPL operation is modelled, the catalog's last one taken out of the registry for
    the ``with`` block."""
    from pto_avs.device_model.encoding.names import TEPL_OPS
    from pto_avs.device_model.ops import registry

    name = next((n for n in TEPL_OPS if registry.find(n) is None), None)
    if name is not None:
        yield name
        return
    name = list(TEPL_OPS)[-1]
    with mock.patch.object(registry, "OPERATIONS", {k: v for k, v in registry.OPERATIONS.items() if k != name}):
        yield name
