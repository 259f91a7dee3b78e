"""Write the vectors of TCMP, TCMPS, TSEL and TSELS (packed predicate tiles).

    .venv/bin/python -m pto_avs.vectors.reference generate|check TCMP TCMPS TSEL TSELS
    .venv/bin/python -m pto_avs.vectors.reference.generate_compare [--out DIR] [--check]  (the same)

- one file per spec test ID of these operations (``PTO-AVS-TILE-<OP>-<NAME>-NNN.yaml``):
  cases that replay the spec test point (its tiles, values, bundle or direct call) with
  the values it asserts (``source: spec-test``; the reference names the test file and
  what it asserts), plus the same facts through the other path (block or direct call)
  and padding twins derived from the ASL (``source: hand``);
- per operation ``PTO-AVS-X-<OP>-REF-001.yaml``: every legal type x every comparison mode
  x special and boundary values (one value class per flag-raising tile), predicate
  geometry, padding bits, packing order through ``bytes``, raw carriers, scalar
  normalisation, faults (``source: reference-generator``).

Every expected value is a spec test's own assertion or comes from the independent
element reference ``vectors/reference/compare_elements.py`` (no device_model code); a
spec-test value and the reference must agree or this script stops. Nothing here runs
the golden model. The output is deterministic; ``--check`` exits 1 when a shipped file
differs from what this script writes.
"""
from __future__ import annotations

import sys

from . import compare_elements as ref
from . import engine
from .engine import (OPERATION_TABLE, RESERVED_SELECTORS, UNITS, Flow, FlowMap, Hex, bstart_word, case, dims_of,
                     pow2_at_least, rows_of, size_code, spec_ref, tile)

COMMAND = ".venv/bin/python -m pto_avs.vectors.reference.generate_compare"
REFERENCE = COMMAND + " (vectors/reference/compare_elements.py)"
BOTH = ["pto-v0", "hw-ieee"]
GPR = 5
KIND = {"TCMP": "compare", "TCMPS": "compare-scalar", "TSEL": "select", "TSELS": "select-scalar"}


def is_compare(op: str) -> bool:
    return op in ("TCMP", "TCMPS")


def is_scalar(op: str) -> bool:
    return op in ("TCMPS", "TSELS")


def predicate_capacity(rows: int, cols: int) -> int:
    """The smallest legal TSize of a predicate tile.

    SPEC-CHOICE 28: the TCMP document asks TSize >= ceil(Row*Col/8) bytes, and
    ResolveBundlePredicateDestination checks only that; TileDescriptorConfigured, part of
    every operand rule, also asks rows*cols <= the tile's U8 element capacity (= TSize).
    The executable reading: a destination between the two is allocated, then rejected
    (Fault_TileLegality, rolled back)."""
    return max(128, pow2_at_least(rows * cols))


# ---------------------------------------------------------------------------------------
# Tiles

def bit_rows(rows) -> list:
    return [Flow(int(b) for b in row) for row in rows]


def predicate_tile(index, rows, cols, valid, bits=None, capacity=None, defined=None) -> dict:
    out = {"index": index, "storage_kind": "predicate", "capacity": capacity or predicate_capacity(rows, cols),
           "rows": rows, "cols": cols, "valid": Flow(valid)}
    if bits is not None:
        out["data"] = bit_rows(bits)
    if defined:
        out["defined"] = defined
    return out


def predicate_result(index, rows, cols, valid, capacity, bits, pad) -> dict:
    """The expected predicate destination; ``bytes`` (the whole packed payload) whenever
    every bit is defined, so the packing order is checked directly."""
    out = {"index": index, "storage_kind": "predicate", "dtype": "U8", "layout": "RowMajor", "location": "Any",
           "rows": rows, "cols": cols, "valid": Flow(valid), "capacity": capacity, "mask": "1111",
           "data": bit_rows(bits)}
    pad_bit = ref.PAD_BIT[pad or "Null"]
    full = tuple(valid) == (rows, cols)
    if not full:
        out["padding"] = FlowMap(defined=False) if pad_bit is None else FlowMap(defined=True, value=pad_bit)
    if full or pad_bit is not None:
        flat = [bits[r][c] if r < valid[0] and c < valid[1] else pad_bit for r in range(rows) for c in range(cols)]
        out["bytes"] = Flow(Hex(b) for b in ref.pack(flat))
    return out


def numeric_result(index, t, capacity, cols, valid, words, pad, carrier) -> dict:
    """The expected TSEL/TSELS destination: element bits, whole Words (``carrier``), padding."""
    return engine.result_tile(index, t, capacity, cols, valid, words, pad, carrier=carrier,
                              element=lambda word: ref.element(word, t))


# ---------------------------------------------------------------------------------------
# Programs

def datr_line(mode=None, pad=None, extra=()) -> str:
    parts = ([f"CMode={mode}"] if mode else []) + ([f"PadValue={pad}"] if pad else []) + list(extra)
    return "B.DATR " + ", ".join(parts)


def bundle(op, t, valid, cols, size, *, datr=None, tiles=(0, 1, 2), gpr=GPR, mask="1111", bstart=None,
           dims=True, iot=None) -> str:
    """One block of ``op``. ``tiles``: the source T indices in operand order (TCMP left,
    right; TCMPS source; TSEL mask, true, false; TSELS mask, true); ``datr`` a B.DATR line;
    ``gpr`` None leaves out B.IOR; ``iot`` replaces the binding lines."""
    if iot is None and op == "TSEL":
        iot = [engine.iot_line(tiles[:2], mask=mask, last=False), engine.iot_line(tiles[2:], size, mask)]
    elif iot is None:
        iot = [engine.iot_line(tiles, size, mask)]
    return engine.bundle_text(bstart or f"BSTART.VEC {op}, {t}", datr=datr, dims=dims_of(valid, cols) if dims else {},
                              bindings=iot, gpr=gpr if is_scalar(op) else None)


def direct(op, dst, sources, *, scalar=None, mode=None, pad=None) -> Flow:
    return engine.direct_call(op, dst, sources, scalar=scalar, cmode=mode, pad=pad)


LEGALITY = ("asl/tile/model/legality/operand-schema.asl (TileOperandsLegal_ExecuteTileCompare, ...CompareScalar, "
            "...Select, ...SelectScalar); asl/block/model/dispatch/comparison-schema.asl, tile-scalar-schema.asl "
            "(closed block schemas)")


def fault_case(name, description, tiles, program, fault="Fault_TileLegality", *, source="hand", reference=LEGALITY,
               gprs=None, profiles=BOTH, status=None) -> dict:
    return engine.fault_case(name, description, tiles, program, fault, source=source, reference=reference,
                             gprs=gprs, profiles=profiles, status=status)


# ---------------------------------------------------------------------------------------
# Expected results from the element reference

def compare_rows(op, t, profile, mode, left, right=None, scalar=None):
    """(bit rows, flags) of TCMP (``right`` rows) or TCMPS (``scalar``)."""
    bits, flags = [], 0
    for r, row in enumerate(left):
        line = []
        for c, value in enumerate(row):
            other = right[r][c] if right is not None else ref.scalar_operand(scalar, t)
            bit, f = ref.compare(mode, t, value, other, profile)
            line.append(bit)
            flags |= f
        bits.append(line)
    return bits, flags


def select_rows(mask_bits, true_rows, false_rows=None, scalar=None, t=None):
    return [[ref.select(mask_bits[r][c], value, false_rows[r][c] if false_rows is not None
                        else ref.scalar_operand(scalar, t)) for c, value in enumerate(row)]
            for r, row in enumerate(true_rows)]


def run_compare(name, description, op, t, left, right=None, scalar=None, *, mode="EQ", pad=None, datr=None,
                direct_call=False, profiles=BOTH, source="reference-generator", reference=REFERENCE, cols=None,
                capacity=None, tsize=None, gpr=GPR, bstart=None, status=0, raw=False) -> list:
    """TCMP (``right``) or TCMPS (``scalar``) over T0 (and T1) to a predicate destination:
    one case when the profiles agree, else one per profile. ``pad``: the PadValue (a direct
    call's argument, a block's B.DATR field; None is Null). A block writes B.DATR when the
    mode or the pad is not the default, or ``datr`` (a whole line, ``pad`` then being what
    it means)."""
    valid = (len(left), len(left[0]))
    cols, capacity, rows = engine.smallest_tile(t, valid, cols, capacity)
    sources = [left] + ([right] if right is not None else [])
    tiles = [tile(i, t, capacity, cols, valid, data) for i, data in enumerate(sources)]
    state = {"tiles": tiles}
    if status:
        state["status"] = Hex(status)
    indices = list(range(len(sources)))
    target = len(sources)
    tsize = tsize or predicate_capacity(rows, cols)
    if direct_call:
        tiles.append(predicate_tile(target, rows, cols, valid, capacity=tsize, defined="none"))
        program = direct(op, target, indices, scalar=scalar, mode=mode, pad=pad)
    else:
        if is_scalar(op) and gpr is not None and scalar is not None:
            state["gprs"] = engine.gpr_map({gpr: scalar})
        if datr is None and (mode != "EQ" or pad):
            datr = datr_line(mode if mode != "EQ" else None, pad or "Null")
        program = bundle(op, t, valid, cols, size_code(tsize), datr=datr, tiles=indices, gpr=gpr, bstart=bstart)
        if raw:
            program = engine.raw_bstart_program(program, bstart_word(op, t))
    operand = None if right is not None else (scalar if scalar is not None and (direct_call or gpr) else 0)
    outcomes = {}
    for profile in profiles:
        bits, flags = compare_rows(op, t, profile, mode, left, right, operand)
        outcomes.setdefault((tuple(map(tuple, bits)), flags), []).append(profile)
    cases = []
    for (bits, flags), group in outcomes.items():
        expect = {"fault": None, "flags": Hex(flags | status), "allocated": Flow(indices + [target]),
                  "unchanged": Flow(indices),
                  "tiles": [predicate_result(target, rows, cols, valid, tsize, [list(b) for b in bits], pad)]}
        suffix = "" if len(outcomes) == 1 else f"-{group[0]}"
        cases.append(case(name + suffix, description, group, source, reference, state, program, expect))
    return cases


