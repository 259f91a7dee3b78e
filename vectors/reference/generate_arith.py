"""Write the vectors of the arithmetic elementwise operations (TADD ... TREMS).

    .venv/bin/python -m pto_avs.vectors.reference generate|check TADD ... TREMS
    .venv/bin/python -m pto_avs.vectors.reference.generate_arith [--out DIR] [--check]  (the same)

One file per spec test ID of TADD, TSUB, TMUL, TDIV, TREM, TFMA, TSQRT, TRSQRT,
TRECIP, TEXP, TLOG, TADDS, TSUBS, TDIVS and TREMS (``PTO-AVS-TILE-<OP>-<NAME>-NNN.yaml``):
cases that replay the spec test point (its tiles, values, bundle or direct call) with
the values it asserts (``source: spec-test``; the reference names the test file and
what it asserts), and the same facts through a complete block or under the other
profile, derived from the ASL (``source: hand``). Element values come from the
independent reference ``vectors/reference/arith_elements.py`` (no device_model
code), and every value a spec test asserts is checked against it here: a mismatch
stops the script. Nothing here runs the golden model. The output is deterministic;
``--check`` exits 1 when a shipped file differs from what this script writes.
"""
from __future__ import annotations

import math
import sys
from fractions import Fraction

from . import arith_elements as ref
from . import engine
from . import numeric as num
from . import value_classes
from .engine import (DATA_TYPES, ISOLATION_MAX, OPERATION_TABLE, UNITS, Flow, Hex, bstart_word, case, chunks,
                     first_free, size_code, spec_ref, tile, width)

COMMAND = ".venv/bin/python -m pto_avs.vectors.reference.generate_arith"
BOTH = ["pto-v0", "hw-ieee"]
WORD = (1 << 64) - 1

OPERATIONS = tuple(ref.OPERATIONS)

# Encodings of 1, 2 and 1.5 per floating type (the formats' field layouts).
ONE_TWO_HALF = {
    "FP64": (0x3FF0000000000000, 0x4000000000000000, 0x3FF8000000000000),
    "FP32": (0x3F800000, 0x40000000, 0x3FC00000), "TF32": (0x3F800000, 0x40000000, 0x3FC00000),
    "HF32": (0x3F800000, 0x40000000, 0x3FC00000), "FP16": (0x3C00, 0x4000, 0x3E00),
    "BF16": (0x3F80, 0x4000, 0x3FC0), "E4M3": (0x38, 0x40, 0x3C), "E5M2": (0x3C, 0x40, 0x3E),
}


def kind(op: str) -> str:
    return ref.OPERATIONS[op][1]


def source_count(op: str) -> int:
    return {"binary": 2, "fma": 3, "unary": 1, "scalar": 1}[kind(op)]


def engine_of(op: str) -> str:
    return OPERATION_TABLE[op]["engine"]


# ---------------------------------------------------------------------------------------
# Case pieces

def compute(op: str, t: str, profile: str, sources: list, scalar=None):
    """(rows of result Words, recorded status) of ``op`` over source rows (reference)."""
    out, flags = [], 0
    for r, row in enumerate(sources[0]):
        line = []
        for c, value in enumerate(row):
            operands = [value] + [s[r][c] for s in sources[1:]] + ([scalar] if scalar is not None else [])
            word, f = ref.evaluate(op, t, profile, *operands)
            line.append(word)
            flags |= f
        out.append(line)
    return out, ref.recorded_status(op, profile, flags)


def bindings(op: str, sources, size: int, mask="1111") -> list:
    names = [f"T{s}" for s in sources]
    if kind(op) == "fma":
        return [f"B.IOT {names[0]}, {names[1]}, mask={mask}", f"B.IOT {names[2]}, mask={mask}, <last>, ->T<{size}>"]
    return [f"B.IOT {', '.join(names)}, mask={mask}, <last>, ->T<{size}>"]


def bundle(op: str, t: str, *, lb0=None, lb1=None, lb2=None, sources=(), size=1, datr=None, gpr=None,
           bstart=None, lines=None) -> str:
    return engine.bundle_text(bstart or f"BSTART.{engine_of(op)} {op}, {t}", datr=datr and f"B.DATR {datr}",
                              dims={"LB0": lb0, "LB1": lb1, "LB2": lb2},
                              bindings=lines if lines is not None else bindings(op, sources, size), gpr=gpr)


def fault_case(name, description, tiles, program, fault="Fault_TileLegality", *, source="hand", reference="",
               gprs=None, profiles=BOTH) -> dict:
    return engine.fault_case(name, description, tiles, program, fault, source=source, reference=reference,
                             gprs=gprs, profiles=profiles, state_without_tiles=False)


def run(name, description, op, t, sources, scalar=None, *, source="hand", reference="", profiles=BOTH,
        direct=False, pad=None, alias=False, capacity=128, cols=None, valid=None, gpr=5, bstart=None,
        raw_bstart=False, datr=None, ulp_tolerance=None) -> list:
    """One completed direct call (``direct``) or block of ``op`` over source tiles T0..Tn-1
    (``sources``: a list of rows per tile). The expectations come from the reference per
    profile: one case when the profiles agree, else one case per profile (-pto-v0, -hw-ieee).
    ``ulp_tolerance``: given to an inexact (NX) hw-ieee-only case, whose Words are then left out."""
    valid = valid or (len(sources[0]), len(sources[0][0]))
    cols = cols or valid[1]
    tiles = [tile(i, t, capacity, cols, valid, data) for i, data in enumerate(sources)]
    indices = list(range(len(sources)))
    state = {"tiles": tiles}
    if direct:
        target = 0 if alias else len(sources)
        if not alias:
            tiles.append(tile(target, t, capacity, cols, valid, defined="none"))
        program = engine.direct_call(op, target, indices, scalar=scalar, pad=pad)
        unchanged = [i for i in indices if i != target]
    else:
        target = first_free(indices)
        if scalar is not None and gpr:
            state["gprs"] = engine.gpr_map({gpr: scalar})
        program = bundle(op, t, lb0=valid[1], lb1=valid[0] if valid[0] != 1 else None,
                         lb2=cols if cols != valid[1] else None, sources=indices, size=size_code(capacity),
                         datr=datr or pad, gpr=gpr if kind(op) == "scalar" and gpr else None, bstart=bstart)
        if raw_bstart:
            program = engine.raw_bstart_program(program, bstart_word(op, t))
        unchanged = indices
    outcomes = {}
    for profile in profiles:
        words, flags = compute(op, t, profile, sources, scalar if scalar is None or gpr or direct else 0)
        outcomes.setdefault((tuple(map(tuple, words)), flags), []).append(profile)
    cases = []
    for (words, flags), group in outcomes.items():
        tolerated = ulp_tolerance if ulp_tolerance and group == ["hw-ieee"] and flags & num.NX else None
        expect = engine.success_expect(flags, sorted(set(indices) | {target}), unchanged, [engine.result_tile(
            target, t, capacity, cols, valid, words, pad, carrier=not tolerated)])
        if tolerated:
            expect["ulp_tolerance"] = tolerated
        suffix = "" if len(outcomes) == 1 else f"-{group[0]}"
        cases.append(case(name + suffix, description, group, source, reference, state, program, expect))
    return cases


