"""Vector generator for the generation group of issue 25: TCI, TTRI, THISTOGRAM, TDEQUANT,
TGATHER and TSCATTER (the spec-ID files of their 31 test points and one reference file each).

Only what differs for the group lives here (case builders and tables); the engine
(``engine.py``) holds the rest. Expected values come from the spec tests' assertions and
from the element reference ``generation.py``; nothing runs the golden model.

    .venv/bin/python -m pto_avs.vectors.reference generate TCI TTRI THISTOGRAM TDEQUANT TGATHER TSCATTER
"""
from __future__ import annotations

import copy
import sys

from . import engine, numeric
from . import generation as ref
from .engine import Flow, Hex, OPERATION_TABLE, UNITS, bstart_word, iot_line, spec_ref, width

COMMAND = ".venv/bin/python -m pto_avs.vectors.reference.generate_generation"
BOTH = ["pto-v0", "hw-ieee"]
OPERATIONS = ("TCI", "TTRI", "THISTOGRAM", "TDEQUANT", "TGATHER", "TSCATTER")
WORD = (1 << 64) - 1
ROUNDING_MODES = ("NONE", "RNE", "RTZ", "RDN", "RUP", "RNA", "RTO", "RHB")
REFERENCE_MODE = {"RDN": "RTM", "RUP": "RTP"}
STATUS = 0x0A  # an initial NumericStatus (DZ|UF) that no operation here raises: it must survive


# ---------------------------------------------------------------------------------------
# Shared builders

# The ASL a hand-derived case of each operation follows (its reference when no spec test states it).
ASL = {"TCI": "asl/tile/model/execution/generation.asl TCI; generation-schema.asl; scalar-schema.asl flag0",
       "TTRI": "asl/tile/model/execution/generation.asl TTRI; generation-schema.asl; scalar-schema.asl diagonal, flag0",
       "THISTOGRAM": "asl/tile/model/execution/complex.asl THISTOGRAM; legality/indexed-layout.asl; "
                     "histogram-schema.asl",
       "TDEQUANT": "asl/arch/profile/reference-quantization.asl TileProfileDequantize; operand-schema.asl "
                   "TileOperandsLegal_TDEQUANT; quantization-schema.asl; scalar-schema.asl",
       "TGATHER": "asl/tile/model/execution/indexed-rearrangement.asl TGATHER; legality/indexed-rearrangement.asl",
       "TSCATTER": "asl/tile/model/execution/indexed-rearrangement.asl TSCATTER; legality/indexed-rearrangement.asl"}


def reference_of(program, reference: str) -> str:
    """``reference``, or the ASL of the operation the program's first block opens."""
    if reference:
        return reference
    text = program if isinstance(program, str) else " ".join(str(item) for item in program)
    op = next((op for op in ASL if f" {op}," in text), None)
    return f"vectors/reference/generation.py from {ASL[op]}" if op else "vectors/reference/generation.py"

def geometry(t: str, valid, cols=None) -> tuple:
    """(cols, capacity, rows) of the smallest legal RowMajor tile of ``t`` holding ``valid``."""
    return engine.smallest_tile(t, valid, cols)


def state_tile(index, t, valid, data=None, *, cols=None, capacity=None, layout=None, defined=None):
    c, cap, _ = engine.smallest_tile(t, valid, cols, capacity)
    return engine.tile(index, t, cap, c, list(valid), data, layout, defined)


def result(index, t, valid, rows_of_words, *, cols=None, capacity=None, pad="Null"):
    c, cap, _ = engine.smallest_tile(t, valid, cols, capacity)
    return engine.result_tile(index, t, cap, c, list(valid), rows_of_words, pad)


def run_case(name, description, tiles, program, results, *, flags=0, status=0, gprs=None, profiles=BOTH,
             source="hand", reference=""):
    state = {"tiles": tiles}
    if status:
        state["status"] = Hex(status)
    if gprs:
        state["gprs"] = engine.gpr_map(gprs)
    inputs = sorted(t["index"] for t in tiles)
    allocated = sorted(set(inputs) | {r["index"] for r in results})
    expect = engine.success_expect(flags | status, allocated, inputs, results)
    return engine.case(name, description, list(profiles), source, reference_of(program, reference), state, program,
                       expect)


def fault(name, description, tiles, program, fault_class="Fault_TileLegality", *, gprs=None, status=0,
          profiles=BOTH, source="hand", reference=""):
    return engine.fault_case(name, description, tiles, program, fault_class, source=source,
                             reference=reference_of(program, reference),
                             profiles=profiles, gprs=gprs, status=status)


def noop(name, description, tiles, program, *, gprs=None, status=STATUS, reference=""):
    """PE mask 0000: the block completes as a strict no-op."""
    state = {"tiles": tiles, "status": Hex(status)}
    if gprs:
        state["gprs"] = engine.gpr_map(gprs)
    expect = {"fault": None, "flags": Hex(status), "allocated": Flow(sorted(t["index"] for t in tiles)),
              "unchanged": "all"}
    return engine.case(name, description, BOTH, "hand", reference_of(program, reference), state, program, expect)


def block(op, t, *, datr=None, dims=None, operands=(), size=1, mask="1111", gpr=None, bstart=None):
    lines = [bstart or f"BSTART.SFU {op}, {t}"]
    if datr:
        lines.append(datr)
    for name, value in (dims or {}).items():
        if value is not None:
            lines.append(f"B.DIM {name}={value}")
    if gpr is not None:
        lines.append(gpr if gpr.startswith("B.IOR") else f"B.IOR {gpr}")
    lines.append(iot_line(list(operands), size, mask))
    lines.append("BSTOP")
    return "\n".join(lines)


def dims(valid, cols=None):
    """LB0 = valid columns, LB1 = valid rows (left out when 1), LB2 = columns (left out when equal)."""
    return {"LB0": valid[1], "LB1": valid[0] if valid[0] != 1 else None,
            "LB2": cols if cols and cols != valid[1] else None}


def static_cases(op, test_id, make):
    """The static point: the operation's BSTART.SFU form, its BSTART.TEPL Mode/Function form
    and the raw word, each running the same block. ``make(bstart)`` -> a case without name."""
    spec = OPERATION_TABLE[op]
    what = (f"DecodeTileOperation(TEPL, {spec['selector']}) selects {op}, handler {spec['semantic_handler']}, "
            f"engine {spec['engine']}")
    reference = spec_ref(test_id, what)
    cases = []
    for label, bstart, text in make_bstarts(op, make.example_type):
        case = make(bstart, label, text)
        case["source"], case["reference"] = "spec-test", reference
        cases.append(case)
    return cases


def make_bstarts(op, t):
    spec = OPERATION_TABLE[op]
    word = bstart_word(op, t)
    return [(f"bstart-sfu-{op.lower()}-{t.lower()}", f"BSTART.SFU {op}, {t}",
             f"BSTART.SFU {op}, {t} = {word:#010x} (Mode {spec['mode']}, Function {spec['function']}: selector "
             f"{spec['selector']}) runs {op}."),
            ("bstart-tepl-mode-function", f"BSTART.TEPL {spec['mode']}, {spec['function']}, {t}",
             f"BSTART.TEPL {spec['mode']}, {spec['function']}, {t}: the same word, the same block."),
            ("raw-bstart-word", Hex(word),
             f"The BSTART as the raw word {word:#010x} packed by hand from command form 33 (match 0x00019181, "
             f"DataType 31:27, Mode 26:25, Function 24:20).")]


def with_bstart(program: str, bstart):
    """``program`` with its first line replaced: assembly text, or a raw word (a flow list)."""
    lines = program.splitlines()
    if isinstance(bstart, Hex):
        return Flow([bstart] + lines[1:])
    return "\n".join([bstart] + lines[1:])


# ---------------------------------------------------------------------------------------
# TCI

def tci_case(name, description, t, start, count, descending, *, cols=None, explicit=True, gprs_extra=None,
             status=0, source="hand", reference="", bstart=None, size=None):
    cols = cols or engine.pow2_at_least(count)
    _, capacity, _ = geometry(t, (1, count), cols)
    gprs = {5: start & WORD, 6: int(descending)} if explicit else None
    program = block("TCI", t, dims=dims((1, count), cols), gpr="R5, R6" if explicit else None,
                    size=size or engine.size_code(capacity))
    if bstart is not None:
        program = with_bstart(program, bstart)
    row = ref.tci(t, start, count, descending)
    return run_case(name, description, [], program, [result(0, t, (1, count), [row], cols=cols)], status=status,
                    gprs=gprs, source=source, reference=reference)


def tci_spec(test_id):
    point = engine.spec_point("TCI", test_id)
    if point == "STATIC":
        def make(bstart, label, text):
            return tci_case(label, text, "U16", 0, 2, False, explicit=False, bstart=bstart)
        make.example_type = "U16"
        return static_cases("TCI", test_id, make)
    if point == "BUNDLE":
        reference = spec_ref(test_id, "LB0=2, no B.IOR: U16 [0, 1] in one row, padding undefined")
        return [tci_case("default-start-ascending", """No B.IOR: start 0 ascending; one U16 row [0, 1] of two
            valid columns, every other coordinate undefined.""", "U16", 0, 2, False, explicit=False, cols=2,
                         source="spec-test", reference=reference)]
    if point == "WRAP":
        reference = spec_ref(test_id, "TCI(Ones, ascending) = [0xffff, 0]; descending = [0xffff, 0xfffe]")
        return [tci_case(f"all-ones-start-{d}", f"""Start Word all ones, {d}: the U16 sequence wraps modulo 2**16
            ({'0xffff, 0xfffe' if desc else '0xffff, 0'}); the bits above the element are ignored.""", "U16", WORD,
                         2, desc, cols=2, source="spec-test", reference=reference)
                for d, desc in (("ascending", False), ("descending", True))]
    if point == "DIRECTION":
        reference = spec_ref(test_id, "direction GPR 2 -> Fault_TileLegality, no destination allocated")
        return [fault("direction-two", """B.IOR R0, R2 with R2 = 2: the direction is neither 0 nor 1, rejected
            before allocation.""", [], block("TCI", "U16", dims={"LB0": 2}, gpr="R0, R2"), gprs={2: 2},
                      source="spec-test", reference=reference)]
    # SHAPE: TileOperandsLegal_TCI on a 1-row RowMajor U16 tile (legal), 2 valid rows, U8, ColumnMajor
    reference = spec_ref(test_id, "TileOperandsLegal_TCI: U16 RowMajor 1x2 legal; 2 rows, U8, ColumnMajor illegal")
    return [
        tci_case("one-row-u16-legal", """A one-row RowMajor U16 destination of two valid columns in 128 B is
            legal.""", "U16", 0, 2, False, cols=2, source="spec-test", reference=reference),
        fault("two-valid-rows", "LB1=2: TCI's destination has exactly one valid row (the closed schema).", [],
              block("TCI", "U16", dims={"LB0": 2, "LB1": 2}), source="spec-test", reference=reference),
        fault("u8-destination", "BSTART TCI, U8: U8 is not a TCI type.", [],
              block("TCI", "U8", dims={"LB0": 2}), source="spec-test", reference=reference),
        fault("column-major-destination", """A B.DATR Layout transform to ColumnMajor: TCI allows no nonzero
            B.DATR field (its destination is RowMajor).""", [],
              block("TCI", "U16", dims={"LB0": 2}, datr="B.DATR ND2DN"),
              source="spec-test", reference=reference),
    ]