def run_select(name, description, op, t, mask_bits, true_rows, false_rows=None, scalar=None, *, pad=None,
               direct_call=False, profiles=BOTH, source="reference-generator", reference=REFERENCE, cols=None,
               capacity=None, gpr=GPR, bstart=None, status=0, carrier=None, alias=False, raw=False,
               datr=None) -> list:
    """TSEL (mask T0, true T1, false T2) or TSELS (mask T0, true T1, ``scalar``)."""
    valid = (len(true_rows), len(true_rows[0]))
    cols, capacity, rows = engine.smallest_tile(t, valid, cols, capacity)
    tiles = [predicate_tile(0, rows, cols, valid, mask_bits), tile(1, t, capacity, cols, valid, true_rows)]
    if false_rows is not None:
        tiles.append(tile(2, t, capacity, cols, valid, false_rows))
    state = {"tiles": tiles}
    if status:
        state["status"] = Hex(status)
    indices = [x["index"] for x in tiles]
    if direct_call:
        target = 1 if alias else len(tiles)
        if not alias:
            tiles.append(tile(target, t, capacity, cols, valid, defined="none"))
        program = direct(op, target, indices, scalar=scalar, pad=pad)
    else:
        target = len(tiles)
        if is_scalar(op) and gpr is not None and scalar is not None:
            state["gprs"] = engine.gpr_map({gpr: scalar})
        if datr is None and pad:
            datr = datr_line(None, pad)
        program = bundle(op, t, valid, cols, size_code(capacity), datr=datr, tiles=indices, gpr=gpr, bstart=bstart)
        if raw:
            program = engine.raw_bstart_program(program, bstart_word(op, t))
    operand = None if false_rows is not None else (scalar if scalar is not None and (direct_call or gpr) else 0)
    words = select_rows(mask_bits, true_rows, false_rows, operand, t)
    carrier = profiles == ["pto-v0"] if carrier is None else carrier
    expect = {"fault": None, "flags": Hex(status), "allocated": Flow(sorted(set(indices) | {target})),
              "unchanged": Flow([i for i in indices if i != target]),
              "tiles": [numeric_result(target, t, capacity, cols, valid, words, pad, carrier)]}
    return [case(name, description, profiles, source, reference, state, program, expect)]


def check(got, expected, what):
    """Stop unless the reference gives the value a spec test asserts."""
    assert got == expected, (what, got, expected)


# ---------------------------------------------------------------------------------------
# Spec test points, by the name part of their ID

def spec_static(op, test_id):
    """The operation's selector and its BSTART word, the block running, and reserved neighbours."""
    t = {"TCMP": "U64", "TCMPS": "U8", "TSEL": "FP32", "TSELS": "FP32"}[op]
    spec = OPERATION_TABLE[op]
    word = bstart_word(op, t)
    selector = int(spec["selector"], 16)
    reference = spec_ref(test_id, f"DecodeTileOperation(TEPL, {selector:#05x}) selects {op}, handler "
                         f"{spec['semantic_handler']}, engine {spec['engine']}")
    cases = [case("bstart-encoding", f"""BSTART.VEC {op}, {t} assembles to {word:#010x} (Mode {spec['mode']},
        Function {spec['function']}: selector {spec['selector']}); the block stays open at the end of the
        program, so nothing is allocated.""", BOTH, "spec-table", "spec/catalog/command-forms.json form 33; "
                  + reference, None, f"BSTART.VEC {op}, {t}",
                  {"fault": None, "flags": Hex(0), "encoding": Flow([Hex(word)]), "allocated": Flow([])})]
    for suffix, kw in (("", {}), ("-raw-word", {"raw": True}),
                       ("-tepl-mode-function", {"bstart": f"BSTART.TEPL {spec['mode']}, {spec['function']}, {t}"})):
        what = {"": f"BSTART.VEC {op}, {t}", "-raw-word": f"the raw word {word:#010x}",
                "-tepl-mode-function": f"BSTART.TEPL {spec['mode']}, {spec['function']}, {t}"}[suffix]
        if is_compare(op):
            left = [[7, 9]] if t == "U64" else [[2, 3]]
            right = [[7, 8]] if op == "TCMP" else None
            cases += run_compare(f"block{suffix}", f"A complete {op} block opened by {what} runs {op}.", op, t,
                                 left, right, 2 if op == "TCMPS" else None, source="spec-test", reference=reference,
                                 **kw)
        else:
            cases += run_select(f"block{suffix}", f"A complete {op} block opened by {what} runs {op}.", op, t,
                                [[1, 0]], [[10, 11]], [[20, 21]] if op == "TSEL" else None,
                                99 if op == "TSELS" else None, source="spec-test", reference=reference, **kw)
    for neighbour in (selector - 1, selector + 1):
        if any(lo <= neighbour <= hi for lo, hi in RESERVED_SELECTORS):
            mode, function = neighbour >> 5, neighbour & 31
            tiles = [tile(0, t, 128, 2, (1, 2), [[1, 2]]), tile(1, t, 128, 2, (1, 2), [[1, 2]])]
            cases.append(fault_case(f"neighbour-selector-{neighbour:#05x}-reserved", f"""Selector
                {neighbour:#05x} (Mode {mode}, Function {function}) next to {op}'s is reserved:
                Fault_IllegalInstruction at BSTART.""", tiles, bundle("TCMP", t, (1, 2), 2, 1, tiles=(0, 1),
                                                                          bstart=f"BSTART.TEPL {mode}, {function}, {t}"),
                                    "Fault_IllegalInstruction", source="spec-table",
                                    reference="contract/spec_data/tile-operations.json reserved.tepl_selector_ranges"))
    return cases


def legal_example(op, t):
    """Operands of a legal-type run: an ordered pair of distinct values (reference results)."""
    if t in ref.FLOAT_TYPES:
        one = {"FP64": 0x3FF0000000000000, "FP32": 0x3F800000, "TF32": 0x3F800000, "HF32": 0x3F800000,
               "FP16": 0x3C00, "BF16": 0x3F80, "E4M3": 0x38, "E5M2": 0x3C}[t]
        row = [one, one | 1 << (ref.width(t) - 1)]
    else:
        row = [1 << (ref.width(t) - 1) | 5, 3]  # negative for S types, large for U types
    return row


def spec_types(op, test_id):
    """Every legal type runs; every other type faults before allocation (closed schema)."""
    cases = []
    for t in ref.ALL_TYPES:
        if t in ref.LEGAL_TYPES:
            row = legal_example(op, t)
            reference = spec_ref(test_id, f"InstructionContractDataTypeLegal_{op}({t})")
            scalar = row[1] if is_scalar(op) else None
            if is_compare(op):
                cases += run_compare(f"{t.lower()}-legal", f"""{t} is in {op}'s type set (TileCompareDataTypeSupported
                    = TileVecArithmeticDataTypeSupported): LT over ({row[0]:#x}, {row[1]:#x}) against
                    {'the reverse' if scalar is None else f'the scalar {scalar:#x}'} completes; bits from the element
                    reference.""", op, t, [row], None if scalar is not None else [row[::-1]], scalar, mode="LT",
                                     source="spec-test", reference=reference)
            else:
                cases += run_select(f"{t.lower()}-legal", f"""{t} is in {op}'s type set (TileSelectDataTypeSupported
                    = TileVecArithmeticDataTypeSupported): the mask 1, 0 selects the true element, then the
                    {'false one' if scalar is None else 'scalar'}.""", op, t, [[1, 0]], [row],
                                    None if scalar is not None else [row[::-1]], scalar, source="spec-test",
                                    reference=reference)
        else:
            cases.append(illegal_type_case(op, t, "spec-test",
                                           spec_ref(test_id, f"!InstructionContractDataTypeLegal_{op}({t})")))
    return cases


def illegal_type_case(op, t, source, reference) -> dict:
    """A block of ``op`` on type ``t`` outside its set: the closed schema rejects it."""
    count = {"TCMP": 2, "TCMPS": 1, "TSEL": 2, "TSELS": 1}[op]
    tiles = [tile(i, t, 128, 2, (1, 2), [[0, 0]]) for i in range(1, count + 1)]
    if not is_compare(op):
        tiles.insert(0, predicate_tile(0, rows_of(128, 2, t), 2, (1, 2), [[1, 0]]))
    program = bundle(op, t, (1, 2), 2, 1, tiles=[x["index"] for x in tiles])
    handler = "TileCompareDataTypeSupported" if is_compare(op) else "TileSelectDataTypeSupported"
    return fault_case(f"{t.lower()}-rejected", f"""{t} is outside {op}'s type set: the closed {op} schema
        ({handler} of the BSTART type) raises Fault_TileLegality before allocation; nothing is published.""", tiles,
                      program, source=source, gprs={GPR: 0} if is_scalar(op) else None, reference=reference)


def spec_tcmp_bundle(test_id):
    reference = spec_ref(test_id, "renamed predicate destination, rows/columns of T1, valid 1x2, byte 0 "
                         "== 00000001, sources unchanged")
    left, right = [[7, 9]], [[7, 8]]
    check(compare_rows("TCMP", "U64", "pto-v0", "EQ", left, right)[0], [[1, 0]], test_id)
    t1 = [tile(1, "U64", 128, 2, (1, 2), left), tile(2, "U64", 128, 2, (1, 2), right)]
    result = predicate_result(0, 8, 2, (1, 2), 128, [[1, 0]], None)
    cases = [case("spec-block", """The spec test's block: BSTART 0xc0d19181 (TCMP, U64), LB0=2, one terminating
        B.IOT T1, T2 ->T<1>: the destination is the first free T index (T0), a predicate tile of T1's 8 x 2
        geometry, bit 0 set; no B.DATR, so the padding is undefined.""", BOTH, "spec-test", reference,
                  {"tiles": t1}, Flow([Hex(0xC0D19181)] + ["B.DIM LB0=2", "B.IOT T1, T2, mask=1111, <last>, ->T<1>",
                                                           "BSTOP"]),
                  {"fault": None, "flags": Hex(0), "allocated": Flow([0, 1, 2]), "unchanged": Flow([1, 2]),
                   "tiles": [result]})]
    cases += run_compare("block-zero-padding", """The same block with B.DATR PadValue=Zero: every padding bit is a
        defined 0, so the whole payload is observable: bytes 0x01, 0x00.""", "TCMP", "U64", left, right, pad="Zero",
                         source="hand", reference=reference + "; PredicateTileWithPadding")
    cases += run_compare("direct-call", "The spec test's elements as a direct call into a configured predicate tile.",
                         "TCMP", "U64", left, right, direct_call=True, source="hand", reference=reference)
    return cases


