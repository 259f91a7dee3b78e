"""The independent rearrangement reference (vectors/reference/rearrange.py) against the spec's
own assertions and the ASL's operand rules, and its type tables against the catalog."""
import pytest

from pto_avs.vectors.reference import engine
from pto_avs.vectors.reference import rearrange as ref


def grid(t, rows, cols, valid, data=()):
    g = ref.blank(t, rows, cols, valid)
    for r, row in enumerate(data):
        for c, word in enumerate(row):
            g.write(r, c, word)
    return g


def test_fillpad_is_the_spec_scalar_point():
    """tile-exec-tfillpad-scalar-001: (0,0) = 1, (0,2) = (1,1) = 0xaa, (31,3) defined."""
    out = ref.fillpad(grid("U8", 32, 4, (2, 3)), grid("U8", 32, 4, (1, 2), [[1, 2]]), 0x1AA)
    assert out.words[0][0] == 1 and out.words[0][2] == 0xAA and out.words[1][1] == 0xAA
    assert out.defined[31][3] and all(all(row) for row in out.defined)


def test_extract_is_the_spec_window_point():
    src = grid("U8", 32, 4, (3, 4), [[r * 4 + c for c in range(4)] for r in range(3)])
    out = ref.extract(grid("U8", 32, 4, (2, 2)), src, 1, 1, None)
    assert out.valid_words() == [[5, 6], [9, 10]]
    assert not out.defined[2][0] and not out.defined[0][2]  # Null padding


def test_insert_keeps_the_old_destination():
    old = grid("U8", 32, 4, (2, 3), [[1, 1, 1], [1, 1, 1]])
    old.write(5, 0, 0x77)  # a defined padding Word of the old destination
    out = ref.insert(grid("U8", 32, 4, (2, 3)), old, grid("U8", 128, 1, (1, 1), [[9]]), 1, 1)
    assert out.valid_words() == [[1, 1, 1], [1, 9, 1]]
    assert out.words[5][0] == 0x77 and out.defined[5][0] and not out.defined[6][0]


def test_transpose_and_concat_are_the_spec_points():
    src = grid("U8", 32, 4, (2, 3), [[1, 2, 3], [4, 5, 6]])
    assert ref.transpose(grid("U8", 32, 4, (3, 2)), src).valid_words() == [[1, 4], [2, 5], [3, 6]]
    left, right = grid("U8", 32, 4, (2, 2), [[1, 2], [3, 4]]), grid("U8", 32, 4, (2, 1), [[5], [6]])
    assert ref.concat(grid("U8", 32, 4, (2, 3)), left, right).valid_words() == [[1, 2, 5], [3, 4, 6]]


def test_a_packed_destination_keeps_element_bits_and_a_word_carrier_the_whole_word():
    dirty = 0xFFFFFFFFFFFFFF80
    src = grid("S8", 16, 8, (1, 1), [[dirty]])
    assert ref.transpose(grid("S8", 16, 8, (1, 1)), src).words[0][0] == dirty
    assert ref.transpose(grid("S8", 256, 256, (1, 1)), src).words[0][0] == 0x80  # 65536 elements: packed


@pytest.mark.parametrize("call", [
    lambda: ref.extract(grid("U8", 32, 4, (2, 2)), grid("U8", 32, 4, (3, 4)), 2, 0, None),  # 2 + 2 > 3
    lambda: ref.extract(grid("U8", 32, 4, (2, 2)), grid("U8", 32, 4, (3, 4)), 0, 3, None),  # 3 + 2 > 4
    lambda: ref.insert(grid("U8", 32, 4, (2, 3)), grid("U8", 32, 4, (2, 2)), grid("U8", 32, 4, (1, 1)), 0, 0),
    lambda: ref.transpose(grid("U8", 32, 4, (2, 3)), grid("U8", 32, 4, (2, 3))),
    lambda: ref.concat(grid("U8", 32, 4, (2, 3)), grid("U8", 32, 4, (2, 1)), grid("U8", 32, 4, (2, 1))),
    lambda: ref.fillpad(grid("FP64", 4, 4, (1, 2)), grid("FP64", 4, 4, (1, 2)), 0),  # not carrier-only
    lambda: ref.fillpad(grid("U8", 16, 8, (1, 2)), grid("U8", 32, 4, (1, 2)), 0),  # fewer rows
    lambda: ref.transpose(grid("HiF4X2", 32, 8, (1, 1)), grid("HiF4X2", 32, 8, (1, 1))),  # not Move24
])
def test_each_operand_rule_refuses(call):
    with pytest.raises(ref.Illegal):
        call()


def test_an_undefined_source_is_refused_first():
    with pytest.raises(ref.Illegal, match="defined"):
        ref.transpose(grid("U8", 32, 4, (1, 1)), ref.blank("U8", 32, 4, (1, 1)))


def test_the_type_tables_follow_the_asl_sets():
    assert len(ref.MOVE24) == len(engine.DATA_TYPES) - 1 and "HiF4X2" not in ref.MOVE24
    assert set(ref.CARRIER_ONLY) == {t for t in engine.DATA_TYPES if engine.width(t) not in (4, 64)}
    assert {"FP64", "S64", "U64"} <= set(ref.FILL_CONTRACT_TYPES) - set(ref.CARRIER_ONLY)
    assert "HiF8" in set(ref.CARRIER_ONLY) - set(ref.FILL_CONTRACT_TYPES)


def test_the_patterns_are_distinct_valid_encodings():
    for t in ref.MOVE24:
        values = ref.patterns(t)
        assert len(values) == len(set(values)) >= 7
        assert all(v & ~ref.valid_encodings(t) == 0 for v in values), t
