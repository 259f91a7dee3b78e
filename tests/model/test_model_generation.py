"""The generation group of issue 25 in the golden model (TCI, TTRI, THISTOGRAM, TDEQUANT,
TGATHER, TSCATTER) against the independent element reference vectors/reference/generation.py:
whole tiles through bundles, both profiles, every legal type, and rejections that leave the
state as it was."""
from __future__ import annotations

import numpy as np
import pytest

from pto_avs.device_model.machine import Machine
from pto_avs.device_model.numeric.dequantize import dequantize
from pto_avs.vectors.reference import generation as ref

WORD = (1 << 64) - 1
PROFILES = ("pto-v0", "hw-ieee")
MODES = ("NONE", "RNE", "RTZ", "RDN", "RUP", "RNA", "RTO", "RHB")
REFERENCE_MODE = {"RDN": "RTM", "RUP": "RTP"}


def filled(rows: int, cols: int, values) -> np.ndarray:
    """A rows x cols Word grid holding ``values`` (a list of rows) at its top left."""
    grid = np.zeros((rows, cols), dtype=np.uint64)
    block = np.asarray(values, dtype=np.uint64)
    grid[:block.shape[0], :block.shape[1]] = block
    return grid


def machine(profile="pto-v0", **gprs) -> Machine:
    m = Machine(profile)
    for name, value in gprs.items():
        m.set_gpr(int(name[1:]), value & WORD)
    return m


def tile(m: Machine, index: int, dtype: str, capacity: int, cols: int, values, valid=None):
    valid = valid or (len(values), len(values[0]))
    m.configure_tile(index, dtype, capacity, cols=cols, valid=valid)
    rows = m.snapshot().tiles[index].rows
    m.write_tile(index, filled(rows, cols, values))


def valid_words(m: Machine, index: int) -> list:
    view = m.snapshot().tiles[index]
    return view.words[:view.valid[0], :view.valid[1]].tolist()


# --- TCI, TTRI ----------------------------------------------------------------------------

@pytest.mark.parametrize("dtype", ref.TCI_TYPES)
@pytest.mark.parametrize("descending", (False, True))
def test_tci_matches_the_reference_for_every_type_and_start(dtype, descending):
    for start in (0, 1, 0x7FFF, 0x8000, 0xFFFF, 0xFFFFFFFF, 0x123456789ABCDEF0, WORD):
        m = machine(r5=start, r6=int(descending))
        result = m.run(f"BSTART.SFU TCI, {dtype}; B.DIM LB0=300; B.DIM LB2=512; B.IOR R5, R6; "
                       f"B.IOT mask=1111, <last>, ->T<6>; BSTOP")
        assert result.outcome == "completed", result.detail
        assert valid_words(m, 0) == [ref.tci(dtype, start, 300, descending)]
        view = m.snapshot().tiles[0]
        assert not view.defined[0, 300:].any() and not view.defined[1:].any()  # Null padding


@pytest.mark.parametrize("dtype", ref.TTRI_TYPES)
def test_ttri_matches_the_reference_for_every_type_orientation_and_diagonal(dtype):
    for upper in (False, True):
        for diagonal in (-65535, -9, -1, 0, 1, 5, 12, 65535):
            m = machine(r5=diagonal, r6=int(upper))
            result = m.run(f"BSTART.SFU TTRI, {dtype}; B.DIM LB0=11; B.DIM LB1=9; B.DIM LB2=16; B.IOR R5, R6; "
                           f"B.IOT mask=1111, <last>, ->T<5>; BSTOP")
            assert result.outcome == "completed", result.detail
            assert valid_words(m, 0) == ref.ttri(dtype, 9, 11, upper, diagonal)


@pytest.mark.parametrize("program, gprs", [
    ("BSTART.SFU TCI, U16; B.DIM LB0=4; B.IOR R5, R6; B.IOT mask=1111, <last>, ->T<1>; BSTOP", {"r5": 1, "r6": 2}),
    ("BSTART.SFU TTRI, FP32; B.DIM LB0=4; B.IOR R5, R6; B.IOT mask=1111, <last>, ->T<1>; BSTOP",
     {"r5": 65536, "r6": 0}),
    ("BSTART.SFU TTRI, FP32; B.DIM LB0=4; B.IOR R5, R6; B.IOT mask=1111, <last>, ->T<1>; BSTOP",
     {"r5": -65536, "r6": 1}),
    ("BSTART.SFU TCI, U16; B.DATR Zero; B.DIM LB0=4; B.IOT mask=1111, <last>, ->T<1>; BSTOP", {}),
    ("BSTART.SFU TCI, U16; B.DIM LB0=4; B.DIM LB1=2; B.IOT mask=1111, <last>, ->T<1>; BSTOP", {}),
])
def test_illegal_generation_scalars_and_schemas_fault_and_change_nothing(program, gprs):
    m = machine(**gprs)
    m.set_status(0x0A)
    before = m.snapshot()
    result = m.run(program)
    assert result.fault == "Fault_TileLegality"
    assert m.snapshot().same_as(before)


# --- THISTOGRAM --------------------------------------------------------------------------

