"""Layout index formulas, CUBE cell geometry and padding values.

Expected values: the spec test PTO-AVS-TILE-TCVT-FRACTAL-001
(tests/asl/tile/elementwise-tile-tile/format-conversion/TCVT/tile-exec-tcvt-fractal-001.asl),
the cell geometry table of asl/tile/model/shape/cube-cell.asl (digest §3.3), and
TilePadValueForDataType in asl/tile/model/definedness/elements.asl (digest §3.5).
Independent checks: every map is a permutation of the storage indices, and the
ZN/NZ maps are compared against a per-element transcription of the formula.
"""
import pytest

from pto_avs.device_model import dtypes
from pto_avs.device_model.layouts import (cube_cell_shape, cube_geometry, cube_index_map, derived_rows,
                                  ordinary_index_map)
from pto_avs.device_model.padding import pad_word

U8 = dtypes.dtype("U8")
U4X2 = dtypes.dtype("U4X2")


def test_fractal_zn_u8_32x64():
    # tile-exec-tcvt-fractal-001: ConfigureTile(0, 2048, 32, 64, ..., U8, ZN)
    assert derived_rows(2048, 64, 8) == 32
    index = ordinary_index_map("ZN", 8, 32, 64)
    assert index[0, 0] == 0
    assert index[1, 0] == 1
    assert index[0, 1] == 16
    assert index[0, 32] == 512
    assert index[16, 0] == 1024


def test_fractal_nz_u8_32x64():
    index = ordinary_index_map("NZ", 8, 32, 64)
    assert index[0, 0] == 0
    assert index[0, 1] == 1
    assert index[1, 0] == 32
    assert index[0, 32] == 1024
    assert index[16, 0] == 512


def test_fractal_zn_u4x2_16x64():
    # ConfigureTile(2, 512, 16, 64, ..., U4X2, ZN): inner = 64, (0,63) -> 1008
    assert derived_rows(512, 64, 4) == 16
    assert ordinary_index_map("ZN", 4, 16, 64)[0, 63] == 1008


@pytest.mark.parametrize("layout", ["RowMajor", "ColumnMajor", "ZN", "NZ"])
@pytest.mark.parametrize("bits,rows,cols", [(8, 32, 64), (4, 32, 128), (16, 48, 32), (32, 16, 16),
                                            (64, 32, 8)])
