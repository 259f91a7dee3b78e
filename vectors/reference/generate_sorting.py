"""Write the vectors of TSORT and TMRGSORT.

    .venv/bin/python -m pto_avs.vectors.reference generate|check TSORT TMRGSORT
    .venv/bin/python -m pto_avs.vectors.reference.generate_sorting [--out DIR] [--check]  (the same)

- one file per spec test ID of the two operations (``PTO-AVS-TILE-<OP>-<NAME>-NNN.yaml``):
  the spec test point replayed (its tiles, values, direct call or decoded block) with the
  values it asserts (``source: spec-test``), then the same facts through the other path
  and the other profile (``source: hand``);
- per operation ``PTO-AVS-X-<OP>-REF-001.yaml`` (``source: reference-generator``): both
  legal types x every value class (every NaN kind with payloads and signs, both zeros,
  both infinities, subnormals, extremes) in both directions; already sorted, reversed and
  equal-key rows (stability); TSORT's group widths 1..64 with short last groups, LB0
  omitted or 0; carrier Words, and the pairs SPEC-CHOICE 42 orders per profile; a nonzero
  initial status that must survive and two blocks whose status must accumulate; the
  closed schema, the operands, the allocation and their fault order.

Every expected value is a spec test's own assertion or comes from the independent
reference ``vectors/reference/sorting.py`` (no device_model code); a spec-test value and the
reference must agree or this script stops. Nothing here runs the golden model.
"""
from __future__ import annotations

import sys

from . import engine
from . import sorting as ref
from .engine import (OPERATION_TABLE, UNITS, Flow, bstart_word, case, first_free, iot_line, size_code, spec_ref,
                     tile, width)

COMMAND = ".venv/bin/python -m pto_avs.vectors.reference.generate_sorting"
BOTH = ["pto-v0", "hw-ieee"]
OPERATIONS = ("TSORT", "TMRGSORT")
TYPES = ref.SORT_TYPES
REFERENCE = "vectors/reference/sorting.py (TileSortLeftBefore, TSORT, TMRGSORT and their legality, from the ASL)"
DESCENDING_GPR = 5  # the GPR a block's B.IOR names for the direction

# Value classes per type: (label, Word), in no particular order.
SPECIALS = {
    "FP32": [("+0", 0x00000000), ("-0", 0x80000000), ("+sub", 0x00000001), ("-sub", 0x80000001),
             ("+minnorm", 0x00800000), ("+1", 0x3F800000), ("-1", 0xBF800000), ("+2", 0x40000000),
             ("+half", 0x3F000000), ("+max", 0x7F7FFFFF), ("-max", 0xFF7FFFFF), ("+inf", 0x7F800000),
             ("-inf", 0xFF800000), ("+qnan", 0x7FC00000), ("+qnan-payload", 0x7FC00123), ("-qnan", 0xFFC00001),
             ("-sub-max", 0x807FFFFF)],
    "FP16": [("+0", 0x0000), ("-0", 0x8000), ("+sub", 0x0001), ("-sub", 0x8001), ("+minnorm", 0x0400),
             ("+1", 0x3C00), ("-1", 0xBC00), ("+2", 0x4000), ("+half", 0x3800), ("+max", 0x7BFF),
             ("-max", 0xFBFF), ("+inf", 0x7C00), ("-inf", 0xFC00), ("+qnan", 0x7E00), ("+qnan-payload", 0x7E12),
             ("-qnan", 0xFE01), ("-sub-max", 0x83FF)],
}
SIGNALING = {"FP32": (0x7F800001, 0xFFA00123), "FP16": (0x7C01, 0xFD23)}
ONE = {"FP32": 0x3F800000, "FP16": 0x3C00}