def tci_x():
    cases = []
    def starts(t):
        return [(0, "zero"), (1, "one"), ((1 << width(t)) - 1, "all-ones"), (1 << (width(t) - 1), "sign-bit"),
                (0xDEADBEEF12345678, "bits-above"), (WORD, "all-ones-word")]
    for t in ref.TCI_TYPES:
        for start, label in starts(t):
            for descending in (False, True):
                d = "descending" if descending else "ascending"
                cases.append(tci_case(f"{t.lower()}-{label}-{d}", f"""{t}, start {start:#x} ({label}), {d} over 37
                    columns in 64: start +- k modulo 2**{width(t)}, start cut to the element first.""", t, start, 37,
                                      descending, cols=64, status=STATUS))
    cases.append(tci_case("u16-4100-columns", """A U16 row of 4100 columns from 0xfffe ascending: index 0 and 4096
        hold different values (0xfffe, 0x0ffe) and the sequence wraps at column 2.""", "U16", 0xFFFE, 4100, False,
                          cols=8192))
    cases.append(tci_case("s32-explicit-zero-ior", """B.IOR R0, R0 (both selectors read GPR0): start 0 ascending,
        the same operands as an omitted B.IOR.""", "S32", 0, 5, False, cols=8, explicit=False))
    cases[-1]["program"] = engine.Block(block("TCI", "S32", dims={"LB0": 5, "LB2": 8}, gpr="R0, R0"))
    one = {"LB0": 4}
    cases += [
        fault("direction-bit-32", """Direction Word 0x100000000: BundleOperationGPRBindingValuesLegal compares the
            whole Word with 0 and 1.""", [], block("TCI", "U32", dims=one, gpr="R5, R6"),
              gprs={5: 7, 6: 1 << 32}, status=STATUS),
        fault("direction-all-ones", "Direction Word all ones is not 1.", [], block("TCI", "S16", dims=one,
              gpr="R5, R6"), gprs={5: 7, 6: WORD}),
        fault("lb2-below-lb0", "LB2=2 < LB0=4: the generation schema needs Col >= ValidCol.", [],
              block("TCI", "U16", dims={"LB0": 4, "LB2": 2})),
        fault("no-lb0", "No B.DIM LB0: ValidCol is required.", [], block("TCI", "U16", dims={})),
        fault("fp32-type", "BSTART TCI, FP32: not a TCI type.", [], block("TCI", "FP32", dims=one)),
        fault("datr-present", """SPEC-CHOICE 43: a present all-zero B.DATR (B.DATR Zero: PadValue code 0) encodes DataType 0, FP64,
            which becomes the destination's type, so TileOperandsLegal_TCI rejects it.""", [],
              block("TCI", "U32", dims=one, datr="B.DATR Zero", size=1)),
        fault("source-binding", """A source tile in the B.IOT: TCI binds no source (binding completeness,
            Fault_BundleControl).""", [state_tile(0, "U16", (1, 4), [[1, 2, 3, 4]])],
              block("TCI", "U16", dims=one, operands=[0]), "Fault_BundleControl"),
        fault("ior-regsrc2", "B.IOR R5, R6, R7: TCI consumes two B.IOR inputs; a third selector is surplus.", [],
              block("TCI", "U16", dims=one, gpr="R5, R6, R7"), "Fault_BundleControl", gprs={5: 1, 6: 0, 7: 1}),
        fault("capacity-too-small", "LB0=128 U32 in a 128-byte TSize: allocation fails.", [],
              block("TCI", "U32", dims={"LB0": 128}, size=1), "Fault_TileAllocation"),
        noop("mask-zero", "PE mask 0000 with an illegal direction: a strict no-op before the GPR check.", [],
             block("TCI", "U16", dims=one, gpr="R5, R6", mask="0000"), gprs={5: 1, 6: 5}),
    ]
    return cases


# ---------------------------------------------------------------------------------------
# TTRI

def ttri_case(name, description, t, valid, cols, upper, diagonal, *, explicit=True, status=0, source="hand",
              reference="", bstart=None):
    _, capacity, _ = geometry(t, valid, cols)
    gprs = {5: diagonal & WORD, 6: int(upper)} if explicit else None
    program = block("TTRI", t, dims=dims(valid, cols), gpr="R5, R6" if explicit else None,
                    size=engine.size_code(capacity))
    if bstart is not None:
        program = with_bstart(program, bstart)
    grid = ref.ttri(t, valid[0], valid[1], upper, diagonal)
    return run_case(name, description, [], program, [result(0, t, valid, grid, cols=cols)], status=status,
                    gprs=gprs, source=source, reference=reference)


def ttri_spec(test_id):
    point = engine.spec_point("TTRI", test_id)
    lower = "lower"
    if point == "STATIC":
        def make(bstart, label, text):
            return ttri_case(label, text, "FP16", (2, 3), 4, False, 0, explicit=False, bstart=bstart)
        make.example_type = "FP16"
        return static_cases("TTRI", test_id, make)
    if point == "BUNDLE":
        reference = spec_ref(test_id, "FP16 LB0=3 LB1=2 LB2=4: [0,0]=0x3c00, [0,1]=0, [1,1]=0x3c00, [0,3] undefined")
        return [ttri_case("fp16-2x3-lower-default", """No B.IOR: diagonal 0, lower; FP16 2x3 in 4 columns, ones
            where c <= r, padding undefined.""", "FP16", (2, 3), 4, False, 0, explicit=False, source="spec-test",
                          reference=reference)]
    if point == "TYPED":
        reference = spec_ref(test_id, "TTRI(lower, 0) FP16: exact 0x3c00 on and below the diagonal, 0 above")
        return [ttri_case("fp16-lower-diagonal-0", "Lower, diagonal 0: FP16's exact one 0x3c00 where c <= r.",
                          "FP16", (2, 3), 4, False, 0, source="spec-test", reference=reference)]
    if point == "EDGE":
        reference = spec_ref(test_id, "diagonal -65535: lower all zero, upper all one")
        return [ttri_case(f"fp16-{o}-diagonal-minus-65535", f"""{o}, diagonal -65535: the signed boundary r - 65535
            never wraps, so lower selects nothing and upper everything.""", "FP16", (2, 3), 4, o == "upper", -65535,
                          source="spec-test", reference=reference) for o in (lower, "upper")]
    if point == "ORIENT":
        reference = spec_ref(test_id, "orientation GPR 2 -> Fault_TileLegality, no destination allocated")
        return [fault("orientation-two", """B.IOR R0, R2 with R2 = 2: the orientation is neither 0 nor 1, rejected
            before allocation.""", [], block("TTRI", "FP16", dims={"LB0": 3, "LB1": 2, "LB2": 4}, gpr="R0, R2"),
                      gprs={2: 2}, source="spec-test", reference=reference)]
    reference = spec_ref(test_id, "TileOperandsLegal_TTRI: FP16 RowMajor 2x3 legal; U8, ColumnMajor illegal")
    return [
        ttri_case("fp16-2x3-legal", "An FP16 RowMajor 2x3 destination in 4 columns is legal.", "FP16", (2, 3), 4,
                  False, 0, source="spec-test", reference=reference),
        fault("u8-destination", "BSTART TTRI, U8: U8 is not a TTRI type.", [],
              block("TTRI", "U8", dims={"LB0": 3, "LB1": 2, "LB2": 4}), source="spec-test", reference=reference),
        fault("column-major-destination", "A B.DATR Layout transform to ColumnMajor: no B.DATR field applies.", [],
              block("TTRI", "FP16", dims={"LB0": 3, "LB1": 2, "LB2": 4}, datr="B.DATR ND2DN"),
              source="spec-test", reference=reference),
    ]


def ttri_x():
    cases = []
    valid, cols = (5, 7), 8
    for t in ref.TTRI_TYPES:
        for upper in (False, True):
            o = "upper" if upper else "lower"
            for diagonal in (0, 1, -1, 4, -6, 65535, -65535):
                cases.append(ttri_case(f"{t.lower()}-{o}-diagonal-{diagonal}".replace("--", "-minus-"),
                                       f"""{t} {o}, diagonal {diagonal}, 5x7 in 8 columns: the type's one where
                                       {'c >= r + d' if upper else 'c <= r + d'}, zero elsewhere, padding
                                       undefined.""", t, valid, cols, upper, diagonal, status=STATUS))
    cases.append(ttri_case("u16-70x64-upper-diagonal-minus-3", """A 70x64 U16 triangle (4480 elements): index 0
        and index 4096 (row 64, column 0) differ.""", "U16", (70, 64), 64, True, -3))
    shape = {"LB0": 3, "LB1": 2, "LB2": 4}
    cases += [
        fault("diagonal-65536", "Diagonal 65536: outside -65535..65535.", [], block("TTRI", "FP32", dims=shape,
              gpr="R5, R6"), gprs={5: 65536, 6: 0}, status=STATUS),
        fault("diagonal-minus-65536", "Diagonal -65536 (a signed Word): outside the range.", [],
              block("TTRI", "S16", dims=shape, gpr="R5, R6"), gprs={5: -65536 & WORD, 6: 1}),
        fault("diagonal-bit-32", """Diagonal Word 0x100000000: SInt of the whole Word, not of its low bits, is
            range-checked.""", [], block("TTRI", "U32", dims=shape, gpr="R5, R6"), gprs={5: 1 << 32, 6: 0}),
        fault("orientation-all-ones", "Orientation Word all ones is not 1.", [],
              block("TTRI", "U16", dims=shape, gpr="R5, R6"), gprs={5: 0, 6: WORD}),
        fault("lb1-zero", "LB1=0: ValidRow must be nonzero.", [], block("TTRI", "FP16", dims={"LB0": 3, "LB1": 0})),
        fault("bf16-type", "BSTART TTRI, BF16: BF16 has a one encoding but is not a TTRI type.", [],
              block("TTRI", "BF16", dims=shape)),
        fault("datr-present", """SPEC-CHOICE 43: a present all-zero B.DATR (B.DATR Zero) encodes DataType 0, FP64: the
            destination becomes FP64 and TileOperandsLegal_TTRI rejects it.""", [],
              block("TTRI", "FP32", dims=shape, datr="B.DATR Zero")),
        fault("capacity-too-small", "FP32 2x64 in 128 bytes: allocation fails.", [],
              block("TTRI", "FP32", dims={"LB0": 64, "LB1": 2}, size=1), "Fault_TileAllocation"),
        noop("mask-zero", "PE mask 0000 with an illegal diagonal: a strict no-op.", [],
             block("TTRI", "FP16", dims=shape, gpr="R5, R6", mask="0000"), gprs={5: 1 << 40, 6: 0}),
    ]
    return cases


# ---------------------------------------------------------------------------------------
# THISTOGRAM

def filter_tile(index, column, *, rows=None, cols=None, layout=None, defined=None):
    """A U8 filter whose logical [r, 0] holds ``column`` (valid len(column) x 1 unless ``rows``/``cols``)."""
    valid = (rows or len(column), cols or 1)
    data = [[column[r] if r < len(column) else 0] + [0] * (valid[1] - 1) for r in range(valid[0])]
    return state_tile(index, "U8", valid, data, layout=layout, defined=defined)


