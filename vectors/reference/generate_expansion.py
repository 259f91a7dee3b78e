"""Vectors of the broadcasts (TROWEXPAND, TCOLEXPAND, TROW/TCOLEXPAND{ADD, SUB, MUL, DIV,
MAX, MIN, EXPDIF}) and the partial operations (TPARTADD, TPARTMUL, TPARTMAX, TPARTMIN).

One generator family on ``engine``: each spec test ID's file (the spec test's asserted
values, checked against the reference before anything is written; the hw-ieee values and
the block twins from the reference) and one ``PTO-AVS-X-<OP>-REF-001`` per operation (every
legal type, special values one isolation key per case, partial valid regions and pads,
legality and fault order). Every expected value comes from ``expansion.py``; nothing here
imports ``device_model``.

    .venv/bin/python -m pto_avs.vectors.reference generate TROWEXPANDADD ...
"""
from __future__ import annotations

import sys

from . import arith_elements as arith
from . import engine
from . import expansion as ref
from .engine import BOTH, Flow, Hex

COMMAND = ".venv/bin/python -m pto_avs.vectors.reference generate"
OPERATIONS = tuple(ref.EXPAND_OPERATIONS) + tuple(ref.PARTIAL_OPERATIONS)
WORD = (1 << 64) - 1


def axis_of(op):
    return ref.EXPAND_OPERATIONS[op][0] if op in ref.EXPAND_OPERATIONS else None


def kind_of(op):
    return ref.EXPAND_OPERATIONS[op][1] if op in ref.EXPAND_OPERATIONS else ref.PARTIAL_OPERATIONS[op]


def engine_of(op):
    return engine.OPERATION_TABLE[op]["engine"]


# ---------------------------------------------------------------------------------------
# Broadcast cases: a full-shape source T0 (not for COPY), the broadcast tile, the destination

class Broadcast:
    """The operands of one broadcast: source and destination types, the valid region and
    columns of the destination, source rows (None for COPY) and broadcast rows."""

    def __init__(self, op, t, valid, source, broadcast, cols=None, dst_type=None, capacity=None):
        self.op, self.t, self.valid, self.source, self.broadcast = op, t, tuple(valid), source, broadcast
        self.dst_type = dst_type or t
        self.cols, self.capacity, _ = engine.smallest_tile(self.dst_type, self.valid, cols, capacity)
        # the full-shape source has the destination's rows and columns (TileLogicalShapeMatch)
        rows = engine.rows_of(self.capacity, self.cols, self.dst_type)
        while rows * self.cols * engine.width(t) // 8 < 128:  # a narrower source needs a taller tile
            self.capacity *= 2
            rows = engine.rows_of(self.capacity, self.cols, self.dst_type)
        self.source_capacity = rows * self.cols * engine.width(t) // 8
        if axis_of(op) == "Row":
            self.b_cols, self.b_valid = 1, (self.valid[0], 1)
        else:
            self.b_cols, self.b_valid = self.cols, (1, self.valid[1])
        self.b_capacity = engine.smallest_tile(t, self.b_valid, self.b_cols)[1]

    def state_tiles(self, with_destination=None, **changes):
        tiles = []
        if self.source is not None:
            tiles.append(engine.tile(0, self.t, self.source_capacity, self.cols, self.valid, self.source))
        b = changes.get("broadcast", {})
        valid = b.get("valid", self.b_valid)
        data = self.broadcast if valid == self.b_valid else [[self.broadcast[0][0]] * valid[1]] * valid[0]
        tiles.append(engine.tile(len(tiles), b.get("dtype", self.t), b.get("capacity", self.b_capacity),
                                 b.get("cols", self.b_cols), valid, data, layout=b.get("layout")))
        if with_destination is not None:
            tiles.append(engine.tile(with_destination, self.dst_type, self.capacity, self.cols, self.valid,
                                     defined="none"))
        return tiles

    def compute(self, profile):
        return ref.expand(self.op, profile, self.t, self.dst_type, self.valid, self.source, self.broadcast)


def source_indices(b):
    return [0, 1] if b.source is not None else [0]


def expand_cases(name, description, b, *, direct=True, pad=None, source="hand", reference="", profiles=BOTH,
                 program=None, datr=None, bstart=None, raw=False):
    """One case per distinct outcome over ``profiles`` (a suffix names the profile when they
    differ): a direct call (``direct``) or the block."""
    sources = source_indices(b)
    if direct:
        target = len(sources)
        tiles = b.state_tiles(with_destination=target)
        program = program or engine.direct_call(b.op, target, sources, pad=pad)
    else:
        target = engine.first_free(sources)
        tiles = b.state_tiles()
        if program is None:
            program = engine.bundle_text(bstart or f"BSTART.{engine_of(b.op)} {b.op}, {b.t}", datr=datr,
                                         dims=engine.dims_of(b.valid, b.cols),
                                         bindings=[engine.iot_line(sources, engine.size_code(b.capacity))])
            if raw:
                program = engine.raw_bstart_program(program, engine.bstart_word(b.op, b.t))
    outcomes = {}
    for profile in profiles:
        words, flags = b.compute(profile)
        outcomes.setdefault((tuple(map(tuple, words)), flags), []).append(profile)
    cases = []
    for (words, flags), group in outcomes.items():
        expect = engine.success_expect(flags, sorted(set(sources) | {target}), sources,
                                       [engine.result_tile(target, b.dst_type, b.capacity, b.cols, b.valid,
                                                           words, pad if direct else pad_of_datr(datr))])
        suffix = "" if len(outcomes) == 1 else f"-{group[0]}"
        case_source = source if source != "spec-test" or "pto-v0" in group else "hand"
        cases.append(engine.case(name + suffix, description, group, case_source, reference,
                                 {"tiles": tiles}, program, expect))
    return cases


