"""The rearrangements on the golden model against the independent reference
(vectors/reference/rearrange.py): random tiles of random legal types, layouts and offsets,
direct calls and blocks, whole physical tiles compared (Words and definedness); a refused
operation leaves the machine as it was."""
from pathlib import Path

import numpy as np
import pytest

import pto_avs.device_model.ops as ops
from pto_avs.device_model.machine import Machine
from pto_avs.vectors.reference import rearrange as ref
from pto_avs.vectors.reference.engine import pad_word, rows_of

WORD = (1 << 64) - 1
SEEDS = range(12)


def random_words(rng, t, rows, cols):
    """Words with random bits above the element width too (a carrier keeps them unless packed)."""
    return [[int(rng.integers(0, 1 << 63)) * 2 + int(rng.integers(0, 2)) for _ in range(cols)] for _ in range(rows)]


def configure(m, index, t, capacity, cols, valid, words, layout="RowMajor", padding_defined=False):
    m.configure_tile(index, t, capacity, cols=cols, valid=valid, layout=layout)
    rows = rows_of(capacity, cols, t)
    defined = np.zeros((rows, cols), dtype=bool)
    defined[:valid[0], :valid[1]] = True
    if padding_defined:
        defined[:] = True
    m.write_tile(index, words, defined)
    g = ref.blank(t, rows, cols, valid)
    for r in range(rows):
        for c in range(cols):
            g.write(r, c, words[r][c], bool(defined[r, c]))
    return g


def assert_tile(m, index, expected: ref.Grid):
    view = m.snapshot().tiles[index]
    defined = np.array(expected.defined)
    assert np.array_equal(view.defined, defined)
    words = np.array(expected.words, dtype=np.uint64)
    assert np.array_equal(view.words[defined], words[defined])


def pick(rng, values):
    return values[int(rng.integers(0, len(values)))]


def case_tiles(rng, t):
    """(capacity, cols, rows) of a small random tile of type ``t``."""
    cols = pick(rng, [4, 8, 16])
    capacity = pick(rng, [128, 256])
    return capacity, cols, rows_of(capacity, cols, t)


@pytest.mark.parametrize("seed", SEEDS)
def test_transpose_extract_insert_match_the_reference(seed):
    rng = np.random.default_rng(seed)
    t = pick(rng, list(ref.MOVE24))
    capacity, cols, rows = case_tiles(rng, t)
    valid = (int(rng.integers(1, min(rows, cols) + 1)), int(rng.integers(1, cols + 1)))
    layout = pick(rng, ["RowMajor", "ColumnMajor"])
    m = Machine()
    src = configure(m, 0, t, capacity, cols, valid, random_words(rng, t, rows, cols), layout)
    # TTRANS, direct, into a destination whose valid region is the source's transposed
    d_cols = max(cols, valid[0])
    d_cap = 128
    while rows_of(d_cap, d_cols, t) < valid[1]:
        d_cap *= 2
    d_rows = rows_of(d_cap, d_cols, t)
    dst = configure(m, 1, t, d_cap, d_cols, (valid[1], valid[0]), random_words(rng, t, d_rows, d_cols))
    assert m.run([{"call": "TTRANS", "dst": 1, "src": 0}]).fault is None
    assert_tile(m, 1, ref.transpose(dst, src))
    # TEXTRACT, direct, a random window and pad
    ro, co = int(rng.integers(0, valid[0])), int(rng.integers(0, valid[1]))
    window = (int(rng.integers(1, valid[0] - ro + 1)), int(rng.integers(1, valid[1] - co + 1)))
    pad = pick(rng, ["Zero", "Max", "Min", "Null"])
    dst = configure(m, 2, t, capacity, cols, window, random_words(rng, t, rows, cols))
    assert m.run([{"call": "TEXTRACT", "dst": 2, "src": 0, "row_offset": ro, "column_offset": co,
                   "pad": pad}]).fault is None
    assert_tile(m, 2, ref.extract(dst, src, ro, co, None if pad == "Null" else pad_word(pad, t)))
    # TINSERT, direct: the window back into a copy of the source shape with defined padding
    old = configure(m, 3, t, capacity, cols, valid, random_words(rng, t, rows, cols), layout="RowMajor",
                    padding_defined=True)
    extracted = m.snapshot().tiles[2]
    window_tile = ref.extract(dst, src, ro, co, None if pad == "Null" else pad_word(pad, t))
    target = configure(m, 4, t, capacity, cols, valid, random_words(rng, t, rows, cols))
    assert extracted.valid == window
    assert m.run([{"call": "TINSERT", "dst": 4, "src": 3, "src1": 2, "row_offset": ro,
                   "column_offset": co}]).fault is None
    assert_tile(m, 4, ref.insert(target, old, window_tile, ro, co))