def histogram_case(name, description, t, rows, column, byte_id, *, filter_spec=None, status=0, source="hand",
                   reference="", bstart=None, src=0, flt=1):
    valid = (len(rows), len(rows[0]))
    tiles = [state_tile(src, t, valid, rows), filter_spec or filter_tile(flt, column or [0])]
    dst = engine.first_free([src, flt])
    _, capacity, _ = geometry("U32", (valid[0], 256), 256)
    program = block("THISTOGRAM", t, datr=f"B.DATR U32, PadValue={byte_id}", operands=[src, flt],
                    size=engine.size_code(capacity))
    if bstart is not None:
        program = with_bstart(program, bstart)
    counts = ref.histogram(t, rows, column or [0], byte_id)
    return run_case(name, description, tiles, program, [result(dst, "U32", (valid[0], 256), counts, cols=256)],
                    status=status, source=source, reference=reference)


def histogram_spec(test_id):
    point = engine.spec_point("THISTOGRAM", test_id)
    if point == "STATIC":
        def make(bstart, label, text):
            return histogram_case(label, text, "U16", [[0x0100, 0x0200]], [0], 1, bstart=bstart)
        make.example_type = "U16"
        return static_cases("THISTOGRAM", test_id, make)
    if point == "BUNDLE":
        reference = spec_ref(test_id, "U16 [0x0100, 0x0200], ByteId 1: destination U32 1x256, bin1=1, bin2=2")
        return [histogram_case("u16-high-byte-unfiltered", """U16 source [0x0100, 0x0200], B.DATR U32 with ByteId 1:
            the high bytes 1 and 2 counted, inclusive prefix bin1=1, bin2=2.""", "U16", [[0x0100, 0x0200]], [0], 1,
                               source="spec-test", reference=reference)]
    if point == "PREFIX":
        reference = spec_ref(test_id, "ByteId 1 over [0x0100,0x0200,0x0201,0xff00]: bins 0,1,2,254,255 = 0,1,3,3,4")
        return [histogram_case("u16-inclusive-prefix", """The inclusive prefix over the high bytes 1, 2, 2, 0xff:
            bin0=0, bin1=1, bin2..254=3, bin255=4.""", "U16", [[0x0100, 0x0200, 0x0201, 0xFF00]], [0], 1,
                               source="spec-test", reference=reference)]
    if point == "U16-FILTER":
        reference = spec_ref(test_id, "ByteId 0, filter rows 0xaa/0xbb: row0 counts 0xaa01 only, row1 0xbb03 only")
        return [histogram_case("u16-row-filter", """ByteId 0: row r counts the low byte of the elements whose high
            byte equals filter[r, 0] (0xaa, 0xbb).""", "U16", [[0xAA01, 0xBB02], [0xBB03, 0xAA04]], [0xAA, 0xBB], 0,
                               source="spec-test", reference=reference)]
    if point == "U32-PREFIX":
        reference = spec_ref(test_id, "ByteId 0, ColumnMajor filter aa/bb/cc: counts 0xaabbcc01/02 only")
        column = [0xAA, 0xBB, 0xCC]
        flt = state_tile(1, "U8", (3, 1), [[v] for v in column], cols=2, capacity=128, layout="ColumnMajor")
        return [histogram_case("u32-three-byte-prefix-column-major-filter", """ByteId 0: the elements whose three top
            bytes equal the filter's logical [0,0], [1,0], [2,0] (a ColumnMajor filter) count their low byte.""",
                               "U32", [[0xAABBCC01, 0xAABBCC02, 0xAABBDD01, 0x11223301]], column, 0, filter_spec=flt,
                               source="spec-test", reference=reference)]
    reference = spec_ref(test_id, "TileOperandsLegal_THISTOGRAM: U16 ByteId 0 legal, 2 illegal; S8 filter illegal; "
                                  "U32 ByteId 3 legal")
    src = state_tile(0, "U16", (1, 4), [[0, 0, 0, 0]])
    return [
        histogram_case("u16-byte-0-legal", "U16 ByteId 0 with a U8 filter [0]: legal.", "U16", [[0, 0, 0, 0]], [0], 0,
                       source="spec-test", reference=reference),
        fault("u16-byte-2", "U16 ByteId 2: reserved for a U16 source.", [src, filter_tile(1, [0])],
              block("THISTOGRAM", "U16", datr="B.DATR U32, PadValue=2", operands=[0, 1], size=4),
              source="spec-test", reference=reference),
        fault("s8-filter", "An S8 filter: the filter is U8.", [src, state_tile(1, "S8", (1, 1), [[0]])],
              block("THISTOGRAM", "U16", datr="B.DATR U32, PadValue=0", operands=[0, 1], size=4),
              source="spec-test", reference=reference),
        histogram_case("u32-byte-3-legal", "U32 ByteId 3 is unfiltered and legal.", "U32", [[0x01000000, 0xFF000000]],
                       [0], 3, source="spec-test", reference=reference),
    ]


def histogram_x():
    cases = []
    every_high = [[(b << 8) | (b ^ 0x5A) for b in range(256)], [(0xFF << 8) | b for b in range(256)]]
    cases.append(histogram_case("u16-byte-1-every-bin", """ByteId 1 over two rows: row 0 holds every high byte once
        (each bin counts 1, prefix 1..256), row 1 holds 256 elements of high byte 0xff (bin 255 alone: 0..0, 256).""",
                                "U16", every_high, [0], 1, status=STATUS))
    cases.append(histogram_case("u16-byte-0-every-bin", """ByteId 0: row 0 matches filter 0x12 on all 256 low bytes;
        row 1's filter 0x34 matches none but the last column.""", "U16",
                                [[0x1200 | b for b in range(256)], [0x1200 | b for b in range(255)] + [0x34FF]],
                                [0x12, 0x34], 0))
    carriers = [[0xFFFF0000_0000_0000 | (0x7F << 8) | b for b in range(0, 256, 3)]]
    cases.append(histogram_case("u16-carrier-bits-ignored", """U16 Words with bits 63:48 set: only bytes 1 and 0
        count (ByteId 0, filter 0x7f).""", "U16", carriers, [0x7F], 0))
    words = [[(0xAB << 24) | (hi << 16) | (mid << 8) | lo for hi, mid, lo in
              [(0xCD, 0xEF, b) for b in range(0, 256, 5)] + [(0xCD, 0x00, 0xFF), (0x00, 0xEF, 0xFF), (0xCD, 0xEF, 0xFF)]]]
    for byte_id, column in ((0, [0xAB, 0xCD, 0xEF]), (1, [0xAB, 0xCD]), (2, [0xAB]), (3, [])):
        cases.append(histogram_case(f"u32-byte-{byte_id}-prefix-{len(column)}", f"""U32 ByteId {byte_id}: the filter
            prefix of {len(column)} byte(s) {', '.join(f'{v:#x}' for v in column) or '(none)'} selects the elements
            whose top bytes match; byte {byte_id} is counted.""", "U32", words, column or [0], byte_id))
    wide = [[(b & 0xFF) << 24 for b in range(4100)]]
    cases.append(histogram_case("u32-byte-3-4100-columns", """U32 ByteId 3 over one row of 4100 columns (element 4096
        is the top byte 0x00 again): every bin counts 16 or 17.""", "U32", wide, [0], 3))
    cases.append(histogram_case("u16-byte-1-undefined-filter", """U16 ByteId 1 reads no filter data: an undefined
        filter is legal.""", "U16", [[0x0102, 0xFF03]], [0], 1,
                                filter_spec=filter_tile(1, [0], defined="none")))
    src = state_tile(0, "U16", (2, 2), [[0xAA01, 0xBB02], [0xBB03, 0xAA04]])
    src32 = state_tile(0, "U32", (1, 2), [[0xAABBCC01, 0xAABBCC02]])
    datr0 = "B.DATR U32, PadValue=0"
    cases += [
        fault("u16-byte-3", "U16 ByteId 3: reserved.", [src, filter_tile(1, [0xAA, 0xBB])],
              block("THISTOGRAM", "U16", datr="B.DATR U32, PadValue=3", operands=[0, 1], size=5), status=STATUS),
        fault("no-datr", "No B.DATR: it is mandatory (DataType U32, ByteId).", [src, filter_tile(1, [0xAA, 0xBB])],
              block("THISTOGRAM", "U16", operands=[0, 1], size=5)),
        fault("datr-u16", "B.DATR U16: the destination DataType must be U32.", [src, filter_tile(1, [0xAA, 0xBB])],
              block("THISTOGRAM", "U16", datr="B.DATR U16, PadValue=0", operands=[0, 1], size=5)),
        fault("b-dim-present", "A B.DIM LB0: the histogram schema takes none.", [src, filter_tile(1, [0xAA, 0xBB])],
              block("THISTOGRAM", "U16", datr=datr0, dims={"LB0": 256}, operands=[0, 1], size=5)),
        fault("u16-filter-short", "U16 ByteId 0 over two rows with a one-row filter: filter[1, 0] is missing.",
              [src, filter_tile(1, [0xAA])], block("THISTOGRAM", "U16", datr=datr0, operands=[0, 1], size=5)),
        fault("u16-filter-undefined", "U16 ByteId 0 with an undefined filter.",
              [src, filter_tile(1, [0xAA, 0xBB], defined="none")],
              block("THISTOGRAM", "U16", datr=datr0, operands=[0, 1], size=5)),
        fault("u32-prefix-short", "U32 ByteId 0 needs three filter rows; two are given.",
              [src32, filter_tile(1, [0xAA, 0xBB])], block("THISTOGRAM", "U32", datr=datr0, operands=[0, 1], size=4)),
        fault("s16-bstart", "BSTART THISTOGRAM, S16: the source type is U16 or U32.",
              [state_tile(0, "S16", (1, 2), [[1, 2]]), filter_tile(1, [0])],
              block("THISTOGRAM", "S16", datr="B.DATR U32, PadValue=1", operands=[0, 1], size=4)),
        fault("source-undefined", "An undefined source.", [state_tile(0, "U16", (1, 2), [[1, 2]], defined="none"),
                                                          filter_tile(1, [0])],
              block("THISTOGRAM", "U16", datr="B.DATR U32, PadValue=1", operands=[0, 1], size=4)),
        fault("destination-too-small", "TSize 512 B cannot hold 1x256 U32: allocation fails.",
              [state_tile(0, "U16", (1, 2), [[1, 2]]), filter_tile(1, [0])],
              block("THISTOGRAM", "U16", datr="B.DATR U32, PadValue=1", operands=[0, 1], size=3),
              "Fault_TileAllocation"),
        fault("one-source", "A B.IOT without the filter: binding completeness (Fault_BundleControl).",
              [state_tile(0, "U16", (1, 2), [[1, 2]])],
              block("THISTOGRAM", "U16", datr="B.DATR U32, PadValue=1", operands=[0], size=4), "Fault_BundleControl"),
        noop("mask-zero", "PE mask 0000 with no B.DATR: a strict no-op.", [state_tile(0, "U16", (1, 2), [[1, 2]]),
                                                                            filter_tile(1, [0])],
             block("THISTOGRAM", "U16", operands=[0, 1], size=4, mask="0000")),
    ]
    return cases


# ---------------------------------------------------------------------------------------
# TDEQUANT

def dequant_program(t, valid, cols, *, multiplier=None, zero_point=None, mode="NONE", datr=None, size=None,
                    mask="1111", bstart=None):
    _, capacity, _ = geometry("FP32", valid, cols)
    datr = datr or ("B.DATR FP32" if mode == "NONE" else f"B.DATR FP32, {mode}")
    program = block("TDEQUANT", t, datr=datr, dims=dims(valid, cols), operands=[0],
                    gpr="R5, R6" if multiplier is not None else None, size=size or engine.size_code(capacity),
                    mask=mask)
    return with_bstart(program, bstart) if bstart is not None else program