def check(op, t, sources, scalar, expected, flags, profiles=BOTH):
    """Stop unless the reference gives the values (and status) a spec test asserts."""
    for profile in profiles:
        words, status = compute(op, t, profile, sources, scalar)
        got = [w for row in words for w in row]
        assert got == expected and status == flags, (op, t, profile, got, expected, status, flags)


# ---------------------------------------------------------------------------------------
# Spec test points

EXAMPLE = {  # op -> (type, source rows per tile, scalar): the values of its execution point
    "TADD": ("U64", [[[7, 9]], [[5, 2]]], None), "TSUB": ("U64", [[[19, 7]], [[7, 19]]], None),
    "TMUL": ("U64", [[[3, 5]], [[7, 11]]], None), "TDIV": ("U64", [[[8, 9]], [[2, 3]]], None),
    "TREM": ("S64", [[[WORD - 6, 7]], [[3, WORD - 2]]], None), "TFMA": ("U64", [[[2]], [[3]], [[4]]], None),
    "TSQRT": ("FP32", [[[0x3F800000, 0xBF800000]]], None), "TRSQRT": ("FP32", [[[0x7F800000, 0x00000000]]], None),
    "TRECIP": ("FP32", [[[0x80000000, 0x7F800000]]], None), "TEXP": ("FP32", [[[0x80000000, 0xFF800000]]], None),
    "TLOG": ("FP32", [[[0x00000000, 0x3F800000]]], None), "TADDS": ("U64", [[[7, 9]]], 5),
    "TSUBS": ("U8", [[[3, 9]]], 5), "TDIVS": ("U8", [[[9, 255]]], 2), "TREMS": ("S8", [[[251, 5]]], 3),
}


def t_static(op, test_id):
    t, sources, scalar = EXAMPLE[op]
    spec = OPERATION_TABLE[op]
    word = bstart_word(op, t)
    reference = spec_ref(test_id, f"DecodeTileOperation(TEPL, {spec['selector']}) selects {op}, handler "
                                  f"{spec['semantic_handler']}, engine {spec['engine']}")
    cases = run(f"bstart-{engine_of(op).lower()}-{op.lower()}-{t.lower()}", f"""BSTART.{engine_of(op)} {op}, {t} =
                {word:#010x} (Mode {spec['mode']}, Function {spec['function']}: selector {spec['selector']}) runs
                {op} on its execution point's values.""", op, t, sources, scalar, source="spec-test",
                reference=reference)
    cases += run("bstart-tepl-mode-function", f"""BSTART.TEPL {spec['mode']}, {spec['function']}, {t}: the same
                 word, the same block.""", op, t, sources, scalar, source="spec-test", reference=reference,
                 bstart=f"BSTART.TEPL {spec['mode']}, {spec['function']}, {t}")
    cases += run("raw-bstart-word", f"""The BSTART as the raw word {word:#010x}, packed by hand from command
                 form 33 (match 0x00019181, DataType 31:27, Mode 26:25, Function 24:20).""", op, t, sources,
                 scalar, source="spec-test", reference=reference, raw_bstart=True)
    cases.append(case("bstart-encoding", f"""BSTART.{engine_of(op)} {op}, {t} assembles to {word:#010x}; the block
                      stays open at the end of the program, so nothing is allocated.""", BOTH, "spec-table",
                      "spec/catalog/command-forms.json form 33; " + reference, None,
                      f"BSTART.{engine_of(op)} {op}, {t}",
                      {"fault": None, "flags": Hex(0), "encoding": Flow([Hex(word)]), "allocated": Flow([])}))
    return cases


def type_values(op, t):
    """Representative nonzero operands of type ``t``: source rows and scalar."""
    if t in ONE_TWO_HALF:
        one, two, half = ONE_TWO_HALF[t]
        sign = 1 << (width(t) - 1)
        rows = [[half, two], [two, half | sign], [one, one]]
    else:
        rows = [[(1 << (width(t) - 1)) | 5, 7], [3, 2], [1, 1]]
    sources = [[row] for row in rows[:source_count(op)]]
    return sources, (rows[1][0] if kind(op) == "scalar" else None)


def t_types(op, test_id, asserted):
    """Every DataType: the legal ones complete (values from the reference), every other
    faults with nothing published. ``asserted``: the types the spec point names."""
    cases = []
    n = source_count(op)
    for t in DATA_TYPES:
        named = t in asserted
        reference = spec_ref(test_id, f"{'' if t in ref.LEGAL_TYPES[op] else '!'}InstructionContractDataTypeLegal_"
                                      f"{op}({t})" if named else "") + "; asl/tile/model/legality/dtype-layout.asl"
        if t in ref.LEGAL_TYPES[op]:
            sources, scalar = type_values(op, t)
            cases += run(f"{t.lower()}-legal", f"""{t} is in {op}'s type set: the block completes.""", op, t,
                         sources, scalar, source="spec-test" if named else "hand", reference=reference)
        else:
            tiles = [tile(i, t, 128, 2, (1, 2), [[0, 0]]) for i in range(n)]
            program = bundle(op, t, lb0=2, sources=list(range(n)), gpr=5 if kind(op) == "scalar" else None)
            where = ("its closed schema, before allocation" if kind(op) != "unary" else
                     "TileOperandsLegal_ExecuteTileUnary after allocation (rolled back)")
            cases.append(fault_case(f"{t.lower()}-rejected", f"""{t} is outside {op}'s type set: {where}
                                    raises Fault_TileLegality and nothing is published.""", tiles, program,
                                    source="spec-test" if named else "hand", reference=reference,
                                    gprs={5: 1} if kind(op) == "scalar" else None))
    return cases


def direct_fault(op, test_id, name, description, tiles, dst, what, scalar=None, source="spec-test"):
    srcs = [t["index"] for t in tiles if t["index"] != dst]
    return fault_case(name, description, tiles, engine.direct_call(op, dst, srcs, scalar=scalar), source=source,
                      reference=spec_ref(test_id, what))


def bundle_fault(op, name, description, tiles, reference, *, t=None, lb0=1, scalar=None, fault="Fault_TileLegality",
                 **kw):
    t = t or tiles[0]["dtype"]
    sources = [x["index"] for x in tiles][:source_count(op)]
    program = bundle(op, t, lb0=lb0, sources=sources, gpr=5 if scalar is not None else None, **kw)
    return fault_case(name, description, tiles, program, fault, reference=reference,
                      gprs={5: scalar} if scalar is not None else None)


