"""Write the vectors of the twelve row and column reductions (TROWSUM ... TCOLARGMIN).

    .venv/bin/python -m pto_avs.vectors.reference generate|check TROWSUM ... TCOLARGMIN
    .venv/bin/python -m pto_avs.vectors.reference.generate_reductions [--out DIR] [--check]  (the same)

- one file per spec test ID of these operations (``PTO-AVS-TILE-<OP>-<NAME>-NNN.yaml``):
  cases that replay the spec test point (its tiles, values, direct call or decoded block)
  with the values it asserts (``source: spec-test``), plus the same facts through the
  other path (a block for a direct-call test), the pto-v0 carrier Words where the spec
  asserts whole Words, and the other profile (``source: hand``);
- per operation ``PTO-AVS-X-<OP>-REF-001.yaml`` (``source: reference-generator``): every
  legal source type x pairs of special and boundary values (each line of the tile one
  row or column; lines grouped by result class and flags, so a flag-raising line never
  shares a case with another class), fold-order lines that a reassociated, reversed or
  padding-reading fold gets wrong, ties and NaNs of the index reductions, signed Words as
  element bits and sign-extended, partial valid regions with defined padding in the
  source, every PadValue on the destination, the index types of direct calls, and the
  legality and fault order of the closed schema, the operands and the allocation.

Every expected value is a spec test's own assertion or comes from the independent fold
reference ``vectors/reference/reductions.py`` (no device_model code); a spec-test value
and the reference must agree or this script stops. Nothing here runs the golden model.
"""
from __future__ import annotations

import sys
from fractions import Fraction

from . import elementwise as elements
from . import engine, numeric
from . import reductions as ref
from .engine import (OPERATION_TABLE, UNITS, Flow, Hex, bstart_word, case, dims_of, first_free, iot_line,
                     rows_of, size_code, spec_ref, tile, width)

COMMAND = ".venv/bin/python -m pto_avs.vectors.reference.generate_reductions"
BOTH = ["pto-v0", "hw-ieee"]
OPERATIONS = tuple(ref.OPERATIONS)
WORD = (1 << 64) - 1
LINES_PER_CASE = 256  # lines (rows or columns) of one value case
PADS = ("Null", "Zero", "Max", "Min")  # the value cases of the n-th legal type pad with PADS[n % 4]
SINGLE_TYPES = ("FP32", "BF16", "S8")  # the types whose one-element lines are written

# Each operation's example: the values of its spec execution point (dtype, source rows).
EXAMPLE = {
    "TROWSUM": ("U8", [[250, 10]]), "TROWPROD": ("U8", [[20, 20]]), "TROWMAX": ("U16", [[0xFFFF, 1]]),
    "TROWMIN": ("S8", [[0xFF, 1]]), "TROWARGMAX": ("U8", [[1, 9, 9]]), "TROWARGMIN": ("U8", [[4, 2, 2]]),
    "TCOLSUM": ("U8", [[1, 2], [3, 4]]), "TCOLPROD": ("U8", [[2, 3], [4, 5]]),
    "TCOLMAX": ("U16", [[0xFFFF, 1], [2, 0xFFFF]]), "TCOLMIN": ("S8", [[0xFF, 5], [1, 0xFE]]),
    "TCOLARGMAX": ("U8", [[2, 7], [9, 7], [9, 3]]), "TCOLARGMIN": ("U8", [[2, 7], [2, 3], [4, 3]]),
}


def is_row(op: str) -> bool:
    return ref.OPERATIONS[op][1] == "row"


def engine_of(op: str) -> str:
    return OPERATION_TABLE[op]["engine"]


def destination_type(op: str, t: str, index_type: str = "U32") -> str:
    return index_type if ref.is_index(op) else t


# ---------------------------------------------------------------------------------------
# Geometry: the source tile and the destination a block allocates

def source_geometry(t: str, valid, cols=None, capacity=None):
    """(cols, capacity) of the smallest legal RowMajor tile holding ``valid``."""
    cols, capacity, _ = engine.smallest_tile(t, valid, cols, capacity)
    return cols, capacity


def destination_geometry(op: str, valid, src_cols: int):
    """(valid, cols) of the destination: valid_rows x 1 in one column, or 1 x valid_cols in
    the source's columns."""
    return ((valid[0], 1), 1) if is_row(op) else ((1, valid[1]), src_cols)