def dequant_case(name, description, t, q_rows, multiplier=None, zero_point=0, mode="NONE", *, status=0,
                 profiles=BOTH, source="hand", reference="", bstart=None, cols=None):
    valid = (len(q_rows), len(q_rows[0]))
    cols = cols or engine.pow2_at_least(valid[1])
    gprs = {5: multiplier, 6: zero_point} if multiplier is not None else None
    m = 0x3F800000 if multiplier is None else multiplier
    outcome = [[ref.dequantize(t, q, m, zero_point, REFERENCE_MODE.get(mode, mode), profiles[0]) for q in row]
               for row in q_rows]
    flags = 0
    for row in outcome:
        for _, f in row:
            flags |= f
    program = dequant_program(t, valid, cols, multiplier=multiplier, mode=mode, bstart=bstart)
    return run_case(name, description, [state_tile(0, t, valid, q_rows, cols=cols)], program,
                    [result(1, "FP32", valid, [[w for w, _ in row] for row in outcome], cols=cols)],
                    flags=flags, status=status, gprs=gprs, profiles=profiles, source=source, reference=reference)


def dequant_spec(test_id):
    point = engine.spec_point("TDEQUANT", test_id)
    if point == "STATIC":
        def make(bstart, label, text):
            return dequant_case(label, text, "S8", [[1, 2]], bstart=bstart)
        make.example_type = "S8"
        return static_cases("TDEQUANT", test_id, make)
    if point in ("AFFINE", "BUNDLE"):
        what = "S8 [1, 2], multiplier 1.0, zero point 0 -> FP32 [0x3f800000, 0x40000000]; the source persists"
        reference = spec_ref(test_id, what)
        cases = [dequant_case("s8-default-ior", """No B.IOR: multiplier 1.0, zero point 0; S8 [1, 2] -> FP32 1.0,
            2.0, the source unchanged.""", "S8", [[1, 2]], source="spec-test", reference=reference)]
        if point == "AFFINE":
            cases.append(dequant_case("s8-explicit-one", "B.IOR multiplier 0x3f800000, zero point 0: the same values.",
                                      "S8", [[1, 2]], 0x3F800000, 0, source="spec-test", reference=reference))
        return cases
    reference = spec_ref(test_id, "TileOperandsLegal_TDEQUANT: S8 -> FP32 legal; FP32 source, U64 destination, "
                                  "zero scale, Sat illegal")
    one = [state_tile(0, "S8", (1, 1), [[1]])]
    return [
        dequant_case("s8-to-fp32-legal", "S8 -> FP32, multiplier 1.0: legal.", "S8", [[1]], 0x3F800000, 0,
                     source="spec-test", reference=reference),
        fault("fp32-source", "An FP32 source (BSTART FP32): the source is S8 or U8.",
              [state_tile(0, "FP32", (1, 1), [[0x3F800000]])],
              dequant_program("FP32", (1, 1), 1, multiplier=0x3F800000), gprs={5: 0x3F800000, 6: 0},
              source="spec-test", reference=reference),
        fault("u64-destination", "B.DATR U64: the destination is FP32.", one,
              dequant_program("S8", (1, 1), 1, datr="B.DATR U64"), source="spec-test", reference=reference),
        fault("zero-scale", "B.IOR multiplier 0: not a positive finite nonzero FP32.", one,
              dequant_program("S8", (1, 1), 1, multiplier=0), gprs={5: 0, 6: 0}, source="spec-test",
              reference=reference),
        fault("sat", "B.DATR Sat=1: Sat does not apply to TDEQUANT.", one,
              dequant_program("S8", (1, 1), 1, datr="B.DATR FP32, Sat=1"), source="spec-test", reference=reference),
    ]


MULTIPLIERS = ((0x3F800000, "one"), (0x3DCCCCCD, "tenth"), (0x3F7FFFFF, "below-one"), (0x7F7FFFFF, "max-finite"),
               (0x00000001, "min-subnormal"), (0x00800000, "min-normal"), (0xFFFFFFFF_40400000, "three-high-bits"))
ROUNDED = ("tenth", "max-finite")  # the multipliers run under every rounding mode


def dequant_x():
    cases = []
    for t in ref.DEQUANT_SOURCES:
        f = numeric.FORMATS[t]
        lo = -(1 << 7) if f.kind == "signed" else 0
        zero_points = [(0, "zp-0"), (lo & WORD, "zp-min"), ((lo + 255) & WORD, "zp-max")]
        for m, m_label in MULTIPLIERS:
            for zp, zp_label in zero_points:
                for mode in (ROUNDING_MODES if m_label in ROUNDED else ("NONE",)):
                    by_flags = {}
                    for q in range(256):
                        key = tuple(ref.dequantize(t, q, m, zp, REFERENCE_MODE.get(mode, mode), p)[1] for p in BOTH)
                        by_flags.setdefault(key, []).append(q)
                    for key, qs in sorted(by_flags.items()):
                        outcome = {p: [ref.dequantize(t, q, m, zp, REFERENCE_MODE.get(mode, mode), p) for q in qs]
                                   for p in BOTH}
                        label = f"{t.lower()}-{m_label}-{zp_label}-{mode.lower()}-flags-{key[0]:#x}"
                        text = f"""{t} q in {len(qs)} values with flags {key[0]:#x} (pto-v0), multiplier {m:#x}
                            ({m_label}), zero point {zp:#x}, RMode {mode}: FP32((q - zp) * m) rounded once."""
                        rows = [qs]
                        if outcome["pto-v0"] == outcome["hw-ieee"]:
                            cases.append(dequant_case(label, text, t, rows, m, zp, mode, status=STATUS))
                        else:
                            for p in BOTH:
                                cases.append(dequant_case(f"{label}-{p}", text + (
                                    " SPEC-CHOICE 46: pto-v0 overflows to infinity under every mode." if p == "pto-v0"
                                    else " hw-ieee: IEEE overflow by rounding mode."), t, rows, m, zp, mode,
                                                          status=STATUS, profiles=[p]))
    cases.append(dequant_case("u8-64x72-tenth", """A 64x72 U8 tile (4608 elements, index 4096 at row 56 col 64):
        every element q * 0.1.""", "U8", [[(r * 72 + c) & 0xFF for c in range(72)] for r in range(64)], 0x3DCCCCCD, 0,
                              cols=128))
    cases.append(dequant_case("s8-carrier-bits-ignored", """S8 Words with bits above the element set (0xFFFF..FF80 is
        -128 sign-extended, 0x1_0000_0001 reads as 1): only the low 8 bits count.""", "S8",
                              [[0xFFFFFFFFFFFFFF80, 0x100000001, 0xABCD00]], 0x40000000, 0))
    one = [state_tile(0, "S8", (1, 2), [[1, 2]])]
    def p(**kw):
        return dequant_program("S8", (1, 2), 2, **kw)
    cases += [
        fault("all-zero-ior", "B.IOR R0, R0: a present all-zero B.IOR selects multiplier 0, illegal.", one,
              p(multiplier=0).replace("R5, R6", "R0, R0"), status=STATUS),
        fault("negative-multiplier", "Multiplier -1.0 (0xbf800000).", one, p(multiplier=1), gprs={5: 0xBF800000, 6: 0}),
        fault("infinite-multiplier", "Multiplier +infinity.", one, p(multiplier=1), gprs={5: 0x7F800000, 6: 0}),
        fault("nan-multiplier", "Multiplier quiet NaN.", one, p(multiplier=1), gprs={5: 0x7FC00000, 6: 0}),
        fault("negative-zero-multiplier", "Multiplier -0.0.", one, p(multiplier=1), gprs={5: 0x80000000, 6: 0}),
        fault("s8-zero-point-not-extended", "S8 zero point 0x80 (not sign-extended): not canonical.", one,
              p(multiplier=1), gprs={5: 0x3F800000, 6: 0x80}),
        fault("u8-zero-point-256", "U8 zero point 0x100: out of range.", [state_tile(0, "U8", (1, 2), [[1, 2]])],
              dequant_program("U8", (1, 2), 2, multiplier=1), gprs={5: 0x3F800000, 6: 0x100}),
        fault("no-datr", "No B.DATR: it is mandatory.", one,
              block("TDEQUANT", "S8", dims={"LB0": 2}, operands=[0], size=1)),
        fault("layout-nonzero", "B.DATR ND2DN: Layout does not apply.", one,
              p(datr="B.DATR FP32, ND2DN")),
        fault("source-type-differs", "BSTART TDEQUANT, U8 over an S8 source.", one,
              dequant_program("U8", (1, 2), 2)),
        fault("source-shape-differs", "LB0=1 over a 1x2 source: the source's valid region is the LB shape.", one,
              dequant_program("S8", (1, 1), 2)),
        fault("source-undefined", "An undefined source.", [state_tile(0, "S8", (1, 2), [[1, 2]], defined="none")],
              p()),
        fault("destination-too-small", "FP32 1x64 in a 128-byte TSize is fine, 2x64 is not: allocation fails.",
              [state_tile(0, "S8", (2, 64), [[1] * 64] * 2)], dequant_program("S8", (2, 64), 64, size=1),
              "Fault_TileAllocation"),
        noop("mask-zero", "PE mask 0000 with multiplier 0: a strict no-op.", one, p(multiplier=0, mask="0000"),
             gprs={5: 0, 6: 0}),
    ]
    # two blocks whose flags accumulate: NX from the first, OF|NX from the second
    m = 0x3DCCCCCD
    program = (dequant_program("S8", (1, 2), 2, multiplier=m) + "\n"
               + dequant_program("S8", (1, 2), 2, multiplier=m).replace("R5, R6", "R7, R6").replace("->T<1>", "->T<1>"))
    first = [ref.dequantize("S8", q, m, 0, "RNE", "pto-v0")[0] for q in (1, 2)]
    second = [ref.dequantize("S8", q, 0x7F7FFFFF, 0, "RNE", "pto-v0")[0] for q in (1, 2)]
    cases.append(run_case("two-blocks-flags-accumulate", """Two TDEQUANT blocks: the first raises NX (q * 0.1), the
        second OF|NX (q * max finite, q = 2 overflows); the status holds both and the initial bits.""",
                          one, program, [result(1, "FP32", (1, 2), [first], cols=2),
                                         result(2, "FP32", (1, 2), [second], cols=2)],
                          flags=numeric.NX | numeric.OF, status=STATUS, gprs={5: m, 6: 0, 7: 0x7F7FFFFF}))
    return cases


# ---------------------------------------------------------------------------------------
# TGATHER, TSCATTER

def value_words(t: str, count: int) -> list:
    """``count`` distinct Words of type ``t``: element patterns plus, every third, bits above the element
    (the carrier Word moves whole)."""
    w = width(t)
    mask = (1 << w) - 1
    out = []
    for k in range(count):
        element = ((0x9E3779B97F4A7C15 * (k + 1)) >> (64 - w)) & mask if w < 64 else (0x9E3779B97F4A7C15 * (k + 1)) & WORD
        above = (0xA5A5A5A5A5A5A5A5 << w) & WORD if w < 64 and k % 3 == 2 else 0
        out.append(element | above)
    return out


def index_words(index_type: str, rows: list) -> list:
    """Index Words: the row numbers, with bits above a 16/32-bit index set in every other element."""
    w = width(index_type)
    return [[v | ((0xABCD << w) & WORD) if w < 64 and (r + c) % 2 else v for c, v in enumerate(row)]
            for r, row in enumerate(rows)]


def open_dims(valid, cols):
    """Every LB dimension given: the open path takes a missing one from the value source."""
    return {"LB0": valid[1], "LB1": valid[0], "LB2": cols}