def spec_tcmp_capacity(test_id):
    reference = spec_ref(test_id, "_LastFault == Fault_TileAllocation, destination not allocated")
    cases = []
    for name, capacity, size, fault, text in (
            ("packed-bytes-exceed-tsize", 8192, 1, "Fault_TileAllocation", """The spec test: two 8192-byte U8
                tiles of 64 x 128 need 1024 packed predicate bytes; TSize 128 (SizeCode 1) cannot hold them:
                Fault_TileAllocation before allocation."""),
            ("packed-bytes-exceed-tsize-by-one-row", 2048, 1, "Fault_TileAllocation", """A 16 x 128 U8 source
                needs 256 packed bytes > TSize 128: Fault_TileAllocation."""),
            ("elements-exceed-tsize", 1024, 1, "Fault_TileLegality", """SPEC-CHOICE (index row 28): an 8 x 128 U8
                source needs exactly 128 packed bytes, so TSize 128 passes ResolveBundlePredicateDestination, but
                TileDescriptorConfigured asks for rows*cols (1024) <= TSize (the destination's U8 element
                capacity): operand legality fails after allocation, Fault_TileLegality, rolled back.""")):
        rows = capacity // 128
        tiles = [tile(i, "U8", capacity, 128, (rows, 128)) for i in (1, 2)]
        for t_ in tiles:
            t_["fill"] = Hex(3)
        program = bundle("TCMP", "U8", (rows, 128), 128, size, tiles=(1, 2), mask="0001")
        cases.append(fault_case(name, text, tiles, program, fault, source="spec-test" if capacity == 8192 else "hand",
                                reference=reference if capacity == 8192 else reference + "; asl/tile/model/legality/"
                                "descriptor-shape.asl TileDescriptorConfigured"))
    cases += run_compare("elements-fit-tsize", """The same 8 x 128 U8 sources with TSize 1024 (SizeCode 4): the
        predicate destination is legal; all 128 valid comparisons EQ are 1 (every element 3).""", "TCMP", "U8",
                         [[3] * 128], [[3] * 128], cols=128, capacity=1024, tsize=1024, pad="Zero", source="hand",
                         reference=reference + "; TileDescriptorConfigured")
    return cases


def spec_tcmp_datr(test_id):
    reference = spec_ref(test_id, "TileOperationDATRFieldsLegal(12, ...): CMode 5 with PadValue 01 legal; Sat or "
                         "a nonzero DataType illegal")
    left, right = [[1, 2, 3]], [[2, 2, 2]]
    cases = run_compare("cmode-ge-pad-max", """B.DATR CMode=GE, PadValue=Max: both fields apply to TCMP; GE is
        evaluated and the padding bits are defined ones.""", "TCMP", "U8", left, right, mode="GE", pad="Max",
                        source="spec-test", reference=reference)
    tiles = [tile(0, "U8", 128, 4, (1, 3), left), tile(1, "U8", 128, 4, (1, 3), right)]
    for name, fields, asserted in (("sat", "Sat=1", True), ("datatype", "DataType=FP32", True),
                                   ("canonicalize", "Canonicalize=1", False), ("rmode", "RMode=RNE", False)):
        program = bundle("TCMP", "U8", (1, 3), 4, 1, datr=f"B.DATR CMode=GE, {fields}", tiles=(0, 1))
        cases.append(fault_case(f"{name}-rejects", f"""B.DATR {fields}: not applicable to TCMP (only CMode and
            PadValueOrByteId are): Fault_TileLegality before allocation.""", tiles, program,
                                source="spec-test" if asserted else "hand", reference=reference))
    return cases


MODE_EXAMPLE = ([[1, 2, 3]], [[2, 2, 2]])


def spec_tcmp_modes(test_id):
    reference = spec_ref(test_id, "codes 0..5 legal, 6 and 7 reserved; TileCompareBoolean truth values")
    expected = {"EQ": [0, 1, 0], "NE": [1, 0, 1], "LT": [1, 0, 0], "GT": [0, 0, 1], "LE": [1, 1, 0], "GE": [0, 1, 1]}
    cases = []
    for mode in ref.MODES:
        bits, _ = compare_rows("TCMP", "U8", "pto-v0", mode, *MODE_EXAMPLE)
        check(bits, [expected[mode]], (test_id, mode))
        cases += run_compare(f"cmode-{ref.MODES.index(mode)}-{mode.lower()}", f"""B.DATR CMode={mode}
            (code {ref.MODES.index(mode)}): U8 1, 2, 3 against 2, 2, 2 gives {expected[mode]}.""", "TCMP", "U8",
                             *MODE_EXAMPLE, mode=mode, pad="Zero", source="spec-test", reference=reference)
    cases += run_compare("datr-omitted-is-eq", """No B.DATR: CMode keeps its zero meaning, EQ (and the padding is
        Null).""", "TCMP", "U8", *MODE_EXAMPLE, source="hand", reference=reference + "; B.DATR defaults")
    tiles = [tile(0, "U8", 128, 4, (1, 3), MODE_EXAMPLE[0]), tile(1, "U8", 128, 4, (1, 3), MODE_EXAMPLE[1])]
    for code_ in (6, 7):
        cases.append(fault_case(f"cmode-{code_}-reserved", f"""CMode={code_} is reserved: the B.DATR CMode one-of
            {{0..5}} constraint fails, Fault_IllegalInstruction at decode; nothing is allocated.""", tiles,
                                bundle("TCMP", "U8", (1, 3), 4, 1, datr=f"B.DATR CMode={code_}", tiles=(0, 1)),
                                "Fault_IllegalInstruction", source="spec-table", reference=reference
                                + "; spec/catalog/command-forms.json B.DATR constraint CMode one-of [0..5]"))
    return cases


def spec_tcmp_order(test_id):
    reference = spec_ref(test_id, "S8 0xff < 1; U8 0xff not < 1; FP32 -0 == +0; FP32 0x7f800001 == 1.0 false "
                         "with NV")
    facts = [("s8-signed-less", "S8", "LT", 0xFF, 1, 1, 0), ("u8-unsigned-not-less", "U8", "LT", 0xFF, 1, 0, 0),
             ("fp32-signed-zeros-equal", "FP32", "EQ", 0x80000000, 0, 1, 0),
             ("fp32-signaling-nan-invalid", "FP32", "EQ", 0x7F800001, 0x3F800000, 0, ref.NV)]
    cases = []
    for name, t, mode, a, b, bit, flags in facts:
        for profile in BOTH:
            check(ref.compare(mode, t, a, b, profile), (bit, flags), (test_id, name, profile))
        cases += run_compare(f"{name}-direct", f"""{t} {a:#x} {mode} {b:#x} is {bit}, status {flags:#x} (one fact
            per case, so the invalid flag shows alone); the same in hw-ieee (comparisons: sNaN reports invalid,
            +0 == -0).""", "TCMP", t, [[a]], [[b]], mode=mode, direct_call=True, source="spec-test",
                             reference=reference)
        cases += run_compare(f"{name}-block", f"The same fact through a TCMP block (B.DATR CMode={mode}).", "TCMP", t,
                             [[a]], [[b]], mode=mode, pad="Zero", source="hand", reference=reference)
    return cases


def spec_packed(op, test_id):
    """Ten comparisons into bits 0..7 of byte 0 and 0..1 of byte 1."""
    left = [list(range(10))]
    if op == "TCMP":
        right, scalar, mode = [[c if c % 2 == 0 else 0 for c in range(10)]], None, "EQ"
        expected = [0x55, 0x01]
    else:
        right, scalar, mode = None, 5, "GE"
        expected = [0xE0, 0x03]
    bits, _ = compare_rows(op, "U8", "pto-v0", mode, left, right, scalar)
    check(ref.pack(bits[0]), expected, test_id)
    reference = spec_ref(test_id, f"byte 0 == {expected[0]:08b}, byte 1 == {expected[1]:08b}, bit 9 defined")
    cases = run_compare("direct-null", f"""The spec test: U8 1 x 10 in 8 x 16 tiles, {mode}{' against the scalar 5'
        if scalar is not None else ''}, direct call, no PadValue: logical i in bit i mod 8 of byte i div 8; the
        padding bits are undefined.""", op, "U8", left, right, scalar, mode=mode, direct_call=True, cols=16,
                        source="spec-test", reference=reference)
    cases += run_compare("direct-zero", f"""The same with PadValue Zero: the whole 16-byte payload is defined:
        {expected[0]:#04x}, {expected[1]:#04x}, then zeros.""", op, "U8", left, right, scalar, mode=mode,
                         pad="Zero", direct_call=True, cols=16, source="hand", reference=reference)
    cases += run_compare("block", f"The same comparisons through a complete {op} block (B.DATR CMode={mode}, Zero "
                         "padding).", op, "U8", left, right, scalar, mode=mode, pad="Zero", cols=16, source="hand",
                         reference=reference)
    return cases


def spec_tcmp_padding(test_id):
    reference = spec_ref(test_id, "Max: padding bits 1 and defined, valid bits 0, 1 kept; Null: padding undefined")
    left, right = [[5, 1]], [[3, 2]]  # LT -> 0, 1 (the spec test writes these bits)
    cases = []
    for pad in ("Max", "Null", "Zero", "Min"):
        cases += run_compare(f"direct-{pad.lower()}", f"""A 2 x 8 predicate destination (U64 sources, 1 x 2
            valid) written 0, 1 by LT, PadValue {pad}: the padding bits are {ref.PAD_BIT[pad] if pad != 'Null'
            else 'undefined'}, the valid bits unchanged.""", "TCMP", "U64", left, right, mode="LT", pad=pad,
                             direct_call=True, cols=8, source="spec-test" if pad in ("Max", "Null") else "hand",
                             reference=reference)
    cases += run_compare("block-max", "The same through a block with B.DATR CMode=LT, PadValue=Max.", "TCMP", "U64",
                         left, right, mode="LT", pad="Max", cols=8, source="hand", reference=reference)
    cases += run_compare("block-cmode-only-is-zero-padding", """B.DATR CMode=LT alone: a present B.DATR encodes
        PadValue 00, Zero, so the padding bits are defined zeros (not Null).""", "TCMP", "U64", left, right,
                         mode="LT", pad="Zero", datr="B.DATR CMode=LT", cols=8, source="hand",
                         reference=reference + "; B.DATR field_zero_meanings PadValueOrByteId")
    return cases