@pytest.mark.parametrize("seed", SEEDS)
def test_blocks_of_fillpad_and_concat_match_the_reference(seed):
    rng = np.random.default_rng(100 + seed)
    t = pick(rng, list(ref.CARRIER_ONLY))
    capacity, cols, rows = case_tiles(rng, t)
    valid = (int(rng.integers(1, rows + 1)), int(rng.integers(1, cols + 1)))
    m = Machine()
    src = configure(m, 0, t, capacity, cols, valid, random_words(rng, t, rows, cols))
    fill = int(rng.integers(0, 1 << 63)) * 2 + 1
    m.set_gpr(5, fill)
    lb0 = int(rng.integers(valid[1], cols + 1))
    size = capacity.bit_length() - 7
    program = f"BSTART.SFU TFILLPAD, {t}\nB.DIM LB0={lb0}\nB.IOR R5\nB.IOT T0, mask=1111, <last>, ->T<{size}>\nBSTOP"
    result = m.run(program)
    assert result.fault is None, result
    assert_tile(m, 1, ref.fillpad(ref.blank(t, rows, cols, (valid[0], lb0)), src, fill))
    right_cols = int(rng.integers(1, cols - valid[1] + 1)) if valid[1] < cols else 0
    if right_cols:
        right = configure(m, 2, t, capacity, cols, (valid[0], right_cols), random_words(rng, t, rows, cols))
        program = (f"BSTART.SFU TCONCAT, {t}\nB.DIM LB0={valid[1] + right_cols}\n"
                   f"B.IOT T0, T2, mask=1111, <last>, ->T<{size}>\nBSTOP")
        assert m.run(program).fault is None
        assert_tile(m, 3, ref.concat(ref.blank(t, rows, cols, (valid[0], valid[1] + right_cols)), src, right))


@pytest.mark.parametrize("call", [
    {"call": "TEXTRACT", "dst": 1, "src": 0, "row_offset": 3, "column_offset": 0},  # window past the rows
    {"call": "TINSERT", "dst": 1, "src": 1, "src1": 0, "row_offset": 0, "column_offset": 1},  # past the columns
    {"call": "TTRANS", "dst": 1, "src": 0},  # 2x3 is not 3x2
    {"call": "TCONCAT", "dst": 1, "src": 0, "src1": 0},  # 3 + 3 columns into 3
    {"call": "TFILLPAD", "dst": 1, "src": 2, "scalar": 0},  # FP64 is not carrier-only
])
def test_a_refused_call_changes_nothing(call):
    m = Machine()
    m.configure_tile(0, "U16", 128, cols=8, valid=(2, 3))
    m.write_tile(0, [[1, 2, 3], [4, 5, 6]])
    m.configure_tile(1, "U16", 128, cols=8, valid=(2, 3))
    m.write_tile(1, [[7, 8, 9], [10, 11, 12]])
    m.configure_tile(2, "FP64", 128, cols=4, valid=(1, 1))
    m.write_tile(2, [[1]])
    m.set_status(0x15)
    if call["call"] == "TFILLPAD":
        m.configure_tile(1, "FP64", 128, cols=4, valid=(1, 1))
    before = m.snapshot()
    result = m.run([call])
    assert result.fault == "Fault_TileLegality"
    assert m.snapshot().same_as(before)


def test_a_block_offset_is_lb0_and_lb1_and_sizes_the_destination():
    """SPEC-CHOICE 47: LB0=2, LB1=1 extract the 1x2 window at (2, 1)."""
    m = Machine()
    m.configure_tile(0, "U8", 128, cols=8, valid=(4, 4))
    m.write_tile(0, [[r * 4 + c for c in range(4)] for r in range(4)])
    result = m.run("BSTART.SFU TEXTRACT, U8\nB.DIM LB0=2\nB.DIM LB1=1\nB.IOT T0, mask=1111, <last>, ->T<1>\nBSTOP")
    assert result.fault is None
    view = m.snapshot().tiles[1]
    assert view.valid == (1, 2) and view.words[0, :2].tolist() == [9, 10]


def test_a_block_with_an_ior_gpr_is_bundle_control():
    m = Machine()
    m.configure_tile(0, "U8", 128, cols=8, valid=(2, 2))
    m.write_tile(0, [[1, 2], [3, 4]])
    m.set_gpr(5, 1)
    result = m.run("BSTART.SFU TTRANS, U8\nB.IOR R5\nB.IOT T0, mask=1111, <last>, ->T<1>\nBSTOP")
    assert result.fault == "Fault_BundleControl"


def test_the_operation_modules_are_small():
    """One small module per operation over the kind (the brief's lines-per-module figure)."""
    folder = Path(ops.__file__).parent
    for name in ("tfillpad", "tconcat", "textract", "tinsert", "ttrans"):
        assert len((folder / f"{name}.py").read_text().splitlines()) <= 60, name