def destination_capacity(d_type: str, d_valid, d_cols: int) -> int:
    """The smallest TSize holding the destination's valid rows."""
    capacity = 128
    while rows_of(capacity, d_cols, d_type) < d_valid[0]:
        capacity *= 2
    return capacity


# ---------------------------------------------------------------------------------------
# Expected values

def expected(op: str, t: str, profile: str, rows):
    """(destination rows of Words, flags) of ``op`` over the source's valid region (reference)."""
    return ref.reduce_rows(op, t, profile, rows)


def element_rows(d_type: str, rows):
    mask = engine.element_mask(d_type)
    return [[w & mask for w in row] for row in rows]


def agreeing_profiles(op: str, t: str, rows, profiles, d_type: str) -> bool:
    """Whether every given profile gives the same element bits and flags."""
    seen = {(str(element_rows(d_type, w)), f) for w, f in (expected(op, t, p, rows) for p in profiles)}
    return len(seen) == 1


# ---------------------------------------------------------------------------------------
# One block or direct call over one source tile

def reduction_case(name, description, op, t, rows, *, profiles=BOTH, source="hand", reference="", cols=None,
                   capacity=None, direct=False, index_type="U32", pad=None, bstart=None, raw=False, carrier=None,
                   source_extra=None, size=None, src_index=0, asserted=None, mask="1111") -> dict:
    """A completed reduction of the source rows ``rows`` (its valid region). ``direct``: a
    direct call into a configured destination of ``index_type`` (index reductions);
    otherwise a block whose destination lands at the first free T index. ``asserted``: the
    spec's expected destination rows (checked against the reference). ``source_extra``:
    {"elements": {...}, "defined": "all"} for a source whose padding is defined."""
    valid = (len(rows), len(rows[0]))
    cols, capacity = source_geometry(t, valid, cols, capacity)
    d_type = destination_type(op, t, index_type)
    results = {p: expected(op, t, p, rows) for p in profiles}
    if len({(str(element_rows(d_type, w)), f) for w, f in results.values()}) != 1:
        raise ValueError(f"{op} {t} {name}: the profiles {profiles} disagree; split the case")
    words, flags = results[profiles[0]]
    if asserted is not None and element_rows(d_type, words) != element_rows(d_type, asserted):
        raise ValueError(f"{op} {name}: the spec asserts {asserted}, the reference gives {words}")
    src = tile(src_index, t, capacity, cols, valid, rows)
    if source_extra:
        src.update(source_extra)
    state = {"tiles": [src]}
    d_valid, d_cols = destination_geometry(op, valid, cols)
    carrier = profiles == ["pto-v0"] if carrier is None else carrier
    if direct:
        dst = 1 if src_index == 0 else 0
        d_capacity = destination_capacity(d_type, d_valid, d_cols)
        state["tiles"].append(tile(dst, d_type, d_capacity, d_cols, d_valid))
        program = engine.direct_call(op, dst, [src_index], pad=pad)
    else:
        dst = first_free([src_index])
        d_capacity = size or destination_capacity(d_type, d_valid, d_cols)
        datr = f"B.DATR {pad}" if pad and pad != "Null" else ("B.DATR Null" if pad == "Null" else None)
        program = engine.bundle_text(bstart or f"BSTART.{engine_of(op)} {op}, {t}", datr=datr,
                                     dims=dims_of(valid, cols),
                                     bindings=[iot_line([src_index], size_code(d_capacity), mask=mask)])
        if raw:
            program = engine.raw_bstart_program(program, bstart_word(op, t))
    allocated = sorted({src_index, dst})
    result = engine.result_tile(dst, d_type, d_capacity, d_cols, d_valid, words, pad, carrier=carrier)
    expect = engine.success_expect(flags, allocated, [src_index], [result])
    return case(name, description, list(profiles), source, reference, state, program, expect)


def per_profile_cases(name, description, op, t, rows, **options) -> list:
    """One case for both profiles where they agree, else one case per profile (named -pto-v0, -hw-ieee)."""
    d_type = destination_type(op, t, options.get("index_type", "U32"))
    if agreeing_profiles(op, t, rows, BOTH, d_type):
        return [reduction_case(name, description, op, t, rows, **options)]
    return [reduction_case(f"{name}-{p}", f"{description} ({p})", op, t, rows, profiles=[p], **options)
            for p in BOTH]