def t_execute(op, test_id, t, sources, scalar, expected, what, *, flags=0, cols=None, capacity=128, both=True,
              bundle_too=True, alias=False):
    """The spec point as a direct call (its asserted values, checked against the reference;
    ``flags``: the status it asserts, None when it asserts none), and a block twin."""
    check(op, t, sources, scalar, expected, flags if flags is not None else
          compute(op, t, "pto-v0", sources, scalar)[1], profiles=["pto-v0"])
    reference = spec_ref(test_id, what)
    cases = run("direct-call", f"The spec test point as a direct call: {what}.", op, t, sources, scalar,
                source="spec-test", reference=reference, direct=True, cols=cols, capacity=capacity, alias=alias)
    if bundle_too and not alias:
        cases += run("bundle", f"""The same elements through a complete {op} block; the destination is renamed
                     to the first free T index.""", op, t, sources, scalar, reference=reference +
                     "; asl/block/model/dispatch/tile-execution.asl", cols=cols, capacity=capacity)
    return cases


def t_padding(op, test_id, t, sources, scalar, pad, what):
    """A 1x1 valid region in a 2-column tile, direct calls with ``pad`` and with Null, and
    an FP64 block with B.DATR ``pad`` (a present B.DATR makes the destination FP64)."""
    reference = spec_ref(test_id, what)
    cases = []
    for p in (pad, "Null"):
        cases += run(f"direct-{p.lower()}", f"""Direct call with PadValue {p}: every coordinate outside the valid
                     element is {'defined and holds the ' + p + ' pad' if p != 'Null' else 'undefined'}.""", op, t,
                     sources, scalar, source="spec-test", reference=reference, direct=True, cols=2, pad=p)
    if "FP64" in ref.LEGAL_TYPES[op]:
        fsources, fscalar = type_values(op, "FP64")
        fsources = [[row[:1]] for row in (s[0] for s in fsources)]
        cases += run(f"bundle-fp64-{pad.lower()}", f"""The same through a block: B.DATR {pad} carries DataType 0
                     (FP64), the effective destination type, so an FP64 block pads with the FP64 {pad} word
                     (SPEC-CHOICE 2, digest 7.4).""", op, "FP64", fsources, fscalar, reference=reference +
                     "; asl/block/model/dispatch/descriptor-legality.asl (ResolveBundleEffectiveDataType)",
                     cols=2, capacity=128, datr=pad, pad=pad)
    return cases


def t_lb0(op, test_id, t="U64"):
    tiles = [tile(i + 1, t, 128, 2, (1, 2), [[3 + i, 4 + i]]) for i in range(source_count(op))]
    program = bundle(op, t, sources=[x["index"] for x in tiles], gpr=5 if kind(op) == "scalar" else None)
    return [fault_case("lb0-omitted", """No B.DIM LB0: the closed schema fails, Fault_TileLegality before
                       allocation; the sources are unchanged.""", tiles, program, source="spec-test",
                       reference=spec_ref(test_id, "_LastFault == Fault_TileLegality, destination not allocated"),
                       gprs={5: 1} if kind(op) == "scalar" else None)]


def t_alias(op, test_id, t, sources, expected, what):
    return t_execute(op, test_id, t, sources, None, expected, what, alias=True, flags=None)


def t_zero_unary(op, test_id, t, values, expected, flags, what):
    """One case per operand value (flag isolation), direct call and block."""
    cases = []
    for value, result in zip(values, expected):
        label = f"{t.lower()}-{value:x}"
        check(op, t, [[[value]]], None, [result], flags)
        cases += [dict(c, name=f"{label}-{c['name']}") for c in t_execute(
            op, test_id, t, [[[value]]], None, [result], f"{t} {value:#x} -> {result:#x}, status {flags:#x}; {what}",
            flags=flags)]
    return cases


def t_datr_tfma(op, test_id):
    t = "FP32"
    tiles = [tile(i, t, 128, 1, (1, 1), [[0x3F800000]]) for i in range(3)]
    reference = spec_ref(test_id, "TileOperationDATRFieldApplicable: only PadValueOrByteId")
    cases = [bundle_fault(op, f"datr-{label}-rejects", f"""B.DATR {field}: not applicable to TFMA (only
                          PadValueOrByteId is): Fault_TileLegality before allocation.""", tiles, reference,
                          datr=field)
             for label, field in (("cmode", "CMode=NE"), ("sat", "Sat=1"), ("canonicalize", "Canonicalize=1"),
                                  ("datatype", "FP32"), ("rmode", "RMode=RTZ"), ("layout", "Layout=ND2DN"))]
    fsources, _ = type_values(op, "FP64")
    cases += run("datr-padvalue-max-fp64", """B.DATR Max is applicable: an FP64 block (B.DATR DataType 0 is FP64,
                 the effective destination type) pads with the FP64 Max word.""", op, "FP64", fsources,
                 source="spec-test", reference=reference, cols=4, datr="Max", pad="Max")
    return cases


def one_row_tiles(*rows) -> list:
    """Source tiles of one row each, from their rows of values."""
    return [[list(r)] for r in rows]


u64 = one_row_tiles

# The types each TYPES point names (the rest of the 25 are checked as well, not asserted).
TYPES_ASSERTED = {
    "TADD": "FP32 U8 HiF8 U4X2 FP64 TF32 HF32 FP16 BF16 E4M3 E5M2 S64 S32 S16 S8 U64 U32 U16",
    "TSUB": "FP32 U8 FP64 HiF8", "TMUL": "FP16 S16 S8 U4X2",
    "TFMA": "FP32 FP64 TF32 HF32 FP16 BF16 E4M3 E5M2 S64 S32 S16 S8 U64 U32 U16 U8 HiF8 U4X2",
    "TSQRT": "FP32 FP16 BF16 FP64 E4M3 E5M2 U64 E8M0 E3M2 U4X2",
    "TEXP": "FP32 FP16 BF16 FP64 E4M3 E5M2 U64 E8M0 E3M2 U4X2",
    "TADDS": "FP32 U8 HiF8", "TSUBS": "U8 HiF8 U4X2", "TREMS": "U16 U8 HiF8 U4X2"}

PADDING_POINTS = {  # op -> (type, sources, scalar, pad, what the point asserts)
    "TADD": ("U64", u64([7], [5]), None, "Zero", "12, Zero padding defined 0; Null undefined"),
    "TSUB": ("U64", u64([7], [5]), None, "Zero", "2, Zero padding defined 0; Null undefined"),
    "TMUL": ("S64", u64([3], [5]), None, "Min", "15, Min padding 0x8000000000000000; Null undefined"),
    "TDIV": ("U64", u64([15], [3]), None, "Max", "5, Max padding Ones; Null undefined"),
    "TREM": ("S64", u64([WORD - 6], [3]), None, "Zero", "2, Zero padding defined 0"),
    "TFMA": ("U64", u64([2], [3], [4]), None, "Max", "10, Max padding Ones"),
    "TEXP": ("FP32", u64([0]), None, "Max", "Max padding defined; Null undefined"),
    "TSQRT": ("FP32", u64([0x3F800000]), None, "Max", "Max padding defined; Null undefined"),
    "TADDS": ("U64", u64([7]), 5, "Zero", "12, Zero padding defined 0; Null undefined"),
}

