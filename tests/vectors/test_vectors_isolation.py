"""Flag isolation in the shipped generated vectors: every value class stands alone somewhere.

NumericStatus is the sticky OR over a tile, so a flag one value class forgets or wrongly
raises hides behind another class in a mixed tile. For every configuration of the
generated files (TCVT pair + RMode + Sat + Canonicalize, TQUANT type + RMode + Sat +
multiplier + zero point, floating TMULS type + scalar, TGEMV_MX_ACC post-processing modes
+ parameters + RMode + Sat) this reads each case's elements from the vector itself,
classifies each element with the independent reference (vectors/reference/value_classes.py:
class and flags from numeric.py / postprocess.py, not from any expectation in the file),
and requires: when the configuration raises a flag and mixes isolation keys, every
(class, flags) of its elements is the only key of some shipped case of that configuration
that holds an element of the class (flag-free elements share one key). It prints the
isolation table (run with -s to see it).
"""
from __future__ import annotations

import re
from collections import defaultdict

import pytest
import yaml

from pto_avs.contract.loader import VECTORS_DIR
from pto_avs.vectors.reference import generate_numeric as gen
from pto_avs.vectors.reference import generate_postprocess as gen_pp
from pto_avs.vectors.reference import numeric as ref
from pto_avs.vectors.reference import postprocess as pp
from pto_avs.vectors.reference import value_classes as classes

# The classes issue 13 names (NaN, sNaN, +-Inf, +-0, negative into unsigned, subnormal
# results, exact, inexact, overflow, tie) and the others the generated vectors hold.
REQUIRED = ("qnan", "snan", "pos-inf", "neg-inf", "pos-zero", "neg-zero", "negative-to-unsigned",
            "small-negative-to-unsigned", "subnormal", "underflow-to-zero", "exact", "inexact",
            "overflow", "tie", "relu-zeroed", "inf-times-zero")
OPERATIONS = ("TCVT", "TQUANT", "TMULS", "POSTPROCESS")
Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _datr(program: str) -> list[str]:
    match = re.search(r"^B\.DATR (.*)$", program, re.M)
    return [f.strip() for f in match.group(1).split(",")] if match else []


def _element_bits(dtype: str, word: int) -> int:
    return word & ((1 << ref.fmt(dtype).width) - 1)


def _signed_low_byte(word: int, dtype: str) -> int:
    low = word & 0xFF
    return low - 256 if dtype == "S8" and low >= 128 else low


def tcvt(case):
    src_tile, dst = case["state"]["tiles"][0], case["expect"]["tiles"][0]["dtype"]
    src = src_tile["dtype"]
    fields = _datr(case["program"])
    mode, sat, canon = fields[1], fields[2] == "Sat=1", "Canon=1" in fields
    codes = [_element_bits(src, w) for row in src_tile["data"] for w in row]
    return (src, dst, mode, sat, canon), [
        (classes.tcvt_class(src, dst, c, mode, sat, canon), ref.convert(src, dst, c, mode, sat, canon)[1])
        for c in codes]


def tquant(case):
    dst, mode, sat = _datr(case["program"])
    sat = sat == "Sat=1"
    gprs = case["state"].get("gprs", {})
    m_bits, zp = gprs.get(5, 0x3F800000), _signed_low_byte(gprs.get(6, 0), dst)
    codes = case["state"]["tiles"][0]["data"][0]
    return (dst, mode, sat, m_bits, zp), [
        (classes.tquant_class(c, m_bits, zp, dst, mode), ref.quantize(c, m_bits, zp, dst, mode, sat)[1])
        for c in codes]


def tmuls(case):
    tile = case["state"]["tiles"][0]
    dtype = tile["dtype"]
    if ref.fmt(dtype).is_int:
        return None  # integer TMULS raises no flag
    scalar = _element_bits(dtype, case["state"]["gprs"][5])
    codes = [_element_bits(dtype, w) for row in tile["data"] for w in row]
    return (dtype, scalar), [(classes.tmuls_class(dtype, c, scalar), ref.multiply(dtype, c, scalar)[1])
                             for c in codes]