def fault_case(name, description, tiles, program, fault="Fault_TileLegality", *, reference="", profiles=BOTH):
    return engine.fault_case(name, description, tiles, program, fault, source="hand", reference=reference,
                             profiles=profiles)


def block(op, t, valid, cols, *, src=0, size=1, datr=None, dims=None, bindings=None, bstart=None, gpr=None):
    """A reduction block's text over a source of valid region ``valid`` in ``cols`` columns."""
    return engine.bundle_text(bstart or f"BSTART.{engine_of(op)} {op}, {t}", datr=datr,
                              dims=dims_of(valid, cols) if dims is None else dims,
                              bindings=bindings or [iot_line([src], size)], gpr=gpr)


# ---------------------------------------------------------------------------------------
# Spec test points

def t_static(op, test_id):
    t, rows = EXAMPLE[op]
    spec = OPERATION_TABLE[op]
    word = bstart_word(op, t)
    what = (f"DecodeTileOperation(TEPL, {spec['selector']}) selects {op}, handler {spec['semantic_handler']}, "
            f"engine {spec['engine']}")
    reference = spec_ref(test_id, what)
    return [
        reduction_case(f"bstart-{engine_of(op).lower()}-{op.lower()}-{t.lower()}", f"""BSTART.{engine_of(op)} {op},
            {t} = {word:#010x} (Mode {spec['mode']}, Function {spec['function']}: selector {spec['selector']}) runs
            {op} on the operation's example values.""", op, t, rows, source="spec-test", reference=reference),
        reduction_case("bstart-tepl-mode-function", f"""BSTART.TEPL {spec['mode']}, {spec['function']}, {t}: the
            same word, the same block.""", op, t, rows, source="spec-test", reference=reference,
                       bstart=f"BSTART.TEPL {spec['mode']}, {spec['function']}, {t}"),
        reduction_case("raw-bstart-word", f"""The BSTART as the raw word {word:#010x} packed by hand from command
            form 33 (match 0x00019181, DataType 31:27, Mode 26:25, Function 24:20).""", op, t, rows,
                       source="spec-test", reference=reference, raw=True),
    ]


def t_execution(op, test_id, asserted, what, *, index_types=("U32",), carrier_words=None):
    """A spec execution point: its direct call (per index type), the pto-v0 carrier Words it
    asserts, and the same values through a block."""
    t, rows = EXAMPLE[op]
    reference = spec_ref(test_id, what)
    cases = []
    for index_type in index_types if ref.is_index(op) else ("",):
        suffix = f"-{index_type.lower()}" if index_type and len(index_types) > 1 else ""
        cases.append(reduction_case(f"direct-call{suffix}", f"""The spec test point as a direct call{' into an '
            + index_type + ' index destination' if suffix else ''}: {what}.""", op, t, rows, source="spec-test",
                                    reference=reference, direct=True, index_type=index_type or "U32",
                                    asserted=asserted))
    if carrier_words is not None:
        cases.append(reduction_case("direct-call-carrier", """pto-v0 carrier Words of the direct call: the ASL's
            result Word (an integer MAX/MIN returns its operand sign-extended to the Word).""", op, t, rows,
                                    profiles=["pto-v0"], source="spec-test", reference=reference, direct=True,
                                    asserted=carrier_words))
    cases.append(reduction_case("bundle", f"""The same values through a block (BSTART.{engine_of(op)} {op}, {t});
        a block's {'index destination is U32' if ref.is_index(op) else 'destination has the source type'}.""",
                                op, t, rows, reference=reference, asserted=asserted))
    return cases


def t_trowmax_decoded(op, test_id):
    rows = [[4, 9]]
    reference = spec_ref(test_id, "the decoded U16 block completes; the destination is U16 holding 9")
    word = bstart_word(op, "U16")
    return [
        reduction_case("decoded-u16", f"""The spec's decoded block: BSTART word {word:#010x} (TEPL Mode 2,
            Function 1, U16), LB0=2, LB1=1, LB2=2, one B.IOT from T1: the U16 destination holds 9.""", op, "U16",
                       rows, source="spec-test", reference=reference, raw=True, src_index=1, asserted=[[9]]),
        reduction_case("decoded-u16-assembly", """The same block in assembly (BSTART.SFU TROWMAX, U16).""", op,
                       "U16", rows, source="spec-test", reference=reference, src_index=1, asserted=[[9]]),
    ]


