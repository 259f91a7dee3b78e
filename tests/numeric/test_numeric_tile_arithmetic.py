"""Element values of the arithmetic Tile operations (device_model/numeric/tile_arithmetic.py)
against the spec's own interpreter.

tests/data/aslref-arith-elements.json records what the executable ASL (reference
profile, pto-v0) computes for 3112 element cases of TileProfileBinaryWithFlags,
TileFixedFusedMultiplyAddValue and the SFU unary path; it was written by
``python -m pto_avs.vectors.reference.aslref_arith_probe`` running aslref on the
spec at e599a3d3. The parts of those paths that are architectural (integer
arithmetic, the SFU special values, the TFMA invalid classification) must hold
under hw-ieee as well.
"""
from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from pto_avs.device_model.numeric import tile_arithmetic as ea
from pto_avs.device_model.numeric import ieee_float

RECORD = json.loads((Path(__file__).resolve().parents[1] / "data" / "aslref-arith-elements.json").read_text())
CASES = RECORD["cases"]


def evaluate(case, profile):
    inputs = [np.array([v], dtype=np.uint64) for v in case["inputs"]]
    if case["kind"] == "binary":
        words, flags = ea.binary(case["op"], *inputs, case["type"], profile)
    elif case["kind"] == "fma":
        words, flags = ea.fma(*inputs, case["type"], profile)
    else:
        words, flags = ea.unary(case["op"], *inputs, case["type"], profile)
    return int(words[0]), int(flags[0])


def _label(c):
    return f"{c['kind']} {c.get('op', '')} {c['type']} {[hex(v) for v in c['inputs']]}"


def test_record_covers_every_operation_and_type():
    kinds = {(c["kind"], c.get("op"), c["type"]) for c in CASES}
    for t in ("S8", "S16", "S32", "S64", "U8", "U16", "U32", "U64") + ieee_float.FLOAT_TYPES:
        for op in ea.BINARY:
            assert ("binary", op, t) in kinds
        assert ("fma", None, t) in kinds
    for t in ieee_float.FLOAT_TYPES:
        for op in ea.UNARY:
            assert ("unary", op, t) in kinds


def test_pto_v0_matches_the_spec_interpreter():
    bad = [(_label(c), evaluate(c, "pto-v0"), (c["result"], c["flags"])) for c in CASES
           if evaluate(c, "pto-v0") != (c["result"], c["flags"])]
    assert not bad, f"{len(bad)}/{len(CASES)} differ (case, model, aslref): {bad[:5]}"


def _architectural(case):
    """Cases whose result the ASL fixes outside the profile hooks."""
    if case["type"][0] in "SU":
        return True
    if case["kind"] == "unary":  # handled by TileSFUUnarySpecialValue
        handled, _, _ = ea.sfu_special(case["op"], np.array(case["inputs"], dtype=np.uint64),
                                       ea._dtype(case["type"]))
        return bool(handled[0])
    if case["kind"] == "fma":  # the invalid classification returns the canonical NaN with NV
        return case["flags"] == 1
    return False


def test_architectural_paths_hold_under_hw_ieee():
    chosen = [c for c in CASES if _architectural(c)]
    assert len(chosen) > 1200
    bad = [(_label(c), evaluate(c, "hw-ieee"), (c["result"], c["flags"])) for c in chosen
           if evaluate(c, "hw-ieee") != (c["result"], c["flags"])]
    assert not bad, f"{len(bad)}/{len(chosen)} differ (case, model, aslref): {bad[:5]}"


@pytest.mark.parametrize("op", ("ADD", "SUB", "MUL", "DIV", "REM"))
def test_hw_ieee_floating_binary_is_the_ieee_core(op):
    a = np.array([0x3F800000, 0x40400000, 0xBFC00000], dtype=np.uint64)
    b = np.array([0x40400000, 0x80000000, 0x3F800000], dtype=np.uint64)
    assert [x.tolist() for x in ea.binary(op, a, b, "FP32", "hw-ieee")] == \
        [x.tolist() for x in ieee_float.BINARY[op](a, b, "FP32")]