def indexed_program(op, t, *, dst_dims=None, size=1, mask="1111", datr=None, bstart=None):
    program = block(op, t, datr=datr, dims=dst_dims, operands=[0, 1], size=size, mask=mask)
    return with_bstart(program, bstart) if bstart is not None else program


def gather_case(name, description, t, index_type, values, rows, *, status=0, source="hand", reference="", bstart=None,
                dst_cols=None, datr=None, raw_indices=None):
    src_valid = (len(values), len(values[0]))
    indices = raw_indices or index_words(index_type, rows)
    valid = (len(indices), len(indices[0]))
    dst_cols = dst_cols or engine.pow2_at_least(valid[1])
    _, capacity, _ = geometry(t, valid, dst_cols)
    tiles = [state_tile(0, t, src_valid, values), state_tile(1, index_type, valid, indices)]
    program = indexed_program("TGATHER", t, dst_dims=open_dims(valid, dst_cols), size=engine.size_code(capacity),
                              datr=datr, bstart=bstart)
    words = ref.gather(values, indices, index_type)
    return run_case(name, description, tiles, program, [result(2, t, valid, words, cols=dst_cols)], status=status,
                    source=source, reference=reference)


def scatter_case(name, description, t, index_type, values, rows, dst_rows, *, status=0, source="hand", reference="",
                 bstart=None, dst_cols=None, raw_indices=None):
    valid = (len(values), len(values[0]))
    indices = raw_indices or index_words(index_type, rows)
    dst_cols = dst_cols or engine.pow2_at_least(valid[1])
    d_valid = (dst_rows, valid[1])
    _, capacity, phys_rows = geometry(t, d_valid, dst_cols)
    tiles = [state_tile(0, t, valid, values), state_tile(1, index_type, valid, indices)]
    program = indexed_program("TSCATTER", t, dst_dims=open_dims(d_valid, dst_cols), size=engine.size_code(capacity),
                              bstart=bstart)
    whole = ref.scatter(values, indices, index_type, dst_rows, valid[1])
    out = result(2, t, d_valid, whole, cols=dst_cols, pad="Zero")
    return run_case(name, description, tiles, program, [out], status=status, source=source, reference=reference)


def direct_indexed_case(name, description, op, t, index_type, values, indices, d_valid, *, d_cols=None,
                        source="spec-test", reference=""):
    """A direct call of TGATHER/TSCATTER into an existing destination T2 of ``d_valid`` (its
    old contents undefined), as the spec's execution tests call the handler."""
    d_cols = d_cols or engine.pow2_at_least(d_valid[1])
    tiles = [state_tile(0, t, (len(values), len(values[0])), values),
             state_tile(1, index_type, (len(indices), len(indices[0])), indices),
             state_tile(2, t, d_valid, cols=d_cols, defined="none")]
    if op == "TGATHER":
        out = result(2, t, d_valid, ref.gather(values, indices, index_type), cols=d_cols)
    else:
        out = result(2, t, d_valid, ref.scatter(values, indices, index_type, d_valid[0], d_valid[1]), cols=d_cols,
                     pad="Zero")
    expect = engine.success_expect(0, [0, 1, 2], [0, 1], [out])
    return engine.case(name, description, BOTH, source, reference, {"tiles": tiles},
                       engine.direct_call(op, 2, [0, 1]), expect)


def gather_spec(test_id):
    point = engine.spec_point("TGATHER", test_id)
    if point == "STATIC":
        def make(bstart, label, text):
            return gather_case(label, text, "U16", "U32", [[0, 1], [10, 11], [20, 21]], [[2, 0], [1, 2]],
                               bstart=bstart)
        make.example_type = "U16"
        return static_cases("TGATHER", test_id, make)
    if point == "ROWS":
        reference = spec_ref(test_id, "U16 values row*10+col, U32 indices [[2,0],[1,2]] -> [[20,1],[10,21]]")
        return [gather_case("u16-values-u32-rows", """U16 values row*10+col (3x2), U32 row indices [[2, 0], [1, 2]]:
            destination [[20, 1], [10, 21]].""", "U16", "U32", [[0, 1], [10, 11], [20, 21]], [[2, 0], [1, 2]],
                            raw_indices=[[2, 0], [1, 2]], source="spec-test", reference=reference),
                direct_indexed_case("direct-call", """The spec's own call TGATHER(42, 40, 41) into an existing U16
                    2x2 destination: [[20, 1], [10, 21]].""", "TGATHER", "U16", "U32",
                                    [[0, 1], [10, 11], [20, 21]], [[2, 0], [1, 2]], (2, 2), reference=reference)]
    if point == "STAGE2-DECODED":
        reference = spec_ref(test_id, "U8 values via U64 indices [1,0] swap rows; TF32 invalid encodings move raw via "
                                      "S16; U64 index 0x100000001 rejected (Fault_TileLegality)")
        return [
            gather_case("u8-values-u64-indices", "U8 [0x11, 0x22] with U64 indices [1, 0]: [0x22, 0x11].", "U8", "U64",
                        [[0x11], [0x22]], [[1], [0]], raw_indices=[[1], [0]], source="spec-test", reference=reference),
            gather_case("tf32-invalid-encodings-move-raw", """SPEC-CHOICE 45: TF32 Words 0x3f800001 and 0x3f800002
                (low bits set: invalid TF32 encodings) move as raw carrier bits through S16 indices [1, 0].""",
                        "TF32", "S16", [[0x3F800001], [0x3F800002]], [[1], [0]], raw_indices=[[1], [0]],
                        source="spec-test", reference=reference),
            fault("u64-index-bit-32", """U64 index 0x100000001: row 4294967297 is out of range (no truncation to 32
                bits).""", [state_tile(0, "U8", (2, 1), [[0x31], [0x42]]),
                            state_tile(1, "U64", (2, 1), [[0x100000001], [0]])],
                  indexed_program("TGATHER", "U8", dst_dims=open_dims((2, 1), 1)), source="spec-test",
                  reference=reference),
        ]
    if point == "NEGATIVE":
        reference = spec_ref(test_id, "S32 index 0xffffffff (negative) -> illegal; the destination is unchanged")
        return [fault("s32-negative-index", "S32 index 0xffffffff is -1: negative indices are illegal.",
                      [state_tile(0, "U16", (2, 1), [[7], [8]]), state_tile(1, "S32", (1, 1), [[0xFFFFFFFF]])],
                      indexed_program("TGATHER", "U16", dst_dims=open_dims((1, 1), 1)), source="spec-test",
                      reference=reference),
                fault("direct-call-destination-kept", """The spec's own operand check on an existing destination
                    holding 99: the negative index rejects the call and the destination keeps 99.""",
                      [state_tile(0, "U16", (2, 1), [[7], [8]]), state_tile(1, "S32", (1, 1), [[0xFFFFFFFF]]),
                       state_tile(2, "U16", (1, 1), [[99]])], engine.direct_call("TGATHER", 2, [0, 1]),
                      source="spec-test", reference=reference)]
    reference = spec_ref(test_id, "value types: every non-four-bit type; index types S16/U16/S32/U32/S64/U64; "
                                  "E2M1X2, U4X2 values and S8, E2M1X2 indices illegal")
    cases = []
    for t in ("FP32", "FP16", "BF16", "S8", "U64", "S32", "U16"):
        cases.append(gather_case(f"{t.lower()}-values", f"{t} values are legal.", t, "U16",
                                 [value_words(t, 2), value_words(t, 4)[2:]], [[1, 0]], source="spec-test",
                                 reference=reference))
    for it in ref.INDEX_TYPES:
        cases.append(gather_case(f"{it.lower()}-indices", f"{it} indices are legal.", "U8", it, [[1, 2], [3, 4]],
                                 [[1, 0]], source="spec-test", reference=reference))
    for t in ("E2M1X2", "U4X2"):
        cases.append(fault(f"{t.lower()}-values", f"{t} values: four-bit types are illegal.",
                           [state_tile(0, t, (2, 2), [[1, 2], [3, 4]]), state_tile(1, "U16", (1, 2), [[1, 0]])],
                           indexed_program("TGATHER", t, dst_dims=open_dims((1, 2), 2)), source="spec-test",
                           reference=reference))
    cases.append(fault("s8-indices", "S8 indices are illegal.", [state_tile(0, "U8", (2, 2), [[1, 2], [3, 4]]),
                                                                state_tile(1, "S8", (1, 2), [[1, 0]])],
                       indexed_program("TGATHER", "U8", dst_dims=open_dims((1, 2), 2)), source="spec-test", reference=reference))
    return cases


def scatter_spec(test_id):
    point = engine.spec_point("TSCATTER", test_id)
    if point == "STATIC":
        def make(bstart, label, text):
            return scatter_case(label, text, "U16", "U16", [[10, 11], [20, 21]], [[2, 0], [3, 1]], 4, bstart=bstart)
        make.example_type = "U16"
        return static_cases("TSCATTER", test_id, make)
    if point == "ROWS":
        reference = spec_ref(test_id, "U16 [[10,11],[20,21]] by [[2,0],[3,1]] into 4 rows: [2,0]=10 [0,1]=11 "
                                      "[3,0]=20 [1,1]=21, [0,0]=[3,1]=0")
        return [scatter_case("u16-values-u16-rows", """U16 values [[10, 11], [20, 21]] scattered by U16 rows
            [[2, 0], [3, 1]] into 4 valid rows: the other coordinates hold zero.""", "U16", "U16", [[10, 11], [20, 21]],
                             [[2, 0], [3, 1]], 4, raw_indices=[[2, 0], [3, 1]], source="spec-test",
                             reference=reference),
                direct_indexed_case("direct-call", """The spec's own call TSCATTER(42, 40, 41) into an existing U16
                    4x2 destination: the scattered values, zeros elsewhere (its old 99 is not read).""", "TSCATTER",
                                    "U16", "U16", [[10, 11], [20, 21]], [[2, 0], [3, 1]], (4, 2),
                                    reference=reference)]
    if point == "STAGE2-DECODED":
        reference = spec_ref(test_id, "U64 values via S16 indices [1,0] swap rows; TF32 invalid encodings move raw via "
                                      "U64 indices")
        return [
            scatter_case("u64-values-s16-indices", "U64 values moved whole through S16 indices [1, 0].", "U64", "S16",
                         [[0x1122334455667788], [0x8877665544332211]], [[1], [0]], 2, raw_indices=[[1], [0]],
                         source="spec-test", reference=reference),
            scatter_case("tf32-invalid-encodings-move-raw", """SPEC-CHOICE 45: invalid TF32 encodings 0x3f800001,
                0x3f800002 move raw through U64 indices [1, 0].""", "TF32", "U64", [[0x3F800001], [0x3F800002]],
                         [[1], [0]], 2, raw_indices=[[1], [0]], source="spec-test", reference=reference),
        ]
    if point == "DUP":
        reference = spec_ref(test_id, "indices [1, 1] at column 0: duplicate target -> illegal, destination unchanged")
        return [fault("duplicate-target", "U16 indices [1, 1] in one column select destination [1, 0] twice.",
                      [state_tile(0, "U16", (2, 1), [[10], [20]]), state_tile(1, "U16", (2, 1), [[1], [1]])],
                      indexed_program("TSCATTER", "U16", dst_dims=open_dims((3, 1), 1)), source="spec-test",
                      reference=reference),
                fault("direct-call-destination-kept", """The spec's own operand check on an existing 3x1 destination
                    holding 99: the duplicate rejects the call and the destination keeps 99.""",
                      [state_tile(0, "U16", (2, 1), [[10], [20]]), state_tile(1, "U16", (2, 1), [[1], [1]]),
                       state_tile(2, "U16", (3, 1), [[99], [0], [0]])], engine.direct_call("TSCATTER", 2, [0, 1]),
                      source="spec-test", reference=reference)]
    reference = spec_ref(test_id, "type pairs: FP32/S32, U8/U64, BF16/U16, U8/S16, FP16/U32, FP64/S32, S64/S64 legal; "
                                  "E2M1X2/S32 and U8/S8 illegal")
    cases = []
    for t, it in (("FP32", "S32"), ("U8", "U64"), ("BF16", "U16"), ("U8", "S16"), ("FP16", "U32"), ("FP64", "S32"),
                  ("S64", "S64")):
        cases.append(scatter_case(f"{t.lower()}-{it.lower()}", f"{t} values with {it} indices are legal.", t, it,
                                  [value_words(t, 2)], [[0, 1]], 2, source="spec-test", reference=reference))
    cases.append(fault("e2m1x2-s32", "E2M1X2 values: four-bit types are illegal.",
                       [state_tile(0, "E2M1X2", (1, 2), [[1, 2]]), state_tile(1, "S32", (1, 2), [[0, 0]])],
                       indexed_program("TSCATTER", "E2M1X2", dst_dims=open_dims((1, 2), 2)), source="spec-test", reference=reference))
    cases.append(fault("u8-s8", "S8 indices are illegal.", [state_tile(0, "U8", (1, 2), [[1, 2]]),
                                                            state_tile(1, "S8", (1, 2), [[0, 0]])],
                       indexed_program("TSCATTER", "U8", dst_dims=open_dims((1, 2), 2)), source="spec-test", reference=reference))
    return cases