def pad_of_datr(datr):
    """The PadValue a B.DATR line selects (none: Null; a line naming no pad encodes 00, Zero)."""
    if not datr:
        return None
    named = [pad for pad in ("Zero", "Max", "Min", "Null") if pad in datr.replace(",", " ").split()]
    return named[0] if named else "Zero"


def expand_fault(name, description, b, *, direct=True, reference="", fault="Fault_TileLegality", program=None,
                 source="hand", **changes):
    sources = source_indices(b)
    if direct:
        target = len(sources)
        tiles = b.state_tiles(with_destination=target, **changes)
        program = program or engine.direct_call(b.op, target, sources)
    else:
        tiles = b.state_tiles(**changes)
        program = program or engine.bundle_text(f"BSTART.{engine_of(b.op)} {b.op}, {b.t}",
                                                dims=engine.dims_of(b.valid, b.cols),
                                                bindings=[engine.iot_line(sources, engine.size_code(b.capacity))])
    return engine.fault_case(name, description, tiles, program, fault, source=source, reference=reference)


# The spec execution points: op kind -> (type, source Word, broadcast Word, asserted result Word)
EXPAND_POINTS = {
    "COPY": ("U8", None, 7, 7), "ADD": ("U8", 250, 10, 4), "SUB": ("S8", 2, 253, 5),
    "MUL": ("U16", 400, 200, 14464), "DIV": ("S8", 248, 2, WORD - 3),
    "MAX": ("U64", 0x8000000000000000, 1, 0x8000000000000000), "MIN": ("S8", 255, 1, WORD),
    "EXPDIF": ("FP32", 0x40000000, 0x3F800000, None),  # the test computes its value through the profile
}


def point_operands(op):
    t, s, bw, expected = EXPAND_POINTS[kind_of(op)]
    valid = (2, 3)
    source = None if s is None else [[s] * 3 for _ in range(2)]
    broadcast = [[bw], [bw]] if axis_of(op) == "Row" else [[bw] * 3]
    return Broadcast(op, t, valid, source, broadcast, cols=4), expected


def check_point(b, expected, profile="pto-v0"):
    """Stop unless the reference gives the spec test's asserted element (1, 2)."""
    words, _ = b.compute(profile)
    assert words[1][2] == expected, (b.op, profile, hex(words[1][2]), hex(expected))


def expand_execution(op, test_id):
    b, expected = point_operands(op)
    if expected is None:  # EXPDIF: SUB then the SFU EXP as the test composes them (pto-v0)
        difference, _ = arith.element_op("SUB", "FP32", "pto-v0", 0x40000000, 0x3F800000)
        expected, _ = ref.exp_with_flags("FP32", "pto-v0", difference)
    check_point(b, expected)
    what = f"element (1, 2) is {expected:#x} and the broadcast tile persists"
    reference = engine.spec_ref(test_id, what)
    cases = expand_cases("direct-call", f"The spec test point as a direct call: {what}.", b, source="spec-test",
                         reference=reference)
    cases += expand_cases("bundle", f"""The same elements through a complete {op} block (B.DIM LB0=3, LB1=2,
                          LB2=4); the destination is renamed to the first free T index.""", b, direct=False,
                          reference=reference + "; asl/block/model/dispatch/expansion-schema.asl")
    return cases


def static_cases(op, test_id):
    spec = engine.OPERATION_TABLE[op]
    if op in ref.PARTIAL_OPERATIONS:
        return partial_static(op, test_id)
    b, _ = point_operands(op)
    word = engine.bstart_word(op, b.t)
    reference = engine.spec_ref(test_id, f"DecodeTileOperation(TEPL, {spec['selector']}) selects {op}, handler "
                                         f"{spec['semantic_handler']}, engine {spec['engine']}")
    cases = expand_cases(f"bstart-{engine_of(op).lower()}-{b.t.lower()}", f"""BSTART.{engine_of(op)} {op}, {b.t}
                         = {word:#010x} (Mode {spec['mode']}, Function {spec['function']}: selector
                         {spec['selector']}) runs {op} on its execution point's values.""", b, direct=False,
                         source="spec-test", reference=reference)
    cases += expand_cases("bstart-tepl-mode-function", f"""BSTART.TEPL {spec['mode']}, {spec['function']}, {b.t}:
                          the same word, the same block.""", b, direct=False, source="spec-test",
                          reference=reference, bstart=f"BSTART.TEPL {spec['mode']}, {spec['function']}, {b.t}")
    cases += expand_cases("raw-bstart-word", f"""The BSTART as the raw word {word:#010x}, packed by hand from
                          command form 33 (match 0x00019181, DataType 31:27, Mode 26:25, Function 24:20).""", b,
                          direct=False, source="spec-test", reference=reference, raw=True)
    cases.append(encoding_case(op, b.t, reference))
    return cases


def encoding_case(op, t, reference):
    word = engine.bstart_word(op, t)
    return engine.case("bstart-encoding", f"""BSTART.{engine_of(op)} {op}, {t} assembles to {word:#010x}; the
                       block stays open at the end of the program, so nothing is allocated.""", list(BOTH),
                       "spec-table", "spec/catalog/command-forms.json form 33; " + reference, None,
                       f"BSTART.{engine_of(op)} {op}, {t}",
                       {"fault": None, "flags": Hex(0), "encoding": Flow([Hex(word)]), "allocated": Flow([])})


# ---------------------------------------------------------------------------------------
# PTO-AVS-TILE-EXPDIF-STAGE3-DECODED-001: the decoded blocks of both EXPDIF operations

