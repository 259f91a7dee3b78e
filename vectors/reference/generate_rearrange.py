"""Write the vectors of the bit-copy rearrangements TFILLPAD, TCONCAT, TEXTRACT, TINSERT, TTRANS.

    .venv/bin/python -m pto_avs.vectors.reference generate|check TFILLPAD TCONCAT TEXTRACT TINSERT TTRANS
    .venv/bin/python -m pto_avs.vectors.reference.generate_rearrange [--out DIR] [--check]  (the same)

- one file per spec test ID (``PTO-AVS-TILE-<OP>-<NAME>-001.yaml``): the spec test point
  replayed as its direct call with the values it asserts (``source: spec-test``), the same
  facts through a block, and the BSTART decode of the static points;
- per operation ``PTO-AVS-X-<OP>-REF-001.yaml`` (``source: reference-generator``): every
  legal type x distinct bit patterns (NaNs, infinities, signed zeros, extremes, alternating
  bits; the 4-bit types in packed carriers), the pto-v0 carrier Words (bits above the
  element width copied whole), offsets at their bounds and one past, transposes of
  non-square, packed and ColumnMajor tiles, fills above the element width, every pad a
  direct call names, the open schema's derived destination (SPEC-CHOICE 47, 49), a nonzero
  NumericStatus that survives two blocks, and the legality and fault order;
- per operation ``PTO-AVS-X-<OP>-STRENGTH-001.yaml``: the condition classes of the isolation
  matrix a bit copy can show (a status twin pair, a flag of an earlier TCMPS block that must
  survive with the twin block alone, the padding's whole Words);
- per operation ``PTO-AVS-X-<OP>-SIZE-001.yaml``: a 64 KiB tile whose elements 0 and 4096 differ.

Every expected value is a spec test's own assertion or comes from the independent
reference ``vectors/reference/rearrange.py`` (no device_model code); a spec-test value and
the reference must agree or this script stops. Nothing here runs the golden model.
"""
from __future__ import annotations

import sys

from . import engine
from . import rearrange as ref
from .engine import OPERATION_TABLE, UNITS, Flow, FlowMap, Hex, bstart_word, case, first_free, hexrows, iot_line
from .engine import rows_of, size_code, spec_ref

COMMAND = ".venv/bin/python -m pto_avs.vectors.reference.generate_rearrange"
BOTH = ["pto-v0", "hw-ieee"]
OPERATIONS = ref.OPERATIONS
WORD = (1 << 64) - 1
ENGINE = {op: OPERATION_TABLE[op]["engine"] for op in OPERATIONS}
REFERENCE = {op: f"vectors/reference/rearrange.py {name} (the ASL's {op})" for op, name in
             zip(OPERATIONS, ("fillpad", "concat", "extract", "insert", "transpose"))}
LEGALITY_REFERENCE = ("asl/block/model/dispatch/tile-execution.asl (the flow's order), destination-shape.asl, "
                      "asl/tile/model/legality/layout-rearrangement.asl (the operand rules)")


# ---------------------------------------------------------------------------------------
# Tiles: a reference Grid as state and as an expectation

def grid(t: str, capacity: int, cols: int, valid, data=None, padding=None) -> ref.Grid:
    """A Grid of a ``capacity``-byte tile: ``data`` (valid region rows, defined); ``padding``
    {(r, c): word} makes every coordinate defined (unnamed ones hold 0)."""
    g = ref.blank(t, rows_of(capacity, cols, t), cols, valid)
    g.capacity = capacity
    for r, row in enumerate(data or []):
        for c, word in enumerate(row):
            g.write(r, c, word)
    if padding is not None:
        for r in range(g.rows):
            for c in range(g.cols):
                if r >= valid[0] or c >= valid[1]:
                    g.write(r, c, padding.get((r, c), 0))
    return g


def state_tile(index: int, g: ref.Grid, layout=None) -> dict:
    """The state entry of ``g`` at ``index`` (a Grid's ``mask`` attribute: its allocation PE mask)."""
    padded = any(g.defined[r][c] for r in range(g.rows) for c in range(g.cols)
                 if r >= g.valid[0] or c >= g.valid[1])
    out = engine.tile(index, g.dtype, g.capacity, g.cols, g.valid, g.valid_words(), layout, "all" if padded else None)
    if padded:
        extra = {f"{r},{c}": Hex(g.words[r][c]) for r in range(g.rows) for c in range(g.cols)
                 if (r >= g.valid[0] or c >= g.valid[1]) and g.words[r][c]}
        if extra:
            out["elements"] = extra
    if getattr(g, "mask", None):
        out["mask"] = g.mask
    return out


def expect_tile(index: int, g: ref.Grid, *, carrier: bool, layout="RowMajor", location="Any", mask="1111") -> dict:
    """The expected destination: descriptor, element bits, whole Words (``carrier``), and the
    padding: uniform ({defined, value, word}) or, where it differs, per coordinate."""
    m = ref.mask(g.dtype)
    out = {"index": index, "dtype": g.dtype, "layout": layout, "location": location, "rows": g.rows, "cols": g.cols,
           "valid": Flow(g.valid), "capacity": g.capacity, "mask": mask,
           "data": hexrows([[w & m for w in row] for row in g.valid_words()])}
    if carrier:
        out["words"] = hexrows(g.valid_words())
    outside = [(r, c) for r in range(g.rows) for c in range(g.cols) if r >= g.valid[0] or c >= g.valid[1]]
    if not outside:
        return out
    states = {(g.defined[r][c], g.words[r][c] if g.defined[r][c] else 0) for r, c in outside}
    if len(states) == 1:
        defined, word = states.pop()
        padding = {"defined": defined}
        if defined:
            padding["value"] = Hex(word & m)
            if carrier:
                padding["word"] = Hex(word)
        out["padding"] = FlowMap(padding)
    else:
        out["elements"] = {f"{r},{c}": FlowMap({"value": Hex(g.words[r][c] & m), "defined": True})
                           if g.defined[r][c] else FlowMap({"defined": False}) for r, c in outside}
    return out


def smallest_capacity(t: str, cols: int, rows: int) -> int:
    capacity = 128
    while rows_of(capacity, cols, t) < rows:
        capacity *= 2
    return capacity


def source(t: str, rows, cols=None, capacity=None, padding=None) -> ref.Grid:
    """A source Grid holding ``rows`` (its valid region) in the smallest tile (or the one given)."""
    valid = (len(rows), len(rows[0]))
    cols = cols or engine.pow2_at_least(valid[1])
    return grid(t, capacity or smallest_capacity(t, cols, valid[0]), cols, valid, rows, padding)


def pattern_rows(t: str, rows: int, cols: int, shift: int = 0) -> list:
    """rows x cols of the type's distinct bit patterns, each row rotated by one more."""
    values = ref.patterns(t)
    return [[values[(r + c + shift) % len(values)] for c in range(cols)] for r in range(rows)]


