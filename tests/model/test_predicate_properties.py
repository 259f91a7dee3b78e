"""Property tests of TCMP, TCMPS, TSEL, TSELS (hypothesis).

- The comparison against a peer: numpy/ml_dtypes compare the decoded values of FP64,
  FP32, FP16 and BF16 elements exactly (NaN unordered, +0 == -0, as the hardware
  profile's ``comparisons`` section states) and Python compares the integers; the
  model's bits equal the peer's for every mode and element.
- Random bundles and direct calls over numeric and predicate tiles, in both
  profiles: never a Python exception; a fault leaves the machine as it was; a
  completed bundle adds one tile and changes no other (atomic publication, source
  persistence); flags only accumulate.
"""
import ml_dtypes
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from pto_avs.device_model import dtypes
from pto_avs.device_model.encoding.names import CMODE_NAMES
from pto_avs.device_model.machine import Machine
from pto_avs.device_model.ops.predicate import compare
from model_support import check_direct_step, check_run

pytestmark = pytest.mark.slow  # hypothesis property tests: thousands of random bundles and direct calls

PROFILES = st.sampled_from(["pto-v0", "hw-ieee"])
SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
FLOATS = {"FP64": (np.uint64, np.float64), "FP32": (np.uint32, np.float32), "FP16": (np.uint16, np.float16),
          "BF16": (np.uint16, ml_dtypes.bfloat16)}
INTEGERS = ("S64", "S32", "S16", "S8", "U64", "U32", "U16", "U8")
PEER = {"EQ": np.equal, "NE": np.not_equal, "LT": np.less, "GT": np.greater, "LE": np.less_equal,
        "GE": np.greater_equal}


@SETTINGS
@given(PROFILES, st.sampled_from(sorted(FLOATS)), st.sampled_from(range(6)), st.data())
def test_floating_compare_equals_the_numpy_peer(profile, type_name, cmode, data):
    carrier, value_type = FLOATS[type_name]
    bits = dtypes.dtype(type_name).bits
    specials = {"FP64": [0x7FF0000000000000, 0x7FF8000000000000, 0x7FF0000000000001],
                "FP32": [0x7F800000, 0x7FC00000, 0x7F800001], "FP16": [0x7C00, 0x7E00, 0x7C01],
                "BF16": [0x7F80, 0x7FC0, 0x7F81]}[type_name]
    sign = 1 << (bits - 1)
    word = st.one_of(st.integers(0, (1 << bits) - 1),
                     st.sampled_from([0, sign, 1, sign | 1] + specials + [s | sign for s in specials]))
    left = np.array(data.draw(st.lists(word, min_size=1, max_size=16)), dtype=np.uint64)
    right = np.array(data.draw(st.lists(word, min_size=len(left), max_size=len(left))), dtype=np.uint64)
    got, flags = compare(dtypes.dtype(type_name), profile, cmode, left, right)
    values = [w.astype(carrier).view(value_type) for w in (left, right)]
    with np.errstate(invalid="ignore"):
        peer = PEER[CMODE_NAMES[cmode]](values[0].astype(np.float64), values[1].astype(np.float64))
    assert np.array_equal(got, peer)


def _quiet_bit(type_name):
    return {"FP64": 51, "FP32": 22, "FP16": 9, "BF16": 6}[type_name]


@SETTINGS
@given(st.sampled_from(sorted(FLOATS)), st.data())
def test_a_signaling_nan_operand_and_only_that_reports_invalid(type_name, data):
    bits = dtypes.dtype(type_name).bits
    carrier, value_type = FLOATS[type_name]
    left = np.array(data.draw(st.lists(st.integers(0, (1 << bits) - 1), min_size=1, max_size=16)), dtype=np.uint64)
    right = left[::-1].copy()
    _, flags = compare(dtypes.dtype(type_name), "pto-v0", 0, left, right)
    quiet = np.uint64(1 << _quiet_bit(type_name))

    def signaling(words):
        with np.errstate(invalid="ignore"):  # casting a signaling NaN to float64 raises numpy's invalid flag
            values = words.astype(carrier).view(value_type).astype(np.float64)
        return np.isnan(values) & ((words & quiet) == 0)

    assert np.array_equal(flags == 1, signaling(left) | signaling(right))


@SETTINGS
@given(st.sampled_from(INTEGERS), st.sampled_from(range(6)), st.data())
def test_integer_compare_equals_python(type_name, cmode, data):
    t = dtypes.dtype(type_name)
    left = data.draw(st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=16))
    right = data.draw(st.lists(st.integers(0, 2**64 - 1), min_size=len(left), max_size=len(left)))

    def value(word):
        low = word & ((1 << t.bits) - 1)
        return low - (1 << t.bits) if t.signed and low >> (t.bits - 1) else low

    got, flags = compare(t, "pto-v0", cmode, np.array(left, dtype=np.uint64), np.array(right, dtype=np.uint64))
    ops = {"EQ": int.__eq__, "NE": int.__ne__, "LT": int.__lt__, "GT": int.__gt__, "LE": int.__le__,
           "GE": int.__ge__}[CMODE_NAMES[cmode]]
    assert got.tolist() == [ops(value(a), value(b)) for a, b in zip(left, right)]
    assert not flags.any()


# --- machine-level invariants --------------------------------------------------

TYPES = ["FP32", "U8", "S16", "FP16", "FP64", "S32", "U4X2", "HiF8"]