ALIAS_POINTS = {  # op -> (type, sources, expected, what)
    "TMUL": ("U64", u64([3, 5], [7, 11]), [21, 55], "destination = left source: 21, 55"),
    "TFMA": ("U64", u64([2], [3], [4]), [10], "destination = left source: 2 * 3 + 4 = 10"),
    "TEXP": ("FP32", u64([0x80000000]), [0x3F800000], "in place: exp(-0) = 1.0 from the old payload"),
    "TSQRT": ("FP32", u64([0x80000000]), [0x80000000], "in place: sqrt(-0) = -0"),
}

EXECUTE_POINTS = {  # (op, point) -> (type, sources, scalar, expected, what): a direct call and a block
    ("TSUB", "ORDER"): ("U64", u64([19], [7]), None, [12], "19 - 7 = 12, not 7 - 19"),
    ("TSUBS", "ORDER"): ("U8", u64([3, 9]), 5, [254, 4], "3 - 5 wraps to 254, 9 - 5 = 4"),
    ("TDIVS", "ORDER"): ("U8", u64([9, 255]), 2, [4, 127], "9 / 2 = 4, 255 / 2 = 127"),
    ("TDIV", "SIGNED"): ("S64", u64([WORD - 6], [3]), None, [WORD - 1], "-7 / 3 = -2 (truncating)"),
    ("TREMS", "SIGNED"): ("S8", u64([251, 5]), 3, [1, 2], "-5 mod 3 = 1, 5 mod 3 = 2 (divisor-signed)"),
    ("TREM", "DIVISOR-SIGN"): ("S64", u64([WORD - 6, 7], [3, WORD - 2]), None, [2, WORD - 1],
                               "-7 mod 3 = 2, 7 mod -3 = -2"),
}

UNARY_ZERO_POINTS = {  # (op, point) -> (type, values, expected, status, what): one case per value
    ("TEXP", "ZERO"): ("FP32", [0x80000000], [0x3F800000], 0, "exp(-0) = +1, no status"),
    ("TLOG", "ZERO"): ("FP32", [0], [0xFF800000], 2, "log(+0) = -inf, DZ only"),
    ("TLOG", "E4M3ZERO"): ("E4M3", [0], [0x7F], 2, "E4M3 has no infinity: NaN 0x7f, DZ only"),
    ("TRECIP", "SIGNEDZERO"): ("FP32", [0x80000000], [0xFF800000], 2, "1 / -0 = -inf, DZ only"),
    ("TRECIP", "E4M3ZERO"): ("E4M3", [0, 0x80], [0x7F, 0x7F], 2, "E4M3 +-0: NaN 0x7f, DZ only"),
    ("TRSQRT", "E4M3ZERO"): ("E4M3", [0, 0x80], [0x7F, 0x7F], 2, "E4M3 +-0: NaN 0x7f, DZ only"),
    ("TRSQRT", "INFINITY"): ("FP32", [0x7F800000], [0], 0, "1 / sqrt(+inf) = +0, no status"),
    ("TSQRT", "NEGATIVE"): ("FP32", [0xBF800000], [0x7FC00000], 1, "sqrt(-1) = canonical NaN, NV"),
}


def spec_types(op, test_id):
    return t_types(op, test_id, set(TYPES_ASSERTED[op].split()))


def spec_padding(op, test_id):
    return t_padding(op, test_id, *PADDING_POINTS[op])


def spec_alias(op, test_id):
    return t_alias(op, test_id, *ALIAS_POINTS[op])


def spec_execute(op, test_id):
    return t_execute(op, test_id, *EXECUTE_POINTS[(op, engine.spec_point(op, test_id))])


def spec_unary_zero(op, test_id):
    return t_zero_unary(op, test_id, *UNARY_ZERO_POINTS[(op, engine.spec_point(op, test_id))])


def spec_tadd_definedness(op, test_id):
    tiles = [tile(0, "U64", 128, 1, (1, 1), [[7]]), tile(1, "U64", 128, 1, (1, 1), defined="none"),
             tile(2, "U64", 128, 1, (1, 1), defined="none")]
    return [direct_fault(op, test_id, "undefined-right-source", """The right source is undefined: operand
                         legality fails, Fault_TileLegality; the destination stays undefined.""", tiles, 2,
                         "!TileOperandsLegal_ExecuteTileBinary, destination not defined"),
            bundle_fault(op, "bundle-undefined-right-source", """The same sources in a complete block:
                         Fault_TileLegality, nothing allocated.""", tiles[:2], spec_ref(test_id))]


def spec_dim_defaults(op, test_id):
    sources = {"TADD": ([[3, 4]], [[5, 6]], [8, 10]), "TDIV": ([[8, 9]], [[2, 3]], [4, 3])}[op]
    check(op, "U64", list(sources[:2]), None, sources[2], 0)
    return run("lb1-lb2-omitted", """Only LB0=2: the destination has ValidRow 1, ValidCol 2 and Col 2 (the LB1
               and LB2 defaults) and holds the results.""", op, "U64", list(sources[:2]), source="spec-test",
               reference=spec_ref(test_id, f"valid 1x2, columns 2, results {sources[2]}"), capacity=128)


def spec_tadd_elements(op, test_id):
    return t_execute(op, test_id, "U64", u64([7, 9], [5, 2]), None, [12, 11], "7 + 5 = 12, 9 + 2 = 11", cols=4)


def spec_tadd_layout(op, test_id):
    tiles = [tile(i, "U64", 128, 8, (1, 1), [[1 + i]] if i < 2 else None, layout="ColumnMajor",
                  defined=None if i < 2 else "none") for i in range(3)]
    return [direct_fault(op, test_id, "column-major", """ColumnMajor sources and destination of matching
                         shape: only RowMajor operands are legal, Fault_TileLegality.""", tiles, 2,
                         "!TileOperandsLegal_ExecuteTileBinary"),
            bundle_fault(op, "bundle-column-major-sources", """ColumnMajor sources in a complete block: the
                         RowMajor destination does not match them, Fault_TileLegality, rolled back.""",
                         tiles[:2], spec_ref(test_id))]


def spec_tfma_width(op, test_id):
    return (t_execute(op, test_id, "S8", u64([0xFF], [2], [3]), None, [1], "S8 -1 * 2 + 3 = 1")
            + [dict(c, name="u8-" + c["name"]) for c in
               t_execute(op, test_id, "U8", u64([0x80], [2], [1]), None, [1], "U8 0x80 * 2 + 1 wraps to 1")])


