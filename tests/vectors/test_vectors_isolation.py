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
from pto_avs.vectors.reference import engine
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
    for path in engine.owned_paths(VECTORS_DIR, gen.FAMILY, gen_pp.FAMILY):
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


# ---------------------------------------------------------------------------------------
# The condition matrix (issue 30): for every modelled operation, each condition class
# that a device can get wrong on its own has a shipped case that isolates it. Each cell is
# re-derived from the vectors themselves (programs, states, expectations), never from the
# generator that wrote them:
#
# - status: a fault-free case starting from a nonzero NumericStatus S whose twin (the same
#   program and state with status 0) expects flags F0 with S not inside F0, so a device
#   that overwrites the status with its own flags instead of ORing them fails;
# - blocks: a fault-free program of two or more blocks whose last block is the operation and
#   whose expected flags differ from the twin that runs that last block alone on the same
#   state, so a device whose last block overwrites the accumulated flags fails;
# - carrier: a fault-free case expecting whole carrier Words (`words`) of a destination
#   narrower than 64 bits where some element has its top bit set (its zero- and sign-
#   extension differ), so upper carrier bits a device sign-extends, zero-extends wrongly or
#   leaves as garbage show; carrier-pad: an expected padding Word (`padding.word`);
# - scalar:CLASS: a fault-free case whose scalar operand (the GPR of B.IOR, or a direct
#   call's scalar) is of CLASS at the block's element type: quiet NaN, quiet NaN with a
#   payload other than the canonical one, signalling NaN, both infinities, both zeros, a
#   subnormal, the largest finite magnitude, bits above the element width (floating types);
#   zero, the largest and (signed) the smallest value, bits above the width (integer types);
# - size:numeric / size:predicate: a fault-free case holding a tile at the model's size
#   bound for that storage kind (a 64 KiB numeric tile; a 16,384-element predicate tile)
#   whose logical elements 0 and 4,096 differ, so an index that wraps at 4,096 shows;
# - rmode:MODE, sat:N: a fault-free case of the operation under each rounding mode and
#   saturation setting (only the operations whose B.DATR takes them).

import json

from pto_avs.device_model.ops import installed, registry  # noqa: F401  (installed: every operation registers)
from pto_avs.vectors.reference import arith_elements, compare_elements, elementwise as ew_ref
from pto_avs.vectors.reference import numeric as num

pytestmark = pytest.mark.slow  # runs the golden model over every isolation configuration of the reference files

NUMERIC_BOUND_BYTES = 65536  # TSize code 10, the largest local allocation
PREDICATE_BOUND = 16384  # TilePredicateLogicalIndex 0..16383
WRAP_INDEX = 4096
FLOAT_SCALAR_CLASSES = ("qnan", "qnan-payload", "snan", "pos-inf", "neg-inf", "pos-zero", "neg-zero",
                        "subnormal", "max-finite", "upper-bits")
INTEGER_SCALAR_CLASSES = ("zero", "max", "min", "upper-bits")
ROUNDING_MODES = ("RNE", "RTZ", "RTM", "RTP", "RNA", "RTO", "RHB")
ROUNDED = {"TCVT": ROUNDING_MODES, "TQUANT": ROUNDING_MODES}  # B.DATR RMode and Sat apply
SCALAR_OPERATIONS = tuple(op for op, (_, kind) in ew_ref.OPERATIONS.items() if kind in ("scalar", "fill")) + \
    tuple(op for op, (_, kind) in arith_elements.OPERATIONS.items() if kind == "scalar") + \
    ("TMULS", "TCMPS", "TSELS")
PREDICATE_OPERATIONS = compare_elements.OPERATIONS
ZERO_DIVISORS = ("TDIVS", "TREMS")  # an integer zero scalar faults (Fault_TileLegality)
BROADCASTS = ("TEXPANDS",)  # no source: one value everywhere, the bound alone is the cell
FLOATS = set(arith_elements.FLOAT_TYPES)


def legal_types(op: str) -> tuple:
    if op in ew_ref.LEGAL_TYPES:
        return ew_ref.LEGAL_TYPES[op]
    if op in arith_elements.LEGAL_TYPES:
        return arith_elements.LEGAL_TYPES[op]
    if op in compare_elements.OPERATIONS:
        return compare_elements.LEGAL_TYPES
    return arith_elements.FLOAT_TYPES + arith_elements.INTEGER_TYPES  # TMULS