def t_index_dtype(op, test_id):
    """TROWARGMIN-INDEX-DTYPE-DECODED: S32 and U32 index destinations are legal, S16 faults
    before any effect. A block always allocates U32 (destination-shape.asl); the spec reaches
    S32 and S16 through ResolveBundleTileDestinationsWithShapeAndType, which a program
    cannot name, so those two are direct calls here."""
    rows = [[4, 2, 2], [7, 3, 6]]
    reference = spec_ref(test_id, "S32 and U32 destinations hold indices 1, 1; S16 faults (Fault_TileLegality)")
    src = tile(0, "U8", 128, 4, (2, 3), rows)
    return [
        reduction_case("decoded-u32", """The spec's decoded block (TEPL 0x04D, U8, LB0=3, LB1=2, LB2=4, B.IOT T0):
            the U32 destination holds 1 and 1.""", op, "U8", rows, cols=4, source="spec-test", reference=reference,
                       raw=True, asserted=[[1], [1]]),
        reduction_case("direct-s32", "An S32 index destination (direct call): indices 1 and 1.", op, "U8", rows,
                       cols=4, source="spec-test", reference=reference, direct=True, index_type="S32",
                       asserted=[[1], [1]]),
        reduction_case("direct-u32", "A U32 index destination (direct call): indices 1 and 1.", op, "U8", rows,
                       cols=4, source="spec-test", reference=reference, direct=True, asserted=[[1], [1]]),
        fault_case("direct-s16-rejected", """An S16 index destination: Fault_TileLegality before any effect; the
            source and the destination keep their contents.""", [src, tile(1, "S16", 128, 1, (2, 1))],
                   engine.direct_call(op, 1, [0]), reference=reference),
    ]


def t_shape(op, test_id):
    """TROWARGMIN-SHAPE-001: one-column S32 or U32 destinations are legal, S16 is not."""
    rows = [[0, 0, 0], [0, 0, 0]]
    reference = spec_ref(test_id, "U32 and S32 2x1 destinations are legal operands, S16 is not")
    src = tile(0, "S8", 128, 4, (2, 3), rows)
    cases = [reduction_case(f"direct-{it.lower()}", f"""A 2x1 {it} destination is legal: equal zeros keep index 0
        in both rows.""", op, "S8", rows, cols=4, source="spec-test", reference=reference, direct=True,
                            index_type=it, asserted=[[0], [0]]) for it in ("U32", "S32")]
    cases.append(fault_case("direct-s16-rejected", """A 2x1 S16 destination is not an index type:
        Fault_TileLegality, nothing changes.""", [src, tile(1, "S16", 128, 1, (2, 1))], engine.direct_call(op, 1, [0]),
                            reference=reference))
    cases.append(fault_case("direct-two-columns-rejected", """A U32 destination with two columns is not a
        one-column index destination: Fault_TileLegality.""", [src, tile(1, "U32", 128, 2, (2, 1))],
                            engine.direct_call(op, 1, [0]), reference=reference))
    return cases


SPEC_POINTS = {  # the name part of an execution point's ID -> (what it asserts, whether it asserts whole Words)
    "U8-WRAP": ("250 + 10 wraps to 4 at U8 width", False),
    "ONE": ("20 * 20 from the U8 one wraps to 144; the FP16 one is 0x3c00", False),
    "U16": ("the all-ones U16 value wins", False),
    "S8": ("the signed minimum is selected as its sign-extended Word", True),
    "TIE": ("equal winners keep the lowest index", False),
    "COLUMNS": ("each column reduces independently", False),
}


