"""TSORT and TMRGSORT in the model against the independent reference
(vectors/reference/sorting.py), and the two-destination hook of the one protocol."""
from __future__ import annotations

import random

import numpy as np
import pytest

from pto_avs.device_model import block as blocks
from pto_avs.device_model.machine import Machine
from pto_avs.device_model.ops import registry
from pto_avs.vectors.reference import sorting as ref

SPECIAL = {
    "FP32": [0, 0x80000000, 1, 0x80000001, 0x3F800000, 0xBF800000, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000,
             0xFF800000, 0x7FC00000, 0x7FC00123, 0xFFC00001, 0x7F800001, 0xFFA00123],
    "FP16": [0, 0x8000, 1, 0x8001, 0x3C00, 0xBC00, 0x7BFF, 0xFBFF, 0x7C00, 0xFC00, 0x7E00, 0x7E12, 0xFE01,
             0x7C01, 0xFD23],
}


def draw_row(rng, t, n, carriers=False):
    """Special values, repeats and random finite Words (with carrier bits above FP32 elements)."""
    pool = SPECIAL[t] + [rng.getrandbits(16 if t == "FP16" else 32) & (0x7BFF if t == "FP16" else 0x7F7FFFFF)
                         | rng.choice((0, 0x8000 if t == "FP16" else 0x80000000)) for _ in range(8)]
    row = [rng.choice(pool) for _ in range(n)]
    if carriers:
        row = [w | (rng.choice((0, 0xAB, 0xCD)) << 40) for w in row]
    return row