def spec_tadds_bundle(op, test_id):
    check(op, "U64", u64([7, 9]), 5, [12, 14], 0)
    return run("regsrc0-r2", """R2 = 5 through B.IOR RegSrc0: both U64 elements plus 5; the source
               persists.""", op, "U64", u64([7, 9]), 5, source="spec-test", gpr=2, cols=2,
               reference=spec_ref(test_id, "12, 14; source unchanged"))


def spec_tfma_invalid(op, test_id):
    triples = [(0x7F800001, 0x3F800000, 0), (0, 0x7F800000, 0), (0x7F800000, 0x3F800000, 0xFF800000)]
    labels = ["signaling-nan", "zero-times-infinity", "opposite-infinities"]
    if engine.spec_point(op, test_id) == "PROFILE-INVALID":
        triples, labels = triples[:1], labels[:1]
    cases = []
    for label, (a, b, c) in zip(labels, triples):
        check(op, "FP32", u64([a], [b], [c]), None, [0x7FC00000], 1)
        cases += [dict(x, name=f"{label}-{x['name']}") for x in t_execute(
            op, test_id, "FP32", u64([a], [b], [c]), None, [0x7FC00000],
            f"{a:#x} * {b:#x} + {c:#x}: quiet NaN (canonical 0x7fc00000), NV", flags=1)]
    return cases


def spec_tfma_capacity(op, test_id):
    program = bundle(op, "U64", lb0=128, lb1=2, lb2=128, lines=[
        "B.IOT T1, T2, mask=1111", "B.IOT T3, mask=1111, <last>, ->T<1>"])
    return [fault_case("destination-too-small", """2 x 128 U64 elements cannot fit TSize code 1 (128 bytes):
                       Fault_TileAllocation before allocation or any source access (the sources are not
                       even configured).""", [], program, "Fault_TileAllocation", source="spec-test",
                       reference=spec_ref(test_id, "_LastFault == Fault_TileAllocation, nothing allocated"))]


def spec_tfma_defined(op, test_id):
    tiles = [tile(0, "U64", 128, 1, (1, 1), defined="none")] + [
        tile(i, "U64", 128, 1, (1, 1), [[i + 1]] if i < 3 else None, defined=None if i < 3 else "none")
        for i in (1, 2, 3)]
    return [direct_fault(op, test_id, "undefined-addend", """The addend is undefined: operand preflight fails,
                         Fault_TileLegality; the destination stays undefined.""", tiles, 0,
                         "!InstructionContractOperandsLegal_TFMA, destination not defined"),
            bundle_fault(op, "bundle-undefined-addend", """The same sources in a complete block:
                         Fault_TileLegality, nothing allocated.""", tiles[1:], spec_ref(test_id))]


def spec_tfma_encoding(op, test_id):
    tiles = [tile(0, "TF32", 128, 1, (1, 1), defined="none"), tile(1, "TF32", 128, 1, (1, 1), [[1]]),
             tile(2, "TF32", 128, 1, (1, 1), [[0]]), tile(3, "TF32", 128, 1, (1, 1), [[0]])]
    return [direct_fault(op, test_id, "tf32-discarded-fraction-bits", """A TF32 source Word 1 (a nonzero
                         discarded fraction bit) is an invalid encoding: Fault_TileLegality.""", tiles, 0,
                         "!InstructionContractOperandsLegal_TFMA"),
            bundle_fault(op, "bundle-tf32-invalid-encoding", """The same sources in a complete block:
                         Fault_TileLegality, rolled back.""", tiles[1:], spec_ref(test_id))]


def spec_tfma_mask_zero(op, test_id):
    word = bstart_word(op, "U64")
    reference = spec_ref(test_id, "completes, no fault, nothing allocated, no status")
    return [case("zero-mask-record", f"""The spec test's records: BSTART {word:#010x}, then a B.IOT with
                 PEMode 000 (0x03F85013): a strict no-op before dimensions, sources, schema or
                 allocation.""", BOTH, "spec-test", reference, None, Flow([Hex(word), Hex(0x03F85013), Hex(1)]),
                 {"fault": None, "flags": Hex(0), "allocated": Flow([])}),
            case("zero-mask-complete-block", """A complete TFMA block whose bindings have mask=0000: no
                 effect although the sources are undefined.""", BOTH, "hand", reference,
                 {"tiles": [tile(i, "U64", 128, 2, (1, 2), defined="none") for i in range(3)]},
                 bundle(op, "U64", lb0=2, lines=bindings(op, [0, 1, 2], 1, mask="0000")),
                 {"fault": None, "flags": Hex(0), "allocated": Flow([0, 1, 2]), "unchanged": "all"})]


def spec_tfma_operands(op, test_id):
    cases = t_execute(op, test_id, "U64", u64([2], [3], [4]), None, [10], "four matching descriptors: 10")
    tiles = [tile(i, "U64", 128, 1, (1, 1), [[i + 1]] if i else None, defined=None if i else "none",
                  layout="ColumnMajor" if i == 3 else None) for i in range(4)]
    cases.append(direct_fault(op, test_id, "column-major-addend", """The addend is ColumnMajor: the logical
                              shapes differ in layout, Fault_TileLegality.""", tiles, 0,
                              "!InstructionContractOperandsLegal_TFMA after the layout change"))
    return cases


def spec_tfma_schema(op, test_id):
    tiles = [tile(i, "U64", 128, 1, (1, 1), [[i + 2]]) for i in range(3)]
    cases = run("two-bindings", """The two ordered B.IOT records (multiplicands, then addend and
                destination): the closed schema holds and the block completes.""", op, "U64",
                u64([2], [3], [4]), source="spec-test", reference=spec_ref(test_id, "schema legal"))
    program = bundle(op, "U64", lb0=1, sources=[0, 1, 2], gpr=0)
    cases.append(fault_case("b-ior-added", """The same block with an all-zero B.IOR (a valid scalar binding
                            with no field set): TFMA's closed schema takes no scalar binding,
                            Fault_TileLegality before allocation.""", tiles, program, source="spec-test",
                            reference=spec_ref(test_id, "!SelectedBundleClosedTFMASchemaLegal with a scalar "
                                                        "binding")))
    program = bundle(op, "U64", lb0=1, sources=[0, 1, 2], gpr=5)
    cases.append(fault_case("b-ior-regsrc0-set", """A B.IOR naming R5: TFMA takes no GPR input, so RegSrc0 is a
                            surplus field and binding completeness fails first (SPEC-CHOICE, digest 7.8: the
                            executable order), Fault_BundleControl.""", tiles, program, "Fault_BundleControl",
                            reference=spec_ref(test_id) + "; asl/block/model/dispatch/scalar-schema.asl "
                            "(BundleOperationScalarBindingSchemaLegal)", gprs={5: 1}))
    return cases