def spec_cases(op: str, test_id: str) -> list:
    point = engine.spec_point(op, test_id)
    if point == "STATIC":
        return t_static(op, test_id)
    if point == "U16-DECODED":
        return t_trowmax_decoded(op, test_id)
    if point == "INDEX-DTYPE-DECODED":
        return t_index_dtype(op, test_id)
    if point == "SHAPE":
        return t_shape(op, test_id)
    t, rows = EXAMPLE[op]
    asserted = {
        "TROWSUM": [[4]], "TROWPROD": [[144]], "TROWMAX": [[0xFFFF]], "TROWMIN": [[WORD]],
        "TROWARGMAX": [[1]], "TROWARGMIN": [[1]], "TCOLSUM": [[4, 6]], "TCOLPROD": [[8, 15]],
        "TCOLMAX": [[0xFFFF, 0xFFFF]], "TCOLMIN": [[WORD, WORD - 1]], "TCOLARGMAX": [[1, 0]],
        "TCOLARGMIN": [[0, 1]],
    }[op]
    what, carrier = SPEC_POINTS[point]
    what = f"{what}: {asserted}"
    cases = t_execution(op, test_id, asserted, what,
                        index_types=("U32", "S32") if op == "TROWARGMIN" else ("U32",),
                        carrier_words=asserted if carrier else None)
    if op == "TROWPROD":
        cases.append(reduction_case("fp16-one", """The FP16 product starts from the one encoding 0x3c00: a
            one-element row [2.0] gives 2.0 (0x4000) under hw-ieee.""", op, "FP16", [[0x4000]],
                                    profiles=["hw-ieee"], reference=spec_ref(test_id, "FP16 one is 0x3c00")))
        cases.append(reduction_case("fp16-one-raw", """pto-v0 multiplies the raw carriers: 0x3c00 * 0x4000 =
            0xf000000, whose FP16 element bits are 0.""", op, "FP16", [[0x4000]], profiles=["pto-v0"],
                                    reference=spec_ref(test_id, "FP16 one is 0x3c00")))
    return cases


# ---------------------------------------------------------------------------------------
# Reference vectors

def pair_pool(t: str) -> list:
    """The special and boundary encodings whose ordered pairs make the value lines: for
    integers 0, 1, 2 and the extremes; for floating types both zeros, the smallest
    subnormal (both signs), the smallest normal, 1, -1.5, the largest finite (both
    signs), the infinities, the canonical NaN, a negative quiet NaN of another payload and
    a signaling NaN where the format has them."""
    if t in ref.INTEGER_TYPES:
        w = width(t)
        return sorted({0, 1, 2, (1 << (w - 1)) - 1, 1 << (w - 1), (1 << w) - 1, (1 << w) - 2})
    f = numeric.FORMATS[t]
    sign = 1 << f.sign_bit

    def code(negative, magnitude):
        return numeric.encode_value(t, negative, magnitude, "RNE", False)[0]

    tiny = numeric.pow2(1 - f.bias - f.frac_bits)
    top = numeric.max_finite_code(t)
    values = [0, sign, code(False, tiny), code(True, tiny), code(False, numeric.min_normal(t)),
              code(False, Fraction(1)), code(True, Fraction(3, 2)), top, top | sign]
    if f.has_inf:
        values += [numeric.infinity_code(t, False), numeric.infinity_code(t, True)]
    nan = numeric.canonical_nan(t)
    values += [nan, nan | sign | (1 << f.frac_lsb if f.nan == "ieee" else 0)]
    if f.nan == "ieee":
        values.append(nan & ~(1 << (f.frac_lsb + f.frac_bits - 1)) | (1 << f.frac_lsb))  # signaling
    return list(dict.fromkeys(values))


def line_class(op: str, t: str, word: int) -> str:
    """The value class of one line's result: nan, inf, zero or finite for a floating type
    (a flag-raising line shares its case only with lines of the same flags and class),
    integer or index otherwise."""
    if ref.is_index(op):
        return "index"
    if t in ref.INTEGER_TYPES:
        return "integer"
    cls = elements.float_class(word, t)
    return "nan" if cls.endswith("nan") else cls[1:] if cls[1:] in ("inf", "zero") else "finite"


def case_label(key) -> str:
    """The isolation key as a case-name part (``pos-normal-nx``)."""
    label = engine.key_label(key)
    return "pos-" + label[1:] if label.startswith("+") else "neg-" + label[1:] if label.startswith("-") else label