# ---------------------------------------------------------------------------------------
# The operations through the reference

def reference_result(op: str, destination: ref.Grid, sources, scalar=0, offsets=(0, 0), pad_word=None) -> ref.Grid:
    if op == "TFILLPAD":
        return ref.fillpad(destination, sources[0], scalar)
    if op == "TCONCAT":
        return ref.concat(destination, *sources)
    if op == "TEXTRACT":
        return ref.extract(destination, sources[0], *offsets, pad_word)
    if op == "TINSERT":
        return ref.insert(destination, sources[0], sources[1], *offsets)
    return ref.transpose(destination, sources[0])


def finish(result: ref.Grid, capacity: int) -> ref.Grid:
    result.capacity = capacity
    return result


def block_case(name, description, op, t, sources, *, dims=None, size=None, datr=None, scalar=None, gpr=5,
               profiles=BOTH, source_kind="reference-generator", reference="", carrier=None, status=0,
               layouts=None, asserted=None, indices=None, raw=False, bstart=None, result_layout="RowMajor",
               mask="1111", pad_word=None) -> dict:
    """A completed block of ``op`` over the source Grids (state T0, T1, ... unless ``indices``):
    the destination derived as the open schema does (each nonzero LB, else the first source's)."""
    dims = dict(dims or {})
    reference = reference or REFERENCE[op]
    indices = indices or list(range(len(sources)))
    first = sources[0]
    d_type = "FP64" if datr else t
    valid = (dims.get("LB1") or first.valid[0], dims.get("LB0") or first.valid[1])
    cols = dims.get("LB2") or first.cols
    # TFILLPAD's destination needs the source's physical rows too
    capacity = size or smallest_capacity(d_type, cols, max(valid[0], first.rows if op == "TFILLPAD" else 0))
    destination = grid(d_type, capacity, cols, valid)
    if not (destination.rows and valid[0] <= destination.rows and valid[1] <= cols):
        raise ValueError(f"{op} {name}: the derived destination {valid} in {cols} columns does not fit {capacity} B")
    offsets = (dims.get("LB0") or 0, dims.get("LB1") or 0)
    result = finish(reference_result(op, destination, sources, scalar or 0, offsets, pad_word), capacity)
    if asserted is not None:
        asserted(result)
    dst = first_free(indices)
    carrier = profiles == ["pto-v0"] if carrier is None else carrier
    program = engine.bundle_text(bstart or f"BSTART.{ENGINE[op]} {op}, {t}", datr=datr,
                                 dims={k: dims.get(k) for k in ("LB0", "LB1", "LB2")},
                                 bindings=[iot_line(indices, size_code(capacity), mask=mask)],
                                 gpr=gpr if scalar is not None else None)
    if raw:
        program = engine.raw_bstart_program(program, bstart_word(op, t))
    state = {"tiles": [state_tile(i, g, (layouts or {}).get(i)) for i, g in zip(indices, sources)]}
    if status:
        state["status"] = Hex(status)
    if scalar is not None:
        state["gprs"] = engine.gpr_map({gpr: scalar})
    expect = engine.success_expect(status, sorted({*indices, dst}), sorted(set(indices)),
                                   [expect_tile(dst, result, carrier=carrier, layout=result_layout, mask=mask)])
    return case(name, description, list(profiles), source_kind, reference, state, program, expect)


def direct_case(name, description, op, sources, destination: ref.Grid, *, scalar=None, offsets=(0, 0), pad=None,
                profiles=BOTH, source_kind="reference-generator", reference="", carrier=None, asserted=None,
                indices=None, dst=None, status=0) -> dict:
    """A completed direct call into the configured ``destination`` (state index ``dst``)."""
    indices = indices or list(range(len(sources)))
    reference = reference or REFERENCE[op]
    dst = len(indices) if dst is None else dst
    pad_word = engine.pad_word(pad, destination.dtype) if pad not in (None, "Null") else None
    result = finish(reference_result(op, destination, sources, scalar or 0, offsets, pad_word), destination.capacity)
    if asserted is not None:
        asserted(result)
    carrier = profiles == ["pto-v0"] if carrier is None else carrier
    arguments = {"scalar": scalar, "pad": pad}
    if op in ("TEXTRACT", "TINSERT"):
        arguments.update(row_offset=offsets[0], column_offset=offsets[1])
    program = engine.direct_call(op, dst, indices, **arguments)
    tiles = [state_tile(i, g) for i, g in zip(indices, sources)]
    if dst not in indices:
        tiles.append(state_tile(dst, destination))
    state = {"tiles": tiles}
    if status:
        state["status"] = Hex(status)
    others = sorted(set(indices) - {dst})
    expect = engine.success_expect(status, sorted({*indices, dst}), others,
                                   [expect_tile(dst, result, carrier=carrier)])
    return case(name, description, list(profiles), source_kind, reference, state, program, expect)


def fault_case(name, description, tiles, program, fault="Fault_TileLegality", *, reference="", gprs=None,
               status=None, source_kind="hand") -> dict:
    reference = reference or LEGALITY_REFERENCE
    return engine.fault_case(name, description, tiles, program, fault, source=source_kind, reference=reference,
                             profiles=BOTH, gprs=gprs, status=status)


def block_text(op, t, indices, *, dims=None, size=1, datr=None, gpr=None, mask="1111", bstart=None) -> str:
    return engine.bundle_text(bstart or f"BSTART.{ENGINE[op]} {op}, {t}", datr=datr, dims=dims or {},
                              bindings=[iot_line(indices, size, mask=mask)], gpr=gpr)


def expects(expected_rows, what: str):
    """An ``asserted`` check: the result's valid region equals the spec's rows."""
    def check(result: ref.Grid):
        got = [[w & ref.mask(result.dtype) for w in row] for row in result.valid_words()]
        if got != expected_rows:
            raise ValueError(f"{what}: the spec asserts {expected_rows}, the reference gives {got}")
    return check


# ---------------------------------------------------------------------------------------
# Spec test points

def t_static(op, test_id):
    spec = OPERATION_TABLE[op]
    t, rows = "U8", [[1, 2, 3], [4, 5, 6]]
    what = (f"DecodeTileOperation(TEPL, {spec['selector']}) selects {op}, handler {spec['semantic_handler']}, "
            f"engine {spec['engine']}")
    reference = spec_ref(test_id, what)
    word = bstart_word(op, t)
    sources, dims = static_operands(op, t, rows)
    common = dict(dims=dims, source_kind="spec-test", reference=reference, scalar=0x5A if op == "TFILLPAD" else None)
    return [
        block_case(f"bstart-{ENGINE[op].lower()}-{op.lower()}-u8", f"""BSTART.{ENGINE[op]} {op}, U8 = {word:#010x}
            (Mode {spec['mode']}, Function {spec['function']}: selector {spec['selector']}) runs {op}.""", op, t,
                   sources, **common),
        block_case("bstart-tepl-mode-function", f"""BSTART.TEPL {spec['mode']}, {spec['function']}, U8: the same
            word, the same block.""", op, t, sources, bstart=f"BSTART.TEPL {spec['mode']}, {spec['function']}, U8",
                   **common),
        block_case("raw-bstart-word", f"""The BSTART as the raw word {word:#010x} packed by hand from command form
            33 (match 0x00019181, DataType 31:27, Mode 26:25, Function 24:20).""", op, t, sources, raw=True,
                   **common),
    ]