def test_ordinary_maps_are_permutations_and_match_formula(layout, bits, rows, cols):
    index = ordinary_index_map(layout, bits, rows, cols)
    assert sorted(index.ravel().tolist()) == list(range(rows * cols))
    inner = 256 // bits
    for r in range(0, rows, 7):
        for c in range(0, cols, 5):
            if layout == "RowMajor":
                expected = r * cols + c
            elif layout == "ColumnMajor":
                expected = c * rows + r
            elif layout == "ZN":
                expected = ((r // 16) * (cols // inner) + c // inner) * 16 * inner + (c % inner) * 16 + r % 16
            else:
                expected = ((c // inner) * (rows // 16) + r // 16) * 16 * inner + (r % 16) * inner + c % inner
            assert index[r, c] == expected


# Cell geometry (rows x cols) per layout and element width: digest §3.3 table.
CELLS = {
    ("CUBE_M16", 32): (16, 2), ("CUBE_M16", 16): (16, 4), ("CUBE_M16", 8): (16, 8), ("CUBE_M16", 4): (16, 16),
    ("CUBE_M32", 32): (32, 1), ("CUBE_M32", 16): (32, 2), ("CUBE_M32", 8): (32, 4), ("CUBE_M32", 4): (32, 8),
    ("CUBE_N8", 32): (4, 8), ("CUBE_N8", 16): (8, 8), ("CUBE_N8", 8): (16, 8), ("CUBE_N8", 4): (32, 8),
}


@pytest.mark.parametrize("key", sorted(CELLS))
def test_cube_cell_geometry(key):
    assert cube_cell_shape(*key) == CELLS[key]


def test_cube_unsupported_types():
    assert cube_cell_shape("CUBE_M16", 64) == (0, 0)
    assert cube_geometry("CUBE_M16", dtypes.dtype("HiF4X2"), 1, 1) is None
    assert cube_geometry("CUBE_M16", dtypes.dtype("FP64"), 1, 1) is None
    assert cube_geometry("CUBE_M16", dtypes.dtype("FP16"), 17, 1) is None  # M over the cell rows


def test_cube_geometry_shapes():
    fp16 = dtypes.dtype("FP16")
    # M16 FP16, valid 1x1: one 16x4 cell, 128 bytes (the TGEMV-MX-ACC-EXEC-001 operands)
    g = cube_geometry("CUBE_M16", fp16, 1, 1)
    assert (g.rows, g.cols, g.k_repeat, g.n_repeat, g.required_bytes) == (16, 4, 1, 1, 128)
    # N8 FP16, K=20 x N=9: rows round up to 24 (cell rows 8), cols to 16
    g = cube_geometry("CUBE_N8", fp16, 20, 9)
    assert (g.rows, g.cols, g.k_repeat, g.n_repeat, g.cells) == (24, 16, 3, 2, 6)
    assert g.required_bytes == 6 * 128


def test_cube_n8_is_column_major_inside_cells():
    fp16 = dtypes.dtype("FP16")
    g = cube_geometry("CUBE_N8", fp16, 16, 16)
    index = cube_index_map("CUBE_N8", 16, g.rows, g.cols)
    assert index[1, 0] == 1 and index[0, 1] == 8  # inside a cell: column-major, 8 rows
    assert index[8, 0] == 64  # next K cell
    assert index[0, 8] == g.k_repeat * 64  # next N cell after all K cells
    assert sorted(index.ravel().tolist()) == list(range(g.rows * g.cols))


def test_cube_m16_four_bit_column_swap():
    e2m1 = dtypes.dtype("E2M1X2")
    g = cube_geometry("CUBE_M16", e2m1, 16, 16)
    index = cube_index_map("CUBE_M16", 4, g.rows, g.cols)
    # inner columns 4..7 map to 8..11 and 8..11 to 4..7 (cube-cell.asl)
    assert [index[0, c] for c in range(16)] == [0, 1, 2, 3, 8, 9, 10, 11, 4, 5, 6, 7, 12, 13, 14, 15]
    assert index[1, 0] == 16
    assert sorted(index.ravel().tolist()) == list(range(256))
    # no swap for other widths or M32
    m32 = cube_index_map("CUBE_M32", 4, 32, 8)
    assert [m32[0, c] for c in range(8)] == list(range(8))


# digest §3.5 / TilePadValueForDataType
MAX = {"FP64": 0x7FEFFFFFFFFFFFFF, "FP32": 0x7F7FFFFF, "TF32": 0x7F7FE000, "HF32": 0x7F7FF000,
       "FP16": 0x7BFF, "BF16": 0x7F7F, "E4M3": 0x7E, "E5M2": 0x7B, "U8": 0xFF, "U16": 0xFFFF,
       "U32": 0xFFFFFFFF, "U64": 2**64 - 1, "S8": 0x7F, "S16": 0x7FFF, "S32": 0x7FFFFFFF,
       "S64": 0x7FFFFFFFFFFFFFFF}
MIN = {"FP64": 0xFFEFFFFFFFFFFFFF, "FP32": 0xFF7FFFFF, "TF32": 0xFF7FE000, "HF32": 0xFF7FF000,
       "FP16": 0xFBFF, "BF16": 0xFF7F, "E4M3": 0xFE, "E5M2": 0xFB, "U8": 0, "U16": 0, "U32": 0,
       "U64": 0, "U4X2": 0, "S8": 0x80, "S16": 0x8000, "S32": 0x80000000, "S64": 0x8000000000000000}


@pytest.mark.parametrize("name", dtypes.NAMES)
def test_pad_values(name):
    t = dtypes.dtype(name)
    assert pad_word("Zero", t) == 0
    assert pad_word("Null", t) == 0
    assert pad_word("Max", t) == MAX.get(name, 2**64 - 1)  # "otherwise": all ones
    assert pad_word("Min", t) == MIN.get(name, 0x8000000000000000)  # "otherwise"