@pytest.mark.parametrize("dtype, byte_id", [("U16", 0), ("U16", 1), ("U32", 0), ("U32", 1), ("U32", 2), ("U32", 3)])
def test_histogram_matches_the_reference(dtype, byte_id):
    rng = np.random.default_rng(25 + byte_id)
    width = 16 if dtype == "U16" else 32
    rows = 3
    # few distinct upper bytes so the filters match often; Words keep bits above the element
    high = rng.integers(0, 3, size=(rows, 200))
    low = rng.integers(0, 1 << (width - 8), size=(rows, 200))
    words = ((high << (width - 8)) | low | (0xAB << 48)).astype(np.uint64).tolist()
    column = [int(v) for v in rng.integers(0, 3, size=3)]
    if dtype == "U32":
        words = [[(w & ~0x00FFFF00) | (column[1] << 16) | (column[2] << 8) if i % 2 else w
                  for i, w in enumerate(row)] for row in words]
    m = machine()
    tile(m, 0, dtype, 4096 if dtype == "U32" else 2048, 256, words)
    tile(m, 1, "U8", 128, 4, [[v, 0, 0, 0] for v in column])
    result = m.run(f"BSTART.SFU THISTOGRAM, {dtype}; B.DATR U32, PadValue={byte_id}; "
                   f"B.IOT T0, T1, mask=1111, <last>, ->T<6>; BSTOP")
    assert result.outcome == "completed", result.detail
    filter_column = [column[r] if r < 3 else 0 for r in range(max(rows, 3))]
    assert valid_words(m, 2) == ref.histogram(dtype, words, filter_column, byte_id)


# --- TDEQUANT ----------------------------------------------------------------------------

@pytest.mark.parametrize("source", ref.DEQUANT_SOURCES)
@pytest.mark.parametrize("profile", PROFILES)
def test_dequantize_is_the_exact_value_rounded_once(source, profile):
    q = np.arange(256, dtype=np.uint64)
    for multiplier in (0x3F800000, 0x3DCCCCCD, 0x3F7FFFFF, 0x7F7FFFFF, 0x7F000001, 0x00000001, 0x00800000,
                       0x4B7FFFFF):
        for zero_point in ((0, 0x7F, WORD - 127) if source == "S8" else (0, 0x80, 0xFF)):
            for mode in MODES:
                words, flags = dequantize(q, multiplier, zero_point, source, mode, profile)
                expected = [ref.dequantize(source, int(v), multiplier, zero_point, REFERENCE_MODE.get(mode, mode),
                                           profile) for v in q]
                assert [(int(w), int(f)) for w, f in zip(words, flags)] == expected, (multiplier, zero_point, mode)


def test_dequant_rejections_change_nothing():
    for gprs in ({"r5": 0, "r6": 0}, {"r5": 0xBF800000, "r6": 0}, {"r5": 0x7F800000, "r6": 0},
                 {"r5": 0x3F800000, "r6": 0x80}):
        m = machine(**gprs)
        tile(m, 0, "S8", 128, 4, [[1, 2, 3, 4]])
        m.set_status(0x0A)
        before = m.snapshot()
        result = m.run("BSTART.SFU TDEQUANT, S8; B.DATR FP32; B.DIM LB0=4; B.IOR R5, R6; "
                       "B.IOT T0, mask=1111, <last>, ->T<1>; BSTOP")
        assert result.fault == "Fault_TileLegality"
        assert m.snapshot().same_as(before)


# --- TGATHER, TSCATTER -------------------------------------------------------------------

@pytest.mark.parametrize("index_type", ref.INDEX_TYPES)
def test_gather_and_scatter_match_the_reference(index_type):
    rng = np.random.default_rng(len(index_type))
    values = rng.integers(0, 1 << 63, size=(6, 8), dtype=np.uint64).tolist()
    # gather: any row per element
    rows = rng.integers(0, 6, size=(4, 8)).tolist()
    m = machine()
    tile(m, 0, "U64", 512, 8, values)
    tile(m, 1, index_type, 512, 8, rows)
    result = m.run("BSTART.SFU TGATHER, U64; B.DIM LB0=8; B.DIM LB1=4; B.DIM LB2=8; "
                   "B.IOT T0, T1, mask=1111, <last>, ->T<3>; BSTOP")
    assert result.outcome == "completed", result.detail
    assert valid_words(m, 2) == ref.gather(values, rows, index_type)
    # scatter: a permutation of 7 destination rows per column, the first 6 used
    targets = np.array([rng.permutation(7)[:6] for _ in range(8)]).T.tolist()
    m = machine()
    tile(m, 0, "U64", 512, 8, values)
    tile(m, 1, index_type, 512, 8, targets)
    result = m.run("BSTART.SFU TSCATTER, U64; B.DIM LB0=8; B.DIM LB1=7; B.DIM LB2=8; "
                   "B.IOT T0, T1, mask=1111, <last>, ->T<3>; BSTOP")
    assert result.outcome == "completed", result.detail
    view = m.snapshot().tiles[2]
    assert view.words[:7].tolist() == ref.scatter(values, targets, index_type, 7, 8)
    assert view.defined.all() and not view.words[7:].any()  # zero-filled, defined padding


def test_scatter_duplicate_and_gather_range_faults_change_nothing():
    for op, rows in (("TSCATTER", [[0, 1], [0, 2]]), ("TGATHER", [[3, 0], [0, 0]])):
        m = machine()
        tile(m, 0, "U16", 128, 2, [[1, 2], [3, 4], [5, 6]] if op == "TGATHER" else [[1, 2], [3, 4]])
        tile(m, 1, "U16", 128, 2, rows)
        before = m.snapshot()
        result = m.run(f"BSTART.SFU {op}, U16; B.DIM LB0=2; B.DIM LB1=3; B.DIM LB2=2; "
                       f"B.IOT T0, T1, mask=1111, <last>, ->T<1>; BSTOP".replace("LB1=3", "LB1=2" if op == "TGATHER"
                                                                                  else "LB1=3"))
        assert result.fault == "Fault_TileLegality", op
        assert m.snapshot().same_as(before)