def gather_x():
    cases = []
    rows = [[(3 * c + r) % 5 for c in range(6)] for r in range(3)]
    for k, t in enumerate(ref.VALUE_TYPES):
        it = ref.INDEX_TYPES[k % len(ref.INDEX_TYPES)]
        values = [value_words(t, 30)[6 * r:6 * r + 6] for r in range(5)]
        cases.append(gather_case(f"{t.lower()}-values-{it.lower()}-indices", f"""{t} values (5x6, every third Word with
            bits above the element) gathered by {it} rows (bits above a narrow index set in every other element): the
            whole carrier Word moves.""", t, it, values, rows, status=STATUS, dst_cols=8))
    specials = [[0x7FC00001, 0xFF800000, 0x80000000, 0x00000001], [0x7F800001, 0x7F7FFFFF, 0, 0xFFFFFFFF]]
    cases.append(gather_case("fp32-special-values", """FP32 quiet NaN with payload, -inf, -0, the smallest subnormal,
        a signalling NaN, max finite: no numeric effect, no flag.""", "FP32", "U16", specials,
                             [[1, 0, 1, 0], [0, 1, 0, 1]]))
    big = [[(r * 64 + c) & 0xFF for c in range(64)] for r in range(2)]
    cases.append(gather_case("u8-65x64-indices", """A 65x64 index tile (4160 elements; index 4096 is row 64, column 0)
        over a 2-row U8 source: rows alternate so index 0 and index 4096 select different rows.""", "U8", "U16", big,
                             [[(r + c) % 2 for c in range(64)] for r in range(64)] + [[1 - c % 2 for c in range(64)]],
                             dst_cols=64))
    cases.append(gather_case("s16-index-bits-above-ignored", """S16 index Words 0xffff0001 and 0xffff0000: only bits
        15:0 name the row (1 and 0), and they are not negative.""", "U32", "S16", [[5, 6], [7, 8]], None,
                             raw_indices=[[0xFFFF0001, 0xFFFF0000]]))
    cases.append(gather_case("source-wider-than-destination", """A 2x8 source, a 1x3 destination: the source needs at
        least the destination's columns; columns 3..7 are never read.""", "S16", "U32",
                             [value_words("S16", 8), value_words("S16", 16)[8:]], [[1, 0, 1]], dst_cols=4))
    cases.append(gather_case("fp64-values-with-datr", """SPEC-CHOICE 44: a B.DATR (all fields zero) makes the
        destination FP64 (DataType 0); FP64 values gather as usual.""", "FP64", "U32",
                             [[1, 2], [3, 4]], [[1, 0]], datr="B.DATR Zero"))
    def u16(rows_, defined=None):
        return state_tile(0, "U16", (3, 2), rows_, defined=defined)
    vals = [[1, 2], [3, 4], [5, 6]]
    def idx(t, rows_, defined=None):
        return state_tile(1, t, (len(rows_), len(rows_[0])), rows_, defined=defined)
    def p(t="U16", **kw):
        return indexed_program("TGATHER", t, dst_dims=kw.pop("d", open_dims((1, 2), 2)), **kw)
    cases += [
        fault("index-equals-rows", "Index 3 over a 3-row source: one past the last row.", [u16(vals), idx("U32", [[3, 0]])],
              p(), status=STATUS),
        fault("index-equals-rows-defined-beyond", """Index 3 over a source of 3 valid rows whose physical row 3 is
            defined too (defined: all): the range check alone rejects it.""",
              [u16(vals, defined="all"), idx("U16", [[3, 0]])], p()),
        fault("index-last-row-legal-other-out", "Index 2 is the last row (legal), index 4 is not.",
              [u16(vals), idx("U16", [[2, 4]])], p()),
        fault("s16-negative", "S16 index 0x8000: negative.", [u16(vals), idx("S16", [[0x8000, 0]])], p()),
        fault("s64-negative", "S64 index with bit 63 set: negative.", [u16(vals), idx("S64", [[1 << 63, 0]])], p()),
        fault("u16-index-ffff", "U16 index 0xffff: row 65535, out of range.", [u16(vals), idx("U16", [[0xFFFF, 0]])],
              p()),
        fault("index-undefined", "An undefined index tile.", [u16(vals), idx("U16", [[0, 1]], defined="none")], p()),
        fault("selected-source-undefined", "An undefined source: the selected elements are undefined.",
              [u16(vals, defined="none"), idx("U16", [[0, 1]])], p()),
        fault("shape-mismatch", "LB0=1 with a 1x2 index tile: the destination and index shapes differ.",
              [u16(vals), idx("U16", [[0, 1]])], p(d=open_dims((1, 1), 1))),
        fault("source-too-narrow", "A 1x4 destination over a 3x2 source.", [u16(vals), idx("U16", [[0, 1, 0, 1]])],
              p(d=open_dims((1, 4), 4))),
        fault("value-type-differs", "BSTART TGATHER, U32 over a U16 source: the destination type differs.",
              [u16(vals), idx("U16", [[0, 1]])], p("U32")),
        fault("fp32-values-with-datr", """SPEC-CHOICE 44: a B.DATR makes the destination FP64, which differs from the
            FP32 source.""", [state_tile(0, "FP32", (3, 2), vals), idx("U16", [[0, 1]])], p("FP32", datr="B.DATR Zero")),
        fault("ior-present", "A B.IOR with a nonzero selector: TGATHER consumes no GPR (Fault_BundleControl).",
              [u16(vals), idx("U16", [[0, 1]])], block("TGATHER", "U16", dims={"LB0": 2}, operands=[0, 1], gpr="R5"),
              "Fault_BundleControl", gprs={5: 1}),
        fault("destination-too-small", "A 2x64 U32 destination in 128 bytes: allocation fails.",
              [state_tile(0, "U32", (2, 64), [[1] * 64] * 2), idx("U16", [[0] * 64] * 2)],
              p("U32", d=open_dims((2, 64), 64)), "Fault_TileAllocation"),
        noop("mask-zero", "PE mask 0000 with an out-of-range index: a strict no-op.", [u16(vals), idx("U16", [[9, 9]])],
             p(mask="0000")),
    ]
    return cases


def scatter_x():
    cases = []
    rows = [[(c + 2 * r) % 5 for c in range(6)] for r in range(3)]  # a permutation per column, distinct rows
    for k, t in enumerate(ref.VALUE_TYPES):
        it = ref.INDEX_TYPES[(k + 1) % len(ref.INDEX_TYPES)]
        values = [value_words(t, 18)[6 * r:6 * r + 6] for r in range(3)]
        cases.append(scatter_case(f"{t.lower()}-values-{it.lower()}-indices", f"""{t} values (3x6) scattered by {it}
            rows into 5 valid rows of 8 columns: untouched coordinates and the padding are defined zeros; carrier Words
            move whole.""", t, it, values, rows, 5, status=STATUS, dst_cols=8))
    big_rows = [[(r + c) % 65 for c in range(64)] for r in range(65)]
    cases.append(scatter_case("u8-65x64-into-65-rows", """A 65x64 scatter (4160 elements; index 4096 is row 64, column
        0): each column is a rotation of the rows.""", "U8", "U16", [[(r * 7 + c) & 0xFF for c in range(64)]
                                                                   for r in range(65)], big_rows, 65, dst_cols=64))
    def v():
        return state_tile(0, "U16", (2, 2), [[10, 11], [20, 21]])
    def idx(t, rows_, defined=None):
        return state_tile(1, t, (len(rows_), len(rows_[0])), rows_, defined=defined)
    def p(t="U16", **kw):
        return indexed_program("TSCATTER", t, dst_dims=kw.pop("d", open_dims((3, 2), 2)), **kw)
    cases += [
        fault("duplicate-in-other-column", "Indices [[0, 2], [1, 2]]: column 1 selects row 2 twice.",
              [v(), idx("U16", [[0, 2], [1, 2]])], p(), status=STATUS),
        scatter_case("same-row-other-columns-legal", """Indices [[2, 0], [0, 2]]: row 2 is written in columns 0 and 1,
            distinct coordinates, legal.""", "U16", "U16", [[10, 11], [20, 21]], None, 3, raw_indices=[[2, 0], [0, 2]]),
        fault("index-equals-rows", "Index 3 into 3 destination rows.", [v(), idx("U32", [[3, 0], [1, 2]])], p()),
        fault("s32-negative", "S32 index 0x80000000.", [v(), idx("S32", [[0x80000000, 0], [1, 2]])], p()),
        fault("index-undefined", "An undefined index tile.", [v(), idx("U16", [[0, 1], [1, 0]], defined="none")], p()),
        fault("source-undefined", "An undefined value source.",
              [state_tile(0, "U16", (2, 2), [[10, 11], [20, 21]], defined="none"), idx("U16", [[0, 1], [1, 0]])], p()),
        fault("index-shape-differs", "A 1x2 index tile for a 2x2 value tile.", [v(), idx("U16", [[0, 1]])], p()),
        fault("destination-columns-differ", "LB0=1: the destination's valid columns differ from the source's.",
              [v(), idx("U16", [[0, 1], [1, 0]])], p(d=open_dims((3, 1), 1))),
        noop("mask-zero", "PE mask 0000 with duplicate targets: a strict no-op.", [v(), idx("U16", [[0, 0], [0, 0]])],
             p(mask="0000")),
    ]
    return cases


# ---------------------------------------------------------------------------------------
# Status survival and cross-block accumulation (tests/vectors/test_vectors_isolation.py's matrix)

DQ_SOURCE, DQ_DESTINATION = 20, 16  # hand U: U4 in, U0 out, clear of every T index the cases use
DQ_MULTIPLIER = 0x3DCCCCCD  # 0.1: q = 3, 5 give inexact products (NX)
DQ_BLOCK = "\n".join(["BSTART.SFU TDEQUANT, S8", "B.DATR FP32", "B.DIM LB0=2", "B.IOR R9, R10",
                      "B.IOT U4, mask=1111, <last>, ->U<1>", "BSTOP"])


