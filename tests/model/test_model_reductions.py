"""The row and column reductions of the golden model (device_model/ops/reduce_expand.py):
fold order, index rules, destination shape and type, legality and atomic rejection.
Expected values are hand-derived from asl/tile/model/execution/reduction.asl."""
from __future__ import annotations

import pytest

from pto_avs.device_model.machine import Machine
from pto_avs.device_model.ops import registry
from pto_avs.device_model.ops.reduce_expand import TileReduction

WORD = (1 << 64) - 1
REDUCTIONS = ("TROWSUM", "TROWPROD", "TROWMAX", "TROWMIN", "TROWARGMAX", "TROWARGMIN",
              "TCOLSUM", "TCOLPROD", "TCOLMAX", "TCOLMIN", "TCOLARGMAX", "TCOLARGMIN")


def run(op, dtype, rows, *, profile="pto-v0", cols=None, datr="", size=1, extra=""):
    """A block reducing T1 (the rows as its valid region); returns (machine, result)."""
    machine = Machine(profile=profile)
    cols = cols or len(rows[0])
    machine.configure_tile(1, dtype=dtype, capacity=128, cols=cols, valid=(len(rows), len(rows[0])))
    machine.write_tile(1, rows)
    dims = f"B.DIM LB0={len(rows[0])}; B.DIM LB1={len(rows)}; B.DIM LB2={cols}; "
    result = machine.run(f"BSTART.SFU {op}, {dtype}; {datr}{dims}{extra}"
                         f"B.IOT T1, mask=1111, <last>, ->T<{size}>; BSTOP")
    return machine, result


def destination(machine):
    return machine._state.tiles[0]


def test_every_reduction_is_registered_as_one_kind():
    for name in REDUCTIONS:
        assert isinstance(registry.find(name), TileReduction)


@pytest.mark.parametrize("op, dtype, rows, expected", [
    ("TROWSUM", "U8", [[250, 10]], [[4]]),
    ("TROWPROD", "U8", [[20, 20]], [[144]]),
    ("TROWMIN", "S8", [[0xFF, 1]], [[WORD]]),
    ("TCOLSUM", "U8", [[1, 2], [3, 4]], [[4, 6]]),
    ("TCOLMIN", "S8", [[0xFF, 5], [1, 0xFE]], [[WORD, WORD - 1]]),
    ("TCOLARGMAX", "U8", [[2, 7], [9, 7], [9, 3]], [[1, 0]]),
])
def test_the_spec_points_through_a_block(op, dtype, rows, expected):
    machine, result = run(op, dtype, rows)
    assert result.fault is None
    assert destination(machine).valid_words().tolist() == expected


def test_the_fold_is_left_to_right_with_every_step_rounded():
    # 1 + 2**-24 + 2**-24 + 2**-24 in FP32: each step ties back to 1 (NX); a tree gives 1 + 2**-23
    machine, result = run("TROWSUM", "FP32", [[0x3F800000, 0x33800000, 0x33800000, 0x33800000]],
                          profile="hw-ieee")
    assert destination(machine).valid_words().tolist() == [[0x3F800000]]
    assert machine._state.status == 0x10


def test_max_records_invalid_in_pto_v0_unlike_tmax():
    machine, _ = run("TROWMAX", "FP32", [[0x3F800000, 0x7F800001]])
    assert destination(machine).valid_words().tolist() == [[0x3F800000]] and machine._state.status == 0x01


def test_index_destination_of_a_block_is_u32_with_one_column():
    machine, result = run("TROWARGMIN", "S16", [[5, 3, 3], [1, 2, 0]], cols=4)
    tile = destination(machine)
    assert result.fault is None and tile.dtype.name == "U32"
    assert (tile.cols, tile.valid_rows, tile.valid_cols) == (1, 2, 1)
    assert tile.valid_words().tolist() == [[1], [2]]


def test_column_destination_keeps_the_source_columns():
    machine, _ = run("TCOLMAX", "U16", [[1, 9, 4], [7, 2, 4]], cols=4)
    tile = destination(machine)
    assert (tile.cols, tile.valid_rows, tile.valid_cols) == (4, 1, 3)
    assert tile.valid_words().tolist() == [[7, 9, 4]]


def test_a_pad_only_datr_keeps_the_source_type():
    """The ASL names the destination type (destination-shape.asl), so the FP64 that an
    omitted B.DATR DataType encodes never reaches a reduction's destination."""
    machine, result = run("TROWSUM", "S16", [[3, 1], [2, 7]], datr="B.DATR Max; ")
    tile = destination(machine)
    assert result.fault is None and tile.dtype.name == "S16"
    assert tile.valid_words().tolist() == [[4], [9]]
    assert int(tile.payload[tile.index_map[2, 0]]) == 0x7FFF  # the S16 Max pad word


def test_signed_index_selection_by_profile():
    """pto-v0 compares whole Words: the sign-extended minimum never equals an element written
    as its bits; hw-ieee compares element bits (SPEC-CHOICE)."""
    pto, _ = run("TROWARGMIN", "S8", [[1, 0xFF, 0xFE]], cols=4)
    hw, _ = run("TROWARGMIN", "S8", [[1, 0xFF, 0xFE]], cols=4, profile="hw-ieee")
    assert destination(pto).valid_words().tolist() == [[0]]
    assert destination(hw).valid_words().tolist() == [[2]]