def spec_tcmp_schema(test_id):
    reference = spec_ref(test_id, "canonical binding legal; scalar binding, HiF8 source, missing LB0 illegal")
    left, right = [[3, 4]], [[5, 6]]
    cases = run_compare("canonical", "The spec test's canonical TCMP block (U64, LB0=2, T1, T2).", "TCMP", "U64",
                        left, right, source="spec-test", reference=reference)
    tiles = [tile(1, "U64", 128, 2, (1, 2), left), tile(2, "U64", 128, 2, (1, 2), right)]
    cases.append(fault_case("scalar-binding-zero-register", """A B.IOR binding of the zero register in a TCMP
        block: binding completeness holds (no nonzero GPR field for an operation without GPR inputs), but the
        closed TCMP schema takes no scalar binding: Fault_TileLegality before allocation.""", tiles,
                            bundle("TCMP", "U64", (1, 2), 2, 1, tiles=(1, 2), iot=[
                                "B.IOT T1, T2, mask=1111, <last>, ->T<1>", "B.IOR R0"]), source="spec-test",
                            reference=reference))
    cases.append(fault_case("scalar-binding-gpr", """B.IOR R5 in a TCMP block: TCMP has no GPR input, so
        BundleOperationBindingsComplete (BundleOperationScalarBindingSchemaLegal) fails before the closed schema is
        consulted: Fault_BundleControl.""", tiles, bundle("TCMP", "U64", (1, 2), 2, 1, tiles=(1, 2), iot=[
        "B.IOT T1, T2, mask=1111, <last>, ->T<1>", "B.IOR R5"]), "Fault_BundleControl", reference=reference
                            + "; asl/block/model/dispatch/tile-execution.asl (BundleOperationBindingsComplete before "
                            "the closed schemas)", gprs={5: 1}))
    hif8 = [tiles[0], tile(2, "HiF8", 128, 2, (1, 2), [[5, 6]])]
    cases.append(fault_case("right-source-hif8", """The right source is HiF8 while the BSTART type is U64: the
        sources' type match fails, Fault_TileLegality before allocation.""", hif8,
                            bundle("TCMP", "U64", (1, 2), 2, 1, tiles=(1, 2)), source="spec-test",
                            reference=reference))
    cases.append(fault_case("lb0-missing", """No B.DIM LB0: SelectedBundleComparisonDimensionsLegal fails,
        Fault_TileLegality before allocation.""", tiles, bundle("TCMP", "U64", (1, 2), 2, 1, tiles=(1, 2), dims=False),
                            source="spec-test", reference=reference))
    cases.append(fault_case("split-binding", """The sources and the destination in two B.IOT records: the closed
        TCMP schema takes exactly one terminating binding, Fault_TileLegality.""", tiles,
                            bundle("TCMP", "U64", (1, 2), 2, 1, iot=["B.IOT T1, mask=1111, ->T<1>",
                                                                     "B.IOT T2, mask=1111, <last>"]),
                            reference=reference))
    return cases


def spec_tcmps_bundle(test_id):
    reference = spec_ref(test_id, "RegSrc0 R2 = 2: packed byte 0 == 00000001, source unchanged")
    check(compare_rows("TCMPS", "U8", "pto-v0", "EQ", [[2, 3]], None, 2)[0], [[1, 0]], test_id)
    cases = run_compare("spec-block", """The spec test's block: BSTART 0xdad19181 (TCMPS, U8), LB0=2, B.IOT T0
        ->T<1>, B.IOR R2 = 2: EQ gives 1, 0 in a renamed predicate destination.""", "TCMPS", "U8", [[2, 3]], None,
                        2, gpr=2, raw=True, cols=8, source="spec-test", reference=reference)
    cases += run_compare("b-ior-omitted", """No B.IOR: the scalar is the all-zero encoding (no GPR read): EQ
        against 0 gives 0, 0.""", "TCMPS", "U8", [[2, 3]], None, 2, gpr=None, cols=8, source="hand",
                         reference=reference + "; TCMPS defaults: omitted B.IOR supplies zero")
    cases += run_compare("direct-call", "The same comparison as a direct call.", "TCMPS", "U8", [[2, 3]], None, 2,
                         direct_call=True, cols=8, source="hand", reference=reference)
    return cases


def spec_tcmps_mask(test_id):
    reference = spec_ref(test_id, "predicate destination legal, numeric destination illegal")
    cases = run_compare("predicate-destination", """U64 7, 9 EQ the scalar 7 into a predicate destination: legal,
        bits 1, 0.""", "TCMPS", "U64", [[7, 9]], None, 7, direct_call=True, source="spec-test", reference=reference)
    tiles = [tile(0, "U64", 128, 2, (1, 2), [[7, 9]]), tile(1, "U64", 128, 2, (1, 2), defined="none")]
    cases.append(fault_case("numeric-destination", """The destination is an ordinary U64 tile of the same shape:
        TileOperandsLegal_ExecuteTileCompareScalar needs predicate storage, Fault_TileLegality.""", tiles,
                            direct("TCMPS", 1, [0], scalar=7, mode="EQ"), source="spec-test", reference=reference))
    return cases


def spec_tsel_bundle(test_id):
    reference = spec_ref(test_id, "destination numeric, elements 10 and 21, mask bits unchanged")
    mask, true, false = [[1, 0]], [[10, 11]], [[20, 21]]
    check(select_rows(mask, true, false), [[10, 21]], test_id)
    tiles = [predicate_tile(1, 16, 2, (1, 2), mask, capacity=128), tile(2, "FP32", 128, 2, (1, 2), true),
             tile(3, "FP32", 128, 2, (1, 2), false)]
    program = Flow([Hex(0x09A19181), "B.DIM LB0=2", "B.IOT T1, T2, mask=1111", "B.IOT T3, mask=1111, <last>, ->T<1>",
                    "BSTOP"])
    cases = [case("spec-block", """The spec test's block: BSTART 0x09a19181 (TSEL, FP32), LB0=2, B.IOT mask T1,
        true T2, then B.IOT false T3 ->T<1>: the numeric destination is T0 with 10 and 21.""", BOTH, "spec-test",
                  reference, {"tiles": tiles}, program,
                  {"fault": None, "flags": Hex(0), "allocated": Flow([0, 1, 2, 3]), "unchanged": Flow([1, 2, 3]),
                   "tiles": [numeric_result(0, "FP32", 128, 2, (1, 2), [[10, 21]], None, False)]})]
    cases += run_select("direct-call", "The same selection as a direct call.", "TSEL", "FP32", mask, true, false,
                        direct_call=True, source="hand", reference=reference)
    return cases


def spec_tsel_datr(test_id):
    reference = spec_ref(test_id, "TileOperationDATRFieldsLegal(22, ...): PadValue 10 legal; CMode or RMode illegal")
    cases = run_select("pad-min-fp64", """B.DATR PadValue=Min applies to TSEL; on an FP64 block (a present B.DATR
        carries DataType 0 = FP64, SPEC-CHOICE index row 2) the destination pads with the FP64 Min word.""", "TSEL",
                       "FP64", [[1, 0]], [[0x3FF0000000000000, 0x4000000000000000]],
                       [[0xBFF0000000000000, 0xC000000000000000]], pad="Min", cols=4, source="spec-test",
                       reference=reference)
    tiles = [predicate_tile(0, 16, 2, (1, 2), [[1, 0]]), tile(1, "FP32", 128, 2, (1, 2), [[10, 11]]),
             tile(2, "FP32", 128, 2, (1, 2), [[20, 21]])]
    for name, fields, asserted in (("cmode", "CMode=NE", True), ("rmode", "RMode=RNE", True), ("sat", "Sat=1", False)):
        cases.append(fault_case(f"{name}-rejects", f"""B.DATR {fields}: not applicable to TSEL (only
            PadValueOrByteId is): Fault_TileLegality before allocation.""", tiles,
                                bundle("TSEL", "FP32", (1, 2), 2, 1, datr=f"B.DATR {fields}"),
                                source="spec-test" if asserted else "hand", reference=reference))
    cases.append(fault_case("pad-min-on-fp32", """SPEC-CHOICE (index row 2): B.DATR PadValue=Min on an FP32 TSEL
        block makes an FP64 destination (B.DATR DataType 0), which fails the type match with the sources after
        allocation: Fault_TileLegality, rolled back.""", tiles, bundle("TSEL", "FP32", (1, 2), 2, 1,
                                                                        datr="B.DATR PadValue=Min"),
                            reference=reference + "; ResolveBundleEffectiveDataType"))
    return cases


def spec_tsel_exact(test_id):
    reference = spec_ref(test_id, "selected 0x7f800123 kept bit for bit; ScalarFPFlags() stays 00100")
    cases = run_select("direct-snan-status-kept", """The spec test: mask 1 selects the FP32 signaling NaN
        0x7f800123 exactly; NumericStatus was 0x04 (OF) before and stays 0x04 (no NV from selecting a NaN).""",
                       "TSEL", "FP32", [[1]], [[0x7F800123]], [[0x3F800000]], direct_call=True, cols=32,
                       capacity=128, status=0x04, source="spec-test", reference=reference)
    cases += run_select("direct-snan-no-status", """The same with NumericStatus 0 before: still 0 after.""", "TSEL",
                        "FP32", [[1]], [[0x7F800123]], [[0x3F800000]], direct_call=True, cols=32, capacity=128,
                        source="hand", reference=reference)
    cases += run_select("block-snan", "The same selection through a TSEL block.", "TSEL", "FP32", [[1]], [[0x7F800123]],
                        [[0x3F800000]], cols=32, capacity=128, source="hand", reference=reference)
    return cases


def spec_tsel_mask(test_id, op="TSEL"):
    if op == "TSEL":
        reference = spec_ref(test_id, "numeric mask illegal; predicate mask legal")
        t, true, false, scalar = "U8", [[1, 2]], [[3, 4]], None
    else:
        reference = spec_ref(test_id, "E3M2 and U4X2 illegal, U64 legal; predicate mask legal, numeric mask illegal")
        t, true, false, scalar = "FP32", [[10, 11]], None, 9
    cases = run_select("predicate-mask", "A predicate mask 0, 1 (or 1, 0) is legal.", op, t,
                       [[0, 1]] if op == "TSEL" else [[1, 0]], true, false, scalar, direct_call=True,
                       cols=8 if op == "TSEL" else 2, source="spec-test", reference=reference)
    cols = 8 if op == "TSEL" else 2
    numeric_mask = tile(0, t, 128, cols, (1, 2), [[0, 1]] if op == "TSEL" else [[1, 0]])
    tiles = [numeric_mask, tile(1, t, 128, cols, (1, 2), true)]
    if false is not None:
        tiles.append(tile(2, t, 128, cols, (1, 2), false))
    tiles.append(tile(len(tiles), t, 128, cols, (1, 2), defined="none"))
    cases.append(fault_case("numeric-mask", f"""An ordinary {t} tile of the same shape as the mask:
        TilePredicateValuesLegal needs predicate storage, Fault_TileLegality.""", tiles,
                            direct(op, len(tiles) - 1, [0, 1, 2][:len(tiles) - 1], scalar=scalar),
                            source="spec-test", reference=reference))
    if op == "TSELS":
        cases += spec_types_subset(op, test_id, ("E3M2", "U64", "U4X2"), reference)
    return cases