def stage3_carriers(source, two, discriminator):
    """ExpdifStage3Carrier: the source (two) and broadcast Words of the test."""
    if source == "FP16":
        return 0x2000 if two else 0x0001
    if source == "BF16":
        return 0x3F80 if two else 0x3B00
    return {1: (0x3C000000, 0x33800000), 2: (0x3F800000, 0x3B000000)}.get(
        discriminator, (0x40000000, 0x3F800000))[0 if two else 1]


STAGE3_POSITIVE = [  # (axis, source, destination, B.DATR DataType name or None for no B.DATR, pad, discriminator)
    ("Row", "FP16", "FP16", None, "Zero", 0), ("Row", "BF16", "BF16", "DTYPE_NONE", "Max", 0),
    ("Row", "FP32", "FP32", None, "Zero", 0), ("Row", "FP16", "FP32", "FP32", "Zero", 0),
    ("Row", "BF16", "FP32", "FP32", "Zero", 0), ("Column", "FP16", "FP16", "FP16", "Zero", 0),
    ("Column", "BF16", "BF16", "BF16", "Zero", 0), ("Column", "FP32", "FP32", None, "Zero", 0),
    ("Column", "FP16", "FP32", "FP32", "Zero", 0), ("Column", "BF16", "FP32", "FP32", "Zero", 0),
    ("Row", "FP32", "FP32", None, "Zero", 1), ("Column", "FP32", "FP32", None, "Zero", 2),
]
STAGE3_REJECT = [("Row", "FP16", "FP64"), ("Row", "FP16", "BF16"), ("Column", "BF16", "FP16"),
                 ("Column", "FP32", "FP16")]


def stage3_cases(op, test_id):
    cases = []
    reference = engine.spec_ref(test_id, "RunDecodedExpdifStage3Positive / RunDecodedExpdifStage3Reject")
    for n, (axis, source, destination, datr_type, pad, disc) in enumerate(STAGE3_POSITIVE):
        name = {"Row": "TROWEXPANDEXPDIF", "Column": "TCOLEXPANDEXPDIF"}[axis]
        left, right = stage3_carriers(source, True, disc), stage3_carriers(source, False, disc)
        broadcast = [[right], [right]] if axis == "Row" else [[right, right]]
        b = Broadcast(name, source, (2, 2), [[left] * 2] * 2, broadcast, cols=2, dst_type=destination,
                      capacity=256)
        datr = None if datr_type is None else f"B.DATR {datr_type}, {pad}"
        if source != destination:
            assert b.compute("pto-v0")[0][0][0] == {"FP16": 0x3F810100, "BF16": 0x402DA16E}[source]
        cases += expand_cases(f"{n + 1:02d}-{axis.lower()}-{source.lower()}-{destination.lower()}"
                              + (f"-{datr_type.lower().replace('_', '-')}" if datr_type else "-no-datr")
                              + (f"-discriminator-{disc}" if disc else ""),
                              f"""{name} {source} -> {destination}{' with B.DATR ' + datr_type + ', ' + pad if
                              datr else ' without B.DATR (the destination inherits the source type)'}: the
                              decoded block completes with a 256-byte {destination} destination; mixed pairs widen
                              exactly before the FP32 SUB/EXP (pto-v0 answers the test's widened pair
                              {'' if source != destination else 'only for mixed pairs'}).""", b, direct=False,
                              datr=datr, source="spec-test", reference=reference)
    for n, (axis, source, destination) in enumerate(STAGE3_REJECT):
        name = {"Row": "TROWEXPANDEXPDIF", "Column": "TCOLEXPANDEXPDIF"}[axis]
        broadcast = [[1], [1]] if axis == "Row" else [[1, 1]]
        left = stage3_carriers(source, True, 0)
        b = Broadcast(name, source, (2, 2), [[left] * 2] * 2, broadcast, cols=2, capacity=256)
        datr = f"B.DATR {destination}, Zero" if destination != "FP64" else "B.DATR Zero"
        program = engine.bundle_text(f"BSTART.SFU {name}, {source}", datr=datr, dims=engine.dims_of((2, 2), 2),
                                     bindings=[engine.iot_line([0, 1], 2)])
        cases.append(expand_fault(f"reject-{n + 1}-{axis.lower()}-{source.lower()}-{destination.lower()}",
                                  f"""({source}, {destination}) is not an EXPDIF pair
                                  {'(B.DATR DataType 0 selects FP64, never absence)' if destination == 'FP64'
                                   else ''}: Fault_TileLegality before allocation, nothing published.""", b,
                                  direct=False, program=program, source="spec-test", reference=reference))
    return cases


# ---------------------------------------------------------------------------------------
# Partial operations: left T0, right T1 (origin-anchored), the destination

class Partial:
    def __init__(self, op, t, valid, left, right, cols=None):
        self.op, self.t, self.valid, self.left, self.right = op, t, tuple(valid), left, right
        self.cols, self.capacity, _ = engine.smallest_tile(t, self.valid, cols)

    def source_tile(self, index, rows, cols=None, capacity=None):
        valid = (len(rows), len(rows[0]))
        c, cap, _ = engine.smallest_tile(self.t, valid, cols, capacity)
        return engine.tile(index, self.t, cap, c, valid, rows)

    def compute(self, profile):
        return ref.partial(self.op, profile, self.t, self.valid, self.left, self.right)