@pytest.mark.parametrize("op, dtype, options, fault", [
    ("TROWARGMAX", "FP64", {}, "Fault_TileLegality"),  # schema passes, operand types do not
    ("TROWSUM", "U16", {"extra": "B.IOR; "}, "Fault_TileLegality"),  # closed schema: no scalar binding
    ("TROWSUM", "U16", {"datr": "B.DATR RTZ; "}, "Fault_TileLegality"),  # only PadValue applies
])
def test_rejection_leaves_the_machine_as_it_was(op, dtype, options, fault):
    machine = Machine(profile="pto-v0")
    machine.configure_tile(1, dtype=dtype, capacity=128, cols=2, valid=(1, 2))
    machine.write_tile(1, [[1, 2]])
    before = machine._state.copy()
    result = machine.run(f"BSTART.SFU {op}, {dtype}; {options.get('datr', '')}B.DIM LB0=2; "
                         f"{options.get('extra', '')}B.IOT T1, mask=1111, <last>, ->T<1>; BSTOP")
    assert result.fault == fault
    after = machine._state
    assert all(a is b for a, b in zip(after.tiles, before.tiles)) and after.status == before.status


def test_direct_calls_take_s32_or_u32_indices_and_refuse_others():
    for index_type, fault in (("S32", None), ("U32", None), ("S16", "Fault_TileLegality")):
        machine = Machine(profile="pto-v0")
        machine.configure_tile(0, dtype="U8", capacity=128, cols=4, valid=(1, 3))
        machine.write_tile(0, [[4, 2, 2]])
        machine.configure_tile(1, dtype=index_type, capacity=128, cols=1, valid=(1, 1))
        result = machine.run([{"call": "TROWARGMIN", "dst": 1, "src": 0}])
        assert result.fault == fault
        if fault is None:
            assert machine._state.tiles[1].valid_words().tolist() == [[1]]


# --- the model against the independent reference on drawn tiles ----------------

def _drawn_words(rng, dtype, count, pool):
    """Encodings of ``dtype`` drawn half from its special values, half at random (TF32 and
    HF32 keep their low fraction bits zero, so every encoding is valid)."""
    bits = {"FP64": 64, "S64": 64, "U64": 64, "FP32": 32, "TF32": 32, "HF32": 32, "S32": 32, "U32": 32,
            "FP16": 16, "BF16": 16, "S16": 16, "U16": 16}.get(dtype, 8)
    low_zero = {"TF32": 13, "HF32": 12}.get(dtype, 0)
    return [rng.choice(pool) if rng.random() < 0.5 else rng.getrandbits(bits) >> low_zero << low_zero
            for _ in range(count)]


@pytest.mark.parametrize("profile", ["pto-v0", "hw-ieee"])
@pytest.mark.parametrize("op", REDUCTIONS)
def test_reductions_agree_with_the_reference_on_drawn_tiles(op, profile):
    import random

    from pto_avs.vectors.reference import generate_reductions, reductions

    rng = random.Random(f"{op}-{profile}")
    for dtype in reductions.legal_source_types(op):
        pool = generate_reductions.pair_pool(dtype)
        for valid in ((1, 1), (3, 5), (4, 8)):
            cols = 8
            rows = [_drawn_words(rng, dtype, valid[1], pool) for _ in range(valid[0])]
            machine = Machine(profile=profile)
            machine.configure_tile(1, dtype=dtype, capacity=512, cols=cols, valid=valid)
            machine.write_tile(1, rows)
            result = machine.run(f"BSTART.SFU {op}, {dtype}; B.DIM LB0={valid[1]}; B.DIM LB1={valid[0]}; "
                                 f"B.DIM LB2={cols}; B.IOT T1, mask=1111, <last>, ->T<2>; BSTOP")
            expected, flags = reductions.reduce_rows(op, dtype, profile, rows)
            tile = destination(machine)
            mask = tile.dtype.mask
            assert result.fault is None, (dtype, result.detail)
            got = [[int(w) & mask for w in row] for row in tile.valid_words().tolist()]
            assert got == [[w & mask for w in row] for row in expected], (dtype, valid, rows)
            assert machine._state.status == flags, (dtype, valid, rows)


def test_a_lone_nan_by_profile():
    """SPEC-CHOICE 35: pto-v0 keeps a one-element row's NaN Word, hw-ieee canonicalizes it."""
    pto, _ = run("TROWMAX", "FP32", [[0xFFC00001], [0x7F800001]])
    hw, _ = run("TROWMAX", "FP32", [[0xFFC00001], [0x7F800001]], profile="hw-ieee")
    assert destination(pto).valid_words().tolist() == [[0xFFC00001], [0x7F800001]] and pto._state.status == 0
    assert destination(hw).valid_words().tolist() == [[0x7FC00000], [0x7FC00000]] and hw._state.status == 0x01