def zero_divisor_cases(op, test_id):
    """TDIV/TREM ZERO-TYPES and TDIVS ZERO: an integer zero divisor faults, a floating
    zero reaches the numeric profile."""
    cases = []
    if op == "TDIVS":
        tiles = [tile(0, "U32", 128, 2, (1, 2), [[1, 2]]), tile(1, "U32", 128, 2, (1, 2), defined="none")]
        cases.append(direct_fault(op, test_id, "u32-zero-scalar", """U32 scalar 0: operand legality fails,
                                  Fault_TileLegality.""", tiles, 1, "!TileOperandsLegal_ExecuteTileScalar", scalar=0))
        cases.append(bundle_fault(op, "bundle-u32-zero-scalar", """The same through a block (B.IOR R5 = 0): the
                                  closed tile-scalar schema rejects a zero integer divisor before allocation.""",
                                  tiles[:1], spec_ref(test_id), lb0=2, scalar=0))
        for scalar in (0, 0x80000000):
            cases += run(f"fp32-scalar-{scalar:x}", f"""FP32 scalar {'+0' if not scalar else '-0'} is a legal
                         divisor: pto-v0 divides the raw Words and returns all ones with DZ for a zero
                         (ScalarFPCarrierIsZero); hw-ieee divides the subnormals 1 and 2 by a signed zero:
                         {'+' if not scalar else '-'}inf with DZ.""", op, "FP32", [[[1, 2]]], scalar, direct=True,
                         source="spec-test", reference=spec_ref(test_id, "TileOperandsLegal_ExecuteTileScalar"))
            cases += run(f"bundle-fp32-scalar-{scalar:x}", "The same through a block.", op, "FP32", [[[1, 2]]],
                         scalar, reference=spec_ref(test_id))
        return cases
    t, value = ("U64", 8) if op == "TDIV" else ("S64", 7)
    tiles = [tile(0, t, 128, 1, (1, 1), [[value]]), tile(1, t, 128, 1, (1, 1), [[0]]),
             tile(2, t, 128, 1, (1, 1), defined="none")]
    cases.append(direct_fault(op, test_id, f"{t.lower()}-zero-divisor", f"""{t} divisor 0: operand legality fails
                              (TilePayloadNonzero), Fault_TileLegality.""", tiles, 2,
                              f"!InstructionContractOperandsLegal_{op}"))
    cases.append(bundle_fault(op, f"bundle-{t.lower()}-zero-divisor", """The same through a block: operand
                              legality after allocation, Fault_TileLegality, rolled back.""", tiles[:2],
                              spec_ref(test_id)))
    hw = "+inf with DZ" if op == "TDIV" else "the canonical NaN with NV (SPEC-CHOICE 19: rem(x, 0) is invalid)"
    cases += run("fp32-zero-divisor", f"""FP32 divisor +0 is legal (the profile decides): pto-v0 gives all ones
                 (its DZ is not recorded), hw-ieee {hw} (SPEC-CHOICE: a tile-tile form records its status under
                 hw-ieee only).""", op, "FP32",
                 [[[value]], [[0]]], direct=True, source="spec-test",
                 reference=spec_ref(test_id, f"InstructionContractOperandsLegal_{op} for FP32 zero"))
    cases += run("bundle-fp32-zero-divisor", "The same through a block.", op, "FP32", [[[value]], [[0]]],
                 reference=spec_ref(test_id))
    return cases


def trecip_zero_cases(op, test_id):
    cases = run("fp32-zero-legal", """FP32 +0 passes operand legality and gives +inf with DZ (the special value
                of TileSFUUnarySpecialValue).""", op, "FP32", [[[0]]], direct=True, source="spec-test",
                reference=spec_ref(test_id, "InstructionContractOperandsLegal_TRECIP (FP32)"))
    tiles = [tile(0, "U64", 128, 1, (1, 1), [[0]]), tile(1, "U64", 128, 1, (1, 1), defined="none")]
    cases.append(direct_fault(op, test_id, "u64-rejected", """A U64 tile: TRECIP takes floating types only,
                              Fault_TileLegality.""", tiles, 1, "!InstructionContractOperandsLegal_TRECIP (U64)"))
    cases.append(bundle_fault(op, "bundle-u64-rejected", """The same through a block: operand legality after
                              allocation, Fault_TileLegality, rolled back.""", tiles[:1], spec_ref(test_id)))
    return cases


# (operation, spec point) -> builder(op, test_id); ("*", point): every operation with that point.
SPEC_POINTS = {
    ("*", "STATIC"): t_static, ("*", "TYPES"): spec_types, ("*", "DATA-TYPES"): spec_types,
    ("*", "MISSING-LB0"): t_lb0, ("*", "LB0"): t_lb0, ("*", "PADDING"): spec_padding, ("*", "ALIAS"): spec_alias,
    ("*", "DIM-DEFAULTS"): spec_dim_defaults,
    **{key: spec_execute for key in EXECUTE_POINTS}, **{key: spec_unary_zero for key in UNARY_ZERO_POINTS},
    ("TADD", "DEFINEDNESS"): spec_tadd_definedness, ("TADD", "ELEMENTS"): spec_tadd_elements,
    ("TADD", "LAYOUT"): spec_tadd_layout, ("TADDS", "BUNDLE"): spec_tadds_bundle,
    ("TDIV", "ZERO-TYPES"): zero_divisor_cases, ("TREM", "ZERO-TYPES"): zero_divisor_cases,
    ("TDIVS", "ZERO"): zero_divisor_cases, ("TRECIP", "ZERO"): trecip_zero_cases,
    ("TFMA", "INVALID"): spec_tfma_invalid, ("TFMA", "PROFILE-INVALID"): spec_tfma_invalid,
    ("TFMA", "CAPACITY"): spec_tfma_capacity, ("TFMA", "DATR"): t_datr_tfma, ("TFMA", "DEFINED"): spec_tfma_defined,
    ("TFMA", "ENCODING"): spec_tfma_encoding, ("TFMA", "MASK-ZERO"): spec_tfma_mask_zero,
    ("TFMA", "OPERANDS"): spec_tfma_operands, ("TFMA", "SCHEMA"): spec_tfma_schema, ("TFMA", "WIDTH"): spec_tfma_width,
}


def spec_cases(op: str, test_id: str) -> list:
    """The cases of one spec test ID, from its builder in SPEC_POINTS."""
    point = engine.spec_point(op, test_id)
    builder = SPEC_POINTS.get((op, point)) or SPEC_POINTS[("*", point)]
    return builder(op, test_id)


# ---------------------------------------------------------------------------------------
# Reference vectors beyond the spec IDs (PTO-AVS-X-<OP>-REF-001): every legal type x
# special and boundary operands, each case one isolation key (value class and flags) in
# one block, so a flag a device forgets or invents for one class cannot hide behind
# another class's. The operations round under DefaultNumericExecutionControl only (RNE:
# B.DATR RMode is not applicable to them), so RNE is every mode they take.