def grouped_cases(op: str, t: str, label: str, lines: list, description: str, *, limit=LINES_PER_CASE,
                  pad=None) -> list:
    """Cases over ``lines`` (each a list of Words, all of one length): per profile, lines are
    grouped by (result class, flags) as the project's flag isolation does; a line whose
    element bits and flags agree in both profiles joins a case for both. ``pad``: the
    block's PadValue."""
    reduction = ref.OPERATIONS[op][0]
    d_mask = engine.element_mask(destination_type(op, t))
    keyed = {}
    for line in lines:
        outcome = {p: ref.fold(reduction, t, p, line) for p in BOTH}
        keys = {p: engine.isolation_key(line_class(op, t, outcome[p][0]), outcome[p][1]) for p in BOTH}
        if len({(word & d_mask, flags) for word, flags in outcome.values()}) == 1:
            keyed.setdefault(("both", keys["pto-v0"]), []).append(line)
        else:
            for p in BOTH:
                keyed.setdefault((p, keys[p]), []).append(line)
    cases = []
    for (profile, key), members in keyed.items():
        profiles = BOTH if profile == "both" else [profile]
        for n, chunk in enumerate(engine.chunks(members, limit)):
            rows = chunk if is_row(op) else [list(c) for c in zip(*chunk)]
            name = (f"{label}-{t.lower()}-{case_label(key)}" + (f"-{n + 1}" if n else "")
                    + ("" if profile == "both" else f"-{profile}"))
            cases.append(reduction_case(name, f"""{description} ({t}, {len(chunk)} line(s), result class and flags
                {engine.key_label(key)}{'' if profile == 'both' else ', ' + profile}; PadValue {pad or 'Null'}).""",
                                        op, t, rows, profiles=profiles, source="reference-generator",
                                        reference="vectors/reference/reductions.py", pad=pad))
    return cases


def value_lines(op: str, t: str) -> list:
    pool = pair_pool(t)
    lines = [[a, b] for a in pool for b in pool]
    if t in ref.INTEGER_TYPES and t.startswith("S"):
        lines += [[elements.extended(a, t), elements.extended(b, t)] for a, b in lines]  # sign-extended Words
    return lines


def order_lines(op: str, t: str) -> list:
    """Four-element lines that a reversed, reassociated or first-element-dropping fold gets wrong."""
    reduction = ref.OPERATIONS[op][0]
    if t in ref.INTEGER_TYPES:
        w = width(t)
        top = (1 << (w - 1)) - 1
        if reduction in ("ARGMAX", "ARGMIN"):
            return [[5, 9, 9, 9], [9, 5, 9, 5], [5, 5, 5, 5], [3, 1, 3, 1], [1, 3, 1, 3]]
        return [[top, 1, top, 2], [3, 5, 7, 11], [2, 2, 2, 2], [1 << (w - 1), 1, 0, (1 << w) - 1]]
    f = numeric.FORMATS[t]
    one = numeric.encode_value(t, False, Fraction(1), "RNE", False)[0]
    half_ulp = numeric.encode_value(t, False, numeric.pow2(-(f.frac_bits + 1)), "RNE", False)[0]
    three = numeric.encode_value(t, False, Fraction(3), "RNE", False)[0]
    neg_one = one | (1 << f.sign_bit)
    nan = numeric.canonical_nan(t)
    lines = [[one, half_ulp, half_ulp, half_ulp], [half_ulp, half_ulp, one, half_ulp], [three, one, three, neg_one],
             [nan, one, three, one], [one, nan, three, nan], [neg_one, 0, 1 << f.sign_bit, 0]]
    return lines


def x_values(op: str) -> list:
    cases = []
    for n, t in enumerate(ref.legal_source_types(op)):
        pad = PADS[n % len(PADS)]
        cases += grouped_cases(op, t, "pairs", value_lines(op, t), f"""Every ordered pair of special and
            boundary values of the type as one {'row' if is_row(op) else 'column'}""", pad=pad)
        cases += grouped_cases(op, t, "order", order_lines(op, t), """Four-element lines whose fold differs when
            reversed, reassociated or started from the wrong element""", pad=pad)
        if t in SINGLE_TYPES:
            cases += grouped_cases(op, t, "single", [[v] for v in pair_pool(t)], """One-element lines: SUM and
                PROD take one step from their identity, MAX and MIN none (a lone NaN is returned as it is)""",
                                   pad=pad)
    return cases


def x_regions(op: str) -> list:
    """Partial valid regions: the source's padding is defined and holds values that would
    change every result if read."""
    cases = []
    for t in ("U16", "FP32", "S8"):
        if t not in ref.legal_source_types(op):
            continue
        mask = engine.element_mask(t)
        rows = [[(5 * r + c + 1) & mask for c in range(3)] for r in range(3)]
        poison = mask if t != "FP32" else 0x7F7FFFFF  # all ones / the largest FP32
        extra = {"elements": {f"{r},3": Hex(poison) for r in range(4)} | {f"3,{c}": Hex(poison) for c in range(4)},
                 "defined": "all"}
        cases += per_profile_cases(f"partial-region-{t.lower()}", f"""A 3x3 valid region in a 4-column tile whose
            padding (column 3 and row 3) is defined and holds {poison:#x}: the fold reads only the valid
            region.""", op, t, rows, cols=4, source_extra=extra, source="reference-generator",
                                   reference="vectors/reference/reductions.py")
    return cases