def with_status(case: dict, status: int = STATUS) -> dict:
    """The same case starting from a nonzero NumericStatus, which must survive (a status twin)."""
    out = copy.deepcopy(case)
    out["name"] += "-status-kept"
    out["description"] += f" The initial status {status:#x} survives (the twin without it starts from 0)."
    out.setdefault("state", {})["status"] = Hex(status)
    out["expect"]["flags"] = Hex(int(out["expect"]["flags"]) | status)
    return out


def with_dequant_state(case: dict) -> dict:
    """``case`` with a TDEQUANT source (U4) and its multiplier GPRs in the state, nothing else changed."""
    out = copy.deepcopy(case)
    out["name"] += "-beside-dequant-state"
    state = out.setdefault("state", {})
    tiles = [t for t in state.get("tiles", [])] + [state_tile(DQ_SOURCE, "S8", (1, 2), [[3, 5]])]
    state["tiles"] = tiles
    gprs = dict(state.get("gprs", {}))
    gprs.update({9: Hex(DQ_MULTIPLIER), 10: Hex(0)})
    state["gprs"] = engine.FlowMap(gprs)
    expect = out["expect"]
    if "unchanged" in expect and expect["unchanged"] != "all":
        expect["unchanged"] = Flow(sorted(set(expect["unchanged"]) | {DQ_SOURCE}))
    expect["allocated"] = Flow(sorted(set(expect["allocated"]) | {DQ_SOURCE}))
    return out


def after_dequant(lone: dict) -> dict:
    """``lone`` (a ``with_dequant_state`` case) preceded by a TDEQUANT block that raises NX: the
    flags of both blocks accumulate, so a device that lets the last block's flags replace the
    status fails where the lone block passes."""
    out = copy.deepcopy(lone)
    out["name"] = out["name"].replace("-beside-dequant-state", "-after-dequant-block")
    out["description"] += " A TDEQUANT block (NX) runs first: its flags and the second block's accumulate."
    out["program"] = engine.Block(DQ_BLOCK + "\n" + str(lone["program"]))
    words = [ref.dequantize("S8", q, DQ_MULTIPLIER, 0, "RNE", "pto-v0")[0] for q in (3, 5)]
    assert all(ref.dequantize("S8", q, DQ_MULTIPLIER, 0, "RNE", profile) == (w, numeric.NX)
               for q, w in zip((3, 5), words) for profile in ("pto-v0", "hw-ieee"))
    expect = out["expect"]
    expect["flags"] = Hex(int(expect["flags"]) | numeric.NX)
    expect["allocated"] = Flow(sorted(set(expect["allocated"]) | {DQ_DESTINATION}))
    expect["tiles"] = list(expect["tiles"]) + [result(DQ_DESTINATION, "FP32", (1, 2), [words], cols=2)]
    return out


def strength_cases(base: dict) -> list:
    """The status twin of ``base`` and the lone/after-TDEQUANT pair of its block."""
    lone = with_dequant_state(base)
    return [base, with_status(base), lone, after_dequant(lone)]


def strength_bases(op: str) -> dict:
    if op == "TCI":
        return tci_case("strength-u16-descending", "U16 from 3 descending over 6 columns.", "U16", 3, 6, True, cols=8)
    if op == "TTRI":
        return ttri_case("strength-fp32-upper", "FP32 upper, diagonal 1, 3x5 in 8 columns.", "FP32", (3, 5), 8, True,
                         1)
    if op == "THISTOGRAM":
        return histogram_case("strength-u16-byte-1", "U16 ByteId 1 over one row.", "U16", [[0x0102, 0xFF03, 0x0104]],
                              [0], 1)
    if op == "TDEQUANT":
        return dequant_case("strength-s8-exact", "S8 [3, -5] times 2.0: exact, no flag of its own.", "S8",
                            [[3, 0xFB]], 0x40000000, 0)
    if op == "TGATHER":
        return gather_case("strength-u32", "U32 values by U16 rows.", "U32", "U16", [[1, 2], [3, 4]], [[1, 0]])
    return scatter_case("strength-u32", "U32 values by U16 rows into 3 rows.", "U32", "U16", [[1, 2], [3, 4]],
                        [[2, 0], [0, 1]], 3)


# ---------------------------------------------------------------------------------------
# Files

SPEC = {"TCI": tci_spec, "TTRI": ttri_spec, "THISTOGRAM": histogram_spec, "TDEQUANT": dequant_spec,
        "TGATHER": gather_spec, "TSCATTER": scatter_spec}
X = {"TCI": tci_x, "TTRI": ttri_x, "THISTOGRAM": histogram_x, "TDEQUANT": dequant_x, "TGATHER": gather_x,
     "TSCATTER": scatter_x}
SUMMARY = {"TCI": "every TCI type x starts (zero, one, all ones, sign bit, bits above the element) x both directions, "
                  "a 4100-column row, scalar legality and fault order",
           "TTRI": "every TTRI type x both orientations x diagonals (0, +-1, beyond the shape, +-65535), a 70x64 "
                   "triangle, diagonal and orientation legality",
           "THISTOGRAM": "every bin, every ByteId and filter prefix, carrier bits, a 4100-column row, schema legality",
           "TDEQUANT": "S8 and U8 over all 256 values x zero points x multipliers x rounding modes, grouped by flags; "
                       "scalar legality, status accumulation across blocks",
           "TGATHER": "every value type x index types, carrier Words, index range and sign, a 4160-element index tile",
           "TSCATTER": "every value type x index types, zero fill, duplicate targets, a 4160-element scatter"}


# ---------------------------------------------------------------------------------------
# Direct calls: the spec tests' own calls on configured tiles (shapes a block cannot give its
# destination: a second valid row, a U8 or ColumnMajor destination, 257 histogram bins)

def calls(*programs) -> Flow:
    """One program of the direct calls of ``programs`` (each engine.direct_call), in order."""
    return Flow([item for program in programs for item in program])


def direct_case(name, description, tiles, program, results, *, flags=0, reference=""):
    """Direct calls into configured destinations (their old contents undefined): every state tile
    stays allocated, the tiles not written stay unchanged."""
    written = {r["index"] for r in results}
    allocated = sorted(t["index"] for t in tiles)
    expect = engine.success_expect(flags, allocated, [i for i in allocated if i not in written], results)
    return engine.case(name, description, BOTH, "spec-test", reference, {"tiles": tiles}, program, expect)


def direct_fault(name, description, tiles, program, reference):
    return fault(name, description, tiles, program, source="spec-test", reference=reference)


def blank(index, t, valid, cols, capacity, layout=None):
    """A configured destination whose elements are undefined."""
    return state_tile(index, t, valid, cols=cols, capacity=capacity, layout=layout, defined="none")


def tci_direct(point, test_id):
    u16 = {"cols": 2, "capacity": 128}
    if point == "WRAP":
        reference = spec_ref(test_id, "TCI(0, Ones, FALSE) = [0xffff, 0]; TCI(1, Ones, TRUE) = [0xffff, 0xfffe]")
        return [direct_case("direct-calls", """The spec's own calls TCI(0, all ones, ascending) and TCI(1, all ones,
            descending) into configured U16 1x2 tiles: [0xffff, 0] and [0xffff, 0xfffe].""",
                            [blank(0, "U16", (1, 2), **u16), blank(1, "U16", (1, 2), **u16)],
                            calls(engine.direct_call("TCI", 0, [], start=Hex(WORD), descending=0),
                                  engine.direct_call("TCI", 1, [], start=Hex(WORD), descending=1)),
                            [result(i, "U16", (1, 2), [ref.tci("U16", WORD, 2, desc)], **u16)
                             for i, desc in ((0, False), (1, True))], reference=reference)]
    if point != "SHAPE":
        return []
    reference = spec_ref(test_id, "TileOperandsLegal_TCI on configured tiles: U16 1x2 legal; two valid rows, U8, "
                                  "ColumnMajor illegal")
    call = engine.direct_call("TCI", 0, [])
    return [
        direct_case("direct-one-row-u16-legal", "TCI(0, 0, ascending) on a configured RowMajor U16 1x2 tile: [0, 1].",
                    [blank(0, "U16", (1, 2), **u16)], call, [result(0, "U16", (1, 2), [ref.tci("U16", 0, 2, False)],
                                                                    **u16)], reference=reference),
        direct_fault("direct-two-valid-rows", "A configured U16 destination of two valid rows: TCI writes one row.",
                     [blank(0, "U16", (2, 2), **u16)], call, reference),
        direct_fault("direct-u8-destination", "A configured U8 destination: U8 is not a TCI type.",
                     [blank(0, "U8", (1, 2), **u16)], call, reference),
        direct_fault("direct-column-major-destination", "A configured ColumnMajor U16 destination: TCI writes RowMajor.",
                     [blank(0, "U16", (1, 2), layout="ColumnMajor", **u16)], call, reference),
    ]


def ttri_direct(point, test_id):
    fp16 = {"cols": 4, "capacity": 128}
    if point == "EDGE":
        reference = spec_ref(test_id, "TTRI(0, lower, -65535) all zero; TTRI(1, upper, -65535) all 0x3c00")
        return [direct_case("direct-calls", """The spec's own calls TTRI(0, lower, -65535) and TTRI(1, upper, -65535)
            into configured FP16 2x3 tiles: all zero and all 0x3c00.""",
                            [blank(0, "FP16", (2, 3), **fp16), blank(1, "FP16", (2, 3), **fp16)],
                            calls(engine.direct_call("TTRI", 0, [], upper=0, diagonal=-65535),
                                  engine.direct_call("TTRI", 1, [], upper=1, diagonal=-65535)),
                            [result(i, "FP16", (2, 3), ref.ttri("FP16", 2, 3, upper, -65535), **fp16)
                             for i, upper in ((0, False), (1, True))], reference=reference)]
    if point == "TYPED":
        reference = spec_ref(test_id, "TTRI(0, lower, 0) FP16: 0x3c00 where c <= r, 0 above, padding undefined")
        return [direct_case("direct-call", """The spec's own call TTRI(0, lower, 0) into a configured FP16 2x3 tile of
            4 columns: 0x3c00 on and below the diagonal.""", [blank(0, "FP16", (2, 3), **fp16)],
                            engine.direct_call("TTRI", 0, [], upper=0, diagonal=0),
                            [result(0, "FP16", (2, 3), ref.ttri("FP16", 2, 3, False, 0), **fp16)], reference=reference)]
    if point != "SHAPE":
        return []
    reference = spec_ref(test_id, "TileOperandsLegal_TTRI on configured tiles: FP16 RowMajor 2x3 legal; U8, "
                                  "ColumnMajor illegal")
    call = engine.direct_call("TTRI", 0, [])
    return [
        direct_case("direct-fp16-legal", "TTRI(0, lower, 0) on a configured RowMajor FP16 2x3 tile.",
                    [blank(0, "FP16", (2, 3), **fp16)], call,
                    [result(0, "FP16", (2, 3), ref.ttri("FP16", 2, 3, False, 0), **fp16)], reference=reference),
        direct_fault("direct-u8-destination", "A configured U8 destination: U8 is not a TTRI type.",
                     [blank(0, "U8", (2, 3), **fp16)], call, reference),
        direct_fault("direct-column-major-destination", "A configured ColumnMajor FP16 destination.",
                     [blank(0, "FP16", (2, 3), layout="ColumnMajor", **fp16)], call, reference),
    ]