# Which cells apply comes from the spec, not from a hand list (SpecRules below):
# - carrier-pad: not where the executable spec never defines a destination's padding: every
#   recorded spec observation (vectors/recordings/aslref-pto-v0.json.gz) of the operation's
#   destinations that has padding coordinates leaves all of them undefined (TilePad_Null, or a
#   CUBE result that writes no padding), so there is no pad Word to compare; the test checks
#   that the spec catalog's B.DATR contract of each such operation selects no PadValue;
# - carrier: the top-bit rule, except where no recorded spec result of the operation has its
#   element's top bit set (typed 0/1 of TTRI, THISTOGRAM's counts, the index reductions'
#   indices): a sign-extending device cannot differ there, so any case expecting whole carrier
#   Words of a destination narrower than 64 bits isolates what remains (upper garbage);
# - carrier and carrier-pad need a tile destination, size:numeric any tile operand (the
#   catalog's operand roles: TSTORE has no destination, TPREFETCH no tile at all);
# - size:memory (the TLSU memory family of issue 23): a fault-free case whose memory has the
#   model's largest size and whose regions reach its top page;
# - carrier-pad, by the ASL's execution where the catalog and the recording do not say it yet
#   (ASL_NULL_PADDING): TIMG2COL (asl/tile/model/execution/image-to-column.asl) ends with
#   `TileWithPadding(result, TilePad_Null)`, so its destination's padding is never defined;
# - size:numeric not for an operation whose source is the catalog's "resolved-peer-source"
#   (GMOV): BundleGMOVCore4SourceReady wants it allocated on all four PEs and the destination
#   takes its TSize (tlsu-gmov.asl), so a 64 KiB source and its destination would need
#   4 x 65536 + 65536 bytes, past TileCapacityLimitBytes (at most 262,144: TileCoreAllocationBytes
#   charges a tile once per PE of its mask).
MEMORY_OPERATIONS = ("TLOAD", "TSTORE", "TPREFETCH")
ASL_NULL_PADDING = frozenset({"TIMG2COL"})
MEMORY_BOUND = 65536
RECORDING = VECTORS_DIR / "recordings" / "aslref-pto-v0.json.gz"
TILE_OPERATIONS = VECTORS_DIR.parent / "contract" / "spec_data" / "tile-operations.json"


class SpecRules:
    """The applicability facts above, read from the spec catalog and the spec recording."""

    def __init__(self, docs):
        import gzip

        catalog = {o["name"]: o for o in json.loads(TILE_OPERATIONS.read_text())["operations"]}
        roles = {name: [r["role"] for r in o.get("operands", [])] for name, o in catalog.items()}
        self.pad_union = {name: o.get("datr_contract", {}).get("pad_union") for name, o in catalog.items()}
        self.has_destination = {name for name, r in roles.items() if any("destination" in x for x in r)}
        self.has_tile = {name for name, r in roles.items() if any("destination" in x or "source" in x for x in r)}
        self.core4_source = {name for name, r in roles.items() if "resolved-peer-source" in r}
        recorded = json.loads(gzip.open(RECORDING).read())["devices"]["aslref"]["cases"]
        padded, defined_pad, words, top_bit = set(), set(), set(), set()
        for doc in docs:
            for case in doc["cases"]:
                answer = recorded.get(f"{doc['id']}::{case['name']}")
                blocks = blocks_of(case["program"])
                if answer is None or "observation" not in answer or len(blocks) != 1 or case["expect"].get("fault"):
                    continue
                op, _ = block_operation(blocks[0], doc["operation"])
                if op not in catalog:
                    op = doc["operation"]  # a raw program or a call by another name
                observed = answer["observation"].get("tiles") or {}
                for tile in case["expect"].get("tiles", []):
                    seen = observed.get(str(tile["index"]))
                    if not seen or "defined" not in seen or seen.get("dtype") not in num.FORMATS:
                        continue
                    rows, cols = seen["valid"]
                    width = num.fmt(seen["dtype"]).width
                    grid = seen["defined"]
                    pad = [grid[r][c] for r in range(len(grid)) for c in range(len(grid[r])) if r >= rows or c >= cols]
                    if pad:
                        padded.add(op)
                        if any(pad):
                            defined_pad.add(op)
                    if width < 64:
                        words.add(op)
                        if any((w >> (width - 1)) & 1 for row in seen["words"][:rows] for w in row[:cols]):
                            top_bit.add(op)
        # recorded padding never defined, and the B.DATR contract selects no PadValue (TLOAD's
        # regular form records none either, but its CUBE form applies the PadValue: not here)
        self.never_defined = frozenset(padded - defined_pad)
        # and every operation whose catalog record names Null padding as a state effect
        null_effect = {name for name, o in catalog.items() if "runtime:TilePad_Null:physical-padding" in o.get(
            "state_effects", [])}
        self.null_padded = frozenset(
            {op for op in self.never_defined if self.pad_union.get(op) != "pad-value"} | null_effect | ASL_NULL_PADDING)
        self.below_top_bit = frozenset(words - top_bit)