# SPEC-CHOICE 20: the profile pins no accuracy for TEXP and TLOG; the
# expectations are correctly rounded and a device passes an inexact hw-ieee case within
# one ULP of them (faithful rounding). Exactly specified operations get no tolerance.
EXP_LOG_ULP = {"TEXP": 1, "TLOG": 1}


def float_pool(t: str) -> list:
    """Special and boundary encodings of floating type t: signed zeros, the smallest
    and largest subnormals, the smallest normal, 1 and its neighbours, 1.5, 2, 3, the
    half ulp of 1 (a tie against 1), the largest power of two and the two largest
    finite values, both signs; infinities, quiet NaNs (canonical and another payload)
    and a signaling NaN where the format has them."""
    f = num.FORMATS[t]
    p = f.frac_bits + 1
    q = num.pow2(1 - p)
    tiny = num.pow2(1 - f.bias - f.frac_bits)
    top = num.max_finite(t)
    big = num.pow2(num.floor_log2(top))
    magnitudes = [tiny, 3 * tiny, num.min_normal(t) - tiny, num.min_normal(t), num.min_normal(t) + tiny,
                  q / 2, 1 - q / 2, Fraction(1), 1 + q, Fraction(3, 2), Fraction(2), Fraction(3), big,
                  top - big * q, top]
    codes = [0, 1 << f.sign_bit]
    for m in magnitudes:
        for negative in (False, True):
            code, flags = num.encode_value(t, negative, m, "RNE", False)
            assert flags == 0, (t, m)
            codes.append(code)
    if f.has_inf:
        codes += [num.infinity_code(t, False), num.infinity_code(t, True)]
    nan = num.canonical_nan(t)
    codes += [nan, nan | (1 << f.sign_bit) | (1 << f.frac_lsb if f.nan == "ieee" else 0)]
    if f.nan == "ieee":
        codes.append(nan & ~(1 << (f.frac_lsb + f.frac_bits - 1)) | (1 << f.frac_lsb))  # signaling
    return list(dict.fromkeys(codes))