def static_operands(op, t, rows):
    """Sources and B.DIM of a small legal block of ``op``."""
    src = source(t, rows)
    if op == "TFILLPAD":
        return [src], {"LB0": 4, "LB1": 3}
    if op == "TCONCAT":
        return [src, source(t, [[7], [8]])], {"LB0": 4}
    if op == "TEXTRACT":
        return [src], {}
    if op == "TINSERT":
        return [src, source(t, [[9]])], {}
    return [src], {"LB0": 2, "LB1": 3}


def t_fillpad_scalar(op, test_id):
    what = "(0,0) = 1 copied; (0,2) and (1,1) = 0xaa, the low 8 bits of 0x1aa; (31,3) defined"
    reference = spec_ref(test_id, what)
    src = grid("U8", 128, 4, (1, 2), [[1, 2]])
    dst = grid("U8", 128, 4, (2, 3))
    check = expects([[1, 2, 0xAA], [0xAA, 0xAA, 0xAA]], "TFILLPAD-SCALAR")
    return [
        direct_case("direct-call", f"The spec test point as a direct call into T2 (U8 4x32, valid 2x3): {what}.",
                    op, [src], dst, scalar=0x1AA, indices=[1], dst=2, source_kind="spec-test", reference=reference,
                    asserted=check),
        block_case("bundle", """The same values through a block: LB0=3, LB1=2 size the destination's valid
            region, B.IOR R5 gives the fill 0x1aa; every coordinate outside the source's 1x2 is 0xaa, defined.""",
                   op, "U8", [src], dims={"LB0": 3, "LB1": 2}, size=128, scalar=0x1AA, indices=[1],
                   reference=reference, asserted=check),
    ]


def t_concat_columns(op, test_id):
    left = grid("U8", 128, 4, (2, 2), [[1, 2], [3, 4]])
    right = grid("U8", 128, 4, (2, 1), [[5], [6]])
    what = "each row is the left source's row followed by the right source's: [1, 2, 5], [3, 4, 6]"
    reference = spec_ref(test_id, what)
    check = expects([[1, 2, 5], [3, 4, 6]], "TCONCAT-COLUMNS")
    return [
        direct_case("direct-call", f"The spec's columns point as a direct call: {what}.", op, [left, right],
                    grid("U8", 128, 4, (2, 3)), indices=[1, 2], dst=3, source_kind="spec-test", reference=reference,
                    asserted=check),
        block_case("bundle", """The same through a block: LB0=3 gives the destination's three valid columns, the
            rows follow the left source.""", op, "U8", [left, right], dims={"LB0": 3}, indices=[1, 2],
                   reference=reference, asserted=check),
    ]


def t_extract_window(op, test_id):
    rows = [[r * 4 + c for c in range(4)] for r in range(3)]
    src = grid("U8", 128, 4, (3, 4), rows)
    what = "offsets (1, 1): destination (0,0) = 5 and (1,1) = 10"
    reference = spec_ref(test_id, what)
    return [
        direct_case("direct-call", f"The spec test point as a direct call into T2 (U8 4x32, valid 2x2): {what}.",
                    op, [src], grid("U8", 128, 4, (2, 2)), offsets=(1, 1), indices=[1], dst=2,
                    source_kind="spec-test", reference=reference, asserted=expects([[5, 6], [9, 10]], "WINDOW")),
        block_case("bundle-offsets-size-the-window", """SPEC-CHOICE 47: a block's offsets are LB0 (rows) and LB1
            (columns), which also give the derived destination's valid columns and rows: LB0=1, LB1=1 extract the
            1x1 window at (1, 1), 5.""", op, "U8", [src], dims={"LB0": 1, "LB1": 1}, indices=[1],
                   reference=reference, asserted=expects([[5]], "WINDOW bundle")),
    ]


def t_insert_old(op, test_id):
    old = grid("U8", 128, 4, (2, 3), [[1, 1, 1], [1, 1, 1]])
    src = grid("U8", 128, 1, (1, 1), [[9]])
    what = "(0,0) = 1 and (1,2) = 1 persist from the old destination, (1,1) = 9 is inserted"
    reference = spec_ref(test_id, what)
    return [
        direct_case("direct-call", f"The spec test point as a direct call TINSERT(3, 1, 2, 1, 1): {what}.", op,
                    [old, src], grid("U8", 128, 4, (2, 3)), offsets=(1, 1), indices=[1, 2], dst=3,
                    source_kind="spec-test", reference=reference, asserted=expects([[1, 1, 1], [1, 9, 1]], "OLD")),
        block_case("bundle-at-origin", """The same old destination and source through a block without offsets
            (LB0, LB1 omitted: the destination takes the old destination's shape): 9 lands at (0, 0), the rest
            persists.""", op, "U8", [old, src], indices=[1, 2], reference=reference,
                   asserted=expects([[9, 1, 1], [1, 1, 1]], "OLD bundle")),
    ]


def t_trans_rect(op, test_id):
    src = grid("U8", 128, 4, (2, 3), [[1, 2, 3], [4, 5, 6]])
    what = "source (r, c) is destination (c, r): [[1, 4], [2, 5], [3, 6]]"
    reference = spec_ref(test_id, what)
    check = expects([[1, 4], [2, 5], [3, 6]], "TTRANS-RECT")
    return [
        direct_case("direct-call", f"The spec's non-square point as a direct call into a 3x2 destination: {what}.",
                    op, [src], grid("U8", 128, 4, (3, 2)), indices=[1], dst=2, source_kind="spec-test",
                    reference=reference, asserted=check),
        block_case("bundle", """The same through a block: LB0=2, LB1=3 give the transposed valid region.""", op,
                   "U8", [src], dims={"LB0": 2, "LB1": 3}, indices=[1], reference=reference, asserted=check),
    ]


EXECUTION = {"TFILLPAD": t_fillpad_scalar, "TCONCAT": t_concat_columns, "TEXTRACT": t_extract_window,
             "TINSERT": t_insert_old, "TTRANS": t_trans_rect}


def spec_cases(op: str, test_id: str) -> list:
    if engine.spec_point(op, test_id) == "STATIC":
        return t_static(op, test_id)
    return EXECUTION[op](op, test_id)