def spread(t: str, count: int, seed: int) -> list:
    """``count`` finite Words of ``t`` in a scrambled order with some repeats (a fixed
    linear congruence, so the files never change)."""
    out, state = [], seed
    for _ in range(count):
        state = (state * 1103515245 + 12345) & 0x7FFFFFFF
        magnitude = (state >> 3) % (0x7000 if t == "FP16" else 0x7E000000)
        out.append(magnitude | (0x8000 if t == "FP16" else 0x80000000) * (state & 1))
        if state % 5 == 0 and out:
            out.append(out[len(out) // 2])
    return out[:count]


def scrambled(values: list, seed: int) -> list:
    """A fixed permutation of ``values``."""
    keyed = sorted(range(len(values)), key=lambda i: (i * 2654435761 + seed) % 4294967291)
    return [values[i] for i in keyed]


def name_of(index: int) -> str:
    """The assembler's name of a TileIndex (T0..T15, U0.., M0.., N0..)."""
    return f"{'TUMN'[index // 16]}{index % 16}"


def with_capacity(built: dict, capacity: int) -> dict:
    """``built`` with the state's tile capacity set to ``capacity`` bytes."""
    built["state"] = {"tile_capacity": capacity, **built["state"]}
    return built


def one_pe(built: dict) -> dict:
    """A state tile allocated on PE 0 only (mask 0001: a quarter of the capacity a 1111 tile takes)."""
    return {**built, "mask": "0001"}


def engine_of(op: str) -> str:
    return OPERATION_TABLE[op]["engine"]


def bstart(op: str, t: str) -> str:
    return f"BSTART.{engine_of(op)} {op}, {t}"


def index_capacity(t: str, capacity: int) -> int:
    """The U32 index tile with the value tile's rows and columns: its TSize scales by 32 / width."""
    return capacity * 32 // width(t)


def result(index, t, capacity, cols, valid, words, carrier=True, mask=None) -> dict:
    out = engine.result_tile(index, t, capacity, cols, valid, words, "Null", carrier=carrier)
    if mask:
        out["mask"] = mask
    return out


# ---------------------------------------------------------------------------------------
# TSORT cases

def tsort_expected(t, rows, width_, descending, profiles):
    answers = {p: ref.tsort(rows, t, width_, descending, p) for p in profiles}
    if len({str(a) for a in answers.values()}) != 1:
        raise ValueError(f"TSORT {t}: the profiles {profiles} disagree; split the case")
    return answers[profiles[0]]


def tsort_case(name, description, t, rows, *, lb0=None, descending=None, profiles=BOTH, direct=False,
               source="hand", reference="", status=0, asserted=None, src=0, hands=("T", "U"), mask="1111",
               src_mask=None, bstart_line=None, raw=False, sort_width=None, index_size=None, dsts=None,
               source_extra=None) -> dict:
    """A completed TSORT of the source rows ``rows`` (its valid region). A block takes its
    width from ``lb0`` (None: no B.DIM) and its direction from B.IOR R5 (``descending``
    None: no B.IOR); a direct call from ``sort_width`` and ``descending``."""
    valid = (len(rows), len(rows[0]))
    cols, capacity, _ = engine.smallest_tile(t, valid)
    width_ = (sort_width or ref.DEFAULT_WIDTH) if direct else (lb0 if lb0 else ref.DEFAULT_WIDTH)
    values, indices, flags = tsort_expected(t, rows, width_, bool(descending), list(profiles))
    if asserted:
        for (kind, row, column), want in asserted.items():
            got = (values if kind == "value" else indices)[row][column]
            if got != want:
                raise ValueError(f"TSORT {name}: the spec asserts {kind} ({row},{column}) = {want:#x}, "
                                 f"the reference gives {got:#x}")
    source_tile = tile(src, t, capacity, cols, valid, rows)
    if src_mask:
        source_tile["mask"] = src_mask
    if source_extra:
        source_tile.update(source_extra)
    state = {"tiles": [source_tile]}
    if status:
        state["status"] = engine.Hex(status)
    i_capacity = index_size or index_capacity(t, capacity)
    if direct:
        v_index, i_index = dsts or (src + 1, src + 2)
        state["tiles"] += [tile(v_index, t, capacity, cols, valid), tile(i_index, "U32", i_capacity, cols, valid)]
        program = engine.direct_call("TSORT", v_index, [src], dst1=i_index, sort_width=sort_width,
                                     descending=1 if descending else None)
        allocated = [src, v_index, i_index]
    else:
        used = {src}
        v_index = next(i for i in range(16 * "TUMN".index(hands[0]), 64) if i not in used)
        used.add(v_index)
        i_index = next(i for i in range(16 * "TUMN".index(hands[1]), 64) if i not in used)
        dims = {"LB0": lb0} if lb0 is not None else {}
        program = engine.bundle_text(bstart_line or bstart("TSORT", t), dims=dims,
                                     bindings=[iot_line([name_of(src)], size_code(capacity), mask=mask, last=False,
                                                        hand=hands[0]),
                                               iot_line([], size_code(i_capacity), mask=mask, hand=hands[1])],
                                     gpr=DESCENDING_GPR if descending is not None else None)
        if descending is not None:
            state["gprs"] = engine.gpr_map({DESCENDING_GPR: int(descending)})
        if raw:
            program = engine.raw_bstart_program(program, bstart_word("TSORT", t))
        allocated = sorted({src, v_index, i_index})
    expect = engine.success_expect(status | flags, allocated, [src], [
        result(v_index, t, capacity, cols, valid, values, mask=None if direct or mask == "1111" else mask),
        result(i_index, "U32", i_capacity, cols, valid, indices, mask=None if direct or mask == "1111" else mask)])
    return case(name, description, list(profiles), source, reference, state, program, expect)


def per_profile(build, name, description, *args, **options) -> list:
    """One case for both profiles where they agree, else one per profile (-pto-v0, -hw-ieee)."""
    try:
        return [build(name, description, *args, **options)]
    except ValueError as disagreement:
        if "disagree" not in str(disagreement):
            raise
    return [build(f"{name}-{p}", f"{description} ({p})", *args, profiles=[p], **options) for p in BOTH]


def fault(name, description, tiles, program, kind="Fault_TileLegality", *, gprs=None, status=None,
          reference="", source="hand", profiles=BOTH) -> dict:
    return engine.fault_case(name, description, tiles, program, kind, source=source, reference=reference,
                             profiles=profiles, gprs=gprs, status=status)


def tsort_block(t, src=0, size=None, *, lb0=None, extra=(), gpr=None, datr=None, mask="1111", bindings=None,
                line=None, index_size=None, capacity=128):
    size = size or size_code(capacity)
    index_size = index_size or size_code(index_capacity(t, capacity) if t in TYPES else capacity)
    dims = {"LB0": lb0} if lb0 is not None else {}
    dims.update(dict(extra))
    return engine.bundle_text(line or bstart("TSORT", t), datr=datr, dims=dims, gpr=gpr,
                              bindings=bindings or [iot_line([src], size, mask=mask, last=False),
                                                    iot_line([], index_size, mask=mask, hand="U")])


def row_of(t, count, seed=1):
    return [spread(t, count, seed)]


# ---------------------------------------------------------------------------------------
# TMRGSORT cases

def sorted_stream(t, words, descending, profile="pto-v0"):
    """``words`` sorted by the reference itself (one group), for a merge source."""
    values, _, _ = ref.tsort([words], t, 64, descending, profile) if len(words) <= 64 else (None, None, None)
    if values is None:  # longer streams: sort in 64-element groups, then merge them
        out = []
        for begin in range(0, len(words), 64):
            chunk, _, _ = ref.tsort([words[begin:begin + 64]], t, 64, descending, profile)
            out, _ = ref.tmrgsort(out, chunk[0], t, descending, profile) if out else (chunk[0], 0)
        return out
    return values[0]


def merged_geometry(t, columns):
    cols = engine.pow2_at_least(columns)
    return cols, max(128, cols * width(t) // 8)


def tmrgsort_case(name, description, t, left, right, *, descending=None, profiles=BOTH, direct=False,
                  source="hand", reference="", status=0, asserted=None, srcs=(0, 1), bstart_line=None,
                  raw=False, extra_tiles=(), mask="1111") -> dict:
    answers = {p: ref.tmrgsort(left, right, t, bool(descending), p) for p in profiles}
    if len({str(a) for a in answers.values()}) != 1:
        raise ValueError(f"TMRGSORT {t}: the profiles {profiles} disagree; split the case")
    words, flags = answers[profiles[0]]
    if not (ref.sequence_ordered(left, t, bool(descending)) and ref.sequence_ordered(right, t, bool(descending))):
        raise ValueError(f"TMRGSORT {name}: a source is not sorted")
    if asserted is not None and words[:len(asserted)] != asserted:
        raise ValueError(f"TMRGSORT {name}: the spec asserts {asserted}, the reference gives {words}")
    tiles = []
    for index, row in dict(zip(srcs, (left, right))).items():
        cols, capacity, _ = engine.smallest_tile(t, (1, len(row)))
        tiles.append(tile(index, t, capacity, cols, (1, len(row)), [row]))
        if mask != "1111":
            tiles[-1]["mask"] = mask
    tiles += list(extra_tiles)
    state = {"tiles": tiles}
    if status:
        state["status"] = engine.Hex(status)
    n = len(left) + len(right)
    cols, capacity = merged_geometry(t, n)
    if direct:
        dst = max(srcs) + 1
        state["tiles"].append(tile(dst, t, capacity, cols, (1, n)))
        program = engine.direct_call("TMRGSORT", dst, list(srcs), descending=1 if descending else None)
    else:
        dst = first_free(set(srcs) | {x["index"] for x in extra_tiles})
        program = engine.bundle_text(bstart_line or bstart("TMRGSORT", t),
                                     bindings=[iot_line([name_of(s) for s in srcs], size_code(capacity), mask=mask)],
                                     gpr=DESCENDING_GPR if descending is not None else None)
        if descending is not None:
            state["gprs"] = engine.gpr_map({DESCENDING_GPR: int(descending)})
        if raw:
            program = engine.raw_bstart_program(program, bstart_word("TMRGSORT", t))
    allocated = sorted({*srcs, dst, *(x["index"] for x in extra_tiles)})
    expect = engine.success_expect(status | flags, allocated, sorted(set(srcs)),
                                   [result(dst, t, capacity, cols, (1, n), [words],
                                           mask=None if mask == "1111" else mask)])
    return case(name, description, list(profiles), source, reference, state, program, expect)


def merge_block(t, srcs=(0, 1), size=1, *, gpr=None, datr=None, dims=(), line=None, bindings=None):
    return engine.bundle_text(line or bstart("TMRGSORT", t), datr=datr, dims=dict(dims), gpr=gpr,
                              bindings=bindings or [iot_line([name_of(s) for s in srcs], size)])


def stream_tile(index, t, row, **extra):
    cols, capacity, _ = engine.smallest_tile(t, (1, len(row)))
    out = tile(index, t, capacity, cols, (1, len(row)), [row])
    out.update(extra)
    return out


# ---------------------------------------------------------------------------------------
# Spec test points

def static_cases(op, test_id):
    spec = OPERATION_TABLE[op]
    word = bstart_word(op, "FP32")
    what = (f"DecodeTileOperation(TEPL, {spec['selector']}) selects {op}, handler {spec['semantic_handler']}, "
            f"engine {spec['engine']}")
    reference = spec_ref(test_id, what)
    if op == "TSORT":
        rows = [[0x40400000, 0x3F800000, 0x40000000, 0]]
        build = lambda name, text, **o: tsort_case(name, text, "FP32", rows, source="spec-test",  # noqa: E731
                                                   reference=reference, **o)
    else:
        build = lambda name, text, **o: tmrgsort_case(name, text, "FP32", [0x3F800000, 0x40400000],  # noqa: E731
                                                      [0x40000000, 0x40800000], source="spec-test",
                                                      reference=reference, **o)
    return [
        build(f"bstart-sfu-{op.lower()}-fp32", f"""BSTART.SFU {op}, FP32 = {word:#010x} (Mode {spec['mode']},
              Function {spec['function']}: selector {spec['selector']}) opens a {op} block."""),
        build("bstart-tepl-mode-function", f"""BSTART.TEPL {spec['mode']}, {spec['function']}, FP32: the same
              word, the same block.""", bstart_line=f"BSTART.TEPL {spec['mode']}, {spec['function']}, FP32"),
        build("raw-bstart-word", f"""The BSTART as the raw word {word:#010x} packed by hand from command form 33
              (match 0x00019181, DataType 31:27, Mode 26:25, Function 24:20).""", raw=True),
    ]


def tsort_spec(test_id):
    point = engine.spec_point("TSORT", test_id)
    if point == "STATIC":
        return static_cases("TSORT", test_id)
    if point == "BUNDLE":
        rows = [[0x40400000, 0x3F800000, 0x40000000, 0]]
        asserted = {("value", 0, 0): 0x3F800000, ("value", 0, 1): 0x40000000, ("value", 0, 2): 0x40400000,
                    ("value", 0, 3): 0, ("index", 0, 0): 1, ("index", 0, 1): 2, ("index", 0, 2): 0,
                    ("index", 0, 3): 0}
        reference = spec_ref(test_id, "LB0=3 over [3, 1, 2, 0]: values T0 = [1, 2, 3, 0], indices U0 = [1, 2, 0, 0]")
        return [
            tsort_case("spec-bundle", """The spec's block: an FP32 1x4 source in M0 (128 B), LB0=3, values to
                       T<1> and indices to U<1>, mask 0001 on both bindings. The width-3 group [3, 1, 2] sorts to
                       [1, 2, 3] with indices [1, 2, 0]; the short group [0] keeps index 0. Both destinations take
                       the bindings' mask 0001, not the source's 1111.""", "FP32", rows, lb0=3,
                       src=32, hands=("T", "U"), mask="0001", source="spec-test",
                       reference=reference, asserted=asserted),
            tsort_case("lb0-omitted-width-32", """No B.DIM: the width is 32, so the four columns are one group
                       and 0 sorts first.""", "FP32", rows),
            tsort_case("lb0-zero-width-32", "B.DIM LB0=0 also selects width 32.", "FP32", rows, lb0=0),
            tsort_case("descending-b-ior", """B.IOR R5 holding 1: width-3 groups sort descending.""", "FP32",
                       rows, lb0=3, descending=True),
            tsort_case("ascending-b-ior-zero", "B.IOR R5 holding 0: ascending, as when B.IOR is omitted.",
                       "FP32", rows, lb0=3, descending=False),
            tsort_case("both-destinations-one-hand", """Both destinations in hand T after a T0 source: the values
                       rename to T1 and the indices to T2, the next free index in binding order.""", "FP32",
                       rows, lb0=3, hands=("T", "T")),
            tsort_case("direct-call", "The same sort as a direct call into configured tiles.", "FP32", rows,
                       direct=True, sort_width=3),
        ]
    if point == "GROUPS":
        rows = [[0x40400000, 0x3F800000, 0x40000000, 0], [0x40C00000, 0x40800000, 0x40A00000, 0x40E00000]]
        asserted = {("value", 0, 0): 0x3F800000, ("value", 0, 2): 0x40400000, ("value", 0, 3): 0,
                    ("value", 1, 0): 0x40800000, ("value", 1, 1): 0x40A00000, ("value", 1, 2): 0x40C00000,
                    ("index", 1, 0): 1, ("index", 1, 1): 2, ("index", 1, 2): 0, ("index", 1, 3): 0}
        reference = spec_ref(test_id, "TSORT(61, 62, 60, 3, FALSE) over two rows: groups of 3 from column 0")
        return [
            tsort_case("spec-direct-call", """The spec's call TSORT(61, 62, 60, width 3, ascending) over two
                       FP32 rows in 256 B tiles: each row is grouped from column 0; indices are group-local.""",
                       "FP32", rows, direct=True, sort_width=3, src=60, source="spec-test", reference=reference,
                       asserted=asserted),
            tsort_case("bundle", "The same two rows through a block with LB0=3.", "FP32", rows, lb0=3),
            tsort_case("width-2-descending", "Width 2, descending: two groups of two per row.",
                       "FP32", rows, lb0=2, descending=True),
        ]
    if point == "SHAPE":
        reference = spec_ref(test_id, "destinations 1x4 and a 2x2 source of four elements: illegal")
        zeros = [[0, 0], [0, 0]]
        tiles = [tile(20, "FP32", 256, 4, (1, 4)), tile(21, "U32", 256, 4, (1, 4)),
                 tile(22, "FP32", 256, 2, (2, 2), zeros)]
        call = engine.direct_call("TSORT", 20, [22], dst1=21, sort_width=2)
        fp16 = [[0x3C00, 0x4000, 0x3800, 0]]
        return [
            fault("spec-flattened-extent", """The spec's call: 1x4 destinations for a 2x2 source hold as many
                  elements but another shape (TileLogicalShapeMatch): Fault_TileLegality, nothing written.""",
                  tiles, call, source="spec-test", reference=reference),
            fault("index-destination-rows", """An FP16 source in 128 B (16 rows of 4): an index destination of
                  128 B has 8 U32 rows, another shape, so the sort is rejected after both destinations were
                  allocated (Fault_TileLegality, nothing published).""",
                  [tile(0, "FP16", 128, 4, (1, 4), fp16)], tsort_block("FP16", index_size=1)),
            tsort_case("index-destination-twice-the-tsize", """The same FP16 sort with a 256 B index destination
                       (16 U32 rows of 4): legal.""", "FP16", fp16),
            fault("value-destination-tsize", """An FP32 source in 128 B with a 256 B value destination: twice the
                  rows, another shape: Fault_TileLegality.""", [tile(0, "FP32", 128, 4, (1, 4), [[1, 2, 3, 4]])],
                  tsort_block("FP32", size=2)),
        ]
    if point == "SNAN":
        rows = [[0x7F800001, 0x3F800000]]
        asserted = {("value", 0, 0): 0x3F800000, ("value", 0, 1): 0x7F800001, ("index", 0, 0): 1,
                    ("index", 0, 1): 0}
        reference = spec_ref(test_id, "[sNaN, 1.0] sorts to [1.0, sNaN], indices [1, 0], NumericStatus NV")
        return [
            tsort_case("spec-direct-call", """The spec's call over [sNaN 0x7F800001, 1.0]: the signaling NaN is a
                       legal value sorted after the number with its index, and NV is recorded.""", "FP32", rows,
                       direct=True, sort_width=2, src=22, dsts=(20, 21), source="spec-test", reference=reference,
                       asserted=asserted),
            tsort_case("bundle", "The same values through a block (LB0=2).", "FP32", rows, lb0=2),
            tsort_case("descending", "Descending too: the NaN still goes after the number.", "FP32", rows,
                       lb0=2, descending=True),
            tsort_case("fp16-status-survives", """FP16 [sNaN 0x7C01, qNaN, -1]: NV joins the nonzero initial
                       status 0x1E, which survives.""", "FP16", [[0x7C01, 0x7E00, 0xBC00]], status=0x1E),
        ]
    if point == "TYPES":
        reference = spec_ref(test_id, "U64 and BF16 sources are rejected; FP32 and FP16 are sortable")
        u64 = [tile(20, "U64", 256, 2, (1, 2)), tile(21, "U32", 256, 2, (1, 2)), tile(22, "U64", 256, 2, (1, 2), [[1, 2]])]
        bf16 = [tile(23, "BF16", 256, 2, (1, 2), [[0x3F80, 0x4000]]), tile(24, "U32", 256, 2, (1, 2)),
                tile(25, "BF16", 256, 2, (1, 2))]
        return [
            fault("spec-u64-direct", "The spec's U64 configuration: Fault_TileLegality.", u64,
                  engine.direct_call("TSORT", 20, [22], dst1=21, sort_width=2), source="spec-test",
                  reference=reference),
            fault("spec-bf16-direct", """The spec's BF16 configuration: rejected (SPEC-CHOICE 40: the contract
                  lists BF16, TileSortDataTypeSupported does not).""", bf16,
                  engine.direct_call("TSORT", 25, [23], dst1=24, sort_width=2), source="spec-test",
                  reference=reference),
            fault("bstart-bf16", """BSTART.SFU TSORT, BF16: the closed schema's type set is FP32|FP16
                  (SPEC-CHOICE 40): Fault_TileLegality.""", [tile(0, "BF16", 128, 2, (1, 2), [[0x3F80, 0x4000]])],
                  tsort_block("BF16")),
            fault("bstart-u64", "BSTART.SFU TSORT, U64: Fault_TileLegality.",
                  [tile(0, "U64", 128, 2, (1, 2), [[2, 1]])], tsort_block("U64")),
            fault("index-destination-s32", "A direct call whose index destination is S32: Fault_TileLegality.",
                  [tile(1, "FP32", 256, 2, (1, 2)), tile(2, "S32", 256, 2, (1, 2)),
                   tile(0, "FP32", 256, 2, (1, 2), [[2, 1]])],
                  engine.direct_call("TSORT", 1, [0], dst1=2, sort_width=2)),
            tsort_case("fp16-legal", "FP16 is sortable.", "FP16", [[0x4000, 0x3C00]], direct=True, sort_width=2),
        ]
    raise KeyError(test_id)


def tmrgsort_spec(test_id):
    point = engine.spec_point("TMRGSORT", test_id)
    if point == "STATIC":
        return static_cases("TMRGSORT", test_id)
    if point == "BUNDLE":
        reference = spec_ref(test_id, "[1, 3] and [2, 4] in M0, M1 merge into T0 = [1, 2, 3, 4], 1x4, no B.DIM")
        left, right = [0x3F800000, 0x40400000], [0x40000000, 0x40800000]
        return [
            tmrgsort_case("spec-bundle", """The spec's block: FP32 1x2 sources in M0 and M1 (128 B), one binding,
                          no B.DIM: the destination T0 is 1x4 and holds the merge.""", "FP32", left, right,
                          srcs=(32, 33), source="spec-test", reference=reference, asserted=[0x3F800000, 0x40000000,
                                                                                           0x40400000, 0x40800000]),
            tmrgsort_case("five-columns-in-eight", """1x2 and 1x3 sources: a 1x5 destination in 8 physical columns,
                          the smallest power of two; its padding is Null.""", "FP32", left,
                          [0x3F000000, 0x40000000, 0x40800000]),
            tmrgsort_case("descending-b-ior", "B.IOR R5 holding 1: descending streams merge descending.", "FP32",
                          left[::-1], right[::-1], descending=True),
            tmrgsort_case("direct-call", "The same merge as a direct call.", "FP32", left, right, direct=True),
        ]
    if point == "ORDER":
        reference = spec_ref(test_id, "an ascending merge of a descending left source [2, 1] is illegal")
        tiles = [stream_tile(30, "FP32", [0x40000000, 0x3F800000]), stream_tile(31, "FP32", [0x40400000, 0x40800000]),
                 tile(32, "FP32", 256, 4, (1, 4))]
        return [
            fault("spec-descending-left", """The spec's call: the left source [2, 1] is not ascending:
                  Fault_TileLegality.""", tiles, engine.direct_call("TMRGSORT", 32, [30, 31]), source="spec-test",
                  reference=reference),
            fault("bundle-descending-left", "The same sources in a block: the closed schema rejects them.",
                  tiles[:2], merge_block("FP32", (30, 31))),
            fault("bundle-unsorted-right", "An unsorted right source [3, 2] in a block.",
                  [stream_tile(0, "FP32", [0x3F800000, 0x40000000]), stream_tile(1, "FP32", [0x40400000, 0x40000000])],
                  merge_block("FP32")),
            fault("descending-request-ascending-sources", """B.IOR 1 (descending) over ascending sources:
                  Fault_TileLegality.""", [stream_tile(0, "FP32", [0x3F800000, 0x40000000]),
                                           stream_tile(1, "FP32", [0x40400000, 0x40800000])],
                  merge_block("FP32", gpr=DESCENDING_GPR), gprs={DESCENDING_GPR: 1}),
            tmrgsort_case("descending-request-descending-sources", "The left [2, 1] merges under B.IOR 1.", "FP32",
                          [0x40000000, 0x3F800000], [0x40800000, 0x40400000], descending=True),
            tmrgsort_case("nan-last-is-sorted", "[1, NaN] and [NaN] are sorted in both directions (NaNs last).",
                          "FP32", [0x3F800000, 0x7FC00000], [0xFFC00000], descending=True),
        ]
    if point == "SNAN":
        reference = spec_ref(test_id, "[sNaN] and [1.0] merge to [1.0, sNaN] with NV")
        return [
            tmrgsort_case("spec-direct-call", """The spec's call: left [sNaN 0x7F800001], right [1.0]: the number
                          goes first, the signaling NaN is merged as it is and NV is recorded.""", "FP32",
                          [0x7F800001], [0x3F800000], srcs=(30, 31), direct=True, source="spec-test",
                          reference=reference, asserted=[0x3F800000, 0x7F800001]),
            tmrgsort_case("bundle", "The same merge through a block.", "FP32", [0x7F800001], [0x3F800000]),
            tmrgsort_case("fp16-status-survives", """FP16 [1, sNaN] and [qNaN]: NV joins the initial status
                          0x1E, which survives.""", "FP16", [0x3C00, 0x7C01], [0x7E00], status=0x1E),
        ]
    if point == "STABLE":
        reference = spec_ref(test_id, "+0 from the left precedes -0 from the right: [0, -0, 1, 2]")
        return [
            tmrgsort_case("spec-direct-call", """The spec's call: left [+0, 1], right [-0, 2]: the zeros are equal
                          and the left one goes first.""", "FP32", [0, 0x3F800000], [0x80000000, 0x40000000],
                          srcs=(30, 31), direct=True, source="spec-test", reference=reference,
                          asserted=[0, 0x80000000, 0x3F800000, 0x40000000]),
            tmrgsort_case("bundle", "The same merge through a block.", "FP32", [0, 0x3F800000],
                          [0x80000000, 0x40000000]),
            tmrgsort_case("negative-zero-left", "Left [-0], right [+0]: the left -0 first.", "FP32", [0x80000000],
                          [0]),
            tmrgsort_case("descending-ties", "Descending, equal 1.0s: the left one first.", "FP32",
                          [0x3F800000, 0], [0x3F800000, 0x80000000], descending=True),
        ]
    if point == "TYPES":
        reference = spec_ref(test_id, "U64 streams are rejected; FP16 is legal; BF16 is not a sort type")
        return [
            fault("spec-u64-direct", "The spec's U64 configuration: Fault_TileLegality.",
                  [stream_tile(30, "U64", [1]), stream_tile(31, "U64", [2]), tile(32, "U64", 256, 2, (1, 2))],
                  engine.direct_call("TMRGSORT", 32, [30, 31]), source="spec-test", reference=reference),
            tmrgsort_case("spec-fp16-legal", "The spec's FP16 configuration [1.0] and [2.0] is legal.", "FP16",
                          [0x3C00], [0x4000], srcs=(33, 34), direct=True, source="spec-test", reference=reference),
            fault("bstart-bf16", "BSTART.SFU TMRGSORT, BF16: not a sort type (SPEC-CHOICE 40).",
                  [stream_tile(0, "BF16", [0x3F80]), stream_tile(1, "BF16", [0x4000])], merge_block("BF16")),
            fault("mixed-types", "An FP16 right source in an FP32 block: Fault_TileLegality.",
                  [stream_tile(0, "FP32", [0x3F800000]), stream_tile(1, "FP16", [0x4000])], merge_block("FP32")),
        ]
    raise KeyError(test_id)


def referenced(cases: list, reference: str) -> list:
    """``cases`` with ``reference`` where a case names none."""
    for built in cases:
        built["reference"] = built["reference"] or reference
    return cases


def spec_cases(op, test_id):
    cases = tsort_spec(test_id) if op == "TSORT" else tmrgsort_spec(test_id)
    return referenced(cases, spec_ref(test_id, f"the same rules, derived through {REFERENCE}"))


# ---------------------------------------------------------------------------------------
# Reference files

def class_rows(t):
    """Rows of every non-signaling value class: scrambled, sorted ascending, reversed, equal keys."""
    words = [w for _, w in SPECIALS[t]]
    ascending, _, _ = ref.tsort([words], t, 64, False, "pto-v0")
    one, zero, negative_zero = ONE[t], 0, 0x8000 if t == "FP16" else 0x80000000
    nan, nan_payload, negative_nan = SPECIALS[t][13][1], SPECIALS[t][14][1], SPECIALS[t][15][1]
    equal = [one, negative_zero, nan_payload, one, zero, nan, negative_zero, negative_nan, one, zero, nan, one,
             zero, negative_zero, one, nan_payload, zero]
    return [scrambled(words, 7), ascending[0], ascending[0][::-1], equal]


def tsort_values(t):
    cases = []
    for descending in (False, True):
        way = "descending" if descending else "ascending"
        cases.append(tsort_case(f"classes-{t.lower()}-{way}", f"""Every non-signaling {t} value class (both zeros,
            subnormals, extremes, both infinities, quiet NaNs of both signs and a payload) scrambled, already
            sorted, reversed, and a row of equal keys (1.0s, +-0, NaNs) whose indices show stability; one group
            per row (LB0 omitted: width 32), {way}.""", t, class_rows(t), descending=descending or None,
            source="reference-generator"))
        snan = SIGNALING[t]
        cases.append(tsort_case(f"signaling-{t.lower()}-{way}", f"""{t} signaling NaNs of both signs among
            numbers and quiet NaNs: sorted as NaNs in source order after every number, NV recorded ({way}).""", t,
            [[snan[0], ONE[t], SPECIALS[t][13][1], snan[1], 0, SPECIALS[t][6][1], SPECIALS[t][15][1]]],
            descending=descending or None, source="reference-generator"))
    return cases


def tsort_widths():
    cases = []
    for t, widths in (("FP32", (1, 2, 3, 5, 7, 31, 32, 33, 63, 64)), ("FP16", (4, 16, 64))):
        for index, w in enumerate(widths):
            rows = [spread(t, 70, 11 + w), spread(t, 70, 13 + w)]
            descending = bool(index % 2)
            cases.append(tsort_case(f"width-{w}-{t.lower()}", f"""Two {t} rows of 70 columns in groups of {w} from
                column 0 (the last group short, padding never read), {'descending' if descending else
                'ascending'}; indices within each group.""", t, rows, lb0=w, descending=descending or None,
                source="reference-generator"))
    cases.append(tsort_case("padding-never-read", """A 2 x 5 FP32 source in 8 columns whose padding is defined
        and holds -inf, -0 and a NaN (which would sort into a whole physical row): only the valid region is
        sorted, in one group per row.""", "FP32", [spread("FP32", 5, 41), spread("FP32", 5, 43)],
        source_extra={"elements": {"0,5": 0xFF800000, "0,6": 0x80000000, "1,7": 0x7FC00000, "1,5": 0xFF800000},
                      "defined": "all"}, source="reference-generator"))
    cases.append(tsort_case("width-5-direct", "Width 5 through a direct call, descending.", "FP32",
                            [spread("FP32", 23, 3)], direct=True, sort_width=5, descending=True,
                            source="reference-generator"))
    cases.append(tsort_case("default-width-direct", "A direct call without sort_width sorts in groups of 32.",
                            "FP32", [spread("FP32", 40, 5)], direct=True, source="reference-generator"))
    return cases


def tsort_carriers():
    upper = 0xABCD000000000000
    consistent = [[upper | 0x40000000, 0x3F800000, 0xFFFF000000000000, upper | 0xBF800000, 0x80000000, 0x7FC00000]]
    clash = [[0xA00000003F800000, 0x3F800000, 0xB00000003F800000, 0x40000000]]
    return [tsort_case("carrier-words-move-whole", """Source Words with carrier bits above the FP32 element
                       (a zero among them): the sort moves whole Words.""", "FP32", consistent,
                       source="reference-generator")] + per_profile(
        tsort_case, "carrier-equal-elements", """Three 1.0 elements with different carrier bits (SPEC-CHOICE 42):
        pto-v0 compares whole Words, so none goes before another and the ASL's 64 bubble passes leave them in
        the order the passes end with; hw-ieee compares element bits and keeps source order.""", "FP32", clash,
        lb0=4, source="reference-generator")


def tsort_status():
    snan = SIGNALING["FP32"][0]
    values, indices, _ = ref.tsort([[snan, 0x3F800000]], "FP32", 32, False, "pto-v0")
    values2, indices2, _ = ref.tsort([[0x40000000, 0x3F800000]], "FP32", 32, False, "pto-v0")
    state = {"tiles": [tile(0, "FP32", 128, 2, (1, 2), [[snan, 0x3F800000]]),
                       tile(2, "FP32", 128, 2, (1, 2), [[0x40000000, 0x3F800000]])]}
    program = tsort_block("FP32", 0) + "\n" + tsort_block("FP32", 2)
    expect = engine.success_expect(ref.NV, [0, 1, 2, 3, 16, 17], [0, 2], [
        result(1, "FP32", 128, 2, (1, 2), values), result(16, "U32", 128, 2, (1, 2), indices),
        result(3, "FP32", 128, 2, (1, 2), values2), result(17, "U32", 128, 2, (1, 2), indices2)])
    alone = engine.success_expect(0, [0, 1, 2, 16], [0, 2], [
        result(1, "FP32", 128, 2, (1, 2), values2), result(16, "U32", 128, 2, (1, 2), indices2)])
    return [
        tsort_case("status-twin", "The status case below without its initial status: nothing raised.", "FP32",
                   [[0x40000000, 0x3F800000]], source="reference-generator"),
        tsort_case("status-survives", "A sort raising nothing keeps the nonzero initial status 0x1F.", "FP32",
                   [[0x40000000, 0x3F800000]], status=0x1F, source="reference-generator"),
        case("second-block-alone", """The second block of the case below on its own, from the same state: it
             raises nothing.""", BOTH, "reference-generator", "", state, tsort_block("FP32", 2), alone),
        case("status-accumulates-across-blocks", """Two TSORT blocks: the first sorts a signaling NaN (NV), the
             second raises nothing; NV must survive the second block.""", BOTH, "reference-generator", "", state,
             program, expect),
    ]


def tsort_size_bound():
    rows = [spread("FP32", 64, 100 + r) for r in range(256)]
    return [tsort_case("size-bound-64k", """An FP32 source of 256 x 64 (64 KiB, the largest TSize) with a 64 KiB
                       value and a 64 KiB index destination (192 KiB of the 256 KiB tile capacity), groups of
                       64, every tile on one PE. hw-ieee only: the spec's interpreter would take too long over
                       16384 elements.""", "FP32", rows, lb0=64, profiles=["hw-ieee"], source="reference-generator",
                       mask="0001", src_mask="0001")]


def tsort_legality():
    src = [tile(0, "FP32", 128, 2, (1, 2), [[0x40000000, 0x3F800000]])]
    undefined = [tile(0, "FP32", 128, 2, (1, 2), defined="none")]
    one_binding = engine.bundle_text(bstart("TSORT", "FP32"), bindings=[iot_line([0], 1)])
    three = engine.bundle_text(bstart("TSORT", "FP32"), bindings=[iot_line([0], 1, last=False),
                                                                    iot_line([], 1, last=False, hand="U"),
                                                                    iot_line([], 1, hand="U")])
    mixed_masks = engine.bundle_text(bstart("TSORT", "FP32"), bindings=[iot_line([0], 1, mask="0001", last=False),
                                                                          iot_line([], 1, mask="0010", hand="U")])
    return [
        fault("lb0-65", "LB0=65: the sort width is at most 64 (Fault_TileLegality).", src, tsort_block("FP32", lb0=65)),
        tsort_case("lb0-64", "LB0=64 is legal.", "FP32", [[0x40000000, 0x3F800000]], lb0=64,
                   source="reference-generator"),
        fault("lb1-present", "B.DIM LB1: TSORT takes no LB1.", src, tsort_block("FP32", extra={"LB1": 1})),
        fault("lb2-present", "B.DIM LB2: TSORT takes no LB2.", src, tsort_block("FP32", extra={"LB2": 2})),
        fault("datr-nonzero", """B.DATR Null (PadValue code 3): every B.DATR field must be zero
              (Fault_TileLegality).""", src, tsort_block("FP32", datr="B.DATR Null")),
        tsort_case("datr-all-zero", "B.DATR Zero (every field 0) is legal.", "FP32", [[0x40000000, 0x3F800000]],
                   bstart_line=bstart("TSORT", "FP32") + "\nB.DATR Zero", source="reference-generator"),
        fault("direction-2", "B.IOR R5 holding 2: the direction is 0 or 1 (Fault_TileLegality).", src,
              tsort_block("FP32", gpr=DESCENDING_GPR), gprs={DESCENDING_GPR: 2}),
        fault("one-destination", "One destination binding: TSORT needs two (Fault_BundleControl).", src, one_binding,
              "Fault_BundleControl"),
        fault("three-destinations", "Three destination bindings (Fault_BundleControl).", src, three,
              "Fault_BundleControl"),
        fault("one-destination-before-bf16", """One destination and a BF16 BSTART: the binding count is checked
              first (Fault_BundleControl).""", [tile(0, "BF16", 128, 2, (1, 2), [[0x3F80, 0x4000]])],
              engine.bundle_text(bstart("TSORT", "BF16"), bindings=[iot_line([0], 1)]), "Fault_BundleControl"),
        fault("masks-differ", "Bindings with different PE masks: Fault_TileLegality.", src, mixed_masks),
        fault("source-undefined", "An undefined source: Fault_TileLegality.", undefined, tsort_block("FP32")),
        fault("source-type-differs", "An FP16 source in an FP32 block: Fault_TileLegality.",
              [tile(0, "FP16", 128, 2, (1, 2), [[0x4000, 0x3C00]])], tsort_block("FP32")),
        fault("source-column-major", "A ColumnMajor source: Fault_TileLegality.",
              [tile(0, "FP32", 128, 2, (1, 2), [[0x40000000, 0x3F800000]], layout="ColumnMajor")],
              tsort_block("FP32")),
        with_capacity(fault("capacity-exceeded", """A tile capacity of 256 B, a 128 B source and bindings on one
              PE: the two 128 B destinations do not fit together, though each alone would
              (Fault_TileAllocation).""", [one_pe(src[0])], tsort_block("FP32", mask="0001"),
              "Fault_TileAllocation"), 256),
        with_capacity(fault("allocation-before-index-shape", """A 256 B tile capacity and an FP16 sort on one PE
              whose 128 B index destination has the wrong rows: the allocation fault comes first.""",
              [one_pe(tile(0, "FP16", 128, 4, (1, 4), [[0x3C00, 0x4000, 0x3800, 0]]))],
              tsort_block("FP16", index_size=1, mask="0001"), "Fault_TileAllocation"), 256),
        fault("direct-alias", "A direct call whose two destinations are one tile: Fault_TileLegality.",
              [tile(1, "U32", 128, 2, (1, 2)), tile(0, "FP32", 128, 2, (1, 2), [[0x40000000, 0x3F800000]])],
              engine.direct_call("TSORT", 1, [0], dst1=1)),
        fault("direct-value-type", "A direct call with an FP16 value destination for an FP32 source.",
              [tile(1, "FP16", 128, 2, (1, 2)), tile(2, "U32", 128, 2, (1, 2)),
               tile(0, "FP32", 128, 2, (1, 2), [[0x40000000, 0x3F800000]])],
              engine.direct_call("TSORT", 1, [0], dst1=2)),
    ]


def tmrgsort_values():
    cases = []
    for t in TYPES:
        words = [w for _, w in SPECIALS[t]]
        for descending in (False, True):
            way = "descending" if descending else "ascending"
            left = sorted_stream(t, words[::2] + [ONE[t], 0], descending)
            right = sorted_stream(t, words[1::2] + [ONE[t], 0x8000 if t == "FP16" else 0x80000000], descending)
            cases.append(tmrgsort_case(f"classes-{t.lower()}-{way}", f"""Every non-signaling {t} value class split
                into two sorted streams with equal keys in both (1.0, +-0, quiet NaNs): the merge takes the left
                one first, NaNs last, {way}.""", t, left, right, descending=descending or None,
                source="reference-generator"))
        snan = SIGNALING[t]
        cases.append(tmrgsort_case(f"signaling-{t.lower()}", f"""{t} signaling NaNs in both streams: merged after
            the numbers, left ones first, NV recorded.""", t, [0, ONE[t], snan[0]], [ONE[t], snan[1], SPECIALS[t][13][1]],
            source="reference-generator"))
    left = sorted_stream("FP32", spread("FP32", 37, 21), False)
    right = sorted_stream("FP32", spread("FP32", 91, 23), False)
    cases.append(tmrgsort_case("lengths-37-91", "Streams of 37 and 91 with repeats: 128 columns merged.", "FP32",
                               left, right, source="reference-generator"))
    cases.append(tmrgsort_case("lengths-1-63-descending", "Streams of 1 and 63, descending.", "FP16",
                               [0x3C00], sorted_stream("FP16", spread("FP16", 63, 29), True), descending=True,
                               source="reference-generator"))
    cases.append(tmrgsort_case("same-source-twice", "The same tile as both sources: every element twice.",
                               "FP32", [0x3F800000, 0x40000000], [0x3F800000, 0x40000000], srcs=(0, 0),
                               source="reference-generator"))
    return cases


def tmrgsort_carriers():
    return [tmrgsort_case("carrier-words-move-whole", "Carrier bits above the FP32 elements travel with them.",
                          "FP32", [0xAB00000000000000 | 0x3F800000, 0x40000000], [0xCD00000000000000, 0x40400000],
                          source="reference-generator")] + per_profile(
        tmrgsort_case, "carrier-equal-elements", """A left 1.0 and a right 1.0 with different carrier bits
        (SPEC-CHOICE 42): pto-v0's whole-Word comparison puts the right one first; hw-ieee compares element bits
        and takes the left one first.""", "FP32", [0xA00000003F800000], [0x3F800000],
        source="reference-generator") + [
        fault("carrier-equal-elements-unsorted", """One source holding 1.0 twice with different carrier bits side by
              side: TileSortSequenceOrdered compares whole Words, so the source is not sorted (both profiles).""",
              [stream_tile(0, "FP32", [0xA00000003F800000, 0x3F800000]), stream_tile(1, "FP32", [0x40000000])],
              merge_block("FP32"))]


def tmrgsort_status():
    state = {"tiles": [stream_tile(0, "FP32", [0x7F800001]), stream_tile(1, "FP32", [0x3F800000]),
                       stream_tile(2, "FP32", [0x3F800000]), stream_tile(4, "FP32", [0x40000000])]}
    program = merge_block("FP32", (0, 1)) + "\n" + merge_block("FP32", (2, 4))
    first, _ = ref.tmrgsort([0x7F800001], [0x3F800000], "FP32", False, "pto-v0")
    second, _ = ref.tmrgsort([0x3F800000], [0x40000000], "FP32", False, "pto-v0")
    expect = engine.success_expect(ref.NV, [0, 1, 2, 3, 4, 5], [0, 1, 2, 4], [
        result(3, "FP32", 128, 2, (1, 2), [first]), result(5, "FP32", 128, 2, (1, 2), [second])])
    alone = engine.success_expect(0, [0, 1, 2, 3, 4], [0, 1, 2, 4], [result(3, "FP32", 128, 2, (1, 2), [second])])
    return [
        tmrgsort_case("status-twin", "The status case below without its initial status: nothing raised.", "FP32",
                      [0x3F800000], [0x40000000], source="reference-generator"),
        tmrgsort_case("status-survives", "A merge raising nothing keeps the initial status 0x1F.", "FP32",
                      [0x3F800000], [0x40000000], status=0x1F, source="reference-generator"),
        case("second-block-alone", """The second block of the case below on its own, from the same state: it
             raises nothing.""", BOTH, "reference-generator", "", state, merge_block("FP32", (2, 4)), alone),
        case("status-accumulates-across-blocks", """Two TMRGSORT blocks: the first merges a signaling NaN (NV),
             the second raises nothing; NV must survive.""", BOTH, "reference-generator", "", state, program,
             expect),
    ]


def tmrgsort_size_bound():
    half = [0x3C00 + (i >> 6) for i in range(16384)]
    other = [0x3C00 + (i >> 7) for i in range(16384)]
    return [
        tmrgsort_case("size-bound-32768", """Two FP16 streams of 16384 (32 KiB each) into a 1 x 32768 FP16
                      destination (64 KiB), the most columns a merge may have, on one PE. hw-ieee only: the
                      spec's interpreter would take too long.""", "FP16", half, other, profiles=["hw-ieee"],
                      source="reference-generator", mask="0001"),
        fault("columns-32769", """1 x 16384 and 1 x 16385 FP16 streams: 32769 columns are more than the closed
              schema allows: Fault_TileLegality, where the TMRGSORT contract says Fault_TileAllocation
              (SPEC-CHOICE 41).""", [one_pe(stream_tile(0, "FP16", half)),
                                                    one_pe(stream_tile(1, "FP16", other + [0x7C00]))],
              merge_block("FP16", bindings=[iot_line(["T0", "T1"], 10, mask="0001")])),
    ]


def tmrgsort_legality():
    pair = [stream_tile(0, "FP32", [0x3F800000]), stream_tile(1, "FP32", [0x40000000])]
    two_rows = tile(1, "FP32", 128, 2, (2, 1), [[0x3F800000], [0x40000000]])
    return [
        fault("b-dim-present", "Any B.DIM: TMRGSORT takes none (Fault_TileLegality).", pair,
              merge_block("FP32", dims={"LB0": 2})),
        fault("datr-nonzero", "A B.DATR with a nonzero PadValue (Fault_TileLegality).", pair,
              merge_block("FP32", datr="B.DATR Max")),
        fault("direction-2", "B.IOR R5 holding 2 (Fault_TileLegality).", pair, merge_block("FP32", gpr=DESCENDING_GPR),
              gprs={DESCENDING_GPR: 2}),
        fault("one-source", "One source: TMRGSORT needs two (Fault_BundleControl).", pair[:1],
              merge_block("FP32", bindings=[iot_line([0], 1)]), "Fault_BundleControl"),
        fault("two-destinations", "Two destination bindings (Fault_BundleControl).", pair,
              merge_block("FP32", bindings=[iot_line([0, 1], 1, last=False), iot_line([], 1, hand="U")]),
              "Fault_BundleControl"),
        fault("two-row-source", "A two-row right source (Fault_TileLegality).", [pair[0], two_rows],
              merge_block("FP32")),
        fault("source-undefined", "An undefined right source (Fault_TileLegality).",
              [pair[0], tile(1, "FP32", 128, 2, (1, 1), defined="none")], merge_block("FP32")),
        fault("tsize-too-small", "A 128 B destination for 40 FP32 columns (Fault_TileAllocation).",
              [stream_tile(0, "FP32", list(range(0x3F800000, 0x3F800000 + 20))),
               stream_tile(1, "FP32", list(range(0x3F800000, 0x3F800000 + 20)))], merge_block("FP32"),
              "Fault_TileAllocation"),
        fault("direct-alias", "A direct call writing its left source (Fault_TileLegality).", pair,
              engine.direct_call("TMRGSORT", 0, [0, 1])),
        fault("direct-destination-columns", "A direct call into a 1x4 destination for 1 + 1 columns.",
              pair + [tile(2, "FP32", 128, 4, (1, 4))], engine.direct_call("TMRGSORT", 2, [0, 1])),
    ]


def x_file(op: str) -> dict:
    if op == "TSORT":
        cases = (tsort_values("FP32") + tsort_values("FP16") + tsort_widths() + tsort_carriers() + tsort_status()
                 + tsort_size_bound() + tsort_legality())
    else:
        cases = tmrgsort_values() + tmrgsort_carriers() + tmrgsort_status() + tmrgsort_size_bound() + \
            tmrgsort_legality()
    return {"format": "pto-avs-vector/1", "id": f"PTO-AVS-X-{op}-REF-001", "operation": op, "kind": "execution",
            "summary": f"{op} over both legal types x every value class, directions, ties, carriers and legality",
            "exercises": Flow(UNITS[op]["readiness_subjects"]),
            "provenance": ("Expected values from the independent reference vectors/reference/sorting.py (the ASL's "
                           "TileSortLeftBefore, TSORT's 64 bubble passes and TMRGSORT's merge, one comparison at a "
                           f"time; no code shared with device_model), written by `{COMMAND}`. Nothing here was "
                           "produced by running the golden model."),
            "cases": referenced(cases, REFERENCE)}


# ---------------------------------------------------------------------------------------
# Files

PROVENANCE = engine.spec_provenance("vectors/reference/sorting.py", COMMAND)


def files(operations) -> dict:
    return engine.spec_id_files(operations, spec_cases, x_file, PROVENANCE, "generate_sorting.py")


FAMILY = engine.Family("generate_sorting", OPERATIONS, files,
                       owns=tuple(f"PTO-AVS-{kind}-{op}-*.yaml" for op in OPERATIONS for kind in ("TILE", "X")))

if __name__ == "__main__":  # the command the files' provenance names: the engine's, for these operations
    sys.exit(engine.legacy_main([FAMILY]))