def partial_cases(name, description, p, *, direct=True, source="hand", reference="", indices=(0, 1, 2),
                  source_tiles=None, mask="1111", hand="T", profiles=BOTH):
    left_i, right_i, dst_i = indices
    tiles = source_tiles or [p.source_tile(left_i, p.left), p.source_tile(right_i, p.right)]
    if direct:
        target = dst_i
        tiles = tiles + [engine.tile(target, p.t, p.capacity, p.cols, p.valid, defined="none")]
        program = engine.direct_call(p.op, target, [left_i, right_i])
    else:
        target = 0 if hand == "T" and 0 not in (left_i, right_i) else engine.first_free([left_i, right_i])
        names = [f"{'TUMN'[i // 16]}{i % 16}" for i in (left_i, right_i)]
        program = engine.bundle_text(f"BSTART.{engine_of(p.op)} {p.op}, {p.t}",
                                     dims=engine.dims_of(p.valid, p.cols),
                                     bindings=[engine.iot_line(names, engine.size_code(p.capacity), mask=mask)])
    outcomes = {}
    for profile in profiles:
        words, flags = p.compute(profile)
        outcomes.setdefault((tuple(map(tuple, words)), flags), []).append(profile)
    cases = []
    for (words, flags), group in outcomes.items():
        result = engine.result_tile(target, p.t, p.capacity, p.cols, p.valid, words, "Null")
        result["mask"] = mask
        expect = engine.success_expect(flags, sorted({left_i, right_i, target}), [left_i, right_i], [result])
        suffix = "" if len(outcomes) == 1 else f"-{group[0]}"
        case_source = source if source != "spec-test" or "pto-v0" in group else "hand"
        cases.append(engine.case(name + suffix, description, group, case_source, reference, {"tiles": tiles},
                                 program, expect))
    return cases


def partial_static(op, test_id):
    spec = engine.OPERATION_TABLE[op]
    p = Partial(op, "S16", (1, 3), [[1, 2, 7]], [[3, 4]], cols=4)
    word = engine.bstart_word(op, p.t)
    reference = engine.spec_ref(test_id, f"DecodeTileOperation(TEPL, {spec['selector']}) selects {op}, handler "
                                         f"{spec['semantic_handler']}, engine {spec['engine']}")
    cases = partial_cases(f"bstart-{engine_of(op).lower()}-s16", f"""BSTART.{engine_of(op)} {op}, S16 = {word:#010x}
                          (Mode {spec['mode']}, Function {spec['function']}: selector {spec['selector']}) runs {op}
                          over a 1x3 left and a 1x2 right source.""", p, direct=False, source="spec-test",
                          reference=reference)
    cases.append(encoding_case(op, p.t, reference))
    return cases


PARTIAL_POINTS = {  # test ID -> (type, left rows, right rows, destination valid, cols, asserted)
    "PTO-AVS-TILE-TPARTADD-OVERLAP-001": ("S16", [[1, 2, 7]], [[3, 4]], (1, 3), 4, [4, 6, 7]),
    "PTO-AVS-TILE-TPARTMAX-U8-001": ("U8", [[250]], [[5]], (1, 1), 4, [250]),
    "PTO-AVS-TILE-TPARTMIN-S8-001": ("S8", [[0xFF]], [[1]], (1, 1), 4, [WORD]),
    "PTO-AVS-TILE-TPARTMUL-WRAP-001": ("U8", [[16, 9]], [[16]], (1, 2), 4, [0, 9]),
}


def partial_execution(op, test_id):
    if test_id == "PTO-AVS-TILE-TPARTADD-BUNDLE-001":
        p = Partial(op, "S16", (1, 3), [[1, 2, 7]], [[3, 4]], cols=4)
        reference = engine.spec_ref(test_id, "decoded BSTART.SFU TPARTADD, S16 with LB0=3, LB2=4 and one B.IOT "
                                             "M0, M1 (TileIndex 32, 33), mask=0001: elements 4, 6, 7")
        assert [w for row in p.compute("pto-v0")[0] for w in row] == [4, 6, 7]
        tiles = [engine.tile(32, "S16", 128, 4, (1, 3), p.left), engine.tile(33, "S16", 128, 2, (1, 2), p.right)]
        return partial_cases("decoded-bundle", """The spec test's decoded block: sources in the M hand, PE mask
                             0001, the destination renamed to T0; the overlap adds, the left-only tail is
                             copied.""", p, direct=False, source="spec-test", reference=reference,
                             indices=(32, 33, 0), source_tiles=tiles, mask="0001")
    if test_id == "PTO-AVS-TILE-TPARTMUL-DTYPE-001":
        cases = []
        reference = engine.spec_ref(test_id, "InstructionContractDataTypeLegal_TPARTMUL(S8, U8, S16, U16)")
        for t in ("S8", "U8", "S16", "U16"):
            p = Partial(op, t, (1, 2), [[3, 5]], [[7]], cols=2)
            cases += partial_cases(f"{t.lower()}-legal", f"""{t} is in the partial type set: a TPARTMUL call
                                   completes (3*7 in the overlap, 5 copied).""", p, source="spec-test",
                                   reference=reference)
        return cases
    t, left, right, valid, cols, asserted = PARTIAL_POINTS[test_id]
    p = Partial(op, t, valid, left, right, cols=cols)
    got = [w for row in p.compute("pto-v0")[0] for w in row]
    assert got == asserted, (test_id, got, asserted)
    what = "elements " + ", ".join(f"{w:#x}" for w in asserted)
    reference = engine.spec_ref(test_id, what)
    tiles = [p.source_tile(0, left, cols=4), p.source_tile(1, right, cols=2)]
    cases = partial_cases("direct-call", f"The spec test point as a direct call: {what}.", p, source="spec-test",
                          reference=reference, source_tiles=tiles)
    cases += partial_cases("bundle", f"The same elements through a complete {op} block.", p, direct=False,
                           reference=reference + "; asl/block/model/dispatch/partial-schema.asl", source_tiles=tiles)
    return cases


def spec_cases(op, test_id):
    test = engine.TESTS[test_id]
    if test["kind"] == "static-invariant":
        return static_cases(op, test_id)
    if test_id == "PTO-AVS-TILE-EXPDIF-STAGE3-DECODED-001":
        return stage3_cases(op, test_id)
    if op in ref.PARTIAL_OPERATIONS:
        return partial_execution(op, test_id)
    return expand_execution(op, test_id)