def x_direct(op: str) -> list:
    """Direct calls: the other path, and both index types."""
    t, rows = EXAMPLE[op]
    cases = [reduction_case("direct-call", "The operation's example as a direct call.", op, t, rows, direct=True,
                            source="reference-generator", reference="vectors/reference/reductions.py")]
    if ref.is_index(op):
        cases.append(reduction_case("direct-call-s32", "The example into an S32 index destination.", op, t, rows,
                                    direct=True, index_type="S32", source="reference-generator",
                                    reference="vectors/reference/reductions.py"))
    return cases


def x_legality(op: str) -> list:
    """The closed schema, the operand rules and the allocation, in the order the ASL checks them."""
    t = "U16"
    valid, cols = (2, 3), 4
    rows = [[1, 2, 3], [4, 5, 6]]
    src = tile(0, t, 128, cols, valid, rows)
    reference = ("asl/block/model/dispatch/tile-execution.asl (step order), reduction-schema.asl, "
                 "asl/tile/model/legality/reduction-and-expansion.asl")
    size = 1
    d_type = destination_type(op, t)
    bad_size_valid = (64, 2)  # 64 destination rows of 4 bytes need 256 B
    cases = [
        case("mask-zero-no-op", """PE_MASK=0000 is a strict no-op before descriptor reads: nothing is allocated,
            even with an undefined source.""", BOTH, "hand", reference,
             {"tiles": [tile(0, t, 128, cols, valid, defined="none")]},
             block(op, t, valid, cols, bindings=[iot_line([0], size, mask="0000")]),
             engine.success_expect(0, [0], [0], Flow([]))),
        fault_case("no-lb0", "No B.DIM LB0: the closed schema needs it (Fault_TileLegality).", [src],
                   block(op, t, valid, cols, dims={"LB1": 2, "LB2": 4}), reference=reference),
        fault_case("lb0-mismatch", "LB0=2 while the source has 3 valid columns: Fault_TileLegality.", [src],
                   block(op, t, valid, cols, dims={"LB0": 2, "LB1": 2, "LB2": 4}), reference=reference),
        fault_case("lb2-mismatch", "LB2 omitted (Col = LB0 = 3) while the source has 4 columns: Fault_TileLegality.",
                   [src], block(op, t, valid, cols, dims={"LB0": 3, "LB1": 2}), reference=reference),
        fault_case("bstart-type-mismatch", "A U32 BSTART over a U16 source: Fault_TileLegality.", [src],
                   block(op, "U32", valid, cols), reference=reference),
        fault_case("bstart-type-outside-set", """An E8M0 BSTART (outside TileVecArithmeticDataTypeSupported) over an
            E8M0 source: Fault_TileLegality.""", [tile(0, "E8M0", 128, cols, valid, [[0x7F] * 3] * 2)],
                   block(op, "E8M0", valid, cols), reference=reference),
        fault_case("column-major-source", "A ColumnMajor source: Fault_TileLegality.",
                   [tile(0, t, 128, 8, (2, 3), rows, layout="ColumnMajor")],
                   block(op, t, (2, 3), 8), reference=reference),
        fault_case("source-undefined", "A source whose valid region is not defined: Fault_TileLegality.",
                   [tile(0, t, 128, cols, valid, defined="none")], block(op, t, valid, cols), reference=reference),
        fault_case("two-sources", """A B.IOT naming two sources: BundleOperationBindingsComplete counts one
            source too many (Fault_BundleControl, before the closed schema).""", [src, tile(1, t, 128, cols, valid,
                                                                                          rows)],
                   block(op, t, valid, cols, bindings=[iot_line([0, 1], size)]), "Fault_BundleControl",
                   reference=reference),
        fault_case("empty-ior", "A B.IOR with no register (a scalar binding): Fault_TileLegality.", [src],
                   block(op, t, valid, cols) .replace("BSTOP", "B.IOR\nBSTOP"), reference=reference),
        fault_case("ior-register", """A B.IOR naming a register: a surplus binding field (Fault_BundleControl,
            checked before the closed schema).""", [src], block(op, t, valid, cols, gpr=5), "Fault_BundleControl",
                   reference=reference),
        fault_case("datr-rounding", "A B.DATR RMode (RTZ): only PadValue may be nonzero (Fault_TileLegality).",
                   [src], block(op, t, valid, cols, datr="B.DATR RTZ"), reference=reference),
        fault_case("fault-order-schema-before-allocation", """LB0 mismatching and a TSize too small for the
            destination: the closed schema (Fault_TileLegality) is checked before allocation.""",
                   [tile(0, "FP32", 1024, 2, bad_size_valid, [[0, 0]] * 64)],
                   block(op, "FP32", bad_size_valid, 2, dims={"LB0": 1, "LB1": 64, "LB2": 2}), reference=reference),
    ]
    if is_row(op):
        cases.append(fault_case("tsize-too-small", """64 valid rows into a 128-byte FP32 (or U32 index) destination
            of 32 rows: Fault_TileAllocation.""", [tile(0, "FP32", 1024, 2, bad_size_valid, [[0, 0]] * 64)],
                                block(op, "FP32", bad_size_valid, 2), "Fault_TileAllocation", reference=reference))
    if ref.is_index(op):
        cases.append(fault_case("fp64-source-operands", """An FP64 source passes the closed schema
            (TileVecArithmeticDataTypeSupported) but not TileArgReductionSourceDataTypeSupported: the allocated
            destination is rolled back (Fault_TileLegality).""", [tile(0, "FP64", 128, 4, valid, rows)],
                                block(op, "FP64", valid, 4), reference=reference))
    else:
        cases.append(fault_case("tf32-invalid-encoding", """A TF32 source element with low fraction bits set is
            not a valid encoding: Fault_TileLegality.""", [tile(0, "TF32", 128, cols, valid,
                                                                [[0x3F800001, 0, 0], [0, 0, 0]])],
                                block(op, "TF32", valid, cols), reference=reference))
    direct_src = tile(0, t, 128, cols, valid, rows)
    d_valid, d_cols = destination_geometry(op, valid, cols)
    cases += [
        fault_case("direct-destination-is-source", "A direct call whose destination is its source: "
                   "Fault_TileLegality.", [direct_src], engine.direct_call(op, 0, [0]), reference=reference),
        fault_case("direct-destination-type", f"""A direct call into an {'S16' if ref.is_index(op) else 'S32'}
            destination: {'not an index type' if ref.is_index(op) else 'not the source type'}
            (Fault_TileLegality).""", [direct_src, tile(1, "S16" if ref.is_index(op) else "S32", 128, d_cols,
                                                        d_valid)], engine.direct_call(op, 1, [0]),
                   reference=reference),
        fault_case("direct-destination-shape", """A direct call into a destination whose valid region is not the
            reduction's: Fault_TileLegality.""", [direct_src, tile(1, d_type, 128, d_cols if is_row(op) else cols,
                                                                   (1, 1) if is_row(op) else (1, 2))],
                   engine.direct_call(op, 1, [0]), reference=reference),
    ]
    return cases


