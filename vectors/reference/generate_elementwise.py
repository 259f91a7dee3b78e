"""Write the vectors of the exact elementwise operations (TAND ... TEXPANDS).

    .venv/bin/python -m pto_avs.vectors.reference generate|check TAND ... TEXPANDS
    .venv/bin/python -m pto_avs.vectors.reference.generate_elementwise [--out DIR] [--check]  (the same)

- one file per spec test ID of these operations (``PTO-AVS-TILE-<OP>-<NAME>-NNN.yaml``):
  cases that replay the spec test point (its tiles, its values, its bundle or direct call)
  with the values it asserts (``source: spec-test``, the test file and what it asserts as
  ``reference``), plus the same facts through the other path (a bundle for a direct-call
  test and the reverse) and the other profile, derived from the ASL (``source: hand``);
- per operation, ``PTO-AVS-X-<OP>-REF-001.yaml``: every legal type x the special and
  boundary values of its kind, one value class per tile (flag isolation), a padding and a
  carrier case (``source: reference-generator``).

Every expected value is the spec test's own assertion or comes from the independent
element reference ``vectors/reference/elementwise.py`` (which shares no code with
``device_model``); a spec-test value and the reference must agree or this script stops.
Nothing here runs the golden model. The output is deterministic; ``--check`` exits 1 when a
shipped file differs from what this script writes.
"""
from __future__ import annotations

import sys

from . import elementwise as ref
from . import engine
from .engine import (DATA_TYPES, OPERATION_TABLE, RESERVED_SELECTORS as RESERVED, UNITS, Flow, FlowMap, Hex,
                     bstart_word, case, first_free, iot_line as iot, size_code, spec_ref, tile, width)

COMMAND = ".venv/bin/python -m pto_avs.vectors.reference.generate_elementwise"
BOTH = ["pto-v0", "hw-ieee"]

# ---------------------------------------------------------------------------------------
# Each operation's example: the values of its spec execution test (BITS, MASK, SIGNED,
# WIDTH, INTEGERS, UNSIGNED, BUNDLE), used by the generic test points too.
EXAMPLE = {  # op -> (dtype, sources (each a list of rows), scalar)
    "TAND": ("U8", [[[240]], [[90]]], None), "TOR": ("U8", [[[240]], [[15]]], None),
    "TXOR": ("U8", [[[170]], [[15]]], None), "TSHL": ("U8", [[[1]], [[10]]], None),
    "TSHR": ("S8", [[[128]], [[1]]], None), "TMAX": ("U64", [[[3, 7]], [[5, 4]]], None),
    "TMIN": ("U64", [[[3, 7]], [[5, 4]]], None), "TABS": ("S8", [[[0xFF]]], None),
    "TNEG": ("U8", [[[1]]], None), "TRELU": ("S8", [[[0xFF]]], None), "TNOT": ("U8", [[[0x0F]]], None),
    "TANDS": ("U8", [[[170, 243]]], 15), "TORS": ("U8", [[[160, 240]]], 15), "TXORS": ("U8", [[[170, 243]]], 15),
    "TSHLS": ("U8", [[[129, 3]]], 9), "TSHRS": ("S8", [[[128, 126]]], 9), "TMAXS": ("U8", [[[2, 250]]], 9),
    "TMINS": ("U8", [[[2, 250]]], 9), "TEXPANDS": ("U8", [], 0x1FF),
}


def kind(op: str) -> str:
    return ref.OPERATIONS[op][1]


def source_count(op: str) -> int:
    return {"binary": 2, "unary": 1, "scalar": 1, "fill": 0}[kind(op)]


def closed(op: str) -> bool:
    """The operations with a closed bundle schema (all but TAND, TOR, TXOR, TSHL, TSHR)."""
    return op not in ("TAND", "TOR", "TXOR", "TSHL", "TSHR")


def compute(op: str, dtype: str, sources: list, scalar=None):
    """Expected (rows of result Words, flags) of ``op`` over source rows (reference)."""
    if kind(op) == "fill":
        return None, 0
    out, flags = [], 0
    for r, row in enumerate(sources[0]):
        line = []
        for c, value in enumerate(row):
            operands = [value] + [s[r][c] for s in sources[1:]] + ([scalar] if scalar is not None else [])
            result, f = ref.evaluate(op, dtype, *operands)
            line.append(result)
            flags |= f
        out.append(line)
    return out, flags


def fill_rows(dtype: str, scalar: int, valid) -> list:
    value, _ = ref.evaluate("TEXPANDS", dtype, scalar)
    return [[value] * valid[1] for _ in range(valid[0])]


# ---------------------------------------------------------------------------------------
# Case pieces

def result_tile(index, dtype, capacity, cols, valid, words, pad=None, location="Any", carrier=True) -> dict:
    """The expected destination: descriptor, element bits, carrier Words (pto-v0), padding
    (its element bits only)."""
    return engine.result_tile(index, dtype, capacity, cols, valid, words, pad, carrier=carrier, location=location,
                              pad_with_word=False)


def bundle(op: str, dtype: str, *, lb0=None, lb1=None, lb2=None, sources=(), size=1, datr=None,
           gpr=None, bstart=None, bindings=None) -> str:
    return engine.bundle_text(bstart or f"BSTART.VEC {op}, {dtype}", datr=datr and f"B.DATR {datr}",
                              dims={"LB0": lb0, "LB1": lb1, "LB2": lb2},
                              bindings=bindings if bindings is not None else [iot(sources, size)], gpr=gpr)


# ---------------------------------------------------------------------------------------
# One successful block or direct call of an operation over given tiles