_RULES = []


def rules(docs=None) -> SpecRules:
    if not _RULES:
        _RULES.append(SpecRules(docs if docs is not None else _shipped()))
    return _RULES[0]


def _shipped() -> list:
    return [yaml.load(p.read_text(), Loader=Loader) for p in sorted(VECTORS_DIR.glob("*.yaml"))]


def columns(op: str) -> list:
    """The condition classes that apply to ``op``."""
    spec = rules()
    out = ["status", "blocks"]
    # a packed predicate destination has no carrier Words; TSTORE and TPREFETCH no destination
    if op not in ("TCMP", "TCMPS") and (op in spec.has_destination or op not in spec.pad_union):
        out.append("carrier")
        if op not in spec.null_padded:
            out.append("carrier-pad")
    if op in SCALAR_OPERATIONS:
        types = legal_types(op)
        if FLOATS & set(types):
            out += [f"scalar:{c}" for c in FLOAT_SCALAR_CLASSES]
        if set(types) - FLOATS:
            out += [f"scalar:{c}" for c in INTEGER_SCALAR_CLASSES if f"scalar:{c}" not in out]
    if (op in spec.has_tile or op not in spec.pad_union) and op not in spec.core4_source:
        out.append("size:numeric")
    if op in MEMORY_OPERATIONS:
        out.append("size:memory")
    if op in PREDICATE_OPERATIONS:
        out.append("size:predicate")
    for mode in ROUNDED.get(op, ()):
        out.append(f"rmode:{mode}")
    if op in ROUNDED:
        out += ["sat:0", "sat:1"]
    return out


def scalar_classes(word: int, dtype: str) -> set:
    """The condition classes of a GPR scalar read at element type ``dtype``."""
    f = num.fmt(dtype)
    out = {"upper-bits"} if word >> f.width else set()
    bits = word & ((1 << f.width) - 1)
    if f.is_int:
        signed = f.kind == "signed"
        top = (1 << (f.width - 1)) - 1 if signed else (1 << f.width) - 1
        out |= {"zero"} if bits == 0 else {"max"} if bits == top else \
            {"min"} if signed and bits == 1 << (f.width - 1) else set()
        return out
    value = num.decode(dtype, bits)
    sign = 1 << (f.width - 1)
    if value.cls == "nan":
        if value.signalling:
            out.add("snan")
        else:
            out.add("qnan")
            if bits & ~sign != num.canonical_nan(dtype) & ~sign:
                out.add("qnan-payload")
    elif value.cls == "inf":
        out.add("neg-inf" if value.negative else "pos-inf")
    elif value.cls == "finite":
        magnitude = bits & ~sign
        if magnitude == 0:
            out.add("neg-zero" if value.negative else "pos-zero")
        elif num.decode(dtype, magnitude + 1).cls != "finite":
            out.add("max-finite")
        elif f.kind == "binary" and (magnitude >> (f.frac_lsb + f.frac_bits)) == 0:
            out.add("subnormal")
    return out


_BSTART = re.compile(r"^\s*BSTART\.\S+\s+(\w+)\s*,\s*(\w+)", re.M)