# ---------------------------------------------------------------------------------------
# Reference files

def float_pool(t):
    """Special and ordinary encodings of a floating type: signed zeros, signed ones, signed
    largest finite, the smallest subnormal, the canonical NaN, infinities and a signaling
    NaN (E4M3 has neither)."""
    from . import numeric
    f = numeric.fmt(t)
    one = ((f.bias << f.frac_bits) << f.frac_lsb)
    sign = numeric.sign_mask(t)
    tiny = 1 << f.frac_lsb
    values = [numeric.zero_code(t, False), numeric.zero_code(t, True), one, one | sign,
              numeric.max_finite_code(t), numeric.max_finite_code(t) | sign, tiny, numeric.canonical_nan(t)]
    if f.has_inf:
        signaling = numeric.infinity_code(t, False) | tiny
        values += [numeric.infinity_code(t, False), numeric.infinity_code(t, True), signaling]
    return values


def integer_pool(t):
    w = engine.width(t)
    if t.startswith("S"):
        return [0, 1, (1 << w) - 1, (1 << (w - 1)) - 1, 1 << (w - 1), 7]
    return [0, 1, (1 << w) - 1, 1 << (w - 1), 7]


def pool(t, profile="hw-ieee"):
    """The operand values of the isolation cases; pto-v0's raw-carrier floating paths get the
    eight that decide its outcomes (zeros for DIV's DZ, NaNs for MAX/MIN, one ordinary pair)."""
    if t not in arith.FLOAT_TYPES:
        return integer_pool(t)
    values = float_pool(t)
    return values if profile == "hw-ieee" else [v for i, v in enumerate(values) if i not in (5, 6, 9)]


def isolation_groups(pairs_of, flags_of, t):
    """(profiles, flags, pairs) per isolation key: the integer types (no profile hook) once for
    both profiles, the floating types per profile (``pairs_of(profile)``)."""
    per = [list(BOTH)] if t in arith.INTEGER_TYPES else [[profile] for profile in BOTH]
    out = []
    for profiles in per:
        groups = {}
        for a, b in pairs_of(profiles[-1]):
            groups.setdefault(flags_of(a, b, profiles[0]), []).append((a, b))
        out += [(profiles, key, members) for key, members in sorted(groups.items())]
    return out


def expand_pairs(op, t, profile):
    kind = kind_of(op)
    values = pool(t, profile)
    pairs = [(a, b) for a in values for b in values]
    if kind == "DIV" and t in arith.INTEGER_TYPES:
        pairs = [(a, b) for a, b in pairs if arith.element(b, t)]
    if kind == "COPY":
        pairs = [(0, b) for b in values]
    return pairs


def pair_broadcast(op, t, pairs, dst=None):
    """A Broadcast whose element k combines pair k: n x 1 on the row axis, 1 x n on the column axis."""
    n = len(pairs)
    if axis_of(op) == "Row":
        source = [[a] for a, _ in pairs]
        broadcast = [[b] for _, b in pairs]
        valid = (n, 1)
    else:
        source = [[a for a, _ in pairs]]
        broadcast = [[b for _, b in pairs]]
        valid = (1, n)
    return Broadcast(op, t, valid, None if kind_of(op) == "COPY" else source, broadcast, dst_type=dst)


def x_expand_cases(op):
    cases = []
    kind = kind_of(op)
    types = ([(s, d) for s, d in ref.EXPDIF_PAIRS] if kind == "EXPDIF"
             else [(t, t) for t in ref.legal_types(op)])
    reference = "vectors/reference/expansion.py; asl/tile/model/execution/expansion.asl"
    for t, dst in types:
        def flags_of(a, b, profile):
            return pair_broadcast(op, t, [(a, b)], dst).compute(profile)[1]
        for profiles, key, members in isolation_groups(lambda profile: expand_pairs(op, t, profile), flags_of, t):
            label = _flag_label(key)
            for k, chunk in enumerate(engine.chunks(members, engine.ISOLATION_MAX)):
                b = pair_broadcast(op, t, chunk, dst)
                cases += expand_cases(f"{t.lower()}{'-' + dst.lower() if dst != t else ''}-{'-'.join(profiles)}-"
                                      f"{label}-{k}", f"""{op} {t}{' -> ' + dst if dst != t else ''} under
                                      {' and '.join(profiles)}: special and ordinary operand pairs whose
                                      elements raise {label} (one isolation key per case).""", b,
                                      profiles=profiles, reference=reference)
    cases += x_region_cases(op)
    cases += x_fault_cases(op)
    return cases


def _flag_label(flags):
    from .value_classes import flag_text
    return flag_text(flags)


def region_broadcast(op, t="U16"):
    if kind_of(op) == "EXPDIF":
        t = "FP32"
    valid = (2, 3)
    one = {"FP32": 0x3F800000}.get(t, 3)
    source = None if kind_of(op) == "COPY" else [[one + 1, one + 2, one + 3], [one + 4, one + 5, one + 6]]
    broadcast = [[one], [one + 7]] if axis_of(op) == "Row" else [[one, one + 7, one + 9]]
    return Broadcast(op, t, valid, source, broadcast, cols=4)