def run_case(name, description, op, dtype, sources, scalar=None, *, profiles=BOTH, source="hand",
             reference="", capacity=128, cols=None, valid=None, direct=False, pad=None, dst=None,
             gpr=5, bstart=None, carrier=None, location=None, flags_by_profile=None, alias=False,
             extra_lines=None, dims=True) -> dict:
    """``sources``: one list of rows per source tile (tiles T0, T1 in that order)."""
    dims_given = dims
    rows = sources[0] if sources else None
    valid = valid or ((len(rows), len(rows[0])) if rows else (1, 2))
    if cols is None:  # the smallest legal tile: power-of-two columns and capacity
        cols = 1 << (valid[1] - 1).bit_length()
        capacity = max(capacity, 1 << (valid[0] * cols * width(dtype) // 8 - 1).bit_length())
    tiles = [tile(i, dtype, capacity, cols, valid, data) for i, data in enumerate(sources)]
    state = {"tiles": tiles}
    if scalar is not None and not direct and gpr:
        state["gprs"] = FlowMap({gpr: Hex(scalar)})
    words, flags = compute(op, dtype, sources, scalar) if sources else (fill_rows(dtype, scalar, valid), 0)
    if flags_by_profile is not None:
        flags = flags_by_profile
    carrier = profiles == ["pto-v0"] if carrier is None else carrier
    indices = list(range(len(sources)))
    if direct:
        target = dst if dst is not None else (0 if alias else len(sources))
        if target not in indices:
            state["tiles"].append(tile(target, dtype, capacity, cols, valid))
        call = {"call": op, "dst": target}
        call.update({key: i for key, i in zip(("src", "src1"), indices)})
        if scalar is not None:
            call["scalar"] = Hex(scalar)
        if pad:
            call["pad"] = pad
        program = [FlowMap(call)]
        allocated = sorted(set(indices) | {target})
        unchanged = [i for i in indices if i != target]
        loc = location or "Any"
    else:
        target = first_free(indices)
        dims = {"lb0": valid[1], "lb1": valid[0] if valid[0] != 1 else None, "lb2": cols if cols != valid[1] else None}
        if not dims_given:
            dims = {}
        datr = {"Zero": "Zero", "Max": "Max", "Min": "Min"}.get(pad) if pad else None
        program = bundle(op, dtype, **dims, sources=indices, size=size_code(capacity), datr=datr,
                         gpr=gpr if ref.OPERATIONS[op][1] in ("scalar", "fill") and gpr else None, bstart=bstart)
        if extra_lines:
            program = extra_lines(program)
        allocated = sorted(set(indices) | {target})
        unchanged = indices
        loc = "Any"
    expect = {"fault": None, "flags": Hex(flags), "allocated": Flow(allocated)}
    if unchanged:
        expect["unchanged"] = Flow(unchanged)
    expect["tiles"] = [result_tile(target, dtype, capacity, cols, valid, words, pad, loc, carrier)]
    return case(name, description, profiles, source, reference, state, program, expect)


def fault_case(name, description, op, dtype, tiles, program, fault="Fault_TileLegality", *, source="hand",
               reference="", profiles=BOTH, gprs=None) -> dict:
    return engine.fault_case(name, description, tiles, program, fault, source=source, reference=reference,
                             profiles=profiles, gprs=gprs)


# ---------------------------------------------------------------------------------------
# Spec test points, by the name part of their ID

def t_static(op, test_id):
    dtype, sources, scalar = EXAMPLE[op]
    spec = OPERATION_TABLE[op]
    word = bstart_word(op, dtype)
    selector = int(spec["selector"], 16)
    what = (f"DecodeTileOperation(TEPL, {selector:#05x}) selects {op}, handler {spec['semantic_handler']}, "
            f"engine {spec['engine']}")
    reference = spec_ref(test_id, what)
    valid = (1, len(sources[0][0])) if sources else (1, 2)
    cases = [
        run_case(f"bstart-vec-{op.lower()}-{dtype.lower()}", f"""BSTART.VEC {op}, {dtype} = {word:#010x} (Mode
            {spec['mode']}, Function {spec['function']}: selector {spec['selector']}) runs {op} on the
            operation's example values.""", op, dtype, sources, scalar, source="spec-test",
                 reference=reference, valid=valid),
        run_case("bstart-tepl-mode-function", f"""BSTART.TEPL {spec['mode']}, {spec['function']}, {dtype}: the
            same word, the same block.""", op, dtype, sources, scalar, source="spec-test", reference=reference,
                 valid=valid, bstart=f"BSTART.TEPL {spec['mode']}, {spec['function']}, {dtype}"),
    ]
    raw = run_case("raw-bstart-word", f"""The BSTART as the raw word {word:#010x} packed by hand from command
        form 33 (match 0x00019181, DataType 31:27, Mode 26:25, Function 24:20).""", op, dtype, sources, scalar,
                   source="spec-test", reference=reference, valid=valid)
    lines = raw["program"].splitlines()
    raw["program"] = Flow([Hex(word)] + lines[1:])
    cases.append(raw)
    cases.append(case("bstart-encoding", f"BSTART.VEC {op}, {dtype} assembles to {word:#010x}; the block stays "
                      "open at the end of the program, so nothing is allocated.", BOTH, "spec-table",
                      "spec/catalog/command-forms.json form 33; " + reference, None, f"BSTART.VEC {op}, {dtype}",
                      {"fault": None, "flags": Hex(0), "encoding": Flow([Hex(word)]), "allocated": Flow([])}))
    for neighbour in (selector - 1, selector + 1):
        if any(lo <= neighbour <= hi for lo, hi in RESERVED):
            mode, function = neighbour >> 5, neighbour & 31
            tiles = [tile(i, dtype, 128, valid[1], valid, sources[i]) for i in range(len(sources))]
            program = bundle(op, dtype, lb0=valid[1], sources=list(range(len(sources))),
                             bstart=f"BSTART.TEPL {mode}, {function}, {dtype}", gpr=5 if scalar is not None else None)
            cases.append(fault_case(f"neighbour-selector-{neighbour:#05x}-reserved", f"""Selector
                {neighbour:#05x} (Mode {mode}, Function {function}) next to {op}'s is reserved:
                Fault_IllegalInstruction at BSTART.""", op, dtype, tiles, program, "Fault_IllegalInstruction",
                                    source="spec-table", reference="contract/spec_data/tile-operations.json "
                                    "reserved.tepl_selector_ranges", gprs={5: scalar} if scalar is not None else None))
    return cases


def _type_values(op, dtype):
    """Representative source rows and scalar for a legal type (reference-computed results)."""
    if kind(op) == "fill":
        return [], 0x1234567890ABCDEF
    if dtype in ("FP64", "FP32", "TF32", "HF32", "FP16", "BF16", "E4M3", "E5M2"):
        one = {"FP64": 0x3FF0000000000000, "FP32": 0x3F800000, "TF32": 0x3F800000, "HF32": 0x3F800000,
               "FP16": 0x3C00, "BF16": 0x3F80, "E4M3": 0x38, "E5M2": 0x3C}[dtype]
        sign = 1 << (width(dtype) - 1)
        row = [one, one | sign]
    else:
        top = 1 << (width(dtype) - 1)
        row = [top | 5, 3]  # a negative value for S types, a large one for U types
    sources = [[row], [[row[1], row[0]]]][:source_count(op)]
    scalar = row[1] if kind(op) == "scalar" else None
    return sources, scalar


def t_types(op, test_id):
    cases = []
    legal = ref.LEGAL_TYPES[op]
    for dtype in DATA_TYPES:
        if dtype in legal:
            sources, scalar = _type_values(op, dtype)
            cases.append(run_case(f"{dtype.lower()}-legal", f"""{dtype} is in {op}'s type set
                ({'TileVecArithmeticDataTypeSupported' if len(legal) > 8 else 'TileVecScalarIntegerDataTypeSupported'}):
                the block completes; values from the element reference.""", op, dtype, sources, scalar,
                                  source="hand", reference=spec_ref(test_id, "InstructionContractDataTypeLegal_"
                                  f"{op}; asl/tile/model/legality/dtype-layout.asl"),
                                  valid=(1, 2)))
        else:
            tiles = [tile(i, dtype, 128, 2, (1, 2), [[0, 0]]) for i in range(source_count(op))]
            program = bundle(op, dtype, lb0=2, sources=list(range(source_count(op))),
                             gpr=5 if kind(op) in ("scalar", "fill") else None)
            where = "its closed schema (before allocation)" if closed(op) else \
                "TileOperandsLegal_ExecuteTileBinary after allocation (rolled back)"
            cases.append(fault_case(f"{dtype.lower()}-rejected", f"""{dtype} is outside {op}'s type set:
                {where} raises Fault_TileLegality and nothing is published.""", op, dtype, tiles, program,
                                    reference=spec_ref(test_id, f"!InstructionContractDataTypeLegal_{op}"),
                                    gprs={5: 0} if kind(op) in ("scalar", "fill") else None))
    return cases


def t_execute(op, test_id, dtype, sources, scalar, expected, what, *, flags=0, cols=None, capacity=128,
              hw_flags=None, alias=False):
    """A direct call replaying the spec test (its asserted values), plus a bundle twin."""
    words, f = compute(op, dtype, sources, scalar)
    assert [w for row in words for w in row] == expected, (test_id, words, expected)
    assert f == flags, (test_id, f, flags)
    reference = spec_ref(test_id, what)
    cases = []
    if hw_flags is None:
        cases.append(run_case("direct-call", f"The spec test point as a direct call: {what}.", op, dtype, sources,
                              scalar, source="spec-test", reference=reference, direct=True, cols=cols,
                              capacity=capacity, alias=alias, profiles=BOTH, carrier=False))
        cases.append(run_case("direct-call-carrier", f"""pto-v0 carrier Words of the direct call (the ASL's
            result Word: {'sign-extended' if kind(op) in ('binary', 'scalar') and op[:4] in ('TMAX', 'TMIN') else
            'zero-extended'} element bits).""", op, dtype, sources, scalar, source="spec-test", reference=reference,
                              direct=True, cols=cols, capacity=capacity, alias=alias, profiles=["pto-v0"]))
    else:
        for profile, value in (("pto-v0", flags), ("hw-ieee", hw_flags)):
            cases.append(run_case(f"direct-call-{profile}", f"The spec test point as a direct call: {what}; "
                                  f"NumericStatus {value:#x} under {profile}.", op, dtype, sources, scalar,
                                  source="spec-test" if profile == "pto-v0" else "hand", reference=reference,
                                  direct=True, cols=cols, capacity=capacity, profiles=[profile],
                                  flags_by_profile=value, carrier=profile == "pto-v0"))
    if not alias:
        bundle_flags = flags if hw_flags is None else None
        profiles = [(BOTH, bundle_flags)] if hw_flags is None else [(["pto-v0"], flags), (["hw-ieee"], hw_flags)]
        for group, value in profiles:
            suffix = "" if len(group) == 2 else f"-{group[0]}"
            cases.append(run_case(f"bundle{suffix}", f"The same elements through a complete {op} block; the "
                                  "destination is renamed to the first free T index.", op, dtype, sources, scalar,
                                  source="hand", reference=reference + "; asl/block/model/dispatch/tile-execution.asl",
                                  cols=cols, capacity=capacity, profiles=group, flags_by_profile=value,
                                  carrier=group == ["pto-v0"]))
    return cases


def t_example(op, test_id, what):
    dtype, sources, scalar = EXAMPLE[op]
    words, _ = compute(op, dtype, sources, scalar)
    return t_execute(op, test_id, dtype, sources, scalar, [w for r in words for w in r], what)


def t_padding(op, test_id, dtype, sources, scalar, pad, what, *, capacity=128, cols=8, null_asserted=True):
    reference = spec_ref(test_id, what)
    valid = (1, 1)
    cases = []
    for p in ([pad, None] if pad else [None]):
        label = (p or "Null").lower()
        text = (f"PadValue {p}: every other coordinate is defined and holds the pad" if p else
                "no PadValue (Null): every other coordinate is undefined")
        asserted = p is not None or null_asserted
        cases.append(run_case(f"direct-{label}", f"Direct call with {text}; the valid element is the result.",
                              op, dtype, sources, scalar, source="spec-test" if asserted else "hand",
                              reference=reference if asserted else reference + "; CurrentBundlePadValue: Null",
                              direct=True, cols=cols, capacity=capacity, valid=valid, pad=p, carrier=False))
    if dtype == "FP64" or (pad is None):
        cases.append(run_case("bundle", "The same through a block" + (f" with B.DATR {pad}" if pad else "") + ".",
                              op, dtype, sources, scalar, reference=reference, cols=cols, capacity=capacity,
                              valid=valid, pad=pad, carrier=False))
    return cases


def t_datr(op, test_id):
    dtype, sources, scalar = EXAMPLE[op]
    reference = spec_ref(test_id, "TileOperationDATRFieldsLegal: PadValue applies; CMode and Sat do not")
    valid = (1, len(sources[0][0])) if sources else (1, 2)
    tiles = [tile(i, dtype, 128, valid[1], valid, sources[i]) for i in range(len(sources))]
    gprs = {5: scalar} if scalar is not None else None
    cases = []
    for field, text in (("CMode=NE", "CMode 1"), ("Sat=1", "Sat")):
        program = bundle(op, dtype, lb0=valid[1], sources=list(range(len(sources))), datr=field,
                         gpr=5 if scalar is not None else None)
        cases.append(fault_case(f"datr-{field.split('=')[0].lower()}-rejects", f"""B.DATR {text}: not applicable
            to {op} (only PadValueOrByteId is): Fault_TileLegality before allocation.""", op, dtype, tiles,
                                program, source="spec-test", reference=reference, gprs=gprs))
    if "FP64" in ref.LEGAL_TYPES[op]:
        fsources, fscalar = _type_values(op, "FP64")
        cases.append(run_case("datr-max-fp64", """B.DATR Max is applicable: an FP64 block (B.DATR DataType 0 is
            FP64, the effective destination type) pads with the FP64 Max word.""", op, "FP64", fsources, fscalar,
                              source="spec-test", reference=reference + "; asl/block/model/dispatch/"
                              "descriptor-legality.asl (ResolveBundleEffectiveDataType)", cols=4, capacity=128,
                              valid=(1, 2) if fsources else (1, 2), pad="Max", carrier=False))
    program = bundle(op, dtype, lb0=valid[1], sources=list(range(len(sources))), datr="Max",
                     gpr=5 if scalar is not None else None)
    cases.append(fault_case("datr-max-on-non-fp64", f"""SPEC-CHOICE (digest 7.4, as for TMULS): a present
        B.DATR always carries DataType, 0 = FP64, which becomes the destination type; B.DATR Max on a
        {dtype} {op} block allocates an FP64 destination that the operand rule rejects: Fault_TileLegality,
        rolled back.""", op, dtype, tiles, program, reference="asl/block/model/dispatch/descriptor-legality.asl "
                            "(ResolveBundleEffectiveDataType); " + reference, gprs=gprs))
    return cases


def t_defaults(op, test_id):
    """LB1 omitted = 1, LB2 omitted = LB0 (U64 1x2 source in an 8x2 tile)."""
    dtype = "U64"
    sources = [[[3, 7]], [[5, 4]]][:source_count(op)]
    scalar = 6 if kind(op) == "scalar" else None
    return [run_case("lb1-lb2-omitted", """Only LB0=2: the destination has ValidRow 1 and Col 2 (LB1 and LB2
        defaults) and holds the results.""", op, dtype, sources, scalar, source="spec-test",
                     reference=spec_ref(test_id, "valid_rows 1, valid_columns 2, columns 2"), cols=2, capacity=128)]


def t_lb0(op, test_id):
    dtype = "U64"
    tiles = [tile(i, dtype, 128, 2, (1, 2), [[3, 5]]) for i in range(source_count(op))]
    program = bundle(op, dtype, sources=list(range(source_count(op))), gpr=5 if kind(op) == "scalar" else None)
    return [fault_case("lb0-omitted", "No B.DIM LB0: the closed schema fails, Fault_TileLegality before "
                       "allocation; the source is unchanged.", op, dtype, tiles, program, source="spec-test",
                       reference=spec_ref(test_id, "_LastFault == Fault_TileLegality, not allocated"),
                       gprs={5: 1} if kind(op) == "scalar" else None)]


def t_schema(op, test_id):
    dtype = "U64"
    n = source_count(op)
    tiles = [tile(i + 1, dtype, 128, 1, (1, 1), [[3 + 2 * i]]) for i in range(n)]
    if n == 2:
        bindings = ["B.IOT T1, mask=1111, ->T<1>", "B.IOT T2, mask=1111, <last>"]
    else:
        bindings = ["B.IOT T1, mask=1111", "B.IOT mask=1111, <last>, ->T<1>"]
    program = bundle(op, dtype, lb0=1, bindings=bindings, gpr=5 if kind(op) == "scalar" else None)
    return [fault_case("split-binding", f"""The destination and the source(s) in two B.IOT records: binding
        completeness holds, but {op}'s closed schema needs one terminal B.IOT: Fault_TileLegality.""", op,
                       dtype, tiles, program, source="spec-test", reference=spec_ref(test_id, "Fault_TileLegality"),
                       gprs={5: 1} if kind(op) == "scalar" else None)]


def t_capacity(op, test_id):
    dtype = "U64"
    n = source_count(op)
    data = [list(range(17))]
    tiles = [tile(i, dtype, 256, 32, (1, 17), data) for i in range(n)]
    program = bundle(op, dtype, lb0=17, lb2=32, sources=list(range(n)), size=1,
                     gpr=5 if kind(op) in ("scalar", "fill") else None)
    return [fault_case("destination-too-small", """A 128-byte destination (SizeCode 1) cannot hold 32 U64
        columns: Fault_TileAllocation, nothing published.""", op, dtype, tiles, program, "Fault_TileAllocation",
                       source="spec-test", reference=spec_ref(test_id, "_LastFault == Fault_TileAllocation"),
                       gprs={5: 1} if kind(op) in ("scalar", "fill") else None)]


def t_mask_zero(op, test_id):
    dtype = "U64"
    word = bstart_word(op, dtype)
    reference = spec_ref(test_id, "completes with no fault, nothing allocated")
    return [
        case("zero-mask-record", f"""The spec test's records: BSTART {word:#010x}, then B.IOT N15 with PEMode
            000 and L=1 (0x03F85013): a strict no-op before dimensions, sources, schema or allocation.""", BOTH,
             "spec-test", reference, None, Flow([Hex(word), Hex(0x03F85013), Hex(1)]),
             {"fault": None, "flags": Hex(0), "allocated": Flow([])}),
        case("zero-mask-complete-block", f"""A complete {op} block whose binding has mask=0000: no effect
            even though its source is undefined.""", BOTH, "hand", reference,
             {"tiles": [tile(0, dtype, 128, 2, (1, 2), defined="none")]},
             bundle(op, dtype, lb0=2, bindings=[iot(list(range(source_count(op))) or [], 1, mask="0000")]),
             {"fault": None, "flags": Hex(0), "allocated": Flow([0]), "unchanged": "all"}),
    ]


def _direct_fault(op, test_id, name, description, tiles, dst, what, scalar=None):
    call = {"call": op, "dst": dst}
    srcs = [t["index"] for t in tiles if t["index"] != dst]
    if kind(op) == "unary" or kind(op) == "scalar":
        call["src"] = srcs[0] if srcs else dst
    elif kind(op) == "binary":
        call["src"], call["src1"] = srcs[0], srcs[1]
    if scalar is not None:
        call["scalar"] = Hex(scalar)
    return fault_case(name, description, op, tiles[0]["dtype"], tiles, Flow([FlowMap(call)]), source="spec-test",
                      reference=spec_ref(test_id, what))


def t_defined(op, test_id, dtype):
    n = source_count(op)
    tiles = [tile(i, dtype, 128, 1, (1, 1), [[3]] if i == 0 and n == 2 else None, defined="none" if (
        i == n - 1) else None) for i in range(n)] + [tile(n, dtype, 128, 1, (1, 1), defined="none")]
    return [_direct_fault(op, test_id, "undefined-source", f"""The {'right' if n == 2 else ''} source is
        undefined: operand legality fails, Fault_TileLegality; the destination stays undefined.""", tiles, n,
                          "operand legality false, destination not defined")]


def t_encoding(op, test_id):
    n = source_count(op)
    tiles = [tile(0, "TF32", 128, 1, (1, 1), [[0x3F800001]])]
    if n == 2:
        tiles.append(tile(1, "TF32", 128, 1, (1, 1), [[0x40000000]]))
    tiles.append(tile(n, "TF32", 128, 1, (1, 1), defined="none"))
    cases = [_direct_fault(op, test_id, "tf32-discarded-fraction-bits", """A TF32 source with nonzero discarded
        fraction bits (0x3F800001) is an invalid encoding: Fault_TileLegality, destination undefined.""", tiles, n,
                           "operand legality false")]
    btiles = [dict(t) for t in tiles[:n]]
    for t in btiles:
        t["cols"] = 1
    program = bundle(op, "TF32", lb0=1, sources=list(range(n)))
    cases.append(fault_case("bundle", """The same source in a complete block: the operand rule after
        allocation rejects it (Fault_TileLegality, rolled back).""", op, "TF32", btiles, program,
                            reference=spec_ref(test_id)))
    return cases


def t_layout(op, test_id, dtype, value):
    n = source_count(op)
    tiles = [tile(i, dtype, 128, 8, (1, 1), [[value]] if i == 0 else ([[5]] if i < n else None),
                  layout="ColumnMajor", defined=None if i < n else "none") for i in range(n + 1)]
    return [_direct_fault(op, test_id, "column-major", """ColumnMajor source(s) and destination of matching
        shape: only RowMajor operands are legal, Fault_TileLegality.""", tiles, n, "operand legality false")]


def t_shape(op, test_id, dtype, value):
    tiles = [tile(0, dtype, 128, 8, (1, 1), [[value]]), tile(1, dtype, 128, 4, (1, 1), defined="none")]
    return [_direct_fault(op, test_id, "destination-columns-differ", """A destination of 4 columns for an
        8-column source: TileShapeAndTypeMatch fails, Fault_TileLegality.""", tiles, 1, "operand legality false")]


def t_float(op, test_id, value, expected, flags, what):
    return t_execute(op, test_id, "FP32", [[[value]]], None, [expected], what, flags=flags)


def t_minmax_special(op, test_id, pairs, what):
    """Floating special values as 1x1 direct calls, one pair per case (flag isolation)."""
    cases = []
    for label, left, right, expected, invalid in pairs:
        words, flags = compute(op, "FP32", [[[left]], [[right]]])
        assert words[0][0] == expected and flags == invalid, (test_id, label)
        for profile in BOTH:
            value = invalid if profile == "hw-ieee" else 0
            cases.append(run_case(f"{label}-{profile}", f"""FP32 {left:#x} vs {right:#x} -> {expected:#x}
                ({what}); status {value:#x}: tile-tile {op} records no status under pto-v0 (SPEC-CHOICE:
                ExecuteTileBinary drops the flags of TileProfileBinaryWithFlags) and NV for a signaling NaN
                under hw-ieee.""", op, "FP32", [[[left]], [[right]]], source="spec-test" if not invalid or
                                  profile == "hw-ieee" else "hand", reference=spec_ref(test_id, what), direct=True,
                                  profiles=[profile], flags_by_profile=value, carrier=False))
    return cases


def t_bundle_texpands(op, test_id):
    return [run_case("bundle-gpr-0x1ff", """R2 = 0x1FF, LB0=2, a 128-byte destination: both valid U8
        elements are 0xFF (the low element bits; upper GPR bits ignored).""", op, "U8", [], 0x1FF,
                     source="spec-test", reference=spec_ref(test_id, "both elements 0xff"), valid=(1, 2), gpr=2),
            run_case("bundle-b-ior-omitted", """No B.IOR: the scalar is 0 (no GPR read), every element 0.""", op,
                     "U8", [], 0, reference=spec_ref(test_id) + "; asl/block/model/dispatch/tile-schema.asl "
                     "(BundleTileInstructionOperands)", valid=(1, 2), gpr=None)]


def spec_cases(op: str, test_id: str) -> list:
    name = test_id[len(f"PTO-AVS-TILE-{op}-"):-4]
    dtype, sources, scalar = EXAMPLE[op]
    integer = {"TABS": "S8", "TNEG": "U8", "TRELU": "S8", "TNOT": "U8"}.get(op, "U64")
    value = {"TABS": 0xFF, "TNEG": 1, "TRELU": 0xFF, "TNOT": 0x0F}.get(op, 3)
    if name == "STATIC":
        return t_static(op, test_id)
    if name == "TYPES":
        return t_types(op, test_id)
    if name in ("BITS", "MASK", "SIGNED", "WIDTH", "UNSIGNED", "BUNDLE") and op != "TEXPANDS":
        if name == "WIDTH" and op in ("TABS", "TNEG", "TRELU", "TNOT"):
            expected = {"TABS": 1, "TNEG": 0xFF, "TNOT": 0xF0}[op]
            return t_execute(op, test_id, dtype, sources, scalar, [expected], f"{dtype} -> {expected:#x}")
        words, _ = compute(op, dtype, sources, scalar)
        return t_example(op, test_id, "results " + ", ".join(f"{w:#x}" for r in words for w in r))
    if name == "BUNDLE":
        return t_bundle_texpands(op, test_id)
    if name == "BF16-DECODED":
        return t_execute(op, test_id, "BF16", [[[0xBF80]]], None, [0x3F80], "BF16 0xbf80 -> 0x3f80")
    if name == "SIGNED" or (op == "TRELU" and name == "SIGNED"):
        return t_execute(op, test_id, "S8", [[[0xFF]]], None, [0], "S8 -1 -> 0")
    if name == "INTEGERS":
        s8 = 1 if op == "TMAX" else (1 << 64) - 1
        u8 = 0xFF if op == "TMAX" else 1
        return (t_execute(op, test_id, "S8", [[[0xFF]], [[1]]], None, [s8], f"S8 -> {s8:#x}")
                + [dict(c, name="u8-" + c["name"]) for c in
                   t_execute(op, test_id, "U8", [[[0xFF]], [[1]]], None, [u8], f"U8 -> {u8:#x}")])
    if name == "ALIAS":
        srcs = [[[3]], [[5]]] if kind(op) == "binary" else [[[value]]]
        t = "U64" if kind(op) == "binary" else integer
        words, _ = compute(op, t, srcs)
        return t_execute(op, test_id, t, srcs, None, [words[0][0]], f"destination = source 0 -> {words[0][0]:#x}",
                         alias=True)
    if name == "FLOAT":
        if op in ("TMAX", "TMIN"):
            expected = 0xBF800000 if op == "TMAX" else 0xC0000000
            return t_execute(op, test_id, "FP32", [[[0xC0000000]], [[0xBF800000]]], None, [expected],
                             f"-2.0 vs -1.0 -> {expected:#x}")
        value_in = {"TABS": 0xFF800001, "TNEG": 0xFF800001, "TRELU": 0xFF800000}[op]
        expected = {"TABS": 0x7F800001, "TNEG": 0x7F800001, "TRELU": 0}[op]
        return t_float(op, test_id, value_in, expected, 0, f"FP32 {value_in:#x} -> {expected:#x}, no status")
    if name == "NAN" and op == "TRELU":
        return t_execute(op, test_id, "FP32", [[[0x7F800001]]], None, [0x7FC00000],
                         "signaling NaN -> 0x7fc00000 with NV", flags=1)
    if name == "NAN":
        return t_minmax_special(op, test_id, [
            ("one-nan", 0x7FC00001, 0x3F800000, 0x3F800000, 0), ("two-nans", 0x7FC00001, 0x7FC00001, 0x7FC00000, 0),
            ("signaling-nan", 0x7F800001, 0x3F800000, 0x3F800000, 1)], "one NaN: the number; two: canonical; "
            "signaling: invalid")
    if name == "ZERO":
        zero_pairs = ([("mixed-forward", 0x80000000, 0, 0, 0), ("mixed-reverse", 0, 0x80000000, 0, 0),
                       ("both-negative", 0x80000000, 0x80000000, 0x80000000, 0)] if op == "TMAX" else
                      [("mixed-forward", 0, 0x80000000, 0x80000000, 0), ("mixed-reverse", 0x80000000, 0, 0x80000000, 0),
                       ("both-positive", 0, 0, 0, 0)])
        return t_minmax_special(op, test_id, zero_pairs, "signed-zero ties")
    if name == "PADDING":
        if op == "TEXPANDS":
            return t_padding(op, test_id, "U64", [], 7, "Zero", "7 with Zero padding defined; Null undefined")
        if op in ("TAND", "TOR", "TXOR", "TSHL", "TSHR"):
            vals = {"TAND": ([[15]], [[6]], "Zero"), "TOR": ([[8]], [[3]], "Max"), "TXOR": ([[10]], [[6]], None),
                    "TSHL": ([[3]], [[1]], "Zero"), "TSHR": ([[128]], [[1]], "Max")}[op]
            return t_padding(op, test_id, "U8", [vals[0], vals[1]], None, vals[2], "padding of a 16x8 U8 tile",
                             null_asserted=op == "TXOR")
        if op in ("TMAX", "TMIN"):
            t, pad = ("U64", "Max") if op == "TMAX" else ("S8", "Min")
            return t_padding(op, test_id, t, [[[7]], [[5]]], None, pad, f"{pad} padding", cols=2 if t == "U64"
                             else 8)
        return t_padding(op, test_id, "U64", [[[7 if op == "TABS" else 1 if op == "TNEG" else 3]]], None, "Max",
                         "Max padding Ones; Null undefined", cols=2)
    if name == "DATR":
        return t_datr(op, test_id)
    if name == "DEFAULTS":
        return t_defaults(op, test_id)
    if name == "LB0":
        return t_lb0(op, test_id)
    if name == "SCHEMA":
        return t_schema(op, test_id)
    if name == "CAPACITY":
        return t_capacity(op, test_id)
    if name == "MASK-ZERO":
        return t_mask_zero(op, test_id)
    if name == "DEFINED":
        return t_defined(op, test_id, "U64" if kind(op) == "binary" else integer)
    if name == "ENCODING":
        return t_encoding(op, test_id)
    if name == "LAYOUT":
        return t_layout(op, test_id, "U64" if kind(op) == "binary" else integer, value)
    if name == "SHAPE":
        return t_shape(op, test_id, integer, value)
    raise KeyError(f"no builder for {test_id}")


# ---------------------------------------------------------------------------------------
# Reference vectors beyond the spec IDs: every legal type x special and boundary values,
# one value class per tile

def float_classes(t: str) -> dict:
    """Value class -> element encodings of floating type t, from its format parameters."""
    exp_bits, frac_bits, shift, rule, canonical = ref.FLOATS[t]
    sign = 1 << (width(t) - 1)
    top = (1 << exp_bits) - 1
    frac = lambda f: f << shift  # noqa: E731
    expo = lambda e: e << (shift + frac_bits)  # noqa: E731
    max_exp = top - 1 if rule == "ieee" else top
    max_frac = (1 << frac_bits) - 1 - (1 if rule == "e4m3" else 0)
    positive = {"zero": [0], "subnormal": [frac(1), frac((1 << frac_bits) - 1)],
                "normal": [expo(1), expo(top >> 1), expo(max_exp) | frac(max_frac)]}
    out = {}
    for name, codes in positive.items():
        out["+" + name] = codes
        out["-" + name] = [c | sign for c in codes]
    if rule == "ieee":
        out["+inf"], out["-inf"] = [expo(top)], [expo(top) | sign]
        quiet = frac(1 << (frac_bits - 1))
        out["qnan"] = [canonical, expo(top) | quiet | frac(1) | sign]
        if frac_bits > 1:
            out["snan"] = [expo(top) | frac(1), expo(top) | frac(1) | sign]
    else:
        out["qnan"] = [canonical, canonical | sign]
    return out


def int_values(t: str) -> list:
    w = width(t)
    m = (1 << w) - 1
    pattern = int("5A" * (w // 8), 16)
    return sorted({0, 1, 2, 3, 1 << (w - 1), (1 << (w - 1)) - 1, m, m - 1, pattern, pattern ^ m})


def shift_counts(t: str) -> list:
    w = width(t)
    return sorted({0, 1, w - 1, w, w + 1, 2 * w - 1, 2 * w, 63, 64, 0xFF})


def x_case(op, name, description, dtype, sources, scalar=None, profiles=BOTH, carrier=False, **kw) -> dict:
    return run_case(name, description, op, dtype, sources, scalar, profiles=profiles, source="reference-generator",
                    reference=COMMAND + " (vectors/reference/elementwise.py)", carrier=carrier, **kw)


def x_minmax_flags(op, sources, dtype, scalar=None):
    """Tile-tile TMAX/TMIN record no status under pto-v0 (SPEC-CHOICE 22)."""
    _, flags = compute(op, dtype, sources, scalar)
    if kind(op) == "binary" and flags:
        return [(["pto-v0"], 0), (["hw-ieee"], flags)]
    return [(BOTH, None)]


def x_cases(op: str) -> list:
    cases = []
    for t in ref.LEGAL_TYPES[op]:
        low = t.lower()
        if t in ref.FLOATS:
            classes = float_classes(t)
            everything = [c for name, codes in classes.items() if name != "snan" for c in codes]
            for name, codes in classes.items():
                label = {"+": "pos-", "-": "neg-"}.get(name[0], "") + name.lstrip("+-")
                row = (codes * len(everything))[:len(everything)] if kind(op) != "unary" else codes
                if kind(op) == "unary":
                    sources = [[row]]
                elif kind(op) == "binary":
                    sources = [[row], [everything]]
                elif kind(op) == "scalar":
                    sources = [[everything]]
                else:
                    continue
                scalars = codes if kind(op) == "scalar" else [None]
                for n, scalar in enumerate(scalars):
                    for group, flags in x_minmax_flags(op, sources, t, scalar):
                        suffix = "" if len(scalars) == 1 else f"-{n}"
                        suffix += "" if len(group) == 2 else f"-{group[0]}"
                        what = ("the scalar" if kind(op) == "scalar" else "every element of the left source"
                                if kind(op) == "binary" else "every element")
                        cases.append(x_case(op, f"{low}-{label}{suffix}", f"""{t}: {what} is {name}
                            ({', '.join(hex(c) for c in codes)}); the other operand runs over every class but
                            signaling NaN, so a flag comes only from this tile's class.""", t, sources, scalar,
                                            profiles=group, flags_by_profile=flags))
            if kind(op) == "binary" and "snan" in classes:
                sources = [[everything], [(classes["snan"] * len(everything))[:len(everything)]]]
                for group, flags in x_minmax_flags(op, sources, t):
                    suffix = "" if len(group) == 2 else f"-{group[0]}"
                    cases.append(x_case(op, f"{low}-snan-right{suffix}", f"""{t}: the right source is a
                        signaling NaN against every other class: the left operand is chosen, NV (hw-ieee;
                        none under pto-v0, see the SPEC-CHOICE).""", t, sources, profiles=group,
                                        flags_by_profile=flags))
        else:
            values = int_values(t)
            if op in ("TSHL", "TSHR", "TSHLS", "TSHRS"):
                counts = shift_counts(t)
                if kind(op) == "binary":
                    grid_l = [[v for v in values for _ in counts]]
                    grid_r = [[c for _ in values for c in counts]]
                    cases.append(x_case(op, f"{low}-counts", f"""{t}: every boundary value shifted by counts
                        0, 1, width-1, width, width+1, 2*width-1, 2*width, 63, 64 and 255 (only the low
                        log2(width) bits count).""", t, [grid_l, grid_r]))
                else:
                    for c in counts:
                        cases.append(x_case(op, f"{low}-count-{c}", f"""{t}: every boundary value shifted by
                            the scalar count {c} (only its low log2(width) bits count).""", t, [[values]], c))
            elif kind(op) == "binary":
                grid_l = [[a for a in values for _ in values]]
                grid_r = [[b for _ in values for b in values]]
                cases.append(x_case(op, f"{low}-pairs", f"""{t}: every pair of the boundary values (0, 1, 2, 3,
                    the extremes, all ones, 0x5A.. patterns).""", t, [grid_l, grid_r]))
            elif kind(op) == "unary":
                cases.append(x_case(op, f"{low}-values", f"{t}: every boundary value.", t, [[values]]))
            elif kind(op) == "scalar":
                for v in values:
                    cases.append(x_case(op, f"{low}-scalar-{v:x}", f"""{t}: every boundary value against the
                        scalar {v:#x}.""", t, [[values]], v))
            if kind(op) == "fill":
                for v in values + [((1 << 64) - 1) ^ 0xFF]:
                    cases.append(x_case(op, f"{low}-scalar-{v:x}", f"""{t}: the GPR scalar {v:#x} fills the
                        2x3 valid region of a 4x4 tile with its low element bits.""", t, [], v, valid=(2, 3),
                                        cols=4, capacity=max(128, 16 * width(t) // 8)))
        if t == "U8" and not closed(op):
            sources, _ = _type_values(op, t)
            sources = [[row + row[:1], row[::-1] + row[1:]] for row in (src[0] for src in sources)]
            cases.append(x_case(op, "u8-no-dimensions", f"""{op} has no closed schema: a block without B.DIM
                sizes its destination from the first source (ResolveBundleTileDestinations: valid 2x3, 8
                columns).""", t, sources, cols=8, capacity=128, dims=False))
        if t in ("FP32", "S16", "U8") and kind(op) != "fill":
            sources, scalar = _type_values(op, t)
            sources = [[row + row[:1]] + [row[::-1] + row[:1]] for row in (s[0] for s in sources)]
            for pad in ("Zero", "Max", "Min", None):
                cases.append(x_case(op, f"{low}-pad-{(pad or 'null').lower()}", f"""{t}: a 2x3 valid region in a
                    tile of 8 columns, direct call with {'PadValue ' + pad if pad else 'no PadValue (Null)'}:
                    the padding is {'the typed ' + pad + ' word' if pad else 'undefined'}.""", t, sources, scalar,
                                    direct=True, cols=8, capacity=128 if t == "U8" else 512, pad=pad))
    return cases


def carrier_cases(op: str) -> list:
    """pto-v0 result Words: a non-packed carrier keeps whole Words, and the ASL result Word
    is the zero-extended element (bitwise, shifts, sign ops), the sign- or zero-extended
    operand (integer min/max) or the chosen operand's whole Word (floating min/max)."""
    garbage = 0xA5A5A5A500000000
    if kind(op) == "fill":
        return [x_case(op, "u16-scalar-upper-bits", """The GPR scalar 0xFFFFFFFFFFFF1234: only the low 16
            bits fill the U16 tile (TileRawElementValue); the Words are zero-extended.""", "U16", [],
                       0xFFFFFFFFFFFF1234, profiles=["pto-v0"], carrier=True)]
    t = "FP16" if op[:4] in ("TMAX", "TMIN") else "S16" if "FP16" not in ref.LEGAL_TYPES[op] else "FP16"
    if op in ("TNOT",) or t not in ref.LEGAL_TYPES[op]:
        t = "S16"
    values = [0x3C00, 0xBC00, 0x8000, 0x7E00] if t == "FP16" else [0x8000, 0x7FFF, 0xFFFF, 0x0001]
    sources = [[[garbage | v for v in values]], [[garbage ^ 0xFF00000000000000 | v for v in values[::-1]]]]
    sources = sources[:source_count(op)]
    scalar = (garbage | 0x3555) if kind(op) == "scalar" else None
    case_ = run_case(f"{t.lower()}-carrier-upper-bits", f"""pto-v0: {t} source Words carry bits above the
        element ({garbage:#x}); the result Words are what the ASL writes (see carrier_cases in the
        generator).""", op, t, sources, scalar, profiles=["pto-v0"], source="reference-generator",
                     reference=COMMAND + " (vectors/reference/elementwise.py)", carrier=True, direct=True)
    return [case_]


def x_file(op: str) -> dict:
    test_id = f"PTO-AVS-X-{op}-REF-001"
    return {"format": "pto-avs-vector/1", "id": test_id, "operation": op, "kind": "execution",
            "exercises": Flow(UNITS[op]["readiness_subjects"]),
            "provenance": (f"Every expected value comes from the independent element reference "
                           f"vectors/reference/elementwise.py (written from the ASL: "
                           f"asl/tile/model/execution/elementwise.asl, unary.asl, "
                           f"asl/arch/features/minmax-profile.asl, the format Classify* functions), which "
                           f"shares no code with device_model, through `{COMMAND}`. Floating inputs hold one "
                           "value class per tile so a flag cannot hide behind another class's. Nothing here "
                           "was produced by running the golden model."),
            "cases": x_cases(op) + carrier_cases(op)}


# ---------------------------------------------------------------------------------------
# Files

FAMILY = engine.spec_id_family("generate_elementwise", tuple(ref.OPERATIONS), spec_cases, x_file,
                               "vectors/reference/elementwise.py", COMMAND)
files = FAMILY.files

if __name__ == "__main__":  # the command the files' provenance names: the engine's, for this family
    sys.exit(engine.legacy_main([FAMILY]))