def x_file(op: str) -> dict:
    return {"format": "pto-avs-vector/1", "id": f"PTO-AVS-X-{op}-REF-001", "operation": op, "kind": "execution",
            "summary": f"{op} over every legal type x special values, fold order, regions, pads and legality",
            "exercises": Flow(UNITS[op]["readiness_subjects"]),
            "provenance": ("Expected values from the independent fold reference vectors/reference/reductions.py "
                           "(the ASL's increasing-index fold, one rounded step at a time, flags ORed; no code shared "
                           f"with device_model), written by `{COMMAND}`. Lines are grouped by result class and "
                           "flags (vectors/reference/value_classes.py). Nothing here was produced by running the "
                           "golden model."),
            "cases": x_values(op) + x_regions(op) + x_direct(op) + x_legality(op)}


# ---------------------------------------------------------------------------------------
# Files

PROVENANCE = engine.spec_provenance("vectors/reference/reductions.py", COMMAND)


def files(operations) -> dict:
    return engine.spec_id_files(operations, spec_cases, x_file, PROVENANCE, "generate_reductions.py")


FAMILY = engine.Family("generate_reductions", OPERATIONS, files,
                       owns=tuple(f"PTO-AVS-{kind}-{op}-*.yaml" for op in OPERATIONS for kind in ("TILE", "X")))

if __name__ == "__main__":  # the command the files' provenance names: the engine's, for these operations
    sys.exit(engine.legacy_main([FAMILY]))