def postprocess(case):
    if "PreQuantMode=" not in case["program"]:
        return None  # the accumulation vectors (PTO-AVS-X-TGEMV-MX-ACC-HW-001)
    columns = gen_pp.read_case(case)
    first = columns[0][1]
    config = (first.mode, first.relu, first.rmode, first.sat,
              tuple(sorted(case["state"].get("gprs", {}).items())))
    out = []
    for c, column in columns:
        steps = pp.transform(c, column)
        out.append((classes.postprocess_class(steps, column), steps.flags))
    return config, out


READERS = {"TCVT": ("TCVT", tcvt), "TQUANT": ("TQUANT", tquant), "TMULS": ("TMULS", tmuls),
           "TGEMV_MX_ACC": ("POSTPROCESS", postprocess)}


@pytest.fixture(scope="module")
def configurations():
    """{(operation, configuration): [set of (class, key) per case]} of every unsticky case."""
    out = defaultdict(list)
    for path in gen.generated_paths(VECTORS_DIR):
        doc = yaml.load(path.read_text(), Loader=Loader)
        operation, read = READERS[doc["operation"]]
        for case in doc["cases"]:
            if case["state"].get("status"):
                continue  # a sticky status before the bundle masks flags by design
            found = read(case)
            if found is None:
                continue
            config, elements = found
            out[(operation, config)].append(
                {(cls, classes.isolation_key(cls, flags)) for cls, flags in elements})
    return out


def isolation_table(configurations) -> tuple[dict, list]:
    """{class: {operation: [isolated, needed]}} and the (operation, config, class, key) left
    without an isolating case."""
    table = defaultdict(lambda: {op: [0, 0] for op in OPERATIONS})
    missing = []
    for (operation, config), cases in configurations.items():
        present = set().union(*cases)
        keys = {key for _, key in present}
        if len(keys) < 2 or keys == {classes.NOFLAG}:
            continue
        for cls, key in sorted(present):
            isolated = any({k for _, k in case} == {key} and (cls, key) in case for case in cases)
            table[cls][operation][1] += 1
            table[cls][operation][0] += isolated
            if not isolated:
                missing.append((operation, config, cls, classes.key_label(key)))
    return table, missing


def test_every_value_class_is_isolated_in_every_configuration(configurations):
    table, missing = isolation_table(configurations)
    lines = [f"{'class':28s}" + "".join(f"{op:>14s}" for op in OPERATIONS)]
    for cls in sorted(table):
        lines.append(f"{cls:28s}" + "".join(
            f"{'%d/%d' % tuple(table[cls][op]) if table[cls][op][1] else '-':>14s}" for op in OPERATIONS))
    print("\nisolated/needed: configurations whose mixed tile holds the class, and how many of them "
          "also have a case that holds that class (with its flags) alone\n" + "\n".join(lines))
    assert not missing, f"{len(missing)} (configuration, class) pairs are never isolated, e.g. {missing[:5]}"
    assert set(REQUIRED) <= set(table), sorted(set(REQUIRED) - set(table))


def test_a_mixed_tile_hides_what_isolation_shows(configurations):
    """The rule can fail: the mixed TCVT FP32 -> S32 NONE tile holds NaN (NV) together with
    out-of-range values (NV), and only an isolating case shows NaN's NV on its own."""
    cases = configurations[("TCVT", ("FP32", "S32", "NONE", False, False))]
    mixed = max(cases, key=len)
    assert ("qnan", ("qnan", ref.NV)) in mixed and ("overflow", ("overflow", ref.NV)) in mixed
    without = [case for case in cases if {k for _, k in case} != {("qnan", ref.NV)}]
    _, missing = isolation_table({("TCVT", "FP32->S32"): without})
    assert ("TCVT", "FP32->S32", "qnan", "qnan-nv") in missing