# ---------------------------------------------------------------------------------------
# PTO-AVS-X-<OP>-REF-001: types, carriers, geometry, legality

def type_sweep(op) -> list:
    """Every legal type: a block over a source of the type's bit patterns (4-bit types packed)."""
    out = []
    for t in ref.TYPES[op]:
        n = len(ref.patterns(t))
        rows = pattern_rows(t, 3, n)
        what = f"{t}: {n} distinct bit patterns per row"
        if op == "TFILLPAD":
            fill = ref.patterns(t)[-1]
            out.append(block_case(f"{t.lower()}-patterns", f"""{what}, the destination one row and two columns
                larger, filled with {fill:#x}.""", op, t, [source(t, rows)],
                                  dims={"LB0": n + 2, "LB1": 4, "LB2": engine.pow2_at_least(n + 2)},
                                  scalar=fill))
        elif op == "TCONCAT":
            out.append(block_case(f"{t.lower()}-patterns", f"""{what}: the left source's {n} columns then the
                right's {n - 2}.""", op, t, [source(t, rows), source(t, pattern_rows(t, 3, n - 2, 1))],
                                  dims={"LB0": 2 * n - 2, "LB2": engine.pow2_at_least(2 * n - 2)}))
        elif op == "TEXTRACT":
            src = source(t, pattern_rows(t, 4, n))
            out.append(direct_case(f"{t.lower()}-patterns", f"""{what}: the window at offsets (1, 2) of the
                destination's 3 x {n - 3} valid region (direct call).""", op, [src], grid(t, src.capacity, src.cols,
                                                                                          (3, n - 3)),
                                   offsets=(1, 2)))
        elif op == "TINSERT":
            old = source(t, pattern_rows(t, 4, n))
            out.append(direct_case(f"{t.lower()}-patterns", f"""{what}: a 2 x {n - 2} source inserted at offsets
                (2, 2) of the old destination (direct call).""", op,
                                   [old, source(t, pattern_rows(t, 2, n - 2, 3))],
                                   grid(t, old.capacity, old.cols, old.valid), offsets=(2, 2)))
        else:
            out.append(block_case(f"{t.lower()}-patterns", f"""{what}: the 3 x {n} source transposed into
                {n} x 3.""", op, t, [source(t, rows)], dims={"LB0": 3, "LB1": n}))
    return out


def dirty(t: str, word: int) -> int:
    """``word`` with every carrier bit above the element width set (a non-packed Word)."""
    return (word | (WORD ^ ref.mask(t))) & WORD


def carriers(op) -> list:
    """pto-v0: the whole Word is copied, bits above the element width included; a packed
    destination keeps the element bits only."""
    out = []
    for t in ("S8", "U16", "FP32"):
        rows = [[dirty(t, w) for w in row] for row in pattern_rows(t, 2, 5)]
        what = f"{t} Words with every bit above the element width set"
        if op == "TFILLPAD":
            out.append(block_case(f"carrier-{t.lower()}", f"""{what} are copied whole; the fill is the element
                bits of a GPR whose upper bits are set too.""", op, t, [source(t, rows)], dims={"LB0": 7, "LB1": 3},
                                  scalar=dirty(t, 0x12), profiles=["pto-v0"]))
        elif op == "TCONCAT":
            out.append(block_case(f"carrier-{t.lower()}", f"{what} are copied whole from both sources.", op, t,
                                  [source(t, rows), source(t, rows[::-1])], dims={"LB0": 10, "LB2": 16},
                                  profiles=["pto-v0"]))
        elif op == "TEXTRACT":
            out.append(block_case(f"carrier-{t.lower()}", f"{what} are copied whole (no offsets: the whole source).",
                                  op, t, [source(t, rows)], profiles=["pto-v0"]))
        elif op == "TINSERT":
            out.append(block_case(f"carrier-{t.lower()}", f"""{what} are copied whole, the source's and the old
                destination's alike.""", op, t, [source(t, rows), source(t, [rows[1][:3]])], profiles=["pto-v0"]))
        else:
            out.append(block_case(f"carrier-{t.lower()}", f"{what} are copied whole to the transposed coordinates.",
                                  op, t, [source(t, rows)], dims={"LB0": 2, "LB1": 5}, profiles=["pto-v0"]))
    return out


def big_source(t="U8") -> ref.Grid:
    """A 64 KiB U8 tile, 256 x 256 (more elements than Word slots: a packed carrier), valid 3 x 5,
    allocated on PE 3 only (mask 0001), so that it and a 64 KiB destination fit the core capacity."""
    g = grid(t, 65536, 256, (3, 5), pattern_rows(t, 3, 5))
    g.mask = "0001"
    return g