def x_region_cases(op):
    """A 2x3 valid region in 4 columns under each PadValue (direct calls), an FP64 block with
    B.DATR Zero (a present B.DATR makes the destination FP64, SPEC-CHOICES row 2)."""
    cases = []
    reference = "asl/tile/model/execution/expansion.asl (TileWithPadding(result, CurrentBundlePadValue()))"
    b = region_broadcast(op)
    for pad in ("Zero", "Max", "Min", "Null"):
        cases += expand_cases(f"region-pad-{pad.lower()}", f"""A 2x3 valid region of a 4-column {b.t} tile with
                              PadValue {pad}: every coordinate outside the valid region is
                              {'undefined' if pad == 'Null' else 'the ' + pad + ' pad'}.""", b, pad=pad,
                              reference=reference)
    cases += expand_cases("region-bundle", "The same 2x3 region through a block (no B.DATR: Null padding).", b,
                          direct=False, reference=reference)
    if kind_of(op) != "EXPDIF":
        f64 = Broadcast(op, "FP64", (2, 3), None if b.source is None else [[0x3FF0000000000000] * 3] * 2,
                        [[0x4000000000000000]] * 2 if axis_of(op) == "Row" else [[0x4000000000000000] * 3], cols=4)
        cases += expand_cases("region-bundle-fp64-datr-zero", """An FP64 block with B.DATR Zero (DataType 0 is FP64,
                              the effective destination type; SPEC-CHOICE 2): the padding is the FP64 zero.""", f64,
                              direct=False, datr="B.DATR Zero", reference=reference)
    return cases


def x_fault_cases(op):
    cases = []
    b = region_broadcast(op)
    kind = kind_of(op)
    legality = "asl/tile/model/legality/reduction-and-expansion.asl (TileOperandsLegal_ExecuteTileExpand)"
    schema = "asl/block/model/dispatch/expansion-schema.asl (SelectedBundleClosedExpansionSchemaLegal)"
    wrong = ({"valid": (2, 2), "cols": 2} if axis_of(op) == "Row" else {"valid": (1, 2), "cols": 4})
    cases.append(expand_fault("broadcast-shape-direct", f"""The broadcast tile's valid region {wrong['valid']} does
                              not fit the {axis_of(op).lower()} broadcast: Fault_TileLegality, nothing written.""", b,
                              reference=legality, broadcast=wrong))
    cases.append(expand_fault("broadcast-shape-bundle", """The same broadcast tile in a block: the closed schema
                              rejects it before allocation.""", b, direct=False, reference=schema, broadcast=wrong))
    if axis_of(op) == "Column":
        cols = {"cols": 8, "capacity": 128}
        cases.append(expand_fault("broadcast-physical-columns", """A one-row broadcast tile with the right valid
                                  columns but 8 physical columns (the destination has 4): Fault_TileLegality.""", b,
                                  reference=legality, broadcast=cols))
    else:
        cases.append(expand_fault("broadcast-physical-columns", """A broadcast tile with one valid column but 2
                                  physical columns: Fault_TileLegality.""", b, reference=legality,
                                  broadcast={"cols": 2}))
    other = "U32" if b.t != "U32" else "S32"
    cases.append(expand_fault("broadcast-type", f"""A {other} broadcast tile beside {b.t} tiles:
                              Fault_TileLegality.""", b, reference=legality, broadcast={"dtype": other}))
    cases.append(expand_fault("broadcast-layout", """A ColumnMajor broadcast tile: Fault_TileLegality.""", b,
                              reference=legality, broadcast={"layout": "ColumnMajor"}))
    ior = engine.bundle_text(f"BSTART.SFU {op}, {b.t}", dims=engine.dims_of(b.valid, b.cols),
                             bindings=[engine.iot_line(source_indices(b), 1)]).replace("BSTOP", "B.IOR\nBSTOP")
    cases.append(expand_fault("bior-present", """A B.IOR with every field zero is illegal in the closed expansion
                              schema: Fault_TileLegality.""", b, direct=False, program=ior, reference=schema))
    if kind != "EXPDIF":
        datr = engine.bundle_text(f"BSTART.SFU {op}, {b.t}", datr=f"B.DATR {b.t}, Zero",
                                  dims=engine.dims_of(b.valid, b.cols),
                                  bindings=[engine.iot_line(source_indices(b), 1)])
        cases.append(expand_fault("datr-datatype", f"""B.DATR DataType {b.t} (nonzero) does not apply to {op}
                                  (only PadValue does): Fault_TileLegality.""", b, direct=False, program=datr,
                                  reference="asl/block/model/dispatch/tile-schema.asl "
                                            "(SelectedBundleTileDataAttributesLegal)"))
    big = engine.bundle_text(f"BSTART.SFU {op}, {b.t}", dims={"LB0": 3, "LB1": 2, "LB2": 4},
                             bindings=[engine.iot_line(source_indices(b), 10)])
    cases.append(expand_fault("allocation-exhausted", """A legal block whose 64 KiB destination exceeds the free
                              tile capacity: Fault_TileAllocation.""", b, direct=False, program=big,
                              fault="Fault_TileAllocation", reference="asl/block/model/dispatch/destination-shape.asl"))
    cases.append(expand_fault("fault-order-schema-before-allocation", """The same over-capacity block with a
                              broadcast tile of the wrong shape: the closed schema (Fault_TileLegality) comes
                              before destination allocation.""", b, direct=False, program=big, reference=schema,
                              broadcast=wrong))
    if kind == "DIV":
        for t in ("S32", "U8"):
            zb = Broadcast(op, t, (2, 3), [[6, 7, 8], [9, 10, 11]], [[2], [0]] if axis_of(op) == "Row" else
                           [[2, 0, 3]], cols=4)
            cases.append(expand_fault(f"zero-divisor-direct-{t.lower()}", f"""An integer {t} broadcast divisor
                                      element is zero: Fault_TileLegality.""", zb,
                                      reference="asl/tile/model/legality/allocation-capacity.asl "
                                                "(TileBroadcastPayloadNonzero)"))
            cases.append(expand_fault(f"zero-divisor-bundle-{t.lower()}", "The same zero divisor in a block.", zb,
                                      direct=False, reference=schema))
        zb = Broadcast(op, "U16", (1, 2), [[7, 9]], [[0x10000]] if axis_of(op) == "Row" else [[3, 0x10000]],
                       cols=2)
        cases.append(expand_fault("u16-divisor-upper-bits-only", """SPEC-CHOICE: the broadcast divisor Word 0x10000
                                  has zero U16 element bits: the executable TileBroadcastPayloadNonzero (whole
                                  Words) would pass it and TileIntegerDivRemValue's assertion stop the spec; the
                                  model rejects it as a zero divisor, Fault_TileLegality.""", zb, direct=False,
                                  reference=schema + "; asl/tile/model/execution/elementwise.asl "
                                                     "(TileIntegerDivRemValue)"))
        fz = Broadcast(op, "FP32", (2, 3), [[0x3F800000] * 3] * 2, [[0], [0x80000000]] if axis_of(op) == "Row"
                       else [[0, 0x80000000, 0x3F800000]], cols=4)
        cases += expand_cases("float-zero-divisor", """A floating zero divisor is legal: pto-v0 divides the raw
                              Words (all ones and DZ for a zero carrier), hw-ieee gives signed infinities and DZ.""",
                              fz, reference="asl/tile/model/execution/elementwise.asl (TileProfileBinaryWithFlags)")
    if kind == "EXPDIF":
        sub = Broadcast(op, "FP16", (1, 3), [[0x0003, 0x0155, 0x8003]], [[0]] if axis_of(op) == "Row" else
                        [[0, 0, 0]], dst_type="FP32", cols=4)
        if axis_of(op) == "Row":
            sub = Broadcast(op, "FP16", (3, 1), [[0x0003], [0x0155], [0x8003]], [[0], [0], [0]], dst_type="FP32")
        cases += expand_cases("fp16-subnormal-widening", """SPEC-CHOICE: FP16 subnormals widened to FP32 before
                              the SUB/EXP. The ASL's ExactWidenFP16ToFP32 writes the fraction bits below the
                              leading one at result[21:13] (0x0003 widens to 1.25 * 2**-23), which pto-v0 follows;
                              hw-ieee widens value-preserving as the hardware profile says (1.5 * 2**-23).""", sub,
                              reference="asl/tile/model/execution/expansion.asl (ExactWidenFP16ToFP32); "
                                        "hardware-conformance-profile.json mixed_expdif.exact_widening")
    if kind != "COPY":
        layout_tiles = b.state_tiles(with_destination=2)
        layout_tiles[0]["layout"] = "ColumnMajor"
        cases.append(engine.fault_case("source-layout", """A ColumnMajor full-shape source (the destination is
                                       RowMajor): Fault_TileLegality, nothing written.""", layout_tiles,
                                       engine.direct_call(op, 2, [0, 1]), reference=legality))
    if kind not in ("COPY",):
        undefined = Broadcast(op, b.t, b.valid, b.source, b.broadcast, cols=4)
        tiles = undefined.state_tiles(with_destination=2)
        tiles[0]["defined"] = "none"
        cases.append(engine.fault_case("undefined-source", """An undefined full-shape source:
                                       Fault_TileLegality, nothing written.""", tiles,
                                       engine.direct_call(op, 2, [0, 1]), reference=legality))
    return cases


