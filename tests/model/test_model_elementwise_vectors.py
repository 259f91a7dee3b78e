"""The elementwise vectors' independent reference and the golden model: the model's element
functions agree with the reference (vectors/reference/elementwise.py, written from the ASL,
sharing no code with the model) exhaustively over the 8-bit types. That the shipped files
are what the generator writes is tests/vectors/test_vectors_generated.py."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

from pto_avs.device_model import dtypes
from pto_avs.device_model.ops import installed, registry  # noqa: F401  (installed: the operations join)
from pto_avs.vectors.reference import elementwise as ref
from pto_avs.vectors.reference import generate_elementwise as generator


def _model(op: str, dtype: str, profile: str, *operands):
    entry = registry.find(op)
    words, flags = entry.element(dtypes.dtype(dtype), profile, *operands)
    return np.broadcast_to(np.asarray(words, dtype=np.uint64), np.shape(operands[0])), \
        np.broadcast_to(np.asarray(flags, dtype=np.uint8), np.shape(operands[0]))


def _check(op, dtype, profile, columns):
    arrays = [np.array(c, dtype=np.uint64) for c in columns]
    if ref.OPERATIONS[op][1] == "scalar":
        for scalar in sorted(set(columns[1])):
            select = arrays[1] == scalar
            words, flags = _model(op, dtype, profile, arrays[0][select], np.uint64(scalar))
            expected = [ref.evaluate(op, dtype, int(v), scalar) for v in arrays[0][select]]
            assert words.tolist() == [w for w, _ in expected], (op, dtype, scalar)
            assert flags.tolist() == [f for _, f in expected], (op, dtype, scalar)
        return
    words, flags = _model(op, dtype, profile, *arrays)
    expected = [ref.evaluate(op, dtype, *values) for values in zip(*columns)]
    assert words.tolist() == [w for w, _ in expected], (op, dtype)
    assert flags.tolist() == [f for _, f in expected], (op, dtype)


EIGHT_BIT = ("S8", "U8", "E4M3", "E5M2")


@pytest.mark.slow  # every pair of 8-bit encodings per operation
@pytest.mark.parametrize("op, dtype", [(op, t) for op in sorted(ref.OPERATIONS) for t in EIGHT_BIT
                                        if t in ref.LEGAL_TYPES[op] and ref.OPERATIONS[op][1] != "fill"])
def test_model_elements_equal_the_reference_exhaustively(op, dtype):
    """Every 8-bit encoding (every pair for two operands, every count 0..255 for shifts);
    both profiles compute the same elements (tile-tile min/max status aside, which the
    kind records per profile, not the element function)."""
    codes = range(256)
    if ref.OPERATIONS[op][1] == "unary":
        columns = [list(codes)]
    else:
        pairs = list(itertools.product(codes, codes))
        columns = [[a for a, _ in pairs], [b for _, b in pairs]]
    for profile in ("pto-v0", "hw-ieee"):
        _check(op, dtype, profile, columns)


@pytest.mark.parametrize("dtype", ["S16", "U32", "S64", "U64", "FP16", "BF16", "FP32", "TF32", "HF32", "FP64"])
def test_model_elements_equal_the_reference_on_boundary_values(dtype):
    classes = (generator.float_classes(dtype) if dtype in ref.FLOATS else {"all": generator.int_values(dtype)})
    values = sorted({v for codes in classes.values() for v in codes})
    pairs = list(itertools.product(values, values))
    for op in ref.OPERATIONS:
        if dtype not in ref.LEGAL_TYPES[op] or ref.OPERATIONS[op][1] == "fill":
            continue
        columns = [values] if ref.OPERATIONS[op][1] == "unary" else [[a for a, _ in pairs], [b for _, b in pairs]]
        if op in ("TSHL", "TSHR", "TSHLS", "TSHRS"):
            counts = generator.shift_counts(dtype)
            columns = [[v for v in values for _ in counts], [c for _ in values for c in counts]]
        _check(op, dtype, "pto-v0", columns)


def test_reference_holds_the_spec_test_points():
    """Values the spec's test points assert (tile-exec-*-001.asl of these operations)."""
    assert ref.evaluate("TAND", "U8", 240, 90) == (80, 0)
    assert ref.evaluate("TOR", "U8", 240, 15) == (255, 0)
    assert ref.evaluate("TXOR", "U8", 170, 15) == (165, 0)
    assert ref.evaluate("TSHL", "U8", 1, 10) == (4, 0)
    assert ref.evaluate("TSHR", "S8", 128, 1) == (192, 0) and ref.evaluate("TSHR", "U8", 128, 1) == (64, 0)
    assert ref.evaluate("TMAX", "S8", 0xFF, 1) == (1, 0) and ref.evaluate("TMIN", "S8", 0xFF, 1) == (2**64 - 1, 0)
    assert ref.evaluate("TMAX", "FP32", 0x7F800001, 0x3F800000) == (0x3F800000, 1)
    assert ref.evaluate("TMAX", "FP32", 0x7FC00001, 0x7FC00001) == (0x7FC00000, 0)
    assert ref.evaluate("TABS", "FP32", 0xFF800001) == (0x7F800001, 0)
    assert ref.evaluate("TRELU", "FP32", 0x7F800001) == (0x7FC00000, 1)
    assert ref.evaluate("TSHRS", "S8", 128, 9) == (192, 0) and ref.evaluate("TSHRS", "S8", 126, 9) == (63, 0)
    assert ref.evaluate("TEXPANDS", "U8", 0x1FF) == (0xFF, 0)