def geometry(op) -> list:
    out = []
    if op == "TTRANS":
        out.append(block_case("square", "A square 4x4 U32 region transposed in place of its diagonal.", op, "U32",
                              [source("U32", [[r * 4 + c for c in range(4)] for r in range(4)])]))
        out.append(block_case("one-row", "A 1x7 FP16 row becomes a 7x1 column (a one-column destination).", op,
                              "FP16", [source("FP16", pattern_rows("FP16", 1, 7))], dims={"LB0": 1, "LB1": 7,
                                                                                         "LB2": 1}))
        out.append(block_case("packed-4bit", """A 5 x 12 S4X2 source (packed lanes) transposed into 12 x 5: lane
            order within a byte is not the element order across rows.""", op, "S4X2",
                              [source("S4X2", pattern_rows("S4X2", 5, 12), cols=16)], dims={"LB0": 5, "LB1": 12}))
        big = big_source()
        out.append(block_case("packed-carrier-64k", """A 64 KiB U8 source (256 x 256 elements, beyond the Word
            slots: a packed carrier) with a 3x5 valid region, transposed into a 64 KiB destination.""", op, "U8",
                              [big], dims={"LB0": 3, "LB1": 5}, size=65536, mask="0001"))
        src = source("U16", pattern_rows("U16", 3, 6), cols=8)
        out.append(block_case("column-major-source", """A ColumnMajor U16 source: the logical coordinates are
            transposed, not the storage order.""", op, "U16", [src], dims={"LB0": 3, "LB1": 6},
                              layouts={0: "ColumnMajor"}))
        out.append(direct_case("direct-into-written-destination", """A direct call into a destination whose padding
            is defined: the padding becomes Null (undefined), the valid region the transposed source.""", op,
                               [source("U8", [[1, 2, 3], [4, 5, 6]])],
                               grid("U8", 128, 4, (3, 2), [[9, 9], [9, 9], [9, 9]], padding={(0, 5): 7})))
    elif op == "TEXTRACT":
        src = source("U16", [[r * 16 + c for c in range(6)] for r in range(5)])
        for (ro, co), valid in (((0, 0), (5, 6)), ((4, 5), (1, 1)), ((2, 0), (3, 6)), ((0, 3), (5, 3))):
            out.append(direct_case(f"offsets-{ro}-{co}", f"""Offsets ({ro}, {co}) with a {valid[0]}x{valid[1]}
                window: its last row and column are the source's last (the bound holds with equality).""", op,
                                   [src], grid("U16", 128, 8, valid), offsets=(ro, co)))
        for pad in ("Zero", "Max", "Min", "Null"):
            out.append(direct_case(f"direct-pad-{pad.lower()}", f"""A direct call naming PadValue {pad}: the
                window's padding is the {pad} pad of S16.""", op, [source("S16", pattern_rows("S16", 3, 4))],
                                   grid("S16", 128, 8, (2, 2)), offsets=(1, 1), pad=pad))
        rows = pattern_rows("U8", 3, 6)
        out.append(block_case("bundle-no-dims", """A block with no B.DIM: offsets (0, 0) and the source's shape,
            a whole copy with Null padding.""", op, "U8", [source("U8", rows)]))
        out.append(block_case("bundle-lb0-lb1", """SPEC-CHOICE 47: LB0=2, LB1=3 are the row and column offsets and
            also the derived destination's valid columns (2) and rows (3): the 3x2 window at (2, 3) of a 6x6
            source.""", op, "U8", [source("U8", pattern_rows("U8", 6, 6))], dims={"LB0": 2, "LB1": 3}))
        out.append(block_case("bundle-lb2-columns", """LB2 gives the destination's physical columns (16) while
            the valid region follows the source.""", op, "U8", [source("U8", rows)], dims={"LB2": 16}))
        out.append(block_case("bundle-datr-pads-zero", """SPEC-CHOICE 49: a B.DATR (every field zero but the
            FP64 DataType it encodes by omission) makes CurrentBundlePadValue Zero, so the window's padding is
            defined 0; the source is FP64, the effective type.""", op, "FP64",
                              [source("FP64", pattern_rows("FP64", 2, 3))], datr="B.DATR Zero", pad_word=0))
        out.append(block_case("packed-carrier-64k", """A 64 KiB U8 source (a packed carrier) with a 3x5 valid
            region, copied whole into a 64 KiB destination.""", op, "U8", [big_source()], size=65536, mask="0001"))
        out.append(direct_case("packed-4bit-window", """An E2M1X2 window at an odd column offset (1, 3): lanes
            move across byte boundaries.""", op, [source("E2M1X2", pattern_rows("E2M1X2", 4, 10), cols=16)],
                               grid("E2M1X2", 128, 16, (3, 5)), offsets=(1, 3)))
    elif op == "TINSERT":
        old = source("U16", [[0x100 + r * 16 + c for c in range(6)] for r in range(5)])
        for (ro, co), valid in (((0, 0), (5, 6)), ((4, 5), (1, 1)), ((3, 0), (2, 6)), ((0, 4), (5, 2))):
            src = source("U16", [[0xF000 + r * 16 + c for c in range(valid[1])] for r in range(valid[0])])
            out.append(direct_case(f"offsets-{ro}-{co}", f"""A {valid[0]}x{valid[1]} source at offsets ({ro}, {co})
                reaches the old destination's last row and column; every other Word persists.""", op,
                                   [old, src], grid("U16", old.capacity, old.cols, old.valid), offsets=(ro, co)))
        padded = source("U8", [[1, 2, 3], [4, 5, 6]], padding={(0, 3): 0x77, (1, 3): 0x88, (5, 0): 0x99})
        out.append(block_case("old-padding-persists", """The old destination's padding is defined (and holds
            0x77, 0x88, 0x99 at three coordinates): TINSERT writes no padding, so the result's padding is the old
            destination's, Word and definedness.""", op, "U8", [padded, source("U8", [[0xA0, 0xA1]])]))
        partly = source("U8", [[1, 2, 3], [4, 5, 6]])
        out.append(block_case("old-padding-undefined", """The old destination's padding is undefined: it stays
            undefined.""", op, "U8", [partly, source("U8", [[0xB0], [0xB1]])]))
        out.append(direct_case("in-place", """A direct call whose destination is the old destination itself
            (T0): the window is replaced in place.""", op,
                               [source("S32", pattern_rows("S32", 3, 4)), source("S32", [[7, 8]])],
                               source("S32", pattern_rows("S32", 3, 4)), offsets=(2, 1), dst=0))
        out.append(direct_case("packed-4bit-window", """A U4X2 source at an odd column offset (2, 3) of a packed
            old destination: lanes move across byte boundaries.""", op,
                               [source("U4X2", pattern_rows("U4X2", 4, 10), cols=16),
                                source("U4X2", pattern_rows("U4X2", 2, 5, 2), cols=16)],
                               grid("U4X2", 128, 16, (4, 10)), offsets=(2, 3)))
    elif op == "TFILLPAD":
        src = source("U8", [[1, 2], [3, 4]], cols=8)
        out.append(block_case("fill-above-element-width", """A fill GPR 0xFFFFFFFFFFFF12AB: only the low 8 bits
            (0xAB) are written (TileRawElementValue).""", op, "U8", [src], dims={"LB0": 5, "LB1": 3},
                              scalar=0xFFFFFFFFFFFF12AB))
        out.append(block_case("no-ior-fills-zero", """No B.IOR: the fill scalar is 0, every coordinate outside the
            source's 2x2 is 0 and defined.""", op, "U16", [source("U16", [[5, 6], [7, 8]], cols=8)], dims={"LB0": 4}))
        out.append(block_case("same-shape", """The destination's shape equals the source's: the source's padding
            coordinates (undefined there) become the fill, defined.""", op, "S16",
                              [source("S16", pattern_rows("S16", 2, 3))], scalar=0x8001))
        out.append(block_case("larger-columns", """LB2=64 gives more physical columns than the source's: every
            one of them is filled.""", op, "FP16", [source("FP16", pattern_rows("FP16", 2, 3))],
                              dims={"LB0": 3, "LB1": 2, "LB2": 64}, scalar=0x7E00))
        out.append(block_case("packed-carrier-64k", """A 64 KiB U8 destination (a packed carrier): 65536 defined
            elements, the fill at every one outside the source's 3x5.""", op, "U8", [big_source()], size=65536,
                              scalar=0x3C, mask="0001"))
        out.append(direct_case("direct-source-padding-ignored", """The source's padding is defined (0x55 at
            (0, 3)), but only its valid region is copied; the destination's larger valid region is filled.""", op,
                               [source("U8", [[1, 2, 3]], cols=8, padding={(0, 3): 0x55})], grid("U8", 128, 8, (2, 5)),
                               scalar=0xEE))
    else:  # TCONCAT
        out.append(block_case("one-column-each", """Two one-column S32 sources make a two-column row block.""", op,
                              "S32", [source("S32", [[1], [2], [3]], cols=2), source("S32", [[4], [5], [6]])],
                              dims={"LB0": 2}))
        out.append(block_case("wide-right", """A 1-column left and a 9-column right source: the right source's
            column 0 lands at destination column 1.""", op, "U8",
                              [source("U8", [[1], [2]], cols=16), source("U8", pattern_rows("U8", 2, 9))],
                              dims={"LB0": 10}))
        out.append(block_case("packed-4bit", """U4X2 sources of 3 and 5 columns (packed lanes): the right source
            starts at an odd column.""", op, "U4X2",
                              [source("U4X2", pattern_rows("U4X2", 2, 3), cols=16),
                               source("U4X2", pattern_rows("U4X2", 2, 5, 1), cols=16)], dims={"LB0": 8}))
        out.append(block_case("packed-carrier-64k", """A 64 KiB U8 left source (a packed carrier), a small right
            source, into a 64 KiB destination.""", op, "U8", [big_source(), source("U8", [[1], [2], [3]])],
                              dims={"LB0": 6}, size=65536, mask="0001"))
        out.append(direct_case("direct-into-written-destination", """A direct call into a destination whose
            padding is defined: it becomes Null (undefined).""", op,
                               [source("U8", [[1], [2]], cols=2), source("U8", [[3], [4]])],
                               grid("U8", 128, 8, (2, 2), [[0, 0], [0, 0]], padding={(1, 4): 9})))
    return out