def x_partial_cases(op):
    cases = []
    kind = kind_of(op)
    reference = "vectors/reference/expansion.py; asl/tile/model/execution/complex.asl"
    for t in ref.PARTIAL_TYPES:
        def pairs_of(profile):
            return [(a, b) for a in pool(t, profile) for b in pool(t, profile)]

        def flags_of(a, b, profile):
            return ref.binary_with_flags(kind, t, profile, a, b)[1]
        for profiles, key, members in isolation_groups(pairs_of, flags_of, t):
            label = _flag_label(key)
            for k, chunk in enumerate(engine.chunks(members, engine.ISOLATION_MAX)):
                p = Partial(op, t, (1, len(chunk)), [[a for a, _ in chunk]], [[b for _, b in chunk]])
                cases += partial_cases(f"{t.lower()}-{'-'.join(profiles)}-{label}-{k}", f"""{op} {t} under
                                       {' and '.join(profiles)}: the overlap of two equal sources, operand pairs
                                       whose elements raise {label}.""", p, profiles=profiles,
                                       reference=reference)
    # coverage: the right source covers all, the left a corner; and the reverse, in blocks too
    for name, left, right in (("left-corner", [[1, 2]], [[10, 20, 30], [40, 50, 60]]),
                              ("right-corner", [[1, 2, 3], [4, 5, 6]], [[10]])):
        p = Partial(op, "U16", (2, 3), left, right, cols=4)
        cases += partial_cases(f"coverage-{name}", f"""A 2x3 destination ({name.replace('-', ' ')}): the overlap
                               combines, every other element copies the covering source's Word; the padding is
                               Null.""", p, reference=reference)
        cases += partial_cases(f"coverage-{name}-bundle", "The same through a block.", p, direct=False,
                               reference=reference + "; asl/block/model/dispatch/partial-schema.asl")
    schema = "asl/block/model/dispatch/partial-schema.asl (SelectedBundleClosedPartialSchemaLegal)"
    legality = ("asl/tile/model/legality/indexed-layout.asl (TileOperandsLegal_ExecuteTilePartial), "
                "allocation-capacity.asl (TilePartialCoverageLegal)")
    p = Partial(op, "U16", (2, 3), [[1, 2, 3]], [[4], [5]], cols=4)
    tiles = [p.source_tile(0, p.left), p.source_tile(1, p.right),
             engine.tile(2, "U16", p.capacity, p.cols, p.valid, defined="none")]
    cases.append(engine.fault_case("coverage-gap-direct", """A 1x3 left and a 2x1 right source leave (1, 1) of the
                                   2x3 destination uncovered: Fault_TileLegality.""", tiles,
                                   engine.direct_call(op, 2, [0, 1]), reference=legality))
    program = engine.bundle_text(f"BSTART.SFU {op}, U16", dims=engine.dims_of(p.valid, p.cols),
                                 bindings=[engine.iot_line([0, 1], 1)])
    cases.append(engine.fault_case("coverage-gap-bundle", """The same sources in a block: neither covers the B.DIM
                                   region, the closed schema rejects it.""", tiles[:2], program, reference=schema))
    q = Partial(op, "U16", (1, 3), [[1, 2, 3]], [[4]], cols=4)
    qt = [q.source_tile(0, q.left), q.source_tile(1, q.right)]
    for name, text, line in (("datr-present", "Any B.DATR (here PadValue Zero) is illegal: the partial schema takes "
                              "no data attributes.", "B.DATR Zero"),):
        prog = engine.bundle_text(f"BSTART.SFU {op}, U16", datr=line, dims=engine.dims_of(q.valid, q.cols),
                                  bindings=[engine.iot_line([0, 1], 1)])
        cases.append(engine.fault_case(name, text, qt, prog, reference=schema))
    prog = engine.bundle_text(f"BSTART.SFU {op}, U16", dims=engine.dims_of(q.valid, q.cols),
                              bindings=[engine.iot_line([0, 1], 1)]).replace("BSTOP", "B.IOR\nBSTOP")
    cases.append(engine.fault_case("bior-present", "A B.IOR is illegal in the partial schema.", qt, prog,
                                   reference=schema))
    for t in ("FP64", "S64", "U64", "E4M3"):
        r = Partial(op, t, (1, 2), [[1, 2]], [[1]], cols=2)
        rt = [r.source_tile(0, r.left), r.source_tile(1, r.right)]
        prog = engine.bundle_text(f"BSTART.SFU {op}, {t}", dims=engine.dims_of(r.valid, r.cols),
                                  bindings=[engine.iot_line([0, 1], 1)])
        cases.append(engine.fault_case(f"{t.lower()}-rejected", f"""{t} is outside TilePartialDataTypeSupported:
                                       Fault_TileLegality before allocation.""", rt, prog, reference=schema))
        cases.append(engine.fault_case(f"{t.lower()}-rejected-direct", f"""A direct {op} call on {t} tiles:
                                       Fault_TileLegality.""", rt + [engine.tile(2, t, 128, 2, (1, 2),
                                                                                 defined="none")],
                                       engine.direct_call(op, 2, [0, 1]), reference=legality))
    column_major = [q.source_tile(0, q.left), q.source_tile(1, q.right),
                    engine.tile(2, "U16", q.capacity, q.cols, q.valid, defined="none")]
    column_major[1]["layout"] = "ColumnMajor"
    cases.append(engine.fault_case("source-layout", """A ColumnMajor right source: Fault_TileLegality.""",
                                   column_major, engine.direct_call(op, 2, [0, 1]), reference=legality))
    mixed = [q.source_tile(0, q.left), engine.tile(1, "S16", 128, 2, (1, 1), [[4]]),
             engine.tile(2, "U16", q.capacity, q.cols, q.valid, defined="none")]
    cases.append(engine.fault_case("source-type-mismatch", """An S16 right source beside U16 tiles:
                                   Fault_TileLegality.""", mixed, engine.direct_call(op, 2, [0, 1]),
                                   reference=legality))
    return cases