@st.composite
def machine_with_tiles(draw, profile):
    m = Machine(profile)
    type_name = draw(st.sampled_from(TYPES))
    t = dtypes.dtype(type_name)
    cols = draw(st.sampled_from([2, 4, 8]))
    rows = 128 * 8 // (cols * t.bits)
    valid = (draw(st.integers(1, 2)), draw(st.integers(1, cols)))
    for index in (0, 1):
        m.configure_tile(index, type_name, 128, cols=cols, valid=valid)
        words = np.array(draw(st.lists(st.integers(0, 2**64 - 1), min_size=valid[0] * valid[1],
                                       max_size=valid[0] * valid[1])), dtype=np.uint64).reshape(valid)
        defined = np.ones(valid, bool)
        defined[-1, -1] = draw(st.sampled_from([True] * 19 + [False]))
        m.write_tile(index, words, defined)
    p_rows = draw(st.sampled_from([rows] * 6 + [1, rows * 2]))
    p_valid = draw(st.sampled_from([valid] * 6 + [(1, 1)]))
    if p_rows * cols <= 16384 and (p_rows * cols + 7) // 8 <= 128 and p_valid[0] <= p_rows:
        m.configure_predicate_tile(5, 128, p_rows, cols, valid=p_valid)
        bits = np.array(draw(st.lists(st.integers(0, 1), min_size=p_valid[0] * p_valid[1],
                                      max_size=p_valid[0] * p_valid[1])), dtype=np.uint64).reshape(p_valid)
        m.write_tile(5, bits, np.ones(p_valid, bool) if draw(st.sampled_from([True] * 9 + [False]))
                     else np.zeros(p_valid, bool))
    m.set_gpr(3, draw(st.integers(0, 2**64 - 1)))
    return m, type_name, valid, cols


@SETTINGS
@given(PROFILES, st.data())
def test_random_bundles(profile, data):
    m, type_name, valid, cols = data.draw(machine_with_tiles(profile))
    name = data.draw(st.sampled_from(["TCMP", "TCMPS", "TSEL", "TSELS"]))
    bstart = data.draw(st.sampled_from([type_name] * 8 + ["U8", "FP32"]))
    mask = data.draw(st.sampled_from(["1111"] * 12 + ["0000", "0001"]))
    size = data.draw(st.sampled_from([1] * 6 + [2, 5]))
    hand = data.draw(st.sampled_from("TTUN"))
    bindings = {
        "TCMP": [f"B.IOT T0, T{data.draw(st.sampled_from([1] * 6 + [5]))}, mask={mask}, <last>, ->{hand}<{size}>"],
        "TCMPS": [f"B.IOT T{data.draw(st.sampled_from([0] * 6 + [5]))}, mask={mask}, <last>, ->{hand}<{size}>"],
        "TSEL": [f"B.IOT T{data.draw(st.sampled_from([5] * 6 + [0]))}, T0, mask=1111",
                 f"B.IOT T1, mask={mask}, <last>, ->{hand}<{size}>"],
        "TSELS": [f"B.IOT T{data.draw(st.sampled_from([5] * 6 + [1]))}, T0, mask={mask}, <last>, ->{hand}<{size}>"],
    }[name]
    datr = data.draw(st.sampled_from([[]] * 6 + [["B.DATR Max"], ["B.DATR Pad=Min, CMode=LE"], ["B.DATR RTZ"]]))
    ior = data.draw(st.sampled_from([[]] * 4 + [["B.IOR R3"]] * 3 + [["B.IOR R3, R3"]]))
    dims = [f"B.DIM LB0={data.draw(st.sampled_from([valid[1]] * 8 + [valid[1] + 1]))}"]
    if valid[0] != 1 or data.draw(st.booleans()):
        dims.append(f"B.DIM LB1={valid[0]}")
    if data.draw(st.integers(0, 3)):
        dims.append(f"B.DIM LB2={data.draw(st.sampled_from([cols, cols, cols * 2]))}")
    program = [f"BSTART.TEPL {name}, {bstart}"] + datr + dims + bindings + ior + ["BSTOP"]
    before = m.snapshot()
    check_run(m, before, m.run(program), new_tiles_allowed=1)


@SETTINGS
@given(PROFILES, st.data(), st.lists(st.fixed_dictionaries(
    {"call": st.sampled_from(["TCMP", "TCMPS", "TSEL", "TSELS"]), "dst": st.sampled_from([0, 1, 5, 6])},
    optional={"src": st.sampled_from([0, 1, 5, 7]), "src1": st.sampled_from([0, 1, 5]),
              "src2": st.sampled_from([0, 1, 5]), "scalar": st.integers(0, 2**64 - 1),
              "cmode": st.sampled_from(CMODE_NAMES), "pad": st.sampled_from(["Zero", "Max", "Min", "Null"])}),
    min_size=1, max_size=4))
def test_direct_calls_never_raise(profile, data, calls):
    m, *_ = data.draw(machine_with_tiles(profile))
    keys = {"TCMP": {"dst", "src", "src1", "cmode", "pad"}, "TCMPS": {"dst", "src", "scalar", "cmode", "pad"},
            "TSEL": {"dst", "src", "src1", "src2", "pad"}, "TSELS": {"dst", "src", "src1", "scalar", "pad"}}
    for call in calls:
        item = {k: v for k, v in call.items() if k == "call" or k in keys[call["call"]]}
        for required in ("src", "src1", "src2"):
            if required in keys[call["call"]]:
                item.setdefault(required, 0)
        check_direct_step(m, item)