def status_and_blocks(op) -> list:
    """A nonzero NumericStatus survives: the operation raises no flag, in one block or two."""
    t = "U8"
    sources, dims = static_operands(op, t, [[1, 2, 3], [4, 5, 6]])
    scalar = 0x11 if op == "TFILLPAD" else None
    out = [block_case("status-survives", """NumericStatus 0x1f before the block: a bit copy raises no flag and
        clears none.""", op, t, sources, dims=dims, scalar=scalar, status=0x1F)]
    indices = list(range(len(sources)))
    d1 = first_free(indices)
    first = block_text(op, t, indices, dims=dims, gpr=5 if scalar else None)
    again = block_text(op, t, [d1] + indices[1:], dims=second_dims(op, dims), gpr=5 if scalar else None,
                       size=2 if op == "TFILLPAD" else 1)  # TFILLPAD: the first result's 32 rows at 8 columns
    state = {"tiles": [state_tile(i, g) for i, g in zip(indices, sources)], "status": Hex(0x0A)}
    if scalar:
        state["gprs"] = engine.gpr_map({5: scalar})
    out.append(case("two-blocks-status-accumulates", """Two blocks in one program, the second on the first's
        result, from NumericStatus 0x0a: the status after both is still 0x0a (neither raises a flag).""", BOTH,
                    "hand", LEGALITY_REFERENCE, state, first + "\n" + again,
                    {"fault": None, "flags": Hex(0x0A), "allocated": Flow(sorted({*indices, d1, first_free([*indices, d1])})),
                     "unchanged": Flow(indices)}))
    return out


def second_dims(op, dims):
    """The B.DIM of a second block over the first's result."""
    if op == "TTRANS":
        return {"LB0": dims["LB1"], "LB1": dims["LB0"]}
    if op == "TCONCAT":
        return {"LB0": dims["LB0"] + 1, "LB2": 8}
    if op == "TFILLPAD":
        return {"LB0": dims["LB0"] + 1, "LB1": dims["LB1"], "LB2": 8}
    return {}


def legality(op) -> list:
    """Each operand rule, the B.DATR and B.IOR rules, the allocation, in the flow's order."""
    t = "U8"
    sources, dims = static_operands(op, t, [[1, 2, 3], [4, 5, 6]])
    indices = list(range(len(sources)))
    tiles = [state_tile(i, g) for i, g in zip(indices, sources)]
    gpr = 5 if op == "TFILLPAD" else None
    gprs = {5: 0x3} if gpr else None
    out = [
        fault_case("bstart-type-differs", """The BSTART type (U16) is the destination's and differs from the
            sources' (U8): Fault_TileLegality.""", tiles, block_text(op, "U16", indices, dims=dims, gpr=gpr),
                   gprs=gprs),
        fault_case("datr-pad-nonzero", """B.DATR PadValue Max (code 01) on an operation whose PadValue must be
            zero: Fault_TileLegality.""", tiles, block_text(op, t, indices, dims=dims, datr="B.DATR U8, Max",
                                                            gpr=gpr), gprs=gprs),
        fault_case("datr-datatype-nonzero", """B.DATR DataType U8: only Layout may be nonzero, so
            Fault_TileLegality.""", tiles, block_text(op, t, indices, dims=dims, datr="B.DATR U8", gpr=gpr),
                   gprs=gprs),
        fault_case("datr-fp64-effective-type", """A B.DATR with no DataType encodes FP64 (code 0), the effective
            type: the FP64 destination differs from the U8 sources, Fault_TileLegality.""", tiles,
                   block_text(op, t, indices, dims=dims, datr="B.DATR Zero", gpr=gpr, size=2), gprs=gprs),
        fault_case("undefined-source", """The first source's valid region is undefined: Fault_TileLegality.""",
                   [dict(tiles[0], defined="none")] + tiles[1:], block_text(op, t, indices, dims=dims, gpr=gpr),
                   gprs=gprs),
        fault_case("allocation-too-small", """LB2=4096 columns of U8 do not fit a 128-byte destination:
            Fault_TileAllocation before any operand rule.""", tiles,
                   block_text(op, t, indices, dims=dict(dims, LB2=4096), gpr=gpr), "Fault_TileAllocation",
                   gprs=gprs),
        fault_case("hif4x2-not-move24", """HiF4X2 is outside the operation's types: Fault_TileLegality.""",
                   [state_tile(i, source("HiF4X2", g.valid_words())) for i, g in zip(indices, sources)],
                   block_text(op, "HiF4X2", indices, dims=dims, gpr=gpr),
                   gprs=gprs),
    ]
    if op != "TFILLPAD":
        out.append(fault_case("surplus-ior", """A B.IOR naming a GPR the operation does not read:
            Fault_BundleControl.""", tiles, block_text(op, t, indices, dims=dims, gpr=5), "Fault_BundleControl",
                              gprs={5: 1}))
    else:
        out.append(fault_case("surplus-ior-second", """A B.IOR naming a second GPR (RegSrc1) that TFILLPAD does
            not read: Fault_BundleControl.""", tiles,
                              block_text(op, t, indices, dims=dims).replace("BSTOP", "B.IOR R5, R6\nBSTOP"),
                              "Fault_BundleControl", gprs={5: 1, 6: 2}))
        for t64 in ("FP64", "S64", "U64"):
            out.append(fault_case(f"{t64.lower()}-not-carrier-only", f"""SPEC-CHOICE 48: {t64} is in the contract's
                TileFillPadDataTypeSupported but not in the operand rule's TileCarrierOnlyDataTypeSupported:
                Fault_TileLegality.""", [state_tile(0, source(t64, [[1, 2]], cols=4))],
                                  block_text(op, t64, [0], dims={"LB0": 3}, gpr=5), gprs={5: 0}))
        out.append(block_case("hif8-carrier-only", """SPEC-CHOICE 48: HiF8 is outside the contract's
            TileFillPadDataTypeSupported but carrier-only, so the operand rule accepts it.""", op, "HiF8",
                              [source("HiF8", [[0x12, 0x34]], cols=4)], dims={"LB0": 3}, scalar=0xC0))
    count = 2 if op in ("TCONCAT", "TINSERT") else 1
    wrong = [0, 0] if count == 1 else [0]
    out.append(fault_case("wrong-source-count", f"""{'Two sources' if count == 1 else 'One source'} where {op}
        binds {count}: Fault_BundleControl.""", tiles[:1], block_text(op, t, wrong, dims=dims, gpr=gpr),
                          "Fault_BundleControl", gprs=gprs))
    out += shape_faults(op)
    return out