def x_file(op):
    cases = x_partial_cases(op) if op in ref.PARTIAL_OPERATIONS else x_expand_cases(op)
    return {"format": "pto-avs-vector/1", "id": f"PTO-AVS-X-{op}-REF-001", "operation": op,
            "kind": "execution", "exercises": Flow(engine.UNITS[op]["readiness_subjects"]),
            "provenance": ("Every expected value comes from the independent reference vectors/reference/expansion.py "
                           "(its element operations from arith_elements.py and elementwise.py; hw-ieee through "
                           "arithmetic.py, exact rationals and mpmath), which shares no code with device_model, "
                           f"through `{COMMAND} {op}`. Each special-value case holds the operand pairs of one "
                           "flag set. Nothing here was produced by running the golden model."),
            "cases": cases}


PROVENANCE = engine.spec_provenance("vectors/reference/expansion.py", COMMAND)


# The spec-ID files whose cases run a second operation (the decoded EXPDIF point covers both axes).
ALSO_EXERCISES = {"PTO-AVS-TILE-EXPDIF-STAGE3-DECODED-001": ["TCOLEXPANDEXPDIF"]}


def files(operations) -> dict:
    out = engine.spec_id_files(operations, spec_cases, x_file, PROVENANCE, "generate_expansion.py")
    for test_id, others in ALSO_EXERCISES.items():
        name = f"{test_id}.yaml"
        if name in out:
            op = engine.TESTS[test_id]["source"].rsplit("/", 1)[1][:-4]
            doc = engine.spec_file(op, test_id, PROVENANCE, spec_cases(op, test_id))
            doc = {**{k: doc[k] for k in ("format", "id", "operation")}, "also_exercises": Flow(others),
                   **{k: v for k, v in doc.items() if k not in ("format", "id", "operation")}}
            out[name] = engine.render_spec_id(doc, "generate_expansion.py")
    return out


FAMILY = engine.Family("generate_expansion", OPERATIONS, files,
                       owns=tuple(f"PTO-AVS-X-{op}-REF-001.yaml" for op in OPERATIONS))

if __name__ == "__main__":
    sys.exit(engine.legacy_main(FAMILY.operations))