def test_pto_v0_quirks_from_the_asl():
    """Hand-derived from the ASL (and in the record): an FP16 -0 divisor is not zero to
    ScalarFPCarrierIsZero (it tests non-FP32 words as FP64); S8 -128 / -1 is the
    unnormalized word 128; signed REM takes the divisor's sign; integer FMA is
    zero-extended at the width for signed types too."""
    w = lambda *v: np.array(v, dtype=np.uint64)  # noqa: E731
    assert ea.binary("DIV", w(0x3C00), w(0x8000), "FP16")[0].tolist() == [0]
    words, flags = ea.binary("DIV", w(0x3C00), w(0), "FP16")
    assert (words.tolist(), flags.tolist()) == ([0xFFFFFFFFFFFFFFFF], [2])
    assert ea.binary("DIV", w(0x80), w(0xFF), "S8")[0].tolist() == [128]
    assert ea.binary("REM", w(0xF9), w(3), "S8")[0].tolist() == [2]  # -7 mod 3
    assert ea.binary("REM", w(7), w(0xFD), "S8")[0].tolist() == [(1 << 64) - 2]  # 7 mod -3 = -2
    assert ea.fma(w(0xFF), w(0xFF), w(0), "S8")[0].tolist() == [1]  # (-1)(-1)+0 at 8 bits
    assert ea.fma(w(0xFF), w(1), w(0), "S8")[0].tolist() == [0xFF]  # -1, zero-extended


SQRT_MODES = ("RNE", "RTZ", "RTP", "RTM", "RNA", "RTO", "RHB")


def _sqrt_special_inputs(t):
    """Every encoding of an 8- or 16-bit type; for FP32 every class the special pass
    handles: zeros, infinities, NaN payloads (quiet and signalling, both signs), and
    negative normals and subnormals, beside random encodings."""
    if t.bits <= 16:
        return np.arange(1 << t.bits, dtype=np.uint64)
    rng = np.random.default_rng(27)
    payload = rng.integers(1, 1 << 22, 4096, dtype=np.uint64)
    nans = np.concatenate([0x7F800000 | payload, 0x7FC00000 | payload, 0xFF800000 | payload, 0xFFC00000 | payload])
    negative = 0x80000000 | rng.integers(1, 0x7F800000, 1 << 14, dtype=np.uint64)
    fixed = np.array([0, 0x80000000, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7F800001, 0x80000001, 0x807FFFFF,
                      0xFF7FFFFF], dtype=np.uint64)
    return np.concatenate([fixed, nans, negative, rng.integers(0, 1 << 32, 1 << 14, dtype=np.uint64)])


@pytest.mark.parametrize("name", sorted(ea.SQRT_SETTLES_SPECIALS))
def test_ieee_sqrt_gives_the_sfu_special_values_itself(name):
    """Where hw-ieee SQRT skips TileSFUUnarySpecialValue, the IEEE kernel (exact and fast)
    answers every lane the special pass handles as the special pass does, in every mode."""
    from pto_avs.device_model.dtypes import dtype

    t = dtype(name)
    carrier = _sqrt_special_inputs(t)
    handled, words, flags = ea.sfu_special("SQRT", carrier, t)
    assert handled.sum() > 100  # every special class is there
    bits = carrier.astype({8: np.uint8, 16: np.uint16, 32: np.uint32}[t.bits])
    for mode in SQRT_MODES:
        for kernel in (ieee_float.exact_sqrt, ieee_float.sqrt):
            got_words, got_flags = kernel(bits, t, mode)
            assert (got_words[handled] == words[handled]).all(), (name, mode, kernel.__name__)
            assert (got_flags[handled] == flags[handled]).all(), (name, mode, kernel.__name__)