def shape_faults(op) -> list:
    """The operation's own shape rules, each one past its bound (direct calls and blocks)."""
    def call_fault(name, description, srcs, destination, **arguments):
        tiles = [state_tile(i, g) for i, g in enumerate(srcs)] + [state_tile(len(srcs), destination)]
        return fault_case(name, description, tiles, engine.direct_call(op, len(srcs), list(range(len(srcs))),
                                                                         **arguments))
    src = source("U16", [[r * 16 + c for c in range(6)] for r in range(5)])
    if op == "TEXTRACT":
        return [call_fault("row-offset-one-past", "Offset 1 row past the bound (1 + 5 > 5): Fault_TileLegality.",
                           [src], grid("U16", 128, 8, (5, 6)), row_offset=1, column_offset=0),
                call_fault("column-offset-one-past", "Offsets (4, 6) with a 1x1 window: 6 + 1 > 6.", [src],
                           grid("U16", 128, 8, (1, 1)), row_offset=4, column_offset=6),
                fault_case("bundle-window-outside", """SPEC-CHOICE 47: LB0=3, LB1=4 give a 4x3 destination at
                    offsets (3, 4) of a 5x6 source: 3 + 4 > 5, Fault_TileLegality.""", [state_tile(0, src)],
                           block_text(op, "U16", [0], dims={"LB0": 3, "LB1": 4}))]
    if op == "TINSERT":
        old = src
        return [call_fault("row-offset-one-past", "A 2x6 source at row offset 4 of a 5-row old destination.",
                           [old, source("U16", [[1] * 6, [2] * 6])], grid("U16", old.capacity, old.cols, old.valid),
                           row_offset=4, column_offset=0),
                call_fault("column-offset-one-past", "A 1x2 source at column offset 5 of a 6-column destination.",
                           [old, source("U16", [[1, 2]])], grid("U16", old.capacity, old.cols, old.valid),
                           row_offset=0, column_offset=5),
                call_fault("old-shape-differs", """The old destination's valid region (5x6) differs from the
                    destination's (5x5): TileShapeAndTypeMatch fails.""", [old, source("U16", [[1]])],
                           grid("U16", old.capacity, old.cols, (5, 5)), row_offset=0, column_offset=0)]
    if op == "TTRANS":
        return [fault_case("bundle-not-transposed", """No B.DIM on a 5x6 source: the derived destination is 5x6,
            not the transposed 6x5, Fault_TileLegality.""", [state_tile(0, src)], block_text(op, "U16", [0])),
                call_fault("direct-square-mismatch", "A 6x6 destination for a 5x6 source.", [src],
                           grid("U16", 256, 8, (6, 6)))]
    if op == "TCONCAT":
        return [call_fault("rows-differ", "A 2-row left and a 3-row right source.",
                           [source("U8", [[1], [2]]), source("U8", [[3], [4], [5]])], grid("U8", 128, 8, (2, 2))),
                call_fault("columns-not-summed", "A 3-column destination for 1 + 1 source columns.",
                           [source("U8", [[1], [2]]), source("U8", [[3], [4]])], grid("U8", 128, 8, (2, 3)))]
    return [call_fault("destination-fewer-rows", """A destination of fewer physical rows (2) than the source's
                (8): Fault_TileLegality.""", [source("U8", [[1, 2]], cols=16)], grid("U8", 128, 64, (1, 2)),
                       scalar=1),
            call_fault("destination-smaller-valid", "A destination valid region 1x1 under the source's 1x2.",
                       [source("U8", [[1, 2]], cols=8)], grid("U8", 128, 8, (1, 1)), scalar=1)]


def x_file(op: str) -> dict:
    return {"format": "pto-avs-vector/1", "id": f"PTO-AVS-X-{op}-REF-001", "operation": op, "kind": "execution",
            "summary": f"{op} over every legal type x bit patterns, carriers, geometry, pads and legality",
            "exercises": Flow(UNITS[op]["readiness_subjects"]),
            "provenance": ("Expected values from the independent rearrangement reference "
                           "vectors/reference/rearrange.py (the ASL's coordinate loops over plain Python lists; no "
                           f"code shared with device_model), written by `{COMMAND}`. Nothing here was produced by "
                           "running the golden model."),
            "cases": type_sweep(op) + carriers(op) + geometry(op) + status_and_blocks(op) + legality(op)}


# ---------------------------------------------------------------------------------------
# PTO-AVS-X-<OP>-STRENGTH-001: the condition classes of issue 30 a bit copy can show

NV = 0x01
SNAN = 0x7F800001  # an FP32 signalling NaN: comparing with it is invalid (NV) in both profiles