def blocks_of(program) -> list:
    """The block texts of an assembly program, and of a list of assembly texts and direct calls
    (each call a one-call list, as a program of that call alone is; one item for any other
    program)."""
    if isinstance(program, list) and len(program) > 1 and all(isinstance(i, (str, dict)) for i in program):
        return [b for item in program for b in (blocks_of(item) if isinstance(item, str) else [[item]])]
    if not isinstance(program, str):
        return [program]
    starts = [m.start() for m in re.finditer(r"^\s*BSTART", program, re.M)]
    if len(starts) < 2:
        return [program]
    return [program[a:b].strip() + "\n" for a, b in zip(starts, starts[1:] + [len(program)])]


def block_operation(block, default: str):
    """(operation, element type) a block or direct call names."""
    if isinstance(block, str):
        m = _BSTART.search(block)
        return (m.group(1), m.group(2)) if m else (default, None)
    if isinstance(block, list) and block and isinstance(block[0], dict):
        return block[0].get("call", default), None
    return default, None


def _profiles(case) -> tuple:
    return tuple(case.get("profiles") or ("pto-v0", "hw-ieee"))


def _key(program, state) -> str:
    return json.dumps([program.strip() if isinstance(program, str) else program, state], sort_keys=True,
                      default=str)


def _logical(tile: dict, index: int):
    """The value of a tile's logical element ``index`` (row-major over the valid region),
    from data, fill and elements; None when the tile does not say."""
    rows, cols = tile["valid"]
    if index >= rows * cols:
        return None
    r, c = divmod(index, cols)
    extra = tile.get("elements", {}).get(f"{r},{c}")
    if extra is not None:
        return extra["value"] if isinstance(extra, dict) else extra
    if "data" in tile:
        return tile["data"][r][c]
    return tile.get("fill")


def _wraps_visible(tile: dict) -> bool:
    a, b = _logical(tile, 0), _logical(tile, WRAP_INDEX)
    return a is not None and b is not None and a != b


def _scalar_of(block, case, dtype):
    """(scalar word, element type) of a block or direct call, or None."""
    if isinstance(block, str):
        m = re.search(r"B\.IOR\s+R(\d+)", block)
        if not m:
            return None
        return case["state"].get("gprs", {}).get(int(m.group(1)), 0), dtype
    if isinstance(block, list) and block and isinstance(block[0], dict) and "scalar" in block[0]:
        call = block[0]
        tiles = {t["index"]: t for t in case["state"].get("tiles", [])}
        source = tiles.get(call.get("src", call["dst"]), tiles.get(call["dst"], {}))
        return call["scalar"], source.get("dtype")
    return None


def _datr_fields(block):
    if isinstance(block, str):
        return [f.strip() for m in re.finditer(r"^\s*B\.DATR (.*)$", block, re.M) for f in m.group(1).split(",")]
    if isinstance(block, list) and block and isinstance(block[0], dict):
        call = block[0]
        return ([str(call["rounding"])] if call.get("rounding") else []) + \
            ([f"Sat={call['sat']}"] if "sat" in call else [])
    return []