def spec_types_subset(op, test_id, types, reference):
    out = []
    for c in spec_types(op, test_id):
        if any(c["name"].startswith(t.lower() + "-") for t in types):
            c["reference"] = reference
            out.append(c)
    return out


def spec_tsel_mask_zero(test_id):
    reference = spec_ref(test_id, "completed, no fault, destination not allocated, T0 not allocated")
    return [case("zero-mask-two-bindings", """The spec test: BSTART 0x09a19181, then the two TSEL bindings with
        PE_MASK 0000 and no B.DIM, no tiles configured: a strict no-op, nothing allocated.""", BOTH, "spec-test",
                 reference, None, Flow([Hex(0x09A19181), "B.IOT T0, T1, mask=0000",
                                        "B.IOT T3, mask=0000, <last>, ->T<1>", "BSTOP"]),
                 {"fault": None, "flags": Hex(0), "allocated": Flow([])})]


def spec_tsel_packed(test_id):
    reference = spec_ref(test_id, "destination T1 (aliasing the true source): 10, 21, 12, 23")
    mask, true, false = [[1, 0, 1, 0]], [[10, 11, 12, 13]], [[20, 21, 22, 23]]
    check(select_rows(mask, true, false), [[10, 21, 12, 23]], test_id)
    cases = run_select("direct-alias", """The spec test: the destination is the true source T1 (U8 1 x 4 in 16 x 8
        tiles); both data sources are read before the write.""", "TSEL", "U8", mask, true, false, direct_call=True,
                       alias=True, cols=8, source="spec-test", reference=reference)
    cases += run_select("block", "The same selection through a TSEL block into a renamed destination.", "TSEL", "U8",
                        mask, true, false, cols=8, source="hand", reference=reference)
    return cases


def spec_tsel_padding(test_id):
    reference = spec_ref(test_id, "Min: (0, 1) defined, the FP32 Min word; Null: (0, 1) undefined")
    cases = []
    for pad in ("Min", "Null", "Zero", "Max"):
        cases += run_select(f"direct-{pad.lower()}", f"""FP32 1 x 1 valid in 16 x 2 tiles, mask 1: the valid
            element is 7; PadValue {pad}: the other coordinates {'hold the FP32 ' + pad + ' word' if pad != 'Null'
            else 'are undefined'}.""", "TSEL", "FP32", [[1]], [[7]], [[9]], pad=pad, direct_call=True, cols=2,
                            source="spec-test" if pad in ("Min", "Null") else "hand", reference=reference)
    return cases


def spec_tsel_schema(test_id):
    reference = spec_ref(test_id, "canonical two bindings legal; first binding terminating, scalar binding, or U32 "
                         "false source illegal")
    mask, true, false = [[1, 0]], [[10, 11]], [[20, 21]]
    cases = run_select("canonical", "The spec test's canonical two-binding TSEL block.", "TSEL", "FP32", mask, true,
                       false, source="spec-test", reference=reference)
    tiles = [predicate_tile(1, 16, 2, (1, 2), mask), tile(2, "FP32", 128, 2, (1, 2), true),
             tile(3, "FP32", 128, 2, (1, 2), false)]
    completeness = ("BundleOperationBindingsComplete (asl/block/model/dispatch/tile-execution.asl) fails before the "
                    "closed schema is consulted: Fault_BundleControl")
    for name, text, iot, t3, gprs, fault in (
            ("one-terminating-binding", "The mask/true binding terminates the block with the destination, leaving no "
             "false source: two sources where TSEL has three; " + completeness,
             ["B.IOT T1, T2, mask=1111, <last>, ->T<1>"], None, None, "Fault_BundleControl"),
            ("scalar-binding-gpr", "B.IOR R5: TSEL has no GPR input; " + completeness,
             ["B.IOT T1, T2, mask=1111", "B.IOT T3, mask=1111, <last>, ->T<1>", "B.IOR R5"], None, {5: 1},
             "Fault_BundleControl"),
            ("scalar-binding-zero-register", "B.IOR of the zero register: binding completeness holds, the closed "
             "TSEL schema takes no scalar binding: Fault_TileLegality before allocation",
             ["B.IOT T1, T2, mask=1111", "B.IOT T3, mask=1111, <last>, ->T<1>", "B.IOR R0"], None, None,
             "Fault_TileLegality"),
            ("false-source-u32", "The false source is U32: the closed TSEL schema's type match fails, "
             "Fault_TileLegality before allocation", None, tile(3, "U32", 128, 2, (1, 2), false), None,
             "Fault_TileLegality")):
        state_tiles = tiles[:2] + [t3 or tiles[2]]
        cases.append(fault_case(name, text + ".", state_tiles, bundle("TSEL", "FP32", (1, 2), 2, 1, tiles=(1, 2, 3),
                                                                     iot=iot), fault,
                                source="spec-test" if fault == "Fault_TileLegality" else "hand",
                                reference=reference, gprs=gprs))
    return cases


def spec_tsels_bundle(test_id):
    reference = spec_ref(test_id, "R3 = 99: element 0 == 99 (mask 0), element 1 == 11 (mask 1)")
    mask, true = [[0, 1]], [[10, 11]]
    check(select_rows(mask, true, None, 99, "FP32"), [[99, 11]], test_id)
    cases = run_select("spec-block", """The spec test's block: BSTART 0x0ba19181 (TSELS, FP32), LB0=2, one B.IOT
        mask T0, true T1 ->T<1>, B.IOR R3 = 99.""", "TSELS", "FP32", mask, true, None, 99, gpr=3, raw=True,
                       source="spec-test", reference=reference)
    cases += run_select("b-ior-omitted", """No B.IOR: the false scalar is the all-zero encoding, so element 0 is 0.""",
                        "TSELS", "FP32", mask, true, None, 99, gpr=None, source="hand",
                        reference=reference + "; TSELS defaults: omitted B.IOR supplies zero")
    cases += run_select("direct-call", "The same selection as a direct call.", "TSELS", "FP32", mask, true, None, 99,
                        direct_call=True, source="hand", reference=reference)
    return cases


def spec_tsels_packed(test_id):
    reference = spec_ref(test_id, "element 0 == 99 (mask 0, the scalar), element 1 == 11 (mask 1)")
    mask, true = [[0, 1]], [[0x7FF8000000000001, 11]]
    check(select_rows(mask, true, None, 99, "FP32"), [[99, 11]], test_id)
    cases = run_select("direct", """The spec test: the two mask bits share byte 0 (0b10); element 0 of the true
        source holds the Word 0x7ff8000000000001 but mask 0 selects the scalar 99; element 1 copies 11.""",
                       "TSELS", "FP32", mask, true, None, 99, direct_call=True, profiles=["pto-v0"],
                       source="spec-test", reference=reference)
    cases += run_select("direct-hw-ieee", """The same selection under hw-ieee (element bits: the true source's
        element 0 is 0x00000001, not selected).""", "TSELS", "FP32", mask, [[1, 11]], None, 99, direct_call=True,
                        profiles=["hw-ieee"], source="hand", reference=reference)
    cases += run_select("block", "The same selection through a TSELS block.", "TSELS", "FP32", mask, [[1, 11]], None,
                        99, source="hand", reference=reference)
    return cases


def spec_cases(op: str, test_id: str) -> list:
    name = test_id[len(f"PTO-AVS-TILE-{op}-"):-4]
    table = {
        ("TCMP", "BUNDLE"): spec_tcmp_bundle, ("TCMP", "CAPACITY"): spec_tcmp_capacity,
        ("TCMP", "DATR"): spec_tcmp_datr, ("TCMP", "MODES"): spec_tcmp_modes, ("TCMP", "ORDER"): spec_tcmp_order,
        ("TCMP", "PACKED"): lambda i: spec_packed("TCMP", i), ("TCMP", "PADDING"): spec_tcmp_padding,
        ("TCMP", "SCHEMA"): spec_tcmp_schema, ("TCMPS", "BUNDLE"): spec_tcmps_bundle,
        ("TCMPS", "MASK"): spec_tcmps_mask, ("TCMPS", "PACKED"): lambda i: spec_packed("TCMPS", i),
        ("TSEL", "BUNDLE"): spec_tsel_bundle, ("TSEL", "DATR"): spec_tsel_datr, ("TSEL", "EXACT"): spec_tsel_exact,
        ("TSEL", "MASK"): spec_tsel_mask, ("TSEL", "MASK-ZERO"): spec_tsel_mask_zero,
        ("TSEL", "PACKED"): spec_tsel_packed, ("TSEL", "PADDING"): spec_tsel_padding,
        ("TSEL", "SCHEMA"): spec_tsel_schema, ("TSELS", "BUNDLE"): spec_tsels_bundle,
        ("TSELS", "MASK"): lambda i: spec_tsel_mask(i, "TSELS"), ("TSELS", "PACKED"): spec_tsels_packed,
    }
    if name == "STATIC":
        return spec_static(op, test_id)
    if name == "TYPES":
        return spec_types(op, test_id)
    return table[(op, name)](test_id)


# ---------------------------------------------------------------------------------------
# Reference vectors beyond the spec IDs

def float_values(t: str) -> dict:
    """Value class -> encodings of floating type t, built from its format fields."""
    f = ref.numeric.FORMATS[t]
    top = (1 << f.exp_bits) - 1

    def enc(sign, exp, frac):
        return sign << f.sign_bit | exp << (f.frac_lsb + f.frac_bits) | frac << f.frac_lsb

    full = (1 << f.frac_bits) - 1
    max_exp, max_frac = (top, full - 1) if f.nan == "e4m3" else (top - 1, full)
    one = enc(0, (1 << (f.exp_bits - 1)) - 1, 0)
    out = {}
    for sign, name in ((0, "pos"), (1, "neg")):
        out[f"{name}-zero"] = [enc(sign, 0, 0)]
        out[f"{name}-subnormal"] = [enc(sign, 0, 1), enc(sign, 0, full)]
        out[f"{name}-normal"] = [enc(sign, 1, 0), one | sign << f.sign_bit, enc(sign, max_exp, max_frac)]
        if f.has_inf:
            out[f"{name}-inf"] = [enc(sign, top, 0)]
    if f.nan == "e4m3":
        out["qnan"] = [enc(0, top, full), enc(1, top, full)]
    else:
        out["qnan"] = [enc(0, top, 1 << (f.frac_bits - 1)), enc(1, top, full)]
        out["snan"] = [enc(0, top, 1), enc(1, top, (1 << (f.frac_bits - 1)) - 1 or 1)]
    return out


