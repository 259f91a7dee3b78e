"""What a case's program runs is the vector's to get right, and the loader checks it before any
device runs: a direct call names a catalog operation and exactly the arguments it takes, and
every operation the program runs (its BSTART forms, in assembly or as words, and its direct
calls) is the file's operation or one it declares in ``also_exercises``. Before, a malformed
direct call was a golden device error, and a TCVT or TCMP bundle in a file labelled TADD passed
and was counted as TADD in markers, Allure and ADR coverage."""
from __future__ import annotations

import pytest

from pto_avs.contract import loader
from pto_avs.device_model.encoding import assemble

TCVT_WORDS = [ins.word for ins in assemble("BSTART.VEC TCVT, U8; B.DIM LB0=2; B.IOT T1, mask=1111, <last>, ->T<2>; "
                                           "BSTOP")]
TILES = ("      tiles:\n"
         "        - {index: 0, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], data: [[7]]}\n"
         "        - {index: 1, dtype: U8, capacity: 128, cols: 8, valid: [1, 1], data: [[2]]}\n")


def tadd_file(tmp_path, program: str, header_extra: str = "") -> loader.VectorFile:
    path = tmp_path / "PTO-AVS-X-RUNNER-PROGRAM-001.yaml"
    path.write_text("format: pto-avs-vector/1\nid: PTO-AVS-X-RUNNER-PROGRAM-001\noperation: TADD\n"
                    f"kind: execution\nexercises: [ADR-0081]\n{header_extra}provenance: program tests\ncases:\n"
                    "  - name: the-case\n    source: hand\n    reference: r\n    state:\n" + TILES +
                    f"    program: {program}\n    expect: {{}}\n")
    return loader.load_file(path, cache=None)


def problem(loaded: loader.VectorFile) -> str:
    if loaded.error is not None:
        return loaded.error.message.split(": ", 1)[1]
    [entry] = loaded.entries
    assert isinstance(entry, loader.VectorError), "the case loaded"
    return entry.message.split("case 'the-case': ", 1)[1]


@pytest.mark.parametrize("call, message", [
    ("{call: TADD, dst: 2, src: 0}", "program[0]: src1: missing (direct TADD needs src1; it takes dst, src, src1, pad)"),
    ("{call: TFOO, dst: 2, src: 0}", "program[0]: call: TFOO is not a tile operation of the spec catalog"),
    ("{call: TADD, dst: 2, src: 0, src1: 1, scalar: 3}",
     "program[0]: scalar: direct TADD takes no argument 'scalar' (it takes dst, src, src1, pad)"),
])
def test_a_malformed_direct_call_is_the_vectors_error(tmp_path, call, message):
    assert problem(tadd_file(tmp_path, f"[{call}]")) == message


def test_a_missing_third_source_is_named(tmp_path):
    loaded = tadd_file(tmp_path, "[{call: TFMA, dst: 2, src: 0, src1: 1}]", "also_exercises: [TFMA]\n")
    assert problem(loaded) == "program[0]: src2: missing (direct TFMA needs src2; it takes dst, src, src1, src2, pad)"


def test_a_well_formed_direct_call_of_the_files_operation_loads(tmp_path):
    loaded = tadd_file(tmp_path, "[{call: TADD, dst: 2, src: 0, src1: 1}]")
    assert [case.program for case in loaded.cases] == [({"call": "TADD", "dst": 2, "src": 0, "src1": 1},)]


@pytest.mark.parametrize("program, other", [
    ('["BSTART.VEC TCVT, U8; B.DIM LB0=1; B.IOT T0, mask=1111, <last>, ->T<2>; BSTOP"]', "TCVT"),
    ('["BSTART.VEC TCMP, U8; B.DIM LB0=1; B.IOT T0, T1, mask=1111, <last>, ->T<2>; BSTOP"]', "TCMP"),
    (str(TCVT_WORDS), "TCVT"),  # the same BSTART as a raw word
    ("[{call: TMULS, dst: 2, src: 0, scalar: 3}]", "TMULS"),
])
def test_a_program_running_another_operation_is_the_vectors_error(tmp_path, program, other):
    message = problem(tadd_file(tmp_path, program))
    assert message.startswith(f"program: runs {other}, but the file's operation is TADD; list {other} in "
                              "also_exercises") or message.startswith(f"program[0]: runs {other}, but the file's "
                                                                      f"operation is TADD; list {other}")


def test_a_declared_other_operation_loads(tmp_path):
    loaded = tadd_file(tmp_path, str(TCVT_WORDS), "also_exercises: [TCVT]\n")
    assert loaded.error is None and len(loaded.cases) == 1 and loaded.operation == "TADD"


@pytest.mark.parametrize("declared, message", [
    ("[TFOO]", "also_exercises[0]: TFOO is not a tile operation of the spec catalog"),
    ("[TADD]", "also_exercises[0]: TADD is the file's own operation"),
    ("[]", "also_exercises: expected a non-empty list of distinct operation mnemonics"),
])
def test_a_bad_declaration_is_the_files_error(tmp_path, declared, message):
    loaded = tadd_file(tmp_path, "[{call: TADD, dst: 2, src: 0, src1: 1}]", f"also_exercises: {declared}\n")
    assert loaded.error is not None and problem(loaded).startswith(message)


def test_an_illegal_word_still_loads_as_a_decode_fault_test(tmp_path):
    loaded = tadd_file(tmp_path, "[0xFFFFFFFF]")
    assert loaded.error is None and len(loaded.cases) == 1