def machine(profile, tiles):
    """A machine holding ``tiles`` (index, type, cols, valid, rows or None); a U32 tile gets the
    rows of the first tile (its TSize scaled by 32 / the first tile's width)."""
    m = Machine(profile)
    first_bits = 16 if tiles[0][1] == "FP16" else 32
    first_capacity = None
    for index, t, cols, valid, rows in tiles:
        bits = 16 if t == "FP16" else 32
        capacity = max(128, 1 << (valid[0] * cols * bits // 8 - 1).bit_length())
        if first_capacity is None:
            first_capacity = capacity
        if t == "U32":
            capacity = first_capacity * 32 // first_bits
        m.configure_tile(index, t, capacity, cols=cols, valid=valid)
        if rows is not None:
            m.write_tile(index, rows)
    return m


@pytest.mark.parametrize("profile", ["pto-v0", "hw-ieee"])
@pytest.mark.parametrize("t", ["FP32", "FP16"])
def test_tsort_equals_the_reference(profile, t):
    rng = random.Random(f"{profile}{t}")
    for trial in range(40):
        rows_n, cols_n = rng.randint(1, 3), rng.randint(1, 70)
        width, descending = rng.randint(1, 64), rng.random() < 0.5
        rows = [draw_row(rng, t, cols_n, carriers=t == "FP32" and trial % 3 == 0) for _ in range(rows_n)]
        cols = 1 << (cols_n - 1).bit_length()
        m = machine(profile, [(0, t, cols, (rows_n, cols_n), rows), (1, t, cols, (rows_n, cols_n), None),
                              (2, "U32", cols, (rows_n, cols_n), None)])
        run = m.run([{"call": "TSORT", "dst": 1, "dst1": 2, "src": 0, "sort_width": width,
                      "descending": descending}])
        assert run.fault is None, run.detail
        values, indices, flags = ref.tsort(rows, t, width, descending, profile)
        snap = m.snapshot()
        valid = (slice(0, rows_n), slice(0, cols_n))
        assert snap.tiles[1].words[valid].tolist() == values, (trial, width, descending)
        assert snap.tiles[2].words[valid].tolist() == indices, (trial, width, descending)
        assert snap.flags == flags


def test_whole_word_ties_replay_the_bubble_passes_in_pto_v0():
    """SPEC-CHOICE 42: 1.0 with three carriers; pto-v0 gives the order of the ASL's 64 passes,
    hw-ieee the stable order."""
    row = [0xA00000003F800000, 0x3F800000, 0xB00000003F800000, 0x40000000, 0x3F800000]
    for profile in ("pto-v0", "hw-ieee"):
        m = machine(profile, [(0, "FP32", 8, (1, 5), [row]), (1, "FP32", 8, (1, 5), None),
                              (2, "U32", 8, (1, 5), None)])
        m.run([{"call": "TSORT", "dst": 1, "dst1": 2, "src": 0, "sort_width": 5}])
        values, indices, _ = ref.tsort([row], "FP32", 5, False, profile)
        assert m.snapshot().tiles[1].words[0, :5].tolist() == values[0]
        assert m.snapshot().tiles[2].words[0, :5].tolist() == indices[0]
    assert ref.tsort([row], "FP32", 5, False, "pto-v0")[0] != ref.tsort([row], "FP32", 5, False, "hw-ieee")[0]


@pytest.mark.parametrize("profile", ["pto-v0", "hw-ieee"])
def test_tmrgsort_equals_the_reference(profile):
    rng = random.Random(profile)
    for trial in range(60):
        t = rng.choice(["FP32", "FP16"])
        descending = rng.random() < 0.5
        streams = []
        for _ in range(2):
            words = draw_row(rng, t, rng.randint(1, 40), carriers=t == "FP32" and trial % 4 == 0)
            streams.append(ref.tsort([words], t, 64, descending, "hw-ieee")[0][0])
        if not all(ref.sequence_ordered(s, t, descending) for s in streams):
            continue  # carriers made a stream unsorted under whole-Word equality
        left, right = streams
        n = len(left) + len(right)
        m = machine(profile, [(0, t, 1 << (len(left) - 1).bit_length(), (1, len(left)), [left]),
                              (1, t, 1 << (len(right) - 1).bit_length(), (1, len(right)), [right]),
                              (2, t, 1 << (n - 1).bit_length(), (1, n), None)])
        run = m.run([{"call": "TMRGSORT", "dst": 2, "src": 0, "src1": 1, "descending": descending}])
        assert run.fault is None, run.detail
        words, flags = ref.tmrgsort(left, right, t, descending, profile)
        assert m.snapshot().tiles[2].words[0, :n].tolist() == words, trial
        assert m.snapshot().flags == flags


def test_both_destinations_rename_in_binding_order_and_publish_together():
    """Two destinations in one hand take the next two free indices; a fault after both were
    allocated (an FP16 sort whose 128 B index tile has other rows) publishes neither."""
    program = ("BSTART.SFU TSORT, FP32\nB.IOT T0, mask=1111, ->T<1>\nB.IOT mask=1111, <last>, ->T<1>\nBSTOP")
    m = machine("pto-v0", [(0, "FP32", 2, (1, 2), [[0x40000000, 0x3F800000]])])
    assert m.run(program).fault is None
    tiles = m.snapshot().tiles
    assert sorted(tiles) == [0, 1, 2] and tiles[1].dtype == "FP32" and tiles[2].dtype == "U32"
    assert tiles[2].words[0, :2].tolist() == [1, 0]
    m = Machine("pto-v0")
    m.configure_tile(0, "FP16", 128, cols=4, valid=(1, 4))
    m.write_tile(0, [[0x3C00, 0x4000, 0x3800, 0]])
    before = m.snapshot()
    run = m.run("BSTART.SFU TSORT, FP16\nB.IOT T0, mask=1111, ->T<1>\nB.IOT mask=1111, <last>, ->U<1>\nBSTOP")
    assert run.fault == "Fault_TileLegality"
    assert m.snapshot().same_as(before)


def test_the_protocol_hook_declares_two_destinations():
    tsort, tmrgsort = registry.find("TSORT"), registry.find("TMRGSORT")
    assert (tsort.DESTINATIONS, tsort.SOURCES, tsort.GPR_INPUTS) == (2, 1, 1)
    assert (tmrgsort.DESTINATIONS, tmrgsort.SOURCES, tmrgsort.GPR_INPUTS) == (1, 2, 1)
    assert tsort.DATR_ALLOWED == tmrgsort.DATR_ALLOWED == frozenset()
    assert blocks.resolve_destination.__doc__ and blocks.resolve_destinations.__doc__


@pytest.mark.parametrize("call, message", [
    ({"sort_width": 0}, "sort_width 0 must be 1..64"), ({"sort_width": 65}, "sort_width 65 must be 1..64"),
    ({"sort_width": True}, "sort_width must be an integer"), ({"descending": 2}, "descending must be 0 or 1"),
])
def test_a_direct_call_outside_the_contracts_ranges_is_refused(call, message):
    m = machine("pto-v0", [(0, "FP32", 2, (1, 2), [[1, 2]]), (1, "FP32", 2, (1, 2), None),
                           (2, "U32", 2, (1, 2), None)])
    with pytest.raises(ValueError, match=message):
        m.run([{"call": "TSORT", "dst": 1, "dst1": 2, "src": 0, **call}])


def test_the_group_sort_is_vectorized_over_rows_and_groups():
    """A 256 x 64 FP32 sort runs as array steps (no pass per element): well under a second."""
    import time
    rng = np.random.default_rng(1)
    words = rng.integers(0, 0x7F000000, size=(256, 64), dtype=np.uint64)
    m = Machine("hw-ieee")
    for index, t in ((0, "FP32"), (1, "FP32"), (2, "U32")):
        m.configure_tile(index, t, 65536, cols=64, valid=(256, 64), mask="0001")
    m.write_tile(0, words)
    start = time.perf_counter()
    assert m.run([{"call": "TSORT", "dst": 1, "dst1": 2, "src": 0, "sort_width": 64}]).fault is None
    assert time.perf_counter() - start < 1.0
    assert (np.diff(m.snapshot().tiles[1].words.astype(np.int64), axis=1) >= 0).all()
