"""The broadcasts and partial operations of the golden model (ops/expansion.py, ops/partial.py)
against the independent reference (vectors/reference/expansion.py) on drawn tiles, and their
rejections (nothing published)."""
from __future__ import annotations

import random

import pytest

from pto_avs.device_model.machine import Machine
from pto_avs.vectors.reference import expansion as ref

PROFILES = ("pto-v0", "hw-ieee")
WIDTH = {"U8": 8, "S16": 16, "U32": 32, "S64": 64, "FP16": 16, "BF16": 16, "FP32": 32, "FP64": 64, "E4M3": 8}


def _draw(rng, t, rows, cols):
    """Drawn element Words (every encoding of these types is valid)."""
    return [[rng.getrandbits(WIDTH[t]) for _ in range(cols)] for _ in range(rows)]


def _run_direct(profile, call, tiles):
    m = Machine(profile=profile)
    for index, (t, capacity, cols, valid, data) in tiles.items():
        m.configure_tile(index, t, capacity, cols=cols, valid=valid)
        if data is not None:
            m.write_tile(index, data)
    before = m.snapshot()
    result = m.run([call])
    return m, before, result


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("op", sorted(ref.EXPAND_OPERATIONS))
def test_broadcasts_agree_with_the_reference(op, profile):
    axis, kind = ref.EXPAND_OPERATIONS[op]
    rng = random.Random(f"{op}-{profile}")
    pairs = ref.EXPDIF_PAIRS if kind == "EXPDIF" else [(t, t) for t in ("U8", "S16", "U32", "S64", "FP16", "BF16",
                                                                         "FP32", "FP64", "E4M3")]
    for source_type, destination_type in pairs:
        valid = (3, 4)
        source = None if kind == "COPY" else _draw(rng, source_type, *valid)
        b_valid = (3, 1) if axis == "Row" else (1, 4)
        broadcast = _draw(rng, source_type, *b_valid)
        if kind == "DIV" and not source_type.startswith("F") and not source_type.startswith("E"):
            broadcast = [[w or 1 for w in row] for row in broadcast]
        dst_capacity = 256
        rows = dst_capacity * 8 // (4 * WIDTH[destination_type])
        tiles = {1: (source_type, 128 if axis == "Row" else 256, 1 if axis == "Row" else 4, b_valid, broadcast),
                 2: (destination_type, dst_capacity, 4, valid, None)}
        call = {"call": op, "dst": 2, "src": 1}
        if source is not None:
            tiles[0] = (source_type, rows * 4 * WIDTH[source_type] // 8, 4, valid, source)
            call = {"call": op, "dst": 2, "src": 0, "src1": 1}
        m, _, result = _run_direct(profile, call, tiles)
        assert result.fault is None, (op, source_type, result.detail)
        words, flags = ref.expand(op, profile, source_type, destination_type, valid, source, broadcast)
        got = m.snapshot().tiles[2]
        assert [list(map(int, row[:4])) for row in got.words[:3]] == words, (op, source_type, profile)
        assert m.snapshot().flags == flags, (op, source_type, profile)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("op", sorted(ref.PARTIAL_OPERATIONS))
def test_partial_operations_agree_with_the_reference(op, profile):
    rng = random.Random(f"{op}-{profile}")
    for t in ("U8", "S16", "U32", "FP16", "BF16", "FP32"):
        for left_valid, right_valid in (((2, 4), (1, 2)), ((1, 3), (2, 4)), ((2, 4), (2, 4))):
            left, right = _draw(rng, t, *left_valid), _draw(rng, t, *right_valid)
            tiles = {0: (t, 128, 4, left_valid, left), 1: (t, 128, 4, right_valid, right),
                     2: (t, 128, 4, (2, 4), None)}
            m, _, result = _run_direct(profile, {"call": op, "dst": 2, "src": 0, "src1": 1}, tiles)
            assert result.fault is None, result.detail
            words, flags = ref.partial(op, profile, t, (2, 4), left, right)
            got = m.snapshot().tiles[2]
            assert [list(map(int, row[:4])) for row in got.words[:2]] == words
            assert m.snapshot().flags == flags


@pytest.mark.parametrize("op, broadcast_valid", [("TROWEXPANDADD", (3, 2)), ("TCOLEXPANDMIN", (1, 3)),
                                                 ("TROWEXPAND", (2, 1)), ("TCOLEXPANDEXPDIF", (2, 4))])
def test_a_misshapen_broadcast_publishes_nothing(op, broadcast_valid):
    kind = ref.EXPAND_OPERATIONS[op][1]
    t = "FP32" if kind == "EXPDIF" else "U16"
    cols = 1 if broadcast_valid[1] == 1 else 4
    tiles = {1: (t, 128, cols, broadcast_valid, [[1] * broadcast_valid[1]] * broadcast_valid[0]),
             2: (t, 128, 4, (3, 4), None)}
    call = {"call": op, "dst": 2, "src": 1}
    if kind != "COPY":
        tiles[0] = (t, 128, 4, (3, 4), [[1] * 4] * 3)
        call = {"call": op, "dst": 2, "src": 0, "src1": 1}
    m, before, result = _run_direct("pto-v0", call, tiles)
    assert result.fault == "Fault_TileLegality"
    assert m.snapshot().same_as(before)


def test_a_zero_integer_broadcast_divisor_is_rejected_in_a_block():
    m = Machine()
    m.configure_tile(0, "S32", 128, cols=4, valid=(2, 3))
    m.write_tile(0, [[6, 7, 8], [9, 10, 11]])
    m.configure_tile(1, "S32", 128, cols=1, valid=(2, 1))
    m.write_tile(1, [[2], [0]])
    before = m.snapshot()
    result = m.run("BSTART.SFU TROWEXPANDDIV, S32; B.DIM LB0=3; B.DIM LB1=2; B.DIM LB2=4; "
                   "B.IOT T0, T1, mask=1111, <last>, ->T<1>; BSTOP")
    assert result.fault == "Fault_TileLegality" and m.snapshot().same_as(before)


def test_a_partial_block_takes_no_datr_and_needs_one_covering_source():
    for datr, right_valid, fault in (("B.DATR Zero; ", (1, 2), "Fault_TileLegality"),
                                     ("", (2, 1), "Fault_TileLegality"), ("", (1, 2), None)):
        m = Machine()
        m.configure_tile(0, "U16", 128, cols=4, valid=(1, 3))
        m.write_tile(0, [[1, 2, 3]])
        m.configure_tile(1, "U16", 128, cols=2, valid=right_valid)
        m.write_tile(1, [[5] * right_valid[1]] * right_valid[0])
        rows = max(1, right_valid[0])
        result = m.run(f"BSTART.SFU TPARTADD, U16; {datr}B.DIM LB0=3; B.DIM LB1={rows}; B.DIM LB2=4; "
                       "B.IOT T0, T1, mask=1111, <last>, ->T<1>; BSTOP")
        assert result.fault == fault, (datr, right_valid, result.detail)