@pytest.mark.parametrize("src, dst, bits, mode, sat, expected", [
    ("FP32", "S32", 0x7FC00000, "NONE", False, "qnan"),
    ("FP32", "FP16", 0x7F800001, "RNE", False, "snan"),
    ("FP32", "U8", 0x80000000, "RNE", True, "neg-zero"),
    ("FP32", "U8", 0xBE800000, "RNE", True, "small-negative-to-unsigned"),  # -0.25 rounds to -0
    ("FP32", "U8", 0xBF400000, "RNE", True, "negative-to-unsigned"),  # -0.75 rounds to -1
    ("S16", "U8", 0xFFFF, "NONE", False, "negative-to-unsigned"),
    ("FP32", "FP16", 0x477FF000, "RNE", False, "overflow"),  # 65520 rounds past 65504
    ("FP32", "FP16", 0x33000000, "RNE", False, "underflow-to-zero"),  # 2^-25: a tie with 0
    ("FP32", "FP16", 0x33800000, "RNE", False, "subnormal"),  # 2^-24, exact
    ("FP32", "FP16", 0x3F801000, "RNE", False, "tie"),  # 1 + 2^-11
    ("FP32", "FP16", 0x3F800800, "RNE", False, "inexact"),  # 1 + 2^-12
    ("FP32", "S8", 0x40200000, "RNE", False, "tie"),  # 2.5
    ("FP16", "E8M0", 0xBC00, "RNE", False, "negative-to-e8m0"),
])
def test_value_classes_of_single_elements(src, dst, bits, mode, sat, expected):
    assert classes.tcvt_class(src, dst, bits, mode, sat) == expected


def test_isolation_sets_merge_flag_free_elements_and_keep_every_class():
    items = [("a", "exact", 0), ("b", "pos-zero", 0), ("c", "tie", ref.NX), ("d", "inexact", ref.NX),
             ("e", "exact", 0)]
    sets = classes.isolation_sets(items, limit=2)
    assert sets == {classes.NOFLAG: ["a", "b"], ("tie", ref.NX): ["c"], ("inexact", ref.NX): ["d"]}
    assert classes.isolation_sets([("a", "exact", 0), ("b", "pos-zero", 0)], 64) == {}  # nothing raises
    assert classes.isolation_sets([("c", "tie", ref.NX), ("f", "tie", ref.NX)], 64) == {}  # one key
    assert classes.key_label(("overflow", ref.OF | ref.NX)) == "overflow-of-nx"


def _gemv_operands(case):
    """C, A, A scales, B, B scales and the two types of a PTO-AVS-X-TGEMV-MX-ACC-HW-001 case
    (tiles in the generator's order: C 1, A 2, then A's E8M0 scales if scaled, B, B's scales)."""
    tiles = {t["index"]: t for t in case["state"]["tiles"]}
    a_type = tiles[2]["dtype"]
    a_scaled = a_type not in ref.MX_UNSCALED
    b_index = 4 if a_scaled else 3
    b_type = tiles[b_index]["dtype"]
    sb = tiles[b_index + 1]["data"] if b_type not in ref.MX_UNSCALED else None
    return (tiles[1]["data"][0], tiles[2]["data"][0], a_type, tiles[3]["data"][0] if a_scaled else None,
            tiles[b_index]["data"], b_type, sb)


def test_accumulation_flags_of_every_column_are_seen_alone():
    """NumericStatus is one OR over the N columns: a column whose own flags differ from that OR
    has its own N=1 case with the same operands, so its flags cannot hide behind another's."""
    doc = yaml.safe_load((VECTORS_DIR / "PTO-AVS-X-TGEMV-MX-ACC-HW-001.yaml").read_text())
    by_operands = {}
    for case in doc["cases"]:
        c, a, a_type, sa, b, b_type, sb = _gemv_operands(case)
        if len(c) == 1:
            key = (a_type, b_type, c[0], tuple(a), tuple(r[0] for r in b), tuple(sa or ()),
                   tuple(r[0] for r in sb or ()))
            by_operands[key] = case["expect"]["flags"]
    needed = 0
    for case in doc["cases"]:
        c, a, a_type, sa, b, b_type, sb = _gemv_operands(case)
        for col in range(len(c) if len(c) > 1 else 0):
            b_col, sb_col = [[r[col]] for r in b], [[r[col]] for r in sb] if sb else None
            _, flags = ref.gemv_mx_acc([c[col]], a, b_col, a_type, b_type, sa, sb_col)
            if flags != case["expect"]["flags"]:
                needed += 1
                key = (a_type, b_type, c[col], tuple(a), tuple(r[0] for r in b_col), tuple(sa or ()),
                       tuple(r[0] for r in sb_col or ()))
                assert by_operands.get(key) == flags, f"{case['name']} column {col}: flags {flags:#x} not isolated"
    print(f"columns whose flags differ from their case's OR, each with its own case: {needed}")
    assert needed >= 1