def _case_cells(doc, case, twins, lone_blocks) -> set:
    """{(operation, cell)} the case isolates."""
    out = set()
    expect = case["expect"]
    state = case.get("state") or {}
    if expect.get("fault"):
        # An integer zero divisor's class is observable only as its fault.
        for block in blocks_of(case["program"]):
            op, dtype = block_operation(block, doc["operation"])
            found = _scalar_of(block, case, dtype) if op in ZERO_DIVISORS else None
            if found and found[1] in num.FORMATS and num.fmt(found[1]).is_int and "zero" in scalar_classes(*found):
                out.add((op, "scalar:zero"))
        return out
    program = case["program"]
    blocks = blocks_of(program)
    last_op, last_type = block_operation(blocks[-1], doc["operation"])
    flags = expect.get("flags")
    status = state.get("status", 0)
    for profile in _profiles(case):
        if status and flags is not None:
            twin = twins.get((profile, _key(program, {k: v for k, v in state.items() if k != "status"})))
            if twin is not None and status & ~twin:
                out.add((last_op, "status"))
        if len(blocks) > 1 and flags is not None:
            alone = lone_blocks.get((profile, _key(blocks[-1], state)))
            if alone is not None and alone != flags:
                out.add((last_op, "blocks"))
    for tile in expect.get("tiles", []):
        dtype = tile.get("dtype")
        width = num.fmt(dtype).width if dtype in num.FORMATS else 64
        if "words" in tile and width < 64 and (last_op in rules().below_top_bit or any(
                (w >> (width - 1)) & 1 for row in tile["words"] for w in row)):
            out.add((last_op, "carrier"))
        if "word" in (tile.get("padding") or {}):
            out.add((last_op, "carrier-pad"))
    every_tile = list(state.get("tiles", [])) + list(expect.get("tiles", []))
    for tile in every_tile:
        if "valid" not in tile:
            continue
        if tile.get("storage_kind") == "predicate":
            if tile.get("rows", 0) * tile.get("cols", 0) == PREDICATE_BOUND and _wraps_visible(tile):
                out.add((last_op, "size:predicate"))
        elif tile.get("capacity") == NUMERIC_BOUND_BYTES and (_wraps_visible(tile) or last_op in BROADCASTS):
            out.add((last_op, "size:numeric"))
    memory = state.get("memory") or {}
    if memory.get("size") == MEMORY_BOUND and any(
            int(r["address"]) >= MEMORY_BOUND - 4096
            for r in list(memory.get("regions", [])) + list(expect.get("memory", []))):
        out.add((last_op, "size:memory"))
    for block in blocks:
        op, dtype = block_operation(block, doc["operation"])
        found = _scalar_of(block, case, dtype) if op in SCALAR_OPERATIONS else None
        if found and found[1] in num.FORMATS:
            out |= {(op, f"scalar:{c}") for c in scalar_classes(*found)}
        if op in ROUNDED:
            for field in _datr_fields(block):
                mode = field.split("=")[-1].strip()
                if mode in ROUNDED[op]:
                    out.add((op, f"rmode:{mode}"))
                if field.replace(" ", "") in ("Sat=0", "Sat=1"):
                    out.add((op, f"sat:{field[-1]}"))
            if not any("Sat=" in f for f in _datr_fields(block)):
                out.add((op, "sat:0"))  # Sat defaults to 0
    return out


def condition_matrix(docs) -> dict:
    """{operation: {cell: isolating case count}} over every operation's applicable cells."""
    twins, lone_blocks = {}, {}
    for doc in docs:
        for case in doc["cases"]:
            expect, state = case["expect"], case.get("state") or {}
            if expect.get("fault") or expect.get("flags") is None:
                continue
            for profile in _profiles(case):
                if not state.get("status"):
                    twins[(profile, _key(case["program"], state))] = expect["flags"]
                lone_blocks[(profile, _key(case["program"], state))] = expect["flags"]
    matrix = {op: dict.fromkeys(columns(op), 0) for op in registry.names()}
    for doc in docs:
        for case in doc["cases"]:
            for op, cell in _case_cells(doc, case, twins, lone_blocks):
                if cell in matrix.get(op, {}):
                    matrix[op][cell] += 1
    return matrix


def render_matrix(matrix) -> str:
    cells = sorted({c for row in matrix.values() for c in row},
                   key=lambda c: (c.split(":")[0] not in ("status", "blocks"), c))
    lines = []
    for op, row in matrix.items():
        missing = [c for c in cells if c in row and not row[c]]
        covered = sum(1 for c in row.values() if c)
        lines.append(f"{op:14s} {covered:3d}/{len(row):<3d} " + ("missing: " + ", ".join(missing) if missing else "ok"))
    total = sum(len(r) for r in matrix.values())
    done = sum(1 for r in matrix.values() for v in r.values() if v)
    lines.append(f"cells covered / cells: {done}/{total}")
    return "\n".join(lines)


@pytest.fixture(scope="module")
def shipped_docs():
    docs = _shipped()
    rules(docs)  # the applicability rules read the same shipped set
    return docs