def int_values(t: str) -> list:
    w = ref.width(t)
    m = (1 << w) - 1
    pattern = int("5A" * (w // 8), 16)
    return sorted({0, 1, 2, 3, 1 << (w - 1), (1 << (w - 1)) - 1, m, m - 1, pattern, pattern ^ m})


def quiet_values(t: str) -> list:
    """Every value of t but the signaling NaNs (no flag can come from them)."""
    if t not in ref.FLOAT_TYPES:
        return int_values(t)
    return [c for name, codes in float_values(t).items() if name != "snan" for c in codes]


def grid(left: list, right: list):
    """Row r of the left tile is left[r] repeated; the right tile's rows are all of ``right``."""
    return [[a] * len(right) for a in left], [list(right) for _ in left]


def x_tcmp() -> list:
    cases = []
    for t in ref.LEGAL_TYPES:
        low = t.lower()
        values = quiet_values(t)
        for mode in ref.MODES:
            m = mode.lower()
            left, right = grid(values, values)
            cases += run_compare(f"{low}-{m}-pairs", f"""{t} {mode}: every pair of {'the boundary values' if t not in
                ref.FLOAT_TYPES else 'values but signaling NaNs (zeros, subnormals, normals, infinities, quiet NaNs)'}
                as a {len(values)} x {len(values)} grid (row = left value, column = right value); no flag may be
                raised; B.DATR Zero padding makes the whole payload observable.""", "TCMP", t, left, right, mode=mode,
                                 pad="Zero")
            if t in ref.FLOAT_TYPES:
                classes = float_values(t)
                for name in ("qnan", "snan"):
                    if name not in classes:
                        continue
                    nans = classes[name]
                    row = (nans * len(values))[:len(values)]
                    for side in ("left", "right") + (("both",) if name == "snan" else ()):
                        a, b = {"left": ([row], [values]), "right": ([values], [row]),
                                "both": ([nans], [nans[::-1]])}[side]
                        flag = "NV" if name == "snan" else "no flag"
                        what = ("both tiles hold only signaling NaNs" if side == "both" else
                                f"the {side} tile holds only {'signaling' if name == 'snan' else 'quiet'} NaNs "
                                f"({', '.join(hex(c) for c in nans)}) against every non-signaling value")
                        cases += run_compare(f"{low}-{m}-{name}-{side}", f"""{t} {mode}: {what}: every bit is
                            {int(mode == 'NE')} ({mode} with a NaN), {flag} (one value class per tile, so the status
                            comes from this class alone).""", "TCMP", t, a, b, mode=mode, pad="Zero")
    cases += geometry_cases("TCMP") + carrier_cases("TCMP") + compare_fault_cases("TCMP")
    return cases


def x_tcmps() -> list:
    cases = []
    for t in ref.LEGAL_TYPES:
        low = t.lower()
        values = quiet_values(t)
        if t in ref.FLOAT_TYPES:
            classes = float_values(t)
            scalars = [(name, codes[0]) for name, codes in classes.items()]
        else:
            scalars = [(f"{v:x}", v) for v in int_values(t)]
        for mode in ref.MODES:
            m = mode.lower()
            for name, scalar in scalars:
                cases += run_compare(f"{low}-{m}-scalar-{name}", f"""{t} {mode}: every value but signaling NaNs
                    against the GPR scalar {scalar:#x} ({name}){'; a signaling NaN scalar raises NV' if name ==
                    'snan' else ''}.""", "TCMPS", t, [values], None, scalar, mode=mode, pad="Zero")
            if t in ref.FLOAT_TYPES and "snan" in float_values(t):
                nans = float_values(t)["snan"]
                one = legal_example("TCMPS", t)[0]
                cases += run_compare(f"{low}-{m}-snan-source", f"""{t} {mode}: a source tile of signaling NaNs
                    only against the scalar 1.0: every bit {int(mode == 'NE')}, NV.""", "TCMPS", t, [nans], None, one,
                                     mode=mode, pad="Zero")
    cases += [illegal_type_case("TCMPS", t, "hand", "asl/tile/tile-scalar-and-immediate/logical/TCMPS.asl "
                                "InstructionContractDataTypeLegal_TCMPS; " + LEGALITY)
              for t in ref.ALL_TYPES if t not in ref.LEGAL_TYPES]
    cases += scalar_normalisation_cases() + geometry_cases("TCMPS") + carrier_cases("TCMPS")
    cases += compare_fault_cases("TCMPS")
    return cases


def scalar_normalisation_cases() -> list:
    """TileRawElementValue: only the scalar's element bits count (GPR upper bits ignored)."""
    out = []
    for t, scalar, source in (("S8", 0xFFFFFFFFFFFFFF80, [0x80, 0x7F, 0xFF]), ("S8", 0x0000000000000080, [0x80, 0x7F]),
                              ("U16", 0xABCD000000001234, [0x1234, 0x1235, 0xFFFF]),
                              ("S32", 0x00000000FFFFFFFF, [0xFFFFFFFF, 0, 1]),
                              ("FP16", 0xFFFFFFFFFFFF3C00, [0x3C00, 0xBC00, 0x3C01]),
                              ("TF32", 0xFFFFFFFF3F800000, [0x3F800000, 0x3F802000]),
                              ("BF16", 0x123400000000FF80, [0xFF80, 0x7F80])):
        for mode in ("EQ", "LT"):
            out += run_compare(f"{t.lower()}-scalar-upper-bits-{scalar:x}-{mode.lower()}", f"""{t} {mode} against the
                GPR scalar {scalar:#x}: only its low {ref.width(t)} bits ({ref.element(scalar, t):#x}) are the
                operand (TileRawElementValue); the comparison is {'signed' if t[0] == 'S' else 'of the element'}
                order.""", "TCMPS", t, [source], None, scalar, mode=mode, pad="Zero")
    tiles = [tile(0, "TF32", 128, 2, (1, 2), [[0x3F800000, 0x40000000]])]
    for name, program in (("block", bundle("TCMPS", "TF32", (1, 2), 2, 1, tiles=(0,))),
                          ("direct", direct("TCMPS", 1, [0], scalar=0x3F800001, mode="EQ"))):
        state = tiles + ([predicate_tile(1, rows_of(128, 2, "TF32"), 2, (1, 2), defined="none")]
                         if name == "direct" else [])
        out.append(fault_case(f"tf32-scalar-invalid-encoding-{name}", f"""A TF32 scalar 0x3f800001 has nonzero
            discarded fraction bits: TileNumericEncodingValid fails ({'closed TCMPS schema, before allocation' if
            name == 'block' else 'operand legality'}), Fault_TileLegality.""", state, program,
                              gprs={GPR: 0x3F800001} if name == "block" else None))
    return out


def geometry_cases(op: str) -> list:
    """Valid regions smaller than the tile, rows straddling bytes, every PadValue, packing order."""
    out = []
    # An asymmetric 1 x 8 row: the low bits of byte 0 first (0x0b); a high-first packer writes 0xd0.
    left = [[1, 1, 0, 1, 0, 0, 0, 0], [0, 0, 1, 1, 1, 0, 1, 0]]
    right = [[1] * 8, [1] * 8]
    scalar = 1
    other = right if op == "TCMP" else None
    out += run_compare("packing-order-u64", """A full 2 x 8 U64 tile (no padding): EQ bits 1,1,0,1,0,0,0,0 then
        0,0,1,1,1,0,1,0 are bytes 0x0b, 0x5c (logical index i in bit i mod 8), not the high-first 0xd0, 0x3a.""",
                       op, "U64", left, other, None if op == "TCMP" else scalar, cols=8)
    u8 = [[(r * 5 + c * 3) % 7 for c in range(5)] for r in range(3)]
    u8_right = [[3] * 5 for _ in range(3)]
    for pad in ("Zero", "Max", "Min", "Null"):
        out += run_compare(f"u8-3x5-in-16x8-direct-{pad.lower()}", f"""U8 3 x 5 valid in a 16 x 8 tile, GE 3, direct
            call with PadValue {pad}: rows start at logical 0, 8, 16 (bytes 0, 1, 2), the 3 padding bits of each
            valid row and the other 13 rows are {ref.PAD_BIT[pad] if pad != 'Null' else 'undefined'}.""", op, "U8",
                           u8, u8_right if op == "TCMP" else None, None if op == "TCMP" else 3, mode="GE", pad=pad,
                           direct_call=True, cols=8)
        out += run_compare(f"u8-3x5-in-16x8-block-{pad.lower()}", f"""The same through a block with B.DATR CMode=GE,
            PadValue={pad}.""", op, "U8", u8, u8_right if op == "TCMP" else None, None if op == "TCMP" else 3,
                           mode="GE", pad=pad, cols=8)
    s16 = [[(0x8000 + 0x1111 * (r + c)) & 0xFFFF for c in range(10)] for r in range(2)]
    s16_right = [[0x9999] * 10 for _ in range(2)]
    out += run_compare("s16-2x10-in-16-cols-straddles-bytes", """S16 2 x 10 valid in 16-column rows, LT 0x9999
        (negative): each row's 10 bits cross a byte boundary (bits 0..9 and 16..25); Max padding.""", op, "S16", s16,
                       s16_right if op == "TCMP" else None, None if op == "TCMP" else 0x9999, mode="LT", pad="Max",
                       cols=16)
    out += run_compare("fp32-1x3-in-8-cols-lb2", """FP32 1 x 3 valid in an 8-column tile (B.DIM LB2=8): the
        destination keeps the source's physical geometry; Min padding writes 0 bits.""", op, "FP32",
                       [[0x3F800000, 0xBF800000, 0x80000000]], [[0x3F800000, 0x3F800000, 0]] if op == "TCMP" else None,
                       None if op == "TCMP" else 0, mode="LE", pad="Min", cols=8)
    out += run_compare("u8-block-cmode-only-zero-pad", """B.DATR CMode=NE alone: the present B.DATR's PadValue
        field is 00, Zero padding (not Null).""", op, "U8", u8, u8_right if op == "TCMP" else None,
                       None if op == "TCMP" else 3, mode="NE", pad="Zero", datr="B.DATR CMode=NE", cols=8)
    # PE_MASK 0000: no checks at all, nothing happens
    srcs = [tile(0, "U8", 128, 8, (1, 2), defined="none")] + ([tile(1, "U8", 128, 8, (1, 2), defined="none")]
                                                             if op == "TCMP" else [])
    out.append(case("pe-mask-zero-no-op", f"""A complete {op} block with mask=0000 over undefined sources: a strict
        no-op before schema, source and allocation checks; nothing changes.""", BOTH, "hand",
                    spec_ref("PTO-AVS-TILE-TSEL-MASK-ZERO-001", "the same rule") + f"; {op} legality: PE_MASK=0000",
                    {"tiles": srcs}, bundle(op, "U8", (1, 2), 8, 1, tiles=[s["index"] for s in srcs], mask="0000"),
                    {"fault": None, "flags": Hex(0), "allocated": Flow([s["index"] for s in srcs]),
                     "unchanged": "all"}))
    return out


def carrier_cases(op: str) -> list:
    """pto-v0 raw carriers: source Words with bits above the element."""
    out = []
    garbage = 0xA5A5A5A500000000
    for t, values in (("FP32", [0x3F800000, 0xBF800000, 0x80000000, 0x7F800000]),
                      ("FP16", [0x3C00, 0xBC00, 0x8000, 0x7C00]), ("S16", [0x8000, 0x7FFF, 0xFFFF, 0x0001])):
        dirty = [garbage | v for v in values]
        for mode in ("EQ", "GT", "GE", "LT"):
            if op == "TCMP":
                right = [values]
                out += run_compare(f"{t.lower()}-carrier-upper-bits-{mode.lower()}", f"""pto-v0: the left {t} Words
                    carry {garbage:#x} above equal element bits on the right. {'SPEC-CHOICE (index row 27): floating '
                    'equality compares whole Words in TileProfileFloatingCompare, so nonzero equal elements are '
                    'unequal and then greater' if t[0] == 'F' else 'Integer operands are the extended element bits '
                    '(TileIntegerOperandValue): the upper bits do not count'}.""", op, t, [dirty], right, mode=mode,
                                   pad="Zero", profiles=["pto-v0"])
            else:
                for scalar in values[:2]:
                    out += run_compare(f"{t.lower()}-carrier-upper-bits-{mode.lower()}-scalar-{scalar:x}", f"""pto-v0:
                        the {t} source Words carry {garbage:#x} above the element; the scalar {scalar:#x} is reduced to
                        its element bits. {'SPEC-CHOICE (index row 27): floating equality compares whole Words'
                        if t[0] == 'F' else 'Integer operands are the extended element bits'}.""", op, t, [dirty],
                                       None, scalar, mode=mode, pad="Zero", profiles=["pto-v0"])
    return out


def compare_fault_cases(op: str) -> list:
    out = []
    n = 2 if op == "TCMP" else 1
    scalar = None if op == "TCMP" else 1

    def sources(t="U8", **kw):
        return [tile(i, t, 128, 8, (1, 2), kw.get("data", [[1, 2]]), layout=kw.get("layout"),
                     defined=kw.get("defined") if i == n - 1 else None) for i in range(n)]

    def dest(index, rows=16, cols=8, valid=(1, 2), capacity=128):
        return predicate_tile(index, rows, cols, valid, capacity=capacity, defined="none")

    def call(dst):
        return direct(op, dst, list(range(n)), scalar=scalar, mode="EQ")

    pred_source = predicate_tile(0, 16, 8, (1, 2), [[1, 0]])
    tiles = [pred_source] + sources()[1:] + [dest(n)]
    out.append(fault_case("predicate-tile-as-source-direct", f"""A predicate tile as the {'left ' if n == 2 else ''}
        numeric source: operand legality needs numeric storage, Fault_TileLegality.""", tiles, call(n)))
    btiles = [pred_source] + sources()[1:]
    out.append(fault_case("predicate-tile-as-source-block", f"""The same predicate tile as the source of a U8 {op}
        block: the closed schema (storage kind numeric) fails before allocation, Fault_TileLegality.""", btiles,
                          bundle(op, "U8", (1, 2), 8, 1, tiles=list(range(n))), gprs={GPR: 1} if scalar else None))
    numeric_dest = sources() + [tile(n, "U8", 128, 8, (1, 2), defined="none")]
    out.append(fault_case("numeric-destination-direct", """An ordinary U8 destination of the same shape: the
        destination must be predicate-kind storage, Fault_TileLegality.""", numeric_dest, call(n)))
    out.append(fault_case("destination-geometry-differs", """A predicate destination of 8 x 16 for 16 x 8 sources:
        TileLogicalShapeMatch fails, Fault_TileLegality.""", sources() + [dest(n, rows=8, cols=16)], call(n)))
    wide = [tile(i, "U8", 256, 16, (1, 2), [[1, 2]]) for i in range(n)]
    out.append(fault_case("destination-capacity-below-elements", """SPEC-CHOICE (index row 28): a 16 x 16
        predicate destination of 128 bytes holds its 256 packed bits (32 bytes) but not rows*cols = 256 U8 elements
        (TileDescriptorConfigured): Fault_TileLegality.""", wide + [dest(n, rows=16, cols=16, capacity=128)],
                          call(n)))
    out += run_compare("destination-capacity-equals-elements", """The same 16 x 16 geometry with a 256-byte
        predicate destination: legal.""", op, "U8", [[1, 2]], [[1, 3]] if op == "TCMP" else None,
                       None if op == "TCMP" else 1, direct_call=True, cols=16, capacity=256)
    out.append(fault_case("undefined-source", f"""The {'right ' if n == 2 else ''}source is undefined:
        TileSourceContentsDefined fails, Fault_TileLegality.""", sources(defined="none") + [dest(n)], call(n)))
    out.append(fault_case("column-major-sources", """ColumnMajor sources: only RowMajor is legal,
        Fault_TileLegality.""", sources(layout="ColumnMajor") + [dest(n)], call(n)))
    for t, bad in (("TF32", 0x3F800001), ("HF32", 0x3F800800)):
        out.append(fault_case(f"{t.lower()}-invalid-encoding-source", f"""A {t} source element {bad:#x} with nonzero
            discarded fraction bits: TileSourceEncodingsValid fails, Fault_TileLegality (direct call).""",
                              [tile(i, t, 128, 2, (1, 2), [[bad, 0x3F800000]]) for i in range(n)]
                              + [dest(n, rows=16, cols=2)], call(n)))
        out.append(fault_case(f"{t.lower()}-invalid-encoding-source-block", f"""The same {t} source in a block: the
            closed schema rejects it before allocation, Fault_TileLegality.""",
                              [tile(i, t, 128, 2, (1, 2), [[bad, 0x3F800000]]) for i in range(n)],
                              bundle(op, t, (1, 2), 2, 1, tiles=list(range(n))), gprs={GPR: 0} if scalar else None))
    big = [dict(tile(i, "U8", 32768, 128, (256, 128)), fill=Hex(1), mask="0001") for i in range(n)]
    out.append(fault_case("predicate-destination-over-16384-elements", """Two 256 x 128 U8 sources (32768
        elements) and TSize 32 KiB: the predicate destination would hold 32768 logical elements, beyond the
        16384 that TilePredicateLogicalIndex can address. SPEC-CHOICE (index row 30): Fault_TileAllocation before
        allocation (the executable spec stops at a range error).""", big,
                          bundle(op, "U8", (256, 128), 128, size_code(32768), tiles=list(range(n)), mask="0001"),
                          "Fault_TileAllocation", reference="asl/tile/model/definedness/elements.asl "
                          "TilePredicateLogicalIndex {0..16383}; device_model/state.py MAX_PREDICATE_ELEMENTS",
                          gprs={GPR: 1} if scalar else None))
    if op == "TCMP":
        mixed = [tile(0, "U8", 128, 8, (1, 2), [[1, 2]]), tile(1, "S8", 128, 8, (1, 2), [[1, 2]]), dest(2)]
        out.append(fault_case("source-types-differ", """A U8 left and an S8 right source: TileShapeAndTypeMatch
            fails, Fault_TileLegality.""", mixed, call(2)))
    return out


def x_tsel(op: str) -> list:
    cases = []
    for t in ref.LEGAL_TYPES:
        low = t.lower()
        values = quiet_values(t) + (float_values(t).get("snan", []) if t in ref.FLOAT_TYPES else [])
        n = len(values)
        # an asymmetric mask: ones at 0, 1, 3, 6, 7, 8, ... (no period of two)
        mask = [[1 if (i * 7 + i // 3) % 5 < 2 else 0 for i in range(n)]]
        true, false = [values], [values[::-1]]
        scalars = [values[0], values[-1]] if op == "TSELS" else [None]
        for k, scalar in enumerate(scalars):
            suffix = "" if op == "TSEL" else f"-scalar-{scalar:x}"
            cases += run_select(f"{low}-values{suffix}", f"""{t}: every special and boundary encoding (NaN payloads,
                signaling NaNs, signed zeros, subnormals, extremes) selected by an asymmetric mask against
                {'the reversed row' if op == 'TSEL' else f'the scalar {scalar:#x}'}: each element is copied bit for
                bit and no status is recorded.""", op, t, mask, true, false if op == "TSEL" else None, scalar)
        for bit in (1, 0):
            cases += run_select(f"{low}-mask-all-{bit}", f"""{t}: a mask of all {bit}s selects every element of the
                {'true source' if bit else ('false source' if op == 'TSEL' else 'scalar')} (polarity).""", op, t,
                                [[bit] * n], true, false if op == "TSEL" else None,
                                values[1] if op == "TSELS" else None)
    if op == "TSELS":
        cases += [illegal_type_case(op, t, "hand", "asl/tile/tile-scalar-and-immediate/logical/TSELS.asl "
                                    "InstructionContractDataTypeLegal_TSELS; " + LEGALITY)
                  for t in ref.ALL_TYPES if t not in ref.LEGAL_TYPES]
    cases += select_special_cases(op) + select_geometry_cases(op) + select_fault_cases(op)
    return cases


def select_special_cases(op: str) -> list:
    out = []
    garbage = 0xA5A5A5A500000000
    # pto-v0 raw carriers: the true source's whole Word is copied; a TSELS scalar is its element bits
    true = [[garbage | 0x3F800000, garbage | 0x7F800001, garbage | 0xFFC00000, 0x1]]
    false = [[0xFFFFFFFF00000002, 0x0, garbage | 0x80000000, 0x7F7FFFFF]]
    mask = [[1, 1, 0, 0]]
    out += run_select("fp32-carrier-words", f"""pto-v0: the true source's whole Words (with {garbage:#x} above the
        element) are copied; {'the false Words too' if op == 'TSEL' else 'the scalar 0xffffffff7f800001 contributes '
        'only its element bits, zero-extended'}.""", op, "FP32", mask, true, false if op == "TSEL" else None,
                      0xFFFFFFFF7F800001 if op == "TSELS" else None, profiles=["pto-v0"], direct_call=True)
    # invalid TF32 encodings are copied: no encoding validity for selected payloads
    tf32 = [[0x3F800001, 0x7F800123, 0x00001FFF, 0x3F800000]]
    other = [[0x40000000, 0xC0000001, 0x0, 0x7F801000]]
    out += run_select("tf32-invalid-encodings-direct", f"""TF32 carriers with nonzero discarded fraction bits
        (0x3f800001, 0x00001fff) are selected bit for bit{' from both sources' if op == 'TSEL' else ''}: the
        operand rule asks no encoding validity of selected payloads; no status.""", op, "TF32", [[1, 0, 1, 0]],
                      tf32, other if op == "TSEL" else None, 0xC0000001 if op == "TSELS" else None, direct_call=True)
    if op == "TSEL":
        out += run_select("tf32-invalid-encodings-block", """The same TSEL through a block: the closed TSEL schema
            asks no encoding validity either.""", op, "TF32", [[1, 0, 1, 0]], tf32, other)
    else:
        # SPEC-CHOICE 29: the TSELS document and the direct operand rule ask no
        # encoding validity of selected payloads; the closed block schema
        # (SelectedBundleTileScalarSourceLegal) checks the true source's encodings.
        tiles = [predicate_tile(0, rows_of(128, 4, "TF32"), 4, (1, 4), [[1, 0, 1, 0]]),
                 tile(1, "TF32", 128, 4, (1, 4), tf32)]
        out.append(fault_case("tf32-invalid-encodings-block", """SPEC-CHOICE (index row 29): the same TF32 source
            in a TSELS block: the closed schema's SelectedBundleTileScalarSourceLegal asks TileSourceEncodingsValid
            of the true source, so the block faults (Fault_TileLegality, before allocation) although the document
            and the direct operand rule ask no encoding validity.""", tiles, bundle(op, "TF32", (1, 4), 4, 1,
                                                                                   tiles=(0, 1)),
                              gprs={GPR: 0xC0000001}))
        out += run_select("tf32-invalid-scalar-block", """A TF32 scalar with nonzero discarded fraction bits
            (0x3f800001) in a TSELS block: the scalar's encoding is not checked; it is copied bit for bit.""", op,
                          "TF32", [[1, 0]], [[0x3F800000, 0x40000000]], None, 0x3F800001)
        for t, scalar in (("S8", 0xFFFFFFFFFFFFFF80), ("U16", 0xABCD000000001234), ("FP16", 0xFFFFFFFFFFFF7C01),
                          ("S32", 0x80000000), ("E5M2", 0x17D)):
            out += run_select(f"{t.lower()}-scalar-normalised-{scalar:x}", f"""The GPR scalar {scalar:#x} on {t}:
                mask-0 elements get its low {ref.width(t)} bits, {ref.element(scalar, t):#x}, zero-extended in the
                Word (TileRawElementValue; no sign extension, no conversion).""", op, t, [[0, 1, 0]],
                              [[1, 2, 3]], None, scalar, profiles=["pto-v0"])
            out += run_select(f"{t.lower()}-scalar-normalised-{scalar:x}-hw-ieee", "The same elements under "
                              "hw-ieee.", op, t, [[0, 1, 0]], [[1, 2, 3]], None, scalar, profiles=["hw-ieee"])
    for status in (0x1F, 0x04):
        out += run_select(f"snan-selected-status-{status:x}-kept", f"""FP32 signaling NaNs selected; NumericStatus
            {status:#x} before is the status after (selection records nothing).""", op, "FP32", [[1, 0]],
                          [[0x7F800001, 0xFF800001]], [[0xFFA00000, 0x7FA00000]] if op == "TSEL" else None,
                          0x7FA00000 if op == "TSELS" else None, status=status, direct_call=True)
    return out


def select_geometry_cases(op: str) -> list:
    out = []
    mask = [[(r + c * 2) % 3 == 0 and 1 or 0 for c in range(5)] for r in range(3)]
    true = [[0x10 * r + c for c in range(5)] for r in range(3)]
    false = [[0x80 | (0x10 * r + c) for c in range(5)] for r in range(3)]
    for t in ("FP32", "S16", "U8"):
        for pad in ("Zero", "Max", "Min", "Null"):
            out += run_select(f"{t.lower()}-3x5-in-8-cols-pad-{pad.lower()}", f"""{t} 3 x 5 valid in 8-column tiles,
                mask bits straddling bytes (rows at logical 0, 8, 16), direct call with PadValue {pad}: the padding
                is {'the typed ' + pad + ' word' if pad != 'Null' else 'undefined'}.""", op, t, mask, true,
                              false if op == "TSEL" else None, 0x55 if op == "TSELS" else None, pad=pad,
                              direct_call=True, cols=8)
    out += run_select("fp64-block-datr-max", """An FP64 block with B.DATR PadValue=Max (the B.DATR DataType 0 is
        FP64, SPEC-CHOICE index row 2): the padding is the FP64 Max word.""", op, "FP64", mask, true,
                      false if op == "TSEL" else None, 0x55 if op == "TSELS" else None, pad="Max", cols=8)
    out += run_select("u8-block-3x5", "The 3 x 5 selection through a block without B.DATR (Null padding).", op, "U8",
                      mask, true, false if op == "TSEL" else None, 0x55 if op == "TSELS" else None, cols=8)
    srcs = [predicate_tile(0, 16, 8, (1, 2), defined="none"), tile(1, "U8", 128, 8, (1, 2), defined="none")]
    if op == "TSEL":
        srcs.append(tile(2, "U8", 128, 8, (1, 2), defined="none"))
    out.append(case("pe-mask-zero-no-op", f"""A complete {op} block with mask=0000 over an undefined mask and
        undefined sources: a strict no-op; nothing changes.""", BOTH, "hand",
                    spec_ref("PTO-AVS-TILE-TSEL-MASK-ZERO-001", "PE_MASK zero is a strict no-op"), {"tiles": srcs},
                    bundle(op, "U8", (1, 2), 8, 1, tiles=[s["index"] for s in srcs], mask="0000"),
                    {"fault": None, "flags": Hex(0), "allocated": Flow([s["index"] for s in srcs]),
                     "unchanged": "all"}))
    return out


def select_fault_cases(op: str) -> list:
    out = []
    scalar = 7 if op == "TSELS" else None
    data = [tile(1, "U8", 128, 8, (1, 2), [[1, 2]])] + ([tile(2, "U8", 128, 8, (1, 2), [[3, 4]])]
                                                        if op == "TSEL" else [])
    n = 1 + len(data)

    def call(dst, srcs=None):
        return direct(op, dst, srcs or list(range(n)), scalar=scalar)

    def dest(index):
        return tile(index, "U8", 128, 8, (1, 2), defined="none")

    mask = predicate_tile(0, 16, 8, (1, 2), [[1, 0]])
    out.append(fault_case("mask-undefined", """The mask's valid bits are undefined: TilePredicateValuesLegal
        fails, Fault_TileLegality.""", [predicate_tile(0, 16, 8, (1, 2), defined="none")] + data + [dest(n)],
                          call(n)))
    out.append(fault_case("mask-3x3-geometry", """A 3 x 3 predicate mask (9 bits, rows*cols not a multiple of 8)
        for 16 x 8 data: TileLogicalShapeMatch fails, Fault_TileLegality.""",
                          [predicate_tile(0, 3, 3, (1, 2), [[1, 0]])] + data + [dest(n)], call(n)))
    out.append(fault_case("mask-block-3x3-geometry", """The same 3 x 3 mask in a block: the closed schema's
        TileLogicalShapeMatch(mask, true source) fails before allocation, Fault_TileLegality.""",
                          [predicate_tile(0, 3, 3, (1, 2), [[1, 0]])] + data,
                          bundle(op, "U8", (1, 2), 8, 1, tiles=list(range(n))), gprs={GPR: 7} if scalar else None))
    pred_true = predicate_tile(1, 16, 8, (1, 2), [[1, 1]])
    out.append(fault_case("predicate-tile-as-true-source", """A predicate tile as the true source:
        numeric storage is required, Fault_TileLegality.""", [mask, pred_true] + data[1:] + [dest(n)], call(n)))
    out.append(fault_case("predicate-tile-as-true-source-block", """The same in a block: the closed schema
        rejects it before allocation, Fault_TileLegality.""", [mask, pred_true] + data[1:],
                          bundle(op, "U8", (1, 2), 8, 1, tiles=list(range(n))), gprs={GPR: 7} if scalar else None))
    out.append(fault_case("predicate-destination", """A predicate destination for a numeric selection: the
        destination must be numeric storage, Fault_TileLegality.""",
                          [mask] + data + [predicate_tile(n, 16, 8, (1, 2), defined="none")], call(n)))
    out.append(fault_case("numeric-mask-block", """An ordinary U8 tile as the mask of a block: the closed schema's
        TilePredicateValuesLegal fails before allocation, Fault_TileLegality.""",
                          [tile(0, "U8", 128, 8, (1, 2), [[1, 0]])] + data,
                          bundle(op, "U8", (1, 2), 8, 1, tiles=list(range(n))), gprs={GPR: 7} if scalar else None))
    out.append(fault_case("undefined-true-source", """An undefined true source: Fault_TileLegality.""",
                          [mask, tile(1, "U8", 128, 8, (1, 2), defined="none")] + data[1:] + [dest(n)], call(n)))
    return out


def x_file(op: str) -> dict:
    builders = {"TCMP": x_tcmp, "TCMPS": x_tcmps, "TSEL": lambda: x_tsel("TSEL"), "TSELS": lambda: x_tsel("TSELS")}
    return {"format": "pto-avs-vector/1", "id": f"PTO-AVS-X-{op}-REF-001", "operation": op, "kind": "execution",
            "exercises": Flow(UNITS[op]["readiness_subjects"]),
            "provenance": ("Every expected value comes from the independent element reference "
                           "vectors/reference/compare_elements.py (exact values through vectors/reference/numeric.py; "
                           "the ASL's comparison, predicate packing and padding rules; the hardware profile's "
                           "comparisons section), which shares no code with device_model, through "
                           f"`{COMMAND}`. A flag-raising value class (signaling NaNs) has tiles of its own. Nothing "
                           "here was produced by running the golden model."),
            "cases": builders[op]()}


# ---------------------------------------------------------------------------------------
# Files

FAMILY = engine.spec_id_family("generate_compare", tuple(ref.OPERATIONS), spec_cases, x_file,
                               "vectors/reference/compare_elements.py", COMMAND)
files = FAMILY.files

if __name__ == "__main__":  # the command the files' provenance names: the engine's, for this family
    sys.exit(engine.legacy_main([FAMILY]))