def strength_cases(op) -> list:
    t = "U8"
    sources, dims = static_operands(op, t, [[1, 2, 3], [4, 5, 6]])
    scalar = 0x5A if op == "TFILLPAD" else None
    indices = list(range(len(sources)))
    lone = dict(dims=dims, scalar=scalar, source_kind="reference-generator")
    out = [block_case("status-twin-clear", f"""The twin of status-twin-survives: the same block from NumericStatus 0;
        {op} raises no flag.""", op, t, sources, **lone),
           block_case("status-twin-survives", """The same block from NumericStatus 0x15: the status is kept whole
        (a device that writes the operation's own flags over it loses it).""", op, t, sources, status=0x15, **lone)]
    # a flag-raising TCMPS block first, then the operation; its twin runs the operation's block alone
    a = len(indices)
    fp32 = [engine.tile(a, "FP32", 128, 4, (1, 4), [[0x3F800000, 0x40000000, 0x3F000000, 0x40400000]])]
    state = {"tiles": [state_tile(i, g) for i, g in zip(indices, sources)] + fp32}
    state["gprs"] = engine.gpr_map({5: scalar, 6: SNAN} if scalar else {6: SNAN})
    mine = block_text(op, t, indices, dims=dims, gpr=5 if scalar else None)
    tcmps = block_text("TCMPS", "FP32", [a], dims={"LB0": 4}, gpr=6, bstart="BSTART.VEC TCMPS, FP32")
    first_dst = first_free(indices + [a])
    both = sorted({*indices, a, first_dst, first_free(indices + [a, first_dst])})
    out.append(case("blocks-accumulate", f"""Two blocks: TCMPS FP32 against a signalling-NaN scalar raises NV, then
        {op} raises none;
        NumericStatus after the program is NV (a block that clears or overwrites the status loses it). The twin
        last-block-alone runs the {op} block alone on the same state.""", BOTH, "reference-generator",
                    REFERENCE[op], state, tcmps + "\n" + mine,
                    {"fault": None, "flags": Hex(NV), "allocated": Flow(both), "unchanged": Flow(indices + [a])}))
    out.append(case("last-block-alone", f"The {op} block of blocks-accumulate alone on the same state: no flag.",
                    BOTH, "reference-generator", REFERENCE[op], state, mine,
                    {"fault": None, "flags": Hex(0), "allocated": Flow(sorted({*indices, a, first_dst})),
                     "unchanged": Flow(indices + [a])}))
    if op == "TEXTRACT":
        out.append(direct_case("carrier-pad-max", """pto-v0: the window's padding under PadValue Max is the S8 Max
            Word 0x7f at every padded coordinate, and the window keeps its sign-extended carrier Words.""", op,
                               [source("S8", [[dirty("S8", w) for w in row] for row in pattern_rows("S8", 3, 5)],
                                       cols=8)],
                               grid("S8", 128, 8, (2, 3)), offsets=(1, 2), pad="Max", profiles=["pto-v0"]))
    if op == "TINSERT":
        old = grid("S8", 128, 8, (2, 3), pattern_rows("S8", 2, 3))
        for r in range(old.rows):
            for c in range(old.cols):
                if r >= 2 or c >= 3:
                    old.write(r, c, 0xFFFFFFFFFFFFFF80)
        out.append(direct_case("carrier-pad-old", """pto-v0: the old destination's padding holds the Word
            0xffffffffffffff80 at every coordinate; TINSERT keeps it, whole, in the result.""", op,
                               [old, source("S8", [[0x11]])], grid("S8", 128, 8, (2, 3)), offsets=(1, 2),
                               profiles=["pto-v0"]))
    return out


def strength_file(op: str) -> dict:
    cases = strength_cases(op)
    return {"format": "pto-avs-vector/1", "id": f"PTO-AVS-X-{op}-STRENGTH-001", "operation": op,
            "kind": "execution",
            "summary": f"{op}: a nonzero status survives, a flag of an earlier block accumulates, padding Words",
            "exercises": Flow(UNITS[op]["readiness_subjects"]), **engine.also_exercises(op, cases),
            "provenance": ("Expected values from the independent rearrangement reference "
                           "vectors/reference/rearrange.py; the TCMPS block's NV is its signalling-NaN scalar "
                           "(TileProfileFloatingCompare). Written by "
                           f"`{COMMAND}`. Nothing here was produced by running the golden model."),
            "cases": cases}


def size_cases(op) -> list:
    """A 64 KiB tile (the model's largest) whose element 0 and element 4096 differ: a device
    whose element index wraps at 4096 copies the wrong Word."""
    def big(rows, cols):
        g = grid("U8", 65536, 256, (rows, cols), pattern_rows("U8", rows, cols))
        g.mask = "0001"
        return g
    what = "a 64 KiB U8 tile on PE 3 (mask 0001) with a 17 x 256 valid region: elements 0 and 4096 differ"
    common = dict(size=65536, mask="0001")
    if op == "TFILLPAD":
        return [block_case("size-64k", f"{what}; the fill 0x3c elsewhere.", op, "U8", [big(17, 256)], scalar=0x3C,
                           **common)]
    if op == "TTRANS":
        return [block_case("size-64k", f"{what}, transposed into 256 x 17 in 32 columns.", op, "U8", [big(17, 256)],
                           dims={"LB0": 17, "LB1": 256, "LB2": 32}, **common)]
    if op == "TEXTRACT":
        return [block_case("size-64k", f"{what}, copied whole (no offsets).", op, "U8", [big(17, 256)], **common)]
    if op == "TINSERT":
        return [block_case("size-64k", f"{what}, a 1x2 source inserted at its origin.", op, "U8",
                           [big(17, 256), source("U8", [[0xC1, 0xC2]])], **common)]
    halves = [source("U8", pattern_rows("U8", 17, 128, shift), cols=128) for shift in (0, 3)]
    return [block_case("size-64k", """Two 17 x 128 U8 sources into a 64 KiB destination on PE 3 (mask 0001)
        of 17 x 256: its elements 0 and 4096 differ.""", op, "U8", halves, dims={"LB0": 256, "LB2": 256}, **common)]


def size_file(op: str) -> dict:
    return {"format": "pto-avs-vector/1", "id": f"PTO-AVS-X-{op}-SIZE-001", "operation": op, "kind": "execution",
            "summary": f"{op} at the model's tile size bound: 64 KiB, elements 0 and 4096 distinguishable",
            "exercises": Flow(UNITS[op]["readiness_subjects"]),
            "provenance": ("Expected values from the independent rearrangement reference "
                           f"vectors/reference/rearrange.py, written by `{COMMAND}`. Nothing here was produced by "
                           "running the golden model."),
            "cases": size_cases(op)}


# ---------------------------------------------------------------------------------------
# Files

PROVENANCE = engine.spec_provenance("vectors/reference/rearrange.py", COMMAND)


def files(operations) -> dict:
    out = engine.spec_id_files(operations, spec_cases, x_file, PROVENANCE, "generate_rearrange.py")
    for op in operations:
        out[f"PTO-AVS-X-{op}-STRENGTH-001.yaml"] = engine.render_spec_id(strength_file(op), "generate_rearrange.py")
        out[f"PTO-AVS-X-{op}-SIZE-001.yaml"] = engine.render_spec_id(size_file(op), "generate_rearrange.py")
    return out


FAMILY = engine.Family("generate_rearrange", OPERATIONS, files,
                       owns=tuple(f"PTO-AVS-{kind}-{op}-*.yaml" for op in OPERATIONS for kind in ("TILE", "X")))

if __name__ == "__main__":  # the command the files' provenance names: the engine's, for these operations
    sys.exit(engine.legacy_main([FAMILY]))