def integer_pool(t: str) -> list:
    """0, 1, 2, 3, the extremes and their neighbours, all ones and a 0x5A.. pattern (Words
    as a producer leaves them: signed values sign-extended)."""
    w = width(t)
    m = (1 << w) - 1
    values = {0, 1, 2, 3, 1 << (w - 1), (1 << (w - 1)) - 1, (1 << (w - 1)) + 1, m, m - 1, int("5A" * (w // 8), 16)}
    return [ref.normalized(v, t) for v in sorted(values)]


def unary_extras(op: str, t: str) -> list:
    """Operands beyond the pool where an SFU function has its boundaries: perfect squares
    (exact roots), and for EXP the arguments around the overflow threshold ln(max) and the
    underflow range, for LOG the neighbours of 1."""
    f = num.FORMATS[t]
    top = num.max_finite(t)
    values = {"SQRT": [Fraction(4), Fraction(9, 4), Fraction(1, 4)], "RSQRT": [Fraction(4), Fraction(1, 4)],
              "RECIP": [Fraction(4), Fraction(3, 4)], "LOG": [Fraction(1, 2), Fraction(4)], "EXP": []}[op]
    if op == "EXP":
        ln_max = Fraction(math.log(float(top)) if top < 2 ** 1000 else 709.78)
        ln_tiny = Fraction(math.log(2) * (1 - f.bias - f.frac_bits))
        for x in (ln_max, ln_max * Fraction(101, 100), ln_tiny, ln_tiny * Fraction(9, 10), ln_tiny * Fraction(11, 10),
                  Fraction(1, 2 ** (f.frac_bits + 3)), Fraction(1, 2)):
            values += [x, -x]
    codes = []
    for x in values:
        code, _ = num.encode_value(t, x < 0, abs(x), "RNE", False)  # nearest encodings: any value will do
        codes.append(code)
    return codes


def _tie(t: str, x: Fraction) -> bool:
    return x != 0 and value_classes.float_tie(t, abs(x))


def element_class(op: str, t: str, profile: str, operands, word: int, flags: int) -> str:
    """The value class of one floating element (for isolation): the NaN or infinity an
    operand brings, else what the result does (invalid, divide-by-zero, overflow,
    underflow to zero, subnormal, tie, inexact, exact, a signed zero)."""
    values = [num.decode(t, ref.element(w, t)) for w in operands]
    if any(v.cls == "nan" for v in values):
        return "snan" if any(v.cls == "nan" and v.signalling for v in values) else "qnan"
    if profile == "pto-v0":
        return "invalid" if flags & num.NV else "divide-by-zero" if flags & num.DZ else "raw"
    if flags & num.NV:
        return "invalid"
    if flags & num.DZ:
        return "divide-by-zero"
    if flags & num.OF:
        return "overflow"
    result = num.decode(t, ref.element(word, t))
    if result.cls == "inf":
        return "infinite"
    if result.is_zero:
        return "underflow-to-zero" if flags & num.UF else ("neg-zero" if result.negative else "pos-zero")
    if result.magnitude < num.min_normal(t):
        return "subnormal"
    if flags & num.NX:
        exact = exact_value(ref.OPERATIONS[op][0], [v.exact for v in values]) if all(
            v.cls == "finite" for v in values) else None
        return "tie" if exact is not None and _tie(t, exact) else "inexact"
    return "exact"


def exact_value(op: str, x: list):
    """The exact rational result of a rounding operation, None when it is irrational."""
    if op == "ADD":
        return x[0] + x[1]
    if op == "SUB":
        return x[0] - x[1]
    if op == "MUL":
        return x[0] * x[1]
    if op == "DIV":
        return x[0] / x[1] if x[1] else None
    if op == "FMA":
        return x[0] * x[1] + x[2]
    if op == "REM":
        return x[0] - x[1] * math.floor(x[0] / x[1]) if x[1] else None
    if op == "RECIP":
        return 1 / x[0] if x[0] else None
    return None


def operand_sets(op: str, t: str) -> list:
    """The operand tuples of one (operation, type): every pair of the pool (binary, scalar),
    every pool value (unary), pool pairs with chosen addends (FMA)."""
    pool = float_pool(t) if t in ref.FLOAT_TYPES else integer_pool(t)
    k = kind(op)
    if k in ("binary", "scalar"):
        pairs = [(a, b) for a in pool for b in pool]
        if t in ref.INTEGER_TYPES:
            pairs = [(a, b) for a, b in pairs if not ref.zero_divisor(op, t, b)]
        return pairs
    if k == "unary":
        return [(a,) for a in pool + unary_extras(ref.OPERATIONS[op][0], t)]
    if t in ref.INTEGER_TYPES:
        return [(a, b, c) for a in pool for b in pool[::2] for c in pool[::3]]
    small = pool[:8] + pool[14:26:2] + pool[-5:]  # zeros, subnormals, 1 and its neighbours, extremes, specials
    triples = []
    for a in small:
        for b in small:
            product, _ = ref.evaluate("TMUL", t, "hw-ieee", a, b)
            negated = product ^ (1 << num.FORMATS[t].sign_bit)  # cancels an exact product to a signed zero
            for c in (0, 1 << num.FORMATS[t].sign_bit, negated, pool[2], pool[16]):
                triples.append((a, b, c))
    return list(dict.fromkeys(triples))


def scalar_values(op: str, t: str, profile: str, pool: list) -> list:
    """The scalars of a tile-scalar configuration: the element semantics are the tile-tile
    ones (TileProfileBinaryWithFlags), so a few scalars pin the scalar path: 1.5 (ties and
    inexact results against the pool), the largest finite value (overflow), +0 (DZ, or NV
    for REM) and a signaling NaN; pto-v0 and the integer types: 1.5 or 3 and all ones."""
    if t in ref.INTEGER_TYPES:
        return [ref.normalized(3, t), ref.normalized(WORD, t)]
    f = num.FORMATS[t]
    one_half = num.encode_value(t, False, Fraction(3, 2), "RNE", False)[0]
    if profile == "pto-v0":
        return [one_half]
    values = [one_half, num.max_finite_code(t), 0]
    if f.nan == "ieee":
        values.append(pool[-1])  # the pool's signaling NaN
    return values


def x_grouped(op: str, t: str, profile: str, tuples):
    """{isolation key: [operand tuple, ...]} (each capped at ISOLATION_MAX, every class kept)."""
    items = []
    for operands in tuples:
        word, flags = ref.evaluate(op, t, profile, *operands)
        cls = element_class(op, t, profile, operands, word, flags) if t in ref.FLOAT_TYPES else "integer"
        items.append((operands, cls, flags))
    sets = value_classes.isolation_sets(items, ISOLATION_MAX)
    if not sets:  # one key: its elements (every class kept), integer pairs whole
        only = value_classes.isolation_key(items[0][1], items[0][2]) if items else value_classes.NOFLAG
        limit = len(items) if t in ref.INTEGER_TYPES else ISOLATION_MAX
        sets = {only: value_classes.capped(((operands, cls) for operands, cls, _ in items), limit)}
    return sets


def x_block_case(op, t, profiles, name, description, tuples, scalar=None) -> dict:
    """One block of ``op`` over one-row source tiles holding the operand tuples; the
    scalar form takes the scalar from R5."""
    n = len(tuples)
    cols = 1 << (n - 1).bit_length()
    capacity = max(128, cols * width(t) // 8)
    sources = [[[operands[i] for operands in tuples]] for i in range(source_count(op))]
    cases = run(name, description, op, t, sources, scalar, source="reference-generator",
                reference=f"{COMMAND} (vectors/reference/arith_elements.py)", profiles=profiles, cols=cols,
                capacity=capacity, valid=(1, n), ulp_tolerance=EXP_LOG_ULP.get(op))
    assert len(cases) == 1, name
    return cases[0]


def x_cases(op: str) -> list:
    cases = []
    for t in ref.LEGAL_TYPES[op]:
        low = t.lower()
        for profile in (BOTH if t in ref.INTEGER_TYPES else ["hw-ieee", "pto-v0"]):
            profiles = BOTH if t in ref.INTEGER_TYPES else [profile]
            suffix = "" if t in ref.INTEGER_TYPES else f"-{profile}"
            if kind(op) == "scalar":
                pool = float_pool(t) if t in ref.FLOAT_TYPES else integer_pool(t)
                for scalar in scalar_values(op, t, profile, pool):
                    sets = x_grouped(op, t, profile, [(a, scalar) for a in pool])
                    for key, members in sets.items():
                        label = value_classes.key_label(key)
                        cases.append(x_block_case(op, t, profiles, f"{low}-scalar-{scalar:x}-{label}{suffix}",
                                                  f"""{t} {op} with the scalar {scalar:#x}: the pool values whose
                                                  elements fall under {label} (one isolation key).""",
                                                  [(a,) for a, _ in members], scalar))
                if t in ref.INTEGER_TYPES:
                    break
                continue
            sets = x_grouped(op, t, profile, operand_sets(op, t))
            for key, members in sets.items():
                label = value_classes.key_label(key)
                for number, part in enumerate(chunks(members, ISOLATION_MAX)):
                    more = f"-{number + 1}" if len(members) > ISOLATION_MAX else ""
                    cases.append(x_block_case(op, t, profiles, f"{low}-{label}{more}{suffix}", f"""{t} {op}
                                              over special and boundary operands whose elements fall under {label}
                                              (one isolation key per case).""", part))
            if t in ref.INTEGER_TYPES:
                break
    return cases + divisor_upper_bits_cases(op)


def divisor_upper_bits_cases(op: str) -> list:
    """SPEC-CHOICE 25: an integer divisor Word whose element bits are zero but whose upper
    bits are not passes TilePayloadNonzero (whole Words) and then stops the ASL at
    TileIntegerDivRemValue's assertion; it is rejected like any zero divisor."""
    if op not in ("TDIV", "TREM"):
        return []
    tiles = [tile(0, "U16", 128, 2, (1, 2), [[7, 9]]), tile(1, "U16", 128, 2, (1, 2), [[3, 0x10000]])]
    return [bundle_fault(op, "u16-divisor-upper-bits-only", """SPEC-CHOICE: the divisor Word 0x10000 has zero U16
                         element bits: the executable TilePayloadNonzero (whole Words) would pass it and
                         TileIntegerDivRemValue's assertion stop the spec; the model rejects it as a zero divisor,
                         Fault_TileLegality, rolled back.""", tiles, "asl/tile/model/legality/allocation-capacity.asl "
                         "(TilePayloadNonzero); asl/tile/model/execution/elementwise.asl (TileIntegerDivRemValue)",
                         lb0=2)]


def x_file(op: str) -> dict:
    return {"format": "pto-avs-vector/1", "id": f"PTO-AVS-X-{op}-REF-001", "operation": op, "kind": "execution",
            "exercises": Flow(UNITS[op]["readiness_subjects"]),
            "provenance": ("Every expected value comes from the independent element reference "
                           "vectors/reference/arith_elements.py (the ASL's integer and pto-v0 paths; hw-ieee through "
                           "vectors/reference/arithmetic.py, exact rationals and mpmath), which shares no code with "
                           f"device_model, through `{COMMAND}`. Each case holds the operands of one isolation key "
                           "(value class and flags, vectors/reference/value_classes.py). Nothing here was produced by "
                           "running the golden model."),
            "cases": x_cases(op)}


# ---------------------------------------------------------------------------------------
# Files

FAMILY = engine.spec_id_family("generate_arith", OPERATIONS, spec_cases, x_file,
                               "vectors/reference/arith_elements.py", COMMAND)
files = FAMILY.files

if __name__ == "__main__":  # the command the files' provenance names: the engine's, for this family
    sys.exit(engine.legacy_main([FAMILY]))