# Cells no shipped case isolates yet, each named: the test fails when a cell outside this
# list is empty and when a listed cell is covered (remove it then), so the list only shrinks.
KNOWN_GAPS: set = set()
# Operations whose families are landing in this round: their rows are printed, not asserted,
# until their generators write the cases; the test fails when one of them has a complete row
# (then drop it here).
PENDING: set = set()


def matrix_gaps(matrix) -> tuple[set, set, set]:
    """(empty cells neither known nor pending, known gaps now covered, pending rows now complete)."""
    empty = {(op, cell) for op, row in matrix.items() for cell, n in row.items() if not n}
    unexpected = {(op, cell) for op, cell in empty - KNOWN_GAPS if op not in PENDING}
    covered = {(op, cell) for op, cell in KNOWN_GAPS if op in matrix and (op, cell) not in empty}
    complete = {op for op in PENDING if op in matrix and all(matrix[op].values())}
    return unexpected, covered, complete


def test_every_condition_cell_has_an_isolating_case(shipped_docs):
    matrix = condition_matrix(shipped_docs)
    print("\ncondition matrix (isolating cases per operation x condition class)\n" + render_matrix(matrix))
    unexpected, covered, complete = matrix_gaps(matrix)
    assert not unexpected, f"{len(unexpected)} cells have no isolating case: {sorted(unexpected)[:12]}"
    assert not covered, f"covered now, drop from KNOWN_GAPS: {sorted(covered)}"
    assert not complete, f"complete now, drop from PENDING: {sorted(complete)}"


def test_the_matrix_fails_a_cell_whose_isolating_case_is_gone(shipped_docs):
    """The rule can fail: without the TADDS strength file, TADDS loses its status, blocks and
    quiet-NaN-payload cells (no other shipped case isolates them), and TEXPANDS without its
    strength file loses its NaN scalar classes."""
    kept = [doc for doc in shipped_docs if doc["id"] not in ("PTO-AVS-X-TADDS-STRENGTH-001",
                                                             "PTO-AVS-X-TEXPANDS-STRENGTH-001")]
    unexpected, _, _ = matrix_gaps(condition_matrix(kept))
    assert {("TADDS", "status"), ("TADDS", "blocks"), ("TADDS", "scalar:qnan-payload"),
            ("TEXPANDS", "scalar:snan"), ("TEXPANDS", "scalar:qnan-payload")} <= unexpected


@pytest.mark.parametrize("word, dtype, expected", [
    (0x7FC00000, "FP32", {"qnan"}),
    (0xFFC01234, "FP32", {"qnan", "qnan-payload"}),
    (0x7F800123, "FP32", {"snan"}),
    (0x80000000, "FP32", {"neg-zero"}),
    (0x00000005, "FP32", {"subnormal"}),
    (0x7F7FFFFF, "FP32", {"max-finite"}),
    (0xDEADBEEF3FC00000, "FP32", {"upper-bits"}),
    (0x7E, "E4M3", {"max-finite"}),
    (0x80000000, "S32", {"min"}),
    (0x80000000, "U32", set()),
    (0xFFFFFFFF, "U32", {"max"}),
    (0xFFFFFFFF00000000, "S32", {"zero", "upper-bits"}),
])
def test_scalar_classes_of_single_words(word, dtype, expected):
    assert scalar_classes(word, dtype) == expected


def test_a_status_case_without_its_twin_isolates_nothing():
    """A case that starts from a nonzero status isolates the status only next to its twin
    (same program and state from status 0) whose own flags do not hold the status bits."""
    doc = {"operation": "TADD", "cases": []}
    program = "BSTART.VEC TADD, FP32\nBSTOP\n"
    with_status = {"name": "s", "program": program, "state": {"status": 0x01}, "expect": {"fault": None, "flags": 0x11}}
    twin = {"name": "t", "program": program, "state": {}, "expect": {"fault": None, "flags": 0x10}}
    raises_it = {"name": "t", "program": program, "state": {}, "expect": {"fault": None, "flags": 0x11}}
    assert condition_matrix([dict(doc, cases=[with_status])])["TADD"]["status"] == 0
    assert condition_matrix([dict(doc, cases=[with_status, twin])])["TADD"]["status"] == 1
    assert condition_matrix([dict(doc, cases=[with_status, raises_it])])["TADD"]["status"] == 0