def histogram_direct(point, test_id):
    def src(t, rows):
        return state_tile(1, t, (len(rows), len(rows[0])), rows, cols=4, capacity=128)

    def dst(rows, capacity=2048):
        return blank(0, "U32", (rows, 256), 256, capacity)

    def out(t, rows, column, byte_id, capacity=2048):
        return result(0, "U32", (len(rows), 256), ref.histogram(t, rows, column, byte_id), cols=256,
                      capacity=capacity)

    zero_filter = filter_tile(2, [0])
    if point == "PREFIX":
        reference = spec_ref(test_id, "THISTOGRAM(0, 1, 2, 1) over [0x0100,0x0200,0x0201,0xff00]: bins 0,1,2,254,255 "
                                      "= 0,1,3,3,4; destination row 1 undefined")
        rows = [[0x0100, 0x0200, 0x0201, 0xFF00]]
        return [direct_case("direct-call", """The spec's own call THISTOGRAM(0, 1, 2, 1) into a configured 2-row U32
            destination of one valid row: the inclusive prefix, its second row undefined.""",
                            [dst(1), src("U16", rows), zero_filter], engine.direct_call("THISTOGRAM", 0, [1, 2],
                                                                                     selected_byte=1),
                            [out("U16", rows, [0], 1)], reference=reference)]
    if point == "U16-FILTER":
        reference = spec_ref(test_id, "THISTOGRAM(0, 1, 2, 0), filter rows 0xaa/0xbb: row0 counts 0xaa01, row1 0xbb03")
        rows = [[0xAA01, 0xBB02], [0xBB03, 0xAA04]]
        return [direct_case("direct-call", """The spec's own call THISTOGRAM(0, 1, 2, 0): row r counts the low bytes of
            the elements whose high byte equals filter[r, 0].""",
                            [dst(2), src("U16", rows), filter_tile(2, [0xAA, 0xBB])],
                            engine.direct_call("THISTOGRAM", 0, [1, 2], selected_byte=0),
                            [out("U16", rows, [0xAA, 0xBB], 0)], reference=reference)]
    if point == "U32-PREFIX":
        reference = spec_ref(test_id, "THISTOGRAM(0, 1, 2, 0), ColumnMajor filter aa/bb/cc: bins 0,1,2,255 = 0,1,2,2")
        rows = [[0xAABBCC01, 0xAABBCC02, 0xAABBDD01, 0x11223301]]
        column = [0xAA, 0xBB, 0xCC]
        flt = state_tile(2, "U8", (3, 1), [[v] for v in column], cols=2, capacity=128, layout="ColumnMajor")
        return [direct_case("direct-call", """The spec's own call THISTOGRAM(0, 1, 2, 0) with a ColumnMajor U8 filter:
            the elements whose top three bytes match count their low byte.""", [dst(1, 1024), src("U32", rows), flt],
                            engine.direct_call("THISTOGRAM", 0, [1, 2], selected_byte=0),
                            [out("U32", rows, column, 0, 1024)], reference=reference)]
    if point != "SCHEMA":
        return []
    reference = spec_ref(test_id, "TileOperandsLegal_THISTOGRAM(0, 1, 2, 0) legal; ByteId 2, a 257-column "
                                  "destination, an S8 filter illegal")
    rows = [[0, 0, 0, 0]]
    base = [dst(1, 1024), src("U16", rows)]
    return [
        direct_case("direct-byte-0-legal", "THISTOGRAM(0, 1, 2, 0) on configured tiles: legal.", base + [zero_filter],
                    engine.direct_call("THISTOGRAM", 0, [1, 2], selected_byte=0),
                    [out("U16", rows, [0], 0, 1024)], reference=reference),
        direct_fault("direct-byte-2", "ByteId 2 for a U16 source: reserved.", base + [zero_filter],
                     engine.direct_call("THISTOGRAM", 0, [1, 2], selected_byte=2), reference),
        direct_fault("direct-257-columns", """A configured U32 destination of 257 valid columns (2048 B, 512 columns):
            the histogram has 256.""", [blank(0, "U32", (1, 257), 512, 2048), src("U16", rows), zero_filter],
                     engine.direct_call("THISTOGRAM", 0, [1, 2], selected_byte=0), reference),
        direct_fault("direct-s8-filter", "An S8 filter: the filter is U8.",
                     base + [state_tile(2, "S8", (1, 1), [[0]], cols=1, capacity=128)],
                     engine.direct_call("THISTOGRAM", 0, [1, 2], selected_byte=0), reference),
    ]


def dequant_direct(point, test_id):
    one = Hex(0x3F800000)
    if point == "AFFINE":
        reference = spec_ref(test_id, "TDEQUANT(0, 1, 1.0, 0, default) over S8 [1, 2]: FP32 [0x3f800000, 0x40000000]")
        words = [ref.dequantize("S8", q, one, 0, "NONE", "pto-v0")[0] for q in (1, 2)]
        return [direct_case("direct-call", """The spec's own call TDEQUANT(0, 1, 1.0, 0) with the default control:
            S8 [1, 2] -> FP32 [1.0, 2.0], the source unchanged.""",
                            [blank(0, "FP32", (1, 2), 2, 128), state_tile(1, "S8", (1, 2), [[1, 2]], cols=2,
                                                                          capacity=128)],
                            engine.direct_call("TDEQUANT", 0, [1], multiplier=one, zero_point=Hex(0)),
                            [result(0, "FP32", (1, 2), [words], cols=2, capacity=128)], reference=reference)]
    if point != "TYPES":
        return []
    reference = spec_ref(test_id, "TileOperandsLegal_TDEQUANT on configured tiles: S8 -> FP32 legal; FP32 source, U64 "
                                  "destination, zero multiplier, saturating control illegal")
    tiles = [blank(0, "FP32", (1, 1), 1, 128), state_tile(1, "S8", (1, 1), [[1]], cols=1, capacity=128),
             state_tile(2, "FP32", (1, 1), [[0x3F800000]], cols=1, capacity=128), blank(3, "U64", (1, 1), 1, 128)]

    def call(dst=0, src=1, multiplier=one, sat=None):
        return engine.direct_call("TDEQUANT", dst, [src], multiplier=multiplier, zero_point=Hex(0), sat=sat)
    return [
        direct_case("direct-s8-to-fp32-legal", "TDEQUANT(0, 1, 1.0, 0): S8 1 -> FP32 1.0.", tiles, call(),
                    [result(0, "FP32", (1, 1), [[0x3F800000]], cols=1, capacity=128)], reference=reference),
        direct_fault("direct-fp32-source", "An FP32 source: the source is S8 or U8.", tiles, call(src=2), reference),
        direct_fault("direct-u64-destination", "A U64 destination: the destination is FP32.", tiles, call(dst=3),
                     reference),
        direct_fault("direct-zero-multiplier", "Multiplier 0: not a positive finite nonzero FP32.", tiles,
                     call(multiplier=Hex(0)), reference),
        direct_fault("direct-saturating", "A saturating control: Sat does not apply to TDEQUANT.", tiles, call(sat=1),
                     reference),
    ]


DIRECT = {"TCI": tci_direct, "TTRI": ttri_direct, "THISTOGRAM": histogram_direct, "TDEQUANT": dequant_direct}


def spec_cases(op: str, test_id: str) -> list:
    direct = DIRECT.get(op)
    return SPEC[op](test_id) + (direct(engine.spec_point(op, test_id), test_id) if direct else [])


def size_bound_case(op: str) -> dict:
    """One case per operation with a 64 KiB tile (TSize code 10, the largest) whose logical
    elements 0 and 4096 differ, so a device whose element index wraps at 4096 fails."""
    what = "A 64 KiB tile (the largest TSize) whose logical elements 0 and 4096 differ:"
    if op == "TCI":
        return tci_case("size-bound-u16-4100-of-32768", f"""{what} a U16 row of 4100 valid columns in 32768 from 0x10
            descending.""", "U16", 0x10, 4100, True, cols=32768)
    if op == "TTRI":
        return ttri_case("size-bound-u32-32x257-of-512", f"""{what} a 32x257 U32 lower triangle (diagonal 3) in 512
            columns.""", "U32", (32, 257), 512, False, 3)
    wide = [[((r * 4100 + c + 1) * 0x9E3779B1 >> 5) & 0xFFFFFFFF for c in range(4100)] for r in range(2)]
    if op == "THISTOGRAM":
        return histogram_case("size-bound-u32-2x4100-source", f"""{what} the U32 source, 2x4100 in 8192 columns,
            histogrammed on ByteId 3.""", "U32", wide, [0], 3)
    if op == "TDEQUANT":
        return dequant_case("size-bound-fp32-2x4100-destination", f"""{what} the FP32 destination of a 2x4100 U8
            source times 1.0.""", "U8", [[w & 0xFF for w in row] for row in wide], 0x3F800000, 0, cols=8192)
    if op == "TGATHER":
        return gather_case("size-bound-u32-2x4100-source", f"""{what} the U32 source, 2x4100 in 8192 columns, gathered
            by alternating U16 rows.""", "U32", "U16", wide, [[c % 2 for c in range(4100)]], dst_cols=8192)
    return scatter_case("size-bound-u32-2x4100-source", f"""{what} the U32 source (and the destination), 2x4100 in 8192
        columns, scattered with its rows swapped in odd columns.""", "U32", "U16", wide,
                        [[c % 2 for c in range(4100)], [1 - c % 2 for c in range(4100)]], 2, dst_cols=8192)


def one_pe(case: dict) -> dict:
    """``case`` with every tile and binding on PE 0 alone (mask 0001): a 64 KiB tile then charges
    64 KiB of the 256 KiB tile capacity instead of all of it."""
    for tile in case.get("state", {}).get("tiles", []):
        tile["mask"] = "0001"
    for tile in case["expect"].get("tiles", []):
        tile["mask"] = "0001"
    case["program"] = engine.Block(str(case["program"]).replace("mask=1111", "mask=0001"))
    case["description"] += " Every tile and binding uses PE mask 0001."
    return case


def x_file(op: str) -> dict:
    size_case = size_bound_case(op)
    cases = X[op]() + strength_cases(strength_bases(op)) + [one_pe(size_case) if op not in ("TCI", "TTRI")
                                                             else size_case]
    doc = {"format": "pto-avs-vector/1", "id": f"PTO-AVS-X-{op}-REF-001", "operation": op, "kind": "execution",
           "summary": f"{op}: {SUMMARY[op]}", "exercises": Flow(UNITS[op]["readiness_subjects"])}
    doc.update(engine.also_exercises(op, cases))
    doc["provenance"] = ("Expected values from the independent element reference vectors/reference/generation.py "
                         f"(written from the executable ASL; no code shared with device_model), written by "
                         f"`{COMMAND}`. Nothing here was produced by running the golden model.")
    doc["cases"] = cases
    return doc


PROVENANCE = engine.spec_provenance("vectors/reference/generation.py", COMMAND)


def files(operations) -> dict:
    return engine.spec_id_files(operations, spec_cases, x_file, PROVENANCE, "generate_generation.py")


FAMILY = engine.Family("generate_generation", OPERATIONS, files,
                       owns=tuple(f"PTO-AVS-{kind}-{op}-*.yaml" for op in OPERATIONS for kind in ("TILE", "X")))

if __name__ == "__main__":  # the command the files' provenance names: the engine's, for these operations
    sys.exit(engine.legacy_main([FAMILY]))
